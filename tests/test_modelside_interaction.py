"""The native interaction model: recovery of a planted γ, the model bootstrap, bad inputs."""

import numpy as np
import pandas as pd
import pytest

from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.irt import IRTSpec, fit_irt
from mmlu_audit.analyses.modelside import bootstrap_gammas, gamma_summary, interval_table
from mmlu_audit.analyses.modelside.interaction import recovery_check
from mmlu_audit.core.scaling import standardise

GAMMA0, GAMMA1 = -0.4, -0.3


@pytest.fixture(scope="module")
def world():
    rng = np.random.default_rng(11)
    n_models, n_items = 300, 400
    theta = rng.normal(size=n_models)
    b, a = rng.normal(0, 1, n_items), np.exp(rng.normal(0, 0.2, n_items))
    w = standardise(rng.gamma(2.0, 1.0, n_items))
    eta = a * (theta[:, None] - b) + w * (GAMMA0 + GAMMA1 * theta[:, None])
    y = (rng.random(eta.shape) < 0.25 + 0.75 / (1 + np.exp(-eta))).astype(np.int8)
    return y, w


@pytest.fixture(scope="module")
def spec():
    return IRTSpec(model="interaction", b_prior="hierarchical", guessing=0.25, seed=0, max_steps=600)


@pytest.fixture(scope="module")
def fit(world, spec):
    y, w = world
    return fit_irt(y, spec, item_covariate=w, progress=False)


def test_planted_interaction_is_recovered(fit):
    # 120,000 cells; the N(0, 1) priors on b and γ compete with the per-item a and b for
    # the depth signal, so the tolerance is loose: sign and rough size, not decimals.
    summary = gamma_summary(fit)
    assert summary.loc["gamma1", "estimate"] == pytest.approx(GAMMA1, abs=0.12)
    assert summary.loc["gamma0", "estimate"] < 0
    assert (summary["low"] <= summary["estimate"]).all() and (summary["estimate"] <= summary["high"]).all()


def test_model_bootstrap_is_seeded_and_side_by_side(world, spec, fit):
    y, w = world
    quick = spec.with_(max_steps=150)
    boot = bootstrap_gammas(y, w, quick, replicates=2, seed=5, progress=False)
    again = bootstrap_gammas(y, w, quick, replicates=2, seed=5, progress=False)
    assert boot.equals(again) and list(boot.columns) == ["gamma0", "gamma1", "converged"]
    table = interval_table(fit, boot)
    assert list(table.index) == ["gamma0", "gamma1"] and (table["width ratio"] > 0).all()


def test_bootstrap_refuses_other_models_and_missing_seed(world, spec):
    y, w = world
    with pytest.raises(DataError, match="interaction"):
        bootstrap_gammas(y, w, spec.with_(model="3pl"), replicates=1, seed=0, progress=False)
    with pytest.raises(ParameterError, match="seed"):
        bootstrap_gammas(y, w, spec, replicates=1, seed=None, progress=False)


def test_joint_bootstrap_resamples_whole_subjects_as_well_as_models(world, spec):
    from mmlu_audit.analyses.modelside.interaction import _resampled_columns

    y, w = world
    subjects = np.repeat(np.arange(20), 20)
    columns = _resampled_columns(subjects, np.random.default_rng(0))
    assert columns.size == 400 and all(np.isin(np.flatnonzero(subjects == s), columns).all()
                                       for s in np.unique(subjects[columns]))
    quick = spec.with_(max_steps=100)
    joint = bootstrap_gammas(y, w, quick, replicates=2, seed=5, item_clusters=subjects, progress=False)
    again = bootstrap_gammas(y, w, quick, replicates=2, seed=5, item_clusters=subjects, progress=False)
    rows_only = bootstrap_gammas(y, w, quick, replicates=2, seed=5, progress=False)
    assert joint.equals(again) and not joint[["gamma0", "gamma1"]].equals(rows_only[["gamma0", "gamma1"]])
    with pytest.raises(DataError, match="one label per item"):
        bootstrap_gammas(y, w, quick, replicates=1, seed=5, item_clusters=subjects[:10], progress=False)


def test_planted_interaction_world_and_its_target():
    from mmlu_audit.analyses.modelside import planted_gamma_target, simulate_interaction

    rng = np.random.default_rng(3)
    theta, a, b = rng.normal(size=200), np.exp(rng.normal(0, 0.2, 300)), rng.normal(0, 1, 300)
    w = rng.gamma(2.0, 1.0, 300)
    observed = rng.random((200, 300)) > 0.1
    y = simulate_interaction(theta, a, b, w, -0.2, -0.1, 0.25, observed, seed=1)
    assert np.all(y[~observed] == -1) and set(np.unique(y[observed])) == {0, 1}
    target = planted_gamma_target(a, b, w, -0.2, -0.1)
    assert target["gamma1"] == pytest.approx(-0.1 + np.polyfit(standardise(w), a, 1)[0])
    fit = fit_irt(y, IRTSpec(model="interaction", b_prior="hierarchical", guessing=0.25, max_steps=400),
                  item_covariate=w, progress=False)
    g1 = fit.scalar("gamma1")
    assert abs(g1["mean"] - target["gamma1"]) < max(3 * g1["sd"], 0.02), (g1, target)


def test_recovery_check_says_whether_the_interval_covers_the_target_and_how_far_off_it_is():
    inside = recovery_check(estimate=-0.006, low=-0.02, high=0.01, target=0.0)
    assert inside["covers"] is True and inside["offset"] == pytest.approx(-0.006)
    # a 95 % interval 2 × 1.96 SDs wide: an SD of 0.03 / 3.92
    assert inside["offset_sd"] == pytest.approx(0.006 / (0.03 / (2 * 1.959964)), rel=1e-6)
    outside = recovery_check(estimate=-0.009, low=-0.022, high=-0.001, target=0.0)
    assert outside["covers"] is False and outside["offset"] == pytest.approx(-0.009)
    # the bounds themselves are covered; a target above the interval is not
    assert recovery_check(estimate=0.0, low=-0.012, high=-0.001, target=-0.001)["covers"] is True
    assert recovery_check(estimate=-0.006, low=-0.012, high=-0.001, target=0.004)["covers"] is False
    # a wider level reads the same width as a smaller SD
    wide = recovery_check(estimate=0.1, low=-1.0, high=1.0, target=0.0, level=0.99)
    assert wide["offset_sd"] == pytest.approx(0.1 / (2 / (2 * 2.575829)), rel=1e-6)
    # an interval of width 0 has no SD to count in
    assert recovery_check(estimate=0.5, low=0.2, high=0.2, target=0.2)["offset_sd"] == np.inf


def test_row_clusters_draw_whole_checkpoints():
    from mmlu_audit.analyses.modelside.interaction import _row_counts

    checkpoints = np.repeat(np.arange(30), [1, 2, 3] * 10)  # 60 rows, duplicates of one checkpoint
    counts = _row_counts(checkpoints, checkpoints.size, np.random.default_rng(0))
    for label in np.unique(checkpoints):  # the rows of one checkpoint are drawn together, equally often
        assert np.unique(counts[checkpoints == label]).size == 1
    first = np.unique(checkpoints, return_index=True)[1]
    assert counts[first].sum() == 30  # 30 checkpoints drawn with replacement, not 60 rows
    plain = _row_counts(None, 60, np.random.default_rng(0))
    assert plain.sum() == 60


def test_the_basic_interval_reflects_the_refits_about_the_estimate(fit):
    rng = np.random.default_rng(2)
    boot = pd.DataFrame({"gamma0": rng.gamma(2.0, 0.1, 400), "gamma1": rng.normal(0.3, 0.05, 400)})
    table = interval_table(fit, boot)
    for name in ("gamma0", "gamma1"):
        estimate = table.loc[name, "estimate"]
        assert table.loc[name, "bootstrap low"] == pytest.approx(2 * estimate - boot[name].quantile(0.975))
        assert table.loc[name, "bootstrap high"] == pytest.approx(2 * estimate - boot[name].quantile(0.025))
        assert table.loc[name, "percentile low"] == pytest.approx(boot[name].quantile(0.025))
        assert table.loc[name, "bootstrap bias"] == pytest.approx(boot[name].mean() - estimate)
