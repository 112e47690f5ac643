"""The registry of real response sources: name → loader of a :class:`ResponseMatrix`.

Adding a real source is one entry in :data:`REAL_SOURCES` (or one call of
:func:`register_source`): a name, a one-line description and a loader
``load(root) -> ResponseMatrix``. Simulated sources live above the data layer, in
:mod:`mmlu_audit.worlds.sources`, which dispatches every ``load_responses(source)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.core.paths import data_root
from mmlu_audit.data.responses import ResponseMatrix

__all__ = ["REAL_SOURCES", "RealSource", "load_real_responses", "register_source"]

@dataclass(frozen=True)
class RealSource:
    """A real response source.

    Attributes
    ----------
    name : str
        What ``data_source`` / ``load_responses(source)`` call it.
    description : str
        One line for listings and error messages.
    load : callable
        ``load(root)`` with ``root`` a data root (``None``: :func:`~mmlu_audit.core.paths.data_root`);
        returns the source's :class:`ResponseMatrix` in its own column order.
    benchmark : str
        Whose items the columns are: ``"mmlu"``, or e.g. ``"mmlu_pro"`` (``load_items(benchmark)``).
    """

    name: str
    description: str
    load: Callable[[Path | None], ResponseMatrix]
    benchmark: str = "mmlu"


def _load_helm20(root: Path | None) -> ResponseMatrix:
    from mmlu_audit.data.helm import load_helm20

    return load_helm20(root)


def _load_staged_leaderboard(root: Path | None) -> ResponseMatrix:
    # imported here so `python -m mmlu_audit.data.leaderboard` does not import itself twice
    from mmlu_audit.data.leaderboard import LEADERBOARD_DIR, load_leaderboard

    folder = Path(root or data_root()) / LEADERBOARD_DIR
    if not folder.exists():
        raise DataError(folder, "no leaderboard matrix here; build it with `make data-leaderboard` "
                        "on a machine that can reach the Hugging Face Hub (see README)")
    return load_leaderboard(folder)


REAL_SOURCES: dict[str, RealSource] = {}


def register_source(name: str, description: str, load: Callable[[Path | None], ResponseMatrix],
                    benchmark: str = "mmlu") -> None:
    """Add a real source to :data:`REAL_SOURCES`.

    Raises
    ------
    ParameterError
        If ``name`` is already registered or is a simulated source's name.
    """
    if name in REAL_SOURCES or name.startswith("simulated"):
        raise ParameterError("data_source", f"source name {name!r} is already taken")
    REAL_SOURCES[name] = RealSource(name, description, load, benchmark)


register_source("helm20", "HELM predictions of 20 frontier models (real)", _load_helm20)
register_source("leaderboard", "Open LLM Leaderboard v1, built by `make data-leaderboard` (real)",
                _load_staged_leaderboard)


def _load_mmlu_pro(root: Path | None) -> ResponseMatrix:
    from mmlu_audit.data.mmlu_pro import load_pro_responses

    return load_pro_responses(root=root)


def _load_mmlu_pro34(root: Path | None) -> ResponseMatrix:
    from mmlu_audit.data.mmlu_pro import load_pro_responses

    return load_pro_responses(root=root, panel="tiger34")


def _load_openllm(root: Path | None) -> ResponseMatrix:
    from mmlu_audit.data.openllm import load_openllm_mmlu102

    return load_openllm_mmlu102(root)


register_source("mmlu_pro_tiger29", "TIGER-Lab's 29 models on the 12,032 MMLU-Pro questions (real)",
                _load_mmlu_pro, benchmark="mmlu_pro")
register_source("mmlu_pro_tiger34", "TIGER-Lab's 29 models plus 5 recovered ones (GPT-4o, Gemini 3.1 Pro, "
                "…) on the 12,032 MMLU-Pro questions (real)", _load_mmlu_pro34, benchmark="mmlu_pro")
register_source("openllm_v1_mmlu102", "Open LLM Leaderboard v1: 4,278 models on 102 MMLU items "
                "selected by metabench, not sampled (real)", _load_openllm)


def _population_loader(name: str) -> Callable[[Path | None], ResponseMatrix]:
    def load(root: Path | None) -> ResponseMatrix:
        from mmlu_audit.data.real_pool import load_population

        return load_population(name, root)

    return load


def _register_populations() -> None:
    from mmlu_audit.data.real_pool import POPULATION_SOURCES

    for name, description in POPULATION_SOURCES.items():
        register_source(name, description, _population_loader(name))


_register_populations()


def load_real_responses(source: str, items: pd.DataFrame, root: str | Path | None = None) -> ResponseMatrix:
    """Load a real source's responses with columns in ``items`` order.

    Parameters
    ----------
    source : str
        A key of :data:`REAL_SOURCES`.
    items : DataFrame
        The item table whose ``item_id`` order the columns follow.
    root : str or Path, optional
        Data root.
    """
    if source not in REAL_SOURCES:
        raise ParameterError("data_source", f"unknown real response source {source!r}; "
                             f"choose one of {tuple(REAL_SOURCES)}")
    return REAL_SOURCES[source].load(None if root is None else Path(root)).aligned_to(items)
