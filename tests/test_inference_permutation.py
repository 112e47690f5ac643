"""Permutation tests: fast sufficient-statistic path against direct refits, and the nulls' shapes."""

from __future__ import annotations

import numpy as np
import pytest

from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.inference import fit_ols, lr_interaction, permutation_test, r2_gap


def _subjects(seed=0, G=24, n_stem=8, effect=0.0, slope_sd=0.0, sizes=(10, 60)):
    rng = np.random.default_rng(seed)
    clusters = np.repeat(np.arange(G), rng.integers(*sizes, G))
    stem = clusters < n_stem
    X = rng.normal(size=(clusters.size, 2)) + 0.3 * rng.normal(size=(G, 2))[clusters]
    slopes = np.array([0.3, 0.2]) + slope_sd * rng.normal(size=(G, 2))
    y = (np.einsum("ik,ik->i", X, slopes[clusters]) + effect * stem * X[:, 0]
         + 0.5 * rng.normal(size=G)[clusters] + rng.normal(size=clusters.size))
    return y, X, stem, clusters


def _direct_r2_gap(y, X, stem):
    return fit_ols(y[stem], X[stem], intercept=True).r2 - fit_ols(y[~stem], X[~stem], intercept=True).r2


@pytest.mark.parametrize("scheme", ["item", "block"])
def test_fast_r2_gap_equals_direct_refits(scheme):
    """The built-in statistic and a callable doing plain OLS refits see the same permutations."""
    y, X, stem, clusters = _subjects()
    fast = permutation_test(y, X, stem, clusters, seed=3, scheme=scheme, n_perm=60)
    slow = permutation_test(y, X, stem, clusters, seed=3, scheme=scheme, n_perm=60, statistic=_direct_r2_gap)
    np.testing.assert_allclose(fast.draws, slow.draws, rtol=1e-8, atol=1e-12)
    assert fast.stat == pytest.approx(_direct_r2_gap(y, X, stem), rel=1e-9)
    assert fast.p == slow.p


def test_lr_statistic_equals_direct_refits():
    y, X, stem, clusters = _subjects(seed=1)
    direct = lambda yy, XX, ss: lr_interaction(yy, XX, ss)[0]  # noqa: E731
    fast = permutation_test(y, X, stem, clusters, seed=4, scheme="block", statistic="lr", n_perm=40)
    slow = permutation_test(y, X, stem, clusters, seed=4, scheme="block", statistic=direct, n_perm=40)
    np.testing.assert_allclose(fast.draws, slow.draws, rtol=1e-8)


def test_block_permutation_keeps_subjects_whole_and_stem_count():
    y, X, stem, clusters = _subjects()
    seen = []

    def record(yy, XX, ss):
        seen.append(ss.copy())
        return 0.0

    permutation_test(y, X, stem, clusters, seed=0, scheme="block", statistic=record, n_perm=20)
    for labels in seen[1:]:
        per_subject = np.bincount(clusters, weights=labels) / np.bincount(clusters)
        assert set(np.unique(per_subject)) <= {0.0, 1.0}
        assert per_subject.sum() == 8


def test_block_null_is_wider_than_item_null_with_subject_effects():
    """Subject-specific slopes make R² gaps between random subject sets large (paper §4.3)."""
    y, X, stem, clusters = _subjects(seed=2, G=40, n_stem=13, slope_sd=0.3, sizes=(100, 300))
    item = permutation_test(y, X, stem, clusters, seed=1, scheme="item", n_perm=300)
    block = permutation_test(y, X, stem, clusters, seed=1, scheme="block", n_perm=300)
    assert np.std(block.draws) > 2 * np.std(item.draws)


def test_planted_slope_difference_is_detected_by_lr():
    y, X, stem, clusters = _subjects(seed=3, effect=0.6)
    res = permutation_test(y, X, stem, clusters, seed=2, scheme="block", statistic="lr", n_perm=199)
    assert res.p < 0.05
    assert res.p == (1 + np.sum(res.draws >= res.stat)) / 200
    assert r2_gap(y, X, stem) == pytest.approx(_direct_r2_gap(y, X, stem), rel=1e-9)


def test_block_scheme_requires_stem_constant_within_subject():
    y, X, stem, clusters = _subjects()
    stem = stem.copy()
    stem[0] = ~stem[0]
    with pytest.raises(DataError, match="constant within"):
        permutation_test(y, X, stem, clusters, seed=0, scheme="block", n_perm=5)
    with pytest.raises(ParameterError, match="scheme"):
        permutation_test(y, X, stem, clusters, seed=0, scheme="items", n_perm=5)


@pytest.mark.parametrize("n_blocks", [1, 7, 40])
def test_permutations_drawn_in_chunks_are_those_of_one_draw(n_blocks, monkeypatch):
    """Keys drawn a few rows at a time are the rows of one ``rng.random((n_perm, n_blocks))``."""
    from mmlu_audit.inference import permutation

    monkeypatch.setattr(permutation, "_KEY_CELLS", 50)  # ≥ 1 row a chunk, several chunks
    member = (np.arange(n_blocks) % 3 == 0).astype(float)
    got = permutation._permuted_members(member, 23, np.random.default_rng(8))
    keys = np.random.default_rng(8).random((23, n_blocks))
    assert got.dtype == np.int8
    np.testing.assert_array_equal(got, member[np.argsort(keys, axis=1)])
