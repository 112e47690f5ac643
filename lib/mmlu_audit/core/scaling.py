"""The one z-score helper of the package, its (frequency-)weighted moments, and the one
Pearson correlation of two variables."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["pearson", "standardise", "weighted_moments"]


def weighted_moments(values, weights) -> tuple[float, float]:
    """Mean and SD (ddof 0) of a 1-D ``values`` with element i counted ``weights[i]`` times.

    Frequency weights: the moments of the sample with each element repeated (weight 0 drops it).
    """
    values = np.asarray(values, dtype=float)
    mean = float(np.average(values, weights=weights))
    return mean, float(np.sqrt(np.average((values - mean) ** 2, weights=weights)))


def standardise(values, *, ddof: int = 0, return_moments: bool = False, weights=None):
    """z-scores of ``values`` along the first axis, ignoring missing values.

    Parameters
    ----------
    values : array-like, Series or DataFrame
        One variable (1-D) or one column per variable (2-D).
    ddof : int
        Delta degrees of freedom of the SD (0: population SD, as the simulator plants
        its covariates; 1: sample SD).
    return_moments : bool
        Also return the means and SDs that were used (e.g. to standardise new data
        the same way).
    weights : array of float, optional
        Frequency weights of a 1-D ``values`` (:func:`weighted_moments`; ``ddof`` must be 0,
        and missing values are not allowed).

    Returns
    -------
    same type as ``values`` (ndarray for other array-likes)
        ``(x - mean) / sd`` per column; a constant column becomes 0 (NaN stays NaN).
    mean, sd : ndarray or float
        Only with ``return_moments``.
    """
    array = np.asarray(values, dtype=float)
    if weights is None:
        mean, sd = np.nanmean(array, axis=0), np.nanstd(array, axis=0, ddof=ddof)
    elif ddof == 0 and array.ndim == 1:
        mean, sd = weighted_moments(array, weights)
    else:
        raise ValueError("standardise: weights are for a 1-D variable with ddof=0")
    divisor = np.where(sd > 0, sd, 1.0)
    z = (array - mean) / divisor
    if isinstance(values, pd.DataFrame):
        z = pd.DataFrame(z, index=values.index, columns=values.columns)
    elif isinstance(values, pd.Series):
        z = pd.Series(z, index=values.index, name=values.name)
    return (z, mean, sd) if return_moments else z


def pearson(x, y) -> float:
    """Pearson r of ``x`` and ``y`` over the pairs where both are finite.

    Parameters
    ----------
    x, y : array-like, shape (n,)
        Paired values; a pair with a missing (NaN) or infinite member is left out.

    Returns
    -------
    float
        The correlation (``np.corrcoef`` on the complete pairs); NaN when fewer than three pairs
        are complete or either variable is constant on them.
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    both = np.isfinite(x) & np.isfinite(y)
    if both.sum() < 3 or x[both].std() == 0 or y[both].std() == 0:
        return float("nan")
    return float(np.corrcoef(x[both], y[both])[0, 1])
