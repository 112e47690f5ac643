"""A world where the guessing-floor claim is false: an ability × depth interaction at a real design."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mmlu_audit.analyses.central import guessing_floor_test
from mmlu_audit.analyses.modelside import beta_theta_correlations, column_submatrix, reasoning_sensitivity
from mmlu_audit.analyses.pipeline import answered_columns, calibration_spec
from mmlu_audit.analyses.power import _scratch_cache, world_frame
from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.core.paper import PAPER
from mmlu_audit.core.scaling import standardise
from mmlu_audit.data.responses import MISSING, ResponseMatrix
from mmlu_audit.features import INDICATORS
from mmlu_audit.irt import fit_irt
from mmlu_audit.worlds.real_design import (AbilityDepth, abilities_for_accuracy, simulate_at_design,
                                           two_stage_interaction)
from mmlu_audit.worlds.simulated import WorldSpec, plant_items, simulate_world


@pytest.fixture(scope="module")
def design(small_items):
    """Eight models with spread accuracies on a 2,280-item slice, one missing block; random indicators."""
    rng = np.random.default_rng(3)
    n_items = len(small_items)
    accuracy = np.linspace(0.35, 0.85, 8)
    responses = (rng.random((8, n_items)) < accuracy[:, None]).astype(np.int8)
    responses[:3, : n_items // 3] = -1
    models = pd.DataFrame({"model_id": [f"m{j}" for j in range(8)]})
    matrix = ResponseMatrix(responses, models, small_items["item_id"].to_numpy(), "toy", False)
    features = pd.DataFrame(rng.normal(size=(n_items, len(INDICATORS))), columns=list(INDICATORS),
                            index=pd.Index(small_items["item_id"].to_numpy(), name="item_id"))
    return matrix, small_items, features


def _world(design, gamma, seed):
    matrix, items, features = design
    spec = WorldSpec(ability_depth=gamma)
    covariates = features.loc[items["item_id"].to_numpy(), list(spec.slopes)].reset_index(drop=True)
    return simulate_at_design(matrix, spec, items, covariates, seed=seed)


def _stem_r(world, items, features):
    """Two-stage r(β, θ) over all models, against the planted abilities (no calibration)."""
    stem = items["stem"].to_numpy(bool)
    sub = column_submatrix(world.matrix, stem)
    beta = reasoning_sensitivity(sub.responses, features["wscg_depth"].to_numpy()[stem])["beta"].to_numpy()
    return beta_theta_correlations(beta, world.truth["theta"][:, 0])["all"]


def test_gamma_zero_draws_the_plain_3pl_world_bit_for_bit(design):
    matrix, items, features = design
    world = _world(design, 0.0, seed=11)
    assert WorldSpec(ability_depth=0.0).to_json() == WorldSpec().to_json()  # cache keys unchanged
    # the world without the option, written out: items, abilities for accuracy, then the 3PL draws
    spec = WorldSpec()
    x = standardise(features[list(spec.slopes)].to_numpy(float))
    item_rng, response_rng = (np.random.default_rng(s) for s in np.random.SeedSequence(11).spawn(2))
    truth = plant_items(spec, items.reset_index(drop=True), x, item_rng)
    accuracy = matrix.accuracy().to_numpy()
    theta = abilities_for_accuracy(accuracy, truth["a"], truth["b"], 0.25, matrix.observed)
    p = 0.25 + 0.75 / (1 + np.exp(-truth["a"][None, :] * (theta[:, None] - truth["b"][None, :])))
    plain = (response_rng.random(p.shape) < p).astype(np.int8)
    plain[~matrix.observed] = MISSING
    assert np.array_equal(world.matrix.responses, plain)
    assert not world.truth["ability_depth"].any() and "ability_depth" not in world.matrix.meta["spec"]


def test_a_planted_interaction_is_seeded_and_keeps_the_accuracies(design):
    matrix, items, _ = design
    world = _world(design, -0.5, seed=2)
    assert np.array_equal(world.matrix.responses, _world(design, -0.5, seed=2).matrix.responses)
    assert not np.array_equal(world.matrix.responses, _world(design, -0.5, seed=3).matrix.responses)
    assert not np.array_equal(world.matrix.responses, _world(design, 0.0, seed=2).matrix.responses)
    assert world.matrix.meta["spec"]["ability_depth"] == -0.5 and "γ = -0.5" in world.matrix.description
    weights = world.truth["ability_depth"]
    stem = items["stem"].to_numpy(bool)
    assert not weights[~stem].any() and weights[stem].std() == pytest.approx(0.5)
    gap = world.matrix.accuracy().to_numpy() - matrix.accuracy().to_numpy()
    assert np.abs(gap).max() < 0.05  # binomial noise over ≥ 1,520 cells per model, not a shifted accuracy


def test_the_interaction_moves_the_two_stage_r_its_way(design):
    _, items, features = design
    r = {gamma: np.mean([_stem_r(_world(design, gamma, seed), items, features) for seed in range(3)])
         for gamma in (-1.0, 0.0, 1.0)}
    assert r[-1.0] < r[0.0] - 0.2 and r[1.0] > r[0.0] + 0.2


def _floor_test(design, gamma, seed):
    """The guessing-floor decision on one world, calibrated as the power study does (fast)."""
    _, items, features = design
    matrix = _world(design, gamma, seed).matrix
    answered = matrix.observed.any(axis=0)
    fit = fit_irt(answered_columns(matrix, answered), calibration_spec(True, seed), progress=False)
    with _scratch_cache():
        return guessing_floor_test(matrix, world_frame(items, features, fit, answered), fit.theta, seed=seed,
                                   fast=True, replicates=40)


def test_the_band_rule_rejects_a_large_interaction_and_supports_none(design):
    false = _floor_test(design, -1.0, seed=0)
    assert not false["supports"] and false["null_tail_p_all"] < 0.05
    assert not false["null_low_all"] <= false["rs_r_all"] <= false["null_high_all"]
    true = _floor_test(design, 0.0, seed=0)
    assert true["supports"] and true["null_low_all"] <= true["rs_r_all"] <= true["null_high_all"]
    assert true["null_replicates"] == 40


def test_two_stage_interaction_follows_the_papers_numbers():
    excess = PAPER["rs_r_excl_bottom_half"][0] - PAPER["null_r_excl_bottom_half"][0]
    gamma = two_stage_interaction()
    assert gamma == pytest.approx(PAPER["gamma1"][0] * PAPER["rs_r_all"][0] / excess)
    assert np.sign(gamma) == np.sign(PAPER["gamma1"][0]) and abs(gamma) > abs(PAPER["gamma1"][0])


def test_bad_interaction_inputs_are_refused(design, small_items):
    matrix, items, features = design
    with pytest.raises(ValueError, match="ability_depth"):
        WorldSpec(ability_depth=float("nan"))
    with pytest.raises(ParameterError, match="ability"):
        simulate_world(WorldSpec(ability_depth=-0.2, covariates="text"), seed=0, items=small_items)
    spec = WorldSpec(ability_depth=-0.2, covariates="text", slopes={"log_words": (0.3, 0.3)})
    with pytest.raises(DataError, match="wscg_depth"):
        simulate_at_design(matrix, spec, items, pd.DataFrame({"log_words": np.arange(len(items))}), seed=0)
    with pytest.raises(DataError, match="wscg_depth"):
        AbilityDepth.planted(-0.2, np.zeros(len(items)), items["stem"].to_numpy(bool), np.arange(8.0))
