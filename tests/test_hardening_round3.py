"""Issue 39 (hardening, round three): order invariance, bounds that bind, validation before work,
memory-bounded duplicates and nothing left behind by an interrupted run.

Each test names the finding it covers and fails on d578694.
"""

from __future__ import annotations

import numpy as np
import pytest

from mmlu_audit.irt import IRTSpec, fit_irt
from mmlu_audit.irt.engine import chunk_lengths


def _random_responses(n_models: int = 60, n_items: int = 80, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    theta, b = rng.normal(size=(n_models, 1)), rng.normal(size=(1, n_items))
    return (rng.random((n_models, n_items)) < 1 / (1 + np.exp(-(theta - b)))).astype(np.int8)


# ------------------------------------------------------------------ max_steps binds whatever chunk is


def test_max_steps_binds_a_chunk_longer_than_it():
    """Before: ``chunk=10**6`` ran (and reported) 1,000,000 steps; now at most ``max_steps``."""
    fit = fit_irt(_random_responses(), IRTSpec(max_steps=300, chunk=10**6, min_steps=0), progress=False)
    assert fit.meta["steps"] <= 300


def test_max_steps_binds_when_not_a_multiple_of_chunk():
    """Before: ``max_steps=40, chunk=25`` ran two whole chunks, 50 steps."""
    fit = fit_irt(_random_responses(), IRTSpec(max_steps=40, chunk=25, min_steps=1000), progress=False)
    assert fit.meta["steps"] == 40


@pytest.mark.parametrize("max_steps, chunk, lengths", [(300, 10**6, [300]), (40, 25, [25, 15]),
                                                       (50, 25, [25, 25]), (1, 25, [1])])
def test_chunk_lengths_sum_to_max_steps(max_steps, chunk, lengths):
    assert chunk_lengths(max_steps, chunk) == lengths
