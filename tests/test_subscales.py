"""Tests of mmlu_audit.analyses.subscales: the disattenuated subscale correlation reaches 1 on
one-dimensional data, recovers a planted ability correlation on two-dimensional data,
and obeys the classical formulas on hand-made inputs."""

from __future__ import annotations

import numpy as np
import pytest

from mmlu_audit.core.errors import ParameterError
from mmlu_audit.core.errors import DataError
from mmlu_audit.analyses.subscales import (disattenuated, matched_subscale_correlation, share_correct,
                                  split_half_reliability, summarise_replicates)


def two_dimensional(rho, seed, n_models=1500, n_items=600):
    rng = np.random.default_rng(seed)
    theta = rng.multivariate_normal([0, 0], [[1, rho], [rho, 1]], n_models)
    stem = np.arange(n_items) < n_items // 3
    ability = np.where(stem[None, :], theta[:, :1], theta[:, 1:])
    b = rng.normal(size=n_items)
    y = (rng.random((n_models, n_items)) < 1 / (1 + np.exp(-(ability - b)))).astype(np.int8)
    return y, stem


def test_one_ability_gives_disattenuated_correlation_near_one():
    y, stem = two_dimensional(1.0 - 1e-9, seed=0)
    table = matched_subscale_correlation(y, stem, n_splits=30, seed=1)
    summary = summarise_replicates(table["r_disattenuated"])
    assert summary["mean"] == pytest.approx(1.0, abs=0.02)
    assert (table["r"] < table["r_disattenuated"]).all()  # correction only ever raises r here


def test_planted_correlation_is_recovered_and_below_one():
    y, stem = two_dimensional(0.8, seed=2)
    table = matched_subscale_correlation(y, stem, n_splits=30, seed=3)
    summary = summarise_replicates(table["r_disattenuated"])
    # share correct is a monotone but non-linear map of θ, so the true-score r sits slightly under ρ
    assert 0.74 < summary["mean"] < 0.82
    assert summary["share_at_least_one"] == 0.0


def test_formulas_by_hand():
    assert disattenuated(0.6, 0.9, 0.4) == pytest.approx(0.6 / 0.6)
    assert np.isnan(disattenuated(0.5, -0.1, 0.8))
    y = np.array([[1, 0, -1], [1, 1, 0], [-1, -1, -1]], np.int8)
    np.testing.assert_allclose(share_correct(y, np.array([0, 1, 2])), [0.5, 2 / 3, np.nan])
    rng_a, rng_b = np.random.default_rng(5), np.random.default_rng(5)
    data, _ = two_dimensional(0.9, seed=4, n_models=300, n_items=60)
    columns = np.arange(40)
    halves = rng_b.permutation(columns)
    r = np.corrcoef(data[:, halves[:20]].mean(1), data[:, halves[20:]].mean(1))[0, 1]
    assert split_half_reliability(data, columns, rng_a) == pytest.approx(2 * r / (1 + r))


def test_summary_interval_and_share():
    summary = summarise_replicates(np.r_[np.linspace(0.9, 0.99, 99), 1.0])
    assert summary["share_at_least_one"] == pytest.approx(0.01)
    assert summary["low"] < summary["mean"] < summary["high"] <= 1.0


def test_same_seed_same_table_and_bad_inputs():
    y, stem = two_dimensional(0.9, seed=6, n_models=200, n_items=90)
    first = matched_subscale_correlation(y, stem, n_splits=5, seed=9)
    assert first.equals(matched_subscale_correlation(y, stem, n_splits=5, seed=9))
    with pytest.raises(ParameterError, match="seed"):
        matched_subscale_correlation(y, stem, n_splits=5, seed=None)
    with pytest.raises(DataError, match="boolean"):
        matched_subscale_correlation(y, stem.astype(int), n_splits=5, seed=1)
    with pytest.raises(DataError, match="length"):
        matched_subscale_correlation(y, stem, n_splits=5, seed=1, length=1000)
