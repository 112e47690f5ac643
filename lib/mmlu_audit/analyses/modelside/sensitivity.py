"""The Reasoning Sensitivity Coefficient β_j and its correlation with ability (paper §5.1).

For each model j, β_j is the slope of a logistic regression of the model's binary
accuracy on standardised WSCG Depth over the STEM items it answered,
logit P(y_ji = 1) = α_j + β_j W_i. Missing cells (-1) are skipped.

All models are fitted at once: with two parameters per model the Newton step is a
2 × 2 solve in closed form, so one iteration is a handful of (J, I) array
operations. Starting from α_j = logit(accuracy), β_j = 0 the log-likelihood is
concave and Newton converges quadratically; a model whose answers are all right
or all wrong (or perfectly separated by W) has no finite maximum and gets NaN.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mmlu_audit.data.responses import validate_response_values
from mmlu_audit.core.errors import DataError
from mmlu_audit.core.scaling import standardise

__all__ = ["EXCLUSIONS", "reasoning_sensitivity", "beta_theta_correlations", "column_submatrix"]

#: The three model samples of the paper: all models, without the bottom quartile of
#: θ̂, without the bottom half.
EXCLUSIONS = {"all": 0.0, "excl_bottom_quartile": 0.25, "excl_bottom_half": 0.5}

_MAX_ITER = 50
_TOL = 1e-10
_MAX_ABS_LOGIT = 30.0


def _covariate_z(values) -> np.ndarray:
    """z-scores (population SD) of a finite, non-constant vector."""
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 1 or not np.isfinite(x).all():
        raise DataError("covariate", "needs a one-dimensional vector of finite values")
    if x.std() == 0:
        raise DataError("covariate", "is constant; it cannot be standardised")
    return standardise(x)


def _check_inputs(responses: np.ndarray, covariate: np.ndarray) -> None:
    validate_response_values(responses, "responses")
    if responses.ndim != 2 or responses.shape[1] != covariate.shape[0]:
        raise DataError("responses", f"shape {responses.shape} does not match "
                        f"{covariate.shape[0]} covariate values")


def _start(y: np.ndarray, seen: np.ndarray) -> np.ndarray:
    rate = (y.sum(1) + 0.5) / (seen.sum(1) + 1.0)
    return np.stack([np.log(rate / (1 - rate)), np.zeros(len(rate))], axis=1)


def _newton_step(params, x, y, seen):
    """One batched Newton step; returns (new params, max |step| per model)."""
    eta = params[:, :1] + params[:, 1:] * x[None, :]
    p = 1.0 / (1.0 + np.exp(-eta))
    resid, w = (y - p) * seen, p * (1 - p) * seen
    g = np.stack([resid.sum(1), resid @ x], axis=1)
    h00, h01, h11 = w.sum(1), w @ x, w @ (x * x)
    det = h00 * h11 - h01**2
    with np.errstate(divide="ignore", invalid="ignore"):
        step = np.stack([(h11 * g[:, 0] - h01 * g[:, 1]) / det,
                         (h00 * g[:, 1] - h01 * g[:, 0]) / det], axis=1)
    return params + step, np.abs(step).max(axis=1)


def reasoning_sensitivity(responses, covariate, *, standardise_covariate: bool = True) -> pd.DataFrame:
    """Per-model logistic regression of accuracy on a covariate, all models at once.

    Parameters
    ----------
    responses : ndarray of int8, shape (J, I)
        1 correct, 0 wrong, -1 missing (skipped).
    covariate : array of float, shape (I,)
        The item covariate (WSCG Depth in the paper); z-scored over the I items
        unless ``standardise_covariate`` is False.
    standardise_covariate : bool
        Standardise ``covariate`` first, so β is in log-odds per SD.

    Returns
    -------
    DataFrame
        One row per model: ``alpha``, ``beta`` (NaN where no finite maximum exists),
        ``n_items`` answered, ``accuracy`` and ``converged``.
    """
    responses = np.asarray(responses)
    x = _covariate_z(covariate) if standardise_covariate else np.asarray(covariate, dtype=np.float64)
    _check_inputs(responses, x)
    seen = (responses >= 0).astype(np.float64)
    y = (responses == 1).astype(np.float64)
    params = _start(y, seen)
    converged = np.zeros(len(y), dtype=bool)
    for _ in range(_MAX_ITER):
        active = ~converged
        if not active.any():
            break
        new, size = _newton_step(params[active], x, y[active], seen[active])
        params[active] = new
        converged[np.flatnonzero(active)[size < _TOL]] = True
    accuracy = y.sum(1) / np.maximum(seen.sum(1), 1)
    degenerate = (~converged | (y.sum(1) == 0) | (y.sum(1) == seen.sum(1))
                  | ~np.isfinite(params).all(1) | (np.abs(params) > _MAX_ABS_LOGIT).any(1))
    params[degenerate] = np.nan
    return pd.DataFrame({"alpha": params[:, 0], "beta": params[:, 1], "n_items": seen.sum(1).astype(int),
                         "accuracy": accuracy, "converged": ~degenerate})


def beta_theta_correlations(beta, theta) -> dict[str, float]:
    """Pearson r of β with θ̂ over all models and without the weakest models.

    Parameters
    ----------
    beta, theta : array of float, shape (J,)
        Models with NaN β are dropped first; the quantile cuts are taken on the θ̂
        of the remaining models (strictly above the 25th / 50th percentile).

    Returns
    -------
    dict
        Keys of :data:`EXCLUSIONS` → r.
    """
    beta, theta = np.asarray(beta, dtype=float), np.asarray(theta, dtype=float)
    if beta.shape != theta.shape or beta.ndim != 1:
        raise DataError("beta", f"shape {beta.shape} does not match θ's {theta.shape}")
    keep = np.isfinite(beta) & np.isfinite(theta)
    beta, theta = beta[keep], theta[keep]
    out = {}
    for name, share in EXCLUSIONS.items():
        rows = theta > np.quantile(theta, share) if share else np.ones(len(theta), bool)
        out[name] = float(np.corrcoef(beta[rows], theta[rows])[0, 1]) if rows.sum() > 2 else float("nan")
    return out


def column_submatrix(matrix, columns):
    """The :class:`ResponseMatrix` restricted to the items where ``columns`` is True (e.g. STEM)."""
    columns = np.asarray(columns, bool)
    if columns.shape != (matrix.shape[1],) or not columns.any():
        raise DataError(matrix.source, f"column mask of shape {columns.shape} selects no items of "
                        f"a {matrix.shape[1]}-item matrix")
    return matrix.take(columns=columns)
