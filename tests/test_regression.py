"""Tests of the shared §4 regression helpers on small synthetic data with known answers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.inference import fit_ols
from mmlu_audit.analyses.regression import (
    RIDGE_ALPHAS,
    Design,
    contrast_terms,
    contrast_tests,
    cv_predict,
    cv_table,
    declared,
    difficulty_reliability,
    holm_count,
    indicator_names,
    interaction_fit,
    partition_fits,
    planted_summary,
    planted_truth_table,
    planted_vs_estimated,
    realised_contrasts,
    table2_ratios,
)
from mmlu_audit.analyses.regression.crossval import _ridge_loo_fit_predict


@pytest.fixture
def world():
    """20 subjects (6 STEM) of 40 items; x1 matters in STEM only, x2 in both."""
    rng = np.random.default_rng(7)
    subjects = np.repeat(np.arange(20), 40)
    stem = subjects < 6
    X = pd.DataFrame(rng.normal(size=(subjects.size, 3)), columns=["x1", "x2", "x3"])
    noise = rng.normal(0, 0.3, 20)[subjects] + rng.normal(size=subjects.size)
    y = 0.8 * X["x1"] * stem + 0.5 * X["x2"] + noise
    return y.to_numpy(), X, stem, subjects


def test_group_mean_predicts_training_means_and_grand_mean_for_unseen_groups():
    y = np.array([1.0, 3.0, 10.0, 20.0, 5.0, 7.0])
    onehot = np.eye(3)[[0, 0, 1, 1, 2, 2]]
    folds = np.array([0, 1, 0, 1, 2, 2])
    predicted = cv_predict(y, Design("subject", onehot, "group_mean"), folds)
    assert predicted[0] == 3.0 and predicted[3] == 10.0
    assert predicted[4] == predicted[5] == pytest.approx(np.mean([1.0, 3.0, 10.0, 20.0]))


def test_ridge_matches_sklearn_with_the_same_penalty():
    from sklearn.linear_model import Ridge, RidgeCV

    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 20))
    y = X[:, 0] + rng.normal(size=300)
    chosen = RidgeCV(alphas=RIDGE_ALPHAS).fit(X[:250], y[:250]).alpha_
    ours = _ridge_loo_fit_predict(y[:250], X[:250], X[250:])
    theirs = Ridge(alpha=chosen).fit(X[:250], y[:250]).predict(X[250:])
    np.testing.assert_allclose(ours, theirs, rtol=1e-8, atol=1e-10)


def test_ols_learner_drops_columns_constant_in_training():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=50), np.zeros(50)])
    X[-1, 1] = 1.0  # only in the last fold
    folds = np.repeat(np.arange(5), 10)
    predicted = cv_predict(X[:, 0] * 2, Design("x", X), folds)
    np.testing.assert_allclose(predicted, X[:, 0] * 2, atol=1e-10)


def test_cv_table_shape_and_the_planted_partition_difference(world):
    y, X, stem, subjects = world
    designs = [Design("length", X[["x3"]].to_numpy()), Design("nine indicators", X.to_numpy()),
               Design("nine + option set", X.to_numpy())]
    table = cv_table(y, stem, subjects, designs, n_folds=5, seed=1)
    assert table.shape == (3, 6)
    assert list(table.columns.get_level_values(0).unique()) == ["item", "subject"]
    assert table.loc["nine indicators", ("item", "STEM")] > table.loc["nine indicators", ("item", "non-STEM")]
    assert table.loc["length", ("item", "global")] < 0.02
    again = cv_table(y, stem, subjects, designs, n_folds=5, seed=1)
    pd.testing.assert_frame_equal(table, again)


def test_table2_ratios_and_undefined_shares():
    cols = pd.MultiIndex.from_product([["item"], ["global", "STEM", "non-STEM"]])
    table = pd.DataFrame([[0.01, 0.02, 0.01], [0.02, 0.04, 0.01], [0.04, 0.05, 0.03], [0.10, 0.10, -0.01],
                          [0.06, 0.09, 0.04]],
                         index=["length", "length + readability", "nine indicators", "encoder ceiling",
                                "nine + option set"], columns=cols)
    assert table2_ratios(table)["ratio_framework_vs_length_global"] == pytest.approx(2.0)
    ratios = table2_ratios(table, baseline="length")
    assert ratios["ratio_framework_vs_length_global"] == pytest.approx(4.0)
    assert ratios["ratio_framework_vs_length_stem"] == pytest.approx(2.5)
    assert ratios["share_of_ceiling_stem"] == pytest.approx(0.5)
    assert ratios["share_of_ceiling_stem_with_options"] == pytest.approx(0.9)
    assert np.isnan(ratios["share_of_ceiling_nonstem"])  # the ceiling predicts nothing there


def test_contrasts_equal_the_difference_of_separate_fits(world):
    y, X, stem, subjects = world
    fit = interaction_fit(y, X, stem)
    separate = partition_fits(y, X, stem)
    difference = separate[("STEM", "estimate")] - separate[("non-STEM", "estimate")]
    tests = contrast_tests(fit, subjects, contrast_terms(X.columns), seed=5, n_boot=199)
    np.testing.assert_allclose(tests["estimate"].to_numpy(), difference.loc[list(X.columns)].to_numpy())
    p_cols = [c for c in tests.columns if c.startswith(("p_", "holm_"))]
    assert tests[p_cols].apply(lambda c: c.between(0, 1)).all().all()
    for kind in ("HC3", "CR1", "CR2", "boot"):
        assert (tests[f"holm_{kind}"] >= tests[f"p_{kind}"] - 1e-12).all()
    assert tests.loc["STEM:x1", "holm_CR2"] < 0.05 and tests.loc["STEM:x2", "p_HC3"] > 0.01
    assert (tests["se_CR2"] > 0).all() and (tests["df_CR2"] < 20).all()
    assert holm_count(tests)["CR2"] >= 1


def test_bootstrap_needs_a_seed(world):
    y, X, stem, subjects = world
    with pytest.raises(ParameterError, match="needs a seed"):
        contrast_tests(interaction_fit(y, X, stem), subjects, ["STEM:x1"], n_boot=9)


def test_difficulty_reliability():
    rng = np.random.default_rng(1)
    b_true = rng.normal(size=2000)
    frame = pd.DataFrame({"b_true": b_true, "b_hat": 0.7 * b_true + rng.normal(0, 0.1, 2000),
                          "b_sd": np.full(2000, 0.1)})
    assert difficulty_reliability(frame) == pytest.approx(1 - 0.01 / frame["b_hat"].var(ddof=0))


def test_planted_vs_estimated_marks_planted_and_found():
    planted = pd.DataFrame({"STEM": [0.3, 0.1], "non-STEM": [0.0, 0.1]}, index=["d_ner", "d_logic"])
    table = planted_vs_estimated(planted, pd.Series({"d_logic": 0.01, "d_ner": 0.2}), 0.5,
                                 found=pd.Series({"d_ner": True, "d_logic": False}))
    assert table.loc["d_ner", "expected (× recovery)"] == pytest.approx(0.15)
    assert list(table.index) == ["d_logic", "d_ner"]  # the estimates' order
    assert table["planted"].to_dict() == {"d_logic": False, "d_ner": True}
    assert table.loc["d_ner", "estimate"] == 0.2
    assert table["found"].to_dict() == {"d_logic": False, "d_ner": True}


def test_realised_contrasts_separate_subject_confounding(world):
    y, X, stem, subjects = world
    effect = np.where(stem, 40.0 * X.groupby(subjects)["x3"].transform("mean"), 0.0)
    truth = {"b": y + effect, "subject_effect": effect}
    table = realised_contrasts(pd.DataFrame({"stem": stem}), truth, X)
    direct = interaction_fit(y, X, stem)
    expected = direct.beta[direct.names.index("STEM:x1")]
    assert table.loc["x1", "true b − subject effects"] == pytest.approx(expected)
    assert table.loc["x3", "true b"] > table.loc["x3", "true b − subject effects"] + 0.5


def test_unknown_learner_is_refused():
    with pytest.raises(ParameterError, match="unknown learner"):
        Design("x", np.zeros((3, 1)), "lasso")


def test_partition_fits_r2(world):
    y, X, stem, _ = world
    table = partition_fits(y, X, stem)
    assert table.attrs["r2"]["STEM"] == pytest.approx(fit_ols(y[stem], X[stem], intercept=True).r2)


def test_design_arrays_are_aligned_and_standardised():
    from mmlu_audit.features import INDICATORS
    from mmlu_audit.analyses.regression import design_arrays

    rng = np.random.default_rng(3)
    frame = pd.DataFrame(rng.normal(5, 2, (30, len(INDICATORS))), columns=list(INDICATORS))
    frame["b_hat"], frame["stem"] = rng.normal(size=30), np.arange(30) % 3 == 0
    frame["subject"] = np.repeat(["anatomy", "sociology", "virology"], 10)
    X, y, stem, subjects = design_arrays(frame)
    np.testing.assert_allclose(X.mean(), 0, atol=1e-12)
    np.testing.assert_allclose(X.std(ddof=0), 1)
    assert y.tolist() == frame["b_hat"].tolist() and stem.sum() == 10 and subjects[-1] == "virology"


def test_declared_and_indicator_names(world):
    y, X, stem, subjects = world
    tests = contrast_tests(interaction_fit(y, X, stem), subjects, contrast_terms(X.columns))
    found = declared(tests, "CR2")
    assert list(found.index) == ["x1", "x2", "x3"] and indicator_names("STEM:x1") == "x1"
    assert found.to_dict() == (tests["holm_CR2"] < 0.05).set_axis(["x1", "x2", "x3"]).to_dict()
    assert found["x1"]
    with pytest.raises(DataError, match="holm_boot"):
        declared(tests, "boot")  # no bootstrap was run


def test_planted_truth_table_and_summary(world):
    y, X, stem, subjects = world
    # a world whose true b is y itself, with x1 planted STEM-only and x2 planted in both
    truth = {"b": y, "subject_effect": np.zeros_like(y)}
    planted = pd.DataFrame({"STEM": [0.8, 0.5, 0.0], "non-STEM": [0.0, 0.5, 0.0]}, index=["x1", "x2", "x3"])
    fit = interaction_fit(y, X, stem)
    tests = contrast_tests(fit, subjects, contrast_terms(X.columns), kinds=("HC3", "CR2"))
    found = declared(tests, "CR2")
    table = planted_truth_table(planted, tests, 1.0, pd.DataFrame({"stem": stem}), truth, X,
                                found={"CR2": found}, cover_kind="CR2")
    assert list(table.columns) == ["planted", "planted contrast", "true b − subject effects", "true b",
                                   "expected (× recovery)", "estimate", "CR2 CI covers", "found (CR2)"]
    np.testing.assert_allclose(table["estimate"], tests["estimate"])
    np.testing.assert_allclose(table["true b"], table["estimate"])  # b̂ = true b here
    half = tests["se_CR2"].to_numpy() * stats.t.ppf(0.975, tests["df_CR2"].to_numpy())
    np.testing.assert_array_equal(table["CR2 CI covers"],
                                  np.abs(table["estimate"] - table["planted contrast"]) <= half)
    assert table["found (CR2)"].to_dict() == found.to_dict()
    summary = planted_summary(table, cover_kind="CR2")
    assert summary["n_planted"] == 1 and summary["planted_names"] == "x1"
    assert summary["sign_flipped_names"] == "none"
    assert summary["n_covered"] == int(table["CR2 CI covers"].sum())
    flipped = table.assign(**{"true b": -table["true b"]})
    assert planted_summary(flipped)["sign_flipped_names"] == "x1"
    assert planted_summary(None, cover_kind="CR2") == {"n_planted": 0, "planted_names": "none",
                                                       "sign_flipped_names": "n/a", "n_covered": "n/a"}


def test_names_where_lists_true_labels_in_order():
    from mmlu_audit.core.formatting import names_where

    assert names_where(pd.Series({"b": True, "a": False, "c": True})) == "b, c"
    assert names_where(pd.Series({"a": False})) == "none"
    assert names_where(pd.Series(dtype=bool), empty="n/a") == "n/a"


def test_holm_survivors_by_hand():
    from mmlu_audit.analyses.regression import holm_survivors

    table = pd.DataFrame({"holm_CR2": [0.01, 0.2, 0.049]}, index=["d_ner", "d_mdd", "c_bry"])
    assert holm_survivors(table, "CR2") == {"d_ner", "c_bry"}
