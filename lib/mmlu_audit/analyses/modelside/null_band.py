"""Each model's β under the 3PL null: the band the guessing floor alone allows (paper §5.1, Figure 1).

:mod:`.null3pl` summarises the null by the correlation r(β, θ) of each replicate. A figure that
draws the observed β against θ̂ needs the null one level down: for each model, where its β falls
across the replicate matrices simulated from the fitted 3PL (c = 0.25, no ability × depth term).
The replicates here are the very ones :func:`~mmlu_audit.analyses.modelside.null3pl.null_correlations`
summarises (same seed children, same simulation), so the band and the null's r describe one null.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mmlu_audit.analyses.modelside.sensitivity import column_submatrix, reasoning_sensitivity
from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.core.seeds import seeded

__all__ = ["null_betas", "null_beta_band"]


@seeded
def null_betas(theta, a, b, covariate, observed, *, replicates: int, seed: int,
               guessing: float = 0.25) -> np.ndarray:
    """β of every model in each of ``replicates`` matrices simulated from a fitted 3PL.

    Parameters
    ----------
    theta, a, b : arrays
        The fitted 3PL's abilities (J,) and item parameters (I,).
    covariate : array, shape (I,)
        WSCG Depth of the items (standardised inside the β procedure).
    observed : array of bool, shape (J, I)
        Cells of the real matrix that were observed; the rest stay missing.
    replicates : int
        R, the number of simulated matrices.
    seed : int
        Replicate r uses the r-th child of ``SeedSequence(seed)``, as in
        :func:`~mmlu_audit.analyses.modelside.null3pl.null_correlations`.
    guessing : float
        The 3PL's fixed c.

    Returns
    -------
    ndarray, shape (R, J)
        NaN where a model's β has no finite maximum in that replicate.

    Raises
    ------
    DataError
        If ``replicates`` is below one.
    """
    from mmlu_audit.analyses.modelside.null3pl import simulate_3pl

    if replicates < 1:
        raise DataError("replicates", f"need at least one replicate, got {replicates}")
    children = np.random.SeedSequence(seed).spawn(replicates)
    return np.stack([
        reasoning_sensitivity(simulate_3pl(theta, a, b, guessing, observed, np.random.default_rng(child)),
                              covariate)["beta"].to_numpy(float)
        for child in children])


@seeded
def null_beta_band(matrix, frame: pd.DataFrame, theta_hat, *, seed: int, fast: bool = False,
                   replicates: int = 100, level: float = 0.95) -> pd.DataFrame:
    """Each model's observed β beside the band its β falls in under the 3PL null.

    The STEM items, the 3PL fit and the replicates are those of
    :func:`~mmlu_audit.analyses.modelside.null3pl.two_stage_headline` with the same arguments
    (the fit is read from its cache), so the band belongs to the null whose mean r that function
    reports.

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
    from mmlu_audit.analyses.modelside import null3pl
    from mmlu_audit.irt import fit_cached

    if not 0 < level < 1:
        raise ParameterError("level", f"must lie inside (0, 1), got {level}")
    theta_hat = np.asarray(theta_hat, dtype=float)
    if theta_hat.shape != (matrix.shape[0],):
        raise DataError("theta_hat", f"has shape {theta_hat.shape}, the matrix {matrix.shape[0]} models")
    stem = frame["stem"].to_numpy(bool) & matrix.observed.any(axis=0)
    depth = frame.loc[stem, "wscg_depth"].to_numpy(float)
    sub = column_submatrix(matrix, stem)
    observed_beta = reasoning_sensitivity(sub.responses, depth)["beta"].to_numpy(float)
    fit_3pl = fit_cached(sub, null3pl.null_spec(fast, seed), progress=False)
    draws = null_betas(fit_3pl.theta, fit_3pl.a, fit_3pl.b, depth, sub.responses >= 0,
                       replicates=replicates, seed=seed, guessing=fit_3pl.spec.guessing)
    tail = (1 - level) / 2
    finite = np.isfinite(draws)
    counts = finite.sum(axis=0)
    masked = np.where(finite, draws, np.nan)
    enough = counts > 0
    low, high, mean = (np.full(draws.shape[1], np.nan) for _ in range(3))
    low[enough], high[enough] = np.nanquantile(masked[:, enough], [tail, 1 - tail], axis=0)
    mean[enough] = np.nanmean(masked[:, enough], axis=0)
    models = matrix.models
    index = (pd.Index(models["model_id"], name="model_id") if models is not None and "model_id" in models
             else pd.RangeIndex(matrix.shape[0], name="model"))
    return pd.DataFrame({"theta_hat": theta_hat, "beta": observed_beta, "null_mean": mean, "null_low": low,
                         "null_high": high, "n_replicates": counts,
                         "theta_3pl": np.asarray(fit_3pl.theta, float)}, index=index)
