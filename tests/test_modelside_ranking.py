"""Rank stability: weighted τ against a brute-force reference, retention by hand, null sizes, seeds."""

import itertools

import numpy as np
import pandas as pd
import pytest

from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.analyses.modelside import (ability_gap, displacement_bootstrap, displacement_null,
                                           duplicate_pairs, gap_recovery, item_blocks, leaderboard_rank,
                                           matched_subsample_tau, near_tie_pairs, one_per_checkpoint,
                                           random_item_sets, rank_shifts, retention_table, subject_block_sets,
                                           subject_blocks, subscores, top_k_retention, weighted_tau)


def _brute_force_weighted_tau(reference, other):
    """Vigna's τ_w without ties: additive hyperbolic weights on the reference position."""
    position = np.argsort(np.argsort(-reference))
    weight = 1.0 / (position + 1.0)
    num = den = 0.0
    for i, j in itertools.combinations(range(len(reference)), 2):
        w = weight[i] + weight[j]
        num += w * np.sign(reference[i] - reference[j]) * np.sign(other[i] - other[j])
        den += w
    return num / den


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_weighted_tau_matches_the_definition_on_hand_made_rankings(seed):
    rng = np.random.default_rng(seed)
    reference = rng.permutation(12).astype(float)
    other = reference + rng.normal(0, 3, 12)
    assert weighted_tau(reference, other) == pytest.approx(_brute_force_weighted_tau(reference, other))


def test_weighted_tau_puts_the_weight_on_the_reference_top():
    reference = np.arange(10, 0, -1.0)  # model 0 is best
    swap_top, swap_bottom = reference.copy(), reference.copy()
    swap_top[[0, 1]] = swap_top[[1, 0]]
    swap_bottom[[8, 9]] = swap_bottom[[9, 8]]
    assert weighted_tau(reference, reference) == pytest.approx(1.0)
    assert weighted_tau(reference, -reference) == pytest.approx(-1.0)
    assert weighted_tau(reference, swap_top) < weighted_tau(reference, swap_bottom) < 1.0
    with pytest.raises(DataError):
        weighted_tau(reference, reference[:-1])


def test_top_k_retention_by_hand():
    aggregate = np.array([10, 9, 8, 7, 6, 5.0])
    stem = np.array([10, 1, 8, 9, 6, 5.0])  # model 1 drops out, model 3 climbs in
    assert top_k_retention(aggregate, stem, 3) == pytest.approx(2 / 3)
    assert top_k_retention(aggregate, stem, 1) == 1.0
    assert top_k_retention(aggregate, stem, 6) == 1.0
    with pytest.raises(DataError, match="top-k"):
        top_k_retention(aggregate, stem, 0)
    scores = pd.DataFrame({"aggregate": aggregate, "STEM": stem, "non-STEM": aggregate})
    table = retention_table(scores, [1, 3])
    assert table.loc[3, "STEM"] == pytest.approx(2 / 3) and table.loc[3, "non-STEM"] == 1.0


def _blocks(n_models=40, n_items=300, seed=0):
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n_models)
    b = rng.normal(size=n_items)
    y = (rng.random((n_models, n_items)) < 1 / (1 + np.exp(-(theta[:, None] - b)))).astype(np.int8)
    y[rng.random(y.shape) < 0.05] = -1
    subject = np.repeat([f"s{k:02d}" for k in range(10)], n_items // 10)
    stem = np.isin(subject, ["s00", "s01", "s02"])
    return item_blocks(y, stem, subject, [f"m{j}" for j in range(n_models)]), y


def test_subscores_are_item_weighted_accuracies_skipping_missing_cells():
    blocks, y = _blocks()
    scores = subscores(blocks)
    j = 5
    stem_cells = y[j, blocks.stem]
    assert scores["STEM"].iloc[j] == pytest.approx((stem_cells == 1).sum() / (stem_cells >= 0).sum())
    assert scores["aggregate"].iloc[j] == pytest.approx((y[j] == 1).sum() / (y[j] >= 0).sum())


def test_subject_blocks_equal_item_blocks_summed_by_subject():
    blocks, y = _blocks()
    long = pd.DataFrame([{"model_id": m, "subject": s, "n_items": blocks.seen[j, blocks.subject == s].sum(),
                          "n_correct": blocks.correct[j, blocks.subject == s].sum()}
                         for j, m in enumerate(blocks.models) for s in np.unique(blocks.subject)])
    by_subject = subject_blocks(long, lambda names: np.isin(names, ["s00", "s01", "s02"]))
    pd.testing.assert_frame_equal(subscores(by_subject), subscores(blocks).loc[by_subject.models], atol=1e-6)


def test_null_generators_preserve_the_sizes_they_claim():
    blocks, _ = _blocks()
    sets = random_item_sets(300, 90, n_draws=20, seed=1)
    assert all(len(s) == 90 and len(np.unique(s)) == 90 for s in sets)
    subject_sets = subject_block_sets(blocks.subject, 90, n_draws=20, seed=1)
    for chosen in subject_sets:
        picked = np.unique(blocks.subject[chosen])
        assert np.isin(blocks.subject, picked).sum() == len(chosen)  # whole subjects only
        assert 90 <= len(chosen) < 90 + 30
    chosen_subjects = [set(blocks.subject[s]) for s in subject_sets]
    assert len({frozenset(s) for s in chosen_subjects}) > 1  # the draws differ


def test_same_seed_same_numbers_and_none_is_refused():
    blocks, _ = _blocks()
    first = matched_subsample_tau(blocks, n_draws=15, seed=3)
    again = matched_subsample_tau(blocks, n_draws=15, seed=3)
    np.testing.assert_array_equal(first["draws"], again["draws"])
    assert 0 < first["p"] <= 1 and first["n_matched"] == blocks.stem.sum()
    boot = displacement_bootstrap(blocks, 10, replicates=30, seed=3)
    again = displacement_bootstrap(blocks, 10, replicates=30, seed=3)
    np.testing.assert_array_equal(boot["draws"], again["draws"])
    assert boot["low"] <= boot["high"]
    with pytest.raises(ParameterError, match="seed"):
        displacement_bootstrap(blocks, 10, replicates=3, seed=None)


def test_displacement_null_with_stem_itself_equals_the_observed_displacement():
    blocks, _ = _blocks()
    scores = subscores(blocks)
    observed = 1 - top_k_retention(scores["aggregate"], scores["STEM"], 10)
    assert displacement_null(blocks, [np.flatnonzero(blocks.stem)], 10)[0] == pytest.approx(observed)


def test_duplicates_checkpoints_and_rank_shifts():
    checkpoint = np.array([0, 0, 1, 2, 2, 2])
    aggregate = np.array([0.5, 0.5005, 0.7, 0.3, 0.3, 0.31])
    pairs = duplicate_pairs(checkpoint, aggregate, tol=0.001)
    assert pairs.tolist() == [[0, 1], [3, 4]]
    np.testing.assert_array_equal(one_per_checkpoint(checkpoint), [0, 2, 3])
    scores = pd.DataFrame({"aggregate": aggregate, "STEM": [0.1, 0.9, 0.5, 0.2, 0.3, 0.4]},
                          index=[f"m{k}" for k in range(6)])
    shifts = rank_shifts(scores, pairs)
    assert shifts["aggregate shift"].tolist() == [1, 0]
    assert shifts["STEM shift"].tolist() == [5, 1]
    np.testing.assert_array_equal(leaderboard_rank([3.0, 1.0, 3.0]), [0, 2, 0])
    # Neighbours 0.5005 / 0.5 are the same checkpoint: skipped; 0.31 / 0.3 are 0.01 apart.
    assert near_tie_pairs(aggregate, checkpoint, tol=0.001).tolist() == []
    assert near_tie_pairs(aggregate, np.arange(6), tol=0.001).tolist() == [[1, 0], [3, 4]]


def test_ability_gap_is_standardised_and_sorted():
    rng = np.random.default_rng(0)
    base = rng.normal(size=200)
    theta = np.stack([3 * base + 1, base], axis=1)
    theta[0, 0] += 6.0  # one model far above the identity line
    gap = ability_gap(theta, [f"m{k}" for k in range(200)])
    assert gap["gap"].index[0] == "m0" and gap["gap"].iloc[0] > 1
    assert gap["share_within"] > 0.9 and gap["sd"] < 0.3


def test_gap_recovery_standardises_both_over_the_models_compared():
    """Near-chance rows planted at one far point shrink the planted gap SD; among the rest it is exact."""
    rng = np.random.default_rng(1)
    theta = rng.multivariate_normal([0, 0], [[1, 0.9], [0.9, 1]], size=300)
    working = np.arange(300) >= 40
    planted = theta.copy()
    planted[~working] = -12.0
    estimate = 2 * theta + 0.5  # a rescaled fit of the working models, standardising removes it
    estimate[~working] = rng.normal(-3, 1, size=(40, 2))  # unidentified rows land anywhere
    names = [f"m{k}" for k in range(300)]
    among = gap_recovery(estimate, planted, names, among=working)
    expected = ability_gap(theta[working], np.array(names)[working])["sd"]
    assert among["sd"] == pytest.approx(expected) and among["planted_sd"] == pytest.approx(expected)
    assert among["r"] == pytest.approx(1.0) and among["n"] == 260
    everyone = gap_recovery(estimate, planted, names)
    assert everyone["planted_sd"] < 0.5 * expected < everyone["sd"]  # the all-model comparison is off
    with pytest.raises(DataError, match="shape"):
        gap_recovery(estimate, planted[:-1], names)
    with pytest.raises(DataError, match="at least three"):
        gap_recovery(estimate, planted, names, among=np.arange(300) < 2)


def test_inconsistent_blocks_are_refused():
    blocks, y = _blocks()
    with pytest.raises(DataError, match="inconsistent shapes"):
        item_blocks(y, blocks.stem[:-1], blocks.subject, blocks.models)
    with pytest.raises(DataError, match="both partitions"):
        item_blocks(y, np.zeros(y.shape[1], bool), blocks.subject, blocks.models)


def test_null_p_at_least_counts_ties_and_adds_one():
    from mmlu_audit.analyses.modelside import null_p_at_least

    assert null_p_at_least([0.1, 0.2, 0.3, 0.4], 0.3) == 3 / 5  # 0.3 and 0.4 reach it
    assert null_p_at_least([0.1, 0.2], 0.9) == 1 / 3


def test_shift_summary_by_hand():
    from mmlu_audit.analyses.modelside import shift_summary

    pairs = pd.DataFrame({"aggregate shift": [1, 3, 11], "STEM shift": [2, 3, 23]})
    assert shift_summary(pairs, "dup") == {"dup_shift_aggregate_median": 3.0, "dup_shift_aggregate_max": 11.0,
                                           "dup_shift_stem_median": 3.0, "dup_shift_stem_max": 23.0}
    assert all(np.isnan(v) for v in shift_summary(pairs.iloc[:0], "near").values())


def test_displacement_exact_interval_is_clopper_pearson_and_refuses_off_grid_shares():
    from scipy import stats

    from mmlu_audit.analyses.modelside import displacement_exact_interval

    low, high = displacement_exact_interval(0.3, 10)
    assert (low, high) == pytest.approx((stats.beta.ppf(0.025, 3, 8), stats.beta.ppf(0.975, 4, 7)))
    assert low < 0.3 < high and displacement_exact_interval(0.0, 10)[0] == 0.0
    with pytest.raises(DataError, match="multiple of 1/10"):
        displacement_exact_interval(0.25, 10)


def test_batched_resample_sums_equal_one_product_per_resample(monkeypatch):
    """The bootstrap, matched and null draws are those of the per-resample formulas, exactly."""
    from mmlu_audit.analyses.modelside import ranking

    monkeypatch.setattr(ranking, "_SUMS_CHUNK", 7)  # several chunks, the last one short
    blocks, _ = _blocks()
    boot = displacement_bootstrap(blocks, 10, replicates=30, seed=3)
    stem_idx, non_idx = np.flatnonzero(blocks.stem), np.flatnonzero(~blocks.stem)
    expected = []
    for rng in ranking._draws(30, 3):
        chosen = np.concatenate([rng.choice(stem_idx, len(stem_idx)), rng.choice(non_idx, len(non_idx))])
        scores = subscores(blocks, np.bincount(chosen, minlength=blocks.stem.size))
        expected.append(1.0 - top_k_retention(scores["aggregate"], scores["STEM"], 10))
    np.testing.assert_array_equal(boot["draws"], expected)
    sets = [np.flatnonzero(np.random.default_rng(s).random(blocks.stem.size) < 0.4) for s in range(12)]
    aggregate = subscores(blocks)["aggregate"]
    by_set = [blocks.correct[:, chosen].sum(1) / blocks.seen[:, chosen].sum(1) for chosen in sets]
    np.testing.assert_array_equal(displacement_null(blocks, sets, 10),
                                  [1.0 - top_k_retention(aggregate, part, 10) for part in by_set])
    matched = matched_subsample_tau(blocks, n_draws=12, seed=5)["draws"]
    n_matched, nonstem = int(blocks.stem.sum()), np.flatnonzero(~blocks.stem)
    direct = []
    for rng in ranking._draws(12, 5):
        chosen = rng.choice(nonstem, n_matched, replace=False)
        part = blocks.correct[:, chosen].sum(1) / blocks.seen[:, chosen].sum(1)
        direct.append(weighted_tau(aggregate, part))
    np.testing.assert_array_equal(matched, direct)
