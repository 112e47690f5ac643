"""Input checks shared by the inference modules.

Every check raises :class:`mmlu_audit.core.errors.DataError` (a ``ValueError``) whose
message names the offending argument, so misuse fails early and readably.
"""

from __future__ import annotations

import numpy as np

from mmlu_audit.core.errors import DataError, ParameterError

__all__ = ["MAX_DRAW_CELLS", "MAX_RESAMPLES", "as_matrix", "as_vector", "as_clusters", "check_rows",
           "check_draw_cells"]

#: Most bootstrap draws or permutations one call takes: a p-value's resolution of 1e-6 is far
#: finer than any decision needs, and more would only exhaust memory (10**12 draws: MemoryError).
MAX_RESAMPLES = 1_000_000
#: Most cells of one (draws × blocks) array: 4e8 float64 cells are 3.2 GB (the 9,999 item
#: permutations of 14,042 items in §4.3's homogeneity chapter, chap-homogeneity, are 1.4e8).
MAX_DRAW_CELLS = 400_000_000


def check_draw_cells(n_draws: int, n_blocks: int, name: str) -> None:
    """Refuse ``n_draws`` resamples of ``n_blocks`` blocks that would not fit :data:`MAX_DRAW_CELLS`."""
    if n_draws * n_blocks > MAX_DRAW_CELLS:
        gigabytes = n_draws * n_blocks * 8 / 1e9
        raise ParameterError(name, f"{n_draws:,} draws of {n_blocks:,} blocks need {gigabytes:.1f} GB; at "
                             f"most {MAX_DRAW_CELLS // n_blocks:,} draws at this size")


def as_matrix(X, name: str = "X") -> np.ndarray:
    """Return ``X`` as a finite 2-D float array (a 1-D input becomes one column)."""
    arr = np.asarray(X, dtype=float)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise DataError(name, f"expected a 2-D array, got {arr.ndim} dimensions")
    if not np.all(np.isfinite(arr)):
        raise DataError(name, "contains NaN or infinite values")
    return arr


def as_vector(y, name: str = "y") -> np.ndarray:
    """Return ``y`` as a finite 1-D float array."""
    arr = np.asarray(y, dtype=float)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise DataError(name, f"expected a 1-D array, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise DataError(name, "contains NaN or infinite values")
    return arr


def as_clusters(clusters, n_obs: int, name: str = "clusters") -> tuple[np.ndarray, np.ndarray]:
    """Encode cluster labels as integer codes ``0..G-1``.

    Returns
    -------
    codes : ndarray of int, shape (n_obs,)
    labels : ndarray, shape (G,)
        The distinct labels in code order.
    """
    if clusters is None:
        raise DataError(name, "cluster labels are required for a cluster-robust covariance")
    raw = np.asarray(clusters)
    if raw.ndim != 1 or raw.shape[0] != n_obs:
        raise DataError(name, f"expected {n_obs} labels, got shape {raw.shape}")
    if raw.dtype.kind == "f" and np.isnan(raw).any():
        raise DataError(name, "contains NaN labels")
    if raw.dtype == object:
        codes, labels = _object_codes(raw, name)
    else:
        labels, codes = np.unique(raw, return_inverse=True)
    if labels.size < 2:
        raise DataError(name, f"need at least 2 clusters, got {labels.size}")
    return codes.astype(np.intp), labels


def _object_codes(raw: np.ndarray, name: str) -> tuple[np.ndarray, np.ndarray]:
    """:func:`np.unique`'s labels and codes of an object array, its checks made on the distinct labels.

    Hashing the labels first (pandas' factorize) and checking and sorting only the distinct ones
    took a fraction of sorting and scanning all of them: cluster-robust fits called this once per
    fit on MMLU's 14,042 subject names (~6 ms each, 758 times in Appendix A's page).
    """
    import pandas as pd

    codes, distinct = pd.factorize(raw)
    distinct = np.asarray(distinct, dtype=object)
    if (codes < 0).any() or any(v is None or v != v for v in distinct):
        raise DataError(name, "contains missing labels")
    kinds = {"number" if isinstance(v, (int, float, np.number)) else type(v).__name__ for v in distinct}
    if len(kinds) > 1:
        raise DataError(name, f"mixes label types ({', '.join(sorted(kinds))}); 7 and '7' would be "
                        "different clusters: use one type")
    order = np.argsort(distinct, kind="stable")
    rank = np.empty(order.size, dtype=np.intp)
    rank[order] = np.arange(order.size)
    return rank[codes], distinct[order]


def check_rows(n_expected: int, **arrays) -> None:
    """Raise if any named array does not have ``n_expected`` rows."""
    for name, arr in arrays.items():
        if arr is not None and np.shape(arr)[0] != n_expected:
            raise DataError(name, f"has {np.shape(arr)[0]} rows, expected {n_expected}")
