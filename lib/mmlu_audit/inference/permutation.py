"""Permutation tests of the STEM / non-STEM contrast.

Two null schemes:

``"item"``   shuffle the STEM label over items (ignores subject clustering);
``"block"``  relabel whole subjects, keeping the observed number of STEM
             subjects (19 of 57 on MMLU) — the cluster-aware null.

Two built-in statistics (both refitted from block sufficient statistics, so a
replicate costs a few ``K x K`` solves): ``"r2_gap"`` = STEM R² − non-STEM R²
(in-sample), and ``"lr"`` = the Gaussian likelihood-ratio statistic of the
partition-specific model against the pooled one (see :func:`lr_interaction`).
Any callable ``statistic(y, X, stem) -> float`` can be used instead.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.core.seeds import rng_from, seeded
from mmlu_audit.core.validate import count
from mmlu_audit.inference._suffstats import BlockStats, block_stats, fit_weighted
from mmlu_audit.inference._validate import (MAX_RESAMPLES, as_clusters, as_matrix, as_vector,
                                             check_draw_cells, check_rows)

__all__ = ["PermutationResult", "permutation_test", "r2_gap", "lr_interaction", "SCHEMES", "STATISTICS"]

SCHEMES = ("item", "block")
STATISTICS = ("r2_gap", "lr")
_CHUNK = 512


@dataclass(frozen=True)
class PermutationResult:
    """Outcome of :func:`permutation_test`.

    Attributes
    ----------
    stat : float
        Observed statistic.
    p : float
        ``(1 + #{T* >= T}) / (n_perm + 1)`` (``|T|`` when two-sided).
    draws : ndarray, shape (n_perm,)
        The permutation distribution.
    scheme, statistic : str
    """

    stat: float
    p: float
    draws: np.ndarray
    scheme: str
    statistic: str

    def to_frame(self) -> pd.DataFrame:
        """One-row tidy summary (with the maximum and 95th percentile of the null)."""
        return pd.DataFrame([{
            "scheme": self.scheme, "statistic": self.statistic, "stat": self.stat, "p": self.p,
            "null_q95": float(np.quantile(self.draws, 0.95)), "null_max": float(self.draws.max()),
            "n_perm": self.draws.size,
        }])


def r2_gap(y, X, stem) -> float:
    """In-sample R² of OLS (with intercept) on STEM items minus that on the others."""
    y, X1, s = _inputs(y, X, stem)
    fits = fit_weighted(block_stats(y, X1, np.arange(y.size), y.size), np.vstack([s, 1 - s]))
    return float(fits.r2[0] - fits.r2[1])


def lr_interaction(y, X, stem, *, separate_variance: bool = True) -> tuple[float, int]:
    """Gaussian LR statistic of partition-specific OLS against pooled OLS.

    Parameters
    ----------
    y, X, stem : array-like
        Outcome, predictors without intercept (n, k), partition indicator.
    separate_variance : bool
        ``True``: each partition also has its own residual variance, so the
        full model has ``k + 2`` extra parameters (``Lambda(11)`` for nine
        predictors). ``False``: common variance, ``k + 1`` extra parameters
        (equivalent to the LR test of the interaction model).

    Returns
    -------
    stat : float
    df : int
    """
    y, X1, s = _inputs(y, X, stem)
    stats = block_stats(y, X1, np.arange(y.size), y.size)
    stat = _lr_from_fits(stats, s[None, :], separate_variance)[0]
    return float(stat), X1.shape[1] + int(separate_variance)


def _lr_from_fits(stats: BlockStats, member: np.ndarray, separate_variance: bool) -> np.ndarray:
    both = fit_weighted(stats, np.vstack([member, 1.0 - member]))
    half = member.shape[0]
    rss_s, rss_n, n_s, n_n = both.rss[:half], both.rss[half:], both.n[:half], both.n[half:]
    pooled = fit_weighted(stats, np.ones((1, member.shape[1])))
    n_total, rss_pool = pooled.n[0], pooled.rss[0]
    if separate_variance:
        return n_total * np.log(rss_pool / n_total) - n_s * np.log(rss_s / n_s) - n_n * np.log(rss_n / n_n)
    return n_total * np.log(rss_pool / (rss_s + rss_n))


def _r2_gap_from_fits(stats: BlockStats, member: np.ndarray) -> np.ndarray:
    both = fit_weighted(stats, np.vstack([member, 1.0 - member]))
    half = member.shape[0]
    return both.r2[:half] - both.r2[half:]


@seeded
def permutation_test(
    y,
    X,
    stem,
    clusters=None,
    *,
    seed,
    scheme: str = "block",
    statistic="r2_gap",
    n_perm: int = 9999,
    alternative: str = "greater",
    separate_variance: bool = True,
) -> PermutationResult:
    """Permutation test of a STEM vs non-STEM statistic.

    Parameters
    ----------
    y : array-like, shape (n,)
    X : array-like, shape (n, k)
        Predictors without intercept (one is added within each partition).
    stem : array-like of bool, shape (n,)
    clusters : array-like, shape (n,), optional
        Subjects; required for ``scheme="block"`` (``stem`` must be constant
        within each).
    seed : int or numpy.random.Generator
    scheme : {"item", "block"}
    statistic : {"r2_gap", "lr"} or callable
        A callable gets ``(y, X, stem_bool)`` and returns a float (slow path:
        one call per permutation).
    n_perm : int
        Permutations, 1 to :data:`~mmlu_audit.inference._validate.MAX_RESAMPLES` (10**6), and
        no more than :data:`~mmlu_audit.inference._validate.MAX_DRAW_CELLS` / blocks.
    alternative : {"greater", "two-sided"}
    separate_variance : bool
        Passed to the ``"lr"`` statistic.

    Returns
    -------
    PermutationResult
    """
    y, X1, s = _inputs(y, X, stem)
    n_perm = count(n_perm, "n_perm", maximum=MAX_RESAMPLES)
    if scheme not in SCHEMES:
        raise ParameterError("scheme", f"unknown scheme {scheme!r}; choose from {SCHEMES}")
    if alternative not in ("greater", "two-sided"):
        raise ParameterError("alternative", "must be 'greater' or 'two-sided'")
    rng = rng_from(seed)
    codes, block_member = _blocks(s, clusters, scheme, y.size)
    check_draw_cells(n_perm, block_member.size, "n_perm")
    members = _permuted_members(block_member, n_perm, rng)
    name = statistic if isinstance(statistic, str) else getattr(statistic, "__name__", "custom")
    observed, draws = _evaluate(statistic, y, X1, s, codes, block_member, members, separate_variance)
    if alternative == "two-sided":
        observed, draws = abs(observed), np.abs(draws)
    p = (1.0 + np.count_nonzero(draws >= observed)) / (n_perm + 1.0)
    return PermutationResult(float(observed), float(p), draws, scheme, name)


def _blocks(s, clusters, scheme, n) -> tuple[np.ndarray, np.ndarray]:
    """Block codes and the observed STEM membership of each block."""
    if scheme == "item":
        return np.arange(n), s
    codes, labels = as_clusters(clusters, n)
    member = np.bincount(codes, weights=s, minlength=labels.size) / np.bincount(codes, minlength=labels.size)
    if not np.all((member == 0) | (member == 1)):
        raise DataError("stem", "block permutation needs stem constant within each cluster")
    return codes, member


#: Cells of the random keys drawn and sorted at a time by :func:`_permuted_members`.
_KEY_CELLS = 2**22


def _permuted_members(block_member: np.ndarray, n_perm: int, rng: np.random.Generator) -> np.ndarray:
    """``n_perm`` random rearrangements of the 0/1 block labels, shape (n_perm, n_blocks), int8.

    Row ``r`` is ``block_member`` ordered by row ``r`` of ``rng.random((n_perm, n_blocks))``.
    The keys are drawn and sorted a few rows at a time, which draws the same stream: for the
    item scheme's 9,999 × 14,042 permutations, keys, order and labels taken whole were three
    float64 or int64 arrays of 1.1 GB each, and the test spent more time in memory than in sorting.
    """
    n_blocks = block_member.size
    labels = block_member.astype(np.int8)  # 0/1 (checked by the callers): exact
    members = np.empty((n_perm, n_blocks), dtype=np.int8)
    rows = max(1, _KEY_CELLS // max(n_blocks, 1))
    for start in range(0, n_perm, rows):
        keys = rng.random((min(rows, n_perm - start), n_blocks))
        members[start:start + keys.shape[0]] = labels[np.argsort(keys, axis=1)]
    return members


def _evaluate(statistic, y, X1, s, codes, block_member, members, separate_variance):
    if callable(statistic):
        X = X1[:, 1:]
        draws = np.array([statistic(y, X, member[codes].astype(bool)) for member in members])
        return statistic(y, X, s.astype(bool)), draws
    if statistic not in STATISTICS:
        raise ParameterError("statistic",
                             f"unknown statistic {statistic!r}; choose from {STATISTICS} or a callable")
    stats = block_stats(y, X1, codes, block_member.size)
    if statistic == "r2_gap":
        compute = lambda m: _r2_gap_from_fits(stats, m)  # noqa: E731
    else:
        compute = lambda m: _lr_from_fits(stats, m, separate_variance)  # noqa: E731
    observed = float(compute(block_member[None, :])[0])
    draws = np.concatenate([compute(members[i:i + _CHUNK].astype(float))
                            for i in range(0, len(members), _CHUNK)])
    return observed, draws


def _inputs(y, X, stem) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    y, X = as_vector(y), as_matrix(X)
    s = as_vector(np.asarray(stem, dtype=float), "stem")
    check_rows(y.size, X=X, stem=s)
    if not np.isin(s, (0.0, 1.0)).all():
        raise DataError("stem", "must be boolean or 0/1")
    if s.sum() <= X.shape[1] + 1 or (1 - s).sum() <= X.shape[1] + 1:
        raise DataError("stem", "each partition needs more items than coefficients")
    return y, np.column_stack([np.ones(y.size), X]), s
