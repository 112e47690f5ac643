"""Heteroskedasticity- and cluster-robust covariances for OLS.

Kinds
-----
``"classical"``  ``s^2 (X'X)^{-1}``.
``"HC0"``–``"HC3"``  White / MacKinnon–White (1985) estimators.
``"CR0"``  Liang–Zeger sandwich, no small-sample factor.
``"CR1"``  Stata's factor ``G/(G-1) * (N-1)/(N-K)``; equals clubSandwich's
           ``"CR1S"``, ``sandwich::vcovCL(type = "HC1")`` and statsmodels'
           ``cov_type="cluster"`` (clubSandwich's own ``"CR1"`` is ``G/(G-1)`` only).
``"CR2"``  Bell–McCaffrey (2002) bias-reduced: residuals of cluster ``g`` are
           premultiplied by the symmetric inverse square root of ``I - H_gg``
           (Moore–Penrose where singular, as clubSandwich does).

CR2 never forms an ``n_g x n_g`` matrix: ``H_gg = X_g M X_g'`` has rank at most
``K``. With ``M = L L'`` and the eigendecomposition
``L' X_g'X_g L = W diag(lam) W'``, the columns of ``U = X_g L W`` are orthogonal
eigenvectors of ``H_gg`` with squared norms ``lam``, so
``A_g = I + U diag(d / lam) U'`` with ``d = (1 - lam)^{-1/2} - 1``. Everything
the sandwich, the degrees of freedom and the bootstrap need then reduces to
``K x K`` products with the cluster Gram matrix ``X_g'X_g``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from mmlu_audit.core.errors import ParameterError
from mmlu_audit.inference._validate import as_clusters
from mmlu_audit.inference.ols import OLSFit

__all__ = [
    "CLUSTER_KINDS",
    "HC_KINDS",
    "KINDS",
    "ClusterAlgebra",
    "cluster_algebra",
    "vcov",
]

HC_KINDS = ("classical", "HC0", "HC1", "HC2", "HC3")
CLUSTER_KINDS = ("CR0", "CR1", "CR2")
KINDS = HC_KINDS + CLUSTER_KINDS

#: Eigenvalues of ``I - H_gg`` at or below this are treated as zero (clubSandwich: 1e-12).
PINV_TOL = 1e-12

#: An observation with ``1 - h_ii`` at or below this has leverage 1: its residual is zero
#: by construction, so HC2/HC3 would divide rounding noise by rounding noise.
LEVERAGE_TOL = 1e-10


@dataclass(frozen=True, eq=False)
class ClusterAlgebra:
    """Per-cluster pieces of a cluster-robust sandwich, all ``K x K`` or smaller.

    Attributes
    ----------
    kind : str
        ``"CR0"``, ``"CR1"`` or ``"CR2"``.
    codes : ndarray of int, shape (n,)
        Cluster code of each observation.
    labels : ndarray, shape (G,)
    factor : float
        Scalar small-sample factor multiplying the meat (CR1 only, else 1).
    xax : ndarray, shape (G, K, K)
        ``X_g' A_g X_g``.
    xa2x : ndarray, shape (G, K, K)
        ``X_g' A_g^2 X_g`` (needed for Satterthwaite degrees of freedom).
    loadings : ndarray, shape (G, K, K)
        Maps raw scores ``X_g' e_g`` to adjusted ones ``X_g' A_g e_g``.
    """

    kind: str
    codes: np.ndarray
    labels: np.ndarray
    factor: float
    xax: np.ndarray
    xa2x: np.ndarray
    loadings: np.ndarray
    _X: np.ndarray

    @property
    def n_clusters(self) -> int:
        """Number of clusters ``G``."""
        return self.labels.size

    def raw_scores(self, resid: np.ndarray) -> np.ndarray:
        """Unadjusted cluster scores ``X_g' e_g``, shape (G, K)."""
        out = np.zeros((self.n_clusters, self._X.shape[1]))
        np.add.at(out, self.codes, self._X * resid[:, None])
        return out

    def scores(self, resid: np.ndarray) -> np.ndarray:
        """Adjusted cluster scores ``X_g' A_g e_g`` for any residual vector.

        Parameters
        ----------
        resid : ndarray, shape (n,)

        Returns
        -------
        ndarray, shape (G, K)
        """
        return np.einsum("gkl,gl->gk", self.loadings, self.raw_scores(resid))


def cluster_algebra(fit: OLSFit, clusters, kind: str = "CR2") -> ClusterAlgebra:
    """Precompute the per-cluster pieces of a CR0/CR1/CR2 sandwich.

    Parameters
    ----------
    fit : OLSFit
    clusters : array-like, shape (n,)
        Cluster label of each observation (at least two distinct labels).
    kind : {"CR0", "CR1", "CR2"}

    Returns
    -------
    ClusterAlgebra
    """
    if kind not in CLUSTER_KINDS:
        raise ParameterError("kind", f"{kind!r} is not a cluster-robust kind {CLUSTER_KINDS}")
    codes, labels = as_clusters(clusters, fit.n_obs)
    n_clusters, (n, k) = labels.size, fit.X.shape
    factor = n_clusters / (n_clusters - 1) * (n - 1) / (n - k) if kind == "CR1" else 1.0
    gram = _cluster_grams(fit.X, codes, n_clusters)
    if kind != "CR2":
        eye = np.broadcast_to(np.eye(k), gram.shape)
        return ClusterAlgebra(kind, codes, labels, factor, gram, gram, eye, fit.X)
    half = np.linalg.cholesky(fit.bread)
    lam, vec = np.linalg.eigh(np.einsum("lk,glm,mj->gkj", half, gram, half, optimize=True))
    basis = np.einsum("gkl,glm,gmj->gkj", gram, np.broadcast_to(half, gram.shape), vec, optimize=True)
    d_over_lam, c_over_lam = _spectral_weights(lam)
    rotated = np.einsum("lk,gkj->glj", half, vec)
    loadings = np.eye(k) + np.einsum("gkj,gj,glj->gkl", basis, d_over_lam, rotated)
    xax = gram + np.einsum("gkj,gj,glj->gkl", basis, d_over_lam, basis)
    xa2x = gram + np.einsum("gkj,gj,glj->gkl", basis, c_over_lam, basis)
    return ClusterAlgebra(kind, codes, labels, factor, xax, xa2x, loadings, fit.X)


def _cluster_grams(X: np.ndarray, codes: np.ndarray, n_clusters: int) -> np.ndarray:
    order = np.argsort(codes, kind="stable")
    bounds = np.cumsum(np.bincount(codes, minlength=n_clusters))[:-1]
    return np.stack([X[idx].T @ X[idx] for idx in np.split(order, bounds)])


def _spectral_weights(lam: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``d/lam`` and ``c/lam`` for the eigenvalues ``lam`` of ``H_gg``.

    ``d = (1 - lam)^{-1/2} - 1`` and ``c = (1 - lam)^{-1} - 1`` (so ``1 + d`` is
    the eigenvalue of ``A_g``, ``1 + c`` that of ``A_g^2``); where
    ``1 - lam <= PINV_TOL`` the pseudo-inverse gives ``d = c = -1``. Directions
    with ``lam ~ 0`` do not touch ``X_g`` and use the series limits.
    """
    one_minus = 1.0 - lam
    singular = one_minus <= PINV_TOL
    tiny = np.abs(lam) < 1e-8
    safe_lam = np.where(tiny, 1.0, lam)
    safe_one_minus = np.where(singular, 1.0, one_minus)
    d_over = np.where(tiny, 0.5 + 0.375 * lam, (safe_one_minus**-0.5 - 1.0) / safe_lam)
    c_over = 1.0 / safe_one_minus
    d_over = np.where(singular, -1.0 / safe_lam, d_over)
    c_over = np.where(singular, -1.0 / safe_lam, c_over)
    return d_over, c_over


def vcov(fit: OLSFit, kind: str = "CR2", clusters=None, *,
         algebra: ClusterAlgebra | None = None) -> np.ndarray:
    """Covariance matrix of the OLS coefficients.

    Parameters
    ----------
    fit : OLSFit
    kind : str
        One of ``"classical"``, ``"HC0"``–``"HC3"``, ``"CR0"``, ``"CR1"``, ``"CR2"``.
    clusters : array-like, optional
        Cluster labels; required for ``CR*`` kinds.
    algebra : ClusterAlgebra, optional
        Reuse precomputed cluster pieces (skips the per-cluster decompositions).

    Returns
    -------
    ndarray, shape (K, K)
        All NaN, with a ``RuntimeWarning``, for HC2/HC3 when an observation has
        leverage 1 (they are undefined there).
    """
    if kind in HC_KINDS:
        return _vcov_hc(fit, kind)
    if kind not in CLUSTER_KINDS:
        raise ParameterError("kind", f"unknown covariance kind {kind!r}; choose from {KINDS}")
    if algebra is None:
        algebra = cluster_algebra(fit, clusters, kind)
    scores = algebra.scores(fit.resid)
    meat = scores.T @ scores
    return algebra.factor * fit.bread @ meat @ fit.bread


def _vcov_hc(fit: OLSFit, kind: str) -> np.ndarray:
    if kind == "classical":
        return fit.sigma2 * fit.bread
    e2 = fit.resid**2
    if kind == "HC1":
        e2 = e2 * fit.n_obs / (fit.n_obs - fit.n_params)
    elif kind in ("HC2", "HC3"):
        one_minus = 1.0 - fit.leverage
        at_one = np.flatnonzero(one_minus <= LEVERAGE_TOL)
        if at_one.size:
            warnings.warn(f"{kind} is undefined: {at_one.size} observation(s) have leverage 1 "
                          f"(rows {at_one[:5].tolist()}; a dummy or a parameter fitted by one row); "
                          "returning NaN", RuntimeWarning, stacklevel=3)
            return np.full((fit.n_params, fit.n_params), np.nan)
        e2 = e2 / one_minus ** (1 if kind == "HC2" else 2)
    meat = (fit.X * e2[:, None]).T @ fit.X
    return fit.bread @ meat @ fit.bread
