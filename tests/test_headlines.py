"""The §4 chapters' headline functions give the values the chapters' own cells compute."""

from __future__ import annotations

import numpy as np
import pytest

from mmlu_audit.analyses.regression import contrast_terms, contrast_tests, design_arrays, interaction_fit
from mmlu_audit.analyses.regression.joint import HOMOGENEITY_HEADLINE, homogeneity_headline
from mmlu_audit.analyses.regression.stratified import HEADLINE_KEYS, stratified_headline
from mmlu_audit.inference import permutation_test, wald_test, wild_cluster_bootstrap

from test_central import frame_with_contrast as _frame


@pytest.fixture(scope="module")
def frame():
    data = _frame(planted=0.5, seed=4)
    data.loc[data.index[:7], "b_hat"] = np.nan  # items nobody answered are left out
    return data


def test_homogeneity_headline_matches_its_parts(frame):
    out = homogeneity_headline(frame, seed=3, n_boot=99, n_perm=99)
    assert tuple(out) == HOMOGENEITY_HEADLINE
    X, y, stem, subjects = design_arrays(frame.dropna(subset=["b_hat"]))
    fit = interaction_fit(y, X, stem)
    terms = contrast_terms(X.columns)
    for kind in ("HC3", "CR1", "CR2"):
        assert out[f"w9_{kind.lower()}"] == pytest.approx(wald_test(fit, terms, kind=kind,
                                                                    clusters=subjects)["wald"].item())
    boot = wild_cluster_bootstrap(fit, terms, clusters=subjects, seed=3, kind="CR2", n_draws=99)
    assert (out["wcb_p"], out["wcb_q95"]) == (boot.p, boot.quantile(0.95))
    block = permutation_test(y, X, stem, subjects, seed=3, scheme="block", statistic="r2_gap", n_perm=99)
    assert (out["observed_r2_gap"], out["r2_gap_block_perm_p"]) == (block.stat, block.p)
    assert 0 < out["w9_htz_p"] < 1


def test_stratified_headline_matches_its_parts(frame):
    out = stratified_headline(frame, seed=3, n_boot=99, cv_folds=5)
    assert tuple(out) == HEADLINE_KEYS
    X, y, stem, subjects = design_arrays(frame.dropna(subset=["b_hat"]))
    table = contrast_tests(interaction_fit(y, X, stem), subjects, contrast_terms(X.columns), seed=3,
                           n_boot=99)
    assert out["t_cr2_d_ner"] == table.loc["STEM:d_ner", "t_CR2"]
    assert out["holm_survivors_cr2"] == int((table["holm_CR2"] < 0.05).sum())
    assert out["logit2_ratio_ci_low"] <= out["logit2_ratio"] <= out["logit2_ratio_ci_high"]


def test_the_cv_r2_intervals_surround_the_headlines_r2(frame):
    from mmlu_audit.analyses.regression.stratified import cv_r2_intervals

    out = stratified_headline(frame, seed=3, n_boot=99, cv_folds=5)
    intervals = cv_r2_intervals(frame, seed=3, cv_folds=5, n_boot=199)
    for key in ("stem", "nonstem"):
        assert intervals[f"cv_r2_{key}"] == pytest.approx(out[f"cv_r2_{key}"])  # the same folds
        assert intervals[f"cv_r2_{key}_low"] < intervals[f"cv_r2_{key}"] < intervals[f"cv_r2_{key}_high"]
    assert intervals == cv_r2_intervals(frame, seed=3, cv_folds=5, n_boot=199)
