"""Bad input fails early with a DataError (a ValueError) naming the problem."""

from __future__ import annotations

import numpy as np
import pytest

from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.inference import (
    HTZUndefinedError,
    cluster_bootstrap_correlation, coef_table, cv_r2, fit_ols, fold_ids, holm, homogeneity_test,
    partition_effects, permutation_test, vcov, wald_test, wild_cluster_bootstrap,
)

RNG = np.random.default_rng(0)
Y = RNG.normal(size=40)
X = RNG.normal(size=(40, 2))
CLUSTERS = np.repeat(np.arange(8), 5)
FIT = fit_ols(Y, X, intercept=True)


def test_errors_are_value_errors():
    assert issubclass(DataError, ValueError)


@pytest.mark.parametrize(
    ("y", "X", "match"),
    [
        (Y[:-1], X, "rows"),
        (np.where(np.arange(40) == 3, np.nan, Y), X, "NaN"),
        (Y, np.where(np.arange(80).reshape(40, 2) == 5, np.inf, X), "NaN or infinite"),
        (Y, np.column_stack([X, X[:, 0] * 2]), "singular"),
        (Y[:2], X[:2], "more rows"),
        (np.ones((40, 2)), X, "1-D"),
    ],
)
def test_fit_ols_rejects_bad_input(y, X, match):
    with pytest.raises(DataError, match=match):
        fit_ols(y, X, intercept=True)


@pytest.mark.parametrize(
    ("clusters", "match"),
    [(np.zeros(40), "at least 2 clusters"), (CLUSTERS[:-1], "expected 40 labels"),
     (np.where(np.arange(40) == 0, np.nan, CLUSTERS), "NaN"), (None, "required")],
)
def test_cluster_kinds_reject_bad_clusters(clusters, match):
    with pytest.raises(DataError, match=match):
        vcov(FIT, "CR2", clusters)


def test_unknown_kind_and_form():
    with pytest.raises(ParameterError, match="unknown covariance kind"):
        vcov(FIT, "HC4")
    with pytest.raises(ParameterError, match="unknown form"):
        wald_test(FIT, ["x1"], kind="CR1", clusters=CLUSTERS, form="LR")
    with pytest.raises(ParameterError, match="HTZ needs a cluster"):
        wald_test(FIT, ["x1"], kind="HC3", form="HTZ")
    with pytest.raises(ParameterError, match="degrees of freedom need"):
        coef_table(FIT, "HC3", df="satterthwaite")


def test_restriction_checks():
    with pytest.raises(DataError, match="columns"):
        wald_test(FIT, np.eye(2), kind="HC3")
    with pytest.raises(DataError, match="linearly dependent"):
        wald_test(FIT, [[0, 1, 0], [0, 2, 0]], kind="HC3")
    with pytest.raises(DataError, match="rows"):
        wald_test(FIT, [[0, 1, 0]], r=[0, 0], kind="HC3")


def test_other_entry_points_validate():
    with pytest.raises(DataError, match="p-values"):
        holm([0.1, 1.2])
    with pytest.raises(ParameterError, match="seed"):
        cv_r2(Y, X)
    with pytest.raises(DataError, match="0/1"):
        homogeneity_test(Y, X, np.full(40, 2.0), CLUSTERS, kind="HC3")
    with pytest.raises(DataError, match="constant within"):
        partition_effects(Y, X, np.arange(40) % 2 == 0, CLUSTERS, seed=0, n_boot=10)


def _few_cluster_fit(n_clusters=4, n_regressors=6, seed=0):
    rng = np.random.default_rng(seed)
    n = 15 * n_clusters
    fit = fit_ols(rng.normal(size=n), rng.normal(size=(n, n_regressors)), intercept=True)
    return fit, np.repeat(np.arange(n_clusters), 15)


@pytest.mark.parametrize("kind", ["CR0", "CR1", "CR2"])
def test_wald_refuses_more_restrictions_than_clusters_support(kind):
    """With q >= G the cluster-robust R V R' is singular: W was 1e15 with p = 0 (or LinAlgError)."""
    fit, clusters = _few_cluster_fit()
    with pytest.raises(DataError, match=r"R V R'.*rank [34] < 6.*4 clusters"):
        wald_test(fit, fit.names[1:], kind=kind, clusters=clusters)


def test_wald_refuses_an_ill_conditioned_restricted_covariance():
    fit, clusters = _few_cluster_fit(n_clusters=12, n_regressors=2)
    R = np.array([[0, 1, 0], [0, 1, 1e-9]])
    with pytest.raises(DataError, match="R V R'.*condition"):
        wald_test(fit, R, kind="HC3")


def test_htz_with_non_positive_denominator_df_says_so():
    rng = np.random.default_rng(0)
    X, y, clusters = rng.normal(size=(40, 5)), rng.normal(size=40), np.repeat(np.arange(8), 5)
    X[:, :3] *= (clusters[:, None] < 2)  # three regressors vary in two clusters only
    fit = fit_ols(y, X, intercept=True)
    with pytest.raises(HTZUndefinedError, match=r"HTZ denominator degrees of freedom .* <= 0"):
        wald_test(fit, ["x1", "x2", "x3"], kind="CR2", clusters=clusters, form="HTZ")


def test_nearly_collinear_design_is_singular_like_r_lm():
    """|R_jj| ~ 1e-9 relative passed the old 1e-10 check, then gave 1e8 coefficients and NaN SEs."""
    x1 = RNG.normal(size=40)
    near = np.column_stack([x1, x1 + 1e-9 * RNG.normal(size=40), X[:, 0]])
    with pytest.raises(DataError, match="singular.*x2"):
        fit_ols(Y, near, intercept=True)


def test_singularity_is_judged_per_column_scale():
    """A column measured in tiny units is not collinear: the tolerance is relative to its own norm."""
    scaled = np.column_stack([X[:, 0] * 1e-9, X[:, 1]])
    fit = fit_ols(Y, scaled, intercept=True)
    reference = fit_ols(Y, X, intercept=True)
    np.testing.assert_allclose(fit.beta[1] * 1e-9, reference.beta[1], rtol=1e-6)


SEEDED = {
    "cluster_bootstrap_correlation": lambda seed: cluster_bootstrap_correlation(
        X[:, 0], Y, CLUSTERS, n_boot=10, seed=seed),
    "fold_ids": lambda seed: fold_ids(40, 5, seed=seed),
    "cv_r2": lambda seed: cv_r2(Y, X, n_folds=5, seed=seed),
    "partition_effects": lambda seed: partition_effects(
        Y, X, CLUSTERS % 2 == 0, CLUSTERS, seed=seed, n_boot=10),
    "permutation_test": lambda seed: permutation_test(Y, X, CLUSTERS % 2 == 0, CLUSTERS, seed=seed, n_perm=9),
    # 8 clusters and 999 draws: full enumeration, where the seed used to go unchecked
    "wild_cluster_bootstrap": lambda seed: wild_cluster_bootstrap(FIT, "x1", clusters=CLUSTERS, seed=seed),
}


@pytest.mark.parametrize("entry", sorted(SEEDED))
@pytest.mark.parametrize("seed", [None, -1, 1.5, "7", True])
def test_bad_seeds_are_parameter_errors(entry, seed):
    """None used to mean fresh entropy; -1, 1.5 and '7' raised numpy's own errors."""
    with pytest.raises(ParameterError, match="seed"):
        SEEDED[entry](seed)
