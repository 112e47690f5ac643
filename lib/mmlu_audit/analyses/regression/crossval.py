"""K-fold cross-validated R² of the Table 2 designs, globally and within each partition."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mmlu_audit.core.seeds import seeded
from mmlu_audit.core.errors import DataError
from mmlu_audit.inference import fold_ids, r2_score
from mmlu_audit.analyses.regression.designs import Design

__all__ = ["PARTS", "RIDGE_ALPHAS", "cv_predict", "cv_table", "table2_ratios"]

PARTS = ("global", "STEM", "non-STEM")
#: Ridge penalties searched by efficient leave-one-out inside each training fold.
RIDGE_ALPHAS = tuple(np.logspace(-2, 4, 13))


def _fit_predict(y_train, X_train, X_test, learner: str) -> np.ndarray:
    if learner == "ols":
        varying = np.ptp(X_train, axis=0) > 0  # a rare option flag can be constant within a fold
        design = np.column_stack([np.ones(len(y_train)), X_train[:, varying]])
        beta = np.linalg.lstsq(design, y_train, rcond=None)[0]
        return beta[0] + X_test[:, varying] @ beta[1:]
    if learner == "ridge":
        return _ridge_loo_fit_predict(y_train, X_train, X_test)
    counts = X_train.sum(axis=0)
    means = np.where(counts > 0, (X_train.T @ y_train) / np.maximum(counts, 1), y_train.mean())
    known = X_test @ (counts > 0)
    return np.where(known > 0, X_test @ means, y_train.mean())


def _ridge_loo_fit_predict(y_train, X_train, X_test, alphas=RIDGE_ALPHAS) -> np.ndarray:
    """Ridge with unpenalised intercept; penalty chosen by exact leave-one-out error.

    Uses the eigendecomposition of the centred Gram matrix ``X'X = V diag(lam) V'``:
    with ``P = X V``, the ridge hat matrix has diagonal
    ``1/n + sum_j P_ij^2 / (lam_j + alpha)``, so every penalty costs O(n k).
    """
    x_mean, y_mean = X_train.mean(axis=0), y_train.mean()
    Xc, yc = X_train - x_mean, y_train - y_mean
    lam, V = np.linalg.eigh(Xc.T @ Xc)
    lam = np.clip(lam, 0.0, None)
    P = Xc @ V
    Py = P.T @ yc
    best = (np.inf, None)
    for alpha in alphas:
        shrink = 1.0 / (lam + alpha)
        fitted = P @ (shrink * Py)
        leverage = 1.0 / len(yc) + (P**2) @ shrink
        loo = np.sum(((yc - fitted) / (1.0 - leverage)) ** 2)
        if loo < best[0]:
            best = (loo, V @ (shrink * Py))
    return y_mean + (X_test - x_mean) @ best[1]


def cv_predict(y, design: Design, folds) -> np.ndarray:
    """Out-of-fold predictions of ``y`` from ``design`` for the given fold labels."""
    y = np.asarray(y, float)
    folds = np.asarray(folds)
    if len(y) != len(design.X) or len(folds) != len(y):
        raise DataError("folds", "y, design rows and folds must have the same length")
    predicted = np.empty_like(y)
    for fold in np.unique(folds):
        test = folds == fold
        predicted[test] = _fit_predict(y[~test], design.X[~test], design.X[test], design.learner)
    return predicted


@seeded
def cv_table(y, stem, subjects, designs: list[Design], *, n_folds: int, seed) -> pd.DataFrame:
    """Cross-validated R² of each design, globally and within each partition.

    Within a partition the model is fitted and scored on that partition's items
    only. Item folds are drawn at random; subject folds keep each subject whole,
    so a model is always scored on subjects it never saw.

    Parameters
    ----------
    y : array-like, shape (n,)
    stem : array-like of bool, shape (n,)
    subjects : array-like, shape (n,)
    designs : list of Design
    n_folds : int
    seed : int
        Seeds the fold draws (the same folds for every design).

    Returns
    -------
    DataFrame
        Index: design names; columns: MultiIndex ``(folds, part)`` with folds in
        ``("item", "subject")`` and part in :data:`PARTS`.
    """
    y, stem, subjects = np.asarray(y, float), np.asarray(stem, bool), np.asarray(subjects)
    masks = {"global": np.ones(y.size, bool), "STEM": stem, "non-STEM": ~stem}
    columns = {}
    for scheme in ("item", "subject"):
        for part, mask in masks.items():
            groups = subjects[mask] if scheme == "subject" else None
            folds = fold_ids(int(mask.sum()), n_folds, seed=seed, groups=groups)
            columns[(scheme, part)] = [r2_score(y[mask], cv_predict(y[mask], d.rows(mask), folds))
                                       for d in designs]
    table = pd.DataFrame(columns, index=pd.Index([d.name for d in designs], name="predictors"))
    table.columns = pd.MultiIndex.from_tuples(table.columns, names=["folds", "part"])
    return table


def table2_ratios(table: pd.DataFrame, scheme: str = "item",
                  baseline: str = "length + readability") -> dict[str, float]:
    """The §4.1 ratios, keyed as in :data:`mmlu_audit.core.paper.PAPER`.

    Framework vs the length baseline (global, STEM; the paper's "that baseline"
    is length plus readability, ``baseline="length"`` gives length alone), the
    nine indicators' share of the encoder
    ceiling (STEM, non-STEM) and the STEM share with the option set. A ratio is
    NaN when its denominator is not a positive R² (or the encoder row is absent):
    a share of a ceiling that predicts nothing has no meaning.
    """
    t = table[scheme]
    nine, length = t.loc["nine indicators"], t.loc[baseline]
    ceiling = t.loc["encoder ceiling"] if "encoder ceiling" in t.index else pd.Series(np.nan, index=t.columns)
    return {
        "ratio_framework_vs_length_global": _ratio(nine["global"], length["global"]),
        "ratio_framework_vs_length_stem": _ratio(nine["STEM"], length["STEM"]),
        "share_of_ceiling_stem": _ratio(nine["STEM"], ceiling["STEM"]),
        "share_of_ceiling_nonstem": _ratio(nine["non-STEM"], ceiling["non-STEM"]),
        "share_of_ceiling_stem_with_options": _ratio(t.loc["nine + option set", "STEM"], ceiling["STEM"]),
    }


def _ratio(numerator: float, denominator: float) -> float:
    """``numerator / denominator``, NaN unless the denominator is a positive R²."""
    return float(numerator / denominator) if denominator > 0 else float("nan")
