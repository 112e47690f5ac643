"""The §3 and §4.1 headline functions the chapters run on the real pool, on small synthetic data."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from mmlu_audit.analyses.calibration import CALIBRATION_KEYS, calibration_headline
from mmlu_audit.analyses.regression import Design, cv_table, table2_designs, table2_ratios
from mmlu_audit.analyses.regression.pooled import (POOLED_KEYS, disattenuated_r2, item_fold_table,
                                                   pooled_headline)
from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.data.responses import ResponseMatrix
from mmlu_audit.features import INDICATORS, OPTION_COVARIATES
from mmlu_audit.irt import IRTSpec, parameter_ranges, split_cohort_reliability


# ---------------------------------------------------------------- §4.1: pooled_headline
def _item_frame(n=400, seed=0):
    """Items of 20 subjects (6 STEM) whose b̂ depends on two indicators and on length."""
    rng = np.random.default_rng(seed)
    subjects = np.repeat(np.arange(20), n // 20)
    frame = pd.DataFrame(rng.normal(size=(n, len(INDICATORS))), columns=list(INDICATORS))
    for column in OPTION_COVARIATES:
        frame[column] = rng.normal(size=n)
    frame["n_tokens"] = rng.integers(20, 200, n).astype(float)
    frame["readability_fk"] = rng.normal(10, 3, n)
    frame["subject"] = [f"s{s}" for s in subjects]
    frame["stem"] = subjects < 6
    frame["b_hat"] = (0.6 * frame["d_ner"] + 0.3 * frame["wscg_depth"] + 0.004 * frame["n_tokens"]
                      + rng.normal(0, 0.3, 20)[subjects] + rng.normal(size=n))
    frame["b_sd"] = rng.uniform(0.2, 0.6, n)
    frame.index = [f"item/{i}" for i in range(n)]
    return frame


def _r2(y, X):
    design = np.column_stack([np.ones(len(y)), X])
    residual = y - design @ np.linalg.lstsq(design, y, rcond=None)[0]
    return 1 - residual @ residual / ((y - y.mean()) @ (y - y.mean()))


def test_pooled_headline_matches_the_f_and_r2_by_hand():
    frame = _item_frame()
    out = pooled_headline(frame, seed=1, cv_folds=5)
    assert set(POOLED_KEYS) <= set(out)
    y, nine = frame["b_hat"].to_numpy(), frame[list(INDICATORS)].to_numpy()
    n = len(frame)
    r2 = _r2(y, nine)  # z-scoring the indicators does not change R²
    assert out["pooled_r2"] == pytest.approx(r2)
    assert out["pooled_F"] == pytest.approx((r2 / 9) / ((1 - r2) / (n - 10)))
    baseline = frame[["n_tokens", "readability_fk", "stem"]].to_numpy(float)
    r2_base, r2_full = _r2(y, baseline), _r2(y, np.column_stack([baseline, nine]))
    incremental = ((r2_full - r2_base) / 9) / ((1 - r2_full) / (n - 13))
    assert out["pooled_F_incremental"] == pytest.approx(incremental)
    reliability = 1 - np.mean(frame["b_sd"] ** 2) / np.var(y)
    assert out["b_reliability"] == pytest.approx(reliability)
    assert out["disattenuated_r2"] == pytest.approx(r2 / reliability)
    table = cv_table(frame["b_hat"], frame["stem"], frame["subject"], table2_designs(frame),
                     n_folds=5, seed=1)
    expected = table2_ratios(table)["ratio_framework_vs_length_global"]
    assert out["ratio_framework_vs_length_global"] == pytest.approx(expected)
    assert out["subject_global"] == pytest.approx(table.loc["subject identity", ("item", "global")])
    assert np.isnan(out["ceiling_global"]) and np.isnan(out["share_of_ceiling_stem"])  # no embeddings given
    assert out["n_items"] == n and out["cv_items_used"] == n


def test_pooled_headline_drops_unestimated_items_and_keeps_embeddings_aligned():
    frame = _item_frame()
    embeddings = np.random.default_rng(3).normal(size=(len(frame), 8))
    holes = frame.copy()
    holes.iloc[[5, 50, 300], holes.columns.get_loc("b_hat")] = np.nan  # items nobody answered
    keep = np.isfinite(holes["b_hat"].to_numpy())
    with_holes = pooled_headline(holes, seed=2, cv_folds=4, embeddings=embeddings)
    without = pooled_headline(frame[keep], seed=2, cv_folds=4, embeddings=embeddings[keep])
    for key in POOLED_KEYS:
        assert with_holes[key] == pytest.approx(without[key], nan_ok=True), key
    assert np.isfinite(with_holes["ceiling_global"]) and with_holes["n_items"] == keep.sum()
    with pytest.raises(DataError, match="one row per row of frame"):
        pooled_headline(holes, seed=2, cv_folds=4, embeddings=embeddings[keep])


def test_pooled_headline_subsamples_table2_as_the_chapter_does():
    frame = _item_frame()
    out = pooled_headline(frame, seed=4, cv_folds=4, cv_items=150)
    rows = np.sort(np.random.default_rng(4).choice(len(frame), 150, replace=False))
    sub = frame.iloc[rows]
    table = cv_table(sub["b_hat"], sub["stem"], sub["subject"], table2_designs(sub), n_folds=4, seed=4)
    assert out["cv_items_used"] == 150
    expected = table2_ratios(table)["ratio_framework_vs_length_stem"]
    assert out["ratio_framework_vs_length_stem"] == pytest.approx(expected, nan_ok=True)
    everything = pooled_headline(frame, seed=4, cv_folds=4)
    assert out["pooled_r2"] == pytest.approx(everything["pooled_r2"])  # the pooled fit uses all items


def test_pooled_headline_encodes_only_the_rows_table2_uses():
    """An encoder function gives the array's values but is asked only for the subsample's rows."""
    frame = _item_frame()
    frame.iloc[[7, 70], frame.columns.get_loc("b_hat")] = np.nan
    embeddings = np.random.default_rng(5).normal(size=(len(frame), 8))
    asked = []

    def encode(rows):
        asked.append(np.asarray(rows))
        return embeddings[rows]

    lazily = pooled_headline(frame, seed=6, cv_folds=4, cv_items=120, embeddings=encode)
    eagerly = pooled_headline(frame, seed=6, cv_folds=4, cv_items=120, embeddings=embeddings)
    for key in POOLED_KEYS:
        assert lazily[key] == pytest.approx(eagerly[key], nan_ok=True), key
    assert np.isfinite(lazily["ceiling_global"])
    assert len(asked) == 1 and len(asked[0]) == 120 and not np.isin([7, 70], asked[0]).any()
    with pytest.raises(DataError, match="returned 3 rows for 120"):
        pooled_headline(frame, seed=6, cv_folds=4, cv_items=120, embeddings=lambda rows: embeddings[:3])


def test_item_fold_table_is_the_item_half_of_cv_table():
    frame = _item_frame()
    designs = table2_designs(frame) + [Design("ridge", frame[list(OPTION_COVARIATES)].to_numpy(), "ridge")]
    full = cv_table(frame["b_hat"], frame["stem"], frame["subject"], designs, n_folds=5, seed=9)
    half = item_fold_table(frame["b_hat"], frame["stem"], designs, n_folds=5, seed=9)
    pd.testing.assert_frame_equal(half, full[["item"]])


def test_disattenuated_r2_divides_by_a_positive_reliability_only():
    assert disattenuated_r2(0.04, 0.8) == pytest.approx(0.05)
    assert np.isnan(disattenuated_r2(0.04, 0.0)) and np.isnan(disattenuated_r2(0.04, -0.2))


# ---------------------------------------------------------------- §3: calibration_headline
def _pool(seed=0, n_items=40):
    """Two populations of 12 and 9 models (checkpoints 3 and 14 twice) answering a 2PL; a fit stand-in."""
    rng = np.random.default_rng(seed)
    population = np.array(["HELM"] * 12 + ["OpenCompass"] * 9)
    theta, b = rng.normal(size=population.size), rng.normal(size=n_items)
    p_correct = 1 / (1 + np.exp(-(theta[:, None] - b)))
    responses = (rng.random((population.size, n_items)) < p_correct).astype(np.int8)
    checkpoint = [f"c{j}" for j in range(population.size)]
    checkpoint[4], checkpoint[15] = "c3", "c14"  # a copy of a checkpoint inside each population
    models = pd.DataFrame({"model_id": [f"m{j}" for j in range(population.size)], "population": population,
                           "checkpoint": checkpoint})
    matrix = ResponseMatrix(responses, models, np.array([f"t/{i}" for i in range(n_items)]), "test", False)
    b_hat = b + rng.normal(0, 0.3, n_items)
    b_hat[2] = np.nan  # an item nobody answered
    frame = pd.DataFrame({"b_hat": b_hat, "b_sd": rng.uniform(0.2, 0.4, n_items)})
    return SimpleNamespace(matrix=matrix, fit=SimpleNamespace(theta=theta), frame=frame)


def test_calibration_headline_reads_the_fit_and_splits_within_populations():
    inputs = _pool()
    spec = IRTSpec(max_steps=5)
    out = calibration_headline(inputs, spec, seed=3)
    assert set(CALIBRATION_KEYS) <= set(out)
    assert {k: out[k] for k in ("b_min", "b_sd", "theta_max")} == pytest.approx(
        {k: v for k, v in parameter_ranges(inputs.frame["b_hat"], inputs.fit.theta).items()
         if k in ("b_min", "b_sd", "theta_max")})
    finite = inputs.frame.dropna()
    assert out["b_reliability"] == pytest.approx(1 - np.mean(finite["b_sd"] ** 2) / np.var(finite["b_hat"]))
    models = inputs.matrix.models
    groups = pd.factorize(models["checkpoint"])[0]
    reference = split_cohort_reliability(inputs.matrix, spec, seed=3, groups=groups,
                                         strata=models["population"].to_numpy())
    assert out["split_cohort_r"] == pytest.approx(reference["r"])
    assert out["spearman_brown"] == pytest.approx(2 * out["split_cohort_r"] / (1 + out["split_cohort_r"]))
    assert out["n_strata"] == 2 and out["cohort_size"] + out["cohort_second_size"] == 21
    assert out["cohort_split"] == "groups" and out["cohort_groups"] == len(np.unique(groups))


def test_calibration_headline_without_populations_and_with_a_bad_split():
    inputs = _pool()
    m = inputs.matrix
    models = m.models.drop(columns="population")
    inputs.matrix = ResponseMatrix(m.responses, models, m.item_ids, "test", False)
    out = calibration_headline(inputs, IRTSpec(max_steps=5), seed=3, cohort_split="rows")
    assert out["n_strata"] is None and out["cohort_split"] == "rows" and out["cohort_groups"] is None
    assert out["cohort_size"] == out["cohort_second_size"] == 10  # 21 rows: a random split drops one
    with pytest.raises(ParameterError, match="cohort_split"):
        calibration_headline(inputs, IRTSpec(max_steps=5), seed=3, cohort_split="families")


def test_table2_ratios_keep_a_negative_cv_r2_and_are_nan_over_a_baseline_that_predicts_nothing():
    import pandas as pd

    parts = ["global", "STEM", "non-STEM"]
    rows = {"nine indicators": [-0.02, 0.05, 0.03], "length + readability": [0.01, 0.0, 0.02],
            "encoder ceiling": [0.2, -0.1, 0.1], "nine + option set": [0.0, 0.06, 0.04]}
    table = pd.DataFrame(rows, index=parts).T
    table.columns = pd.MultiIndex.from_product([["item"], parts])
    ratios = table2_ratios(table)
    assert ratios["ratio_framework_vs_length_global"] == pytest.approx(-2.0)  # overfitting shows, not hidden
    assert np.isnan(ratios["ratio_framework_vs_length_stem"])  # the baseline's CV R² is not positive
    assert np.isnan(ratios["share_of_ceiling_stem"])
    assert ratios["share_of_ceiling_nonstem"] == pytest.approx(0.3)
