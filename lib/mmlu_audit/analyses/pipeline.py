"""The inputs every analysis chapter shares, computed once and cached.

``analysis_inputs(data_source, seed, fast)`` returns the items, the complexity
feature table, the response matrix (with its planted truth when simulated), the
paper's 2PL calibration, and one tidy item-level frame that joins them. The
feature table, the simulated world and the IRT fit are each cached on disk by
a hash of their inputs, so later chapters reuse what earlier ones computed.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from mmlu_audit.core.seeds import seeded
from mmlu_audit.data.items import load_items
from mmlu_audit.data.responses import ResponseMatrix
from mmlu_audit.worlds.sources import load_responses, load_world

__all__ = ["ITEM_RESULT_COLUMNS", "AnalysisInputs", "analysis_inputs", "answered_columns", "calibration_spec",
           "item_results"]

FAST_STEPS = 300
#: The item-level results a reader downloads: the fitted 2PL item parameters, the nine
#: indicators and the quality flags (the planted truth, too, on a simulated source).
ITEM_RESULT_COLUMNS = ("subject", "partition", "b_hat", "b_sd", "a_hat", "b_true", "a_true")


@dataclass(frozen=True)
class AnalysisInputs:
    """Everything the analysis chapters start from.

    Attributes
    ----------
    items : DataFrame
        The 14,042 items in canonical order.
    features : DataFrame
        The complexity feature table, indexed by ``item_id``.
    matrix : ResponseMatrix
        Responses of the selected source, columns in item order.
    truth : dict or None
        Planted truth of a simulated world (``None`` for real sources).
    fit : IRTFit
        The paper's 2PL calibration (N(0, 1) prior on b) of ``matrix``.
    frame : DataFrame
        One row per item: subject, partition, ``stem``, ``b_hat``, ``b_sd``,
        ``a_hat`` (NaN for items no model answered), the nine indicators, baselines, option
        covariates and flags;
        ``b_true`` / ``a_true`` on simulated sources.
    """

    items: pd.DataFrame
    features: pd.DataFrame
    matrix: ResponseMatrix
    truth: dict | None
    fit: object
    frame: pd.DataFrame


@seeded
def calibration_spec(fast: bool, seed: int = 0, **changes):
    """The paper's 2PL specification, with fewer SVI steps in fast mode."""
    from mmlu_audit.irt import IRTSpec

    spec = IRTSpec(model="2pl", b_prior="paper", seed=seed)
    if fast:
        spec = spec.with_(max_steps=FAST_STEPS)
    return spec.with_(**changes) if changes else spec


@lru_cache(maxsize=4)
def analysis_inputs(data_source: str = "simulated", seed: int = 20240601,
                    fast: bool = False) -> AnalysisInputs:
    """Load (or compute and cache) the shared inputs of the analysis chapters.

    Parameters
    ----------
    data_source : str
        One of :data:`mmlu_audit.SOURCES`.
    seed : int
        Seed of the simulated world and of the SVI fit.
    fast : bool
        Fewer SVI steps (smoke runs); results are then rougher.
    """
    from mmlu_audit.features import build_feature_table
    from mmlu_audit.irt import fit_cached

    items = load_items()
    features = build_feature_table(items, progress=False)
    if data_source.startswith("simulated"):
        world = load_world(data_source, items=items, seed=seed)
        matrix, truth = world.matrix, world.truth
    else:
        matrix, truth = load_responses(data_source, items=items, seed=seed), None
    answered = matrix.observed.any(axis=0)
    fit = fit_cached(answered_columns(matrix, answered), calibration_spec(fast, seed), progress=False)
    frame = items[["item_id", "subject", "partition", "stem"]].copy()
    for column, values in (("b_hat", fit.b), ("a_hat", fit.a), ("b_sd", fit.dataset["b_sd"].to_numpy())):
        frame[column] = np.nan
        frame.loc[answered, column] = values
    if truth is not None:
        frame["b_true"], frame["a_true"] = truth["b"], truth["a"]
    frame = frame.join(features, on="item_id")
    return AnalysisInputs(items, features, matrix, truth, fit, frame.set_index("item_id"))


def item_results(inputs: AnalysisInputs) -> pd.DataFrame:
    """One row per item: its fitted difficulty and discrimination, indicators and flags, with provenance.

    Parameters
    ----------
    inputs : AnalysisInputs

    Returns
    -------
    DataFrame
        ``item_id``, ``data_source`` (the responses the parameters were fitted to; ``simulated…``
        sources are not MMLU findings), :data:`ITEM_RESULT_COLUMNS` present in ``inputs.frame``,
        the nine indicators and the feature table's ``flag_*`` columns, in item order. Items no
        model answered have missing ``b_hat``, ``b_sd`` and ``a_hat``.
    """
    from mmlu_audit.features import INDICATORS
    from mmlu_audit.features.table import FLAGS

    frame = inputs.frame
    columns = [c for c in ITEM_RESULT_COLUMNS if c in frame] + list(INDICATORS) + list(FLAGS)
    table = frame[columns].reset_index()
    table.insert(1, "data_source", inputs.matrix.source)
    return table


def answered_columns(matrix: ResponseMatrix, answered: np.ndarray) -> ResponseMatrix:
    """The matrix without items nobody answered (they carry no information on b).

    HELM-20 leaves 14 items unobserved by every model; their ``b_hat`` is NaN.
    """
    if answered.all():
        return matrix
    return matrix.take(columns=answered)
