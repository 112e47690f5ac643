"""The replication rules (analyses.replication): outcome classes, criteria, meta-analysis, estimands."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from mmlu_audit.analyses.replication import (COMBINED, ESTIMANDS, OUTCOMES, calibration_table, claim_outcomes,
                                             classify, combined_rows, judge, meta_analysis, outcome_rows,
                                             power_to_detect, prediction_interval, small_telescopes)
from mmlu_audit.core.errors import ParameterError
from mmlu_audit.inference import interaction_share


@pytest.mark.parametrize(("estimate", "low", "high", "paper", "expected"), [
    (0.14, 0.06, 0.22, 0.14, "replicated"),
    (0.50, 0.40, 0.60, 0.14, "inconsistent (larger)"),
    (0.05, 0.02, 0.08, 0.14, "inconsistent (smaller)"),
    (-0.20, -0.30, -0.10, 0.14, "inconsistent (opposite sign)"),
    (0.04, -0.10, 0.18, 0.14, "inconclusive"),
    (0.00, -0.05, 0.05, 0.14, "not replicated"),
    (math.nan, -0.05, 0.05, 0.14, "not estimable"),
])
def test_classify_plants_every_outcome(estimate, low, high, paper, expected):
    assert classify(estimate, low, high, paper) == expected


def test_classify_reads_a_ratio_against_one_on_the_log_scale():
    assert classify(2.1, 0.7, 9.4, 2.46, null=1.0, scale="log") == "inconclusive"
    assert classify(1.3, 1.1, 1.5, 2.46, null=1.0, scale="log") == "inconsistent (smaller)"
    assert classify(0.5, 0.4, 0.6, 2.46, null=1.0, scale="log") == "inconsistent (opposite sign)"
    # a negative paper estimate: "larger" means further below zero
    assert classify(-0.95, -0.99, -0.90, -0.772, scale="fisher") == "inconsistent (larger)"


def test_classify_refuses_a_reversed_interval():
    with pytest.raises(ParameterError, match="interval"):
        classify(0.1, 0.3, 0.2, 0.1)


def test_outcomes_cover_the_replication_words_and_no_old_verdicts():
    assert {"replicated", "inconclusive", "not replicated"} <= set(OUTCOMES)
    assert not any("supported" in word for word in OUTCOMES)


def test_the_glossary_block_defines_every_outcome_word_once():
    from mmlu_audit.analyses.replication import OUTCOME_MEANINGS, outcome_glossary

    text = outcome_glossary()
    assert text.startswith("```{glossary}\n") and text.endswith("```\n")
    terms = [line for line in text.splitlines()[1:-1] if line and not line.startswith(" ")]
    assert terms == list(OUTCOMES) and set(OUTCOME_MEANINGS) == set(OUTCOMES)


def test_prediction_interval_is_the_patil_formula():
    low, high = prediction_interval(0.14, 0.04, 0.03)
    assert (low, high) == pytest.approx((0.14 - 1.959964 * 0.05, 0.14 + 1.959964 * 0.05), abs=1e-6)
    assert all(math.isnan(v) for v in prediction_interval(0.14, math.nan, 0.03))


def test_small_telescopes_d33_is_where_the_original_had_a_third_power():
    out = small_telescopes(0.0, 0.02, 0.14, 0.041)
    d33_in_se = out["d33"] / 0.041
    assert power_to_detect(d33_in_se, 1.0) == pytest.approx(0.33, abs=1e-6)
    assert out["smaller"] is True  # 0 ± 0.02 lies well below d33 ≈ 0.062
    assert small_telescopes(0.14, 0.02, 0.14, 0.041)["smaller"] is False


def test_power_to_detect_at_2_8_standard_errors_is_about_0_8():
    assert power_to_detect(2.8, 1.0) == pytest.approx(0.80, abs=0.005)
    assert math.isnan(power_to_detect(0.14, math.nan))


def test_the_papers_own_numbers_pass_the_rule_where_it_gives_an_interval():
    table = calibration_table().set_index("estimand")
    for key, estimand in ESTIMANDS.items():
        expected = "not estimable" if math.isnan(estimand.paper_se) else "replicated"
        assert table.loc[key, "outcome"] == expected, key
    assert table.loc["interaction_share", "outcome"] == "not estimable"


def test_paper_standard_errors_follow_from_the_quoted_t():
    assert ESTIMANDS["d_ner_contrast"].paper == pytest.approx(0.1398 / 2.24)  # per SD of the paper's b
    assert ESTIMANDS["d_ner_contrast"].paper_se == pytest.approx(0.1398 / 2.24 / 3.41)
    low, high = ESTIMANDS["logit2_ratio"].paper_interval
    assert (low, high) == pytest.approx((1.80, 3.36), abs=1e-9)


# BCG vaccine trials (Colditz et al., 1994), the worked example of metafor's rma(): log risk ratios
# of 13 trials, DerSimonian–Laird: estimate −0.7141, SE 0.1787, τ² 0.3088, I² 92.22 %, Q(12) 152.2330.
_BCG = [(4, 119, 11, 128), (6, 300, 29, 274), (3, 228, 11, 209), (62, 13536, 248, 12619),
        (33, 5036, 47, 5761), (180, 1361, 372, 1079), (8, 2537, 10, 619), (505, 87886, 499, 87892),
        (29, 7470, 45, 7232), (17, 1699, 65, 1600), (186, 50448, 141, 27197), (5, 2493, 3, 2338),
        (27, 16886, 29, 17825)]


def _bcg():
    t = np.array(_BCG, float)
    tpos, tneg, cpos, cneg = t.T
    yi = np.log((tpos / (tpos + tneg)) / (cpos / (cpos + cneg)))
    vi = 1 / tpos - 1 / (tpos + tneg) + 1 / cpos - 1 / (cpos + cneg)
    return yi, np.sqrt(vi)


def test_meta_analysis_reproduces_the_bcg_worked_example():
    yi, se = _bcg()
    out = meta_analysis(yi, se)
    assert out["random"] == pytest.approx(-0.7141, abs=1e-4)
    assert (out["random_high"] - out["random_low"]) / (2 * 1.959964) == pytest.approx(0.1787, abs=1e-4)
    assert out["tau2"] == pytest.approx(0.3088, abs=1e-4)
    assert out["q"] == pytest.approx(152.2330, abs=1e-3)
    # metafor prints I² = 92.22 % from τ² and a "typical" within-trial variance; this is Higgins and
    # Thompson's (Q − df) / Q of the same Q, 140.233 / 152.233
    assert out["i2"] == pytest.approx((152.2330 - 12) / 152.2330, abs=1e-5)
    assert out["k"] == 13


def test_meta_analysis_hksj_interval_is_the_weighted_residual_formula():
    y, se = np.array([0.1, 0.3, 0.35]), np.sqrt([0.01, 0.02, 0.04])
    out = meta_analysis(y, se)
    w = 1 / (se ** 2 + out["tau2"])
    mu = np.sum(w * y) / w.sum()
    q = np.sum(w * (y - mu) ** 2) / (len(y) - 1)
    half = stats.t.ppf(0.975, 2) * np.sqrt(max(1.0, q) / w.sum())
    assert (out["hksj_low"], out["hksj_high"]) == pytest.approx((mu - half, mu + half))
    # hand-computed DerSimonian–Laird: Q = 2.05357, C = 175 − 13125/175 = 100, τ² = (Q − 2)/C
    assert out["q"] == pytest.approx(2.0535714, abs=1e-6)
    assert out["tau2"] == pytest.approx(0.0535714 / 100, abs=1e-9)


def test_hksj_interval_never_collapses_when_two_populations_agree():
    out = meta_analysis([0.2, 0.2], [0.05, 0.05])
    assert out["hksj_high"] - out["hksj_low"] >= out["random_high"] - out["random_low"]


def test_meta_analysis_truncates_a_negative_tau2_at_zero():
    out = meta_analysis([0.10, 0.11, 0.09], [0.1, 0.1, 0.1])  # Q far below its df
    assert out["tau2"] == 0.0 and out["i2"] == 0.0
    assert out["random"] == pytest.approx(out["fixed"])
    assert out["hksj_low"] < out["random"] < out["hksj_high"]


def test_meta_analysis_on_the_log_scale_returns_ratios():
    out = meta_analysis([2.0, 2.0], [0.1, 0.1], scale="log")
    assert out["fixed"] == pytest.approx(2.0)
    assert out["fixed_low"] < 2.0 < out["fixed_high"]


def test_meta_analysis_refuses_one_study_and_bad_errors():
    with pytest.raises(ParameterError, match="at least two"):
        meta_analysis([0.1, math.nan], [0.1, 0.1], labels=["a", "b"])
    with pytest.raises(ParameterError, match="positive"):
        meta_analysis([0.1, 0.2], [0.1, 0.0])


def _result(shift: float, n_models: int = 10) -> dict:
    """A population_tests-shaped result whose every estimand sits at the paper's value + shift."""
    out = {test: {} for test in ("homogeneity", "d_ner", "stem_r2", "guessing_floor")}
    for key, (test, est, low, high) in {
            "interaction_share": ("homogeneity", "interaction_share", "interaction_share_low",
                                  "interaction_share_high"),
            "d_mdd_contrast": ("d_ner", "d_mdd_per_sd", "d_mdd_per_sd_low", "d_mdd_per_sd_high"),
            "d_ner_contrast": ("d_ner", "d_ner_per_sd", "d_ner_per_sd_low", "d_ner_per_sd_high"),
            "logit2_ratio": ("stem_r2", "logit2_ratio", "logit2_ratio_ci_low", "logit2_ratio_ci_high"),
            "rs_r_all": ("guessing_floor", "rs_r_all", "rs_r_low", "rs_r_high")}.items():
        centre = ESTIMANDS[key].paper + shift
        out[test] |= {est: centre, low: centre - 0.05, high: centre + 0.05}
    return out | {"population": {"n_models": n_models}}


def test_combined_rows_meta_analyse_the_named_populations_only():
    outcomes = pd.concat([outcome_rows("a", _result(0.0)), outcome_rows("b", _result(0.01)),
                          outcome_rows("nested", _result(5.0)), outcome_rows("one model", None, "one model")])
    combined = combined_rows(outcomes, ["a", "b", "one model"]).set_index("estimand")
    assert (combined["k"] == 2).all()
    expected = ESTIMANDS["d_ner_contrast"].paper + 0.005
    assert combined.loc["d_ner_contrast", "estimate"] == pytest.approx(expected)
    assert (outcomes[outcomes["population"] == "one model"]["outcome"] == "not estimable").all()
    claims = claim_outcomes(pd.concat([outcomes, combined.reset_index()]), COMBINED)
    assert set(claims.index) == {"homogeneity", "d_ner", "stem_r2", "guessing_floor"}


def claims_json() -> str:
    """The ``claims_json`` the real-verdicts chapter glues, for two synthetic populations."""
    outcomes = pd.concat([outcome_rows("a", _result(0.0)), outcome_rows("b", _result(0.01))])
    table = pd.concat([outcomes, combined_rows(outcomes, ["a", "b"])])
    return claim_outcomes(table, COMBINED).reset_index().to_json(orient="records")


def test_judge_reports_a_missing_interval_as_not_estimable():
    out = judge("d_ner_contrast", math.nan, math.nan, math.nan)
    assert out["outcome"] == "not estimable" and out["in_pi"] is None and math.isnan(out["power"])


def _interaction_world(seed: int, extra: float):
    rng = np.random.default_rng(seed)
    subjects = np.repeat(np.arange(40), 150)
    stem = subjects < 15
    X = rng.normal(size=(subjects.size, 3))
    y = X @ np.array([0.3, 0.1, 0.0]) + extra * stem * X[:, 0] + rng.normal(size=subjects.size)
    return y, X, stem, subjects


def test_interaction_share_is_near_zero_under_equal_slopes_and_recovers_a_planted_one():
    hits = 0
    for seed in range(20):
        out = interaction_share(*_interaction_world(seed, 0.0), seed=seed, n_boot=199)
        hits += out["low"] <= 0.0 <= out["high"]
        assert abs(out["estimate"]) < 0.004
    assert hits >= 16  # 95 % intervals over 20 null worlds
    # STEM rows (15 of 40 subjects) get an extra slope 0.5 on one unit-variance predictor: the
    # interaction adds 0.5² · P(STEM)·P(non-STEM) of variance, over a residual variance of 1
    planted = 0.25 * (15 / 40) * (25 / 40)
    out = interaction_share(*_interaction_world(99, 0.5), seed=1, n_boot=199)
    assert out["estimate"] == pytest.approx(planted, rel=0.25)
    assert out["low"] < planted < out["high"]
