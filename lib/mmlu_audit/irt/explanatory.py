"""The fully explanatory IRT model: difficulty regressed on item indicators inside the
response model, with partition-specific slopes and subject random effects.

The two-stage analysis of §4 first calibrates b̂ and then regresses it on the
indicators, so the regression ignores the calibration's uncertainty and the
clustering enters only through the covariance estimator. The explanatory model
(De Boeck & Wilson 2004; a latent regression on the item side) does both at once:

    θ_j ~ N(0, 1),  a_i ~ HalfNormal(1),
    b_i ~ N(β0 + δ·STEM_i + X_i β + STEM_i · X_i γ + u_{s(i)}, σ_b²),
    u_s = τ z_s,  z_s ~ N(0, 1),  τ ~ HalfNormal(2),  σ_b ~ HalfNormal(2),
    β0, δ ~ N(0, 3²),  β_k, γ_k ~ N(0, 1),
    P(Y_ji = 1) = c + (1 − c) σ(a_i(θ_j − b_i)).

γ is the partition contrast of the nine slopes (the quantity W(9) tests). The
partition is constant within a subject, so δ is separated from the subject
effects u only by their prior; that is the identification problem this module
measures.

It is fitted by NumPyro SVI directly (an ``AutoNormal`` mean-field guide, as in the
engine), with the engine's vectorised likelihood :func:`~mmlu_audit.irt.models.total_loglik`
as the data term. Identification is judged from several restarts with different
seeds: a parameter the data pin down lands in the same place every time, so its
spread across restarts is of the order of its posterior SD.
"""

from __future__ import annotations

import numbers
import time
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np
import numpyro
import numpyro.distributions as dist
import pandas as pd
from numpyro.infer import SVI, Trace_ELBO
from numpyro.infer.autoguide import AutoNormal
from numpyro.infer.initialization import init_to_value
from tqdm import tqdm

from mmlu_audit.core.seeds import check_seed, child_seed, seeded
from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.core.scaling import standardise
from mmlu_audit.irt.data import _as_response_array, to_signs
from mmlu_audit.irt.engine import elbo_converged, first_converged_step
from mmlu_audit.irt.models import factor_form, likelihood_block_rows, total_loglik

__all__ = ["REPLICATE_SD_RATIO", "ExplanatoryFit", "ExplanatorySpec", "explanatory_model", "fit_explanatory",
           "fit_explanatory_restarts", "identification_table", "is_identified", "step_count_summary"]

#: Largest tolerated ratio of the across-restart SD of a parameter to its mean
#: posterior SD for the parameter to count as identified. Mean-field SDs are too small,
#: and single-draw SVI ends with some noise, so 1 is not expected; a weakly identified
#: direction drifts by many posterior SDs.
REPLICATE_SD_RATIO = 3.0


@dataclass(frozen=True)
class ExplanatorySpec:
    """Optimiser settings and the fixed guessing floor of the explanatory model.

    Parameters
    ----------
    guessing : float
        Lower asymptote c (0 gives a 2PL likelihood).
    steps : int
        SVI steps (Adam with step size ``learning_rate · lr_decay^step``).
    learning_rate, lr_decay : float
    window, rel_tol : int, float
        The engine's convergence rule (:func:`~mmlu_audit.irt.engine.elbo_converged`),
        reported, not used to stop.
    init_scale : float
        Initial SD of every guide factor.
    chunk : int
        SVI steps compiled into one ``jax.lax.scan`` (Python is visited once per chunk).
        The steps and their random stream do not depend on it: any ``chunk`` gives the same
        fit up to float rounding, ``chunk=1`` steps from Python one update at a time.
    """

    guessing: float = 0.25
    steps: int = 2000
    learning_rate: float = 0.05
    lr_decay: float = 0.998
    window: int = 50
    rel_tol: float = 2e-5
    init_scale: float = 0.1
    chunk: int = 50

    def __post_init__(self):
        if not 0.0 <= self.guessing < 1.0:
            raise ParameterError("ExplanatorySpec", f"guessing must lie in [0, 1), got {self.guessing}")
        for name in ("steps", "window", "chunk"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
                raise ParameterError("ExplanatorySpec", f"{name} must be a positive integer, got {value!r}")
        if self.steps < 2 * self.window:
            raise ParameterError("ExplanatorySpec", f"steps must be at least 2 × window ({2 * self.window})")


@dataclass
class ExplanatoryFit:
    """Posterior summaries of one explanatory fit.

    Attributes
    ----------
    scalars : DataFrame
        Index: parameter (``beta0``, ``delta``, ``tau``, ``sigma_b``, ``beta[name]``,
        ``gamma[name]``, ``delta_plus_subject_gap``); columns ``mean``, ``sd``.
    b, a, theta : ndarray
        Posterior medians.
    subject_effect : Series
        Posterior median of u_s by subject.
    elbo : ndarray
        ELBO per step (nats).
    converged : bool
        Whether the engine's rule holds at the last step.
    seed : int
    wall_s : float
    """

    scalars: pd.DataFrame
    b: np.ndarray
    a: np.ndarray
    theta: np.ndarray
    subject_effect: pd.Series
    elbo: np.ndarray
    converged: bool
    seed: int
    wall_s: float


def explanatory_model(signs, X, stem, subject_index, *, n_subjects: int, guessing: float,
                      likelihood: bool = True):
    """NumPyro model of the module docstring (``signs``: +1 / −1 / 0 per cell).

    With ``likelihood=False`` the data term is left out (``signs`` then gives only the shape):
    the prior alone, which has every latent site the guide needs.
    """
    n_models, n_items = signs.shape
    n_features = X.shape[1]
    theta = numpyro.sample("theta", dist.Normal(0.0, 1.0).expand([n_models]).to_event(1))
    a = numpyro.sample("a", dist.HalfNormal(1.0).expand([n_items]).to_event(1))
    beta0 = numpyro.sample("beta0", dist.Normal(0.0, 3.0))
    delta = numpyro.sample("delta", dist.Normal(0.0, 3.0))
    beta = numpyro.sample("beta", dist.Normal(0.0, 1.0).expand([n_features]).to_event(1))
    gamma = numpyro.sample("gamma", dist.Normal(0.0, 1.0).expand([n_features]).to_event(1))
    tau = numpyro.sample("tau", dist.HalfNormal(2.0))
    z = numpyro.sample("z_subject", dist.Normal(0.0, 1.0).expand([n_subjects]).to_event(1))
    sigma_b = numpyro.sample("sigma_b", dist.HalfNormal(2.0))
    mean_b = beta0 + delta * stem + X @ beta + stem * (X @ gamma) + tau * z[subject_index]
    b = numpyro.sample("b", dist.Normal(mean_b, sigma_b).to_event(1))
    if likelihood:
        numpyro.factor("responses", total_loglik(*factor_form(theta, b, a), signs, guessing,
                                                 block_rows=likelihood_block_rows(*signs.shape)))


def _inputs(data, X, item_stem, subjects):
    """Validated arrays: signs (J, I), X (I, K) float32, stem float32, subject codes."""
    responses, _, _ = _as_response_array(data)
    n_items = responses.shape[1]
    X = pd.DataFrame(X)
    stem, subjects = np.asarray(item_stem), np.asarray(subjects)
    if X.shape[0] != n_items or not np.isfinite(X.to_numpy(float)).all():
        raise DataError("fit_explanatory", f"X must be a finite table with {n_items} rows (one per item)")
    if stem.dtype != bool or stem.shape != (n_items,):
        raise DataError("fit_explanatory", f"item_stem must be a boolean vector of length {n_items}")
    if subjects.shape != (n_items,):
        raise DataError("fit_explanatory", f"subjects must have one label per item ({n_items})")
    if stem.all() or not stem.any():
        raise DataError("fit_explanatory", "both partitions need items (the model contrasts them)")
    names, codes = np.unique(subjects.astype(str), return_inverse=True)
    mixed = pd.Series(stem).groupby(codes).nunique() > 1
    if mixed.any():
        spanning = list(names[mixed.index[mixed]])
        raise DataError("fit_explanatory", f"subject(s) {spanning} span both partitions")
    return to_signs(responses), X, stem, names, codes


def _initial_values(signs: np.ndarray, guessing: float) -> dict:
    """θ and b from standardised accuracy logits (as the engine's ``init="data"``), a = 1."""
    right, seen = (signs > 0).sum, (signs != 0).sum

    def logit(r, n):
        rate = np.clip(((r + 0.5) / (n + 1.0) - guessing) / (1 - guessing), 0.02, 0.98)
        return np.log(rate / (1 - rate))

    theta = standardise(logit(right(1), seen(1)))
    b = -logit(right(0), seen(0)) * np.sqrt(1 + np.pi / 8)
    return {"theta": theta.astype(np.float32), "b": b.astype(np.float32),
            "a": np.ones(signs.shape[1], np.float32)}


@seeded
def fit_explanatory(data, X, item_stem, subjects, *, seed: int, spec: ExplanatorySpec | None = None,
                    progress: bool = True) -> ExplanatoryFit:
    """Fit the explanatory IRT model by SVI.

    Parameters
    ----------
    data : ResponseMatrix or ndarray of int8, shape (J, I)
    X : DataFrame or ndarray, shape (I, K)
        Item indicators (standardise them first; the slope priors are N(0, 1)).
    item_stem : array of bool, shape (I,)
    subjects : array of str, shape (I,)
        Subject of each item (the random-effect clusters); each must lie in one partition.
    seed : int
        Seed of the SVI noise and of the guide's initial draws (required).
    spec : ExplanatorySpec, optional
    progress : bool
        A tqdm bar over the SVI steps.

    Returns
    -------
    ExplanatoryFit
    """
    fits = fit_explanatory_restarts(data, X, item_stem, subjects, seeds=[seed], spec=spec, progress=progress)
    return fits[0]


def fit_explanatory_restarts(data, X, item_stem, subjects, *, seeds, spec: ExplanatorySpec | None = None,
                             progress: bool = True) -> list[ExplanatoryFit]:
    """Fit the explanatory model once per seed, compiling the SVI step only once.

    Parameters are those of :func:`fit_explanatory`, with ``seeds`` a sequence of
    non-negative integers (one restart each; the same seed gives the same fit).

    Returns
    -------
    list of ExplanatoryFit, in the order of ``seeds``
    """
    seeds = [check_seed(s, "seeds") for s in seeds]
    if not seeds:
        raise ParameterError("seeds", "need at least one seed")
    spec = spec or ExplanatorySpec()
    signs, X, stem, names, codes = _inputs(data, X, item_stem, subjects)
    start_values = _initial_values(signs, spec.guessing)
    guide = AutoNormal(explanatory_model, init_loc_fn=init_to_value(values=start_values),
                       init_scale=spec.init_scale)
    optimiser = numpyro.optim.Adam(lambda step: spec.learning_rate * spec.lr_decay**step)
    svi = SVI(explanatory_model, guide, optimiser, Trace_ELBO())
    arrays = (jnp.asarray(signs), jnp.asarray(X.to_numpy(np.float32)), jnp.asarray(stem.astype(np.float32)),
              jnp.asarray(codes))
    static = {"n_subjects": len(names), "guessing": spec.guessing}
    runners = {}  # one compiled program per chunk length, shared by the restarts
    draw = _posterior_draws(guide)
    fits = []
    for seed in seeds:
        start = time.perf_counter()
        # The initial state is the guide's starting parameters, which the likelihood does not
        # enter; without it the guide's set-up (run eagerly, the first time) skips ~10⁷ cells.
        state = svi.init(jax.random.PRNGKey(seed), *arrays, **static, likelihood=False)
        losses = []
        with tqdm(total=spec.steps, disable=not progress, desc=f"explanatory SVI seed {seed}") as bar:
            for length in _chunk_lengths(spec.steps, spec.chunk):
                if length not in runners:
                    runners[length] = _chunk_runner(svi, static, length)
                state, chunk_losses = runners[length](state, *arrays)
                losses.append(np.asarray(chunk_losses, dtype=np.float64))
                bar.update(length)
        fits.append(_summarise(guide, svi.get_params(state), X.columns, names, stem, codes,
                               -np.concatenate(losses), spec, seed, time.perf_counter() - start, draw))
    return fits


def _chunk_lengths(steps: int, chunk: int) -> list[int]:
    """``steps`` split into runs of ``chunk`` and one shorter remainder."""
    return [chunk] * (steps // chunk) + ([steps % chunk] if steps % chunk else [])


def _chunk_runner(svi, static: dict, length: int):
    """``run(state, *arrays) → (state, losses)``: ``length`` SVI updates in one compiled scan.

    Why: stepped from Python, every update is a separate dispatch and a device-to-host
    read of its loss; in one scan XLA sees the whole loop. Each update is ``svi.update``
    itself, so the steps, their order and the random stream are those of the stepwise loop.
    """
    def run(state, *arrays):
        def one_step(carry, _):
            return svi.update(carry, *arrays, **static)

        return jax.lax.scan(one_step, state, None, length=length)

    return jax.jit(run)


#: Sites whose posterior draws the summary uses (the others are summarised by their medians).
_DRAWN_SITES = ("delta", "tau", "sigma_b", "z_subject")


def _posterior_draws(guide):
    """``draw(key, params)``: 1,000 guide draws of :data:`_DRAWN_SITES`, as one compiled program.

    The same draws as ``guide.sample_posterior`` (same key, same order), but compiled once for
    all restarts, with the draws of the unused item and model vectors left out by XLA; eager,
    each restart compiled its ~30 operations one by one.
    """
    def draw(key, params):
        draws = guide.sample_posterior(key, params, sample_shape=(1000,))
        return {name: draws[name] for name in _DRAWN_SITES}

    return jax.jit(draw)


def _summarise(guide, params, features, names, stem, codes, elbo, spec, seed, wall_s,
               draw) -> ExplanatoryFit:
    """Posterior means / SDs of the scalar parameters; medians of the item and model vectors."""
    median = {k: np.asarray(v) for k, v in guide.median(params).items()}
    scale = {k.removesuffix("_auto_scale"): np.asarray(v) for k, v in params.items()
             if k.endswith("_auto_scale")}
    rows = {"beta0": (median["beta0"], scale["beta0"]), "delta": (median["delta"], scale["delta"])}
    for name in ("beta", "gamma"):
        rows |= {f"{name}[{f}]": (m, s) for f, m, s in zip(features, median[name], scale[name], strict=True)}
    draws = draw(jax.random.PRNGKey(child_seed(seed, 1)), params)
    for name in ("tau", "sigma_b"):
        values = np.asarray(draws[name])
        rows[name] = (values.mean(), values.std())
    # δ trades off against the mean subject effect of each partition: their sum is what the data see
    effect = np.asarray(draws["tau"])[:, None] * np.asarray(draws["z_subject"])
    subject_stem = pd.Series(stem).groupby(codes).first().to_numpy()
    gap = effect[:, subject_stem].mean(1) - effect[:, ~subject_stem].mean(1)
    combined = np.asarray(draws["delta"]) + gap
    rows["delta_plus_subject_gap"] = (combined.mean(), combined.std())
    scalars = pd.DataFrame(rows, index=["mean", "sd"]).T.astype(float)
    converged = elbo_converged(elbo, spec.window, spec.rel_tol)
    return ExplanatoryFit(scalars, median["b"], median["a"], median["theta"],
                          pd.Series(effect.mean(0), index=names, name="subject_effect"),
                          elbo, bool(converged), seed, float(wall_s))


def identification_table(fits: list[ExplanatoryFit]) -> pd.DataFrame:
    """Across-restart spread of every scalar parameter against its posterior SD.

    Returns
    -------
    DataFrame, one row per parameter
        ``mean`` (over restarts), ``restart_sd`` (SD of the restarts' posterior
        means), ``posterior_sd`` (mean over restarts), ``ratio`` = restart_sd /
        posterior_sd, ``identified`` (ratio ≤ :data:`REPLICATE_SD_RATIO`).
    """
    if len(fits) < 2:
        raise DataError("identification_table", "need at least two restarts")
    means = pd.concat([f.scalars["mean"] for f in fits], axis=1)
    sds = pd.concat([f.scalars["sd"] for f in fits], axis=1)
    table = pd.DataFrame({"mean": means.mean(axis=1), "restart_sd": means.std(axis=1, ddof=1),
                          "posterior_sd": sds.mean(axis=1)})
    table["ratio"] = table["restart_sd"] / table["posterior_sd"]
    table["identified"] = table["ratio"] <= REPLICATE_SD_RATIO
    return table


def is_identified(fits: list[ExplanatoryFit], parameters=None) -> bool:
    """True when every restart met the convergence rule and every listed parameter
    (default: all γ) passes :func:`identification_table`'s ratio rule."""
    table = identification_table(fits)
    chosen = table.index[table.index.str.startswith("gamma[")] if parameters is None else list(parameters)
    return bool(all(f.converged for f in fits) and table.loc[chosen, "identified"].all())


def step_count_summary(fits: list[ExplanatoryFit], spec: ExplanatorySpec) -> dict:
    """Where each restart's ELBO rule first held, and what the fixed step count leaves beyond it.

    Parameters
    ----------
    fits : list of ExplanatoryFit
        The restarts (each with its ELBO trace).
    spec : ExplanatorySpec
        Their settings (``steps``, ``window``, ``rel_tol``).

    Returns
    -------
    dict
        ``first_converged_steps``: the step at which each restart's rule first held, in
        restart order (None where it never did); ``step_count_reading``: that in words, with
        ``spec.steps`` over the latest of them ("1.4×") when every restart met the rule.
    """
    firsts = [first_converged_step(fit.elbo, spec.window, spec.rel_tol) for fit in fits]
    never = sum(n is None for n in firsts)
    if never:
        reading = (f"the rule had not held by the last of the fixed {spec.steps:,} steps in {never} of the "
                   f"{len(firsts)} restarts")
    else:
        steps = [f"{n:,}" for n in firsts]
        listed = steps[0] if len(steps) == 1 else ", ".join(steps[:-1]) + " and " + steps[-1]
        reading = (f"the rule first held after {listed} steps, so the fixed {spec.steps:,} steps are "
                   f"{spec.steps / max(firsts):.1f}× the latest of them")
    return {"first_converged_steps": firsts, "step_count_reading": reading}
