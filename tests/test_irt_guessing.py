"""The engine's likelihood with a guessing floor (3PL, interaction) and without one (c = 0), value
and gradient in closed form, in one pass and in blocks of rows: values and gradients against
autodiff of the plain cell log-likelihood and against an independent float64 formula, at extreme η
and with frequency weights, and the cache key that versions the guessing one."""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from mmlu_audit.irt import IRTSpec
from mmlu_audit.irt import cache
from mmlu_audit.irt.models import BLOCK_CELLS, cell_loglik, likelihood_block_rows, total_loglik


def _reference(eta: np.ndarray, signs: np.ndarray, c: float) -> tuple[np.ndarray, np.ndarray]:
    """log P(y | η) and its derivative in float64 from P = c + (1 − c) / (1 + e^−η), with
    1 − P = (1 − c) e^−η / (1 + e^−η) taken in logs (1 − P itself loses every digit at η = 30)."""
    eta = eta.astype(np.float64)
    p = c + (1 - c) / (1 + np.exp(-eta))
    dp = (1 - c) * np.exp(-eta) / (1 + np.exp(-eta)) ** 2
    log_q = np.log1p(-c) - eta - np.logaddexp(0.0, -eta)
    value = np.where(signs > 0, np.log(p), np.where(signs < 0, log_q, 0.0))
    slope = np.where(signs > 0, dp / p, np.where(signs < 0, -dp / np.exp(log_q), 0.0))
    return value, slope


@pytest.mark.parametrize("guessing", [0.0, 0.2, 0.25, 0.5])
def test_likelihood_and_gradient_match_a_float64_reference(guessing):
    rng = np.random.default_rng(7)
    extremes = [-100.0, -30.0, -12.0, -1e-6, 0.0, 1e-6, 12.0, 30.0, 100.0]
    eta = np.concatenate([rng.normal(0, 3, 200), extremes]).astype(np.float32)
    signs = rng.choice([-1, 0, 1], size=eta.size).astype(np.int8)
    signs[-9:] = [1, 1, -1, 1, -1, 1, 1, -1, -1]
    want_value, want_slope = _reference(eta, signs, guessing)
    cells = np.asarray(cell_loglik(jnp.asarray(eta), jnp.asarray(signs), guessing))
    np.testing.assert_allclose(cells, want_value, rtol=2e-6, atol=2e-6)
    # through the custom VJP: η = abilities @ loadings + offsets with abilities = 1, loadings = 0
    grad = jax.grad(lambda offsets: total_loglik(jnp.ones((1, 1)), jnp.zeros((1, eta.size)), offsets,
                                                 jnp.asarray(signs)[None, :], guessing))(jnp.asarray(eta))
    np.testing.assert_allclose(np.asarray(grad), want_slope, rtol=2e-5, atol=1e-7)
    # the custom VJP's own value, cell by cell (it has its own closed form)
    fast = jax.vmap(lambda e, s: total_loglik(jnp.ones((1, 1)), jnp.zeros((1, 1)), e[None], s[None, None],
                                              guessing))(jnp.asarray(eta), jnp.asarray(signs))
    np.testing.assert_allclose(np.asarray(fast), want_value, rtol=2e-6, atol=2e-6)
    assert all(np.isfinite(np.asarray(x)).all() for x in (cells, grad, fast))


def test_weighted_guessing_gradient_counts_each_row_weight_times():
    rng = np.random.default_rng(3)
    abilities, loadings = jnp.asarray(rng.normal(size=(6, 1))), jnp.asarray(rng.lognormal(0, 0.3, (1, 8)))
    offsets = jnp.asarray(rng.normal(size=8))
    signs = jnp.asarray(rng.choice([-1, 0, 1], size=(6, 8)))
    weight = jnp.asarray([1.0, 2.0, 0.0, 3.0, 1.0, 1.0])

    def weighted(ab, lo, of):
        return total_loglik(ab, lo, of, signs, 0.25, weight)

    def plain(ab, lo, of):
        return (cell_loglik(ab @ lo + of, signs, 0.25) * weight[:, None]).sum()

    args = (abilities, loadings, offsets)
    assert float(weighted(*args)) == pytest.approx(float(plain(*args)), rel=1e-6)
    for got, want in zip(jax.grad(weighted, argnums=(0, 1, 2))(*args),
                         jax.grad(plain, argnums=(0, 1, 2))(*args), strict=True):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)


def test_cache_key_versions_the_guessing_likelihood_only_for_models_that_use_it(monkeypatch):
    y = (np.random.default_rng(0).random((5, 4)) < 0.5).astype(np.int8)
    specs = {model: IRTSpec(model=model) for model in ("2pl", "3pl")}
    before = {model: cache.fit_key(y, spec) for model, spec in specs.items()}
    monkeypatch.setattr(cache, "GUESSING_LIKELIHOOD", cache.GUESSING_LIKELIHOOD + 1)
    after = {model: cache.fit_key(y, spec) for model, spec in specs.items()}
    assert after["2pl"] == before["2pl"]  # its arithmetic did not change: its stored fits stay valid
    assert after["3pl"] != before["3pl"]
    no_floor = IRTSpec(model="3pl", guessing=0.0)  # a 3PL without a floor is the 2PL likelihood
    assert not no_floor.has_guessing


@pytest.mark.parametrize("guessing", [0.0, 0.25])
@pytest.mark.parametrize("n_dims", [1, 2])
def test_likelihood_in_row_blocks_equals_one_pass(guessing, n_dims):
    rng = np.random.default_rng(11)
    n_models, n_items = 37, 23  # 37 = 4 blocks of 9 and one of 1, so the last block is padded
    abilities = jnp.asarray(rng.normal(size=(n_models, n_dims)), jnp.float32)
    loadings = jnp.asarray(rng.lognormal(0, 0.4, (n_dims, n_items)), jnp.float32)
    offsets = jnp.asarray(rng.normal(0, 2, n_items), jnp.float32)
    signs = jnp.asarray(rng.choice([-1, 0, 1], size=(n_models, n_items)), jnp.int8)
    weights = (jnp.asarray(rng.integers(0, 3, n_models), jnp.float32),
               jnp.asarray(rng.integers(0, 3, n_items), jnp.float32))

    def plain(ab, lo, of):  # autodiff through the cell likelihood: an independent reference
        return (cell_loglik(ab @ lo + of, signs, guessing) * weights[0][:, None] * weights[1][None, :]).sum()

    args = (abilities, loadings, offsets)
    want_value, want_grads = jax.value_and_grad(plain, argnums=(0, 1, 2))(*args)
    for block_rows in (None, 9, n_models, 100):
        blocked = partial(total_loglik, signs=signs, guessing=guessing, row_weight=weights[0],
                          item_weight=weights[1], block_rows=block_rows)
        got_value, got_grads = jax.value_and_grad(blocked, argnums=(0, 1, 2))(*args)
        assert float(got_value) == pytest.approx(float(want_value), rel=1e-6)
        for got, want in zip(got_grads, want_grads, strict=True):
            np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-5)


def test_block_rows_cover_about_a_megabyte_and_none_when_one_block_holds_all(monkeypatch):
    assert likelihood_block_rows(1000, 14042) == BLOCK_CELLS // 14042
    assert likelihood_block_rows(4278, 102) == BLOCK_CELLS // 102
    assert likelihood_block_rows(20, 102) is None  # one block holds every row: one pass
    assert likelihood_block_rows(10, 10**7) == 1
    monkeypatch.setattr(jax, "default_backend", lambda: "gpu")
    assert likelihood_block_rows(1000, 14042) is None  # an accelerator keeps the one wide pass
