"""Verdicts on the central claims: decision × power, replication across populations, forest rows,
and the central tests' decision rules."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from mmlu_audit.analyses.central import CLAIM_TESTS, central_tests, decide
from mmlu_audit.analyses.verdicts import (FOREST_SCALES, POWER_FLOOR, VERDICTS, agreement, claim_verdict,
                                          forest_rows, power_at, replication_table)
from mmlu_audit.core.errors import ParameterError
from mmlu_audit.core.paper import PAPER
from mmlu_audit.features import INDICATORS


@pytest.mark.parametrize("supports, power, expected", [
    (True, 0.1, "supported"), (True, None, "supported"), (False, 0.9, "not supported"),
    (False, POWER_FLOOR, "not supported"), (False, 0.49, "inconclusive"), (False, None, "inconclusive"),
    (False, float("nan"), "inconclusive"), (None, 0.9, "not testable")])
def test_verdict_reads_decision_and_power(supports, power, expected):
    assert claim_verdict(supports, power) == expected and expected in VERDICTS


def test_verdict_refuses_a_power_outside_unit_interval():
    with pytest.raises(ParameterError, match="rejection rate"):
        claim_verdict(False, 1.5)


def _result(supports: bool, **values) -> dict:
    base = {"w9_cr2": 30.0, "wcb_q95": 20.0, "d_ner_estimate": 0.2, "t_cr2_d_ner": 2.0, "d_ner_low": 0.0,
            "d_ner_high": 0.4, "logit2_ratio": 2.0, "logit2_ratio_ci_low": 1.2, "logit2_ratio_ci_high": 3.0,
            "rs_r_all": -0.3, "rs_r_low": -0.6, "rs_r_high": 0.05}
    return base | values | {"supports": supports}


def _population(supports: dict, simulated: bool = False) -> dict:
    out = {test: _result(supports.get(test, False)) for test in CLAIM_TESTS}
    return out | {"population": {"simulated": simulated, "n_models": 10}}


def test_replication_table_and_agreement():
    results = {"A": _population({"homogeneity": True, "d_ner": True}),
               "B": _population({"homogeneity": True}), "C": _population({})}
    table = replication_table(results)
    assert list(table.index) == list(CLAIM_TESTS) and list(table.columns) == ["A", "B", "C"]
    assert table.loc["homogeneity"].tolist() == ["yes", "yes", "no"]
    assert agreement(table, "homogeneity", ["A", "B"]) == {"agree": True, "supporting": ["A", "B"],
                                                           "not_supporting": []}
    found = agreement(table, "d_ner")
    assert not found["agree"] and found["supporting"] == ["A"] and found["not_supporting"] == ["B", "C"]
    assert agreement(table, "stem_r2")["agree"]  # all three say no
    with pytest.raises(ParameterError):
        replication_table({})


def test_forest_rows_put_each_test_on_its_scale():
    rows = forest_rows({"pool": _population({}), "sim": _population({}, simulated=True)})
    assert set(rows["kind"]) == {"paper", "real", "simulated"} and len(rows) == 3 * len(CLAIM_TESTS)
    paper = rows[rows["who"] == "paper"].set_index("claim")
    assert paper.loc["homogeneity", "estimate"] == pytest.approx(PAPER["w9_cr2"][0] / PAPER["wcb_q95"][0])
    assert paper.loc["stem_r2", "low"] == PAPER["logit2_ratio_ci_low"][0]
    pool = rows[rows["who"] == "pool"].set_index("claim")
    assert pool.loc["homogeneity", "estimate"] == pytest.approx(1.5)
    assert np.isnan(pool.loc["homogeneity", "low"])
    # the contrast's CR2 interval, divided by its SE (0.1): t ± 2
    assert (pool.loc["d_ner", "low"], pool.loc["d_ner", "high"]) == pytest.approx((0.0, 4.0))
    assert (rows.groupby("claim")["reference"].nunique() == 1).all()
    assert set(FOREST_SCALES) == set(CLAIM_TESTS)


def test_power_at_reads_power_and_size():
    rates = pd.DataFrame({"design": ["pool"] * 3, "world": ["paper", "null", "paper"],
                          "test": ["d_ner", "d_ner", "stem_r2"], "rate": [0.8, 0.04, 0.3],
                          "mc_se": [0.02, 0.01, 0.03], "n_seeds": [300, 250, 300]})
    assert power_at(rates, "pool", "d_ner") == {"power": 0.8, "power_se": 0.02, "size": 0.04, "size_se": 0.01,
                                                "n_seeds": 250}
    missing = power_at(rates, "pool", "stem_r2")
    assert missing["power"] == 0.3 and np.isnan(missing["size"]) and missing["n_seeds"] == 0
    with pytest.raises(ParameterError, match="2 rows"):
        power_at(pd.concat([rates, rates]), "pool", "d_ner")


def test_decision_rules():
    assert decide("homogeneity", {"w9_htz_p": 0.01, "wcb_p": 0.04})
    assert not decide("homogeneity", {"w9_htz_p": 0.01, "wcb_p": 0.06})
    assert not decide("d_ner", {"holm_p_cr2_d_ner": 0.01, "boot_holm_p_d_ner": 0.2})
    assert decide("stem_r2", {"cv_r2_stem": 0.1, "cv_r2_nonstem": 0.05, "logit2_ratio_ci_low": 1.01})
    assert not decide("stem_r2", {"cv_r2_stem": 0.1, "cv_r2_nonstem": 0.05, "logit2_ratio_ci_low": 0.99})
    assert decide("guessing_floor", {"rs_r_all": -0.2, "null_share_all": 0.8})
    assert not decide("guessing_floor", {"rs_r_all": 0.2, "null_share_all": 0.8})
    with pytest.raises(ParameterError):
        decide("nope", {})


def _frame(planted: float, seed: int) -> pd.DataFrame:
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

    frame = _frame(planted=1.5, seed=1)
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


def test_central_tests_need_two_subjects_per_partition():
    frame = _frame(planted=0.0, seed=2)
    frame["stem"] = frame["subject"] == "s0"
    with pytest.raises(ParameterError, match="two subjects"):
        central_tests(frame, seed=0, n_boot=99, cv_folds=5)
