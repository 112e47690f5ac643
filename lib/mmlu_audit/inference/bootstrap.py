"""Vectorised wild cluster bootstrap for one coefficient or a Wald statistic.

For a restriction ``R beta = r`` the bootstrap outcome is
``y* = X beta_0 + v_g e_0`` with one weight ``v_g`` per cluster, where
``(beta_0, e_0)`` is the restricted fit (WCR, null imposed) or the OLS fit
(WCU). Because ``beta* - beta_0 = M sum_g v_g X_g' e_0g`` and the bootstrap
residuals are ``(I - H)(v * e_0)``, every draw's numerator and cluster-robust
covariance are linear in ``v``:

    R M X_g' A_g e*_g = v_g a_g - Gamma_g v,

with ``a_g`` (q) and ``Gamma_g`` (q x G) computed once from the data. A draw is
then a handful of small products over the ``G`` clusters, never over the
``n`` rows. References: Cameron, Gelbach & Miller (2008); MacKinnon & Webb
(2017) for the six-point weights; Roodman et al. (2019) for the algebra.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.core.seeds import rng_from, seeded
from mmlu_audit.core.validate import count, probability
from mmlu_audit.inference._validate import MAX_RESAMPLES, as_clusters, as_vector
from mmlu_audit.inference.covariance import CLUSTER_KINDS, cluster_algebra, vcov
from mmlu_audit.inference.hypothesis import _restriction, holm
from mmlu_audit.inference.ols import OLSFit

__all__ = ["BootstrapResult", "cluster_bootstrap_correlation", "draw_weights", "wild_bootstrap_table",
           "wild_cluster_bootstrap", "WEIGHTS"]

WEIGHTS = ("rademacher", "webb")
_WEBB_POINTS = np.sqrt(np.array([1.5, 1.0, 0.5]))
_CHUNK = 2048


@dataclass(frozen=True)
class BootstrapResult:
    """Outcome of :func:`wild_cluster_bootstrap`.

    Attributes
    ----------
    stat : float
        Observed statistic: the t statistic when ``q = 1``, else the Wald statistic.
    p : float
        Bootstrap p-value: share of draws at least as extreme as ``stat``
        (``|t*| >= |t|`` or ``W* >= W``).
    draws : ndarray, shape (n_draws,)
        The bootstrap reference distribution of the statistic.
    q : int
        Number of restrictions.
    kind, weights, method : str
        Covariance inside the statistic, weight distribution, ``"WCR"``/``"WCU"``.
    """

    stat: float
    p: float
    draws: np.ndarray
    q: int
    kind: str
    weights: str
    method: str

    def quantile(self, level: float = 0.95) -> float:
        """Quantile of the reference distribution (of ``|t*|`` when ``q = 1``)."""
        ref = np.abs(self.draws) if self.q == 1 else self.draws
        return float(np.quantile(ref, level))

    def to_frame(self, label: str = "wild bootstrap") -> pd.DataFrame:
        """One-row tidy summary with the 95th percentile of the reference distribution."""
        return pd.DataFrame([{
            "test": label, "method": self.method, "kind": self.kind, "weights": self.weights,
            "q": self.q, "stat": self.stat, "p": self.p, "q95": self.quantile(0.95),
            "n_draws": self.draws.size,
        }])


def draw_weights(n_clusters: int, n_draws: int, weights: str, rng: np.random.Generator) -> np.ndarray:
    """Cluster weights, shape (n_draws, n_clusters).

    ``"rademacher"``: +-1 with probability 1/2. ``"webb"``: +-sqrt(1/2), +-1,
    +-sqrt(3/2), each with probability 1/6.
    """
    if weights == "rademacher":
        return rng.integers(0, 2, size=(n_draws, n_clusters)) * 2.0 - 1.0
    if weights == "webb":
        signs = rng.integers(0, 2, size=(n_draws, n_clusters)) * 2.0 - 1.0
        return signs * _WEBB_POINTS[rng.integers(0, 3, size=(n_draws, n_clusters))]
    raise ParameterError("weights", f"unknown weights {weights!r}; choose from {WEIGHTS}")


@seeded
def wild_cluster_bootstrap(
    fit: OLSFit,
    R,
    r=None,
    *,
    clusters,
    seed,
    kind: str = "CR1",
    impose_null: bool = True,
    weights: str = "rademacher",
    n_draws: int = 9999,
    full_enumeration: str | bool = "auto",
    algebra=None,
) -> BootstrapResult:
    """Wild cluster bootstrap test of ``R beta = r``.

    Parameters
    ----------
    fit : OLSFit
    R : array-like (q, K), a term name, or list of term names
        One row gives a t-statistic bootstrap; several give a Wald bootstrap.
    r : array-like, shape (q,), optional
        Default zeros.
    clusters : array-like, shape (n,)
        Bootstrap (and covariance) clusters.
    seed : int or numpy.random.Generator
        Required: the draws are random.
    kind : {"CR0", "CR1", "CR2"}
        Covariance used inside the statistic.
    impose_null : bool
        ``True``: WCR (restricted residuals); ``False``: WCU.
    weights : {"rademacher", "webb"}
    n_draws : int
        Draws, 1 to :data:`~mmlu_audit.inference._validate.MAX_RESAMPLES` (10**6).
    full_enumeration : "auto" or bool
        With Rademacher weights and ``2**G <= n_draws``, ``"auto"`` uses all
        ``2**G`` sign vectors instead of random draws.
    algebra : ClusterAlgebra, optional
        Precomputed pieces for ``(fit, clusters, kind)`` (saves time in loops).

    Returns
    -------
    BootstrapResult
    """
    R, r = _restriction(fit, R, r)
    if kind not in CLUSTER_KINDS:
        raise ParameterError("kind", f"the wild cluster bootstrap needs a cluster kind {CLUSTER_KINDS}, "
                             f"got {kind!r}")
    n_draws = count(n_draws, "n_draws", maximum=MAX_RESAMPLES)
    if not (full_enumeration == "auto" or isinstance(full_enumeration, bool)):
        raise ParameterError("full_enumeration", f"must be 'auto', True or False, got {full_enumeration!r}")
    if algebra is None:
        algebra = cluster_algebra(fit, clusters, kind)
    stat = _observed(fit, R, r, kind, algebra)
    a, gamma, num_load = _draw_pieces(fit, R, r, algebra, impose_null)
    v = _weights(algebra.n_clusters, n_draws, weights, seed, full_enumeration)
    draws = np.concatenate([
        _statistics(v[i:i + _CHUNK], a, gamma, num_load, algebra.factor) for i in range(0, len(v), _CHUNK)
    ])
    extreme = np.abs(draws) >= abs(stat) if R.shape[0] == 1 else draws >= stat
    return BootstrapResult(stat, float(extreme.mean()), draws, R.shape[0], kind, weights,
                           "WCR" if impose_null else "WCU")


@seeded
def wild_bootstrap_table(fit: OLSFit, terms, *, clusters, seed, kind: str = "CR1", **options) -> pd.DataFrame:
    """One-coefficient wild cluster bootstraps for several terms, with Holm-adjusted p-values.

    Parameters
    ----------
    fit : OLSFit
    terms : list of str
    clusters : array-like, shape (n,)
    seed : int or numpy.random.Generator
        One generator feeds all terms in order.
    kind : {"CR0", "CR1", "CR2"}
    **options
        Passed to :func:`wild_cluster_bootstrap` (``impose_null``, ``weights``, ``n_draws``).

    Returns
    -------
    DataFrame
        Columns ``term, estimate, stat, p, p_holm, method, kind, weights, n_draws``.
    """
    rng = rng_from(seed)
    algebra = cluster_algebra(fit, clusters, kind)
    results = [wild_cluster_bootstrap(fit, term, clusters=clusters, seed=rng, kind=kind, algebra=algebra,
                                      **options)
               for term in terms]
    table = pd.DataFrame({
        "term": list(terms), "estimate": [fit.beta[fit.names.index(t)] for t in terms],
        "stat": [r.stat for r in results], "p": [r.p for r in results],
    })
    table["p_holm"] = holm(table["p"].to_numpy())
    table["method"], table["kind"] = results[0].method, kind
    table["weights"], table["n_draws"] = results[0].weights, results[0].draws.size
    return table


def _observed(fit, R, r, kind, algebra) -> float:
    V_r = R @ vcov(fit, kind, algebra=algebra) @ R.T
    gap = R @ fit.beta - r
    if R.shape[0] == 1:
        return float(gap[0] / np.sqrt(V_r[0, 0]))
    return float(gap @ np.linalg.solve(V_r, gap))


def _draw_pieces(fit, R, r, algebra, impose_null):
    """``a`` (G, q), ``Gamma`` (G, q, G) and numerator loadings (q, G)."""
    beta0 = _restricted_beta(fit, R, r) if impose_null else fit.beta
    resid0 = fit.y - fit.X @ beta0
    raw_scores = algebra.raw_scores(resid0)
    rm = R @ fit.bread
    num_load = rm @ raw_scores.T
    a = algebra.scores(resid0) @ rm.T
    gamma = np.einsum("sk,gkl,lh->gsh", rm, algebra.xax, fit.bread @ raw_scores.T)
    return a, gamma, num_load


def _restricted_beta(fit, R, r) -> np.ndarray:
    rm = R @ fit.bread
    return fit.beta - rm.T @ np.linalg.solve(rm @ R.T, R @ fit.beta - r)


def _weights(n_clusters, n_draws, weights, seed, full_enumeration) -> np.ndarray:
    rng = rng_from(seed)  # checked even when full enumeration makes it unused
    enumerate_all = weights == "rademacher" and (
        full_enumeration is True or (full_enumeration == "auto" and 2.0**n_clusters <= n_draws)
    )
    if enumerate_all:
        return np.array(list(itertools.product((-1.0, 1.0), repeat=n_clusters)))
    return draw_weights(n_clusters, n_draws, weights, rng)


def _statistics(v, a, gamma, num_load, factor) -> np.ndarray:
    numer = v @ num_load.T
    cl_scores = v[:, :, None] * a[None] - np.einsum("gsh,bh->bgs", gamma, v)
    cov = factor * np.einsum("bgs,bgt->bst", cl_scores, cl_scores)
    if numer.shape[1] == 1:
        return numer[:, 0] / np.sqrt(cov[:, 0, 0])
    return np.einsum("bs,bs->b", numer, np.linalg.solve(cov, numer[:, :, None])[..., 0])


@seeded
def cluster_bootstrap_correlation(x, y, clusters, *, n_boot: int, seed, level: float = 0.95
                                  ) -> tuple[float, float, float]:
    """Pearson r of ``x`` and ``y`` with a percentile interval from resampling whole clusters.

    Each replicate draws as many clusters as there are, with replacement, and keeps all
    rows of every drawn cluster; r is computed from per-cluster sums of
    ``1, x, y, x², y², xy``, so a replicate costs O(clusters), not O(rows).

    Parameters
    ----------
    x, y : array-like, shape (n,)
    clusters : array-like, shape (n,)
        Cluster label of each row (e.g. the item's subject).
    n_boot : int
        Number of replicates (≥ 1).
    seed : int or numpy.random.Generator
        Required; the same seed gives the same interval.
    level : float
        Coverage of the percentile interval.

    Returns
    -------
    r, low, high : float
        r on all rows and the ``(1 ± level) / 2`` quantiles of the replicates.

    Raises
    ------
    DataError
        Lengths that differ, or an ``x`` or ``y`` that is constant (r is undefined).
    """
    x, y = as_vector(x, "x"), as_vector(y, "y")
    codes, labels = as_clusters(clusters, x.size)
    if y.size != x.size:
        raise DataError("y", f"{y.size} values for {x.size} values of x")
    for name, values in (("x", x), ("y", y)):
        if np.ptp(values) == 0:
            raise DataError(name, "is constant: a correlation needs variation in both variables")
    rng = rng_from(seed)
    n_boot, level = count(n_boot, "n_boot"), probability(level, "level")
    n_clusters = labels.size
    moments = np.stack([np.ones_like(x), x, y, x * x, y * y, x * y], axis=1)
    per_cluster = np.zeros((n_clusters, 6))
    np.add.at(per_cluster, codes, moments)
    counts = np.stack([np.bincount(rng.integers(0, n_clusters, n_clusters), minlength=n_clusters)
                       for _ in range(n_boot)])
    n, sx, sy, sxx, syy, sxy = (counts @ per_cluster).T
    draws = (n * sxy - sx * sy) / np.sqrt((n * sxx - sx ** 2) * (n * syy - sy ** 2))
    tail = round((1 - level) / 2, 12)  # 0.95 gives exactly 0.025, not 0.025000000000000022
    low, high = np.quantile(draws, [tail, 1 - tail])
    return float(np.corrcoef(x, y)[0, 1]), float(low), float(high)
