"""§3's headline figures of one calibration: parameter ranges, split-cohort reliability, and b̂'s reliability.

:func:`calibration_headline` computes, on any source's shared inputs
(:func:`mmlu_audit.analyses.pipeline.analysis_inputs`), the figures the calibration chapter
reports: the range and SD of b̂ and θ̂, the split-cohort correlation of b̂ with its
Spearman–Brown step-up, and the reliability of b̂ from its posterior standard errors. On a
population of several sources (the real MMLU pool: HELM and OpenCompass) the two cohorts are
halved within each population, whole checkpoints together, so that neither cohort is mostly
one population.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mmlu_audit.analyses.regression.designs import difficulty_reliability, estimated_items
from mmlu_audit.core.checkpoints import checkpoint_labels
from mmlu_audit.core.errors import ParameterError
from mmlu_audit.core.seeds import seeded
from mmlu_audit.irt import parameter_ranges, split_cohort_reliability

__all__ = ["CALIBRATION_KEYS", "calibration_headline", "calibration_headline_with_cohorts"]

#: §3's headline figures, by their glue names in the calibration chapter.
CALIBRATION_KEYS = ("b_min", "b_max", "b_sd", "theta_min", "theta_max", "theta_sd", "split_cohort_r",
                    "spearman_brown", "b_reliability")

COHORT_SPLITS = ("checkpoint", "rows")


@seeded
def calibration_headline(inputs, spec, *, seed: int, cohort_split: str = "checkpoint",
                         strata: str | None = "population") -> dict:
    """The calibration chapter's headline figures on one source's shared inputs.

    Parameters
    ----------
    inputs : AnalysisInputs
        :func:`mmlu_audit.analyses.pipeline.analysis_inputs` of the source (its matrix, its 2PL
        fit and its item frame with ``b_hat`` and ``b_sd``).
    spec : IRTSpec
        The specification both split cohorts are calibrated with.
    seed : int
        Seed of the split into two cohorts.
    cohort_split : {"checkpoint", "rows"}
        ``"checkpoint"``: whole distinct checkpoints go to one cohort
        (:func:`mmlu_audit.core.checkpoints.checkpoint_labels`); ``"rows"``: single rows.
    strata : str or None
        Column of the models table whose values the cohorts are halved within (the real
        pool's ``population``: HELM, OpenCompass); a source whose models table lacks the
        column is one population. None splits without strata.

    Returns
    -------
    dict
        :data:`CALIBRATION_KEYS` (``b_*`` over the items with an estimate; ``split_cohort_r`` is
        the Pearson r of the two cohorts' b̂ over the items both answered, ``spearman_brown``
        its step-up 2r / (1 + r); ``b_reliability`` is
        :func:`~mmlu_audit.analyses.regression.difficulty_reliability`) and the split's
        description: ``cohort_size``, ``cohort_second_size``, ``cohort_items`` (items used),
        ``cohort_split`` (``"groups"``: whole checkpoints; ``"rows"``), ``cohort_groups`` (the
        distinct checkpoints split; None for a split by rows) and ``n_strata`` (populations split
        within; None without strata).

    Raises
    ------
    ParameterError
        If ``cohort_split`` is not one of ``"checkpoint"``, ``"rows"``.
    """
    return calibration_headline_with_cohorts(inputs, spec, seed=seed, cohort_split=cohort_split,
                                             strata=strata)[0]


@seeded
def calibration_headline_with_cohorts(inputs, spec, *, seed: int, cohort_split: str = "checkpoint",
                                      strata: str | None = "population") -> tuple[dict, pd.DataFrame]:
    """:func:`calibration_headline` and the two cohorts' difficulties it correlates, from one split.

    Parameters are those of :func:`calibration_headline`.

    Returns
    -------
    headline : dict
        :func:`calibration_headline`'s figures.
    cohorts : DataFrame
        Indexed by item id (the items both cohorts answered, in the matrix's order), with
        columns ``b_first`` and ``b_second``: each cohort's b̂; their Pearson r is
        ``headline["split_cohort_r"]``. What a figure of the split's agreement draws.

    Raises
    ------
    ParameterError
        If ``cohort_split`` is not one of ``"checkpoint"``, ``"rows"``.
    """
    if cohort_split not in COHORT_SPLITS:
        raise ParameterError("cohort_split", f"is one of {COHORT_SPLITS}, not {cohort_split!r}")
    matrix, frame = inputs.matrix, estimated_items(inputs.frame)
    groups = checkpoint_labels(matrix.responses, matrix.models) if cohort_split == "checkpoint" else None
    layers = (matrix.models[strata].to_numpy()
              if strata is not None and strata in matrix.models.columns else None)
    split = split_cohort_reliability(matrix, spec, seed=seed, groups=groups, strata=layers)
    ranges = parameter_ranges(frame["b_hat"], np.asarray(inputs.fit.theta))
    used = split["items_used"]
    cohorts = pd.DataFrame({"b_first": split["b_first"], "b_second": split["b_second"]},
                           index=pd.Index(matrix.item_ids[used], name="item_id"))
    return {**ranges, "split_cohort_r": split["r"], "spearman_brown": split["spearman_brown"],
            "b_reliability": difficulty_reliability(frame),
            "cohort_size": split["cohort_size"], "cohort_second_size": split["second_size"],
            "cohort_items": int(split["items_used"].sum()), "n_strata": split["n_strata"],
            "cohort_split": split["split"], "cohort_groups": split["n_groups"]}, cohorts
