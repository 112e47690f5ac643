"""Cluster bootstrap of a correlation: against a brute-force loop that resamples the rows."""

from __future__ import annotations

import numpy as np
import pytest

from mmlu_audit.core.errors import DataError
from mmlu_audit.inference import cluster_bootstrap_correlation


def _clustered(seed, n=400, n_clusters=12):
    rng = np.random.default_rng(seed)
    clusters = np.sort(rng.integers(0, n_clusters, n))
    shared = rng.normal(size=n_clusters)[clusters]
    x = shared + rng.normal(size=n)
    y = 0.5 * x + shared + rng.normal(size=n)
    return x, y, np.array([f"s{c:02d}" for c in clusters])


def _brute_force(x, y, clusters, n_boot, seed):
    """Draw clusters with replacement, stack their rows, correlate: the definition."""
    labels = np.unique(clusters)
    rows = [np.flatnonzero(clusters == label) for label in labels]
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(n_boot):
        take = np.concatenate([rows[g] for g in rng.integers(0, labels.size, labels.size)])
        draws.append(np.corrcoef(x[take], y[take])[0, 1])
    return np.quantile(draws, [0.025, 0.975])


def test_matches_resampling_the_rows():
    x, y, clusters = _clustered(1)
    r, low, high = cluster_bootstrap_correlation(x, y, clusters, n_boot=300, seed=5)
    assert r == pytest.approx(np.corrcoef(x, y)[0, 1], abs=1e-12)
    np.testing.assert_allclose([low, high], _brute_force(x, y, clusters, 300, 5), atol=1e-10)
    assert low < r < high


def test_same_seed_same_interval_and_the_interval_reflects_clustering():
    x, y, clusters = _clustered(2)
    first = cluster_bootstrap_correlation(x, y, clusters, n_boot=400, seed=9)
    assert first == cluster_bootstrap_correlation(x, y, clusters, n_boot=400, seed=9)
    assert first != cluster_bootstrap_correlation(x, y, clusters, n_boot=400, seed=10)
    # one cluster per row is the ordinary bootstrap: with shared cluster effects it is narrower
    rowwise = cluster_bootstrap_correlation(x, y, np.arange(x.size), n_boot=400, seed=9)
    assert rowwise[2] - rowwise[1] < first[2] - first[1]


@pytest.mark.parametrize("kwargs, match", [
    ({"seed": None}, "seed is required"),  # all ParameterErrors
    ({"n_boot": 0}, "n_boot: must be an integer ≥ 1"),
    ({"level": 1.0}, r"level: must be a finite number in \(0, 1\)"),
])
def test_bad_arguments_name_the_problem(kwargs, match):
    x, y, clusters = _clustered(3)
    arguments = {"n_boot": 10, "seed": 1} | kwargs
    with pytest.raises(ValueError, match=match):
        cluster_bootstrap_correlation(x, y, clusters, **arguments)


def test_mismatched_lengths_are_refused():
    x, y, clusters = _clustered(4)
    with pytest.raises(DataError, match="y"):
        cluster_bootstrap_correlation(x, y[:-1], clusters, n_boot=10, seed=1)
