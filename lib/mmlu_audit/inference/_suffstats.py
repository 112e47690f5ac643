"""Block sufficient statistics for fast refits of OLS on re-weighted blocks.

An OLS fit with an intercept on any union of blocks (subjects, or single items)
depends on the data only through ``X'X``, ``X'y``, ``y'y``, ``sum y`` and
``n`` summed over the blocks. Permutation and cluster-bootstrap replicates
are therefore weight vectors over blocks, and a batch of replicates is one
matrix product followed by batched ``K x K`` solves.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["BlockStats", "block_stats", "PartitionFits", "fit_weighted"]


@dataclass(frozen=True)
class BlockStats:
    """Per-block sums, flattened so that ``weights @ table`` aggregates them.

    ``table`` has columns ``[vec(X'X) (upper triangle), X'y, y'y, n]`` where
    ``X`` includes the intercept (so ``X'y[0] = sum y``).
    """

    table: np.ndarray
    n_params: int
    triu: tuple


def block_stats(y: np.ndarray, X1: np.ndarray, codes: np.ndarray, n_blocks: int) -> BlockStats:
    """Sum the OLS sufficient statistics within blocks.

    Parameters
    ----------
    y : ndarray, shape (n,)
    X1 : ndarray, shape (n, K)
        Design including the intercept column first.
    codes : ndarray of int, shape (n,)
        Block of each row (use ``arange(n)`` for item-level blocks).
    n_blocks : int
    """
    k = X1.shape[1]
    iu = np.triu_indices(k)
    per_row = np.column_stack([X1[:, iu[0]] * X1[:, iu[1]], X1 * y[:, None], y * y, np.ones_like(y)])
    if n_blocks == y.size and np.array_equal(codes, np.arange(y.size)):
        return BlockStats(per_row, k, iu)
    table = np.zeros((n_blocks, per_row.shape[1]))
    np.add.at(table, codes, per_row)
    return BlockStats(table, k, iu)


@dataclass(frozen=True)
class PartitionFits:
    """Batched OLS results for a set of weight vectors (one row per replicate)."""

    beta: np.ndarray
    rss: np.ndarray
    tss: np.ndarray
    ess_fitted: np.ndarray
    n: np.ndarray

    @property
    def r2(self) -> np.ndarray:
        """In-sample R-squared."""
        return 1.0 - self.rss / self.tss

    @property
    def fitted_variance(self) -> np.ndarray:
        """Variance of the fitted values (population form, divisor ``n``)."""
        return self.ess_fitted / self.n


def fit_weighted(stats: BlockStats, weights: np.ndarray) -> PartitionFits:
    """OLS on each replicate ``weights[b]`` (block multiplicities).

    Parameters
    ----------
    stats : BlockStats
    weights : ndarray, shape (B, n_blocks)

    Returns
    -------
    PartitionFits
    """
    agg = weights @ stats.table
    k, iu = stats.n_params, stats.triu
    n_tri = iu[0].size
    xtx = np.zeros((agg.shape[0], k, k))
    xtx[:, iu[0], iu[1]] = agg[:, :n_tri]
    xtx[:, iu[1], iu[0]] = agg[:, :n_tri]
    xty = agg[:, n_tri:n_tri + k]
    yty, n = agg[:, n_tri + k], agg[:, n_tri + k + 1]
    beta = np.linalg.solve(xtx, xty[:, :, None])[..., 0]
    explained = np.einsum("bk,bk->b", beta, xty)
    centre = xty[:, 0] ** 2 / n
    return PartitionFits(beta, yty - explained, yty - centre, explained - centre, n)
