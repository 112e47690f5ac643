"""The Performance page's readers: benchmark results, stopping rules in words, chapter times."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import numpy as np
import pytest

from mmlu_audit.core.errors import DataError
from mmlu_audit.book.build import MACHINE_KEY
from mmlu_audit.book.performance import (BUILD_PHASES, build_load_text, build_span_minutes, chapter_times,
                                         cold_build_table, cold_build_text, encoder_runtime_text,
                                         make_book_phases,
                                         encoder_batch_text, feature_stages, multi_seed_text,
                                         not_recorded_text,
                                         read_result, recorded_section,
                                         repeat_spread_text, repeated_fits, rule_text, section_absent_text,
                                         seed_table, single_seed_table, single_seed_text)

RESULTS_DIR = Path(__file__).resolve().parents[1] / "bench" / "results"
RULE = {"b_prior": "hierarchical", "learning_rate": 0.05, "window": 25, "rel_tol": 1e-4, "max_steps": 1000}


def multi_seed_result(speedups=(40.0, 50.0), reached=True):
    runs = []
    for seed, speedup in enumerate(speedups):
        ours = {"r": 0.988, "steps": 125, "wall_s": 8.0, "per_step_ms": 40.0, "backend": "cpu (cpu)"}
        peer = {"r": 0.986, "wall_s": 8.0 * speedup, "reached": reached}
        runs.append({"world": {"world_seed": seed}, "ours_bench": ours, "pyirt_best": peer})
    stats = {"median": 45.0, "min": min(speedups), "max": max(speedups)}
    summary = {"seeds": list(range(len(speedups))),
               "r_bench_rule": {"median": 0.988, "min": 0.987, "max": 0.989},
               "wall_s_bench_rule": {"median": 8.0, "min": 7.5, "max": 8.5},
               "ours_reaches_target_r_every_seed": True, "ours_within_wall_target_every_seed": True,
               "speedup_vs_pyirt_best": stats, "speedup_vs_pyirt_best_is_lower_bound": not reached,
               "per_step_ratio_vs_pyirt_best": {"median": 17.0}}
    return {"runs": runs, "summary": summary, "targets": {"r": 0.985, "wall_s": 10.0, "speedup": 35.0},
            "complete": True, "created": "2026-12-01T13:00:00",
            "machine": {"loadavg_at_end": [1.2], "cpus": 2},
            "stopping_rules": {"bench": RULE, "chapters": RULE | {"b_prior": "paper", "window": 50}}}


def test_read_result_absent_is_none_and_broken_is_one_error(tmp_path):
    assert read_result(tmp_path, "irt.json") is None
    (tmp_path / "irt.json").write_text('{"runs": [')
    with pytest.raises(DataError, match="not a readable benchmark result"):
        read_result(tmp_path, "irt.json")
    (tmp_path / "ok.json").write_text(json.dumps({"a": 1}))
    assert read_result(tmp_path, "ok.json") == {"a": 1}
    assert "bench/results/x.json" in not_recorded_text("x.json")


def test_seed_table_divides_peer_time_by_ours():
    table = seed_table(multi_seed_result(speedups=(40.0, 50.0)))
    assert list(table.index) == [0, 1]
    assert table["speed-up"].tolist() == pytest.approx([40.0, 50.0])
    assert table["py-irt reached target"].all()


def test_rule_text_states_the_rule():
    text = rule_text(RULE)
    assert "last 25 steps moves < 0.0001" in text and "at most 1000 steps" in text
    assert "`hierarchical`" in text


@pytest.mark.parametrize("speedups, reached, verdict", [
    ((40.0, 50.0), True, "— met: speed-up median 45×"),
    ((20.0, 50.0), True, "— **missed**"),
    ((20.0, 50.0), False, "— not demonstrated by this run"),
])
def test_multi_seed_text_verdict_follows_the_worst_seed(speedups, reached, verdict):
    text = multi_seed_text("irt.json", multi_seed_result(speedups, reached))
    assert f"≥ 35× py-irt's best {verdict}" in text
    assert ("a lower bound" in text) is (not reached)


def test_single_seed_table_without_the_peer():
    result = {"world": {"world_seed": 0, "n_models": 1000, "n_items": 14042},
              "ours": {"wall_s": 3.0, "steps": 175, "per_step_ms": 17.0, "r": 0.986, "peak_rss_mb": 700.0,
                       "backend": "gpu (cuda)"},
              "summary": {}, "created": "today", "targets": {"r": 0.985}}
    assert list(single_seed_table(result).columns) == ["ours (JAX SVI)"]
    assert "gpu (cuda)" in single_seed_text("irt_gpu.json", result) and "py-irt" not in single_seed_text(
        "irt_gpu.json", result)


def _executed(folder, stem, duration, fast, machine=None):
    nb = nbformat.v4.new_notebook()
    nb.metadata["papermill"] = {"duration": duration, "start_time": "2026-12-01T12:00:00",
                                "parameters": {"fast": fast, "data_source": "simulated"}}
    if machine is not None:
        nb.metadata[MACHINE_KEY] = machine
    nbformat.write(nb, folder / f"{stem}.ipynb")


def test_chapter_times_reads_papermill_durations(tmp_path):
    _executed(tmp_path, "01_data", 12.5, True)
    _executed(tmp_path, "08_reasoning_sensitivity", 300.0, False)
    _executed(tmp_path, "99_performance", 1.0, False)
    (tmp_path / "08_reasoning_sensitivity.failed.ipynb").write_text("{}")
    (tmp_path / ".08_rank.abc.running.ipynb").write_text("{}")
    times = chapter_times(tmp_path, exclude=("99_performance",))
    assert list(times.index) == ["01_data", "08_reasoning_sensitivity"]
    assert times["seconds"].tolist() == [12.5, 300.0] and times["fast"].tolist() == [True, False]
    assert chapter_times(tmp_path / "nothing").empty
    (tmp_path / "03_calibration.ipynb").write_text("not json")
    with pytest.raises(DataError, match="03_calibration"):
        chapter_times(tmp_path)


def _loaded(tmp_path, loads):
    for k, (start, end) in enumerate(loads):
        _executed(tmp_path, f"0{k + 1}_ch", 60.0, True,
                  {"cpus": 2, "loadavg_start": [start, 1.0, 1.0], "loadavg_end": [end, 1.0, 1.0]})
    return chapter_times(tmp_path)


def test_chapter_times_carry_the_machines_load_beside_each_time(tmp_path):
    times = _loaded(tmp_path, [(0.5, 1.25), (3.0, 4.5)])
    assert times["CPUs"].tolist() == [2, 2]
    assert times["load at start"].tolist() == [0.5, 3.0] and times["load at end"].tolist() == [1.25, 4.5]
    _executed(tmp_path, "09_old", 1.0, True)  # executed before the build runner kept the load
    assert np.isnan(chapter_times(tmp_path).loc["09_old", "load at start"])


def test_a_loaded_build_is_said_to_be_loaded(tmp_path):
    text = build_load_text(_loaded(tmp_path, [(0.5, 1.25), (3.0, 4.5)]))
    assert "ranged from 0.5 to 4.5" in text and "on 2 CPUs" in text
    assert "longer than on an idle machine" in text


def test_an_idle_build_is_said_to_be_idle(tmp_path):
    text = build_load_text(_loaded(tmp_path, [(0.5, 1.0), (1.5, 1.75)]))
    assert "ranged from 0.5 to 1.8" in text and "close to those of an idle machine" in text


def test_a_parallel_build_says_its_chapters_shared_the_cores(tmp_path):
    for k, at_once in enumerate([2, 1]):
        machine = {"cpus": 2, "loadavg_start": [2.5, 1, 1], "loadavg_end": [3.0, 1, 1], "jobs": at_once}
        _executed(tmp_path, f"0{k + 1}_ch", 60.0, False, machine)
    times = chapter_times(tmp_path)
    assert times["at once"].tolist() == [2, 1]
    text = build_load_text(times)
    assert "up to 2 chapters at once on 2 CPUs" in text and "ranged from 2.5 to 3.0" in text
    assert "its own share of the cores" in text and "longer than on an idle machine" not in text


def test_a_chapter_recorded_before_builds_ran_several_counts_as_alone(tmp_path):
    times = _loaded(tmp_path, [(0.5, 1.0)])
    assert times["at once"].tolist() == [1] and "close to those of an idle machine" in build_load_text(times)


def test_the_build_span_runs_from_the_first_start_to_the_last_end(tmp_path):
    for stem, start, seconds in [("01_a", "00:00", 60.0), ("02_b", "00:30", 90.0), ("03_c", "01:00", 30.0)]:
        nb = nbformat.v4.new_notebook()
        nb.metadata["papermill"] = {"duration": seconds, "parameters": {},
                                    "start_time": f"2026-12-01T12:{start}.000000+00:00"}
        nbformat.write(nb, tmp_path / f"{stem}.ipynb")
    times = chapter_times(tmp_path)
    assert build_span_minutes(times) == pytest.approx(2.0)  # 12:00:00 to 12:02:00, against 3.0 summed
    assert times["seconds"].sum() / 60 == pytest.approx(3.0)
    assert np.isnan(build_span_minutes(chapter_times(tmp_path / "nothing")))


def test_an_unrecorded_load_is_said_to_be_unrecorded(tmp_path):
    _executed(tmp_path, "01_data", 12.5, True)
    assert "load was not recorded" in build_load_text(chapter_times(tmp_path))


def test_recorded_section_gives_the_result_and_its_label_or_the_absent_sentence(tmp_path):
    (tmp_path / "irt_quick.json").write_text(json.dumps({"quick": True, "girth": {"x": 1}}))
    names = ("irt.json", "irt_quick.json")
    result, line = recorded_section(tmp_path, names, "girth", "girth's MML 2PL")
    assert result == {"quick": True, "girth": {"x": 1}} and line.startswith("**`irt_quick.json`**: **quick")
    result, line = recorded_section(tmp_path, names, "real", "the real-matrix comparison")
    assert result is None and line == section_absent_text("the real-matrix comparison", names)


FEATURES = {"cold": {"total_s": 99.0, "items_per_s": 141.6, "parse_s": 91.4, "parse_items_per_s": 153.7,
                     "indicators_s": 4.7, "indicators_items_per_s": 2978.0},
            "cached": {"total_s": 0.08, "items_per_s": 181832.0},
            "encoder": {"n_items": 14042, "total_s": 126.7, "items_per_s": 110.9, "batch_size": 8,
                        "previous_batch_size": 64, "previous_total_s": 167.7, "speedup_vs_previous": 1.32,
                        "max_abs_difference_vs_previous": 1.9e-7}}


def test_feature_stages_lists_both_encoder_batch_sizes():
    stages = feature_stages(FEATURES)
    assert list(stages.index) == ["cold, all features", "parse (spaCy)", "indicators", "from cache",
                                  "encoder (MiniLM), batch 8", "encoder, batch 64 (same run)"]
    assert stages.loc["encoder, batch 64 (same run)", "items per second"] == pytest.approx(14042 / 167.7)
    without_peer = {**FEATURES, "encoder": {k: FEATURES["encoder"][k]
                                            for k in ("n_items", "total_s", "items_per_s", "batch_size")}}
    assert len(feature_stages(without_peer)) == 5


def test_encoder_batch_text_states_the_same_run_ratio():
    text = encoder_batch_text(FEATURES["encoder"])
    assert "batch 8 embeds the items 1.32× as fast as batch 64" in text and "1.9e-07" in text


def test_power_law_fit_recovers_a_known_exponent_and_rejects_bad_input():
    from mmlu_audit.book.performance import power_law_fit, predict_power_law

    cells = np.array([1e5, 1e6, 1e7, 1e8])
    noise = np.array([1.02, 0.97, 1.01, 0.99])
    fit = power_law_fit(cells, 3e-6 * cells**1.1 * noise)
    assert fit["exponent"] == pytest.approx(1.1, abs=0.02) and fit["r2"] > 0.99 and fit["n"] == 4
    assert predict_power_law(power_law_fit(cells, 2 * cells**0.5), 4e6) == pytest.approx(2 * 2000.0)
    with pytest.raises(DataError, match="two or more"):
        power_law_fit([1e5], [1.0])
    with pytest.raises(DataError, match="positive"):
        power_law_fit([1e5, 1e6], [1.0, 0.0])


def scaling_result(quick):
    sizes = [{"n_models": j, "n_items": 1000, "cells": j * 1000, "status": "fitted", "wall_s": j / 100,
              "steps": 100, "per_step_ms": j / 10, "peak_rss_mb": 300 + j / 10, "bytes_per_cell": 50.0,
              "r": 0.99} for j in (100, 300, 1000)]
    sizes.append({"n_models": 10**6, "n_items": 1000, "cells": 10**9, "predicted_peak_mb": 4e4,
                  "status": "skipped: predicted over the memory limit"})
    return {"quick": quick, "created": "2026-12-01T23:00:00",
            "machine": {"cpus": 2, "memory_gb": 23.4, "loadavg_at_start": [9.0, 8, 7],
                        "loadavg_at_end": [7.5, 7, 7]},
            "irt": {"sizes": sizes, "fits": {}},
            "stems": {"sizes": [{"n_stems": n, "total_s": n / 100} for n in (50, 100, 200)], "fit": None}}


def test_scaling_table_keeps_skipped_sizes_with_their_prediction():
    from mmlu_audit.book.performance import scaling_table

    table = scaling_table(scaling_result(quick=False))
    assert list(table.index) == [100000, 300000, 1000000, 10**9]
    assert table.loc[10**9, "status"].startswith("skipped") and table.loc[10**9, "predicted peak (MB)"] == 4e4
    assert np.isnan(table.loc[10**9, "wall (s)"]) and table.loc[300000, "wall (s)"] == 3.0


def test_quick_results_are_labelled_and_drawn_as_quick():
    import matplotlib

    matplotlib.use("Agg")
    from mmlu_audit.book.performance import cost_curve_figure, quick_label

    assert "quick (smoke-size) run" in quick_label("scaling_quick.json", scaling_result(quick=True))
    full = quick_label("scaling.json", scaling_result(quick=False))
    assert "full size" in full and "quick" not in full and "9.0 → 7.5" in full and "23 GiB" in full
    figure = cost_curve_figure(scaling_result(quick=True))
    assert len(figure.axes) == 3 and "QUICK" in figure._suptitle.get_text()
    assert cost_curve_figure(scaling_result(quick=False))._suptitle is None


def test_girth_and_numpyro_tables_show_the_cap_and_the_same_step_ratio():
    from mmlu_audit.book.performance import girth_table, numpyro_table

    run = {"ours_bench": {"wall_s": 8.0}, "girth": {
        "full": {"hit_cap": True, "cap_s": 1800.0}, "subset": {"hit_cap": False, "wall_s": 612.3},
        "compared": {"b: girth ~ truth": {"pearson": 0.991, "spearman": 0.989}}}}
    table = girth_table(run)["value"]
    assert table["girth full wall (s)"] == "hit the cap of 1800 s" and table["girth subset wall (s)"] == 612.3
    assert table["r(b: girth ~ truth), Pearson / Spearman"] == "0.991 / 0.989"
    result = multi_seed_result()
    result["runs"][0]["ours_bench"] |= {"peak_rss_mb": 700.0}
    result["runs"][0]["ours_numpyro"] = {"wall_s": 40.0, "r": 0.98, "peak_rss_mb": 1400.0}
    ratio = numpyro_table(result)
    assert list(ratio.index) == [0] and ratio.loc[0, "wall ratio"] == pytest.approx(5.0)
    assert numpyro_table(multi_seed_result()).empty


def test_memory_capacity_solves_the_affine_line_for_the_limit():
    from mmlu_audit.book.performance import memory_capacity

    cells = np.array([1e5, 1e6, 1e7])
    peak = 400 + 30 * cells / 2**20  # 400 MB runtime + 30 bytes per cell
    capacity = memory_capacity(cells, peak, limit_mb=20 * 1024)
    assert capacity["fixed_mb"] == pytest.approx(400) and capacity["bytes_per_cell"] == pytest.approx(30)
    assert capacity["max_cells"] == pytest.approx((20 * 1024 - 400) * 2**20 / 30)
    assert memory_capacity(cells, np.full(3, 500.0), limit_mb=1e4)["max_cells"] is None
    with pytest.raises(DataError, match="two or more"):
        memory_capacity([1e5, 1e5], [1.0, 2.0], limit_mb=10)


def test_result_with_prefers_the_first_file_that_records_the_section(tmp_path):
    from mmlu_audit.book.performance import result_with, section_absent_text

    (tmp_path / "irt.json").write_text(json.dumps({"runs": [{"ours_bench": {}}], "real": None}))
    (tmp_path / "irt_quick.json").write_text(json.dumps({"quick": True, "runs": [{"girth": {}}],
                                                         "real": {"girth": {}}}))
    names = ("irt.json", "irt_quick.json")
    assert result_with(tmp_path, names, "ours_bench")[0] == "irt.json"
    assert result_with(tmp_path, names, "girth")[0] == "irt_quick.json"
    assert result_with(tmp_path, names, "real")[0] == "irt_quick.json"
    assert result_with(tmp_path, names, "ours_numpyro") == (None, None)
    assert "`bench/results/irt.json` or `bench/results/irt_quick.json`" in section_absent_text("girth", names)


def test_scaling_text_states_exponents_and_the_capacity():
    from mmlu_audit.book.performance import memory_capacity, power_law_fit, scaling_text

    result = scaling_result(quick=False)
    fitted = [s for s in result["irt"]["sizes"] if s["status"] == "fitted"]
    cells = [s["cells"] for s in fitted]
    assert "Fewer than two" in scaling_text(result)
    result["irt"]["fits"] = {f: power_law_fit(cells, [s[f] for s in fitted])
                             for f in ("wall_s", "per_step_ms", "peak_rss_mb")}
    result["irt"]["capacity"] = memory_capacity(cells, [s["peak_rss_mb"] for s in fitted], 24 * 1024)
    text = scaling_text(result)
    assert "fit time grows as cells^1.00" in text and "within 24 GiB" in text
    assert "memory sets the limit" in text
    # 300 MB + 1e-4 MB per cell → (24,576 − 300) × 10⁴ cells; 1e-4 ms per cell per step × 100 steps
    assert "about 2.4e+08 cells" in text and "100 steps on the per-step curve" in text
    assert "about 40.5 min" in text


def _irt_record(walls: dict, r=0.989, cpus=2, load=(1.0, 2.0)):
    """A multi-seed IRT result whose runs are our fit of each seed in ``walls`` (seed → wall s)."""
    spec = {"model": "2pl", "b_prior": "hierarchical"}
    runs = [{"world": {"world_seed": seed, "n_models": 10, "n_items": 20},
             "ours_bench": {"wall_s": wall, "compile_s": 1.0, "steps": 125, "r": r, "spec": spec,
                            "engine": "handwritten", "backend": "cpu (cpu)"}} for seed, wall in walls.items()]
    machine = {"cpus": cpus, "loadavg_at_start": [load[0]], "loadavg_at_end": [load[1]]}
    return {"runs": runs, "machine": machine}


def test_repeated_fits_keeps_only_the_same_computation_recorded_twice(tmp_path):
    (tmp_path / "irt.json").write_text(json.dumps(_irt_record({0: 12.0, 1: 15.0})))
    (tmp_path / "irt_numpyro.json").write_text(json.dumps(_irt_record({0: 4.0, 1: 6.0}, load=(0.1, 0.5))))
    (tmp_path / "irt_quick.json").write_text(json.dumps(_irt_record({0: 3.0}, r=0.97)))  # another fit
    (tmp_path / "irt_seed0.json").write_text(json.dumps({"world": {}, "ours": {}}))  # the one-world format
    repeats = repeated_fits(tmp_path)
    assert sorted(repeats["file"].unique()) == ["irt.json", "irt_numpyro.json"]
    assert repeats.groupby("fit")["wall (s)"].apply(sorted).tolist() == [[4.0, 12.0], [6.0, 15.0]]
    assert repeats["load at start"].tolist() == [0.1, 1.0, 0.1, 1.0]
    text = repeat_spread_text(repeats)
    assert "up to 3.0× between its fastest and slowest run" in text
    assert "2 identical fits" in text and "2 recorded runs on 2-CPU machines, took 4.0 to 15.0 s" in text


def test_repeat_spread_text_says_when_no_fit_was_timed_twice(tmp_path):
    (tmp_path / "irt.json").write_text(json.dumps(_irt_record({0: 12.0})))
    repeats = repeated_fits(tmp_path)
    assert repeats.empty
    assert "has not been recorded in two runs yet" in repeat_spread_text(repeats)


def test_make_book_phases_cut_the_log_where_make_echoes_each_recipe():
    log = [(0.0, "python3 -m venv .venv"), (60.0, ".venv/bin/python -m mmlu_audit.book.prepare --seed 1"),
           (70.0, "make data: MMLU parse took 90.5 s"),
           (200.0, ".venv/bin/python -m mmlu_audit.book.build --seed 1"),
           (260.0, "    ok  01_data.py    58.2 s"), (900.0, "FAILED  05_pooled.py  612.0 s"),
           (905.0, "npm install --silent mathjax@3"), (960.0, ".venv/bin/python -m mmlu_audit.book.findings")]
    phases = make_book_phases(log, 1000.0)
    expected = {"setup": 60.0, "data": 140.0, "chapters": 705.0, "html": 95.0}
    assert {k: phases[k] for k in BUILD_PHASES} == expected
    assert sum(phases[k] for k in BUILD_PHASES) == 1000.0
    assert phases["chapter_s"] == {"01_data.py": 58.2, "05_pooled.py": 612.0}
    assert phases["data_steps_s"] == {"MMLU parse": 90.5}
    stopped = make_book_phases(log[:3], 120.0)  # a build that died in make data
    assert set(stopped) - {"chapter_s", "data_steps_s"} == {"setup", "data"} and stopped["data"] == 60.0


def test_cold_build_table_sets_two_commits_side_by_side_with_the_change():
    def run(commit, scale, steps):
        return {"commit": commit, "fast": False, "exit_code": 0, "total_s": 1200.0 * scale, "setup": 60.0,
                "data": 300.0 * scale, "chapters": 780.0 * scale, "html": 60.0, "data_steps_s": steps,
                "machine": {"cpus": 2, "loadavg_at_start": [0.1, 0.2, 0.3]},
                "started": "2026-12-07T06:00:00+00:00"}
    result = {"runs": [run("a" * 40, 1.0, {}), run("b" * 40, 0.5, {"sentence encoder": 60.0})]}
    table = cold_build_table(result)
    assert list(table.columns) == ["aaaaaaa", "bbbbbbb", "change (%)"]
    assert table.loc["total", "aaaaaaa"] == 20.0 and table.loc["total", "change (%)"] == -50.0
    assert np.isnan(table.loc["  data: sentence encoder", "aaaaaaa"])  # not timed by that commit
    assert list(table.index) == ["setup", "data", "  data: sentence encoder", "chapters", "html", "total"]
    assert "`aaaaaaa` built in 20.0 min" in cold_build_text(result)
    with pytest.raises(DataError, match="holds no run"):
        cold_build_table({"runs": []})


def test_encoder_runtime_text_reads_the_same_run_comparison():
    result = json.loads((RESULTS_DIR / "encoder_runtime.json").read_text())
    text = encoder_runtime_text(result)
    encoder = result["encoder"]
    assert f"{encoder['speedup_vs_torch']:.2f}× as fast as torch" in text
    assert all(f"{name} {r['items_per_s']:.1f}" in text for name, r in encoder["runtimes"].items())
    assert set(encoder["runtimes"]) == {"openvino", "onnx", "torch"} and encoder["runtime"] == "openvino"
    # the agreement bound, on the recorded run, for every runtime
    assert all(r["min_cosine_vs_torch"] >= 0.9999 for r in encoder["runtimes"].values())
