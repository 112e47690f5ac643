"""The real-leaderboard chapter's §2.3 (the simulator against the real matrix) and §2.5 (the
item-side test and its power)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from mmlu_audit.analyses.real_leaderboard import (RECALIBRATION_LEVERS, SIMULATOR_TOLERANCES, design_clusters,
                                                  item_frame, item_side_tests, matrix_statistics,
                                                  recalibration_notes, simulator_comparison)
from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.features import INDICATORS
from mmlu_audit.inference import homogeneity_test
from mmlu_audit.worlds.homogeneity import power_curve, smallest_detectable


def _matrix(seed=0, n_models=300, n_items=40):
    rng = np.random.default_rng(seed)
    theta, b = rng.normal(size=(n_models, 1)), rng.normal(size=n_items)
    p = 0.25 + 0.75 / (1 + np.exp(-(theta - b)))
    y = (rng.random(p.shape) < p).astype(np.int8)
    stem = np.arange(n_items) < n_items // 3
    return y, stem, SimpleNamespace(a=np.exp(rng.normal(0, 0.3, n_items)), b=b)


def test_matrix_statistics_recomputed_independently():
    y, stem, fit = _matrix()
    stats = matrix_statistics(y, stem, fit)
    assert set(stats) == set(SIMULATOR_TOLERANCES)
    accuracy = y.mean(axis=1)
    assert stats["median model accuracy"] == pytest.approx(np.median(accuracy))
    floor = stats["5th percentile of model accuracy (guessing floor)"]
    assert floor == pytest.approx(np.percentile(accuracy, 5))
    assert stats["mean item p-value"] == pytest.approx(accuracy.mean())  # no missing cells: the same mean
    rest = (y.sum(axis=1)[:, None] - y) / (y.shape[1] - 1)
    biserials = [np.corrcoef(y[:, i], rest[:, i])[0, 1] for i in range(y.shape[1])]
    assert stats["median point-biserial (item–rest)"] == pytest.approx(np.median(biserials))
    assert stats["SD of fitted b"] == pytest.approx(np.std(fit.b))
    r = np.corrcoef(y[:, stem].mean(1), y[:, ~stem].mean(1))[0, 1]
    assert stats["r(STEM score, non-STEM score)"] == pytest.approx(r)


def test_matrix_statistics_skip_unseen_cells_and_need_both_partitions():
    y, stem, fit = _matrix()
    y = y.copy()
    y[0, :5] = -1
    stats = matrix_statistics(y, stem, fit)
    assert stats["95th percentile of model accuracy"] <= 1
    with pytest.raises(DataError, match="both partitions"):
        matrix_statistics(y, np.ones_like(stem), fit)


def test_comparison_verdicts_and_recalibration_direction():
    real = {row: 0.5 for row in SIMULATOR_TOLERANCES}
    simulated = dict(real)
    simulated["SD of fitted b"] = 0.5 + 2 * SIMULATOR_TOLERANCES["SD of fitted b"]
    simulated["median fitted a"] = 0.5 - 2 * SIMULATOR_TOLERANCES["median fitted a"]
    simulated["mean item p-value"] = 0.5 + 0.5 * SIMULATOR_TOLERANCES["mean item p-value"]
    table = simulator_comparison(simulated, real)
    assert list(table.index) == list(SIMULATOR_TOLERANCES)
    off = table.index[table["verdict"] == "off"].tolist()
    assert off == ["median fitted a", "SD of fitted b"]
    assert np.allclose(table["difference"], table["simulated"] - table["real"])
    notes = recalibration_notes(table)
    assert len(notes) == 2
    assert RECALIBRATION_LEVERS["median fitted a"][1] in notes[0] and "lower by" in notes[0]
    assert RECALIBRATION_LEVERS["SD of fitted b"][0] in notes[1] and "higher by" in notes[1]
    with pytest.raises(DataError, match="lever"):
        recalibration_notes(table, levers={})
    with pytest.raises(DataError, match="without a value"):
        simulator_comparison({"median model accuracy": 0.5}, real)


def _frame(sizes, stem_subjects, seed=0):
    rng = np.random.default_rng(seed)
    subjects = np.repeat([f"s{g:02d}" for g in range(len(sizes))], sizes)
    stem = np.repeat(stem_subjects, sizes)
    items = pd.DataFrame({"item_id": [f"i{k}" for k in range(len(subjects))], "subject": subjects,
                          "stem": stem})
    features = pd.DataFrame(rng.normal(size=(len(items), len(INDICATORS))), columns=list(INDICATORS),
                            index=items["item_id"])
    return items, features, rng.normal(size=len(items))


def test_item_frame_aligns_and_refuses_gaps():
    items, features, b = _frame([5, 5, 5], [True, False, False])
    frame = item_frame(items, features.iloc[::-1], b)
    assert np.allclose(frame[list(INDICATORS)].to_numpy(), features.to_numpy())
    assert np.allclose(frame["b_hat"], b)
    with pytest.raises(DataError, match="no indicators"):
        item_frame(items, features.iloc[1:], b)
    with pytest.raises(DataError, match="difficulties"):
        item_frame(items, features, b[1:])
    sizes, stem = design_clusters(frame)
    assert sizes.tolist() == [5, 5, 5] and stem.tolist() == [True, False, False]


def test_item_side_tests_report_a_refusal_as_a_result():
    items, features, b = _frame([14] + [4] * 20, [True] + [False] * 20)  # STEM in one subject
    table = item_side_tests(item_frame(items, features, b), seed=1, n_boot=99, n_perm=99).set_index("test")
    assert table.loc["HC3 chi2", "status"] == "ok" and 0 <= table.loc["HC3 chi2", "p"] <= 1
    for test in ("CR2 chi2", "CR2 HTZ", "WCR(CR2)"):
        assert table.loc[test, "status"].startswith("not testable") and np.isnan(table.loc[test, "p"]), test
    assert "single cluster" in table.loc["WCR(CR2)", "status"]
    # the contract the real-leaderboard chapter counts on: a p is missing exactly where a test was
    # not testable
    assert (table["p"].isna() == table["status"].str.startswith("not testable")).all()


def test_item_side_tests_agree_with_the_engine():
    items, features, b = _frame([5] * 30, [True] * 14 + [False] * 16)
    frame = item_frame(items, features, b)
    table = item_side_tests(frame, seed=1, n_boot=199, n_perm=99).set_index("test")
    assert (table["status"] == "ok").all()
    x = (frame[list(INDICATORS)] - frame[list(INDICATORS)].mean()) / frame[list(INDICATORS)].std(ddof=0)
    direct = homogeneity_test(b, x, frame["stem"], frame["subject"], kind="CR2", forms=["HTZ"]).iloc[0]
    assert table.loc["CR2 HTZ", "p"] == pytest.approx(direct["p"])
    assert table["p"].between(0, 1).all()
    again = item_side_tests(frame, seed=1, n_boot=199, n_perm=99)
    assert again["p"].tolist() == table["p"].tolist()  # same seed, same answer


def test_power_curve_rises_with_the_planted_shift():
    sizes, stem = np.full(24, 6), np.r_[np.ones(10, bool), np.zeros(14, bool)]
    curve = power_curve(sizes, stem, [0.0, 3.0], seed=3, n_reps=6, n_draws=49)
    assert list(curve.columns) == [0.0, 3.0]
    assert curve.loc["block permutation (LR)", 3.0] == 1.0  # a shift of three noise SDs is unmistakable
    assert curve.loc["WCR(CR2)", 3.0] >= curve.loc["WCR(CR2)", 0.0]
    assert smallest_detectable(curve, "block permutation (LR)") == 3.0
    with pytest.raises(ParameterError, match="planted_grid"):
        power_curve(sizes, stem, [-1.0], seed=0)


def test_smallest_detectable_reads_the_grid():
    curve = pd.DataFrame({0.0: [0.05, 0.06], 0.5: [0.5, 0.3], 1.0: [0.85, 0.6], 2.0: [1.0, 0.79]},
                         index=["a", "b"])
    assert smallest_detectable(curve, "a") == 1.0
    assert np.isnan(smallest_detectable(curve, "b"))
    with pytest.raises(ParameterError, match="method"):
        smallest_detectable(curve, "c")
