"""One entry point for every response source: ``load_responses(source, ...)``.

Sits above the data layer: real sources come from the registry in
:mod:`mmlu_audit.data.registry`, simulated ones from :mod:`mmlu_audit.worlds.simulated`.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pandas as pd

from mmlu_audit.core.seeds import seeded
from mmlu_audit.data.items import load_items
from mmlu_audit.data.responses import ResponseMatrix
from mmlu_audit.data import registry as real_sources
from mmlu_audit.core.errors import ParameterError
from mmlu_audit.worlds.simulated import World, WorldSpec, load_or_simulate

__all__ = ["SIMULATED_SOURCES", "SOURCES", "load_responses", "load_world"]

SIMULATED_SOURCES = ("simulated", "simulated-null")
#: Every source name ``load_responses`` accepts, simulated first.
SOURCES = SIMULATED_SOURCES + tuple(real_sources.REAL_SOURCES)


@seeded
def load_responses(source: str = "simulated", *, items: pd.DataFrame | None = None,
                   seed: int = 0, spec: WorldSpec | None = None,
                   root: str | Path | None = None) -> ResponseMatrix:
    """Load a response matrix aligned to the item table.

    Parameters
    ----------
    source : str
        ``simulated`` generates (once, then caches) the planted world;
        ``simulated-null`` the null world with identical slopes; any key of
        :data:`mmlu_audit.data.registry.REAL_SOURCES` (``helm20``: the staged real
        20-model HELM matrix; ``leaderboard``: the Open LLM Leaderboard v1 matrix
        built where the Hugging Face Hub is reachable; ``mmlu_pro_tiger29``: 29 models on the
        MMLU-Pro questions).
    items : DataFrame, optional
        Column order of the result; defaults to :func:`load_items` of the source's benchmark.
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
    known = SIMULATED_SOURCES + tuple(real_sources.REAL_SOURCES)  # including any registered since import
    if source not in known:
        raise ParameterError("data_source", f"unknown response source {source!r}; choose one of {known}")
    if items is None:
        registered = real_sources.REAL_SOURCES.get(source)
        benchmark = registered.benchmark if registered is not None else "mmlu"
        items = load_items(root, benchmark=benchmark)
    if source in SIMULATED_SOURCES:
        return load_world(source, items=items, seed=seed, spec=spec).matrix
    return real_sources.load_real_responses(source, items, root)


@seeded
def load_world(source: str = "simulated", *, items: pd.DataFrame, seed: int = 0,
               spec: WorldSpec | None = None) -> World:
    """The simulated world (responses and planted truth) behind a ``simulated*`` source.

    Parameters
    ----------
    source : {"simulated", "simulated-null"}
    items : DataFrame
    seed : int
    spec : WorldSpec, optional
        ``simulated-null`` forces ``null_world=True`` on it.
    """
    if source not in SIMULATED_SOURCES:
        raise ParameterError("data_source", f"{source!r} is not a simulated source")
    spec = spec or WorldSpec()
    if source == "simulated-null":
        spec = replace(spec, null_world=True)
    return load_or_simulate(spec, seed, items)
