"""The subject-resampled interval of an R², against a loop over explicit resamples."""

from __future__ import annotations

import numpy as np
import pytest

from mmlu_audit.core.errors import ParameterError
from mmlu_audit.inference import r2_cluster_interval, r2_score


def _data(n_clusters=30, size=20, seed=0):
    rng = np.random.default_rng(seed)
    clusters = np.repeat(np.arange(n_clusters), size)
    y = rng.normal(size=clusters.size) + rng.normal(size=n_clusters)[clusters]
    return y, 0.6 * y + rng.normal(scale=0.5, size=y.size), clusters


def test_the_interval_is_the_quantiles_of_explicit_resamples():
    y, predicted, clusters = _data()
    n_clusters = 30
    weights = np.random.default_rng(4).multinomial(n_clusters, np.full(n_clusters, 1 / n_clusters), size=300)
    replicates = []
    for counts in weights:  # the replicate's items: each cluster's items, as many times as it was drawn
        rows = np.concatenate([np.flatnonzero(clusters == g) for g in range(n_clusters)
                               for _ in range(counts[g])])
        replicates.append(r2_score(y[rows], predicted[rows]))
    expected = np.quantile(replicates, [0.025, 0.975])
    assert r2_cluster_interval(y, predicted, clusters, seed=4, n_boot=300) == pytest.approx(tuple(expected))


def test_clustered_noise_widens_the_interval_and_the_seed_fixes_it():
    y, predicted, clusters = _data()
    low, high = r2_cluster_interval(y, predicted, clusters, seed=1, n_boot=400)
    assert low < r2_score(y, predicted) < high
    assert (low, high) == r2_cluster_interval(y, predicted, clusters, seed=1, n_boot=400)
    singletons = r2_cluster_interval(y, predicted, np.arange(y.size), seed=1, n_boot=400)
    assert high - low > singletons[1] - singletons[0]  # 30 clusters carry less information than 600 items
    with pytest.raises(ParameterError, match="level"):
        r2_cluster_interval(y, predicted, clusters, seed=1, level=1.5)
