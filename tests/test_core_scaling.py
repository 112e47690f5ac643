"""The one Pearson correlation of the package (core.scaling.pearson) against numpy and scipy."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from mmlu_audit.core.scaling import pearson


def test_pearson_matches_scipy_and_numpy():
    rng = np.random.default_rng(11)
    x = rng.normal(size=200)
    y = 0.6 * x + rng.normal(size=200)
    r = pearson(x, y)
    assert isinstance(r, float)
    assert r == pytest.approx(stats.pearsonr(x, y).statistic, abs=1e-12)
    assert r == np.corrcoef(x, y)[0, 1]  # the same arithmetic on complete data
    assert pearson(list(x), tuple(y)) == r  # any array-like


def test_pearson_leaves_out_incomplete_pairs():
    rng = np.random.default_rng(12)
    x, y = rng.normal(size=50), rng.normal(size=50)
    x[[3, 9]], y[[9, 20]], y[30] = np.nan, np.nan, np.inf
    keep = np.isfinite(x) & np.isfinite(y)
    assert keep.sum() == 46
    assert pearson(x, y) == pytest.approx(stats.pearsonr(x[keep], y[keep]).statistic, abs=1e-12)


@pytest.mark.parametrize("x, y", [([1.0, 2.0], [2.0, 1.0]),                       # two pairs
                                  ([1.0, 2.0, np.nan, 4.0], [1.0, 3.0, 2.0, np.nan]),
                                  ([1.0, 1.0, 1.0, 1.0], [1.0, 2.0, 3.0, 4.0]),   # constant
                                  ([1.0, 2.0, 3.0, 4.0], [5.0, 5.0, 5.0, np.nan])])
def test_pearson_is_nan_below_three_pairs_or_without_spread(x, y):
    assert np.isnan(pearson(x, y))
