"""The real-design world calibrated by indirect inference, and its held-out targets."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mmlu_audit.analyses.design_targets import misfit_sentence, real_moments, target_table
from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.core.store import array_digest
from mmlu_audit.data.responses import ResponseMatrix
from mmlu_audit.features import INDICATORS
from mmlu_audit.worlds.design_calibration import (FITTED_MOMENTS, calibrate_design, simulated_moments,
                                                  subject_slope_sd)
from mmlu_audit.worlds.real_design import DesignCalibration, simulate_at_design
from mmlu_audit.worlds.simulated import WorldSpec


@pytest.fixture(scope="module")
def toy(small_items):
    """Eight models on the 2,280-item slice, one missing block, random indicators (as test_floor_false)."""
    rng = np.random.default_rng(3)
    n = len(small_items)
    accuracy = np.linspace(0.35, 0.85, 8)
    responses = (rng.random((8, n)) < accuracy[:, None]).astype(np.int8)
    responses[:3, : n // 3] = -1
    models = pd.DataFrame({"model_id": [f"m{j}" for j in range(8)]})
    matrix = ResponseMatrix(responses, models, small_items["item_id"].to_numpy(), "toy", False)
    covariates = pd.DataFrame(rng.normal(size=(n, len(INDICATORS))), columns=list(INDICATORS))
    return matrix, small_items, covariates


# digests of the matrices simulate_at_design drew before the calibration existed (commit e508e24)
_TODAY = {"paper_11": "84b5094cd74e4d6fa1b302c7c5aaa1fa26c2627b5cbeb0036c2a2bb98fef41f9",
          "null_4_shift": "6551eb645d978d28d5f0db116c669d124f6b202a54e9e1559cb3367f74af17e7"}


def test_no_calibration_draws_todays_worlds_bit_for_bit(toy):
    matrix, items, covariates = toy
    for calibration in (None, DesignCalibration()):
        world = simulate_at_design(matrix, WorldSpec(), items, covariates, seed=11, calibration=calibration)
        assert array_digest(world.matrix.responses) == _TODAY["paper_11"]
    shifted = simulate_at_design(matrix, WorldSpec(null_world=True), items, covariates, seed=4,
                                 log_a_shift=np.linspace(-0.2, 0.2, len(items)))
    assert array_digest(shifted.matrix.responses) == _TODAY["null_4_shift"]


def test_a_calibrated_world_keeps_accuracies_and_plants_its_tails(toy):
    matrix, items, covariates = toy
    calibration = DesignCalibration(b_sd=3.0, ceiling_share=0.1, ceiling_shift=4.0, floor_share=0.02,
                                    slope_sd=0.3)
    world = simulate_at_design(matrix, WorldSpec(), items, covariates, seed=2, calibration=calibration)
    y = world.matrix.responses
    assert np.array_equal(world.matrix.observed, matrix.observed)
    assert not (y[:, world.truth["floor"]] == 1).any()  # no model answers a floor item
    assert abs(world.truth["floor"].mean() - 0.02) < 0.01 and abs(world.truth["ceiling"].mean() - 0.1) < 0.03
    gap = world.matrix.accuracy().to_numpy() - matrix.accuracy().to_numpy()
    assert np.abs(gap).max() < 0.05
    again = simulate_at_design(matrix, WorldSpec(), items, covariates, seed=2, calibration=calibration)
    assert np.array_equal(again.matrix.responses, y)


def test_the_calibration_recovers_a_planted_world(toy):
    matrix, items, covariates = toy
    spec = WorldSpec()
    planted = DesignCalibration(b_sd=3.5, ceiling_share=0.12, ceiling_shift=4.0, floor_share=0.01)
    real_world = simulate_at_design(matrix, spec, items, covariates, seed=99, calibration=planted)
    real = real_moments(real_world.matrix, items, covariates, spec)
    fit = calibrate_design(real_world.matrix, spec, items, covariates, real["se"].to_dict(), seed=0,
                           rounds=10)
    for key in FITTED_MOMENTS:
        assert abs(fit.simulated[key] - real.loc[key, "real"]) <= 2 * real.loc[key, "se"], key
    assert abs(fit.calibration.b_sd - planted.b_sd) < 1.0
    assert abs(fit.calibration.floor_share - planted.floor_share) < 0.006
    # the uncalibrated world is further from the planted one on the SD of item p
    plain = simulated_moments(real_world.matrix, spec, items, covariates, None, fit.seeds)
    target = real.loc["sd_p", "real"]
    assert abs(plain["sd_p"] - target) > abs(fit.simulated["sd_p"] - target)


def test_a_planted_simulator_misfit_is_flagged_and_named(toy):
    matrix, items, covariates = toy
    spec = WorldSpec()
    real_world = simulate_at_design(matrix, spec, items, covariates, seed=99,
                                    calibration=DesignCalibration(b_sd=4.0))
    real = real_moments(real_world.matrix, items, covariates, spec)
    same = simulated_moments(real_world.matrix, spec, items, covariates, DesignCalibration(b_sd=4.0), (0, 1))
    wrong = simulated_moments(real_world.matrix, spec, items, covariates, DesignCalibration(b_sd=1.2), (0, 1))
    good = target_table(real, same, same, "toy").set_index("moment")
    bad = target_table(real, wrong, same, "toy").set_index("moment")
    assert not good.loc["sd_p", "misfit"] and bad.loc["sd_p", "misfit"]
    assert bad.loc["sd_p", "kind"] == "fitted" and bad.loc["mean_p", "kind"] == "held out"
    assert "SD of item p (fitted)" in misfit_sentence(bad.reset_index())
    assert misfit_sentence(bad.reset_index()).count(";") == int(bad["misfit"].sum()) - 1


def test_the_slope_estimator_recovers_planted_subject_slopes():
    rng = np.random.default_rng(0)
    subjects, per, k = 60, 200, 3
    x = rng.normal(size=(subjects * per, k))
    subject = np.repeat(np.arange(subjects), per)
    tau = np.array([0.0, 0.3, 0.6])
    slopes = np.array([0.2, -0.1, 0.4]) + rng.normal(size=(subjects, k)) * tau
    b = (x * slopes[subject]).sum(axis=1) + rng.normal(0, 1.0, x.shape[0])
    frame = pd.DataFrame(x, columns=["u", "v", "w"]).assign(
        b_hat=b, subject=subject.astype(str), stem=subject < 20)
    table = subject_slope_sd(frame, ["u", "v", "w"])
    assert np.allclose(table["tau"].to_numpy(), tau, atol=0.12)
    assert np.allclose(table["tau_ratio"], table["tau"] / b.std())


def test_bad_calibration_inputs_are_refused(toy):
    matrix, items, covariates = toy
    for bad in ({"ceiling_share": 0.7}, {"floor_share": -0.1}, {"b_sd": 0.0}, {"slope_sd": -1.0},
                {"ceiling_shift": np.inf}):
        with pytest.raises(ParameterError):
            DesignCalibration(**bad)
    with pytest.raises(ParameterError, match="slope_sd"):
        simulate_at_design(matrix, WorldSpec(), items, covariates, seed=0,
                           calibration=DesignCalibration(slope_sd=(0.1, 0.2)))
    with pytest.raises(ParameterError, match="floor_share"):  # the weakest model's 0.35 is out of reach
        simulate_at_design(matrix, WorldSpec(), items, covariates, seed=0,
                           calibration=DesignCalibration(floor_share=0.49))
    with pytest.raises(ParameterError, match="real_se"):
        calibrate_design(matrix, WorldSpec(), items, covariates, {"sd_p": 0.01}, seed=0)
    with pytest.raises(DataError, match="lacks"):
        subject_slope_sd(pd.DataFrame({"b_hat": [0.0]}), ["u"])
    with pytest.raises(DataError, match="order"):
        real_moments(matrix, items.iloc[::-1], covariates, WorldSpec())
