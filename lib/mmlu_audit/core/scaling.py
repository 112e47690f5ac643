"""The one z-score helper of the package."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["standardise"]


def standardise(values, *, ddof: int = 0, return_moments: bool = False):
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

    Returns
    -------
    same type as ``values`` (ndarray for other array-likes)
        ``(x - mean) / sd`` per column; a constant column becomes 0 (NaN stays NaN).
    mean, sd : ndarray or float
        Only with ``return_moments``.
    """
    array = np.asarray(values, dtype=float)
    mean = np.nanmean(array, axis=0)
    sd = np.nanstd(array, axis=0, ddof=ddof)
    divisor = np.where(sd > 0, sd, 1.0)
    z = (array - mean) / divisor
    if isinstance(values, pd.DataFrame):
        z = pd.DataFrame(z, index=values.index, columns=values.columns)
    elif isinstance(values, pd.Series):
        z = pd.Series(z, index=values.index, name=values.name)
    return (z, mean, sd) if return_moments else z
