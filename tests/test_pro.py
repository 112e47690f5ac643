"""Library helpers of the MMLU-Pro chapters, on the staged real data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mmlu_audit.core.errors import ParameterError
from mmlu_audit.data.mmlu_pro import load_crosswalk, load_pro_items, load_pro_panel
from mmlu_audit.analyses.pro import (REDUX_GROUPS, accuracy_table, consensus_frame, flagged_questions,
                            pair_members, redux_group, sample_rows)


@pytest.fixture(scope="module")
def staged():
    items = load_pro_items()
    return items, load_pro_panel(items), load_crosswalk(items)


def test_duplicated_pairs(staged):
    items, _, crosswalk = staged
    pairs = pair_members(items, crosswalk)
    assert pairs["in_pair"].sum() == 548 and pairs["pair_second"].sum() == 274
    members = items.loc[pairs["in_pair"], ["question_id", "question"]]
    firsts = members[~pairs.loc[pairs["in_pair"], "pair_second"].to_numpy()]
    seconds = items.loc[pairs["pair_second"], ["question_id", "question"]]
    # the second member follows the first directly and repeats its stem (README)
    follows = firsts.assign(question_id=firsts["question_id"] + 1).merge(seconds, on="question_id")
    assert len(follows) == 274 and (follows["question_x"] == follows["question_y"]).all()


def test_redux_groups(staged):
    items, _, crosswalk = staged
    counts = pd.Series(redux_group(items, crosswalk)).value_counts()
    assert counts[REDUX_GROUPS[0]] == 61 and counts[REDUX_GROUPS[2]] == 2_717
    assert counts[REDUX_GROUPS[1]] == 2_915 - 2_717 - 61
    assert counts[REDUX_GROUPS[3]] == 6_810 - 2_915 and counts[REDUX_GROUPS[4]] == 4_083
    assert counts.sum() == 12_032


def test_sample_rows_is_seeded():
    first, again = sample_rows(100, 10, 7), sample_rows(100, 10, 7)
    assert first.sum() == 10 and (first == again).all() and not (first == sample_rows(100, 10, 8)).all()
    assert sample_rows(5, 10, 0).all()
    with pytest.raises(ParameterError, match="seed: a seed is required"):
        sample_rows(100, 10, None)


def test_consensus_frame_and_table(staged):
    items, panel, crosswalk = staged
    flags = consensus_frame(items, panel, crosswalk, k=10, m=6)
    assert len(flags) == 12_032 and flags["n_voters"].max() == 10
    flagged = flags[flags["flagged"]]
    assert (flagged["choice_votes"] >= 6).all() and (flagged["panel_choice"] != flagged["key"]).all()
    # option origin only for MMLU-derived questions; the experts' wrong keys point at MMLU's options
    assert (flags.loc[flags["origin"] != "ori_mmlu", "choice_origin"] == "").all()
    wrong = flagged[(flagged["group"] == REDUX_GROUPS[0]) & flagged["all_mmlu_options"]]
    assert len(wrong) > 0 and (wrong["choice_origin"] == "original").all()
    table = flagged_questions(flags, [])
    assert len(table) == len(flagged)
    assert set(table["key"]) <= set("ABCDEFGHIJ") and (table["key"] != table["panel_choice"]).all()
    assert set(table.columns) >= {"question_id", "key", "panel_choice", "choice_votes", "redux_label",
                                  "option_origin"}


def test_accuracy_table(staged):
    table = accuracy_table(staged[1])
    assert table["ours (%)"].is_monotonic_decreasing
    llama = table.loc["Meta-Llama-3-70B"]
    assert round(llama["repo-style (%)"], 2) == llama["published (%)"]
    assert np.isnan(table.loc["Yi-34B", "published (%)"])


def _homogeneity_rows(n_clusters: int, seed: int = 0) -> pd.DataFrame:
    from mmlu_audit.features import INDICATORS

    rng = np.random.default_rng(seed)
    n = 60 * n_clusters
    rows = pd.DataFrame(rng.normal(size=(n, len(INDICATORS))), columns=list(INDICATORS))
    rows["cluster"] = np.repeat(np.arange(n_clusters), 60)
    rows["stem"] = rows["cluster"] < n_clusters // 2
    rows["b_hat"] = rows[list(INDICATORS)].sum(axis=1) * 0.1 + rng.normal(size=n)
    return rows


def test_homogeneity_summary_reports_an_undefined_htz_as_nan():
    from mmlu_audit.analyses.pro import homogeneity_summary

    few = homogeneity_summary(_homogeneity_rows(10), "cluster", seed=1, n_boot=99)
    assert np.isnan(few["htz_p"]) and np.isnan(few["htz_df"])
    assert np.isfinite(few["w9_cr2"]) and 0 <= few["wcr_p"] <= 1  # the other tests still speak
    many = homogeneity_summary(_homogeneity_rows(40), "cluster", seed=1, n_boot=99)
    assert many["htz_df"] > 0 and 0 <= many["htz_p"] <= 1


def test_depth_within_category_removes_the_category_mix():
    import pandas as pd

    from mmlu_audit.analyses.pro import depth_within_category

    # a deep category full of added questions and a shallow one of kept ones: the unadjusted
    # means differ by 2.6, but inside each category added and kept questions are equally deep
    frame = pd.DataFrame({"category": ["math"] * 10 + ["law"] * 10,
                          "origin": ["stemez"] * 9 + ["ori_mmlu"] + ["stemez"] + ["ori_mmlu"] * 9,
                          "wscg_depth": [5.0] * 10 + [2.0] * 10})
    table, pooled = depth_within_category(frame)
    assert pooled == 0.0 and table["difference"].tolist() == [0.0, 0.0]
    added = frame["origin"] != "ori_mmlu"
    assert frame.loc[added, "wscg_depth"].mean() - frame.loc[~added, "wscg_depth"].mean() > 2
    frame.loc[0, "wscg_depth"] = 6.0  # one added math question one step deeper
    table, pooled = depth_within_category(frame)
    assert table.loc["math", "difference"] == pytest.approx(1 / 9)
    weights = {"math": 9 * 1 / 10, "law": 1 * 9 / 10}
    assert pooled == pytest.approx(weights["math"] * (1 / 9) / sum(weights.values()))


def test_helm_refit_refuses_an_unknown_item_set():
    from mmlu_audit.analyses.pro import helm_mmlu_difficulty
    from mmlu_audit.core.errors import ParameterError
    from mmlu_audit.irt import IRTSpec

    with pytest.raises(ParameterError, match="helm_items.*'some'"):
        helm_mmlu_difficulty(IRTSpec(), None, "some")


def test_fix_list_detectors_and_validation_by_hand():
    from mmlu_audit.analyses.pro import fix_list_detectors, fix_list_validation

    ten = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]
    items = pd.DataFrame({
        "question_id": [1, 2, 3, 4, 5],
        "question": ["Same stem?", "same  stem?", "Cut stem?", "cut stem?", "Other?"],
        "options": [ten, list(ten), ten, ten[:4], ["the red cat", "cat red the"] + ten[2:]],
    })
    items["n_options"] = items["options"].map(len)
    detectors = fix_list_detectors(items)
    assert detectors["same stem, same options (later copy)"].tolist() == [False, True, False, False, False]
    assert detectors["same stem, nested options (smaller set)"].tolist() == [False, False, False, True, False]
    assert detectors["fewer than ten options"].tolist() == [False, False, False, True, False]
    assert detectors["two options with the same content words"].tolist() == [False, False, False, False, True]
    fix_lists = pd.DataFrame({"list": ["duplicate_question_pairs", "supersets_tuples", "target_ids"],
                              "qid_first": pd.array([1, 3, None], dtype="Int64"),
                              "qid_second": pd.array([2, 4, 5], dtype="Int64")})
    table = fix_list_validation(items, fix_lists, detectors)
    dup = table.loc["listed duplicate copies"]
    counts = ["n_positive", "n_flagged", "n_hit"]
    assert dup.loc["same stem, same options (later copy)", counts].tolist() == [1, 1, 1]
    assert dup.loc["fewer than ten options", "n_hit"] == 0
    redun = table.loc["listed redundant option sets"]
    assert redun.loc["same stem, nested options (smaller set)", "recall"] == 1.0
    assert redun.loc["fewer than ten options", "precision"] == 1.0
    lists = set(table.index.get_level_values("list"))
    assert lists == {"listed duplicate copies", "listed redundant option sets"}


def test_wrong_way_frame_adds_a_model_free_check_computed_by_hand():
    from scipy import stats

    from mmlu_audit.analyses.pro import wrong_way_frame
    from mmlu_audit.irt import IRTSpec, fit_irt

    rng = np.random.default_rng(8)
    theta, b = rng.normal(size=300), rng.normal(0, 0.7, 12)
    a = np.full(12, 1.5)
    a[[2, 7]] = -1.5
    y = (rng.random((300, 12)) < 1 / (1 + np.exp(-a * (theta[:, None] - b)))).astype(np.int8)
    y[:5, 0] = -1  # unobserved cells do not count
    fit = fit_irt(y, IRTSpec(a_prior="normal", a_scale=3.0, max_steps=800), progress=False)
    table = wrong_way_frame(fit, y)
    assert np.flatnonzero(table["flagged"]).tolist() == [2, 7]
    assert table.loc[0, "n_observed"] == 295 and table.loc[3, "n_correct"] == int((y[:, 3] == 1).sum())
    seen = y[:, 0] != -1
    rest = np.delete(y, 0, axis=1)
    rest = (rest == 1).sum(1) / (rest != -1).sum(1)
    r = stats.pearsonr(y[seen, 0], rest[seen])[0]
    assert table.loc[0, "item_rest"] == pytest.approx(r)
    high = np.tanh(np.arctanh(r) + stats.norm.ppf(0.975) / np.sqrt(295 - 3))
    assert table.loc[0, "item_rest_high"] == pytest.approx(high)
    assert (table.loc[[2, 7], "item_rest_high"] < 0).all() and (table["item_rest_high"] < 0).sum() == 2
