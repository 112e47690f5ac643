"""The same calibration run through NumPyro's own SVI: ``fit_irt(..., engine="numpyro")``.

The default engine (:mod:`mmlu_audit.irt.engine`) writes its mean-field guide, ELBO and
Adam by hand and takes only the distributions from NumPyro. This module states each
model as an ordinary NumPyro model — the priors of :func:`~mmlu_audit.irt.models.site_priors`
and a masked ``Bernoulli`` likelihood written from :func:`~mmlu_audit.irt.models.linear_predictor`,
independently of the engine's custom-gradient likelihood — and fits it with
``numpyro.infer.SVI``, ``AutoNormal`` and ``Trace_ELBO``. It exists to check the
hand-written engine against NumPyro itself (``tests/test_irt_numpyro.py``) and for users who want
the reference path; it is slower and runs all ``max_steps`` steps (no early stopping).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
import numpyro
import numpyro.distributions as dist
from numpyro.infer import SVI, Trace_ELBO
from numpyro.infer.autoguide import AutoNormal
from numpyro.infer.initialization import init_to_value

from mmlu_audit.irt.data import FitData
from mmlu_audit.irt.models import initial_values, linear_predictor, model_sites, site_priors
from mmlu_audit.irt.result import ENTROPY_CONSTANT, SVIRun
from mmlu_audit.irt.spec import IRTSpec

__all__ = ["numpyro_model", "run_numpyro_svi"]

#: Sites sampled before the ones whose priors depend on them.
_SAMPLE_ORDER = ("rho", "sigma_theta", "gamma0", "gamma1", "mu_b", "sigma_b", "mu_log_a", "sigma_a",
                 "theta", "b", "a")


def numpyro_model(spec: IRTSpec, data: FitData) -> Callable[[], None]:
    """The NumPyro model of ``spec`` on ``data`` (a function of no arguments).

    Its latent sites, shapes and priors are those of the hand-written engine; cells whose sign is
    0 (missing or held out) are masked out of the likelihood.
    """
    sites = {site.name: site for site in model_sites(spec, *data.shape)}
    signs = jnp.asarray(data.signs)
    observed, correct = signs != 0, (signs > 0).astype(jnp.float32)
    stem = None if data.item_stem is None else jnp.asarray(data.item_stem)
    covariate = None if data.covariate is None else jnp.asarray(data.covariate)
    guessing = spec.guessing if spec.has_guessing else 0.0

    def model():
        values = {}
        for name in (n for n in _SAMPLE_ORDER if n in sites):
            # the priors of b, a and θ read the hyperparameters sampled before them
            prior = site_priors(spec, values, names=[name])[name]
            shape = sites[name].shape
            if name == "theta" and spec.model == "2d":
                shape = shape[:1]  # the bivariate normal's event is the pair of abilities
            values[name] = numpyro.sample(name, prior.expand(shape).to_event(len(shape)) if shape else prior)
        gammas = {k: values[k] for k in ("gamma0", "gamma1") if k in values}
        eta = linear_predictor(values["theta"], values["b"], values.get("a", 1.0), item_stem=stem,
                               covariate=covariate, **gammas)
        likelihood = (dist.Bernoulli(logits=eta) if guessing == 0.0
                      else dist.Bernoulli(probs=guessing + (1.0 - guessing) * jax.nn.sigmoid(eta)))
        numpyro.sample("y", likelihood.mask(observed).to_event(2), obs=correct)

    return model


def run_numpyro_svi(spec: IRTSpec, data: FitData, progress: bool = True) -> SVIRun:
    """Fit ``spec`` on ``data`` with ``numpyro.infer.SVI`` (AutoNormal guide, Trace_ELBO).

    Same starting point (``init_to_value`` at the engine's :func:`initial_values`), initial
    guide scale, Adam step size and decay, seed and number of steps as the hand-written engine.
    The guide is returned in the engine's parametrisation (ρ = tanh z, where NumPyro's
    bijection onto (−1, 1) is 2 σ(z′) − 1 = tanh(z′/2)), and the ELBO trace without the
    entropy constant, so :func:`~mmlu_audit.irt.result.summarise_fit` and the stored
    traces mean the same for both engines.
    """
    start = time.perf_counter()
    sites = model_sites(spec, *data.shape)
    model = numpyro_model(spec, data)
    init = {name: jnp.asarray(value, jnp.float32) for name, value in initial_values(spec, data).items()}
    guide = AutoNormal(model, init_loc_fn=init_to_value(values=init), init_scale=spec.init_scale)
    schedule = lambda step: spec.learning_rate * spec.lr_decay**step  # noqa: E731
    svi = SVI(model, guide, numpyro.optim.Adam(schedule), Trace_ELBO())
    result = svi.run(jax.random.PRNGKey(spec.seed), spec.max_steps, progress_bar=progress)
    n_latent = sum(int(np.prod(site.shape)) for site in sites)
    elbo = -np.asarray(result.losses, dtype=np.float64) - n_latent * ENTROPY_CONSTANT
    loc, log_scale = {}, {}
    for site in sites:
        mean = np.asarray(result.params[f"{site.name}_auto_loc"], dtype=np.float32)
        scale = np.asarray(result.params[f"{site.name}_auto_scale"], dtype=np.float32)
        if site.support == "correlation":
            mean, scale = mean / 2, scale / 2
        loc[site.name], log_scale[site.name] = mean, np.log(scale)
    wall = time.perf_counter() - start
    # SVI.run compiles and runs in one call, so compile time is not separable: report the total
    return SVIRun(sites, loc, log_scale, elbo, False, wall, wall)
