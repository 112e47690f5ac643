"""Bad input fails early with a DataError (a ValueError) naming the problem."""

from __future__ import annotations

import numpy as np
import pytest

from mmlu_audit.errors import DataError
from mmlu_audit.inference import (
    coef_table, cv_r2, fit_ols, holm, homogeneity_test, partition_effects, vcov, wald_test,
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
    with pytest.raises(DataError, match="unknown covariance kind"):
        vcov(FIT, "HC4")
    with pytest.raises(DataError, match="unknown form"):
        wald_test(FIT, ["x1"], kind="CR1", clusters=CLUSTERS, form="LR")
    with pytest.raises(DataError, match="HTZ needs a cluster"):
        wald_test(FIT, ["x1"], kind="HC3", form="HTZ")
    with pytest.raises(DataError, match="degrees of freedom need"):
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
    with pytest.raises(DataError, match="seed"):
        cv_r2(Y, X)
    with pytest.raises(DataError, match="0/1"):
        homogeneity_test(Y, X, np.full(40, 2.0), CLUSTERS, kind="HC3")
    with pytest.raises(DataError, match="constant within"):
        partition_effects(Y, X, np.arange(40) % 2 == 0, CLUSTERS, seed=0, n_boot=10)
