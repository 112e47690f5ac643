"""MMLU-Redux labels in the audit: coverage, the homogeneity refit without flagged
items, and how flagged items behave in real model responses.

MMLU-Redux 2.0 (Gema et al. 2024) re-annotated 100 items per subject, 5,700 of the
14,042. Removing its flagged items can only remove the errors it found: the other
8,342 items were never checked, so an unannotated item is "not known to be wrong",
not "clean".
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from mmlu_audit.core.seeds import seeded
from mmlu_audit.data.responses import ResponseMatrix
from mmlu_audit.core.errors import DataError
from mmlu_audit.inference import (coef_table, fit_ols, homogeneity_test, interaction_share,
                                  wild_cluster_bootstrap)
from mmlu_audit.analyses.regression import contrast_terms, design_arrays, interaction_fit

__all__ = ["HEADLINE_KEYS", "flagged_vs_clean", "homogeneity_pair", "homogeneity_summary",
           "item_rest_correlation", "recalibrated_without_flagged", "redux_coverage",
           "redux_homogeneity_headline", "without_flagged"]


def redux_coverage(items: pd.DataFrame, redux: pd.DataFrame) -> pd.DataFrame:
    """Items, annotated items and flagged items per partition (and in total).

    Returns
    -------
    DataFrame indexed by partition plus ``"all"``
        ``items``, ``annotated``, ``flagged``, ``share_annotated``,
        ``share_flagged_of_annotated``, ``unchecked`` (items never annotated).
    """
    unknown = ~redux["item_id"].isin(items["item_id"])
    if unknown.any():
        raise DataError("redux_coverage", f"{int(unknown.sum())} annotation(s) name unknown items")
    labelled = items[["item_id", "partition"]].merge(redux[["item_id", "is_error"]], on="item_id", how="left")
    groups = {**{p: labelled[labelled["partition"] == p] for p in sorted(labelled["partition"].unique())},
              "all": labelled}
    rows = {}
    for name, part in groups.items():
        annotated = int(part["is_error"].notna().sum())
        flagged = int(part["is_error"].eq(True).sum())
        rows[name] = {"items": len(part), "annotated": annotated, "flagged": flagged,
                      "share_annotated": annotated / len(part),
                      "share_flagged_of_annotated": flagged / annotated if annotated else np.nan,
                      "unchecked": len(part) - annotated}
    return pd.DataFrame(rows).T.astype({"items": int, "annotated": int, "flagged": int, "unchecked": int})


def without_flagged(matrix: ResponseMatrix, redux: pd.DataFrame) -> ResponseMatrix:
    """The response matrix without the columns of Redux-flagged items."""
    flagged = set(redux.loc[redux["is_error"].astype(bool), "item_id"])
    keep = ~np.isin(matrix.item_ids, list(flagged))
    return matrix.take(columns=keep)


def recalibrated_without_flagged(frame: pd.DataFrame, matrix: ResponseMatrix, redux: pd.DataFrame, spec,
                                 progress: bool = False) -> pd.DataFrame:
    """The item frame without Redux-flagged items, with ``b_hat`` from a new calibration.

    The flagged columns leave the response matrix before the IRT fit (cached by
    :func:`~mmlu_audit.irt.fit_cached`), so they influence neither the abilities nor the
    other items' difficulties. Items nobody answered stay out, as in the main analysis.

    Parameters
    ----------
    frame : DataFrame
        The analysis frame (indexed by ``item_id``) of the same source as ``matrix``.
    matrix : ResponseMatrix
    redux : DataFrame
        From :func:`mmlu_audit.data.load_redux`.
    spec : IRTSpec
        The calibration to repeat.
    """
    from mmlu_audit.irt import fit_cached

    kept = without_flagged(matrix, redux)
    answered = kept.observed.any(axis=0)
    kept = kept.take(columns=answered)
    missing = ~np.isin(kept.item_ids, frame.index)
    if missing.any():
        raise DataError("recalibrated_without_flagged",
                        f"{int(missing.sum())} item(s) of the matrix are not in the frame")
    fit = fit_cached(kept, spec, progress=progress)
    return frame.loc[kept.item_ids].assign(b_hat=fit.b, a_hat=fit.a)


@seeded
def homogeneity_summary(frame: pd.DataFrame, *, seed: int, n_boot: int, boot_kind: str = "CR2") -> dict:
    """The §4.3 tests on one item frame (W(9) under HC3 and CR2-HTZ, the WCR bootstrap) and the
    homogeneity claim's estimand, the share of variance the nine interactions add.

    Parameters
    ----------
    frame : DataFrame
        Items with ``b_hat``, ``stem``, ``subject`` and the nine indicators.
    seed : int
        Seed of the wild cluster bootstrap and of the subject resamples of the share.
    n_boot : int
        Bootstrap draws (of each).

    Returns
    -------
    dict
        ``n_items``, ``w9_hc3``, ``p_hc3``, ``htz_F``, ``p_htz``, ``w9_cr2``, ``p_wcr``, and
        ``share``, ``share_low``, ``share_high``:
        :func:`~mmlu_audit.inference.interaction_share` with its 95 % subject-resample interval
        (the estimand the real-verdicts chapter reads the homogeneity claim by).
    """
    X, y, stem, subjects = design_arrays(frame)
    hc3 = homogeneity_test(y, X, stem, subjects, kind="HC3").iloc[0]
    cr2 = homogeneity_test(y, X, stem, subjects, kind="CR2", forms=["chi2", "HTZ"]).set_index("form")
    boot = wild_cluster_bootstrap(interaction_fit(y, X, stem), contrast_terms(X.columns), clusters=subjects,
                                  seed=seed, kind=boot_kind, n_draws=n_boot)
    share = interaction_share(y, X, stem, subjects, seed=seed, n_boot=n_boot)
    return {"n_items": len(frame), "w9_hc3": float(hc3["wald"]), "p_hc3": float(hc3["p"]),
            "w9_cr2": float(cr2.loc["chi2", "wald"]), "htz_F": float(cr2.loc["HTZ", "stat"]),
            "p_htz": float(cr2.loc["HTZ", "p"]), "p_wcr": float(boot.p), "share": share["estimate"],
            "share_low": share["low"], "share_high": share["high"]}


def item_rest_correlation(responses: np.ndarray) -> np.ndarray:
    """Point-biserial correlation of each item with the models' share correct on the others.

    A model-free discrimination index: the Pearson correlation over models (observed
    cells only) between the item's 0/1 response and the rest score. NaN when fewer
    than three models saw the item or either variable is constant.
    """
    responses = np.asarray(responses)
    seen = responses != -1
    right = (responses == 1).astype(float)
    n_seen, n_right = seen.sum(1, keepdims=True), right.sum(1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        rest = np.where(seen, (n_right - right) / (n_seen - 1), np.nan)
    y = np.where(seen, right, np.nan)
    count = seen.sum(0)
    y_c, rest_c = y - np.nanmean(y, 0), rest - np.nanmean(rest, 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.nansum(y_c * rest_c, 0) / np.sqrt(np.nansum(y_c**2, 0) * np.nansum(rest_c**2, 0))
    return np.where(count >= 3, r, np.nan)


def flagged_vs_clean(values: pd.DataFrame, is_error, subjects=None) -> pd.DataFrame:
    """Compare each column of ``values`` between flagged and clean items.

    The Mann–Whitney p treats items as independent. Flags and item statistics cluster by
    subject (a subject with many flagged items is also a hard or easy subject), so with
    ``subjects`` each row also gets ``cluster_p``: the t test of the flagged − clean mean
    difference, an OLS of the value on a flag indicator with subject-clustered CR2 SEs and
    Bell–McCaffrey degrees of freedom.

    Returns
    -------
    DataFrame, one row per column
        ``mean_flagged``, ``mean_clean``, ``median_flagged``, ``median_clean``,
        ``n_flagged``, ``n_clean``, the two-sided Mann–Whitney p and, with ``subjects``,
        ``cluster_p`` and ``n_subjects``.
    """
    flag = np.asarray(is_error, bool)
    if flag.shape != (len(values),) or flag.all() or not flag.any():
        raise DataError("flagged_vs_clean", "need one flag per row and both flagged and clean items")
    if subjects is not None and len(subjects) != len(values):
        raise DataError("flagged_vs_clean", f"need one subject per row ({len(values)}), got {len(subjects)}")
    rows = {}
    for column in values.columns:
        v = values[column].to_numpy(float)
        a, b = v[flag & np.isfinite(v)], v[~flag & np.isfinite(v)]
        rows[column] = {"mean_flagged": a.mean(), "mean_clean": b.mean(), "median_flagged": np.median(a),
                        "median_clean": np.median(b), "n_flagged": a.size, "n_clean": b.size,
                        "mann_whitney_p": stats.mannwhitneyu(a, b, alternative="two-sided").pvalue}
        if subjects is not None:
            rows[column] |= _clustered_difference(v, flag, np.asarray(subjects))
    return pd.DataFrame(rows).T


def _clustered_difference(v: np.ndarray, flag: np.ndarray, subjects: np.ndarray) -> dict:
    """CR2 (Bell–McCaffrey) p of the flagged − clean difference in means, subject clusters."""
    keep = np.isfinite(v)
    fit = fit_ols(v[keep], flag[keep].astype(float)[:, None], names=["flagged"], intercept=True)
    row = coef_table(fit, "CR2", subjects[keep]).set_index("term").loc["flagged"]
    return {"cluster_p": float(row["p"]), "n_subjects": int(np.unique(subjects[keep]).size)}


#: The keys :func:`redux_homogeneity_headline` returns, named as Appendix D (chap-appendix-d) glues them.
HEADLINE_KEYS = ("n_removed", "n_items_all", "w9_hc3_all", "p_hc3_all", "w9_cr2_all", "p_htz_all",
                 "p_wcr_all", "share_all", "share_low_all", "share_high_all", "n_items_kept", "w9_hc3_kept",
                 "p_hc3_kept", "w9_cr2_kept", "p_htz_kept", "p_wcr_kept", "share_kept", "share_low_kept",
                 "share_high_kept")


def homogeneity_pair(all_items: dict, kept: dict) -> dict:
    """Two :func:`homogeneity_summary` results as one flat dict keyed by :data:`HEADLINE_KEYS`.

    Parameters
    ----------
    all_items, kept : dict
        The summaries on all items and without the Redux-flagged ones.

    Returns
    -------
    dict
        ``n_removed`` (items the removal took out of the test) and each summary's
        ``n_items``, ``w9_hc3``, ``p_hc3``, ``w9_cr2``, ``p_htz``, ``p_wcr``, ``share``,
        ``share_low``, ``share_high`` with the suffix ``_all`` or ``_kept``.
    """
    out = {"n_removed": int(all_items["n_items"] - kept["n_items"])}
    for suffix, summary in (("all", all_items), ("kept", kept)):
        out |= {f"{key}_{suffix}": summary[key] for key in ("n_items", "w9_hc3", "p_hc3", "w9_cr2", "p_htz",
                                                             "p_wcr", "share", "share_low", "share_high")}
    return {key: out[key] for key in HEADLINE_KEYS}


@seeded
def redux_homogeneity_headline(frame: pd.DataFrame, matrix: ResponseMatrix, redux: pd.DataFrame, spec, *,
                               seed: int, n_boot: int, boot_kind: str = "CR2") -> dict:
    """Appendix D's headline on one population: §4.3 homogeneity with and without Redux-flagged items.

    As its chapter (chap-appendix-d) computes it: the §4.3 tests (:func:`homogeneity_summary`: W(9) under HC3,
    the CR2 Hotelling-T² (HTZ) form and the null-imposed wild cluster bootstrap over subjects)
    on the population's calibrated items, then again after the flagged items leave the response
    matrix and the 2PL is recalibrated on the rest (:func:`recalibrated_without_flagged`).

    Parameters
    ----------
    frame : DataFrame
        The analysis frame of the population (indexed by ``item_id``; items without ``b_hat``
        are dropped).
    matrix : ResponseMatrix
        The same population's responses.
    redux : DataFrame
        From :func:`mmlu_audit.data.load_redux`.
    spec : IRTSpec
        The calibration to repeat without the flagged items.
    seed : int
        Seed of both wild cluster bootstraps.
    n_boot : int
        Bootstrap draws per test.
    boot_kind : str
        Covariance inside the bootstrapped statistic.

    Returns
    -------
    dict
        Keyed by :data:`HEADLINE_KEYS` (see :func:`homogeneity_pair`).
    """
    from mmlu_audit.analyses.regression import estimated_items

    frame_all = estimated_items(frame)
    frame_kept = estimated_items(recalibrated_without_flagged(frame, matrix, redux, spec))
    return homogeneity_pair(homogeneity_summary(frame_all, seed=seed, n_boot=n_boot, boot_kind=boot_kind),
                            homogeneity_summary(frame_kept, seed=seed, n_boot=n_boot, boot_kind=boot_kind))
