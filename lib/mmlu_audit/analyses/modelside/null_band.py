"""Each model's β under the 3PL null: the band the guessing floor alone allows (paper §5.1, Figure 1).

:mod:`.null3pl` summarises the null by the correlation r(β, θ) of each replicate. A figure that
draws the observed β against θ̂ needs the null one level down: for each model, where its β falls
across the replicate matrices simulated from the fitted 3PL (c = 0.25, no ability × depth term).
:func:`beta_band` reads the replicates of :func:`~mmlu_audit.analyses.modelside.null3pl.two_stage_null`,
the very β whose correlations with θ its headline summarises, so the band and the null's r describe
one null drawn once.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mmlu_audit.core.errors import ParameterError
from mmlu_audit.core.seeds import seeded

__all__ = ["beta_band", "null_beta_band"]


@seeded
def null_beta_band(matrix, frame: pd.DataFrame, theta_hat, *, seed: int, fast: bool = False,
                   replicates: int = 100, level: float = 0.95) -> pd.DataFrame:
    """Each model's observed β beside the band its β falls in under the 3PL null.

    :func:`beta_band` of :func:`~mmlu_audit.analyses.modelside.null3pl.two_stage_null` with the
    same arguments; a chapter that also reports the headline calls those two itself, so the null
    is drawn once.

    Parameters
    ----------
    matrix : ResponseMatrix
        Responses, columns in ``frame`` order.
    frame : DataFrame
        The items, with ``stem`` and ``wscg_depth``.
    theta_hat : array-like, shape (J,)
        The 2PL abilities of the calibration, one per model (the x of the figure).
    seed : int
        Seed of the 3PL fit and of the null replicates.
    fast : bool
        The 3PL fit's smoke-run step cap.
    replicates : int
        Matrices simulated from the fitted 3PL.
    level : float
        Coverage of each model's equal-tailed band.

    Returns
    -------
    DataFrame
        One row per model (index: its ``model_id`` where the matrix has one), ``theta_hat``,
        ``beta`` (observed), ``null_mean``, ``null_low`` and ``null_high`` (the band's ends over the
        replicates with a finite β), ``n_replicates`` (those replicates), and ``theta_3pl`` (the
        ability that generated the model's replicates).

    Raises
    ------
    DataError
        If ``theta_hat`` does not have one value per model.
    ParameterError
        If ``level`` is not inside (0, 1).
    """
    from mmlu_audit.analyses.modelside.null3pl import two_stage_null

    if not 0 < level < 1:  # before the fit and the replicates, not after
        raise ParameterError("level", f"must lie inside (0, 1), got {level}")
    return beta_band(two_stage_null(matrix, frame, theta_hat, seed=seed, fast=fast, replicates=replicates),
                     level=level)


def beta_band(null, level: float = 0.95) -> pd.DataFrame:
    """Each model's observed β beside its band over the replicates of one 3PL null.

    Parameters
    ----------
    null : TwoStageNull
        :func:`~mmlu_audit.analyses.modelside.null3pl.two_stage_null` of the matrix: the band is
        read from the very replicates whose r its headline summarises.
    level : float
        Coverage of each model's equal-tailed band.

    Returns
    -------
    DataFrame
        As :func:`null_beta_band`.

    Raises
    ------
    ParameterError
        If ``level`` is not inside (0, 1).
    """
    if not 0 < level < 1:
        raise ParameterError("level", f"must lie inside (0, 1), got {level}")
    draws = null.draws
    tail = (1 - level) / 2
    finite = np.isfinite(draws)
    counts = finite.sum(axis=0)
    masked = np.where(finite, draws, np.nan)
    enough = counts > 0
    low, high, mean = (np.full(draws.shape[1], np.nan) for _ in range(3))
    low[enough], high[enough] = np.nanquantile(masked[:, enough], [tail, 1 - tail], axis=0)
    mean[enough] = np.nanmean(masked[:, enough], axis=0)
    models = null.models
    index = (pd.Index(models["model_id"], name="model_id") if models is not None and "model_id" in models
             else pd.RangeIndex(draws.shape[1], name="model"))
    return pd.DataFrame({"theta_hat": null.theta_hat, "beta": null.beta, "null_mean": mean, "null_low": low,
                         "null_high": high, "n_replicates": counts, "theta_3pl": null.theta_3pl}, index=index)
