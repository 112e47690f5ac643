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
split) — so a sharded fit equals the unsharded one up to the order of float sums. Under
multi-host JAX the mesh spans the processes' devices and the sharded guide is gathered back
to every process at the end (``tests/test_irt_multihost.py``: two processes on loopback).
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
from mmlu_audit.core.scaling import weighted_moments
from mmlu_audit.irt.data import FitData, prepare_data
from mmlu_audit.irt.models import (ITEM_SITES, SCALAR_SITES, cell_loglik, initial_values,
                                   likelihood_block_rows, linear_predictor, log_likelihood, log_prior,
                                   model_sites, site_sum, weight_cells)
from mmlu_audit.irt.numpyro_svi import run_numpyro_svi
from mmlu_audit.irt.result import IRTFit, SVIRun, summarise_fit
from mmlu_audit.irt.spec import IRTSpec
from mmlu_audit.irt.transforms import constrain, log_det_jacobian, log_det_jacobian_terms, unconstrain

__all__ = ["ENGINES", "SVIRun", "backend_name", "chunk_lengths", "elbo_converged", "first_converged_step",
           "fit_irt", "interaction_gauge_step", "interaction_ridge_step", "model_axis_placement", "run_svi",
           "scalar_laplace_scales"]

_ADAM_B1, _ADAM_B2, _ADAM_EPS = 0.9, 0.999, 1e-8


def elbo_estimate(spec: IRTSpec, sites, guide, key, signs, item_stem, covariate, row_weight=None,
                  item_weight=None, block_rows=None):
    """Single-draw ELBO: log p(y, x) + log|J| at x ~ q, plus the guide's entropy.

    The entropy of the mean-field normal is exact (Σ log σ + const), so only the
    model terms carry Monte-Carlo noise. With ``row_weight`` every term of model j
    (likelihood, θ prior, θ entropy) counts ``row_weight[j]`` times, so a row of weight k
    has the ELBO of k identical rows whose guide factors are equal; ``item_weight`` does the
    same for item i's terms (likelihood, a and b priors, a's Jacobian, a and b entropies).
    A weight of 0 leaves the element out: its factors get no gradient and keep their start.
    ``block_rows``: the likelihood's pass, ``block_rows`` models at a time (see
    :func:`~mmlu_audit.irt.models.likelihood_block_rows`).
    """
    loc, log_scale = guide
    keys = jax.random.split(key, len(sites))
    values, total = {}, 0.0
    for site, site_key in zip(sites, keys, strict=True):
        noise = jax.random.normal(site_key, site.shape)
        z = loc[site.name] + jnp.exp(log_scale[site.name]) * noise
        values[site.name] = constrain(site, z)
        terms = log_det_jacobian_terms(site, z) + log_scale[site.name]
        total += site_sum(site.name, terms, row_weight, item_weight)
    total += log_prior(spec, values, row_weight, item_weight)
    return total + log_likelihood(spec, values, signs, item_stem, covariate, row_weight, item_weight,
                                  block_rows)


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


@partial(jax.jit, static_argnames=("spec", "sites", "block_rows"))
def _run_chunk(spec: IRTSpec, sites: tuple, block_rows, state, signs, item_stem, covariate, row_weight,
               item_weight):
    """``spec.chunk`` SVI steps in one scan; returns (state, elbo per step, mean guide over the steps).

    A module-level program with the data as arguments (not baked-in constants), keyed on the
    spec with its seed set to 0 (the seed lives in the state's key): every fit of one model,
    optimiser setting and data shape (a held-out refit beside the full fit, a planted world of
    the same shape, a seed-to-seed comparison) reuses one compiled program instead of paying
    XLA's compile again (5–20 s on 2 cores for a 1,000 × 3,153 matrix). The frequency weights
    are always arrays (ones when not given), so an unweighted fit and its bootstrap refits of one
    shape (resamples as weights, :func:`fit_irt`) share the program too.
    """
    objective = jax.value_and_grad(partial(elbo_estimate, spec, list(sites)))

    def one_step(carry, _):
        (guide, moments, step, key), total = carry
        step_key = jax.random.fold_in(key, step)
        value, grads = objective(guide, step_key, signs, item_stem, covariate, row_weight, item_weight,
                                 block_rows)
        rate = spec.learning_rate * spec.lr_decay**step
        guide, moments = _adam_update(guide, grads, moments, step, rate)
        return ((guide, moments, step + 1, key), jax.tree.map(jnp.add, total, guide)), value

    zeros = jax.tree.map(jnp.zeros_like, state[0])
    (state, total), elbo = jax.lax.scan(one_step, (state, zeros), None, length=spec.chunk)
    return state, elbo, jax.tree.map(lambda x: x / spec.chunk, total)


def _make_chunk_runner(spec: IRTSpec, sites, item_stem, covariate, row_weight, item_weight, block_rows):
    """``run_chunk(state, signs, length=spec.chunk)`` over the shared compiled :func:`_run_chunk`."""
    program_spec, site_key = spec.with_(seed=0), tuple(sites)

    def run_chunk(state, signs, length: int | None = None):
        steps = program_spec if length in (None, spec.chunk) else program_spec.with_(chunk=length)
        return _run_chunk(steps, site_key, block_rows, state, signs, item_stem, covariate, row_weight,
                          item_weight)

    return run_chunk


def chunk_lengths(max_steps: int, chunk: int) -> list[int]:
    """The scan lengths of a run of at most ``max_steps`` steps: whole chunks, then the rest.

    ``max_steps`` binds whatever ``chunk`` is: a chunk longer than ``max_steps`` is cut to it, and
    a ``max_steps`` that is not a multiple of ``chunk`` ends with one shorter scan (a second
    compiled program) instead of running past the bound.
    """
    size = min(chunk, max_steps)
    whole, rest = divmod(max_steps, size)
    return [size] * whole + ([rest] if rest else [])


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


def first_converged_step(elbo: np.ndarray, window: int, rel_tol: float) -> int | None:
    """The first step count at which :func:`elbo_converged` would have stopped a fit, or None.

    The smallest ``n`` for which ``elbo_converged(elbo[:n], window, rel_tol)`` holds: how many
    of a fit's steps its convergence rule needed, read back from its ELBO trace (the chapters
    use it to check that a fixed step count leaves room).
    """
    elbo = np.asarray(elbo, dtype=float)
    if elbo.size < 2 * window:
        return None
    sums = np.concatenate([[0.0], np.cumsum(elbo)])
    ends = np.arange(2 * window, elbo.size + 1)
    recent = (sums[ends] - sums[ends - window]) / window
    before = (sums[ends - window] - sums[ends - 2 * window]) / window
    hits = np.flatnonzero(np.abs(recent - before) <= rel_tol * np.abs(recent))
    return int(ends[hits[0]]) if hits.size else None


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
    stem, covariate, weight, item_weight = extras
    return (state, place(signs, True), None if stem is None else place(stem, False),
            None if covariate is None else place(covariate, False), place(weight, True),
            place(item_weight, False))


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
    stem, covariate, weight, item_weight = _data_arrays(data)
    state, signs = _initial_state(spec, sites, data), jnp.asarray(data.signs)
    block_rows = likelihood_block_rows(*data.shape)
    if devices is not None and devices != 1:
        place = model_axis_placement(devices, data.shape[0])
        state, signs, stem, covariate, weight, item_weight = _shard(
            state, signs, (stem, covariate, weight, item_weight), place)
        block_rows = None  # a scan over row blocks would gather the rows split over the devices
    run_chunk = _make_chunk_runner(spec, sites, stem, covariate, weight, item_weight, block_rows)
    lengths = chunk_lengths(spec.max_steps, spec.chunk)
    n_average = math.ceil(spec.average_steps / lengths[0])
    chunks, converged, compile_s = [], False, 0.0
    with tqdm(total=spec.max_steps + n_average * lengths[0], disable=not progress, desc=f"SVI {spec.model}",
              unit="step") as bar:
        for length in lengths:
            state, chunk_elbo, _mean = run_chunk(state, signs, length)
            chunks.append(np.asarray(chunk_elbo, dtype=np.float64))
            compile_s = compile_s or time.perf_counter() - start
            elbo = np.concatenate(chunks)
            bar.update(length)
            bar.set_postfix(elbo=f"{chunks[-1].mean():.6g}")
            if elbo.size >= spec.min_steps and elbo_converged(elbo, spec.window, spec.rel_tol):
                converged = True
                break
        guide, means = state[0], []
        for _ in range(n_average):  # Polyak-Ruppert: the mean iterate of the steps after the rule fired
            state, chunk_elbo, chunk_mean = run_chunk(state, signs, lengths[0])
            chunks.append(np.asarray(chunk_elbo, dtype=np.float64))
            means.append(chunk_mean)
            bar.update(lengths[0])
        if means:
            guide = jax.tree.map(lambda *parts: sum(parts) / len(parts), *means)
    loc, log_scale = jax.tree.map(_to_host, guide)
    return SVIRun(sites, loc, log_scale, np.concatenate(chunks), converged,
                  time.perf_counter() - start, compile_s)


def _to_host(array) -> np.ndarray:
    """``array``'s whole value as NumPy, gathered from the other processes when it spans them.

    Under multi-host JAX (:func:`jax.distributed.initialize`) a model-sharded array holds only
    this process's rows; every process runs this gather (a collective), so each returns the
    same full estimates.
    """
    if isinstance(array, jax.Array) and not array.is_fully_addressable:
        from jax.experimental import multihost_utils

        return np.asarray(multihost_utils.process_allgather(array, tiled=True))
    return np.asarray(array)


def _data_arrays(data: FitData):
    """(item_stem, covariate, row_weight, item_weight) as JAX arrays; weights are ones when not given.

    Always passing weight arrays makes a weighted and an unweighted fit of one shape the same
    compiled program (multiplying by 1.0 changes no value).
    """
    stem = None if data.item_stem is None else jnp.asarray(data.item_stem)
    covariate = None if data.covariate is None else jnp.asarray(data.covariate, jnp.float32)
    n_models, n_items = data.shape
    weight = jnp.ones(n_models, jnp.float32) if data.row_weight is None else jnp.asarray(data.row_weight,
                                                                                          jnp.float32)
    item_weight = (jnp.ones(n_items, jnp.float32) if data.item_weight is None
                   else jnp.asarray(data.item_weight, jnp.float32))
    return stem, covariate, weight, item_weight


def _plain_log_joint(spec: IRTSpec, values: dict, data: FitData):
    """log p(y, x) by plain autodiff-able code (no custom VJP), for second derivatives."""
    return _plain_log_joint_of(spec, values, jnp.asarray(data.signs), *_data_arrays(data))


def _plain_log_joint_of(spec: IRTSpec, values: dict, signs, stem, covariate, weight, item_weight=None):
    """:func:`_plain_log_joint` on the data arrays themselves (traceable inside ``jax.jit``)."""
    gammas = {k: values[k] for k in ("gamma0", "gamma1") if k in values}
    eta = linear_predictor(values["theta"], values["b"], values.get("a", 1.0), item_stem=stem,
                           covariate=covariate, **gammas)
    guessing = spec.guessing if spec.has_guessing else 0.0
    cells = weight_cells(cell_loglik(eta, signs, guessing), weight, item_weight)
    return log_prior(spec, values, weight, item_weight) + cells.sum()


@partial(jax.jit, static_argnames=("spec", "sites", "scalar_names"))
def _scalar_curvatures(spec: IRTSpec, sites: tuple, scalar_names: tuple, loc: dict, signs, stem,
                       covariate, weight, item_weight):
    """∂² log p(y, x) / ∂z² of each scalar site (unconstrained), the other sites at their means.

    Compiled once per model and data shape (the spec enters with its seed set to 0, which the
    log joint does not use), so fits of one shape share the program. Run eagerly instead, the
    same derivatives took ~20 s per fit of a 1,000 × 3,153 matrix (op-by-op dispatch).
    """
    by_name = {site.name: site for site in sites}
    means = {site.name: constrain(site, loc[site.name]) for site in sites}

    def log_joint(z):
        values = dict(means)
        jacobian = 0.0
        for k, name in enumerate(scalar_names):
            values[name] = constrain(by_name[name], z[k])
            jacobian = jacobian + log_det_jacobian(by_name[name], z[k])
        return jacobian + _plain_log_joint_of(spec, values, signs, stem, covariate, weight, item_weight)

    z0 = jnp.stack([loc[name] for name in scalar_names])
    return jnp.diag(jax.hessian(log_joint)(z0))


def scalar_laplace_scales(spec: IRTSpec, data: FitData, run: SVIRun) -> SVIRun:
    """Set each scalar site's guide SD to its mean-field optimum given the other factors.

    For a normal factor q(z) = N(m, s²) the ELBO's stationarity in s gives
    1 / s² = E_q[−∂² log p(y, x) / ∂z²] (Stein's identity), evaluated here at the guide's
    means. Why: every guide SD starts at ``init_scale`` and the ELBO stopping rule fires when
    the ~10⁶-nat objective stops moving, long before a scalar's SD, which moves the ELBO by
    a fraction of a nat, has settled (γ's SDs stopped at ~0.011 against an optimum of
    ~0.003). A site whose curvature is not negative (a flat or non-concave direction) keeps
    the optimiser's SD.
    """
    scalars = tuple(site.name for site in run.sites if site.name in SCALAR_SITES)
    if not scalars:
        return run
    loc = {name: jnp.asarray(value, jnp.float32) for name, value in run.loc.items()}
    curvatures = np.asarray(_scalar_curvatures(spec.with_(seed=0), tuple(run.sites), scalars, loc,
                                               jnp.asarray(data.signs), *_data_arrays(data)))
    log_scale = dict(run.log_scale)
    for name, curvature in zip(scalars, curvatures, strict=True):
        if curvature < 0:
            log_scale[name] = np.asarray(-0.5 * np.log(-curvature), dtype=np.float32)
    return SVIRun(run.sites, run.loc, log_scale, run.elbo, run.converged, run.wall_s, run.compile_s)


def interaction_gauge_step(spec: IRTSpec, data: FitData, run: SVIRun) -> SVIRun:
    """Move the interaction model's guide to the optimum of θ's location and scale (unseen by the likelihood).

    θ → kθ + c with a → a / k, b → k b + c, γ1 → γ1 / k and γ0 → γ0 − γ1 c / k leaves every η
    unchanged, and with the guide moved alike (θ's and b's SDs × k, log a − log k) the expected
    log-likelihood too (up to c² Var_q(γ1), negligible). Along that direction the hierarchical
    item priors are invariant after their hyperparameters follow (μ_b → k μ_b + c, σ_b → k σ_b,
    μ_log a → μ_log a − log k, with the b entropy's I log k cancelling b's prior), so only
    θ ~ N(0, 1) and θ's entropy move, by J log k − ½ Σ_j [(k μ_j + c)² + k² s_j²]: maximal at the
    (weighted) mean of μ_j equal to 0 and the mean of μ_j² + s_j² equal to 1, set here in closed
    form (the γ and hyperpriors' O(1)-nat pull is left out). Why: every coordinate of the scale
    moves at once on a nearly flat ELBO, so SVI crawls along it (θ's SD was still rising from
    0.91 to 0.93 between steps 450 and 1,600 of a 1,000 × 3,153 fit), and γ1 scales as 1 / k.
    """
    if spec.model != "interaction":
        return run
    weight = np.ones(data.shape[0]) if data.row_weight is None else data.row_weight.astype(np.float64)
    mu = np.asarray(run.loc["theta"], np.float64)
    var = np.exp(2 * np.asarray(run.log_scale["theta"], np.float64))
    centre, spread = weighted_moments(mu, weight)
    k = 1.0 / np.sqrt(spread**2 + np.average(var, weights=weight))
    c = -k * centre
    loc, log_scale = dict(run.loc), dict(run.log_scale)
    gamma1 = float(loc["gamma1"])
    loc |= {"theta": k * mu + c, "b": k * np.asarray(loc["b"], np.float64) + c,
            "a": np.asarray(loc["a"], np.float64) - np.log(k), "gamma1": gamma1 / k,
            "gamma0": float(loc["gamma0"]) - gamma1 * c / k, "mu_b": k * float(loc["mu_b"]) + c,
            "sigma_b": float(loc["sigma_b"]) + np.log(k), "mu_log_a": float(loc["mu_log_a"]) - np.log(k)}
    log_scale |= {name: np.asarray(log_scale[name], np.float64) + shift
                  for name, shift in (("theta", np.log(k)), ("b", np.log(k)), ("gamma1", -np.log(k)))}
    as_float32 = {name: np.asarray(value, np.float32) for name, value in loc.items()}
    scales32 = {name: np.asarray(value, np.float32) for name, value in log_scale.items()}
    return SVIRun(run.sites, as_float32, scales32, run.elbo, run.converged, run.wall_s, run.compile_s)


def _ridge_items(loc: dict, w: np.ndarray, deltas) -> tuple[np.ndarray, np.ndarray]:
    """Item (a, b) after moving δ0 W into γ0 and δ1 W into γ1 with η unchanged cell by cell."""
    a, b = np.exp(loc["a"].astype(np.float64)), loc["b"].astype(np.float64)
    a_new = a - deltas[1] * w
    return a_new, (a * b + deltas[0] * w) / a_new


def _ridge_log_prior(loc: dict, w: np.ndarray, weight: np.ndarray, deltas) -> float:
    """Log prior of the items and γ after a ridge move, hyperparameters at their profile optimum.

    Items count ``weight`` times each (as in the ELBO).
    """
    from scipy import stats

    a, b = _ridge_items(loc, w, deltas)
    if np.any(a <= 0):
        return -np.inf
    log_a = np.log(a)
    gammas = np.array([loc["gamma0"], loc["gamma1"]], dtype=np.float64) + np.asarray(deltas)
    terms = (stats.norm.logpdf(log_a, *weighted_moments(log_a, weight)) - log_a
             + stats.norm.logpdf(b, *weighted_moments(b, weight)))
    return float(weight @ terms + stats.norm.logpdf(gammas).sum())


def interaction_ridge_step(spec: IRTSpec, data: FitData, run: SVIRun) -> SVIRun:
    """Move the interaction model's means to the optimum of the direction the likelihood cannot see.

    η = θ(a + γ1 W) + (γ0 W − a b) is unchanged by γ0 → γ0 + δ0, γ1 → γ1 + δ1,
    a_i → a_i − δ1 W_i, b_i → (a_i b_i + δ0 W_i) / (a_i − δ1 W_i): along that two-dimensional
    ridge only the item prior moves, and it pulls weakly on each of thousands of coupled
    coordinates, so SVI's per-coordinate steps crawl along it and the ELBO stopping rule fires
    long before γ settles (γ0 stopped 0.08 short of the planted value in a 300 × 1,000 test).
    The ridge is exactly flat for the likelihood, so its optimum is that of the item prior
    (hyperparameters profiled at their sample moments) and the N(0, 1) prior on γ: found here
    by a two-dimensional search, then written back to the guide's means of a, b, γ and the
    hyperparameters. The guide's SDs are left to :func:`scalar_laplace_scales`. With item
    weights the moments are weighted, and absent items (weight 0) neither move nor count.
    """
    from scipy.optimize import minimize

    if spec.model != "interaction":
        return run
    present = np.ones(data.shape[1], bool) if data.item_weight is None else data.item_weight > 0
    weight = (np.ones(int(present.sum())) if data.item_weight is None
              else data.item_weight[present].astype(np.float64))
    loc = {k: np.asarray(v) for k, v in run.loc.items()}
    items = {k: loc[k][present] for k in ("a", "b")} | {k: loc[k] for k in ("gamma0", "gamma1")}
    w = np.asarray(data.covariate, np.float64)[present]
    best = minimize(lambda d: -_ridge_log_prior(items, w, weight, d), np.zeros(2), method="Nelder-Mead",
                    options={"xatol": 1e-6, "fatol": 1e-6, "maxiter": 2000})
    if not np.isfinite(best.fun):
        return run
    a, b = _ridge_items(items, w, best.x)
    log_a = np.log(a)
    (mu_b, sd_b), (mu_log_a, sd_log_a) = weighted_moments(b, weight), weighted_moments(log_a, weight)
    new_a, new_b = loc["a"].astype(np.float64), loc["b"].astype(np.float64)
    new_a[present], new_b[present] = log_a, b
    moved = dict(run.loc) | {
        "a": new_a.astype(np.float32), "b": new_b.astype(np.float32),
        "gamma0": np.float32(loc["gamma0"] + best.x[0]), "gamma1": np.float32(loc["gamma1"] + best.x[1]),
        "mu_b": np.float32(mu_b), "sigma_b": np.float32(np.log(sd_b)),
        "mu_log_a": np.float32(mu_log_a), "sigma_a": np.float32(np.log(sd_log_a)),
    }
    return SVIRun(run.sites, moved, run.log_scale, run.elbo, run.converged, run.wall_s, run.compile_s)


def fit_irt(data, spec: IRTSpec | None = None, *, item_stem=None, item_covariate=None,
            holdout=None, row_weight=None, item_weight=None, progress: bool = True,
            engine: str = "handwritten", devices: int | None = None) -> IRTFit:
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
        Frequency weights ≥ 0 of the model rows (hand-written engine only): a row of weight k enters
        the ELBO as k identical rows would at their common optimum, a row of weight 0 not at
        all (its θ keeps its starting value and is reported as NaN).
    item_weight : array of int, shape (I,), optional
        Frequency weights ≥ 0 of the item columns (hand-written engine only), in the same sense: an
        item's likelihood cells, a and b prior terms, Jacobian and guide entropy count
        ``item_weight`` times, and an item of weight 0 is absent, from the hierarchical prior
        too (its a and b are reported as NaN). A bootstrap passes each resample as weights, on
        its drawn rows and columns only (:func:`mmlu_audit.irt.data.present_index`).
    progress : bool
        Show a tqdm progress bar with the ELBO.
    engine : {"handwritten", "numpyro"}
        ``"handwritten"`` (default): this module's hand-written guide, ELBO and Adam in one compiled
        scan, with early stopping. ``"numpyro"``: the same model through
        ``numpyro.infer.SVI`` with ``AutoNormal`` and ``Trace_ELBO``
        (:mod:`mmlu_audit.irt.numpyro_svi`), all ``max_steps`` steps; slower, the reference
        the hand-written engine is tested against. (``"fast"``, this option's old name
        for ``"handwritten"``, is refused with a message naming the new one.)
    devices : int, optional
        Hand-written engine only: shard the model axis over this many JAX devices (accelerators, or
        host devices forced with ``XLA_FLAGS=--xla_force_host_platform_device_count=N``, or
        every process's devices after :func:`jax.distributed.initialize`, each process calling
        with the same data). The estimates equal the unsharded fit's up to float summation order.

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
        On an unknown ``engine``, or a hand-written-engine option given to another engine.
    """
    if engine == "fast":
        raise ParameterError("engine", 'engine="fast" is now engine="handwritten" (the name had nothing '
                             "to do with the book's fast mode)")
    if engine not in ENGINES:
        raise ParameterError("engine", f"unknown engine {engine!r}; choose one of {tuple(ENGINES)}")
    for name, value in (("row_weight", row_weight), ("item_weight", item_weight), ("devices", devices)):
        if value is not None and engine != "handwritten":
            raise ParameterError(name, f"an option of the hand-written engine, not of {engine!r}")
    spec = spec or IRTSpec()
    if spec.average_steps and engine != "handwritten":
        raise ParameterError("IRTSpec.average_steps",
                             f"iterate averaging is a hand-written-engine option, not of {engine!r}")
    fit_data = prepare_data(data, spec.model, item_stem=item_stem, item_covariate=item_covariate,
                            holdout=holdout, row_weight=row_weight, item_weight=item_weight)
    options = {"devices": devices} if devices is not None else {}
    run = ENGINES[engine](spec, fit_data, progress=progress, **options)
    run = interaction_gauge_step(spec, fit_data, run)
    run = interaction_ridge_step(spec, fit_data, run)
    run = scalar_laplace_scales(spec, fit_data, run)
    return summarise_fit(spec, fit_data, run, backend=backend_name(), engine=engine)


#: The optimisers behind :func:`fit_irt`'s ``engine`` option.
ENGINES = {"handwritten": run_svi, "numpyro": run_numpyro_svi}
