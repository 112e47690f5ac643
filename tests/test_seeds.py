"""The one seed validator: explicit, non-negative integers only."""

from __future__ import annotations

import numpy as np
import pytest

from mmlu_audit import ParameterError
from mmlu_audit.core.seeds import check_seed, rng_from


@pytest.mark.parametrize("seed", [0, 7, np.int64(3), 2**40])
def test_accepts_non_negative_integers(seed):
    assert check_seed(seed) == int(seed)
    assert type(check_seed(seed)) is int


@pytest.mark.parametrize("seed, problem", [
    (None, "seed is required"), (-1, "non-negative"), (1.0, "float"), ("7", "str"),
    (True, "bool"), (np.bool_(False), "bool"),
])
def test_rejects_everything_else(seed, problem):
    with pytest.raises(ParameterError, match=rf"^my_seed: .*{problem}"):
        check_seed(seed, "my_seed")


def test_parameter_error_is_a_value_error_not_a_data_error():
    from mmlu_audit import DataError
    assert issubclass(ParameterError, ValueError) and not issubclass(ParameterError, DataError)


def test_rng_from_passes_generators_through_and_is_deterministic():
    rng = np.random.default_rng(1)
    assert rng_from(rng) is rng
    assert rng_from(5).integers(1 << 30) == rng_from(5).integers(1 << 30)
    with pytest.raises(ParameterError):
        rng_from(None)


BAD_SEEDS = [None, -1, 1.5, "7"]


@pytest.mark.parametrize("seed", BAD_SEEDS)
def test_every_seeded_entry_refuses_bad_seeds(seed, small_items):
    """simulate_world(seed=None) used to draw fresh entropy; -1 and 1.5 raised numpy's own errors."""
    from mmlu_audit import WorldSpec, load_or_simulate, simulate_world
    from mmlu_audit.irt import IRTSpec, holdout_mask, split_cohort_reliability

    spec = WorldSpec(n_models=20, n_distinct=20, n_groups=5, covariates="text")
    y = np.ones((6, 5), np.int8)
    entries = {
        "simulate_world": lambda: simulate_world(spec, seed, small_items),
        "load_or_simulate": lambda: load_or_simulate(spec, seed, small_items),
        "IRTSpec": lambda: IRTSpec(seed=seed),
        "holdout_mask": lambda: holdout_mask(y, 0.2, seed=seed),
        "split_cohort_reliability": lambda: split_cohort_reliability(y, IRTSpec(max_steps=5), seed=seed),
    }
    for name, call in entries.items():
        with pytest.raises(ParameterError, match="seed"):
            call()
            pytest.fail(f"{name} accepted seed {seed!r}")
