"""The model-consensus rule on a hand-made vote table, and its summaries."""

from __future__ import annotations

import numpy as np
import pytest

from mmlu_audit import DataError
from mmlu_audit.core.errors import ParameterError
from mmlu_audit.analyses.consensus import (consensus_flags, flag_rates, option_origin, panel_models,
                                  precision_recall, threshold_curve, vote_counts, wilson_interval)

# 5 models (rows) × 6 questions (columns); the key of every question is option 0.
# Model accuracies rank them 1 > 0 > 3 > 2 > 4, so with k = 4 model 4 is left out.
PRED = np.array([
    # q0  q1  q2  q3  q4  q5
    [2,   0,  2,  3,  1, -2],   # model 0
    [2,   1,  2,  3,  1,  5],   # model 1
    [2,   1,  0, -1,  2,  5],   # model 2
    [2,   0,  0,  3,  2,  5],   # model 3
    [0,   1,  1,  0,  1,  0],   # model 4 (weakest, outside a k = 4 panel)
])
KEY = np.zeros(6, dtype=int)
ACCURACY = np.array([0.8, 0.9, 0.6, 0.7, 0.5])


def test_panel_is_the_k_most_accurate():
    assert panel_models(ACCURACY, 4).tolist() == [1, 0, 3, 2]
    assert panel_models([0.5, np.nan, 0.5], 2).tolist() == [0, 2]  # NaN last, ties in order


def test_vote_counts_skip_non_votes():
    counts = vote_counts(PRED[:4])
    assert counts[:, 0].tolist() == [0, 2, 2, 0, 0, 0]
    assert counts[5].sum() == 3 and counts[3].sum() == 3  # -2 and -1 are not votes


def test_rule_on_hand_table():
    flags = consensus_flags(PRED, KEY, ACCURACY, k=4, m=3)
    # q0: 4 votes on option 2, none on the key → flagged
    # q1: 2 on the key, 2 on option 1 → not more than the key
    # q2: 2 on option 2, 2 on the key → below m and not more than the key
    # q3: 3 on option 3 (one model has no record) → flagged
    # q4: 2 on option 1, 2 on option 2 → tie goes to the lower option, 2 < m
    # q5: 3 on option 5, model 0 gave no answer → flagged
    assert flags["flagged"].tolist() == [True, False, False, True, False, True]
    assert flags["panel_choice"].tolist() == [2, 1, 2, 3, 1, 5]
    assert flags["choice_votes"].tolist() == [4, 2, 2, 3, 2, 3]
    assert flags["key_votes"].tolist() == [0, 2, 2, 0, 0, 0]
    assert flags["n_voters"].tolist() == [4, 4, 4, 3, 4, 3]


def test_both_conditions_matter():
    # m = 2: q1 and q2 have 2 votes on one option but as many on the key, so they stay
    # unflagged;
    # q4 has 2 on option 1 and none on the key, so it is flagged.
    flags = consensus_flags(PRED, KEY, ACCURACY, k=4, m=2)["flagged"].tolist()
    assert flags == [True, False, False, True, True, True]
    # with the whole panel the weakest model adds a key vote to q3 and q5: still more on 3 / 5
    full = consensus_flags(PRED, KEY, ACCURACY, k=5, m=4)["flagged"].tolist()
    assert full == [True, False, False, False, False, False]


def test_letters_past_the_last_option_are_not_votes():
    # q0 has only 2 options here: the 4 votes on "option 2" are answers it does not have
    flags = consensus_flags(PRED, KEY, ACCURACY, k=4, m=3, n_options=[2, 4, 4, 4, 4, 10])
    assert flags.loc[0, "flagged"] == False and flags.loc[0, "n_voters"] == 0  # noqa: E712
    assert flags["flagged"].tolist()[1:] == [False, False, True, False, True]


def test_no_vote_questions():
    flags = consensus_flags(np.full((3, 2), -1), np.array([0, 1]), [0.1, 0.2, 0.3], k=3, m=1)
    assert flags["panel_choice"].tolist() == [-1, -1] and not flags["flagged"].any()


@pytest.mark.parametrize("kwargs, message", [
    ({"k": 6, "m": 3}, "only 5 models"),
    ({"k": 3, "m": 4}, "m = 4 votes cannot come from k = 3"),
    ({"k": 0, "m": 1}, "k: must be a positive integer"),
    ({"k": 3, "m": 1.5}, "m: must be a positive integer"),
])
def test_bad_parameters(kwargs, message):
    with pytest.raises(ParameterError, match=message):
        consensus_flags(PRED, KEY, ACCURACY, **kwargs)


def test_bad_key():
    with pytest.raises(DataError, match="one key per question"):
        consensus_flags(PRED, KEY[:3], ACCURACY, k=4, m=3)


def test_threshold_curve_and_rates():
    groups = {"even": np.arange(6) % 2 == 0}
    curve = threshold_curve(PRED, KEY, ACCURACY, ks=[4, 5], ms=[2, 3, 4, 5], groups=groups)
    assert curve[["k", "m"]].values.tolist() == [[4, 2], [4, 3], [4, 4], [5, 2], [5, 3], [5, 4], [5, 5]]
    row = curve.set_index(["k", "m"]).loc[(4, 3)]
    assert row["n_flagged"] == 3 and row["flagged_even"] == 1
    assert curve.groupby("k")["n_flagged"].apply(lambda s: s.is_monotonic_decreasing).all()
    rates = flag_rates([True, False, True, False], {"all": [1, 1, 1, 1], "first": [1, 0, 0, 0],
                                                    "none": [0, 0, 0, 0]})
    assert rates["rate"].tolist()[:2] == [0.5, 1.0] and np.isnan(rates.loc["none", "rate"])


def test_precision_recall():
    flagged = np.array([1, 1, 0, 1, 0, 1], bool)
    truth = np.array([1, 0, 1, 0, 0, 0], bool)
    reviewed = np.array([1, 1, 1, 1, 1, 0], bool)  # the last flag is outside the review
    pr = precision_recall(flagged, truth, reviewed)
    assert (pr["n_flagged"], pr["n_hit"], pr["n_positive"]) == (3, 1, 2)
    assert pr["precision"] == pytest.approx(1 / 3) and pr["recall"] == pytest.approx(0.5)
    assert pr["rate_ratio"] == pytest.approx(0.5 / (2 / 3))
    # the recall's interval is the Wilson interval of the flag rate on the positives
    assert (pr["recall_low"], pr["recall_high"]) == wilson_interval(1, 2)
    with pytest.raises(DataError, match="did not review"):
        precision_recall(flagged, truth, ~reviewed)


def test_option_origin():
    out = option_origin([3, 7, -1, 2], [[0, 1, 2, 3], [0, 1, 2, 3], [0, 1, 2, 3], [-1, 2, 5, 6]])
    assert out.tolist() == ["original", "added", "", "original"]


def test_exact_validation_against_hand_and_scipy():
    from scipy.stats import binomtest, fisher_exact

    from mmlu_audit.analyses.consensus import exact_validation

    # 10 questions in the set, 4 positives; flags hit 3 of them and 1 negative; 1 outside
    flagged = np.array([1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 1], bool)
    truth = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0], bool)
    within = np.array([1] * 10 + [0], bool)
    out = exact_validation(flagged, truth, within)
    assert (out["n"], out["n_positive"], out["n_flagged"], out["n_hit"]) == (10, 4, 4, 3)
    assert out["recall"] == 0.75 and out["precision"] == 0.75
    ci = binomtest(3, 4).proportion_ci(method="exact")
    assert (out["recall_low"], out["recall_high"]) == pytest.approx((ci.low, ci.high))
    assert out["p"] == pytest.approx(fisher_exact([[3, 1], [1, 5]])[1])
    assert out["odds_ratio_low"] < out["odds_ratio"] < out["odds_ratio_high"]
    none = exact_validation(np.zeros(11, bool), truth, within)
    assert none["recall"] == 0 and none["recall_low"] == 0 and np.isnan(none["precision"])
    with pytest.raises(DataError, match="a positive lies outside"):
        exact_validation(flagged, truth, np.zeros(11, bool))


def test_flag_rates_carry_wilson_intervals():
    from statsmodels.stats.proportion import proportion_confint

    flagged = np.array([True] * 29 + [False] * 32)
    rates = flag_rates(flagged, {"wrong key": np.ones(61, bool), "none": np.zeros(61, bool)})
    row = rates.loc["wrong key"]
    assert row["rate"] == pytest.approx(29 / 61)
    assert (row["low"], row["high"]) == pytest.approx(proportion_confint(29, 61, method="wilson"))
    assert row["low"] == pytest.approx(0.3553, abs=1e-4) and row["high"] == pytest.approx(0.5984, abs=1e-4)
    assert np.isnan(rates.loc["none", "low"])


def test_validation_table_rows_are_exact_validation_and_combine_by_hand():
    from mmlu_audit.analyses.consensus import exact_validation, validation_table

    first = np.array([1, 1, 0, 0, 1, 0, 0, 0], bool)
    second = np.array([1, 0, 1, 0, 0, 0, 1, 0], bool)
    truth = np.array([1, 1, 1, 0, 0, 0, 0, 0], bool)
    within = np.ones(8, bool)
    table = validation_table({"one": first, "two": second}, truth, within, combine=True)
    assert table.index.tolist() == ["one", "two", "both", "either"]
    assert table.loc["one"].to_dict() == pytest.approx(exact_validation(first, truth, within), nan_ok=True)
    # by hand: both = item 0 only (a hit); either = items 0, 1, 2, 4, 6 (three hits of five)
    assert table.loc["both", ["n_flagged", "n_hit"]].tolist() == [1, 1]
    assert table.loc["either", ["n_flagged", "n_hit", "recall", "precision"]].tolist() == [5, 3, 1.0, 0.6]
    assert table["n_hit"].dtype.kind == "i"
    with pytest.raises(ParameterError, match="exactly two"):
        validation_table({"one": first}, truth, within, combine=True)
    with pytest.raises(ParameterError, match="at least one"):
        validation_table({}, truth, within)
