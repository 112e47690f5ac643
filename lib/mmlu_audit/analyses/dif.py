"""Differential item functioning between two groups of models (Mantel–Haenszel).

An item shows DIF when models of equal overall ability but different groups have
different odds of answering it. The Mantel–Haenszel procedure matches models on
their total score, forms one 2 × 2 table (group × correct) per score stratum, and
pools the strata's odds ratios; the ETS rules turn the pooled log odds ratio, on
the delta scale, into the A / B / C categories used in test development
(Holland & Thayer 1988; Zwick 2012).

All items are handled at once: the stratum counts are matrix products of
membership indicators with the response matrix, so 14,042 items cost one pass.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from mmlu_audit.data.responses import ResponseMatrix
from mmlu_audit.core.errors import DataError, ParameterError

__all__ = ["DELTA_PER_LOG_ODDS", "dif_counts", "ets_category", "large_models", "mantel_haenszel_dif",
           "score_strata", "stratum_counts"]

#: MH D-DIF = −2.35 ln α_MH puts the log odds ratio on the ETS delta scale
#: (delta = 13 + 4z, and a logit is ≈ 1.7 probits, so 4 / 1.7 ≈ 2.35).
DELTA_PER_LOG_ODDS = -2.35

_Z_ONE_SIDED_05 = stats.norm.ppf(0.95)


def _responses(data) -> np.ndarray:
    """int8 responses (1 / 0 / −1) of a ResponseMatrix or array."""
    responses = data.responses if isinstance(data, ResponseMatrix) else np.asarray(data)
    if responses.ndim != 2 or not np.isin(np.unique(responses), (-1, 0, 1)).all():
        raise DataError("mantel_haenszel_dif", "responses must be a 2-D array of 1, 0 and -1")
    return responses


def score_strata(data, n_strata: int = 20) -> np.ndarray:
    """Stratum of each model by its matching score (share correct of the items it saw).

    Quantile bins of the score, so each stratum holds about J / ``n_strata`` models
    (ties stay together, so there may be fewer strata). Using the share rather than
    the count keeps models comparable when they saw different items.

    Returns
    -------
    ndarray of int, shape (J,)
        Stratum codes 0 … K − 1, ordered by score.
    """
    responses = _responses(data)
    if not isinstance(n_strata, (int, np.integer)) or n_strata < 1:
        raise ParameterError("n_strata", f"must be a positive integer, got {n_strata!r}")
    seen = (responses != -1).sum(axis=1)
    if (seen == 0).any():
        raise DataError("score_strata", f"{int((seen == 0).sum())} model(s) answered no item")
    score = (responses == 1).sum(axis=1) / seen
    edges = np.unique(np.quantile(score, np.linspace(0, 1, n_strata + 1)[1:-1]))
    return np.searchsorted(edges, score, side="right")


def stratum_counts(data, focal, strata) -> dict[str, np.ndarray]:
    """The four cells of every stratum × item 2 × 2 table.

    Parameters
    ----------
    data : ResponseMatrix or ndarray, shape (J, I)
    focal : array of bool, shape (J,)
        True for the focal group, False for the reference group.
    strata : array of int, shape (J,)
        Matching stratum of each model.

    Returns
    -------
    dict of ndarray, each shape (K, I)
        ``ref_right``, ``ref_wrong``, ``focal_right``, ``focal_wrong``; unobserved
        cells are counted nowhere.
    """
    responses = _responses(data)
    focal, strata = np.asarray(focal), np.asarray(strata)
    if focal.dtype != bool or focal.shape != (responses.shape[0],):
        raise DataError("stratum_counts", f"focal must be a boolean vector of length {responses.shape[0]}")
    if strata.shape != focal.shape or not np.issubdtype(strata.dtype, np.integer) or strata.min() < 0:
        raise DataError("stratum_counts", "strata must be non-negative integer codes, one per model")
    if focal.all() or not focal.any():
        raise DataError("stratum_counts", "both groups need at least one model")
    right = (responses == 1).astype(np.float64)
    wrong = (responses == 0).astype(np.float64)
    member = np.zeros((strata.max() + 1, responses.shape[0]))
    member[strata, np.arange(strata.size)] = 1.0
    ref, foc = member * ~focal, member * focal
    return {"ref_right": ref @ right, "ref_wrong": ref @ wrong,
            "focal_right": foc @ right, "focal_wrong": foc @ wrong}


def _pooled(counts: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """α_MH, the Robins–Breslow–Greenland SE of ln α_MH and the MH χ² (continuity-corrected)."""
    a, b = counts["ref_right"], counts["ref_wrong"]
    c, d = counts["focal_right"], counts["focal_wrong"]
    n = a + b + c + d
    usable = n > 1  # a stratum with one answer carries no comparison
    safe_n, safe_n1 = np.where(usable, n, 1.0), np.where(usable, n - 1, 1.0)
    r, s = np.where(usable, a * d / safe_n, 0.0), np.where(usable, b * c / safe_n, 0.0)
    p, q = np.where(usable, (a + d) / safe_n, 0.0), np.where(usable, (b + c) / safe_n, 0.0)
    sum_r, sum_s = r.sum(0), s.sum(0)
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = sum_r / sum_s
        var_log = ((p * r).sum(0) / (2 * sum_r**2) + (p * s + q * r).sum(0) / (2 * sum_r * sum_s)
                   + (q * s).sum(0) / (2 * sum_s**2))
        n_ref, n_foc, m_right, m_wrong = a + b, c + d, a + c, b + d
        expected = np.where(usable, n_ref * m_right / safe_n, 0.0)
        variance = np.where(usable, n_ref * n_foc * m_right * m_wrong / (safe_n**2 * safe_n1), 0.0)
        deviation = np.maximum(np.abs(a.sum(0) - expected.sum(0)) - 0.5, 0.0)
        chi2 = deviation**2 / variance.sum(0)
    return {"alpha": alpha, "se_log_alpha": np.sqrt(var_log), "chi2": chi2}


def ets_category(delta, se_delta, p_chi2, alpha: float = 0.05) -> np.ndarray:
    """ETS A / B / C from MH D-DIF, its SE and the MH χ² p-value.

    A: |Δ| < 1 or Δ not significantly different from 0 (MH χ² p ≥ ``alpha``).
    C: |Δ| ≥ 1.5 and |Δ| significantly greater than 1 (one-sided z = (|Δ| − 1) / SE
    above the normal 95th percentile). B: everything else. Items whose Δ cannot be
    computed (a group never right or never wrong in every stratum) are "" .
    """
    delta, se_delta, p_chi2 = (np.asarray(v, float) for v in (delta, se_delta, p_chi2))
    size = np.abs(delta)
    with np.errstate(invalid="ignore"):
        is_a = (size < 1.0) | (p_chi2 >= alpha)
        is_c = (size >= 1.5) & ((size - 1.0) / se_delta > _Z_ONE_SIDED_05)
    category = np.where(is_a, "A", np.where(is_c, "C", "B"))
    return np.where(np.isfinite(delta) & np.isfinite(se_delta) & np.isfinite(p_chi2), category, "")


def mantel_haenszel_dif(data, focal, *, n_strata: int = 20, strata=None,
                        item_ids=None) -> pd.DataFrame:
    """Mantel–Haenszel DIF of every item between a focal and a reference group.

    Parameters
    ----------
    data : ResponseMatrix or ndarray of int8, shape (J, I)
        1 correct, 0 wrong, −1 not observed.
    focal : array of bool, shape (J,)
        Focal group membership (False = reference group).
    n_strata : int
        Number of score-quantile strata (see :func:`score_strata`); ignored when
        ``strata`` is given.
    strata : array of int, optional
        Matching strata of your own.
    item_ids : array of str, optional
        Index of the result (defaults to the matrix's item ids, or 0 … I − 1).

    Returns
    -------
    DataFrame, one row per item
        ``alpha_mh`` (> 1: the reference group has higher odds at equal score),
        ``log_alpha``, ``se_log_alpha``, ``delta`` (MH D-DIF = −2.35 ln α; negative
        favours the reference group), ``se_delta``, ``chi2`` and ``p`` (MH χ² with
        continuity correction, 1 df), ``category`` (ETS A/B/C).
    """
    responses = _responses(data)
    strata = score_strata(responses, n_strata) if strata is None else np.asarray(strata)
    pooled = _pooled(stratum_counts(responses, focal, strata))
    with np.errstate(divide="ignore", invalid="ignore"):
        log_alpha = np.log(pooled["alpha"])
    delta = DELTA_PER_LOG_ODDS * log_alpha
    se_delta = abs(DELTA_PER_LOG_ODDS) * pooled["se_log_alpha"]
    p = stats.chi2.sf(pooled["chi2"], 1)
    if item_ids is None:
        item_ids = data.item_ids if isinstance(data, ResponseMatrix) else np.arange(responses.shape[1])
    return pd.DataFrame({"alpha_mh": pooled["alpha"], "log_alpha": log_alpha,
                         "se_log_alpha": pooled["se_log_alpha"], "delta": delta, "se_delta": se_delta,
                         "chi2": pooled["chi2"], "p": p,
                         "category": ets_category(delta, se_delta, p)},
                        index=pd.Index(np.asarray(item_ids), name="item_id"))


def large_models(models: pd.DataFrame, threshold_b: float | None = None) -> np.ndarray:
    """True for models with more than ``threshold_b`` billion parameters (default: the median size).

    Models of unknown size (NaN ``size_b``) are refused rather than put in a group.
    """
    if "size_b" not in models.columns:
        raise DataError("large_models", "the models table has no size_b column")
    size = models["size_b"].to_numpy(float)
    if not np.isfinite(size).all():
        raise DataError("large_models", f"{int((~np.isfinite(size)).sum())} model(s) of unknown size")
    threshold = float(np.median(size)) if threshold_b is None else float(threshold_b)
    return size > threshold


def dif_counts(table: pd.DataFrame, partition) -> pd.DataFrame:
    """Items per partition × ETS category × direction.

    Parameters
    ----------
    table : DataFrame
        From :func:`mantel_haenszel_dif`.
    partition : array of str, shape (n_items,)
        Partition of each row of ``table``.

    Returns
    -------
    DataFrame
        Rows: partition; columns: ``A``, ``B+``, ``B-``, ``C+``, ``C-`` (``+`` favours the
        focal group, Δ > 0) and ``not computable``; plus ``share B or C``.
    """
    partition = np.asarray(partition)
    if partition.shape != (len(table),):
        raise DataError("dif_counts", f"need one partition per item ({len(table)})")
    sign = np.where(table["delta"].to_numpy() > 0, "+", "-")
    category = table["category"].to_numpy()
    label = np.where(np.isin(category, ["B", "C"]), np.char.add(category.astype(str), sign),
                     np.where(category == "", "not computable", category))
    counts = pd.crosstab(pd.Series(partition, name="partition"), pd.Series(label, name="category"))
    counts = counts.reindex(columns=["A", "B+", "B-", "C+", "C-", "not computable"], fill_value=0)
    counts["share B or C"] = counts[["B+", "B-", "C+", "C-"]].sum(axis=1) / counts.sum(axis=1)
    return counts
