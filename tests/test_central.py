"""The central tests (analyses.central): decision rules the power study reads, and the estimands §6 reads."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from mmlu_audit.analyses.central import central_tests, decide, floor_min_replicates
from mmlu_audit.analyses.replication import RESULT_KEYS
from mmlu_audit.core.errors import ParameterError
from mmlu_audit.features import INDICATORS


def test_decision_rules():
    assert decide("homogeneity", {"w9_htz_p": 0.01, "wcb_p": 0.04})
    assert not decide("homogeneity", {"w9_htz_p": 0.01, "wcb_p": 0.06})
    assert not decide("d_ner", {"holm_p_cr2_d_ner": 0.01, "boot_holm_p_d_ner": 0.2})
    assert decide("stem_r2", {"cv_r2_stem": 0.1, "cv_r2_nonstem": 0.05, "logit2_ratio_ci_low": 1.01})
    assert not decide("stem_r2", {"cv_r2_stem": 0.1, "cv_r2_nonstem": 0.05, "logit2_ratio_ci_low": 0.99})
    assert decide("guessing_floor", {"null_tail_p_all": 0.05, "null_share_all": 0.1})  # the share is not read
    assert not decide("guessing_floor", {"null_tail_p_all": 0.049, "null_share_all": 1.2})
    assert not decide("guessing_floor", {"null_tail_p_all": float("nan")})
    with pytest.raises(ParameterError):
        decide("nope", {})


def test_floor_min_replicates_is_the_fewest_that_can_reject():
    for alpha in (0.05, 0.03, 0.1):
        fewest = floor_min_replicates(alpha)
        assert 2 / (fewest + 1) < alpha <= 2 / fewest  # the smallest tail probability, with one fewer
    with pytest.raises(ParameterError):
        floor_min_replicates(1.5)


def frame_with_contrast(planted: float, seed: int) -> pd.DataFrame:
    """Items in 20 subjects (8 STEM) whose b depends on the indicators, with a planted STEM × d_ner."""
    rng = np.random.default_rng(seed)
    subjects = np.repeat(np.arange(20), 60)
    stem = subjects < 8
    X = pd.DataFrame(rng.normal(size=(subjects.size, len(INDICATORS))), columns=list(INDICATORS))
    b = 0.3 * X.sum(axis=1) + planted * stem * X["d_ner"] + rng.normal(0, 0.4, 20)[subjects] \
        + rng.normal(0, 1, subjects.size)
    return X.assign(b_hat=b, stem=stem, subject=[f"s{k}" for k in subjects])


def test_central_tests_detect_a_large_planted_contrast_and_match_the_wald_test():
    from mmlu_audit.analyses.regression import contrast_terms, design_arrays, interaction_fit
    from mmlu_audit.inference import wald_test

    frame = frame_with_contrast(planted=1.5, seed=1)
    out = central_tests(frame, seed=0, n_boot=199, cv_folds=5)
    assert out["d_ner"]["supports"] and out["homogeneity"]["supports"]
    X, y, stem, subjects = design_arrays(frame)
    fit = interaction_fit(y, X, stem)
    reference = wald_test(fit, contrast_terms(X.columns), kind="CR2", clusters=subjects)["wald"].item()
    assert out["homogeneity"]["w9_cr2"] == pytest.approx(reference)
    d = out["d_ner"]
    crit = stats.t.ppf(0.975, 1e9)  # the interval is wider than a normal one: Bell–McCaffrey df are small
    assert d["d_ner_high"] - d["d_ner_estimate"] > crit * d["d_ner_estimate"] / d["t_cr2_d_ner"]
    assert all(out[t]["n_items"] == len(frame) for t in ("homogeneity", "d_ner", "stem_r2"))


def test_every_item_side_estimand_is_returned_with_an_interval_holding_it():
    out = central_tests(frame_with_contrast(planted=1.5, seed=3), seed=0, n_boot=199, cv_folds=5)
    for key, (test, estimate, low, high) in RESULT_KEYS.items():
        if test == "guessing_floor":
            continue
        assert out[test][low] <= out[test][estimate] <= out[test][high], key
    # a planted contrast of 1.5 logits/SD: its interval excludes 0, and the interactions add variance
    assert out["d_ner"]["d_ner_low"] > 0 and out["homogeneity"]["interaction_share_low"] > 0


def test_central_tests_need_two_subjects_per_partition():
    frame = frame_with_contrast(planted=0.0, seed=2)
    frame["stem"] = frame["subject"] == "s0"
    with pytest.raises(ParameterError, match="two subjects"):
        central_tests(frame, seed=0, n_boot=99, cv_folds=5)
