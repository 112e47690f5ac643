"""The chapter-facing summaries of a calibration: ranges, ICC picks and bins, the recovery table."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.irt import (ability_correlation, icc_bins, items_at_quantiles, parameter_ranges,
                             recovery_stats, recovery_table)


def test_parameter_ranges_ignore_unanswered_items():
    out = parameter_ranges([1.0, np.nan, -2.0, 3.0], np.array([0.5, -0.5]))
    assert (out["b_min"], out["b_max"], out["theta_min"], out["theta_max"]) == (-2.0, 3.0, -0.5, 0.5)
    assert out["b_sd"] == pytest.approx(np.std([1.0, -2.0, 3.0])) and out["theta_sd"] == pytest.approx(0.5)


def test_items_at_quantiles_are_order_statistics_of_the_finite_estimates():
    b_hat = np.array([5.0, np.nan, 1.0, 3.0, 2.0, 4.0, np.nan])  # sorted finite: columns 2, 4, 3, 5, 0
    np.testing.assert_array_equal(items_at_quantiles(b_hat, [0.0, 0.5, 0.95, 1.0]), [2, 3, 5, 0])
    with pytest.raises(ParameterError, match="quantiles"):
        items_at_quantiles(b_hat, [1.5])
    with pytest.raises(DataError, match="no finite"):
        items_at_quantiles([np.nan])


def test_icc_bins_by_hand():
    theta = np.arange(8.0)  # quartile bins {0,1}, {2,3}, {4,5}, {6,7}
    correct = np.array([0, 0, 1, 0, 1, 1, -1, 1])
    observed = correct >= 0  # model 6 did not answer
    out = icc_bins(theta, correct, observed, n_bins=4)
    assert list(out.index) == [0, 1, 2, 3]
    np.testing.assert_allclose(out["centre"], [0.5, 2.5, 4.5, 7.0])
    np.testing.assert_allclose(out["share"], [0.0, 0.5, 1.0, 1.0])
    assert list(out["n"]) == [2, 2, 2, 1]
    with pytest.raises(DataError, match="shapes differ"):
        icc_bins(theta, correct[:-1], observed)


def test_icc_bins_track_the_generating_curve():
    rng = np.random.default_rng(4)
    theta = rng.normal(size=20_000)
    p = 1 / (1 + np.exp(-1.5 * (theta - 0.3)))
    out = icc_bins(theta, (rng.random(theta.size) < p).astype(np.int8), np.ones(theta.size, bool))
    expected = 1 / (1 + np.exp(-1.5 * (out["centre"] - 0.3)))
    np.testing.assert_allclose(out["share"], expected, atol=0.03)  # binomial SE ≈ 0.011 per bin
    assert out["n"].sum() == theta.size


def test_recovery_table_matches_recovery_stats_and_averages_theta_dimensions():
    rng = np.random.default_rng(2)
    b, theta = rng.normal(size=50), rng.normal(size=(30, 2))
    fits = {"half": SimpleNamespace(b=0.5 * b + rng.normal(0, 0.01, 50), theta=theta.mean(axis=1)),
            "noisy": SimpleNamespace(b=b + rng.normal(0, 1, 50), theta=rng.normal(size=30))}
    table = recovery_table(fits, {"b": b, "theta": theta})
    assert list(table.index) == ["half", "noisy"] and table.index.name == "fit"
    assert table.loc["half", "slope"] == pytest.approx(0.5, abs=0.01)
    assert table.loc["half", "r(θ̂, θ)"] == pytest.approx(1.0)
    assert table.loc["noisy", "r(b̂, b)"] == pytest.approx(recovery_stats(fits["noisy"].b, b)["r"])
    one_dim = recovery_table(fits, {"b": b, "theta": theta.mean(axis=1)})
    pd.testing.assert_frame_equal(one_dim, table)


def test_recovery_table_measures_theta_among_the_given_models_only():
    """Rows planted at a stand-in θ (near-chance models) spoil r over all models, not among the rest."""
    rng = np.random.default_rng(5)
    b, theta = rng.normal(size=40), rng.normal(size=60)
    working = np.arange(60) >= 10
    estimate = theta.copy()
    estimate[~working] = rng.normal(0, 3, 10)  # unidentified: the fit puts them anywhere
    planted = theta.copy()
    planted[~working] = -12.0  # the world's stand-in
    fits = {"fit": SimpleNamespace(b=b, theta=estimate)}
    among = recovery_table(fits, {"b": b, "theta": planted}, models=working)
    assert among.loc["fit", "r(θ̂, θ)"] == pytest.approx(1.0)
    assert recovery_table(fits, {"b": b, "theta": planted}).loc["fit", "r(θ̂, θ)"] < 0.9
    assert among.loc["fit", "r(b̂, b)"] == pytest.approx(1.0)  # items are unaffected
    with pytest.raises(DataError, match="one bool per model"):
        recovery_table(fits, {"b": b, "theta": planted}, models=working[:-1])
    with pytest.raises(DataError, match="at least three"):
        recovery_table(fits, {"b": b, "theta": planted}, models=np.arange(60) < 2)


def _two_dim_fit(mean, sd):
    return SimpleNamespace(theta=mean, dataset={"theta_sd": np.full_like(mean, sd)})


def test_ability_correlation_of_posterior_draws():
    rng = np.random.default_rng(8)
    mean = rng.multivariate_normal([0, 0], [[1, 0.9], [0.9, 1]], 400)
    rows = np.arange(400) >= 50
    exact = ability_correlation(_two_dim_fit(mean, 0.0), rows, seed=1, n_draws=50)
    assert exact["r"] == pytest.approx(np.corrcoef(mean[rows].T)[0, 1]) and exact["n"] == 350
    assert exact["low"] == pytest.approx(exact["r"]) and exact["high"] == pytest.approx(exact["r"])
    noisy = ability_correlation(_two_dim_fit(mean, 0.3), rows, seed=1)
    assert noisy["r"] == exact["r"]  # the point is the posterior means' correlation
    # independent draw noise of variance s² attenuates the correlation by var / (var + s²)
    var = mean[rows].var(axis=0).mean()
    assert noisy["median"] == pytest.approx(exact["r"] * var / (var + 0.09), abs=0.005)
    assert noisy["low"] < noisy["median"] < noisy["high"] < exact["r"]
    assert ability_correlation(_two_dim_fit(mean, 0.3), rows, seed=1) == noisy
    with pytest.raises(DataError, match="two-dimensional"):
        ability_correlation(_two_dim_fit(mean[:, 0], 0.1), rows, seed=1)
    with pytest.raises(DataError, match="one bool per model"):
        ability_correlation(_two_dim_fit(mean, 0.1), rows[:-1], seed=1)
    with pytest.raises(ParameterError, match="n_draws"):
        ability_correlation(_two_dim_fit(mean, 0.1), rows, seed=1, n_draws=1)


# ---------------------------------------------------------------- split cohorts within strata
def _stratified_example():
    """Two populations (HELM-like 20 rows, OpenCompass-like 11) of checkpoints with 1–3 copies."""
    rng = np.random.default_rng(4)
    sizes = rng.integers(1, 4, 30)
    groups = np.repeat(np.arange(30), sizes)
    strata = np.where(groups < 18, "HELM", "OpenCompass")  # groups 0–17 in one, 18–29 in the other
    return groups, strata


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 11])
def test_stratified_cohorts_take_half_of_each_stratum_and_whole_groups(seed):
    from mmlu_audit.irt.evaluate import _cohort_rows

    groups, strata = _stratified_example()
    first, second = _cohort_rows(groups.size, seed=seed, groups=groups, strata=strata)
    assert not set(first) & set(second) and len(first) + len(second) == groups.size
    assert not set(groups[first]) & set(groups[second])  # whole groups only
    bound = 0
    for layer in np.unique(strata):
        rows = np.flatnonzero(strata == layer)
        in_first = np.isin(rows, first).sum()
        largest = np.bincount(groups[rows]).max()
        assert abs(2 * in_first - rows.size) <= largest, (layer, in_first, rows.size)  # half, to a group
        bound += largest
    assert abs(first.size - second.size) <= bound  # so about half overall
    again = _cohort_rows(groups.size, seed=seed, groups=groups, strata=strata)
    assert all(np.array_equal(x, y) for x, y in zip((first, second), again, strict=True))


def test_stratified_rows_halve_each_stratum_exactly_when_every_row_is_its_own_group():
    from mmlu_audit.irt.evaluate import _cohort_rows

    strata = np.array(["A"] * 20 + ["B"] * 11)
    first, second = _cohort_rows(strata.size, seed=5, strata=strata)
    assert (strata[first] == "A").sum() == (strata[second] == "A").sum() == 10
    assert sorted([(strata[first] == "B").sum(), (strata[second] == "B").sum()]) == [5, 6]
    # a plain random split of the same rows is free to unbalance the strata; this one is not
    unbalanced = [abs((strata[_cohort_rows(31, seed=s)[0]] == "A").sum() - 8) for s in range(40)]
    assert max(unbalanced) > 0


def test_odd_strata_do_not_all_favour_one_cohort():
    from mmlu_audit.irt.evaluate import _cohort_rows

    strata = np.repeat(np.arange(6), 5)  # six strata of five rows: each split 3–2 one way or the other
    first, second = _cohort_rows(strata.size, seed=0, strata=strata)
    assert abs(first.size - second.size) <= 1


def test_stratified_split_rejects_groups_across_strata_and_wrong_shapes():
    from mmlu_audit.irt.evaluate import _cohort_rows

    groups = np.array([0, 0, 1, 1, 2, 2])
    with pytest.raises(DataError, match="spans two strata"):
        _cohort_rows(6, seed=0, groups=groups, strata=np.array([0, 1, 0, 0, 1, 1]))
    with pytest.raises(DataError, match="one label per model"):
        _cohort_rows(6, seed=0, groups=groups, strata=np.zeros(5))


def test_split_cohort_reliability_reports_its_strata():
    from mmlu_audit.irt import IRTSpec, split_cohort_reliability
    rng = np.random.default_rng(2)
    theta, b = rng.normal(size=24), rng.normal(size=30)
    y = (rng.random((24, 30)) < 1 / (1 + np.exp(-(theta[:, None] - b)))).astype(np.int8)
    strata = np.repeat(["HELM", "OpenCompass"], 12)
    out = split_cohort_reliability(y, IRTSpec(max_steps=5), seed=1, groups=np.arange(24), strata=strata)
    assert out["n_strata"] == 2 and out["cohort_size"] == out["second_size"] == 12
    assert (out["split"], out["n_groups"]) == ("groups", 24)
    plain = split_cohort_reliability(y, IRTSpec(max_steps=5), seed=1)
    assert plain["n_strata"] is None and (plain["split"], plain["n_groups"]) == ("rows", None)
    one = split_cohort_reliability(y, IRTSpec(max_steps=5), seed=1, strata=np.zeros(24))
    assert one["n_strata"] == 1 and one["split"] == "rows"  # one stratum is no stratification
