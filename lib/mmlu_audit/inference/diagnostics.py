"""Regression diagnostics: VIF, residual skew, Breusch–Pagan, nested LR, R² of predictions, CV R²."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.core.seeds import rng_from, seeded
from mmlu_audit.core.validate import count
from mmlu_audit.inference._validate import as_clusters, as_matrix, as_vector, check_rows
from mmlu_audit.inference.ols import OLSFit, fit_ols

__all__ = ["vif", "residual_skew", "breusch_pagan", "r2_score", "r2_cluster_interval", "cv_r2", "fold_ids"]

#: Residuals below this fraction of the response's root mean square are float rounding, not error
#: (a least-squares solve leaves ~1e-15 relative on an exact fit; any real noise is far above it).
_PERFECT_FIT = 1e-10


def vif(X, names=None) -> pd.DataFrame:
    """Variance inflation factors ``1 / (1 - R_j^2)`` of predictors (intercept implied).

    Parameters
    ----------
    X : array-like or DataFrame, shape (n, k)
        Predictors without an intercept column.
    names : list of str, optional

    Returns
    -------
    DataFrame
        Columns ``term, vif``.
    """
    if names is None:
        names = (list(X.columns) if isinstance(X, pd.DataFrame)
                 else [f"x{j + 1}" for j in range(np.shape(X)[1])])
    X = as_matrix(X)
    if len(names) != X.shape[1]:
        raise DataError("names", f"{len(names)} names for {X.shape[1]} predictors")
    constant = [str(n) for n, col in zip(names, X.T, strict=True) if np.ptp(col) == 0]
    if constant:
        raise DataError("X", f"constant predictor(s) {', '.join(constant)}: a VIF needs variation "
                        "(the intercept is implied; drop them)")
    corr = np.corrcoef(X, rowvar=False).reshape(X.shape[1], X.shape[1])
    if np.linalg.matrix_rank(corr) < X.shape[1]:
        raise DataError("X", "predictors are collinear")
    return pd.DataFrame({"term": list(map(str, names)), "vif": np.diag(np.linalg.inv(corr))})


def residual_skew(fit: OLSFit) -> float:
    """Sample skewness (Fisher–Pearson, biased) of the OLS residuals."""
    return float(stats.skew(fit.resid))


def breusch_pagan(fit: OLSFit, *, studentized: bool = True) -> pd.DataFrame:
    """Breusch–Pagan test of heteroskedasticity in the model's regressors.

    Parameters
    ----------
    fit : OLSFit
        Must contain an intercept column.
    studentized : bool
        ``True``: Koenker's ``n R^2`` of ``e^2`` on ``X`` (robust to
        non-normal errors); ``False``: the original ``ESS / 2`` of
        ``e^2 / mean(e^2)`` on ``X``.

    Returns
    -------
    DataFrame
        One row: ``test, stat, df, p``.

    Raises
    ------
    DataError
        When the fit is perfect (residuals within float rounding of zero, relative to the
        response): the test would be one of rounding noise.
    """
    if np.sqrt(np.mean(fit.resid**2)) <= _PERFECT_FIT * max(np.sqrt(np.mean(fit.y**2)), np.finfo(float).tiny):
        raise DataError("fit", "the model fits the data exactly (residuals are rounding noise); "
                        "there is no variance to test for heteroskedasticity")
    e2 = fit.resid**2
    aux = fit_ols(e2 if studentized else e2 / e2.mean(), fit.X, fit.names)
    stat = fit.n_obs * aux.r2 if studentized else (aux.tss - aux.rss) / 2.0
    df = fit.n_params - 1
    return pd.DataFrame([{"test": "Breusch-Pagan", "stat": stat, "df": df, "p": stats.chi2.sf(stat, df)}])


def fold_ids(n_obs: int, n_folds: int, *, seed, groups=None) -> np.ndarray:
    """Random fold labels ``0..n_folds-1`` for rows, or for whole groups.

    Parameters
    ----------
    n_obs : int
    n_folds : int
    seed : int or numpy.random.Generator
    groups : array-like, shape (n_obs,), optional
        When given, every group lands in a single fold (subject-grouped folds).
    """
    rng = rng_from(seed)
    n_folds = count(n_folds, "n_folds", minimum=2)
    if groups is None:
        if not 2 <= n_folds <= n_obs:
            raise ParameterError("n_folds", f"must be between 2 and {n_obs}")
        return _balanced_labels(n_obs, n_folds, rng)
    codes, labels = as_clusters(groups, n_obs, "groups")
    if not 2 <= n_folds <= labels.size:
        raise ParameterError("n_folds", f"must be between 2 and the number of groups ({labels.size})")
    return _balanced_labels(labels.size, n_folds, rng)[codes]


def _balanced_labels(n: int, n_folds: int, rng: np.random.Generator) -> np.ndarray:
    labels = np.empty(n, dtype=np.intp)
    for fold, idx in enumerate(np.array_split(rng.permutation(n), n_folds)):
        labels[idx] = fold
    return labels


def r2_score(y, predicted) -> float:
    """R² of predictions: ``1 - sum (y - predicted)^2 / sum (y - mean(y))^2``.

    The one spelling of R² for predictions made in or out of sample (cross-validated
    R² is this of the out-of-fold predictions; it is negative when they do worse than
    the mean).

    Parameters
    ----------
    y, predicted : array-like, shape (n,)
    """
    y, predicted = as_vector(y), as_vector(predicted, "predicted")
    check_rows(y.size, predicted=predicted)
    centred = y - y.mean()
    return float(1.0 - np.sum((y - predicted) ** 2) / (centred @ centred))


@seeded
def r2_cluster_interval(y, predicted, clusters, *, seed, n_boot: int = 999, level: float = 0.95
                        ) -> tuple[float, float]:
    """Percentile interval of :func:`r2_score` over clusters resampled with replacement.

    The predictions are held fixed (out-of-fold predictions of one cross-validation, say), so the
    interval shows how much the R² depends on which clusters — MMLU's subjects — the items came
    from, not how much refitting on other clusters would move the predictions. Each replicate
    draws as many clusters as there are, with replacement, and scores the R² of their items
    around the replicate's own mean.

    Parameters
    ----------
    y, predicted : array-like, shape (n,)
    clusters : array-like, shape (n,)
        Cluster labels, the resampling unit.
    seed : int or numpy.random.Generator
    n_boot : int
        Replicates.
    level : float
        Coverage of the interval.

    Returns
    -------
    (float, float)
        The interval's bounds.
    """
    y, predicted = as_vector(y), as_vector(predicted, "predicted")
    check_rows(y.size, predicted=predicted)
    n_boot = count(n_boot, "n_boot")
    if not 0 < level < 1:
        raise ParameterError("level", f"must lie strictly between 0 and 1, got {level}")
    codes, _ = as_clusters(clusters, y.size)
    n_clusters = int(codes.max()) + 1
    # per-cluster sums, so a replicate is a weighted sum over clusters (weights: multiplicities)
    sums = np.stack([np.bincount(codes, weights=w, minlength=n_clusters)
                     for w in (np.ones(y.size), y, y * y, (y - predicted) ** 2)])
    weights = rng_from(seed).multinomial(n_clusters, np.full(n_clusters, 1 / n_clusters), size=n_boot)
    n, total, squares, sse = (weights @ sums.T).T
    sst = squares - total ** 2 / n
    replicates = 1.0 - sse / np.where(sst > 0, sst, np.nan)
    tail = (1.0 - level) / 2.0
    low, high = np.nanquantile(replicates, [tail, 1.0 - tail])
    return float(low), float(high)


@seeded
def cv_r2(y, X, *, n_folds: int = 10, seed=None, groups=None, folds=None, intercept: bool = True) -> float:
    """K-fold cross-validated R² of OLS.

    :func:`r2_score` of each row's prediction from the model fitted without its fold.
    Each training fit solves ``(G - G_f) beta = (c - c_f)`` with ``G = Z'Z``, ``c = Z'y``
    summed once over the folds, so repeated calls (the perturbation study refits it for
    every scheme) cost one pass over the rows.

    Parameters
    ----------
    y : array-like, shape (n,)
    X : array-like, shape (n, k)
    n_folds : int
    seed : int or numpy.random.Generator
        Required unless ``folds`` is given.
    groups : array-like, optional
        Subject labels for grouped folds (no subject is split across folds).
    folds : array-like of int, optional
        Explicit fold labels (overrides ``n_folds``/``seed``/``groups``).
    intercept : bool
        Prepend a column of ones.

    Returns
    -------
    float
    """
    y, X = as_vector(y), as_matrix(X)
    check_rows(y.size, X=X)
    if intercept:
        X = np.column_stack([np.ones(y.size), X])
    if folds is None:
        if seed is None:
            raise ParameterError("seed", "cv_r2 needs an explicit seed (or explicit folds)")
        folds = fold_ids(y.size, n_folds, seed=seed, groups=groups)
    folds = np.asarray(folds)
    check_rows(y.size, folds=folds)
    labels = np.unique(folds)
    grams = np.stack([X[folds == f].T @ X[folds == f] for f in labels])
    crosses = np.stack([X[folds == f].T @ y[folds == f] for f in labels])
    predicted = np.empty_like(y, dtype=float)
    for f, gram, cross in zip(labels, grams, crosses, strict=True):
        try:
            beta = np.linalg.solve(grams.sum(axis=0) - gram, crosses.sum(axis=0) - cross)
        except np.linalg.LinAlgError as exc:
            raise DataError("X", f"the design without fold {f} is singular ({exc})") from exc
        predicted[folds == f] = X[folds == f] @ beta
    return r2_score(y, predicted)
