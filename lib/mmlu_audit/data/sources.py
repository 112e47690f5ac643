"""One entry point for every response source: ``load_responses(source, ...)``."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..errors import DataError
from ..paths import data_root
from .responses import ResponseMatrix

__all__ = ["SOURCES", "LEADERBOARD_DIR", "load_responses", "load_world"]

SOURCES = ("simulated", "simulated-null", "helm20", "leaderboard")
LEADERBOARD_DIR = "responses/open_llm_leaderboard_v1"


def load_responses(source: str = "simulated", *, items: pd.DataFrame | None = None,
                   seed: int = 0, spec=None, root: str | Path | None = None) -> ResponseMatrix:
    """Load a response matrix aligned to the item table.

    Parameters
    ----------
    source : {"simulated", "simulated-null", "helm20", "leaderboard"}
        ``simulated`` generates (once, then caches) the planted world;
        ``simulated-null`` the null world with identical slopes; ``helm20`` is the
        staged real 20-model HELM matrix; ``leaderboard`` the Open LLM Leaderboard
        v1 matrix built by ``make data`` where the Hugging Face Hub is reachable.
    items : DataFrame, optional
        Column order of the result; defaults to :func:`load_items`.
    seed : int
        Seed of the simulated world.
    spec : WorldSpec, optional
        Simulated-world parameters (``simulated*`` only).
    root : str or Path, optional
        Data root.

    Returns
    -------
    ResponseMatrix
        Columns in ``items`` order.
    """
    from .items import load_items

    if source not in SOURCES:
        raise DataError("data_source", f"unknown response source {source!r}; choose one of {SOURCES}")
    items = load_items(root) if items is None else items
    if source.startswith("simulated"):
        return load_world(source, items=items, seed=seed, spec=spec).matrix
    if source == "helm20":
        from .helm import load_helm20

        return load_helm20(root).aligned_to(items)
    from .leaderboard import load_leaderboard

    folder = Path(root or data_root()) / LEADERBOARD_DIR
    if not folder.exists():
        raise DataError(folder, "no leaderboard matrix here; build it with `make data-leaderboard` "
                        "on a machine that can reach the Hugging Face Hub (see README)")
    return load_leaderboard(folder).aligned_to(items)


def load_world(source: str = "simulated", *, items: pd.DataFrame, seed: int = 0, spec=None):
    """The simulated world (responses and planted truth) behind a ``simulated*`` source.

    Parameters
    ----------
    source : {"simulated", "simulated-null"}
    items : DataFrame
    seed : int
    spec : WorldSpec, optional
        ``simulated-null`` forces ``null_world=True`` on it.
    """
    from dataclasses import replace

    from ..simulate import WorldSpec, load_or_simulate

    if source not in ("simulated", "simulated-null"):
        raise DataError("data_source", f"{source!r} is not a simulated source")
    spec = spec or WorldSpec()
    if source == "simulated-null":
        spec = replace(spec, null_world=True)
    return load_or_simulate(spec, seed, items)
