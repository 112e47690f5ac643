"""Tests of mmlu_audit.analyses.redux: coverage counts by hand, the matrix without flagged items,
the item–rest correlation against a direct per-item computation, the flagged/clean
comparison against scipy, and the homogeneity summary against the inference layer."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from mmlu_audit.data.responses import ResponseMatrix
from mmlu_audit.core.errors import DataError
from mmlu_audit.features import INDICATORS
from mmlu_audit.analyses.redux import (flagged_vs_clean, homogeneity_summary, item_rest_correlation,
                                       redux_coverage, without_flagged)

ITEMS = pd.DataFrame({"item_id": [f"i{k}" for k in range(6)],
                      "partition": ["STEM", "STEM", "STEM", "non-STEM", "non-STEM", "non-STEM"]})
REDUX = pd.DataFrame({"item_id": ["i0", "i1", "i3"], "is_error": [True, False, False]})


def test_coverage_by_hand():
    table = redux_coverage(ITEMS, REDUX)
    assert table.loc["STEM"].to_dict() == {"items": 3, "annotated": 2, "flagged": 1, "share_annotated": 2 / 3,
                                           "share_flagged_of_annotated": 0.5, "unchecked": 1}
    assert table.loc["all", "annotated"] == 3 and table.loc["all", "flagged"] == 1
    assert table.loc["non-STEM", "share_flagged_of_annotated"] == 0.0
    with pytest.raises(DataError, match="unknown items"):
        redux_coverage(ITEMS, pd.DataFrame({"item_id": ["zz"], "is_error": [True]}))


def test_without_flagged_drops_exactly_the_flagged_columns():
    responses = np.arange(12).reshape(2, 6) % 2
    matrix = ResponseMatrix(responses.astype(np.int8), pd.DataFrame({"model_id": ["m0", "m1"]}),
                            ITEMS["item_id"].to_numpy(), "test", False)
    kept = without_flagged(matrix, REDUX)
    assert kept.item_ids.tolist() == ["i1", "i2", "i3", "i4", "i5"]
    np.testing.assert_array_equal(kept.responses, matrix.responses[:, 1:])


def test_item_rest_correlation_matches_a_direct_loop():
    rng = np.random.default_rng(0)
    y = (rng.random((30, 8)) < rng.random(30)[:, None]).astype(np.int8)
    y[rng.random(y.shape) < 0.1] = -1
    ours = item_rest_correlation(y)
    for i in range(y.shape[1]):
        seen = y[:, i] != -1
        rest = [(np.sum(y[j] == 1) - (y[j, i] == 1)) / (np.sum(y[j] != -1) - 1) for j in np.flatnonzero(seen)]
        assert ours[i] == pytest.approx(np.corrcoef(y[seen, i], rest)[0, 1])


def test_flagged_vs_clean_uses_mann_whitney():
    values = pd.DataFrame({"accuracy": [0.2, 0.3, 0.9, 0.8, 0.85, 0.7]})
    flag = [True, True, False, False, False, False]
    row = flagged_vs_clean(values, flag).loc["accuracy"]
    assert row["mean_flagged"] == pytest.approx(0.25) and row["n_clean"] == 4
    expected = stats.mannwhitneyu([0.2, 0.3], [0.9, 0.8, 0.85, 0.7]).pvalue
    assert row["mann_whitney_p"] == pytest.approx(expected)
    with pytest.raises(DataError, match="both flagged and clean"):
        flagged_vs_clean(values, [False] * 6)


def test_homogeneity_summary_detects_a_planted_contrast():
    rng = np.random.default_rng(1)
    subjects = np.repeat(np.arange(30), 40).astype(str)
    stem = np.repeat(np.arange(30) < 10, 40)
    frame = pd.DataFrame(rng.normal(size=(subjects.size, len(INDICATORS))), columns=list(INDICATORS))
    frame["b_hat"] = 0.8 * stem * frame[INDICATORS[0]] + rng.normal(size=subjects.size)
    frame["stem"], frame["subject"] = stem, subjects
    summary = homogeneity_summary(frame, seed=0, n_boot=199)
    assert summary["n_items"] == 1200 and summary["p_hc3"] < 1e-6
    assert summary["p_htz"] < 0.05 and summary["p_wcr"] < 0.05
    assert 0 < summary["share_low"] <= summary["share"] <= summary["share_high"]  # the planted slope gap
    frame["b_hat"] = rng.normal(size=subjects.size)
    null = homogeneity_summary(frame, seed=0, n_boot=199)
    assert null["p_hc3"] > 1e-3 and null["share_low"] <= 0 <= null["share_high"]


def test_recalibration_leaves_flagged_items_out_of_the_fit():
    from mmlu_audit.irt import IRTSpec, fit_irt
    from mmlu_audit.analyses.redux import recalibrated_without_flagged

    rng = np.random.default_rng(2)
    theta, b = rng.normal(size=60), rng.normal(size=6)
    y = (rng.random((60, 6)) < 1 / (1 + np.exp(-(theta[:, None] - b)))).astype(np.int8)
    matrix = ResponseMatrix(y, pd.DataFrame({"model_id": [f"m{k}" for k in range(60)]}),
                            ITEMS["item_id"].to_numpy(), "test", False)
    frame = ITEMS.set_index("item_id").assign(b_hat=0.0, a_hat=1.0)
    spec = IRTSpec(max_steps=100)
    refit = recalibrated_without_flagged(frame, matrix, REDUX, spec)
    assert refit.index.tolist() == ["i1", "i2", "i3", "i4", "i5"]
    direct = fit_irt(y[:, 1:], spec, progress=False)  # the same fit without column i0
    np.testing.assert_allclose(refit["b_hat"].to_numpy(), direct.b, rtol=1e-6)
    with pytest.raises(DataError, match="not in the frame"):
        recalibrated_without_flagged(frame.iloc[:3], matrix, REDUX, spec)


def test_flagged_vs_clean_cluster_p_matches_statsmodels_and_is_honest_under_clustering():
    """The subject-clustered p is statsmodels' clustered OLS t (CR1 here as a cross-check on the SE),
    and on a world where flags cluster by subject but do not move the value, it rejects at about
    the nominal rate while Mann–Whitney over items does not."""
    import statsmodels.api as sm

    rng = np.random.default_rng(0)
    subjects = np.repeat(np.arange(30), 40)
    mw_rejects, cl_rejects = 0, 0
    for replicate in range(40):
        subject_effect = rng.normal(0, 1, 30)[subjects]
        flag_rate = rng.uniform(0.0, 0.4, 30)[subjects]
        flag = rng.random(subjects.size) < flag_rate + 0.02
        value = subject_effect * (flag_rate - 0.2) * 3 + rng.normal(0, 0.5, subjects.size)
        row = flagged_vs_clean(pd.DataFrame({"v": value}), flag, subjects=subjects).loc["v"]
        mw_rejects += row["mann_whitney_p"] < 0.05
        cl_rejects += row["cluster_p"] < 0.05
        if replicate == 0:
            ols = sm.OLS(value, sm.add_constant(flag.astype(float))).fit(cov_type="cluster",
                                                                     cov_kwds={"groups": subjects})
            assert row["n_subjects"] == 30 and 0 < row["cluster_p"] < 1
            assert row["cluster_p"] == pytest.approx(float(ols.pvalues[1]), rel=0.5)
    assert cl_rejects <= 6 < mw_rejects, (cl_rejects, mw_rejects)


def test_homogeneity_pair_by_hand():
    from mmlu_audit.analyses.redux import HEADLINE_KEYS, homogeneity_pair

    def summary(n, shift):
        return {"n_items": n, "w9_hc3": 10.0 + shift, "p_hc3": 0.01 + shift, "w9_cr2": 5.0 + shift,
                "htz_F": 1.0, "p_htz": 0.2 + shift, "p_wcr": 0.3 + shift, "share": 0.01 + shift,
                "share_low": shift, "share_high": 0.02 + shift}

    out = homogeneity_pair(summary(100, 0.0), summary(93, 0.5))
    assert tuple(out) == HEADLINE_KEYS and out["n_removed"] == 7
    assert (out["n_items_all"], out["p_wcr_all"]) == (100, 0.3)
    assert (out["n_items_kept"], out["p_wcr_kept"]) == (93, 0.8)
    assert out["w9_hc3_kept"] == 10.5 and out["p_htz_all"] == 0.2
    assert (out["share_all"], out["share_low_kept"], out["share_high_kept"]) == (0.01, 0.5, 0.52)


def test_redux_headline_is_both_summaries_around_the_refit():
    """The headline is homogeneity_summary on the calibrated items and on the refit without
    the flagged items; an item nobody answered stays out of both."""
    from mmlu_audit.analyses.redux import recalibrated_without_flagged, redux_homogeneity_headline
    from mmlu_audit.analyses.regression import estimated_items
    from mmlu_audit.irt import IRTSpec

    rng = np.random.default_rng(3)
    n_items, ids = 240, np.array([f"i{k}" for k in range(240)])
    theta, b = rng.normal(size=40), rng.normal(size=n_items)
    y = (rng.random((40, n_items)) < 1 / (1 + np.exp(-(theta[:, None] - b)))).astype(np.int8)
    y[:, 5] = -1  # nobody answered i5
    matrix = ResponseMatrix(y, pd.DataFrame({"model_id": [f"m{k}" for k in range(40)]}), ids, "test", False)
    frame = pd.DataFrame(rng.normal(size=(n_items, len(INDICATORS))), columns=list(INDICATORS), index=ids)
    frame["subject"] = np.repeat(np.arange(40), 6).astype(str)
    frame["stem"] = np.repeat(np.arange(40) < 16, 6)
    frame["b_hat"], frame["a_hat"] = b, 1.0
    frame.loc["i5", "b_hat"] = np.nan
    redux = pd.DataFrame({"item_id": ids[:60], "is_error": np.arange(60) % 6 == 0})  # 10 flagged
    spec = IRTSpec(max_steps=60)
    out = redux_homogeneity_headline(frame, matrix, redux, spec, seed=4, n_boot=99)
    kept = estimated_items(recalibrated_without_flagged(frame, matrix, redux, spec))
    assert (out["n_items_all"], out["n_items_kept"], out["n_removed"]) == (n_items - 1, n_items - 11, 10)
    expected_all = homogeneity_summary(estimated_items(frame), seed=4, n_boot=99)
    expected_kept = homogeneity_summary(kept, seed=4, n_boot=99)
    for key in ("w9_hc3", "p_hc3", "w9_cr2", "p_htz", "p_wcr"):
        assert out[f"{key}_all"] == expected_all[key] and out[f"{key}_kept"] == expected_kept[key]
