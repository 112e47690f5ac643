"""Wild cluster bootstrap: against the wildboottest package and a brute-force refit loop."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.inference import (
    draw_weights, fit_ols, holm, vcov, wald_test, wild_bootstrap_table, wild_cluster_bootstrap,
)

wildboottest = pytest.importorskip("wildboottest.wildboottest").wildboottest


def _data(seed, n, G, effect=0.0):
    rng = np.random.default_rng(seed)
    clusters = rng.integers(0, G, n)
    X = rng.normal(size=(n, 3)) + 0.5 * rng.normal(size=(G, 3))[clusters]
    y = 1 + effect * X[:, 0] + 0.3 * X[:, 1] + rng.normal(size=G)[clusters] + rng.normal(size=n)
    names = ["Intercept", "x1", "x2", "x3"]
    return y, np.column_stack([np.ones(n), X]), clusters, names


def _reference(y, X, clusters, names, **kwargs):
    model = sm.OLS(y, pd.DataFrame(X, columns=names))
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="2\\^G < the number of boot iterations",
                                category=UserWarning)
        return wildboottest(model, cluster=clusters, param="x1", show=False, parallel=False, **kwargs).iloc[0]


@pytest.mark.parametrize("impose_null", [True, False])
def test_full_enumeration_matches_wildboottest(impose_null):
    """With G = 10 and Rademacher weights both enumerate all 2^10 sign vectors.

    The p-values can then differ only through ties at |t*| = |t| (wildboottest
    counts strictly greater, we count >=; the two all-equal-sign draws tie under
    WCR), so the tolerance is 2 / 2^10.
    """
    y, X, clusters, names = _data(1, 300, 10, effect=0.15)
    fit = fit_ols(y, X, names)
    ours = wild_cluster_bootstrap(fit, "x1", clusters=clusters, seed=0, impose_null=impose_null)
    ref = _reference(y, X, clusters, names, B=9999, impose_null=impose_null, seed=0)
    assert ours.draws.size == 2**10
    assert ours.stat == pytest.approx(ref["statistic"], rel=1e-10)
    assert abs(ours.p - ref["p-value"]) <= 2 / 2**10 + 1e-12


@pytest.mark.parametrize("weights", ["rademacher", "webb"])
def test_random_draws_agree_with_wildboottest_within_monte_carlo_error(weights):
    """G = 30: random weights. Two independent p-value estimates from B = 9,999 draws
    differ by a normal variable with sd sqrt(2 p (1 - p) / B) (<= 0.0071); allow 4 sd."""
    y, X, clusters, names = _data(2, 600, 30, effect=0.12)
    fit = fit_ols(y, X, names)
    ours = wild_cluster_bootstrap(fit, "x1", clusters=clusters, seed=11, weights=weights)
    ref = _reference(y, X, clusters, names, B=9999, weights_type=weights, seed=12)
    p_bar = (ours.p + ref["p-value"]) / 2
    assert 0.02 < p_bar < 0.98, "the design should give an interior p-value"
    assert abs(ours.p - ref["p-value"]) <= 4 * np.sqrt(2 * p_bar * (1 - p_bar) / 9999)


def _brute_force_draws(fit, R, clusters, kind, impose_null, v):
    """Refit the model on each bootstrap outcome: O(n) per draw, independent algebra."""
    if impose_null:
        rm = R @ fit.bread
        beta0 = fit.beta - rm.T @ np.linalg.solve(rm @ R.T, R @ fit.beta)
    else:
        beta0 = fit.beta
    resid0 = fit.y - fit.X @ beta0
    centre = R @ beta0
    stats = []
    for weights in v:
        star = fit_ols(fit.X @ beta0 + weights[clusters] * resid0, fit.X)
        gap = R @ star.beta - centre
        stats.append(gap @ np.linalg.solve(R @ vcov(star, kind, clusters) @ R.T, gap))
    return np.array(stats)


@pytest.mark.parametrize("kind", ["CR1", "CR2"])
@pytest.mark.parametrize("impose_null", [True, False])
def test_wald_bootstrap_matches_brute_force_refits(kind, impose_null):
    y, X, clusters, names = _data(3, 250, 15)
    fit = fit_ols(y, X, names)
    R = np.eye(4)[1:]
    res = wild_cluster_bootstrap(fit, R, clusters=clusters, seed=5, kind=kind, impose_null=impose_null,
                                 weights="webb", n_draws=40)
    v = draw_weights(15, 40, "webb", np.random.default_rng(5))
    brute = _brute_force_draws(fit, R, clusters, kind, impose_null, v)
    np.testing.assert_allclose(res.draws, brute, rtol=1e-8)
    wald = wald_test(fit, R, kind=kind, clusters=clusters)["wald"].item()
    assert res.stat == pytest.approx(wald, rel=1e-12)
    assert res.p == pytest.approx(np.mean(res.draws >= res.stat))


def test_webb_weights_have_unit_variance_and_six_points():
    v = draw_weights(50, 4000, "webb", np.random.default_rng(0))
    assert np.unique(v).size == 6
    assert abs(v.mean()) < 0.01 and abs(v.var() - 1) < 0.01
    assert set(np.unique(draw_weights(5, 100, "rademacher", np.random.default_rng(0)))) == {-1.0, 1.0}


def test_seeds_make_draws_reproducible():
    y, X, clusters, names = _data(4, 200, 20)
    fit = fit_ols(y, X, names)
    a = wild_cluster_bootstrap(fit, ["x1", "x2"], clusters=clusters, seed=7, n_draws=99)
    b = wild_cluster_bootstrap(fit, ["x1", "x2"], clusters=clusters, seed=np.random.default_rng(7),
                               n_draws=99)
    np.testing.assert_array_equal(a.draws, b.draws)
    assert a.to_frame()["q"].item() == 2 and a.quantile(0.95) > 0


def test_bootstrap_rejects_non_cluster_kinds():
    y, X, clusters, names = _data(4, 100, 10)
    fit = fit_ols(y, X, names)
    with pytest.raises(ParameterError, match="cluster kind"):
        wild_cluster_bootstrap(fit, "x1", clusters=clusters, seed=0, kind="HC3")
    with pytest.raises(DataError, match="not in the model"):
        wild_cluster_bootstrap(fit, "x9", clusters=clusters, seed=0)


def test_bootstrap_table_applies_holm_to_per_term_bootstraps():
    y, X, clusters, names = _data(6, 300, 20, effect=0.2)
    fit = fit_ols(y, X, names)
    table = wild_bootstrap_table(fit, ["x1", "x2", "x3"], clusters=clusters, seed=3, n_draws=199)
    rng = np.random.default_rng(3)
    first = wild_cluster_bootstrap(fit, "x1", clusters=clusters, seed=rng, n_draws=199)
    assert table.loc[0, "p"] == first.p
    np.testing.assert_allclose(table["p_holm"], holm(table["p"]))
