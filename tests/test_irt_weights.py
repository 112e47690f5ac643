"""Frequency weights of model rows: a row of weight k is k identical rows.

The model bootstrap of the interaction model fits each resample as its distinct rows with
their counts. That is only honest if the weighted ELBO is the ELBO of the duplicated matrix
(with the copies' guide factors equal, as they are at the optimum) and the fits agree.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.irt import IRTSpec, fit_irt
from mmlu_audit.irt.data import prepare_data
from mmlu_audit.irt.engine import elbo_estimate
from mmlu_audit.irt.models import model_sites

COUNTS = np.array([1, 3, 1, 2, 4, 1])


def _responses(n_models, n_items, seed):
    rng = np.random.default_rng(seed)
    theta, b = rng.normal(size=n_models), rng.normal(size=n_items)
    y = (rng.random((n_models, n_items)) < 1 / (1 + np.exp(-(theta[:, None] - b)))).astype(np.int8)
    y[rng.random(y.shape) < 0.1] = -1
    return y


def _inputs(model, n_items=9):
    stem = np.arange(n_items) % 2 == 0 if model == "2d" else None
    covariate = np.linspace(0.0, 3.0, n_items) if model == "interaction" else None
    return {"item_stem": stem, "item_covariate": covariate}


def _elbo(spec, data, guide):
    sites = model_sites(spec, *data.shape)
    weight = None if data.row_weight is None else jnp.asarray(data.row_weight)
    stem = None if data.item_stem is None else jnp.asarray(data.item_stem)
    covariate = None if data.covariate is None else jnp.asarray(data.covariate)
    return jax.value_and_grad(lambda g: elbo_estimate(spec, sites, g, jax.random.PRNGKey(0),
                                                      jnp.asarray(data.signs), stem, covariate,
                                                      weight))(guide)


def _guide(spec, shape, rows=None):
    """A deterministic guide (σ = e⁻²⁰, so the draw is the mean), θ copied along ``rows``."""
    rng = np.random.default_rng(3)
    loc, log_scale = {}, {}
    for site in model_sites(spec, *shape):
        loc[site.name] = jnp.asarray(rng.normal(0, 0.5, site.shape), jnp.float32)
        log_scale[site.name] = jnp.full(site.shape, -20.0, jnp.float32)
    if rows is not None:
        loc["theta"], log_scale["theta"] = loc["theta"][rows], log_scale["theta"][rows]
    return loc, log_scale


@pytest.mark.parametrize("model, b_prior", [("2pl", "paper"), ("3pl", "paper"), ("2d", "paper"),
                                            ("interaction", "hierarchical"), ("rasch", "hierarchical")])
def test_weighted_elbo_is_the_elbo_of_duplicated_rows(model, b_prior):
    spec = IRTSpec(model=model, b_prior=b_prior, guessing=0.25)
    y = _responses(len(COUNTS), 9, seed=1)
    rows = np.repeat(np.arange(len(COUNTS)), COUNTS)
    weighted = prepare_data(y, model, row_weight=COUNTS, **_inputs(model))
    duplicated = prepare_data(y[rows], model, **_inputs(model))
    guide = _guide(spec, weighted.shape)
    value, grads = _elbo(spec, weighted, guide)
    want, want_grads = _elbo(spec, duplicated, _guide(spec, weighted.shape, rows))
    # the entropy's log σ = −20 per copy is large, so compare at float32 resolution
    assert float(value) == pytest.approx(float(want), rel=1e-6)
    for part, want_part in zip(grads, want_grads, strict=True):
        for name in part:
            got = np.asarray(part[name])
            expect = np.asarray(want_part[name])
            if name == "theta":  # one weighted factor carries the gradient of all its copies
                expect = np.stack([expect[rows == j].sum(0) for j in range(len(COUNTS))])
            np.testing.assert_allclose(got, expect, rtol=2e-4, atol=2e-3)


def test_weighted_fit_matches_the_duplicated_fit():
    y = _responses(150, 120, seed=2)
    counts = np.random.default_rng(4).integers(1, 4, len(y))
    rows = np.repeat(np.arange(len(y)), counts)
    # a fixed number of steps, so the stopping rule cannot end the two runs at different points;
    # for scale, two seeds of the duplicated fit differ by up to 0.1 in b at r = 0.9994
    spec = IRTSpec(seed=0, max_steps=800, min_steps=800)
    weighted = fit_irt(y, spec, row_weight=counts, progress=False)
    duplicated = fit_irt(y[rows], spec, progress=False)
    assert np.corrcoef(weighted.b, duplicated.b)[0, 1] > 0.9999
    assert np.abs(weighted.b - duplicated.b).max() < 0.04
    # θ from 120 items is noisy per step: two seeds of the duplicated fit give r = 0.9992
    copies_mean = np.bincount(rows, duplicated.theta) / counts
    assert np.corrcoef(weighted.theta, copies_mean)[0, 1] > 0.998


@pytest.mark.parametrize("weight, problem", [(np.ones(5), "one entry per model"),
                                             (np.r_[np.ones(5), 0], "whole numbers ≥ 1"),
                                             (np.r_[np.ones(5), 1.5], "whole numbers ≥ 1"),
                                             (np.r_[np.ones(5), np.nan], "whole numbers ≥ 1")])
def test_bad_row_weights_are_refused(weight, problem):
    with pytest.raises(DataError, match=problem):
        prepare_data(_responses(6, 9, seed=0), "2pl", row_weight=weight)


def test_row_weight_is_a_fast_engine_option():
    with pytest.raises(ParameterError, match="row_weight"):
        fit_irt(_responses(6, 9, seed=0), IRTSpec(max_steps=10), row_weight=COUNTS,
                engine="numpyro", progress=False)
