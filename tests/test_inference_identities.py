"""Identities and independent references for covariances, tests and diagnostics.

References: statsmodels (HC0–HC3, cluster CR1, Breusch–Pagan, VIF, multipletests),
closed forms (CR with singleton clusters = HC; leave-one-out PRESS), and brute-force
refits for the sufficient-statistic fast paths.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from statsmodels.stats.diagnostic import het_breuschpagan
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.outliers_influence import variance_inflation_factor

from mmlu_audit.core.errors import DataError
from mmlu_audit.inference import (
    breusch_pagan, coef_table, cohens_q, cv_r2, fit_ols, fold_ids, holm, homogeneity_test, r2_score,
    interaction_design, lr_interaction, partition_effects, residual_skew,
    vcov, vif, wald_test,
)
from mmlu_audit.inference._suffstats import block_stats, fit_weighted


def _clustered(seed=0, n=400, G=25, k=3):
    rng = np.random.default_rng(seed)
    clusters = rng.integers(0, G, n)
    X = rng.normal(size=(n, k)) + rng.normal(size=(G, k))[clusters]
    shared = rng.normal(size=G)[clusters]
    y = X @ np.linspace(0.5, -0.5, k) + shared + rng.normal(size=n) * (1 + np.abs(X[:, 0]))
    return y, X, clusters


@pytest.fixture(scope="module")
def data():
    y, X, clusters = _clustered()
    return y, X, clusters, fit_ols(y, X, intercept=True)


@pytest.mark.parametrize("kind", ["HC0", "HC1", "HC2", "HC3"])
def test_hc_matches_statsmodels(data, kind):
    y, X, _, fit = data
    ref = sm.OLS(y, sm.add_constant(X)).fit(cov_type=kind).cov_params()
    np.testing.assert_allclose(vcov(fit, kind), ref, rtol=1e-10)


def test_classical_matches_statsmodels(data):
    y, X, _, fit = data
    reference = sm.OLS(y, sm.add_constant(X)).fit().cov_params()
    np.testing.assert_allclose(vcov(fit, "classical"), reference, rtol=1e-10)


def test_cr1_matches_statsmodels_cluster(data):
    y, X, clusters, fit = data
    res = sm.OLS(y, sm.add_constant(X)).fit(cov_type="cluster", cov_kwds={"groups": clusters}, use_t=True)
    np.testing.assert_allclose(vcov(fit, "CR1", clusters), res.cov_params(), rtol=1e-10)
    table = coef_table(fit, "CR1", clusters)
    np.testing.assert_allclose(table["p"], res.pvalues, rtol=1e-8)
    np.testing.assert_allclose(table["df"], np.unique(clusters).size - 1)  # Stata / statsmodels: G - 1


@pytest.mark.parametrize(("cr", "hc"), [("CR0", "HC0"), ("CR1", "HC1"), ("CR2", "HC2")])
def test_singleton_clusters_reduce_to_hc(data, cr, hc):
    """With one observation per cluster, CR0 = HC0, CR2 = HC2 and CR1 (factor N/(N-K)) = HC1."""
    _, _, _, fit = data
    singletons = np.arange(fit.n_obs)
    np.testing.assert_allclose(vcov(fit, cr, singletons), vcov(fit, hc), rtol=1e-10)


def test_cr2_is_unbiased_under_homoskedastic_working_model():
    """E[V_CR2] = (X'X)^-1 for iid unit-variance errors (Bell & McCaffrey 2002).

    V is a quadratic form in y, so its expectation under y ~ N(0, I) is exactly
    the sum of V over the n unit vectors y = e_i; CR0 is biased down instead.
    """
    rng = np.random.default_rng(3)
    clusters = np.repeat(np.arange(8), [2, 3, 4, 5, 7, 9, 11, 19])
    X = np.column_stack([np.ones(clusters.size), rng.normal(size=(clusters.size, 2))])
    units = np.eye(clusters.size)
    expected = {kind: sum(vcov(fit_ols(u, X), kind, clusters) for u in units) for kind in ("CR2", "CR0")}
    target = fit_ols(units[0], X).bread
    np.testing.assert_allclose(expected["CR2"], target, rtol=1e-9, atol=1e-12)
    assert np.all(np.diag(expected["CR0"]) < np.diag(target))


def test_holm_matches_statsmodels():
    p = np.array([0.01, 0.04, 0.03, 0.005, 0.5, 0.04])
    np.testing.assert_allclose(holm(p), multipletests(p, method="holm")[1])


def test_coef_table_holm_skips_intercept(data):
    _, _, clusters, fit = data
    table = coef_table(fit, "CR2", clusters)
    assert np.isnan(table.loc[0, "p_holm"])
    np.testing.assert_allclose(table["p_holm"][1:], multipletests(table["p"][1:], method="holm")[1])
    assert list(table.columns[:7]) == ["term", "estimate", "se", "stat", "df", "p", "p_holm"]


def test_wald_single_restriction_equals_squared_t(data):
    _, _, clusters, fit = data
    table = coef_table(fit, "CR2", clusters)
    res = wald_test(fit, ["x2"], kind="CR2", clusters=clusters, form="HTZ").iloc[0]
    assert res["wald"] == pytest.approx(table.loc[2, "stat"] ** 2, rel=1e-10)
    assert res["df_den"] == pytest.approx(table.loc[2, "df"], rel=1e-10)  # HTZ with q=1 is Bell–McCaffrey
    assert res["p"] == pytest.approx(table.loc[2, "p"], rel=1e-8)


def test_wald_hc_f_matches_statsmodels(data):
    y, X, _, fit = data
    res = sm.OLS(y, sm.add_constant(X)).fit(cov_type="HC3")
    R = np.eye(4)[1:]
    ref = res.wald_test(R, use_f=True, scalar=True)
    ours = wald_test(fit, R, kind="HC3", form="F").iloc[0]
    assert ours["stat"] == pytest.approx(ref.statistic, rel=1e-10)
    assert ours["p"] == pytest.approx(ref.pvalue, rel=1e-8)


def test_homogeneity_test_restricts_the_right_terms():
    y, X, clusters = _clustered(seed=5, n=600, G=30, k=2)
    stem = (clusters < 10)
    Z, names = interaction_design(X, stem, ["a", "b"])
    assert names == ["Intercept", "a", "b", "STEM", "STEM:a", "STEM:b"]
    fit = fit_ols(y, Z, names)
    w9 = homogeneity_test(y, X, stem, clusters, kind="CR1", names=["a", "b"]).iloc[0]
    ref = wald_test(fit, np.eye(6)[4:], kind="CR1", clusters=clusters).iloc[0]
    assert w9["wald"] == pytest.approx(ref["wald"], rel=1e-12) and w9["test"] == "W(2)"
    w10 = homogeneity_test(y, X, stem, clusters, kind="HC3", include_intercept=True).iloc[0]
    assert w10["df_num"] == 3 and w10["wald"] > 0


def test_breusch_pagan_matches_statsmodels(data):
    y, X, _, fit = data
    for robust in (True, False):
        lm, lm_p, _, _ = het_breuschpagan(fit.resid, fit.X, robust=robust)
        ours = breusch_pagan(fit, studentized=robust).iloc[0]
        assert ours["stat"] == pytest.approx(lm, rel=1e-10)
        assert ours["p"] == pytest.approx(lm_p, rel=1e-8)


def test_vif_matches_statsmodels(data):
    _, X, _, fit = data
    ref = [variance_inflation_factor(fit.X, j) for j in range(1, 4)]
    np.testing.assert_allclose(vif(pd.DataFrame(X, columns=list("abc")))["vif"], ref, rtol=1e-10)


def test_residual_skew_of_exponential_errors():
    rng = np.random.default_rng(1)
    x = rng.normal(size=20000)
    fit = fit_ols(x + rng.exponential(size=x.size), x, intercept=True)
    assert residual_skew(fit) == pytest.approx(2.0, abs=0.15)  # skewness of Exp(1) is 2


def test_lr_interaction_matches_separate_gaussian_loglik():
    y, X, clusters = _clustered(seed=2, n=500, G=20)
    stem = clusters < 7
    llf = lambda m: sm.OLS(y[m], sm.add_constant(X[m])).fit().llf  # noqa: E731
    pooled = sm.OLS(y, sm.add_constant(X)).fit().llf
    stat, df = lr_interaction(y, X, stem)
    assert stat == pytest.approx(2 * (llf(stem) + llf(~stem) - pooled), rel=1e-9) and df == 5
    Z, _ = interaction_design(X, stem)
    common, df_c = lr_interaction(y, X, stem, separate_variance=False)
    ref = sm.OLS(y, Z).fit().compare_lr_test(sm.OLS(y, sm.add_constant(X)).fit())
    assert common == pytest.approx(ref[0], rel=1e-9) and df_c == 4


def test_r2_score_matches_statsmodels_rsquared(data):
    y, X, _, fit = data
    ref = sm.OLS(y, sm.add_constant(X)).fit()
    assert r2_score(y, ref.fittedvalues) == pytest.approx(ref.rsquared, rel=1e-12)
    assert fit.r2 == pytest.approx(ref.rsquared, rel=1e-12)


def test_r2_score_of_the_mean_is_zero_and_of_worse_predictions_negative(data):
    y, *_ = data
    assert r2_score(y, np.full_like(y, y.mean())) == pytest.approx(0.0, abs=1e-12)
    worse = y.mean() + 2 * (y.mean() - y)
    assert r2_score(y, worse) == pytest.approx(-8.0, rel=1e-12)  # residuals 3 × (y − ȳ)
    with pytest.raises(DataError, match="predicted: has 3 rows"):
        r2_score(y, y[:3])


@pytest.mark.parametrize("intercept", [True, False])
def test_cv_r2_matches_fold_refits_by_statsmodels(data, intercept):
    """The Gram-update refits against one statsmodels OLS per training fold."""
    y, X, _, _ = data
    folds = fold_ids(y.size, 7, seed=3)
    Z = sm.add_constant(X) if intercept else X
    predicted = np.empty_like(y)
    for fold in np.unique(folds):
        test = folds == fold
        predicted[test] = sm.OLS(y[~test], Z[~test]).fit().predict(Z[test])
    expected = 1 - np.sum((y - predicted) ** 2) / np.sum((y - y.mean()) ** 2)
    assert cv_r2(y, X, folds=folds, intercept=intercept) == pytest.approx(expected, rel=1e-9)
    assert cv_r2(y, X, n_folds=7, seed=3, intercept=intercept) == pytest.approx(expected, rel=1e-9)


def test_cv_r2_refuses_a_singular_training_design(data):
    y, X, _, _ = data
    with pytest.raises(DataError, match="X: the design without fold 0 is singular"):
        cv_r2(y, np.column_stack([X[:, 0], X[:, 0]]), folds=np.arange(y.size) % 3)


def test_loo_cv_r2_equals_press(data):
    y, X, _, fit = data
    press = np.sum((fit.resid / (1 - fit.leverage)) ** 2)
    expected = 1 - press / fit.tss
    assert cv_r2(y, X, folds=np.arange(y.size)) == pytest.approx(expected, rel=1e-9)


def test_grouped_folds_keep_groups_whole(data):
    y, X, clusters, _ = data
    folds = fold_ids(y.size, 5, seed=1, groups=clusters)
    assert pd.Series(folds).groupby(clusters).nunique().max() == 1
    assert len(np.unique(folds)) == 5
    assert cv_r2(y, X, n_folds=5, seed=1, groups=clusters) < cv_r2(y, X, n_folds=5, seed=1) + 0.05


def test_weighted_refit_equals_ols_on_repeated_rows(data):
    y, X, clusters, _ = data
    X1 = np.column_stack([np.ones(y.size), X])
    counts = np.random.default_rng(0).integers(0, 3, size=clusters.max() + 1).astype(float)
    fits = fit_weighted(block_stats(y, X1, clusters, counts.size), counts[None, :])
    rows = np.repeat(np.arange(y.size), counts[clusters].astype(int))
    ref = fit_ols(y[rows], X1[rows])
    np.testing.assert_allclose(fits.beta[0], ref.beta, rtol=1e-9)
    assert fits.r2[0] == pytest.approx(ref.r2, rel=1e-9)
    assert fits.fitted_variance[0] == pytest.approx(np.var(ref.fitted), rel=1e-9)


def test_partition_effects_point_estimates(data):
    y, X, clusters, _ = data
    stem = clusters < 9
    table = partition_effects(y, X, stem, clusters, seed=0, n_boot=200).set_index("effect")
    r2_s, r2_n = fit_ols(y[stem], X[stem], intercept=True), fit_ols(y[~stem], X[~stem], intercept=True)
    assert table.loc["r2_stem", "estimate"] == pytest.approx(r2_s.r2, rel=1e-9)
    assert table.loc["cohens_q", "estimate"] == pytest.approx(
        np.arctanh(np.sqrt(r2_s.r2)) - np.arctanh(np.sqrt(r2_n.r2)), rel=1e-9)
    ratio = np.var(r2_s.fitted) / np.var(r2_n.fitted)
    assert table.loc["explained_var_ratio", "estimate"] == pytest.approx(ratio, rel=1e-9)
    assert (table["ci_low"] <= table["estimate"]).all() and (table["estimate"] <= table["ci_high"]).all()
    assert cohens_q(0.25, 0.25) == 0

