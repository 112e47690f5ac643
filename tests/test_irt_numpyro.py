"""The hand-written SVI engine against JAX autodiff and against NumPyro's own SVI.

* the custom VJP of the likelihood and the engine's ELBO gradient equal plain autodiff
  (and finite differences in float64);
* the NumPyro model of every response model has the engine's joint log density, and
  NumPyro's ``Trace_ELBO`` of a given guide equals the engine's ELBO plus the entropy
  constant the traces leave out;
* ``fit_irt(..., engine="numpyro")`` (``SVI`` + ``AutoNormal`` + ``Trace_ELBO``) reaches the
  hand-written engine's optimum: the same ELBO within 0.15 % and the same estimates (r(b) ≥ 0.99).
  Calibration: on the default-suite problem (60 models × 40 items, 500 steps) three data/fit
  seeds gave r(b) ≥ 0.995, r(a) ≥ 0.957 and ELBO differences ≤ 0.05 % (the tail means carry
  ≈ 0.04 % of Monte-Carlo noise themselves); at 120 × 80 and 800 steps every model gave
  r(b) ≥ 0.998 and ≤ 0.04 %. The other models run in the slow suite.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads
from numpyro.infer import Trace_ELBO
from numpyro.infer.autoguide import AutoNormal
from numpyro.infer.util import log_density
from test_irt import logistic_data

from mmlu_audit.core.errors import ParameterError
from mmlu_audit.irt import IRTSpec, fit_irt
from mmlu_audit.irt.data import prepare_data
from mmlu_audit.irt.engine import elbo_estimate
from mmlu_audit.irt.models import (cell_loglik, initial_values, linear_predictor, log_likelihood, log_prior,
                                   model_sites, total_loglik)
from mmlu_audit.irt.numpyro_svi import numpyro_model
from mmlu_audit.irt.result import ENTROPY_CONSTANT
from mmlu_audit.irt.transforms import constrain, log_det_jacobian

#: (model, b_prior) pairs that between them cover every site (θ as one and two dimensions,
#: b, a, ρ, γ0, γ1, μ_b, σ_b, σ_a), support and likelihood branch (logistic and guessing).
CASES = [("2d", "paper"), ("interaction", "hierarchical"), ("rasch", "wide")]
#: The remaining models for the slow equivalence runs.
SLOW_CASES = [("rasch", "paper"), ("3pl", "paper"), ("2d", "paper"),
              ("2pl", "hierarchical")]


def _problem(model: str, n_models: int = 40, n_items: int = 30, seed: int = 0):
    """Responses (with a few missing cells) and the item inputs ``model`` needs."""
    if model == "2d":
        y, truth = logistic_data(n_models, n_items, seed, rho=0.5)
    elif model == "interaction":
        y, truth = logistic_data(n_models, n_items, seed, gammas=(0.3, 0.2), guessing=0.25)
    else:
        y, truth = logistic_data(n_models, n_items, seed, guessing=0.25 if model == "3pl" else 0.0)
    y[np.random.default_rng(seed).random(y.shape) < 0.1] = -1
    inputs = {"item_stem": truth["stem"]} if model == "2d" else {}
    if model == "interaction":
        inputs["item_covariate"] = truth["w"]
    return y, inputs


def _fit_data(model: str, **kwargs):
    y, inputs = _problem(model, **kwargs)
    return prepare_data(y, model, **inputs)


def _random_guide(sites, seed):
    rng = np.random.default_rng(seed)
    loc = {s.name: jnp.asarray(rng.normal(0, 0.5, s.shape), jnp.float32) for s in sites}
    log_scale = {s.name: jnp.asarray(rng.normal(-1.5, 0.2, s.shape), jnp.float32) for s in sites}
    return loc, log_scale


# ---------------------------------------------------------------- gradients
@pytest.mark.parametrize("guessing, n_dims", [(0.0, 1), (0.25, 2)])
def test_custom_vjp_equals_autodiff_and_finite_differences(guessing, n_dims):
    rng = np.random.default_rng(n_dims)
    abilities = jnp.asarray(rng.normal(size=(12, n_dims)))
    loadings = jnp.asarray(rng.lognormal(0, 0.3, (n_dims, 9)))
    offsets = jnp.asarray(rng.normal(size=9))
    signs = jnp.asarray(rng.choice([-1, 0, 1], size=(12, 9)))

    def custom(ab, lo, of):
        return total_loglik(ab, lo, of, signs, guessing)

    def plain(ab, lo, of):
        return cell_loglik(ab @ lo + of, signs, guessing).sum()

    args = (abilities, loadings, offsets)
    for got, want in zip(jax.grad(custom, argnums=(0, 1, 2))(*args),
                         jax.grad(plain, argnums=(0, 1, 2))(*args), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    with jax.enable_x64(True):
        args64 = tuple(jnp.asarray(np.asarray(a), jnp.float64) for a in args)
        check_grads(custom, args64, order=1, modes=("rev",), atol=1e-6, rtol=1e-6)


def test_log_det_jacobian_is_that_of_constrain():
    from mmlu_audit.irt.models import Site

    z = jnp.linspace(-2.5, 2.5, 11)
    for support in ("real", "positive", "correlation"):
        site = Site("x", z.shape, support)
        slope = jax.vmap(jax.grad(lambda v, s=site: constrain(s, v)))(z)
        np.testing.assert_allclose(log_det_jacobian(site, z), jnp.log(jnp.abs(slope)).sum(), rtol=1e-5)


@pytest.mark.parametrize("model, b_prior", CASES)
def test_elbo_gradient_equals_autodiff_of_a_plain_elbo(model, b_prior):
    """The engine's ELBO (custom-VJP likelihood in factor form) against a plain one:
    same draws, likelihood written with linear_predictor + cell_loglik, no custom gradient."""
    spec = IRTSpec(model=model, b_prior=b_prior)
    data = _fit_data(model)
    sites = model_sites(spec, *data.shape)
    stem = None if data.item_stem is None else jnp.asarray(data.item_stem)
    covariate = None if data.covariate is None else jnp.asarray(data.covariate)
    signs, guessing = jnp.asarray(data.signs), spec.guessing if spec.has_guessing else 0.0

    def plain_elbo(guide, key):
        loc, log_scale = guide
        values, total = {}, 0.0
        for site, site_key in zip(sites, jax.random.split(key, len(sites)), strict=True):
            z = loc[site.name] + jnp.exp(log_scale[site.name]) * jax.random.normal(site_key, site.shape)
            values[site.name] = constrain(site, z)
            total += log_det_jacobian(site, z) + log_scale[site.name].sum()
        gammas = {k: values[k] for k in ("gamma0", "gamma1") if k in values}
        eta = linear_predictor(values["theta"], values["b"], values.get("a", 1.0), item_stem=stem,
                               covariate=covariate, **gammas)
        return total + log_prior(spec, values) + cell_loglik(eta, signs, guessing).sum()

    def engine_elbo(guide, key):
        return elbo_estimate(spec, sites, guide, key, signs, stem, covariate)

    @jax.jit  # one program for both, so the test pays one compilation
    def both(guide, key):
        return jax.value_and_grad(engine_elbo)(guide, key), jax.value_and_grad(plain_elbo)(guide, key)

    (value, grads), (want_value, want) = both(_random_guide(sites, 1), jax.random.PRNGKey(4))
    assert float(value) == pytest.approx(float(want_value), rel=1e-5)
    for got_part, want_part in zip(grads, want, strict=True):
        for name in got_part:
            np.testing.assert_allclose(got_part[name], want_part[name], rtol=2e-4, atol=2e-4,
                                       err_msg=f"{model}/{b_prior}: d ELBO / d {name}")


# ---------------------------------------------------------------- the NumPyro model
@pytest.mark.parametrize("model, b_prior", CASES)
def test_numpyro_model_has_the_engines_joint_density(model, b_prior):
    spec = IRTSpec(model=model, b_prior=b_prior)
    data = _fit_data(model)
    values = {k: jnp.asarray(v) for k, v in initial_values(spec, data).items()}
    values["b"] = values["b"] + 0.3  # away from the starting point's symmetries
    stem = None if data.item_stem is None else jnp.asarray(data.item_stem)
    covariate = None if data.covariate is None else jnp.asarray(data.covariate)
    model_fn, signs = numpyro_model(spec, data), jnp.asarray(data.signs)

    @jax.jit
    def both(point):
        ours = log_prior(spec, point) + log_likelihood(spec, point, signs, stem, covariate)
        return log_density(model_fn, (), {}, point)[0], ours

    joint, ours = both(values)
    assert float(joint) == pytest.approx(float(ours), rel=1e-5)


def test_numpyro_trace_elbo_equals_the_engines_elbo_of_the_same_guide(model="2d"):
    """Both estimators on one fixed guide, 2,000 draws each: equal within Monte-Carlo error
    once the engine's omitted entropy constant is added back (ρ maps as z′ = 2z)."""
    spec = IRTSpec(model=model)
    data = _fit_data(model)
    sites = model_sites(spec, *data.shape)
    loc, log_scale = _random_guide(sites, 2)
    stem = None if data.item_stem is None else jnp.asarray(data.item_stem)
    signs = jnp.asarray(data.signs)
    keys = jax.random.split(jax.random.PRNGKey(0), 2000)
    one_engine_draw = jax.vmap(lambda k: elbo_estimate(spec, sites, (loc, log_scale), k, signs, stem, None))
    ours = jax.jit(one_engine_draw)(keys)
    n_latent = sum(int(np.prod(s.shape)) for s in sites)
    ours = np.asarray(ours, np.float64) + n_latent * ENTROPY_CONSTANT

    model_fn = numpyro_model(spec, data)
    guide = AutoNormal(model_fn)
    factor = {s.name: 2.0 if s.support == "correlation" else 1.0 for s in sites}
    params = {}
    for s in sites:
        params[f"{s.name}_auto_loc"] = loc[s.name] * factor[s.name]
        params[f"{s.name}_auto_scale"] = jnp.exp(log_scale[s.name]) * factor[s.name]
    # one particle per call, vmapped: the draws stay separate for the Monte-Carlo error
    one_draw = jax.jit(jax.vmap(lambda k: -Trace_ELBO().loss(k, params, model_fn, guide)))
    theirs = np.asarray(one_draw(jax.random.split(jax.random.PRNGKey(1), 2000)), np.float64)
    error = np.hypot(ours.std() / np.sqrt(ours.size), theirs.std() / np.sqrt(theirs.size))
    assert abs(ours.mean() - theirs.mean()) < 4 * error + 1e-4 * abs(ours.mean())


# ---------------------------------------------------------------- the NumPyro engine
def test_numpyro_engine_reaches_the_fast_engines_optimum():
    y, truth = logistic_data(60, 40, 3)
    spec = IRTSpec(max_steps=500, min_steps=500, seed=1)
    fast = fit_irt(y, spec, progress=False)
    reference = fit_irt(y, spec, progress=False, engine="numpyro")
    assert fast.meta["engine"] == "handwritten" and reference.meta["engine"] == "numpyro"
    assert reference.meta["steps"] == spec.max_steps and np.isfinite(reference.elbo).all()
    assert np.corrcoef(fast.b, reference.b)[0, 1] >= 0.99
    assert np.corrcoef(fast.a, reference.a)[0, 1] >= 0.9  # a is weakly identified by 60 models
    assert np.corrcoef(fast.theta, reference.theta)[0, 1] >= 0.99
    tail_fast, tail_reference = fast.elbo[-100:].mean(), reference.elbo[-100:].mean()
    assert abs(tail_fast - tail_reference) <= 1.5e-3 * abs(tail_fast)
    sd_fast, sd_reference = fast.dataset["b_sd"].mean(), reference.dataset["b_sd"].mean()
    assert float(sd_reference) == pytest.approx(float(sd_fast), rel=0.05)
    # both recover the truth equally well
    assert np.corrcoef(reference.b, truth["b"])[0, 1] > 0.9


@pytest.mark.slow
@pytest.mark.parametrize("model, b_prior", SLOW_CASES)
def test_numpyro_engine_reaches_the_same_optimum_for_every_model(model, b_prior):
    y, inputs = _problem(model, n_models=120, n_items=80, seed=1)
    spec = IRTSpec(model=model, b_prior=b_prior, max_steps=800, min_steps=800, seed=3)
    fast = fit_irt(y, spec, progress=False, **inputs)
    reference = fit_irt(y, spec, progress=False, engine="numpyro", **inputs)
    assert np.corrcoef(fast.b, reference.b)[0, 1] >= 0.99
    assert np.corrcoef(fast.theta.ravel(), reference.theta.ravel())[0, 1] >= 0.99
    tail_fast, tail_reference = fast.elbo[-200:].mean(), reference.elbo[-200:].mean()
    assert abs(tail_fast - tail_reference) <= 1.5e-3 * abs(tail_fast)
    for name in ("rho", "sigma_b", "sigma_a"):
        if f"{name}_mean" in fast.dataset:
            assert float(reference.dataset[f"{name}_mean"]) == pytest.approx(
                float(fast.dataset[f"{name}_mean"]), abs=0.05)


def test_unknown_engine_is_refused():
    with pytest.raises(ParameterError, match="engine"):
        fit_irt(np.zeros((3, 4), np.int8), IRTSpec(max_steps=5), engine="stan", progress=False)


def test_the_old_engine_name_is_refused_with_the_new_one():
    with pytest.raises(ParameterError, match='engine="handwritten"'):
        fit_irt(np.zeros((3, 4), np.int8), IRTSpec(max_steps=5), engine="fast", progress=False)
