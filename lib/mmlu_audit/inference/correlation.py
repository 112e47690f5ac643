"""Sampling intervals for a Pearson correlation (Fisher's z transformation)."""

from __future__ import annotations

import numpy as np
from scipy import stats

from mmlu_audit.core.errors import DataError

__all__ = ["fisher_exceedance", "fisher_interval"]


def _check(r: float, n: int) -> None:
    if not -1 < r < 1:
        raise DataError("r", f"a correlation strictly inside (-1, 1) is needed, got {r}")
    if n < 4:
        raise DataError("n", f"Fisher's interval needs at least 4 observations, got {n}")


def fisher_interval(r: float, n: int, level: float = 0.95) -> tuple[float, float]:
    """Equal-tailed interval for a correlation ρ from a sample r of ``n`` pairs.

    atanh r is approximately normal with SD 1/√(n − 3) for bivariate normal pairs; the
    interval is tanh(atanh r ± z_{(1+level)/2} / √(n − 3)).
    """
    _check(r, n)
    half = stats.norm.ppf(0.5 + level / 2) / np.sqrt(n - 3)
    centre = np.arctanh(r)
    return float(np.tanh(centre - half)), float(np.tanh(centre + half))


def fisher_exceedance(r: float, n: int, threshold: float) -> float:
    """P(ρ > ``threshold``) under the Fisher approximation centred at r (flat prior on atanh ρ)."""
    _check(r, n)
    return float(stats.norm.sf((np.arctanh(threshold) - np.arctanh(r)) * np.sqrt(n - 3)))
