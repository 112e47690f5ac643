"""Size and power of the W(9) homogeneity tests on simulated MMLU-shaped worlds (slow).

57 subjects with the real MMLU sizes and the 19 STEM subjects; subject random
intercepts and slopes (see ``simulate_homogeneity_world``). Over 200 replicates
the null rejection rate of a correct 5 % test has Monte Carlo sd 1.5 %, so a
rate outside [1 %, 10 %] is a genuine failure; HC3, which ignores clustering,
must over-reject badly. ``bench/bench_inference.py --size-power`` writes the
same table to bench/results/size_power.csv.
"""

from __future__ import annotations

import numpy as np
import pytest

import mmlu_audit
from mmlu_audit.worlds.homogeneity import homogeneity_rejections, simulate_homogeneity_world, size_power_table


def _mmlu_subjects():
    counts = mmlu_audit.load_items()["subject"].value_counts().sort_index()
    return counts.to_numpy(), np.array([s in mmlu_audit.STEM_SUBJECTS for s in counts.index])


def test_simulated_world_has_mmlu_shape():
    sizes, stem = _mmlu_subjects()
    world = simulate_homogeneity_world(sizes, stem, seed=0)
    assert world["y"].size == 14042 and world["stem"].sum() == 3153
    assert np.unique(world["clusters"]).size == 57


def test_rejections_include_the_block_permutation():
    sizes, stem = _mmlu_subjects()
    world = simulate_homogeneity_world(sizes, stem, seed=0, planted=0.5)
    hits = homogeneity_rejections(world, seed=1, n_draws=99)
    assert set(hits) == {"HC3 chi2", "CR1 chi2", "CR1 F", "CR2 chi2", "CR2 HTZ", "WCR(CR1)", "WCR(CR2)",
                         "block permutation (LR)"}
    assert hits["block permutation (LR)"]  # a shift of 0.5 on two slopes is unmistakable
    assert homogeneity_rejections(world, seed=1, n_draws=99) == hits  # same seed, same answer


@pytest.mark.slow
def test_size_and_power_of_homogeneity_tests():
    sizes, stem = _mmlu_subjects()
    table = size_power_table(sizes, stem, seed=20261, n_reps=200, n_draws=399)
    rate = table.set_index(["world", "method"])["rejection_rate"]
    for method in ("CR2 HTZ", "WCR(CR1)", "WCR(CR2)", "block permutation (LR)"):
        assert 0.01 <= rate["null", method] <= 0.10, method
        assert rate["planted", method] >= 0.8, method
    assert rate["null", "HC3 chi2"] >= 0.5


def test_htz_undefined_is_recorded_not_raised():
    # the subject sizes of the 102 leaderboard items: 18 STEM items in 11 subjects leave HTZ's
    # denominator df below zero for nine restrictions
    sizes = [1, 3, 1, 4, 2, 4, 3, 4, 1, 4, 2, 3, 2, 2, 1, 3, 7, 4, 4, 2, 2, 1, 2, 6, 2, 9, 1, 1, 1, 2,
             1, 1, 2, 1, 1, 1, 1, 5, 2, 2, 1]
    stem = np.r_[np.zeros(30, bool), np.ones(11, bool)]
    world = simulate_homogeneity_world(sizes, stem, seed=1, planted=0.5)
    hits = homogeneity_rejections(world, seed=1, n_draws=19)
    assert np.isnan(hits["CR2 HTZ"])
    assert isinstance(hits["CR2 chi2"], bool)
    table = size_power_table(sizes, stem, seed=2, n_reps=3, n_draws=19).set_index(["world", "method"])
    assert table.loc[("null", "CR2 HTZ"), "n_defined"] == 0
    assert np.isnan(table.loc[("null", "CR2 HTZ"), "rejection_rate"])
    assert table.loc[("null", "CR2 chi2"), "n_defined"] == 3
    assert table["rejection_rate"].drop([("null", "CR2 HTZ"), ("planted", "CR2 HTZ")]).between(0, 1).all()
