"""§4.2's glue values: effect sizes, the contrasts' Holm survivors, and the within-partition rerun."""

from __future__ import annotations

import pandas as pd

from mmlu_audit.core.errors import DataError
from mmlu_audit.core.seeds import seeded
from mmlu_audit.analyses.regression.contrasts import holm_count, holm_survivors, indicator_names

__all__ = ["HEADLINE_KEYS", "contrast_statistics", "cv_r2_intervals", "effect_statistics",
           "standardised_statistics", "stratified_headline"]

#: §4.2's headline figures, by their glue names in the stratified chapter.
HEADLINE_KEYS = ("cv_r2_stem", "cv_r2_nonstem", "logit2_ratio", "logit2_ratio_ci_low", "logit2_ratio_ci_high",
                 "cohens_q", "holm_survivors_hc3", "holm_survivors_cr2", "holm_survivors_boot", "t_cr2_d_ner",
                 "holm_p_cr2_d_ner",
                 "boot_p_d_ner")


def effect_statistics(cv: pd.DataFrame, effects: pd.DataFrame) -> dict[str, float]:
    """Cross-validated R² per partition and the two partition effect sizes with their intervals.

    Parameters
    ----------
    cv : DataFrame
        :func:`~mmlu_audit.analyses.regression.cv_table` of one design (its first row is read).
    effects : DataFrame
        :func:`mmlu_audit.inference.partition_effects` indexed by ``effect``.

    Returns
    -------
    dict
        ``cv_r2_stem``, ``cv_r2_nonstem`` (item folds), ``cv_r2_stem_subject``,
        ``cv_r2_nonstem_subject`` (subject folds), ``logit2_ratio`` and ``cohens_q`` with
        ``_ci_low`` / ``_ci_high``.
    """
    missing = [e for e in ("explained_var_ratio", "cohens_q") if e not in effects.index]
    if missing:
        raise DataError("effects", f"has no rows {missing}; index it by 'effect'")
    row = cv.iloc[0]
    out = {"cv_r2_stem": row[("item", "STEM")], "cv_r2_nonstem": row[("item", "non-STEM")],
           "cv_r2_stem_subject": row[("subject", "STEM")],
           "cv_r2_nonstem_subject": row[("subject", "non-STEM")]}
    for key, effect in (("logit2_ratio", "explained_var_ratio"), ("cohens_q", "cohens_q")):
        out |= {key: effects.loc[effect, "estimate"], f"{key}_ci_low": effects.loc[effect, "ci_low"],
                f"{key}_ci_high": effects.loc[effect, "ci_high"]}
    return out


def contrast_statistics(contrasts: pd.DataFrame, alpha: float = 0.05) -> dict:
    """Holm survivors per test (``holm_survivors_<kind>``, lower case: counts, where a contrasts table's
    ``holm_<kind>`` columns are p-values) and the strongest CR2 contrast.

    The strongest is the largest |t| under CR2: ``top_term`` (its indicator), ``top_t``,
    ``top_holm`` (Holm CR2 p) and ``top_boot_holm`` (bootstrap Holm p).
    """
    if "t_CR2" not in contrasts or "holm_boot" not in contrasts:
        raise DataError("contrasts", "needs CR2 tests and the bootstrap (t_CR2, holm_boot)")
    top = contrasts["t_CR2"].abs().idxmax()
    return {**{f"holm_survivors_{k.lower()}": v for k, v in holm_count(contrasts, alpha).items()},
            "top_term": indicator_names(top), "top_t": contrasts.loc[top, "t_CR2"],
            "top_holm": contrasts.loc[top, "holm_CR2"], "top_boot_holm": contrasts.loc[top, "holm_boot"]}


def standardised_statistics(contrasts: pd.DataFrame, standardised: pd.DataFrame, alpha: float = 0.05) -> dict:
    """How the Holm survivors change when b̂ and the indicators are z-scored within each partition.

    Returns ``std_holm_hc3`` and ``std_holm_cr2`` (survivors after standardising) and
    ``std_same_hc3`` / ``std_same_cr2`` ("yes" when the surviving set is unchanged, else "no").
    """
    counts = holm_count(standardised, alpha)
    out = {}
    for kind in ("HC3", "CR2"):
        same = holm_survivors(contrasts, kind, alpha) == holm_survivors(standardised, kind, alpha)
        out |= {f"std_holm_{kind.lower()}": counts[kind], f"std_same_{kind.lower()}": "yes" if same else "no"}
    return out


@seeded
def stratified_headline(frame: pd.DataFrame, *, seed, n_boot: int, cv_folds: int,
                        boot_kind: str = "CR2") -> dict:
    """§4.2's headline figures (:data:`HEADLINE_KEYS`) on an item frame, as the chapter computes them.

    Parameters
    ----------
    frame : DataFrame
        Items with ``b_hat``, ``stem``, ``subject`` and the nine indicators; items without
        ``b_hat`` are dropped.
    seed : int
        Seed of the CV folds and the bootstraps.
    n_boot : int
        Draws of the subject-cluster bootstrap (effect sizes) and of the wild cluster bootstrap.
    cv_folds : int
        K of the item-fold cross-validation.
    boot_kind : str
        Covariance inside the bootstrapped t statistics.
    """
    from mmlu_audit.analyses.regression import (Design, contrast_terms, contrast_tests, cv_table,
                                                design_arrays, estimated_items, interaction_fit)
    from mmlu_audit.inference import partition_effects

    X, y, stem, subjects = design_arrays(estimated_items(frame))
    cv = cv_table(y, stem, subjects, [Design("nine indicators", X.to_numpy())], n_folds=cv_folds, seed=seed)
    effects = partition_effects(y, X, stem, subjects, seed=seed, n_boot=n_boot).set_index("effect")
    contrasts = contrast_tests(interaction_fit(y, X, stem), subjects, contrast_terms(X.columns), seed=seed,
                               n_boot=n_boot, boot_kind=boot_kind)
    d_ner = contrasts.loc["STEM:d_ner"]
    out = effect_statistics(cv, effects) | contrast_statistics(contrasts) | {
        "t_cr2_d_ner": d_ner["t_CR2"], "holm_p_cr2_d_ner": d_ner["holm_CR2"], "boot_p_d_ner": d_ner["p_boot"]}
    return {key: out[key] for key in HEADLINE_KEYS}


@seeded
def cv_r2_intervals(frame: pd.DataFrame, *, seed, cv_folds: int, n_boot: int) -> dict:
    """Subject-resampled 95 % intervals of the nine indicators' cross-validated R² in each partition.

    The item folds are :func:`stratified_headline`'s (the same seed gives the same ``cv_r2_stem``
    and ``cv_r2_nonstem``); each interval resamples the partition's subjects around the
    cross-validation's own out-of-fold predictions
    (:func:`~mmlu_audit.inference.r2_cluster_interval`), so no model is refitted.

    Returns
    -------
    dict
        ``cv_r2_stem``, ``cv_r2_stem_low``, ``cv_r2_stem_high`` and the same for ``nonstem``.
    """
    import numpy as np

    from mmlu_audit.analyses.regression import Design, design_arrays, estimated_items
    from mmlu_audit.analyses.regression.pooled import item_fold_predictions
    from mmlu_audit.inference import r2_cluster_interval, r2_score

    X, y, stem, subjects = design_arrays(estimated_items(frame))
    design = Design("nine indicators", X.to_numpy())
    predictions = item_fold_predictions(y, stem, [design], n_folds=cv_folds, seed=seed)
    out = {}
    for part, key in (("STEM", "stem"), ("non-STEM", "nonstem")):
        mask, predicted = predictions[part]
        values = np.asarray(y, float)[mask]
        low, high = r2_cluster_interval(values, predicted[design.name], np.asarray(subjects)[mask], seed=seed,
                                        n_boot=n_boot)
        out |= {f"cv_r2_{key}": r2_score(values, predicted[design.name]), f"cv_r2_{key}_low": low,
                f"cv_r2_{key}_high": high}
    return out
