"""Partition effect sizes with subject-cluster bootstrap intervals.

Effect sizes compare the OLS fit of the same predictors within the STEM and
non-STEM partitions: Cohen's ``f^2 = R^2 / (1 - R^2)``, Cohen's
``q = atanh(sqrt(R^2_STEM)) - atanh(sqrt(R^2_non))`` and the ratio of
explained variance (variance of fitted values, in the outcome's squared
units — logit² for IRT difficulty). Intervals come from a cluster bootstrap
that resamples subjects with replacement within each partition, so each
replicate keeps 19 STEM and 38 non-STEM subjects.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mmlu_audit.core.errors import DataError
from mmlu_audit.core.scaling import standardise
from mmlu_audit.core.seeds import rng_from, seeded
from mmlu_audit.core.validate import count, probability
from mmlu_audit.inference._suffstats import block_stats, fit_weighted
from mmlu_audit.inference._validate import as_clusters, as_matrix, as_vector, check_rows

__all__ = [
    "cohens_f2",
    "cohens_q",
    "interaction_share",
    "partition_effects",
    "standardise_within",
]

_EFFECTS = ("r2_stem", "r2_non_stem", "f2_stem", "f2_non_stem", "cohens_q", "explained_var_stem",
            "explained_var_non_stem", "explained_var_ratio")


def cohens_f2(r2) -> np.ndarray:
    """Cohen's ``f^2 = R^2 / (1 - R^2)``."""
    r2 = np.asarray(r2, dtype=float)
    return r2 / (1.0 - r2)


def cohens_q(r2_a, r2_b) -> np.ndarray:
    """Cohen's ``q``: difference of Fisher ``z`` of the multiple correlations ``sqrt(R^2)``."""
    return np.arctanh(np.sqrt(np.asarray(r2_a, float))) - np.arctanh(np.sqrt(np.asarray(r2_b, float)))


@seeded
def partition_effects(y, X, stem, clusters, *, seed, n_boot: int = 2000, level: float = 0.95) -> pd.DataFrame:
    """Partition effect sizes with percentile cluster-bootstrap intervals.

    Parameters
    ----------
    y : array-like, shape (n,)
    X : array-like, shape (n, k)
        Predictors without intercept (one is added within each partition).
    stem : array-like of bool, shape (n,)
        Must be constant within each cluster.
    clusters : array-like, shape (n,)
        Subjects, the resampling unit.
    seed : int or numpy.random.Generator
    n_boot : int
    level : float

    Returns
    -------
    DataFrame
        Columns ``effect, estimate, ci_low, ci_high, n_boot``; effects are
        ``r2_*``, ``f2_*``, ``cohens_q``, ``explained_var_*`` and
        ``explained_var_ratio`` (STEM / non-STEM).
    """
    n_boot, level = count(n_boot, "n_boot"), probability(level, "level")
    y, X, s, codes, labels, member = _clustered_partitions(y, X, stem, clusters)
    stats = block_stats(y, np.column_stack([np.ones(y.size), X]), codes, labels.size)
    observed = _effects(stats, member[None, :], 1.0 - member[None, :])
    boot_stem, boot_non = _resample_within(member, n_boot, rng_from(seed))
    boot = _effects(stats, boot_stem, boot_non)
    tail = (1.0 - level) / 2.0
    low, high = np.nanquantile(boot, [tail, 1.0 - tail], axis=0)
    return pd.DataFrame({"effect": list(_EFFECTS), "estimate": observed[0], "ci_low": low,
                         "ci_high": high, "n_boot": n_boot})


def _clustered_partitions(y, X, stem, clusters):
    """Checked ``y``, ``X``, the STEM flag as float, cluster codes and labels, and each cluster's partition.

    Raises
    ------
    DataError
        If a cluster mixes partitions, or a partition has too few items to fit (:func:`_check_partitions`).
    """
    y, X = as_vector(y), as_matrix(X)
    s = as_vector(np.asarray(stem, dtype=float), "stem")
    check_rows(y.size, X=X, stem=s)
    codes, labels = as_clusters(clusters, y.size)
    member = np.bincount(codes, weights=s, minlength=labels.size) / np.bincount(codes, minlength=labels.size)
    if not np.all((member == 0) | (member == 1)):
        raise DataError("stem", "must be constant within each cluster")
    _check_partitions(s, member, X.shape[1] + 1)
    return y, X, s, codes, labels, member


def _check_partitions(s: np.ndarray, member: np.ndarray, n_coef: int) -> None:
    """Each partition needs a cluster to resample and more items than coefficients."""
    for name, flag in (("STEM", 1.0), ("non-STEM", 0.0)):
        n_items, n_clusters = int(np.sum(s == flag)), int(np.sum(member == flag))
        if n_items <= n_coef:
            raise DataError("stem", f"the {name} partition has {n_items} items in {n_clusters} clusters; "
                            f"its fit needs more than {n_coef} (one per coefficient)")


def _resample_within(member: np.ndarray, n_boot: int, rng: np.random.Generator):
    """Multiplicity weights of subjects drawn with replacement inside each partition."""
    out = []
    for flag in (1.0, 0.0):
        idx = np.flatnonzero(member == flag)
        picks = idx[rng.integers(0, idx.size, size=(n_boot, idx.size))]
        counts = np.zeros((n_boot, member.size))
        np.add.at(counts, (np.repeat(np.arange(n_boot), idx.size), picks.ravel()), 1.0)
        out.append(counts)
    return out


def _effects(stats, w_stem: np.ndarray, w_non: np.ndarray) -> np.ndarray:
    fits_s, fits_n = fit_weighted(stats, w_stem), fit_weighted(stats, w_non)
    r2_s, r2_n = fits_s.r2, fits_n.r2
    ev_s, ev_n = fits_s.fitted_variance, fits_n.fitted_variance
    return np.column_stack([r2_s, r2_n, cohens_f2(r2_s), cohens_f2(r2_n), cohens_q(r2_s, r2_n),
                            ev_s, ev_n, ev_s / ev_n])


@seeded
def interaction_share(y, X, stem, clusters, *, seed, n_boot: int = 999, level: float = 0.95) -> dict:
    """The share of residual variance the STEM × indicator interactions add, bias-corrected.

    With ``RSS_r`` the fit of ``y ~ [1, X, S]`` (common slopes, a STEM shift) and ``RSS_f`` that
    of separate slopes per partition (``y ~ [1, X, S, S*X]``), Cohen's ``f² = (RSS_r − RSS_f) /
    RSS_f`` grows with chance alone by about ``k / (n − p)`` (``k`` interactions, ``p = 2k + 2``
    coefficients): ``k·F = (n − p)·f²`` and ``E[k·F] ≈ k + λ`` under the classical F test.
    The estimand is ``λ / (n − p) = f² − k / (n − p)``, an effect size that does not grow with
    the number of items and is 0 in expectation when the slopes are equal. Its interval is the
    percentile interval of subjects resampled with replacement within each partition.

    Parameters
    ----------
    y : array-like, shape (n,)
    X : array-like, shape (n, k)
        Predictors without intercept.
    stem : array-like of bool, shape (n,)
        Constant within each cluster.
    clusters : array-like, shape (n,)
        Subjects, the resampling unit.
    seed : int or numpy.random.Generator
    n_boot : int
    level : float

    Returns
    -------
    dict
        ``estimate``, ``low``, ``high``, ``f2`` (uncorrected), ``n_boot``.
    """
    n_boot, level = count(n_boot, "n_boot"), probability(level, "level")
    y, X, s, codes, labels, member = _clustered_partitions(y, X, stem, clusters)
    k = X.shape[1]
    ones = np.ones(y.size)
    within = block_stats(y, np.column_stack([ones, X]), codes, labels.size)
    common = block_stats(y, np.column_stack([ones, X, s]), codes, labels.size)
    observed = _interaction_share(within, common, member[None, :], 1.0 - member[None, :], k)
    boot_stem, boot_non = _resample_within(member, n_boot, rng_from(seed))
    boot = _interaction_share(within, common, boot_stem, boot_non, k)
    tail = (1.0 - level) / 2.0
    low, high = np.nanquantile(boot[0], [tail, 1.0 - tail])
    return {"estimate": float(observed[0][0]), "low": float(low), "high": float(high),
            "f2": float(observed[1][0]), "n_boot": n_boot}


def _interaction_share(within, common, w_stem: np.ndarray, w_non: np.ndarray, k: int):
    """(bias-corrected share, raw f²) for each replicate's subject multiplicities."""
    rss_full = fit_weighted(within, w_stem).rss + fit_weighted(within, w_non).rss
    reduced = fit_weighted(common, w_stem + w_non)
    f2 = (reduced.rss - rss_full) / rss_full
    return f2 - k / (reduced.n - 2 * k - 2), f2


def standardise_within(y, X, stem) -> tuple[np.ndarray, np.ndarray]:
    """z-score ``y`` and each column of ``X`` within each partition (ddof = 1).

    Returns
    -------
    y_z : ndarray, shape (n,)
    X_z : ndarray, shape (n, k)
    """
    y, X = as_vector(y), as_matrix(X)
    s = np.asarray(stem, dtype=bool)
    check_rows(y.size, X=X, stem=s)
    y_z, X_z = np.empty_like(y), np.empty_like(X)
    for part in (s, ~s):
        sd_x = X[part].std(axis=0, ddof=1)
        if part.sum() < 2 or np.any(sd_x == 0) or y[part].std(ddof=1) == 0:
            raise DataError("X", "a variable is constant within a partition; cannot standardise")
        y_z[part], X_z[part] = standardise(y[part], ddof=1), standardise(X[part], ddof=1)
    return y_z, X_z
