"""The native interaction model: recovery of a planted γ, the model bootstrap, bad inputs."""

import numpy as np
import pandas as pd
import pytest

from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.irt import IRTSpec, fit_irt
from mmlu_audit.analyses.modelside import bootstrap_gammas, gamma_summary, interval_table
from mmlu_audit.analyses.modelside.interaction import bootstrap_world_note, gamma_world_note
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


def test_gamma_world_note_states_the_all_model_fit_where_the_world_has_floor_models():
    gamma1 = {"estimate": -0.006, "low": -0.012, "high": -0.001}
    plain = gamma_world_note(gamma1=gamma1, item_target=0.004)
    assert "estimates γ1 = -0.006, mean-field interval [-0.012, -0.001]" in plain
    assert "which it covers: no" in plain and "guessing floor" not in plain
    assert "which it covers: yes" in gamma_world_note(gamma1=gamma1, item_target=-0.005)
    assert gamma_world_note(gamma1=gamma1, item_target=0.004,
                            all_models={"n_floor": 0, "estimate": 0.0, "low": -1, "high": 1,
                                        "n_planted_chance": 0, "rule_matches": True}) == plain
    floor = {"n_floor": 130, "estimate": -0.019, "low": -0.026, "high": -0.013, "n_planted_chance": 130,
             "rule_matches": True}
    note = gamma_world_note(gamma1=gamma1, item_target=0.004, all_models=floor)
    assert note.startswith(plain) and "130 models below the floor rule, exactly the models planted" in note
    assert "γ1 = -0.019 (mean-field [-0.026, -0.013]), which excludes the planted 0: yes" in note
    covering = gamma_world_note(gamma1=gamma1, item_target=0.004,
                                all_models=floor | {"high": 0.002, "rule_matches": False})
    assert "excludes the planted 0: no" in covering and "not exactly the 130 models" in covering


def test_bootstrap_world_note_says_whether_the_interval_covers_the_planted_zero():
    assert "[-0.020, 0.010], covers the planted 0: yes" in bootstrap_world_note(
        estimate=-0.006, boot_low=-0.02, boot_high=0.01)
    assert "covers the planted 0: no" in bootstrap_world_note(estimate=-0.009, boot_low=-0.022,
                                                              boot_high=-0.001)



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
