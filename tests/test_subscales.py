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


# ---------------------------------------------------------------- intervals over models (issue 36)
def test_model_bootstrap_mean_is_the_replicates_mean_and_narrows_with_more_models():
    from mmlu_audit.analyses.subscales import subscale_model_bootstrap

    y, stem = two_dimensional(0.8, seed=11, n_models=1600, n_items=150)
    table = matched_subscale_correlation(y[:100], stem, n_splits=10, seed=2)
    few = subscale_model_bootstrap(y[:100], stem, n_splits=10, n_boot=200, seed=2)
    assert few["mean"] == pytest.approx(table["r_disattenuated"].mean(), rel=1e-12)
    assert few["low"] < few["mean"] < few["high"] and few["n_groups"] == 100 and few["n_boot"] == 200
    many = subscale_model_bootstrap(y, stem, n_splits=10, n_boot=200, seed=2)
    # the interval is a sampling interval over models: 16 × the models, about a quarter the width
    ratio = (few["high"] - few["low"]) / (many["high"] - many["low"])
    assert 2.5 < ratio < 6.5, ratio
    assert subscale_model_bootstrap(y[:100], stem, n_splits=10, n_boot=200, seed=2) == few


def test_model_bootstrap_resamples_whole_groups():
    """Doubling every model and resampling the pairs gives the interval of the undoubled models;
    resampling the copies one by one would claim twice the models and a narrower interval."""
    from mmlu_audit.analyses.subscales import subscale_model_bootstrap

    y, stem = two_dimensional(0.7, seed=12, n_models=80, n_items=120)
    once = subscale_model_bootstrap(y, stem, n_splits=6, n_boot=150, seed=3)
    doubled, pairs = np.repeat(y, 2, axis=0), np.repeat(np.arange(80), 2)
    grouped = subscale_model_bootstrap(doubled, stem, n_splits=6, n_boot=150, groups=pairs, seed=3)
    for key in ("mean", "low", "high"):
        assert grouped[key] == pytest.approx(once[key], abs=1e-12)
    assert grouped["n_groups"] == 80
    naive = subscale_model_bootstrap(doubled, stem, n_splits=6, n_boot=150, seed=3)
    assert naive["high"] - naive["low"] < 0.85 * (once["high"] - once["low"])
    with pytest.raises(DataError, match="one label per model"):
        subscale_model_bootstrap(y, stem, n_splits=6, n_boot=10, groups=pairs, seed=3)
    with pytest.raises(ParameterError, match="n_boot"):
        subscale_model_bootstrap(y, stem, n_splits=6, n_boot=0, seed=3)


def _fit(mean, sd):
    from types import SimpleNamespace

    return SimpleNamespace(theta=mean, dataset={"theta_sd": np.full_like(mean, sd)})


def test_ability_correlation_bootstrap_is_a_sampling_interval_over_models():
    from mmlu_audit.analyses.subscales import ability_correlation_bootstrap
    from mmlu_audit.inference import fisher_interval
    from mmlu_audit.irt import ability_correlation

    rng = np.random.default_rng(8)
    mean = rng.multivariate_normal([0, 0], [[1, 0.8], [0.8, 1]], 200)
    rows = np.arange(200) >= 20
    r = np.corrcoef(mean[rows].T)[0, 1]
    exact = ability_correlation_bootstrap(_fit(mean, 0.0), rows, seed=1, n_draws=4000)
    # without estimation error it is the plain bootstrap of r: about Fisher's interval for n = 180
    low, high = fisher_interval(r, 180)
    assert exact["median"] == pytest.approx(r, abs=0.01) and exact["n"] == 180
    assert exact["high"] - exact["low"] == pytest.approx(high - low, rel=0.2)
    # with estimation error it is wider than the posterior-only interval of the same draws' spread
    noisy = ability_correlation_bootstrap(_fit(mean, 0.3), rows, seed=1)
    posterior = ability_correlation(_fit(mean, 0.3), rows, seed=1)
    assert noisy["median"] == pytest.approx(posterior["median"], abs=0.02)
    assert noisy["high"] - noisy["low"] > 1.5 * (posterior["high"] - posterior["low"])
    assert ability_correlation_bootstrap(_fit(mean, 0.3), rows, seed=1) == noisy
    with pytest.raises(DataError, match="two-dimensional"):
        ability_correlation_bootstrap(_fit(mean[:, 0], 0.1), rows, seed=1)
    with pytest.raises(ParameterError, match="n_draws"):
        ability_correlation_bootstrap(_fit(mean, 0.1), rows, seed=1, n_draws=1)


def test_two_dimension_headline_is_the_chapters_computation():
    """Every figure equals its building block run directly (fits come from the test cache) on the
    items somebody answered, and the intervals are ordered around their estimates."""
    import pandas as pd

    from mmlu_audit.analyses.subscales import HEADLINE_KEYS, two_dimension_headline
    from mmlu_audit.data.responses import ResponseMatrix
    from mmlu_audit.inference import fisher_interval
    from mmlu_audit.irt import IRTSpec, fit_cached, heldout_loglik, holdout_mask, paired_z

    y, stem = two_dimensional(0.6, seed=13, n_models=40, n_items=61)
    y[:, 60] = -1  # nobody answered the last item: it leaves every fit
    subject = np.repeat(np.arange(7), 10)[:61].astype(str)
    models = pd.DataFrame({"model_id": [f"m{k}" for k in range(40)],
                           "checkpoint": [f"c{k}" for k in range(40)]})
    matrix = ResponseMatrix(y, models, np.array([f"i{k}" for k in range(61)]), "test", False)
    spec = IRTSpec(model="2pl", b_prior="paper", seed=0, max_steps=60)
    out = two_dimension_headline(matrix, stem, subject, spec, seed=5, n_splits=8, n_boot=100, n_draws=300)
    assert tuple(out) == HEADLINE_KEYS
    answered, stem = matrix.take(columns=np.arange(61) < 60), stem[:60]
    fit_2d = fit_cached(answered, spec.with_(model="2d"), item_stem=stem, progress=False)
    assert out["rho_2d"] == fit_2d.scalar("rho")["mean"] and out["n_distinct_models"] == 40
    assert (out["rho_2d_low"], out["rho_2d_high"]) == fisher_interval(out["rho_2d"], 40)
    mask = holdout_mask(answered, 0.05, seed=5)
    gain = paired_z(heldout_loglik(fit_cached(answered, spec.with_(model="2d"), item_stem=stem, holdout=mask,
                                              progress=False), answered),
                    heldout_loglik(fit_cached(answered, spec, holdout=mask, progress=False), answered))
    assert out["heldout_gain_nats"] == gain["total_nats"] and out["heldout_paired_z"] == gain["z"]
    assert out["n_heldout"] == int(mask.sum()) and out["heldout_n_models"] <= 40
    assert out["heldout_n_subjects"] == 6
    table = matched_subscale_correlation(answered, stem, n_splits=8, seed=5)
    assert out["subscale_r"] == pytest.approx(table["r_disattenuated"].mean(), rel=1e-12)
    assert out["subscale_r_boot_low"] < out["subscale_r"] < out["subscale_r_boot_high"]
    assert out["rho_working_boot_low"] <= out["rho_2d_working"] <= out["rho_working_boot_high"]
    assert out["rho_working_low"] <= out["rho_2d_working"] <= out["rho_working_high"]
    with pytest.raises(DataError, match="one subject"):
        two_dimension_headline(matrix, np.r_[stem, False], subject[:-1], spec, seed=5, n_splits=8, n_boot=100)
