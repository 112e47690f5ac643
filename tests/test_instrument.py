"""§3's descriptive checks of the instrument, on hand-built graphs and frames with known answers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mmlu_audit.analyses.instrument import (clamp_sensitivity, drawn_statistics, example_picks, flag_counts,
                                            length_correlations, lexicon_statistics, partition_summary,
                                            tier_usage, top_tier_coverage)
from mmlu_audit.core.errors import DataError
from mmlu_audit.features import FLAGS, TOP_TIER, WSCG, default_tiers, lexicon_table, load_lexicon


def chain(tiers, texts=None) -> WSCG:
    """A path graph whose vertices sit on ``tiers`` in order."""
    n = len(tiers)
    return WSCG(tokens=tuple(range(n)), texts=tuple(texts or [f"w{k}" for k in range(n)]), labels=("x",) * n,
                tiers=tuple(tiers), edges=tuple((k, k + 1, "dependency") for k in range(n - 1)),
                order=tuple(range(n)))


GRAPHS = [chain(["T1", "T1", "T3"]), chain(["T1"]), chain([]), chain(["T2", "T3"])]


def test_lexicon_statistics_count_the_lexicon_table():
    lexicon, tiers = load_lexicon(), default_tiers()
    out = lexicon_statistics(lexicon, tiers)
    lex = lexicon_table(lexicon)
    assert out["n_lexical_categories"] + (lex["kind"] == "symbolic").sum() == len(lex)
    assert out["n_tiers"] == len(tiers) and out["w_max"] == max(tiers.values())
    assert out["n_symbol_members"] == len(lexicon.symbolic.members)


def test_tier_usage_counts_vertices_and_items_by_hand():
    lexicon, tiers = load_lexicon(), default_tiers()
    table = tier_usage(lexicon, tiers, GRAPHS)
    assert list(table.index) == list(tiers)
    assert table.loc["T1", "vertices"] == 3 and table.loc["T1", "items with ≥ 1"] == 2
    assert table.loc["T3", "vertices"] == 2 and table.loc["T3", "items with ≥ 1"] == 2
    assert table.loc[TOP_TIER, "vertices"] == 0 and table["vertices"].sum() == 6


def test_partition_summary_by_hand():
    frame = pd.DataFrame({"partition": ["STEM", "STEM", "non-STEM", "non-STEM", "non-STEM"],
                          "x": [1.0, 3.0, 0.0, 1.0, 2.0], "y": [5.0, 5.0, 0.0, 0.0, 3.0]})
    summary, stats = partition_summary(frame, {"x": "X", "y": "Y"}, columns=["x", "y"])
    assert list(summary.index) == ["X", "Y"]
    assert summary.loc["X", "STEM mean"] == 2.0 and summary.loc["X", "non-STEM median"] == 1.0
    assert summary.loc["X", "SMD"] == pytest.approx(1.0 / np.sqrt((2.0 + 1.0) / 2))
    assert summary.loc["Y", "SMD"] == pytest.approx(4.0 / np.sqrt((0.0 + 3.0) / 2))
    assert stats == {"n_stem": 2, "n_nonstem": 3, "largest_smd_name": "Y",
                     "largest_smd": pytest.approx(summary.loc["Y", "SMD"])}
    with pytest.raises(DataError, match="missing"):
        partition_summary(frame, {}, columns=["z"])


def test_example_picks_come_from_the_clean_length_band():
    n = 200
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"n_tokens": rng.integers(10, 30, n).astype(float),
                          "wscg_depth": rng.integers(0, 20, n) / 2, "wscg_nodes": rng.integers(0, 9, n),
                          "partition": np.where(np.arange(n) % 3 == 0, "STEM", "non-STEM"),
                          **{f: False for f in ("flag_non_english", "flag_concreteness_fallback",
                                                "flag_zipf_fallback")}},
                         index=[f"i{k}" for k in range(n)])
    frame.loc["i0", "flag_non_english"] = True
    picks, stats = example_picks(frame)
    median = frame["n_tokens"].median()
    assert stats["median_tokens"] == median
    for role, item in picks.items():
        assert abs(frame.loc[item, "n_tokens"] - median) <= 0.1 * median and item != "i0", role
    assert frame.loc[picks["stem"], "partition"] == "STEM"
    band = frame[((frame["n_tokens"] - median).abs() <= 0.1 * median) & (frame.index != "i0")]
    gap = (band["wscg_depth"] - stats["depth_p99"]).abs()
    assert abs(frame.loc[picks["deep"], "wscg_depth"] - stats["depth_p99"]) == gap.min()
    with pytest.raises(DataError, match="no STEM item"):
        example_picks(frame.assign(partition="non-STEM"))


def test_drawn_statistics_follow_the_maximum_weight_path():
    tiers = default_tiers()
    drawn = {"shallow": chain(["T1"], ["a"]), "deep": chain(["T1", "T3"], ["b", "c"])}
    out = drawn_statistics({"shallow": "s", "deep": "d"}, drawn, tiers)
    assert out["deep_path"] == "b → c" and out["shallow_nodes"] == 1 and out["deep_id"] == "d"
    assert out["deep_depth"] == pytest.approx(tiers["T1"] + tiers["T3"])
    assert out["deep_vs_shallow_depth"] == pytest.approx((tiers["T1"] + tiers["T3"]) / tiers["T1"])


def test_length_correlations_are_pearson_with_intervals_around_them():
    rng = np.random.default_rng(1)
    tokens = rng.normal(20, 5, 400)
    frame = pd.DataFrame({"n_tokens": tokens, "wscg_nodes": tokens + rng.normal(0, 1, 400),
                          "wscg_depth": rng.normal(size=400), "subject": np.repeat(np.arange(40), 10)})
    out = length_correlations(frame, n_boot=200, seed=3)
    assert out["r_nodes_tokens"] == pytest.approx(np.corrcoef(frame["wscg_nodes"], tokens)[0, 1])
    assert out["r_nodes_tokens_lo"] <= out["r_nodes_tokens"] <= out["r_nodes_tokens_hi"]
    assert out["r_depth_tokens_lo"] < 0 < out["r_depth_tokens_hi"]  # no planted relation


def test_clamp_sensitivity_by_hand():
    tiers = default_tiers()
    tokens = np.array([3, 1, 0, 2])
    stats, table, default, clamped = clamp_sensitivity(GRAPHS, tiers, tokens, "T1")
    np.testing.assert_allclose(default, [2 * tiers["T1"] + tiers["T3"], tiers["T1"], 0,
                                         tiers["T2"] + tiers["T3"]])
    np.testing.assert_allclose(clamped, [tiers["T3"], 0, 0, tiers["T2"] + tiers["T3"]])
    assert stats["t1_share"] == pytest.approx(3 / 6) and stats["t1_changed"] == pytest.approx(0.5)
    assert stats["r_depth_t1zero"] == pytest.approx(np.corrcoef(clamped, tokens)[0, 1])
    assert stats["t1_retained"] == pytest.approx(stats["r_depth_t1zero"] / stats["r_depth_default"])
    assert list(table.index) == ["default", "T1 clamped to 0"]
    assert table.loc["T1 clamped to 0", "mean Depth"] == pytest.approx(clamped.mean())
    with pytest.raises(DataError, match="unknown tier"):
        clamp_sensitivity(GRAPHS, tiers, tokens, "T9")


def test_top_tier_coverage_searches_stems_and_options():
    lexicon, tiers = load_lexicon(), default_tiers()
    symbol = next(m for m, t in lexicon.symbolic.member_tiers.items() if t == TOP_TIER)
    items = pd.DataFrame({"question": [f"Compute {symbol} x", "plain", "plain"],
                          "choice_a": ["1", f"{symbol} y", "2"], "choice_b": "b", "choice_c": "c",
                          "choice_d": "d"})
    frame = pd.DataFrame({"c_bry_coverage": [0.5, 1.0, 0.0], "zipf_coverage": 1.0,
                          "flag_concreteness_fallback": [False, False, True], "flag_zipf_fallback": False,
                          "flag_non_english": False, "flag_empty_stem": False})
    out = top_tier_coverage(items, frame, GRAPHS[:3], lexicon, tiers)
    assert (out["n_top_symbol_stems"], out["n_top_symbol_items"], out["n_top_tier_items"]) == (1, 2, 0)
    assert out["c_bry_coverage"] == pytest.approx(0.5) and out["n_conc_fallback"] == 1


def test_flag_counts_by_hand():
    frame = pd.DataFrame({"partition": ["STEM", "non-STEM", "non-STEM"],
                          **{f: [True, True, False] for f in FLAGS}})
    out = flag_counts(frame)
    assert list(out.index) == list(FLAGS)
    assert (out["STEM"] == 1).all() and (out["non-STEM"] == 1).all() and (out["total"] == 2).all()
