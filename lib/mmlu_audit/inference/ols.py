"""Ordinary least squares fitted through a QR decomposition.

The fit keeps the pieces every sandwich covariance needs — the bread
``(X'X)^{-1}``, residuals and leverages — so covariances, tests and
bootstraps never refit the model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from mmlu_audit.core.errors import DataError
from mmlu_audit.inference._validate import as_matrix, as_vector

__all__ = ["OLSFit", "fit_ols", "add_intercept"]

#: A column counts as collinear when its QR diagonal |R_jj| falls below this
#: fraction of the column's own norm (R's ``lm`` uses ``tol = 1e-7`` the same way).
SINGULAR_TOL = 1e-7


@dataclass(frozen=True, eq=False)
class OLSFit:
    """An OLS fit ``y = X beta + e``.

    Attributes
    ----------
    y, X : ndarray
        Outcome (n,) and design (n, k).
    names : list of str
        One name per column of ``X``.
    beta : ndarray, shape (k,)
    resid, fitted : ndarray, shape (n,)
    bread : ndarray, shape (k, k)
        ``(X'X)^{-1}``.
    """

    y: np.ndarray
    X: np.ndarray
    names: list[str]
    beta: np.ndarray
    resid: np.ndarray
    fitted: np.ndarray
    bread: np.ndarray
    _q: np.ndarray = field(repr=False)

    @property
    def n_obs(self) -> int:
        """Number of observations."""
        return self.X.shape[0]

    @property
    def n_params(self) -> int:
        """Number of coefficients."""
        return self.X.shape[1]

    @cached_property
    def leverage(self) -> np.ndarray:
        """Diagonal of the hat matrix ``X (X'X)^{-1} X'``."""
        return np.einsum("ij,ij->i", self._q, self._q)

    @property
    def rss(self) -> float:
        """Residual sum of squares."""
        return float(self.resid @ self.resid)

    @property
    def tss(self) -> float:
        """Total sum of squares around the mean of ``y``."""
        centred = self.y - self.y.mean()
        return float(centred @ centred)

    @property
    def r2(self) -> float:
        """Coefficient of determination ``1 - RSS/TSS`` (assumes an intercept)."""
        return 1.0 - self.rss / self.tss

    @property
    def sigma2(self) -> float:
        """Residual variance ``RSS / (n - k)``."""
        return self.rss / (self.n_obs - self.n_params)

    def coef(self) -> pd.Series:
        """Coefficients as a Series indexed by term name."""
        return pd.Series(self.beta, index=self.names, name="estimate")


def add_intercept(X, names=None) -> tuple[np.ndarray, list[str]]:
    """Prepend a column of ones named ``"Intercept"``.

    Parameters
    ----------
    X : array-like or DataFrame, shape (n, k)
    names : list of str, optional
        Column names; taken from a DataFrame, else ``x1..xk``.

    Returns
    -------
    X1 : ndarray, shape (n, k + 1)
    names1 : list of str
    """
    names = _column_names(X, names)
    arr = as_matrix(X)
    return np.column_stack([np.ones(arr.shape[0]), arr]), ["Intercept", *names]


def fit_ols(y, X, names=None, *, intercept: bool = False) -> OLSFit:
    """Fit OLS by QR decomposition.

    Parameters
    ----------
    y : array-like, shape (n,)
    X : array-like or DataFrame, shape (n, k)
        The design. It is used as given unless ``intercept=True``.
    names : list of str, optional
        Column names (default: DataFrame columns or ``x1..xk``).
    intercept : bool, default False
        Prepend a column of ones named ``"Intercept"``.

    Returns
    -------
    OLSFit

    Raises
    ------
    DataError
        On NaN/inf, mismatched rows, ``n <= k`` or a singular design.
    """
    names = _column_names(X, names)
    if intercept:
        X, names = add_intercept(X, names)
    X = as_matrix(X)
    y = as_vector(y)
    if y.shape[0] != X.shape[0]:
        raise DataError("y", f"has {y.shape[0]} rows but X has {X.shape[0]}")
    if X.shape[0] <= X.shape[1]:
        raise DataError("X", f"needs more rows ({X.shape[0]}) than columns ({X.shape[1]})")
    q, r = np.linalg.qr(X)
    _check_rank(np.abs(np.diag(r)), np.linalg.norm(X, axis=0), names)
    beta = np.linalg.solve(r, q.T @ y)
    r_inv = np.linalg.solve(r, np.eye(r.shape[0]))
    fitted = X @ beta
    return OLSFit(y, X, names, beta, y - fitted, fitted, r_inv @ r_inv.T, q)


def _column_names(X, names) -> list[str]:
    if names is not None:
        names = [str(n) for n in names]
        if len(names) != np.shape(as_matrix(X))[1]:
            raise DataError("names", f"{len(names)} names for {np.shape(as_matrix(X))[1]} columns")
        return names
    if isinstance(X, pd.DataFrame):
        return [str(c) for c in X.columns]
    if isinstance(X, pd.Series):
        return [str(X.name)]
    return [f"x{j + 1}" for j in range(as_matrix(X).shape[1])]


def _check_rank(r_diag: np.ndarray, col_norms: np.ndarray, names: list[str]) -> None:
    tiny = r_diag <= SINGULAR_TOL * col_norms
    if tiny.any():
        bad = [names[j] for j in np.flatnonzero(tiny)]
        raise DataError("X", f"design is singular (collinear columns: {', '.join(bad)})")
