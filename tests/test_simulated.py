"""The simulated leaderboard world reproduces its planted truth and is reproducible."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from mmlu_audit import DataError, WorldSpec, load_or_simulate, simulate_world
from mmlu_audit.worlds.simulated import DEFAULT_SLOPES

TEXT = {"covariates": "text"}


@pytest.fixture(scope="module")
def world(items):
    """A full-size world, 1,000 models × 14,042 real items, on text covariates (≈2 s)."""
    return simulate_world(WorldSpec(**TEXT), seed=11, items=items)


def test_shapes_and_flags(world):
    assert world.matrix.shape == (1_000, 14_042)
    assert world.matrix.simulated and world.matrix.source == "simulated"
    assert "SIMULATED" in world.matrix.banner and "not MMLU" in world.matrix.description
    assert set(np.unique(world.matrix.responses)) <= {0, 1}


def test_planted_statistics(world):
    truth = world.truth
    assert truth["b"].std() == pytest.approx(2.24, abs=1e-9)  # constructed exactly
    assert truth["b"].mean() == pytest.approx(0.0, abs=1e-9)
    working = np.unique(truth["checkpoint"][~truth["chance"]], return_index=True)[1]
    theta = truth["theta"][~truth["chance"]][working]
    assert np.corrcoef(theta.T)[0, 1] == pytest.approx(0.965, abs=1e-9)  # realised on the working checkpoints
    assert (truth["a"] > 0).all()
    assert len(np.unique(truth["group"])) == 50
    assert len(np.unique(truth["checkpoint"])) == 869
    assert 0.01 < truth["tail"].mean() < 0.06  # 3 % reasoning tail, binomial noise


def test_duplicates_have_identical_responses(world):
    checkpoint = world.truth["checkpoint"]
    y = world.matrix.responses
    first = {c: j for j, c in reversed(list(enumerate(checkpoint)))}
    for j, c in enumerate(checkpoint):
        assert np.array_equal(y[j], y[first[c]])
    distinct_vectors = np.unique(y, axis=0)
    assert len(distinct_vectors) == 869


def test_responses_follow_the_3pl(world):
    """Observed accuracy by ability decile tracks the generating probabilities."""
    t = world.truth
    theta = np.where(t["stem"][None, :], t["theta"][:, [0]], t["theta"][:, [1]])
    p = 0.25 + 0.75 / (1 + np.exp(-t["a"] * (theta - t["b"])))
    expected = p.mean(axis=1)
    observed = world.matrix.responses.mean(axis=1)
    # binomial SD of a model's accuracy over 14,042 items is ≤ 0.0042
    assert np.abs(observed - expected).max() < 0.02
    assert np.corrcoef(observed, expected)[0, 1] > 0.99


def test_planted_slopes_recovered_from_true_difficulties(world):
    """OLS of the true b on the covariates recovers the planted partition slopes."""
    t = world.truth
    planted = world.slopes
    for part in ["STEM", "non-STEM"]:
        rows = t["stem"] if part == "STEM" else ~t["stem"]
        x = np.column_stack([np.ones(rows.sum()), t["covariates"][rows]])
        coef, *_ = np.linalg.lstsq(x, t["b"][rows] - t["subject_effect"][rows], rcond=None)
        # residual noise SD ≈ 1.6, n ≥ 3,153 → slope SE ≤ 0.03
        np.testing.assert_allclose(coef[1:], planted[part].to_numpy(), atol=0.12)


def test_null_world_plants_identical_slopes():
    slopes = WorldSpec(null_world=True).planted_slopes()
    assert np.array_equal(slopes["STEM"], slopes["non-STEM"])
    planted = WorldSpec().planted_slopes()
    assert list(planted.index) == list(DEFAULT_SLOPES)
    contrasts = planted.index[planted["STEM"] != planted["non-STEM"]].tolist()
    assert contrasts == ["d_mdd", "c_bry", "d_ner"]


def test_default_world_plants_on_the_nine_indicators(small_items):
    """By default the slopes sit on the complexity indicators of the real stems."""
    from mmlu_audit.features import INDICATORS, build_feature_table

    spec = WorldSpec(n_models=60, n_distinct=50, n_groups=5)
    world = simulate_world(spec, seed=3, items=small_items)
    assert world.matrix.meta["covariate_names"] == list(INDICATORS)
    features = build_feature_table(small_items).loc[small_items["item_id"], list(INDICATORS)]
    standardised = (features - features.mean()) / features.std(ddof=0)
    np.testing.assert_allclose(world.truth["covariates"], standardised.to_numpy(), atol=1e-12)


def test_two_pl_option(small_items):
    world = simulate_world(WorldSpec(n_models=200, n_distinct=150, n_groups=20, response_model="2pl", **TEXT),
                           seed=2, items=small_items)
    assert float(world.truth["c"]) == 0.0
    # without a guessing floor the weakest models fall below chance
    assert world.matrix.accuracy().min() < 0.25


def test_same_seed_bit_identical(small_items):
    spec = WorldSpec(n_models=300, n_distinct=250, n_groups=30, **TEXT)
    one, two = (simulate_world(spec, seed=5, items=small_items) for _ in range(2))
    assert one.matrix.responses.tobytes() == two.matrix.responses.tobytes()
    assert one.matrix.models.equals(two.matrix.models)
    for key in one.truth:
        assert np.asarray(one.truth[key]).tobytes() == np.asarray(two.truth[key]).tobytes()
    other = simulate_world(spec, seed=6, items=small_items)
    assert other.matrix.responses.tobytes() != one.matrix.responses.tobytes()


def test_cache_round_trip(small_items, tmp_path):
    spec = WorldSpec(n_models=120, n_distinct=100, n_groups=10, **TEXT)
    fresh = load_or_simulate(spec, 4, small_items, cache_dir=tmp_path)
    cached = load_or_simulate(spec, 4, small_items, cache_dir=tmp_path)
    assert cached.matrix.responses.tobytes() == fresh.matrix.responses.tobytes()
    np.testing.assert_array_equal(cached.truth["b"], fresh.truth["b"])
    assert cached.matrix.meta["seed"] == 4


def test_bad_specs(small_items):
    with pytest.raises(ValueError, match="n_groups ≤ n_distinct ≤ n_models"):
        WorldSpec(n_models=10, n_distinct=20)
    with pytest.raises(ValueError, match="too high for the reasoning tail"):
        WorldSpec(rho=0.999, tail_shift=2.0, tail_share=0.2)
    with pytest.raises(ValueError, match="covariates must be one of"):
        WorldSpec(covariates="embeddings")
    with pytest.raises(DataError, match="no column for planted slope"):
        simulate_world(replace(WorldSpec(), slopes={"nope": (1.0, 0.0)}), items=small_items)


def test_skewed_difficulty_noise(world, items):
    from scipy import stats

    skewed = simulate_world(WorldSpec(b_noise="skewed", **TEXT), seed=11, items=items)
    b, normal_b = skewed.truth["b"], world.truth["b"]
    assert np.std(b) == pytest.approx(world.spec.b_sd, rel=1e-6)  # same SD as the normal world
    assert stats.skew(b) > 1.5 and abs(stats.skew(normal_b)) < 0.3
    assert stats.kurtosis(b) > 3 > abs(stats.kurtosis(normal_b))
    with pytest.raises(ValueError, match="b_noise must be one of"):
        WorldSpec(b_noise="cauchy")


def test_default_noise_keeps_the_cache_key_of_earlier_worlds():
    assert "b_noise" not in WorldSpec().to_json()
    assert '"b_noise": "skewed"' in WorldSpec(b_noise="skewed").to_json()
