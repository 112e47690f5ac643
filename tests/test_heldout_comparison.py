"""The real-leaderboard chapter's model choice: clustered evidence, a choice made on other
checkpoints than the score, and the tracking comparison over distinct checkpoints with an interval."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mmlu_audit.analyses.real_leaderboard import _choosing_half, heldout_comparison, recommended, tracking_gap
from mmlu_audit.irt import IRTSpec


def test_the_choice_uses_the_choosing_half():
    table = pd.DataFrame({"fit": ["p", "q"], "heldout_nats": [-0.3, -0.2], "choose_nats": [-0.1, -0.2]})
    assert recommended(table) == "p"


def test_the_choosing_half_keeps_checkpoints_whole_and_is_seeded():
    checkpoints = np.repeat(np.arange(50), 3)
    half = _choosing_half(checkpoints, 4)
    assert half.sum() == 25 * 3
    assert all(len(set(half[checkpoints == g])) == 1 for g in range(50))
    assert (half == _choosing_half(checkpoints, 4)).all() and (half != _choosing_half(checkpoints, 5)).any()


@pytest.fixture(scope="module")
def comparison():
    rng = np.random.default_rng(0)
    theta, b = rng.normal(size=120), rng.normal(size=40)
    y = (rng.random((120, 40)) < 1 / (1 + np.exp(-(theta[:, None] - b)))).astype(np.int8)
    y[60:] = y[:60]  # every checkpoint listed twice
    specs = {"2PL": IRTSpec(max_steps=150, seed=0), "Rasch": IRTSpec(model="rasch", max_steps=150, seed=0)}
    return heldout_comparison(y, specs, fraction=0.2, seed=1, checkpoints=np.tile(np.arange(60), 2))[0]


def test_the_comparison_reports_clustered_and_split_evidence(comparison):
    first, second = comparison.iloc[0], comparison.iloc[1]
    assert first["gain_vs_first"] == 0 and np.isnan(first["z_two_way"])  # the first against itself
    assert np.isfinite(second[["z_vs_first", "z_checkpoint", "z_item", "z_two_way", "score_z_two_way"]]
                       .astype(float)).all()
    # duplicated checkpoints: clustering by checkpoint weakens the evidence of independent cells
    assert abs(second["z_checkpoint"]) < abs(second["z_vs_first"])
    assert second["score_gain"] != second["gain_vs_first"]  # scored on the other half only


def test_copies_of_a_checkpoint_do_not_change_the_tracking_gap():
    rng = np.random.default_rng(1)
    score = rng.normal(size=300)
    first, second = score + rng.normal(0, 0.5, 300), score + rng.normal(0, 0.7, 300)
    once = tracking_gap(first, second, score, np.arange(300), seed=2, n_boot=200)
    twice = tracking_gap(np.tile(first, 2), np.tile(second, 2), np.tile(score, 2), np.tile(np.arange(300), 2),
                         seed=2, n_boot=200)
    assert once == twice and once["n_distinct"] == 300
    expected = np.corrcoef(first, score)[0, 1] - np.corrcoef(second, score)[0, 1]
    assert once["difference"] == pytest.approx(expected) and once["low"] < expected < once["high"]
