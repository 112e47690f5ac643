"""The validity measures: recovery of planted truth, judged on worlds whose answer is known."""

from __future__ import annotations

from itertools import product
from types import SimpleNamespace

import numpy as np
import pytest

from mmlu_audit import DataError, WorldSpec, simulate_world
from mmlu_audit.analyses.validity import (
    calibration_recovery,
    contrast_recovery,
    pooled_theta,
    recovery_value,
    stem_residuals,
    tail_detection_auc,
)


@pytest.fixture(scope="module")
def world(small_items):
    """2PL world on text covariates with a large reasoning tail, 400 models × 2,280 items."""
    spec = WorldSpec(n_models=400, n_distinct=400, n_groups=40, covariates="text", response_model="2pl",
                     tail_share=0.1, tail_shift=1.5, rho=0.9, calibration="paper-2024")
    return simulate_world(spec, seed=3, items=small_items)


def oracle_fit(world):
    """A 'fit' that returns the truth itself (pooled θ), to test the measures without SVI noise."""
    return SimpleNamespace(b=world.truth["b"], a=world.truth["a"], theta=pooled_theta(world.truth))


def test_pooled_theta_weights_by_item_share(world):
    truth = world.truth
    share = truth["stem"].mean()
    expected = share * truth["theta"][:, 0] + (1 - share) * truth["theta"][:, 1]
    np.testing.assert_allclose(pooled_theta(truth), expected)
    with pytest.raises(DataError, match="expected shape \\(J, 2\\)"):
        pooled_theta({"theta": np.zeros(3), "stem": np.ones(3, bool)})


def test_calibration_recovery_of_the_truth_is_perfect(world):
    table = calibration_recovery(oracle_fit(world), world.truth)
    assert list(table.index) == ["b", "a", "theta"]
    np.testing.assert_allclose(table[["r", "slope"]].to_numpy(), 1.0, atol=1e-12)
    np.testing.assert_allclose(table["rmse"], 0.0, atol=1e-12)
    halved = SimpleNamespace(b=world.truth["b"] / 2, a=world.truth["a"], theta=pooled_theta(world.truth))
    assert calibration_recovery(halved, world.truth).loc["b", "slope"] == pytest.approx(0.5)


def test_contrast_recovery_finds_the_planted_differences(world):
    planted = world.spec.planted_slopes()
    table = contrast_recovery(world.truth["b"], world.truth, planted)
    np.testing.assert_allclose(table["estimated"], table["estimated_on_truth"])
    np.testing.assert_allclose(table["planted"], planted["STEM"] - planted["non-STEM"])
    # the true b carries subject effects and noise, so the recovered differences are close, not exact
    assert np.abs(table["estimated"] - table["planted"]).max() < 0.25
    assert table.loc["digit_share", "estimated"] > 0.2  # the largest planted difference (0.45)
    with pytest.raises(DataError, match="expected shape"):
        contrast_recovery(world.truth["b"][:10], world.truth, planted)


def test_tail_auc_matches_the_pairwise_definition():
    rng = np.random.default_rng(0)
    scores, tail = rng.normal(size=60), rng.random(60) < 0.2
    scores[tail] += 0.7
    pairs = [(s > o) + 0.5 * (s == o) for s, o in product(scores[tail], scores[~tail])]
    assert tail_detection_auc(scores, tail) == pytest.approx(np.mean(pairs))
    assert tail_detection_auc(np.arange(10.0), np.arange(10) >= 7) == 1.0
    with pytest.raises(DataError, match="needs both"):
        tail_detection_auc(scores, np.ones(60, bool))


def test_stem_residuals_single_out_the_reasoning_tail(world):
    residuals = stem_residuals(world.matrix.responses, oracle_fit(world), world.truth["stem"])
    tail = world.truth["tail"]
    assert residuals.shape == (400,) and abs(np.median(residuals[~tail])) < 0.03
    assert tail_detection_auc(residuals, tail) > 0.9


def test_stem_residuals_ignore_missing_cells(world):
    responses = world.matrix.responses.copy()
    fit = oracle_fit(world)
    before = stem_residuals(responses, fit, world.truth["stem"])
    responses[:, ~world.truth["stem"]] = -1  # non-STEM cells do not enter
    np.testing.assert_allclose(stem_residuals(responses, fit, world.truth["stem"]), before)


def test_recovery_value_picks_exactly_one_cell():
    import pandas as pd

    table = pd.DataFrame({"world": ["2PL, normal b", "2PL, normal b", "2PL, skewed b"],
                          "prior": ["paper", "hierarchical", "paper"],
                          "parameter": ["b", "b", "b"], "slope": [0.6, 0.98, 0.7]})
    assert recovery_value(table, "2PL, normal", "hierarchical", "b", "slope") == 0.98
    with pytest.raises(DataError, match="0 rows match"):
        recovery_value(table, "3PL", "paper", "b", "slope")
    with pytest.raises(DataError, match="2 rows match"):
        recovery_value(table, "2PL", "paper", "b", "slope")
