"""What the audit can detect: recovery of a simulated world's planted truth by a 2PL fit.

Used by ``bench/bench_validity.py`` (which fits full-size worlds under each difficulty
prior and writes ``bench/results/validity_*.csv``) and tested on small worlds. Three
questions, each answered against the world's known truth:

* **Calibration** — does b̂, â, θ̂ track b, a, θ (correlation) and on what scale (slope
  of the estimate on the truth; < 1 is a compressed scale)?
* **Contrasts** — the STEM − non-STEM slope differences of b̂ on the planted
  covariates, against the planted differences.
* **Reasoning tail** — do the reasoning-tuned models (θ_STEM shifted up) stand out by
  their STEM residual accuracy under the one-dimensional fit?
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from mmlu_audit.core.errors import DataError
from mmlu_audit.inference import fit_ols, interaction_design
from mmlu_audit.irt import recovery_stats

__all__ = [
    "calibration_recovery",
    "recovery_value",
    "contrast_recovery",
    "pooled_theta",
    "stem_residuals",
    "tail_detection_auc",
]


def pooled_theta(truth: dict) -> np.ndarray:
    """The one-dimensional ability a 2PL fit estimates: θ_STEM and θ_non-STEM weighted by item share.

    Parameters
    ----------
    truth : dict
        A world's truth (``theta`` of shape (J, 2) as [STEM, non-STEM], ``stem`` (I,)).
    """
    theta = np.asarray(truth["theta"], float)
    if theta.ndim != 2 or theta.shape[1] != 2:
        raise DataError("truth['theta']", f"expected shape (J, 2), got {theta.shape}")
    share = float(np.mean(truth["stem"]))
    return share * theta[:, 0] + (1 - share) * theta[:, 1]


def calibration_recovery(fit, truth: dict) -> pd.DataFrame:
    """r, slope and RMSE of b̂, â and θ̂ against the truth.

    Parameters
    ----------
    fit : IRTFit
        A one-dimensional 2PL fit of the world's responses.
    truth : dict
        The world's truth.

    Returns
    -------
    DataFrame
        Index ``b``, ``a``, ``theta``; columns ``r``, ``slope``, ``rmse``.
    """
    pairs = {"b": (fit.b, truth["b"]), "a": (fit.a, truth["a"]), "theta": (fit.theta, pooled_theta(truth))}
    rows = {name: recovery_stats(est, true) for name, (est, true) in pairs.items()}
    return pd.DataFrame(rows).T[["r", "slope", "rmse"]].rename_axis("parameter")


def contrast_recovery(b_hat, truth: dict, planted: pd.DataFrame) -> pd.DataFrame:
    """Estimated against planted STEM − non-STEM slopes of difficulty on the covariates.

    OLS of ``b_hat`` on ``[1, X, S, S·X]`` with the world's standardised covariates X;
    the S·X coefficients estimate the planted differences.

    Parameters
    ----------
    b_hat : array, shape (I,)
    truth : dict
        The world's truth (``covariates`` (I, K), ``stem`` (I,)).
    planted : DataFrame
        :meth:`WorldSpec.planted_slopes` (columns ``STEM``, ``non-STEM``; K rows in the
        order of the covariates).

    Returns
    -------
    DataFrame
        One row per covariate: ``planted`` and ``estimated`` differences, and
        ``estimated_on_truth``, the same regression on the true b (what a perfect
        calibration would give, so noise in the world itself is not blamed on the fit).
    """
    X = np.asarray(truth["covariates"], float)
    if X.shape != (len(b_hat), len(planted)):
        raise DataError("truth['covariates']", f"expected shape {(len(b_hat), len(planted))}, got {X.shape}")
    Z, names = interaction_design(X, truth["stem"], list(planted.index))
    k = len(planted)

    def differences(y):
        return fit_ols(np.asarray(y, float), Z, names).beta[k + 2:]

    return pd.DataFrame({"planted": (planted["STEM"] - planted["non-STEM"]).to_numpy(),
                         "estimated": differences(b_hat),
                         "estimated_on_truth": differences(truth["b"])},
                        index=planted.index.rename("covariate"))


def stem_residuals(responses, fit, stem) -> np.ndarray:
    """Each model's mean (observed − 2PL-expected) correctness over the STEM items.

    Parameters
    ----------
    responses : ndarray of int8, shape (J, I)
        1 correct, 0 wrong, −1 missing (missing cells are ignored).
    fit : IRTFit
    stem : array of bool, shape (I,)
    """
    y = np.asarray(responses)[:, np.asarray(stem, bool)]
    a, b = fit.a[np.asarray(stem, bool)], fit.b[np.asarray(stem, bool)]
    expected = 1.0 / (1.0 + np.exp(-a[None, :] * (fit.theta[:, None] - b[None, :])))
    observed = y >= 0
    gap = np.where(observed, y - expected, 0.0)
    return gap.sum(axis=1) / np.maximum(observed.sum(axis=1), 1)


def tail_detection_auc(scores, tail) -> float:
    """AUC of ``scores`` for telling the reasoning tail from the other models.

    The Mann–Whitney U of tail versus non-tail scores over the number of pairs: 0.5
    is chance, 1 a perfect separation.
    """
    tail = np.asarray(tail, bool)
    if tail.all() or not tail.any():
        raise DataError("tail", "needs both tail and non-tail models")
    u = stats.mannwhitneyu(np.asarray(scores)[tail], np.asarray(scores)[~tail]).statistic
    return float(u / (tail.sum() * (~tail).sum()))


def recovery_value(recovery: pd.DataFrame, world_prefix: str, prior: str, parameter: str,
                   column: str) -> float:
    """One cell of a recovery table: ``column`` of ``parameter`` in the world and prior named.

    Parameters
    ----------
    recovery : DataFrame
        Rows with ``world``, ``prior``, ``parameter`` and the statistic columns (``r``,
        ``slope``…), as ``bench/bench_validity.py`` writes them.
    world_prefix : str
        The start of the world's label (``"2PL, normal"``); it must pick exactly one world.

    Raises
    ------
    DataError
        When no row, or more than one world, matches.
    """
    rows = recovery[recovery["world"].str.startswith(world_prefix) & (recovery["prior"] == prior)
                    & (recovery["parameter"] == parameter)]
    if len(rows) != 1:
        raise DataError("recovery table", f"{len(rows)} rows match world {world_prefix!r}, prior "
                        f"{prior!r}, parameter {parameter!r}; expected one")
    return float(rows[column].iloc[0])
