"""The SVI engine shared by every response model.

A hand-written mean-field guide — one independent normal per unconstrained scalar,
mapped to each parameter's support (identity, exp, tanh) — and a single-particle
ELBO estimate with the guide's entropy in closed form. Adam with an exponentially
decaying step size; ``chunk`` steps are compiled into one ``jax.lax.scan`` so Python
is visited once per chunk (tqdm bar with the ELBO, stopping rule). The whole
optimiser is one XLA program, compiled once, on whatever backend JAX picks
(CPU here, a GPU when one is visible).

With ``devices=n`` the model axis is sharded over ``n`` devices with JAX's own
``jax.sharding``: the response rows, θ's guide and its Adam moments are split by model
(``PartitionSpec("models")``), every item parameter is replicated, and XLA inserts the
reductions over items' gradients. Nothing else changes — the same program, the same
random stream (JAX's partitionable threefry draws the same numbers however an array is
split) — so a sharded fit equals the unsharded one up to the order of float sums.
"""

from __future__ import annotations

import math
import time
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from tqdm import tqdm

from mmlu_audit.irt.backend import backend_name
from mmlu_audit.core.errors import ParameterError
from mmlu_audit.irt.data import FitData, prepare_data
from mmlu_audit.irt.models import (ITEM_SITES, initial_values, log_likelihood, log_prior, model_sites,
                                   site_sum)
from mmlu_audit.irt.numpyro_svi import run_numpyro_svi
from mmlu_audit.irt.result import IRTFit, SVIRun, summarise_fit
from mmlu_audit.irt.spec import IRTSpec
from mmlu_audit.irt.transforms import constrain, log_det_jacobian, unconstrain

__all__ = ["ENGINES", "SVIRun", "backend_name", "elbo_converged", "fit_irt", "model_axis_placement",
           "run_svi"]

_ADAM_B1, _ADAM_B2, _ADAM_EPS = 0.9, 0.999, 1e-8


def elbo_estimate(spec: IRTSpec, sites, guide, key, signs, item_stem, covariate, row_weight=None):
    """Single-draw ELBO: log p(y, x) + log|J| at x ~ q, plus the guide's entropy.

    The entropy of the mean-field normal is exact (Σ log σ + const), so only the
    model terms carry Monte-Carlo noise. With ``row_weight`` every term of model j
    (likelihood, θ prior, θ entropy) counts ``row_weight[j]`` times, so a row of weight k
    has the ELBO of k identical rows whose guide factors are equal.
    """
    loc, log_scale = guide
    keys = jax.random.split(key, len(sites))
    values, total = {}, 0.0
    for site, site_key in zip(sites, keys, strict=True):
        noise = jax.random.normal(site_key, site.shape)
        z = loc[site.name] + jnp.exp(log_scale[site.name]) * noise
        values[site.name] = constrain(site, z)
        # θ, the only model-indexed site, is real: its Jacobian term is 0, so only its entropy is weighted
        total += log_det_jacobian(site, z) + site_sum(site.name, log_scale[site.name], row_weight)
    total += log_prior(spec, values, row_weight)
    return total + log_likelihood(spec, values, signs, item_stem, covariate, row_weight)


def _adam_update(params, grads, moments, step, learning_rate):
    """One Adam step (maximising) on a pytree; returns (params, moments)."""
    first, second = moments
    first = jax.tree.map(lambda m, g: _ADAM_B1 * m + (1 - _ADAM_B1) * g, first, grads)
    second = jax.tree.map(lambda v, g: _ADAM_B2 * v + (1 - _ADAM_B2) * g * g, second, grads)
    t = step + 1.0
    correction = jnp.sqrt(1 - _ADAM_B2**t) / (1 - _ADAM_B1**t)

    def move(p, m, v):
        return p + learning_rate * correction * m / (jnp.sqrt(v) + _ADAM_EPS)

    return jax.tree.map(move, params, first, second), (first, second)


def _make_chunk_runner(spec: IRTSpec, sites, item_stem, covariate, row_weight=None):
    """Compile ``spec.chunk`` SVI steps into one scan; returns (state, elbo per step)."""
    objective = jax.value_and_grad(partial(elbo_estimate, spec, sites))

    def one_step(state, _, signs):
        guide, moments, step, key = state
        step_key = jax.random.fold_in(key, step)
        value, grads = objective(guide, step_key, signs, item_stem, covariate, row_weight)
        rate = spec.learning_rate * spec.lr_decay**step
        guide, moments = _adam_update(guide, grads, moments, step, rate)
        return (guide, moments, step + 1, key), value

    @jax.jit
    def run_chunk(state, signs):
        return jax.lax.scan(lambda s, x: one_step(s, x, signs), state, None, length=spec.chunk)

    return run_chunk


def elbo_converged(elbo: np.ndarray, window: int, rel_tol: float) -> bool:
    """True when the mean ELBO of the last ``window`` steps moved < ``rel_tol`` (relative).

    Compares the mean of ``elbo[-window:]`` with the mean of the ``window`` steps before
    it; averaging over a window smooths the Monte-Carlo noise of single-draw ELBOs.
    """
    if elbo.size < 2 * window:
        return False
    recent = float(np.mean(elbo[-window:]))
    before = float(np.mean(elbo[-2 * window:-window]))
    return abs(recent - before) <= rel_tol * abs(recent)


def _initial_state(spec: IRTSpec, sites, data: FitData):
    """Guide (loc, log_scale), zero Adam moments, step 0 and the PRNG key."""
    start = initial_values(spec, data)
    loc = {s.name: unconstrain(s, jnp.asarray(start[s.name], jnp.float32)) for s in sites}
    log_scale = {s.name: jnp.full(s.shape, np.log(spec.init_scale), jnp.float32) for s in sites}
    guide = (loc, log_scale)
    zeros = jax.tree.map(jnp.zeros_like, guide)
    return guide, (zeros, zeros), jnp.asarray(0, jnp.int32), jax.random.PRNGKey(spec.seed)


def model_axis_placement(n_devices: int, n_models: int):
    """How to place each array when the model axis is split over ``n_devices`` devices.

    Returns
    -------
    callable
        ``place(array, by_model)``: the array sharded along its first axis over a 1-D mesh
        named ``"models"`` when ``by_model``, replicated on every device otherwise.

    Raises
    ------
    ParameterError
        Fewer than ``n_devices`` devices, or ``n_models`` rows that do not split evenly.
    """
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    available = jax.devices()
    if isinstance(n_devices, bool) or not isinstance(n_devices, int) or n_devices < 1:
        raise ParameterError("devices", f"a positive number of devices, not {n_devices!r}")
    if n_devices > len(available):
        raise ParameterError("devices", f"{n_devices} asked for, JAX sees {len(available)} "
                                        f"({jax.default_backend()})")
    if n_models % n_devices:
        raise ParameterError("devices", f"{n_models} model rows do not split evenly over {n_devices} "
                                        "devices (drop or duplicate rows with row_weight to make them)")
    mesh = Mesh(np.array(available[:n_devices]), ("models",))
    by_rows, replicated = NamedSharding(mesh, PartitionSpec("models")), NamedSharding(mesh, PartitionSpec())

    def place(array, by_model: bool):
        return jax.device_put(array, by_rows if by_model else replicated)

    return place


def _shard(state, signs, extras, place):
    """The SVI state, responses and item inputs placed for a model-sharded run."""
    guide, moments, step, key = state

    def by_site(pair):  # a guide-shaped (loc, log_scale) pair of {site: array}
        return tuple({name: place(x, ITEM_SITES.get(name) == "model") for name, x in part.items()}
                     for part in pair)

    state = (by_site(guide), tuple(by_site(m) for m in moments), place(step, False), place(key, False))
    stem, covariate, weight = extras
    return (state, place(signs, True), None if stem is None else place(stem, False),
            None if covariate is None else place(covariate, False),
            None if weight is None else place(weight, True))


def run_svi(spec: IRTSpec, data: FitData, progress: bool = True, devices: int | None = None) -> SVIRun:
    """Maximise the ELBO of ``spec``'s model on ``data``.

    Parameters
    ----------
    spec : IRTSpec
    data : FitData
        From :func:`mmlu_audit.irt.data.prepare_data`.
    progress : bool
        Show a tqdm bar with the current ELBO (mean over the last chunk).
    devices : int, optional
        Split the model axis over this many devices (:func:`model_axis_placement`);
        None or 1 runs on JAX's default device.
    """
    start = time.perf_counter()
    sites = model_sites(spec, *data.shape)
    stem = None if data.item_stem is None else jnp.asarray(data.item_stem)
    covariate = None if data.covariate is None else jnp.asarray(data.covariate)
    weight = None if data.row_weight is None else jnp.asarray(data.row_weight, jnp.float32)
    state, signs = _initial_state(spec, sites, data), jnp.asarray(data.signs)
    if devices is not None and devices != 1:
        place = model_axis_placement(devices, data.shape[0])
        state, signs, stem, covariate, weight = _shard(state, signs, (stem, covariate, weight), place)
    run_chunk = _make_chunk_runner(spec, sites, stem, covariate, weight)
    n_chunks = math.ceil(spec.max_steps / spec.chunk)
    chunks, converged, compile_s = [], False, 0.0
    with tqdm(total=n_chunks * spec.chunk, disable=not progress, desc=f"SVI {spec.model}",
              unit="step") as bar:
        for _ in range(n_chunks):
            state, chunk_elbo = run_chunk(state, signs)
            chunks.append(np.asarray(chunk_elbo, dtype=np.float64))
            compile_s = compile_s or time.perf_counter() - start
            elbo = np.concatenate(chunks)
            bar.update(spec.chunk)
            bar.set_postfix(elbo=f"{chunks[-1].mean():.6g}")
            if elbo.size >= spec.min_steps and elbo_converged(elbo, spec.window, spec.rel_tol):
                converged = True
                break
    loc, log_scale = jax.tree.map(np.asarray, state[0])
    return SVIRun(sites, loc, log_scale, np.concatenate(chunks), converged,
                  time.perf_counter() - start, compile_s)


def fit_irt(data, spec: IRTSpec | None = None, *, item_stem=None, item_covariate=None,
            holdout=None, row_weight=None, progress: bool = True, engine: str = "fast",
            devices: int | None = None) -> IRTFit:
    """Calibrate an IRT model by stochastic variational inference.

    Parameters
    ----------
    data : ResponseMatrix or ndarray of int8, shape (J, I)
        1 correct, 0 wrong, -1 missing. Missing cells never enter the likelihood.
    spec : IRTSpec, optional
        Model, priors and optimiser settings; defaults to the paper's 2PL.
    item_stem : array of bool, shape (I,), optional
        Item partition of the ``"2d"`` model (True = STEM).
    item_covariate : array of float, shape (I,), optional
        W of the ``"interaction"`` model (standardised here).
    holdout : array of bool, shape (J, I), optional
        Cells withheld from the fit, for :func:`mmlu_audit.irt.heldout_loglik`.
    row_weight : array of int, shape (J,), optional
        Frequency weights of the model rows (fast engine only): a row of weight k enters the
        ELBO as k identical rows would at their common optimum. A bootstrap over models
        passes each distinct resampled row once with its count, fitting only the ~63 % of
        rows a resample holds.
    progress : bool
        Show a tqdm progress bar with the ELBO.
    engine : {"fast", "numpyro"}
        ``"fast"`` (default): this module's hand-written guide, ELBO and Adam in one compiled
        scan, with early stopping. ``"numpyro"``: the same model through
        ``numpyro.infer.SVI`` with ``AutoNormal`` and ``Trace_ELBO``
        (:mod:`mmlu_audit.irt.numpyro_svi`), all ``max_steps`` steps; slower, the reference
        the fast engine is tested against.
    devices : int, optional
        Fast engine only: shard the model axis over this many JAX devices (accelerators, or
        host devices forced with ``XLA_FLAGS=--xla_force_host_platform_device_count=N``).
        The estimates equal the unsharded fit's up to float summation order.

    Returns
    -------
    IRTFit
        Posterior means and SDs (dims ``model`` / ``item``), scalar draws, the ELBO
        trace and metadata (steps, converged, wall time, backend).

    Raises
    ------
    DataError
        On invalid responses or item inputs (see :func:`prepare_data`).
    ParameterError
        On an unknown ``engine``, or a fast-engine option given to another engine.
    """
    if engine not in ENGINES:
        raise ParameterError("engine", f"unknown engine {engine!r}; choose one of {tuple(ENGINES)}")
    for name, value in (("row_weight", row_weight), ("devices", devices)):
        if value is not None and engine != "fast":
            raise ParameterError(name, f"an option of the fast engine, not of {engine!r}")
    spec = spec or IRTSpec()
    fit_data = prepare_data(data, spec.model, item_stem=item_stem, item_covariate=item_covariate,
                            holdout=holdout, row_weight=row_weight)
    options = {"devices": devices} if devices is not None else {}
    run = ENGINES[engine](spec, fit_data, progress=progress, **options)
    return summarise_fit(spec, fit_data, run, backend=backend_name(), engine=engine)


#: The optimisers behind :func:`fit_irt`'s ``engine`` option.
ENGINES = {"fast": run_svi, "numpyro": run_numpyro_svi}
