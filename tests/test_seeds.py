"""The one seed validator: explicit, non-negative integers only."""

from __future__ import annotations

import numpy as np
import pytest

from mmlu_audit import ParameterError
from mmlu_audit.core.seeds import check_seed, rng_from


@pytest.mark.parametrize("seed", [0, 7, np.int64(3), 2**32 - 1])
def test_accepts_non_negative_integers(seed):
    assert check_seed(seed) == int(seed)
    assert type(check_seed(seed)) is int


@pytest.mark.parametrize("seed, problem", [
    (None, "seed is required"), (-1, "0 … 2\\*\\*32 - 1"), (1.0, "float"), ("7", "str"),
    (2**32, "32-bit"), (2**64, "32-bit"), (np.uint64(2**63), "32-bit"),
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


# ----------------------------------------------------------------------------- issue 16 / issue 18, point 8


def _seeded_public_callables():
    """Every public function of the package with a parameter named ``seed`` (found by signature)."""
    import importlib
    import inspect
    import pkgutil

    import mmlu_audit

    found = {}
    for info in pkgutil.walk_packages(mmlu_audit.__path__, "mmlu_audit."):
        if info.name.endswith("__main__") or any(p.startswith("_") for p in info.name.split(".")):
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if (name.startswith("_") or not inspect.isfunction(obj)
                    or obj.__module__ != module.__name__):
                continue
            if "seed" in inspect.signature(obj).parameters:
                found[f"{info.name}.{name}"] = obj
    return found


SEEDED = _seeded_public_callables()


def test_the_seeded_functions_are_found():
    # the census must not silently shrink: these were the five private validators and the two
    # entries that accepted negative seeds
    for name in ("irt.explanatory.fit_explanatory", "analyses.subscales.matched_subscale_correlation",
                 "analyses.robustness.section4_statistics", "analyses.pro.sample_rows",
                 "audit.run_audit", "inference.permutation.permutation_test", "irt.data.holdout_mask"):
        assert f"mmlu_audit.{name}" in SEEDED
    assert len(SEEDED) >= 40


@pytest.mark.parametrize("seed", [-1, 2**32, 2**32 + 1, 2**64, 1.0, 0.5, True, np.bool_(True)],
                         ids=["negative", "2**32", "2**32+1", "2**64", "float", "fraction", "bool",
                              "np.bool_"])
@pytest.mark.parametrize("name", sorted(SEEDED))
def test_every_seeded_public_function_refuses_a_bad_seed(name, seed):
    """The seed is checked first, by the one validator, whatever the other arguments are."""
    import inspect

    function = SEEDED[name]
    arguments = {p.name: None for p in inspect.signature(function).parameters.values()
                 if p.default is inspect.Parameter.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
    arguments["seed"] = seed
    with pytest.raises(ParameterError, match=r"^seed: must be an integer in 0 … 2\*\*32 - 1"):
        function(**arguments)


def test_child_seeds_stay_in_range():
    from mmlu_audit.core.seeds import child_seed

    assert child_seed(5, 3) == 8 and child_seed(2**32 - 1, 1) == 0
    with pytest.raises(ParameterError):
        child_seed(-1, 1)

