"""The two designs the many-seed coverage studies of λ and of the D_ner contrast run at.

* ``"paper"``: the paper's design, reduced as the fit study reduces it
  (:mod:`mmlu_audit.analyses.seed_study_fits`): a default world of ``models`` leaderboard models on
  ``per_subject`` items of each of the 57 subjects, drawn once with seed 0, every cell observed.
* ``"real"``: the real pool's design (:func:`mmlu_audit.worlds.real_design.simulate_at_design`):
  the real models of ``source``, their missing cells and their accuracies, on all 14,042 items.

A :class:`StudyDesign` holds what every seed of a study shares (sent to each Dask worker once) and
simulates one world of it per seed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from mmlu_audit.core.errors import ParameterError
from mmlu_audit.core.seeds import check_seed

__all__ = ["STUDY_DESIGNS", "StudyDesign", "study_design"]

#: The designs a study can run at: name → what it is.
STUDY_DESIGNS = {"paper": "the paper's design, reduced (all 57 subjects, fewer items, every cell observed)",
                 "real": "the real pool's design (its models, missing cells and accuracies)"}


@dataclass(frozen=True)
class StudyDesign:
    """One design of a coverage study: its items, their features, the world and the real matrix.

    Attributes
    ----------
    name : {"paper", "real"}
    items : DataFrame
        ``item_id``, ``subject``, ``partition``, ``stem``, ``question``, in the world's column order.
    features : DataFrame
        The feature table of the same items (positionally aligned), with the nine indicators and
        ``wscg_depth``.
    spec : WorldSpec
        The world (the planted slopes, the discriminations and, at the paper's design, the models).
    matrix : ResponseMatrix or None
        The real matrix whose design a ``"real"`` world keeps; None at the paper's design.
    """

    name: str
    items: pd.DataFrame
    features: pd.DataFrame
    spec: object
    matrix: object = None

    @property
    def answered(self) -> np.ndarray:
        """The items some model answers (every item at the paper's design)."""
        if self.matrix is None:
            return np.ones(len(self.items), bool)
        return self.matrix.observed.any(axis=0)

    @property
    def read_on(self) -> np.ndarray:
        """The items λ is read on: the answered STEM items, as the native-interaction chapter reads it."""
        return self.items["stem"].to_numpy(bool) & self.answered

    def with_spec(self, **changes) -> StudyDesign:
        """The same design with its world's spec changed (say ``null_world=True``)."""
        from mmlu_audit.worlds.simulated import WorldSpec

        return replace(self, spec=WorldSpec(**(_spec_fields(self.spec) | changes)))

    def simulate(self, seed: int, log_a_shift=None):
        """The design's world of ``seed``, with ``log_a_shift`` added to the log discriminations.

        Returns
        -------
        World
        """
        from mmlu_audit.worlds.real_design import simulate_at_design
        from mmlu_audit.worlds.simulated import simulate_world

        seed = check_seed(seed)
        covariates = self.features[list(self.spec.slopes)].reset_index(drop=True)
        if self.matrix is None:
            return simulate_world(self.spec, seed, self.items, covariates, log_a_shift=log_a_shift)
        return simulate_at_design(self.matrix, self.spec, self.items, covariates, seed=seed,
                                  log_a_shift=log_a_shift)


def _spec_fields(spec) -> dict:
    from dataclasses import fields

    return {f.name: getattr(spec, f.name) for f in fields(spec)}


def study_design(name: str, *, models: int = 1000, per_subject: int = 40, source: str = "mmlu_real",
                 items: pd.DataFrame | None = None) -> StudyDesign:
    """Build design ``name`` of :data:`STUDY_DESIGNS`.

    Parameters
    ----------
    name : {"paper", "real"}
    models : int
        Models of the paper's design (its distinct checkpoints scaled as in the default world).
    per_subject : int
        Items of each subject kept at the paper's design (drawn once, seed 0).
    source : str
        The real source whose design ``"real"`` keeps (needs its responses under
        ``$MMLU_AUDIT_DATA``).
    items : DataFrame, optional
        The 14,042 items (loaded when not given).

    Raises
    ------
    ParameterError
        For an unknown design.
    """
    from mmlu_audit.data.items import load_items
    from mmlu_audit.features import build_feature_table
    from mmlu_audit.worlds.simulated import WorldSpec

    if name not in STUDY_DESIGNS:
        raise ParameterError("design", f"unknown design {name!r}; choose one of {list(STUDY_DESIGNS)}")
    items = load_items() if items is None else items
    features = build_feature_table(items, progress=False).loc[items["item_id"].to_numpy()]
    if name == "real":
        from mmlu_audit.worlds.sources import load_responses

        return StudyDesign("real", items.reset_index(drop=True), features.reset_index(drop=True), WorldSpec(),
                           load_responses(source, items=items))
    from mmlu_audit.analyses.seed_study_fits import reduced_items

    full = WorldSpec()
    spec = WorldSpec(n_models=models, n_distinct=round(models * full.n_distinct / full.n_models))
    kept = reduced_items(items, per_subject, seed=0)
    return StudyDesign("paper", items.iloc[kept].reset_index(drop=True),
                       features.iloc[kept].reset_index(drop=True), spec)


def run_study(task, runs, seeds, path, *, config: dict, client=None, progress: bool = False) -> list:
    """Run ``task`` for every run and seed into one resumable CSV file, one Dask task per seed.

    Parameters
    ----------
    task : callable
        ``task(seed=s, **inputs)`` → one dict (a module-level function, for a cluster).
    runs : sequence of (dict, dict)
        ``(key, inputs)`` pairs: the columns naming the run in the file (say ``{"design": "real",
        "lambda_setting": "paper"}``) and the task's other arguments.
    seeds : iterable of int
        The seeds of every run.
    path : str or Path
        The CSV file (:func:`mmlu_audit.analyses.power.run_seeds`): finished seeds of a key are
        never run again, and a file written under another ``config`` is refused.
    config : dict
        Settings every row of the file shares.
    client : distributed.Client, optional
        Where the tasks run (:func:`mmlu_audit.core.distributed.seed_client`); None runs them here.
    progress : bool
        A progress bar per run.

    Returns
    -------
    list of int
        How many seeds each run computed now, in the order of ``runs``.

    Raises
    ------
    DataError
        If the file was run with other settings or holds another study.
    """
    from mmlu_audit.analyses.power import _check_config, read_rows, run_seeds
    from mmlu_audit.core.distributed import map_seeds, next_result, pending_seeds

    seeds = [check_seed(seed) for seed in seeds]
    existing = read_rows(path)
    if existing is not None:  # refuse a foreign file before any seed runs
        _check_config(existing, config, path)
    ran = []
    for key, inputs in runs:
        todo = pending_seeds(read_rows(path), seeds, key)
        results = map_seeds(task, todo, client=client, **inputs)
        ran.append(len(run_seeds(next_result(results), todo, path, config=config, key=key,
                                 progress=progress).ran))
    return ran
