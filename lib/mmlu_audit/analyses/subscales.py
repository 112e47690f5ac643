"""Model-free check of dimensionality: correlating STEM and non-STEM subscale scores.

If one ability drove every item, two subscales built from different partitions
would correlate as highly as their reliabilities allow: their disattenuated
correlation would be 1. Each replicate draws subscales of the same length from
both partitions (so neither is more reliable by having more items), scores every
model on each by its share correct, and corrects the raw correlation for the
subscales' split-half reliabilities (Spearman–Brown).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mmlu_audit.core.seeds import check_seed, seeded
from mmlu_audit.data.responses import ResponseMatrix
from mmlu_audit.core.errors import DataError

__all__ = ["disattenuated", "matched_subscale_correlation", "share_correct", "split_half_reliability",
           "summarise_replicates"]


def share_correct(responses: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """Each model's share correct over the observed cells of ``columns`` (NaN if none)."""
    block = responses[:, columns]
    seen = (block != -1).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(seen > 0, (block == 1).sum(axis=1) / seen, np.nan)


def _pearson(x: np.ndarray, y: np.ndarray) -> float:
    both = np.isfinite(x) & np.isfinite(y)
    if both.sum() < 3 or x[both].std() == 0 or y[both].std() == 0:
        return float("nan")
    return float(np.corrcoef(x[both], y[both])[0, 1])


def split_half_reliability(responses: np.ndarray, columns: np.ndarray, rng: np.random.Generator) -> float:
    """Spearman–Brown reliability 2r / (1 + r) of a random half-split of ``columns``."""
    shuffled = rng.permutation(columns)
    half = shuffled.size // 2
    r = _pearson(share_correct(responses, shuffled[:half]), share_correct(responses, shuffled[half:]))
    return 2 * r / (1 + r)


def disattenuated(r: float, reliability_x: float, reliability_y: float) -> float:
    """r / √(ρ_xx ρ_yy): the correlation of the true scores (Spearman 1904)."""
    if reliability_x <= 0 or reliability_y <= 0:
        return float("nan")
    return r / np.sqrt(reliability_x * reliability_y)


@seeded
def matched_subscale_correlation(data, item_stem, *, n_splits: int = 200, length: int | None = None,
                                 seed: int) -> pd.DataFrame:
    """Raw and disattenuated STEM / non-STEM subscale correlations over random draws.

    Parameters
    ----------
    data : ResponseMatrix or ndarray of int8, shape (J, I)
    item_stem : array of bool, shape (I,)
    n_splits : int
        Number of replicates.
    length : int, optional
        Items per subscale; defaults to half the smaller partition, so both subscales
        are random samples in every replicate.
    seed : int
        Seed of the item draws and half-splits (required).

    Returns
    -------
    DataFrame, one row per replicate
        ``r`` (raw Pearson over models), ``rel_stem``, ``rel_nonstem`` (split-half,
        Spearman–Brown), ``r_disattenuated``.
    """
    seed = check_seed(seed)
    responses = data.responses if isinstance(data, ResponseMatrix) else np.asarray(data)
    stem = np.asarray(item_stem)
    if stem.dtype != bool or stem.shape != (responses.shape[1],):
        raise DataError("matched_subscale_correlation",
                        f"item_stem must be a boolean vector of length {responses.shape[1]}")
    pools = [np.flatnonzero(stem), np.flatnonzero(~stem)]
    smaller = min(p.size for p in pools)
    length = smaller // 2 if length is None else length
    if not 4 <= length <= smaller:
        raise DataError("matched_subscale_correlation",
                        f"length must lie in [4, {smaller}] (items of the smaller partition), got {length}")
    if n_splits < 1:
        raise DataError("matched_subscale_correlation", f"n_splits must be positive, got {n_splits}")
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(n_splits):
        chosen = [rng.choice(pool, length, replace=False) for pool in pools]
        r = _pearson(*(share_correct(responses, c) for c in chosen))
        rel_stem, rel_non = (split_half_reliability(responses, c, rng) for c in chosen)
        rows.append({"r": r, "rel_stem": rel_stem, "rel_nonstem": rel_non,
                     "r_disattenuated": disattenuated(r, rel_stem, rel_non)})
    return pd.DataFrame(rows)


def summarise_replicates(values, level: float = 0.95) -> dict:
    """Mean, percentile interval and the share of replicates at or above 1."""
    v = np.asarray(values, float)
    v = v[np.isfinite(v)]
    if v.size == 0:
        raise DataError("summarise_replicates", "no finite replicate")
    tail = (1 - level) / 2
    return {"mean": float(v.mean()), "low": float(np.quantile(v, tail)),
            "high": float(np.quantile(v, 1 - tail)), "share_at_least_one": float((v >= 1).mean()),
            "n": int(v.size)}
