"""The IRT benchmark's engines side by side: ratios, r and verdicts read from a planted record."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest

from mmlu_audit.book.peers import (GIRTH_A_BOUNDS, engine_figure, engine_table, fit_load_text,
                                   girth_a_at_bound, peer_ratios, peer_verdict_text, real_text)

matplotlib.use("Agg")


def fit(wall_s, r, r_a, steps=125, **extra):
    return {"wall_s": wall_s, "r": r, "r_a": r_a, "steps": steps, "per_step_ms": 1000 * wall_s / steps,
            "peak_rss_mb": 800.0, **extra}


def record(pyirt_r=0.9853, numpyro_r=0.9893, girth_capped=True):
    """Two seeds: ours 10 s; py-irt 40× and 50× our time; numpyro 4× at equal steps; girth on seed 0."""
    runs = []
    for seed, speedup in ((0, 40.0), (1, 50.0)):
        trace = [{"step": 25, "train_s": 100.0, "r": 0.95},
                 {"step": 50, "train_s": 10 * speedup - 1, "r": pyirt_r}]
        runs.append({"world": {"world_seed": seed, "n_models": 1000, "n_items": 14042, "b_sd": 2.24},
                     "ours_bench": fit(10.0, 0.9893, 0.930),
                     "ours_numpyro": fit(40.0, numpyro_r, 0.930),
                     "pyirt_best": fit(10 * speedup, pyirt_r, 0.910, steps=700, reached=pyirt_r >= 0.985,
                                       setup_s=1.0, trace=trace)})
    compared = {"b: girth ~ ours": {"pearson": 0.99, "spearman": 0.99},
                "b: girth ~ truth": {"pearson": 0.9800, "spearman": 0.98},
                "a: girth ~ truth": {"pearson": 0.900, "spearman": 0.9},
                "b: ours ~ truth": {"pearson": 0.9890, "spearman": 0.99},
                "a: ours ~ truth": {"pearson": 0.931, "spearman": 0.93}}
    full = ({"hit_cap": True, "cap_s": 600.0} if girth_capped
            else {"hit_cap": False, "wall_s": 1500.0, "peak_rss_mb": 400.0})
    runs[0]["girth"] = {"full": full, "compared": compared}
    if girth_capped:
        runs[0]["girth"]["subset"] = {"hit_cap": False, "wall_s": 200.0, "n_items": 2000,
                                      "peak_rss_mb": 180.0}
    return {"runs": runs, "targets": {"r": 0.985}, "quick": False}


def test_engine_table_has_every_fit_of_every_seed_and_girths_cap():
    table = engine_table(record())
    assert table.loc[(0, "py-irt best (hierarchical)"), "wall (s)"] == 400.0
    assert table.loc[(1, "engine='numpyro', same steps"), "r(â, a)"] == 0.930
    capped = table.loc[(0, "girth MML, full matrix")]
    assert np.isnan(capped["wall (s)"]) and np.isnan(capped["r(b̂, b)"])
    assert capped["hit time cap (s)"] == 600.0
    subset = table.loc[(0, "girth MML, 2,000-column subset")]
    assert subset["items fitted"] == 2000 and subset["r(b̂, b)"] == 0.98
    assert subset["ours r(â, a), same columns"] == 0.931
    assert (1, "girth MML, full matrix") not in table.index


def test_peer_ratios_divide_each_peer_by_our_time_in_the_same_run():
    ratios = peer_ratios(record())
    assert [row["ratio"] for row in ratios["pyirt"]] == pytest.approx([40.0, 50.0])
    assert [row["ratio"] for row in ratios["numpyro"]] == pytest.approx([4.0, 4.0])
    girth = ratios["girth"][0]
    assert girth["hit_cap"] and girth["ratio"] == pytest.approx(60.0)  # the cap: a lower bound
    assert girth["subset_ratio"] == pytest.approx(20.0) and girth["girth_a_cols"] == 0.900
    finished = peer_ratios(record(girth_capped=False))["girth"][0]
    assert not finished["hit_cap"] and finished["ratio"] == pytest.approx(150.0)
    assert "subset_ratio" not in finished


def test_peer_verdict_text_states_ratios_and_which_r_is_better():
    text = peer_verdict_text(record())
    assert "took 40–50× our wall time (2 of 2 seeds reaching the target r" in text
    assert "ours higher / higher, higher / higher (b / a, by seed)" in text
    assert "took 4.0× our wall time" in text and "the same r to within 0.001" in text
    assert "cap of 600 s (≥ 60.0× our wall time)" in text and "took 200 s (20× our whole-matrix fit)" in text
    worse = peer_verdict_text(record(pyirt_r=0.9950, numpyro_r=0.9800))
    assert "ours **lower** / higher" in worse and "0 of 2 seeds" not in worse
    assert "r differs by up to 0.0093" in worse


def test_girth_capped_twice_is_said_without_a_recovery_figure():
    result = record()
    result["runs"][0]["girth"] = {"full": {"hit_cap": True, "cap_s": 600.0},
                                  "subset": {"hit_cap": True, "cap_s": 600.0, "n_items": 2000}}
    text = peer_verdict_text(result)
    assert "cap of 600 s (≥ 60.0× our wall time), nor 2,000 random columns of it within the same cap" in text
    assert "nan" not in text
    assert peer_ratios(result)["girth"][0]["subset_hit_cap"]
    names = [text.get_text() for text in engine_figure(result).axes[1].get_legend().get_texts()]
    assert not any("girth" in name for name in names)  # nothing of girth's to draw


def test_peer_verdict_text_without_peers_says_so():
    bare = {"runs": [{"world": {"world_seed": 0, "n_items": 10}, "ours_bench": fit(1.0, 0.99, 0.9)}]}
    assert peer_verdict_text(bare) == "*No peer ran in this result.*"


def test_real_text_reads_times_and_agreements():
    real = {"world": {"reference_negative_a": 5}, "ours_bench": fit(8.0, None, None, steps=375),
            "ours_vs_mirt": {"b: ours ~ mirt": {"pearson": 0.33, "spearman": 0.71},
                             "a: ours ~ mirt": {"pearson": -0.20, "spearman": -0.03}},
            "girth": {"full": {"hit_cap": False, "wall_s": 28.0},
                      "compared": {"b: girth ~ ours": {"pearson": 0.989, "spearman": 0.99},
                                   "a: girth ~ ours": {"pearson": 0.874, "spearman": 0.96},
                                   "b: girth ~ mirt": {"pearson": 0.366, "spearman": 0.72},
                                   "a: girth ~ mirt": {"pearson": -0.30, "spearman": -0.09}}},
            "b_vs_classical": {"b: ours ~ -logit p": {"pearson": 0.9, "spearman": 0.992}}}
    text = real_text(real)
    assert "our fit took 8.0 s (375 steps) and girth's 28.0 s (3.5× ours)" in text
    assert "r(b) 0.989 and r(a) 0.874" in text and "0.330 for ours and 0.366 for girth" in text
    assert "ours 0.992" in text and "5 of mirt's slopes are negative" in text


def test_engine_figure_draws_every_engine_pyirts_path_and_the_target():
    figure = engine_figure(record())
    left, right = figure.axes
    labels = right.get_legend().get_texts()
    names = [label.get_text() for label in labels]
    assert "py-irt best (hierarchical)" in names and "target r 0.985" in names
    assert "girth MML, 2,000-column subset (r on its columns)" in names
    assert "ours (benchmark rule) on girth's columns" in names
    paths = [line for line in left.get_lines() if line.get_linestyle() == "-"]
    assert len(paths) == 2 and list(paths[0].get_xdata()) == [101.0, 400.0]  # setup + training time
    assert "seed 1" in figure._suptitle.get_text()


def test_girth_a_at_bound_counts_estimates_on_either_end_only():
    low, high = GIRTH_A_BOUNDS
    a = np.array([low, low + 5e-7, low + 0.01, 1.0, high - 0.01, high - 5e-7, high])
    assert girth_a_at_bound(a) == 4
    assert girth_a_at_bound(np.array([1.0, 2.0])) == 0


def test_fit_load_is_read_per_fit_and_said_not_recorded_in_an_older_record():
    older = record()
    table = engine_table(older)
    assert table[["load before", "load after"]].isna().all().all()  # no crash, every fit unrecorded
    assert "not recorded in this result" in fit_load_text(older)
    newer = record()
    newer["machine"] = {"cpus": 2}
    for run in newer["runs"]:
        for key in ("ours_bench", "ours_numpyro", "pyirt_best"):
            run[key] |= {"load_1min_before": 0.5 + run["world"]["world_seed"], "load_1min_after": 1.5}
    newer["runs"][0]["girth"]["full"] |= {"load_1min_before": 3.3, "load_1min_after": None}
    table = engine_table(newer)
    assert table.loc[(1, "py-irt best (hierarchical)"), "load before"] == 1.5
    assert table.loc[(0, "girth MML, full matrix"), "load before"] == 3.3
    assert np.isnan(table.loc[(0, "girth MML, full matrix"), "load after"])  # a system that did not say
    assert np.isnan(table.loc[(0, "girth MML, 2,000-column subset"), "load before"])
    assert "ranged from 0.5 to 3.3 on 2 CPUs" in fit_load_text(newer)
