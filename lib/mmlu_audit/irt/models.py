"""The response models: one linear predictor and one cell likelihood shared by all.

Every model is ``P(Y_ji = 1) = c + (1 − c) σ(η_ji)`` with c = 0 except for the 3PL and
the interaction model. The likelihood of the whole dense matrix is computed by one
vectorised expression over the sign matrix (+1 correct, −1 wrong, 0 unused), so a
missing or held-out cell contributes exactly zero; on a CPU it runs over blocks of rows
that fit in the core's cache (:func:`likelihood_block_rows`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import numpyro.distributions as dist

from mmlu_audit.core.scaling import standardise, weighted_moments
from mmlu_audit.irt.data import FitData
from mmlu_audit.irt.spec import IRTSpec

__all__ = [
    "ABILITY_SITES", "BLOCK_CELLS", "ITEM_SITES", "SCALAR_SITES", "Site", "cell_loglik", "factor_form",
    "initial_values", "likelihood_block_rows", "linear_predictor", "log_likelihood", "log_prior",
    "model_sites", "site_priors", "site_sum", "total_loglik", "weight_cells",
]

#: Vector-valued latent sites and the dimension they index.
ITEM_SITES = {"theta": "model", "b": "item", "a": "item"}
#: Scalar latent sites (hyperparameters, correlation, interaction effects).
SCALAR_SITES = ("rho", "gamma0", "gamma1", "mu_b", "sigma_b", "mu_log_a", "sigma_a")
#: Latent sites indexed by ability dimension (the ``"2d"`` model's ability SDs).
ABILITY_SITES = ("sigma_theta",)

_B_WIDE_SD = 3.0


def linear_predictor(theta, b, a, *, item_stem=None, covariate=None, gamma0=0.0,
                     gamma1=0.0):
    """Return η (J, I) for abilities ``theta`` and item parameters ``a``, ``b``.

    Parameters
    ----------
    theta : array, shape (J,) or (J, 2)
        Abilities; with two columns [θ_STEM, θ_nonSTEM], ``item_stem`` picks the column.
    b, a : array, shape (I,)
        Difficulty and discrimination (pass ``a = 1`` for the Rasch model).
    item_stem : array of bool, shape (I,), optional
        Between-item loading for two-dimensional abilities.
    covariate : array, shape (I,), optional
        Standardised W of the interaction model, η += γ0 W + γ1 θ W.
    """
    if theta.ndim == 2:
        ability = jnp.where(item_stem[None, :], theta[:, :1], theta[:, 1:])
    else:
        ability = theta[:, None]
    eta = a * (ability - b)
    if covariate is not None:
        eta = eta + covariate * (gamma0 + gamma1 * ability)
    return eta


def cell_loglik(eta, signs, guessing: float = 0.0):
    """Log-likelihood of every cell, zero where ``signs`` is 0.

    Parameters
    ----------
    eta : array, shape (J, I)
    signs : array, shape (J, I)
        +1 correct, −1 wrong, 0 unused (any numeric dtype).
    guessing : float
        Lower asymptote c; 0 gives the logistic models.
    """
    s = signs.astype(eta.dtype)
    if guessing == 0.0:
        return -jax.nn.softplus(-s * eta) * jnp.abs(s)
    log_c, log_1mc = np.log(guessing), np.log1p(-guessing)
    # one softplus serves both branches (softplus(η) = η + softplus(−η)): every cell evaluates both,
    # and this halves the cost of the value and gradient (102 → 46 ms on a 1,000 × 3,153 matrix)
    minus = jax.nn.softplus(-eta)
    log_right = jnp.logaddexp(log_c, log_1mc - minus)
    log_wrong = log_1mc - eta - minus
    return jnp.where(s > 0, log_right, jnp.where(s < 0, log_wrong, 0.0))


def _guessing_cells_and_slopes(eta, signs, guessing: float):
    """:func:`cell_loglik` with c > 0 and its derivative in η, in closed form.

    ∂/∂η log P = (1 − c) σ(η) σ(−η) / P for a right answer and −σ(η) for a wrong one. Written
    out, the two share one σ(η); the autodiff pullback of :func:`cell_loglik` re-evaluated the
    exp/log chain of each branch and made a 3PL step cost ~3× a 2PL step on 2 CPU cores.

    Each cell takes one exp and one log. With e = exp(−|η|) and r = 1 / (1 + e), σ(±η) is r or
    e·r, and a wrong answer's log(1 − c) − softplus(η) is log(1 − c) − max(η, 0) + log r; so the
    log is taken of c + (1 − c) σ(η) in a right cell and of r in a wrong one. r lies in [½, 1],
    so no branch underflows at any η (1 − P itself is 0 past η ≈ 87 in float32). On 2 CPU cores
    a value-and-gradient step in a compiled scan over a 1,000 × 14,042 matrix took 38–41 ms this
    way against 45–47 ms with ``jax.nn.softplus`` for the wrong branch and two sigmoids, and six
    bootstrap refits of §5.1's interaction model 8.8 s against 12.3 s (same steps).
    """
    s = signs.astype(eta.dtype)
    e = jnp.exp(-jnp.abs(eta))
    r = 1.0 / (1.0 + e)
    ahead = eta >= 0
    up, down = jnp.where(ahead, r, e * r), jnp.where(ahead, e * r, r)
    right = guessing + (1.0 - guessing) * up
    log_term = jnp.log(jnp.where(s > 0, right, r))
    cells = jnp.where(s > 0, log_term,
                      jnp.where(s < 0, np.log1p(-guessing) - jnp.maximum(eta, 0.0) + log_term, 0.0))
    slopes = jnp.where(s > 0, (1.0 - guessing) * up * down / right, jnp.where(s < 0, -up, 0.0))
    return cells, slopes


def factor_form(theta, b, a, *, item_stem=None, covariate=None, gamma0=0.0, gamma1=0.0):
    """Write η as ``abilities @ loadings + offsets`` (the engine's fast path).

    Every model here is linear in θ: η_ji = Σ_k Θ_jk A_ki + β_i with
    α = a + γ1 W, β = −a b + γ0 W, and A = α (one dimension) or
    [α·stem, α·(1 − stem)] (between-item two dimensions). Equal to
    :func:`linear_predictor`, but lets the gradient use two matrix products.

    Returns
    -------
    abilities : (J, K)
    loadings : (K, I)
    offsets : (I,)
    """
    a = jnp.broadcast_to(a, b.shape)
    alpha, offsets = a, -a * b
    if covariate is not None:
        alpha, offsets = alpha + gamma1 * covariate, offsets + gamma0 * covariate
    if theta.ndim == 1:
        return theta[:, None], alpha[None, :], offsets
    stem = item_stem.astype(alpha.dtype)
    return theta, jnp.stack([alpha * stem, alpha * (1.0 - stem)]), offsets


#: Cells per block of the likelihood on a CPU (:func:`likelihood_block_rows`).
BLOCK_CELLS = 2**18


def likelihood_block_rows(n_models: int, n_items: int) -> int | None:
    """Model rows per block of :func:`total_loglik` on JAX's default backend (None: one pass).

    Why blocks on a CPU: in one pass over the whole matrix, η and ∂ℓ/∂η are each written to
    memory and read back by the matrix products (~56 MB apiece on 1,000 × 14,042), so a step
    waits on memory. A block of 2¹⁸ cells (1 MB a float32 array) stays in the core's cache from
    η to the products: inside the engine, 400 SVI steps on 1,000 × 14,042 took 19.1 s against
    33.0 s in one pass on one core (12.3 s against 19.5 s on two), and the interaction model on
    the 1,000 × 3,153 STEM matrix 3.5 s against 6.5 s. An accelerator wants the one wide pass
    (blocks would run one after another), so there it is None, as it is when one block would
    hold every row.
    """
    if jax.default_backend() != "cpu":
        return None
    rows = max(1, BLOCK_CELLS // max(int(n_items), 1))
    return None if rows >= n_models else rows


def total_loglik(abilities, loadings, offsets, signs, guessing, row_weight=None, item_weight=None,
                 block_rows=None):
    """Σ over cells of :func:`cell_loglik` at η = abilities @ loadings + offsets.

    The value and its gradient come from one pass over the cells: each cell's log-likelihood
    and slope ∂ℓ/∂η in closed form, the slopes reduced to the gradients by two matrix products,
    instead of letting autodiff re-evaluate the elementwise chain once per reduction.
    ``row_weight`` (J,) and ``item_weight`` (I,), optional, multiply each model row's and
    each item column's log-likelihood: a row (column) of weight k counts as k identical
    rows (columns), weight 0 as none. ``block_rows`` makes the pass go ``block_rows`` models
    at a time (:func:`likelihood_block_rows`); the result is the same up to float summation
    order.
    """
    return _weighted_loglik(abilities, loadings, offsets, signs, row_weight, item_weight, guessing,
                            block_rows)


def weight_cells(cells, row_weight=None, item_weight=None):
    """A (J, I) array of per-cell terms with row j counted ``row_weight[j]`` and column i
    ``item_weight[i]`` times (the frequency weights of :func:`total_loglik`)."""
    if row_weight is not None:
        cells = cells * row_weight[:, None]
    return cells if item_weight is None else cells * item_weight[None, :]


def _logistic_cells_and_slopes(eta, signs):
    """:func:`cell_loglik` with c = 0 and its derivative in η, in closed form.

    With z = sη and e = exp(−|z|): log σ(z) = min(z, 0) − log(1 + e) and ∂/∂η = s σ(−z), where
    σ(−z) is e / (1 + e) for z ≥ 0 and 1 / (1 + e) below. One exp, one log and one division
    a cell; through ``jax.nn.softplus`` (a logaddexp, ~4× an exp on XLA CPU) and its pullback a
    blocked 2PL step took ~40 % longer. ``log(1 + e)`` rather than ``log1p(e)``: 1 + e lies in
    (1, 2], where the two differ by at most 6·10⁻⁸ a cell (float32 rounding of 1 + e), below the
    rounding of a float32 total of more than a few cells; the slopes do not use it, and a value
    wanted cell by cell with full relative accuracy comes from :func:`cell_loglik`. XLA's CPU
    log1p is the slower of the two (a 1,000 × 14,042 step on one core: 28–32 against 20–24 ms).
    """
    s = signs.astype(eta.dtype)
    z = s * eta
    e = jnp.exp(-jnp.abs(z))
    cells = (jnp.minimum(z, 0.0) - jnp.log(1.0 + e)) * jnp.abs(s)
    return cells, s * jnp.where(z >= 0, e, 1.0) / (1.0 + e)


def _block_terms(abilities, loadings, offsets, signs, row_weight, item_weight, guessing):
    """(Σ weighted ℓ, ∂/∂abilities, [∂/∂loadings; ∂/∂offsets]) of one block of rows.

    The weighted sum of the cells is taken as row_weight · (cells @ item_weight), two matrix-vector
    products, rather than a reduction: XLA's CPU reduction of a block cost more than the products
    (a 1,000 × 14,042 value-and-gradient step, blocked, on one core: 33–37 against 25–32 ms with
    c = 0.25, 34–42 against 29–36 ms with c = 0). The gradients are untouched; the value differs
    only in the order of its float32 sum.
    """
    eta = abilities @ loadings + offsets
    if guessing == 0.0:
        cells, slopes = _logistic_cells_and_slopes(eta, signs)
    else:
        cells, slopes = _guessing_cells_and_slopes(eta, signs, guessing)
    slopes = weight_cells(slopes, row_weight, item_weight)
    with_ones = jnp.concatenate([abilities, jnp.ones_like(abilities[:, :1])], axis=1)
    rows = jnp.ones(cells.shape[0], cells.dtype) if row_weight is None else row_weight
    items = jnp.ones(cells.shape[1], cells.dtype) if item_weight is None else item_weight
    return (cells @ items) @ rows, slopes @ loadings.T, with_ones.T @ slopes


def _value_and_gradients(abilities, loadings, offsets, signs, row_weight, item_weight, guessing, block_rows):
    """The log-likelihood and its gradients in abilities, loadings and offsets (see
    :func:`total_loglik`), in one pass or ``block_rows`` rows at a time."""
    if block_rows is None or block_rows >= abilities.shape[0]:
        value, ability_grad, reduced = _block_terms(abilities, loadings, offsets, signs, row_weight,
                                                    item_weight, guessing)
        return value, ability_grad, reduced[:-1], reduced[-1]
    n_rows, n_dims = abilities.shape
    n_blocks = -(-n_rows // block_rows)
    weight = jnp.ones(n_rows, abilities.dtype) if row_weight is None else row_weight

    def blocks(x):  # padded rows have signs 0 and weight 0: they add nothing
        x = jnp.pad(x, ((0, n_blocks * block_rows - n_rows),) + ((0, 0),) * (x.ndim - 1))
        return x.reshape((n_blocks, block_rows) + x.shape[1:])

    def one_block(totals, block):
        block_abilities, block_signs, block_weight = block
        value, ability_grad, reduced = _block_terms(block_abilities, loadings, offsets, block_signs,
                                                    block_weight, item_weight, guessing)
        return (totals[0] + value, totals[1] + reduced), ability_grad

    zeros = (jnp.zeros((), abilities.dtype), jnp.zeros((n_dims + 1, loadings.shape[1]), abilities.dtype))
    (value, reduced), ability_grad = jax.lax.scan(one_block, zeros,
                                                  (blocks(abilities), blocks(signs), blocks(weight)))
    return value, ability_grad.reshape(-1, n_dims)[:n_rows], reduced[:-1], reduced[-1]


@partial(jax.custom_vjp, nondiff_argnums=(6, 7))
def _weighted_loglik(abilities, loadings, offsets, signs, row_weight, item_weight, guessing, block_rows):
    return _value_and_gradients(abilities, loadings, offsets, signs, row_weight, item_weight, guessing,
                                block_rows)[0]


def _weighted_loglik_fwd(abilities, loadings, offsets, signs, row_weight, item_weight, guessing, block_rows):
    value, *gradients = _value_and_gradients(abilities, loadings, offsets, signs, row_weight, item_weight,
                                             guessing, block_rows)
    return value, (*gradients, row_weight, item_weight)


def _weighted_loglik_bwd(guessing, block_rows, residuals, cotangent):
    ability_grad, loading_grad, offset_grad, row_weight, item_weight = residuals
    # weights are data: zero cotangents
    row_cotangent = None if row_weight is None else jnp.zeros_like(row_weight)
    item_cotangent = None if item_weight is None else jnp.zeros_like(item_weight)
    return (ability_grad * cotangent, loading_grad * cotangent, offset_grad * cotangent, None,
            row_cotangent, item_cotangent)


_weighted_loglik.defvjp(_weighted_loglik_fwd, _weighted_loglik_bwd)


@dataclass(frozen=True)
class Site:
    """One latent parameter block of a model.

    Attributes
    ----------
    name : str
        ``"theta"``, ``"b"``, ``"a"``, ``"rho"``, ``"gamma0"``…
    shape : tuple of int
    support : {"real", "positive", "correlation"}
        Decides the map from the guide's unconstrained normal to the parameter:
        identity, exp, or tanh onto (−1, 1).
    """

    name: str
    shape: tuple
    support: str = "real"


def model_sites(spec: IRTSpec, n_models: int, n_items: int) -> list[Site]:
    """The latent sites of ``spec``'s model, in a fixed order."""
    sites = [Site("theta", (n_models, 2) if spec.model == "2d" else (n_models,)),
             Site("b", (n_items,))]
    if spec.model != "rasch":
        sites.append(Site("a", (n_items,), "real" if spec.a_prior == "normal" else "positive"))
    if spec.model == "2d":
        sites += [Site("rho", (), "correlation"), Site("sigma_theta", (2,), "positive")]
    if spec.model == "interaction":
        sites += [Site("gamma0", ()), Site("gamma1", ())]
    if spec.b_prior == "hierarchical":
        sites += [Site("mu_b", ()), Site("sigma_b", (), "positive")]
        if spec.model == "interaction":
            sites.append(Site("mu_log_a", ()))
        if spec.model != "rasch":
            sites.append(Site("sigma_a", (), "positive"))
    return sites


def _theta_prior(values: dict):
    """θ ~ N(0, 1), or a bivariate normal with free SDs σ_θ and correlation ρ.

    Why the SDs are free: the likelihood fixes no scale (θ → kθ, a → a/k, b → kb), so the
    fitted abilities take whatever spread the item priors leave them (E[θ²] ≈ 0.3 under
    b ~ N(0, 1) on MMLU). With both variances pinned at 1 the only way for the prior to
    absorb a small spread is ρ → 1 (the prior term of a unit-variance bivariate normal
    at sample moments S11 = S22 = s, S12 = r s is maximised at a ρ above r once s < 1), so
    ρ̂ was biased up. With θ = diag(σ_θ) L(ρ) z the prior's maximum over (σ_θ, ρ) is the
    sample correlation, whatever the scale; the scale itself stays anchored by the item
    priors (b's prior, a's prior), as in the one-dimensional model.
    """
    if "rho" not in values:
        return dist.Normal(0.0, 1.0)
    rho, sd = values["rho"], values["sigma_theta"]
    scale_tril = jnp.array([[1.0, 0.0], [rho, jnp.sqrt(1.0 - rho**2)]]) * sd[:, None]
    return dist.MultivariateNormal(jnp.zeros(2), scale_tril=scale_tril)


def _a_prior(spec: IRTSpec, values: dict):
    """Discrimination prior: HalfNormal or (signed, ``a_prior="normal"``) Normal with scale σ_a
    when learned, else ``a_scale``; LogNormal(μ_log a, σ_a) in the interaction model.

    The interaction model's a ~ LogNormal(μ_log a, σ_a) is what identifies γ: the likelihood
    sees only α_i = a_i + γ1 W_i and β_i = γ0 W_i − a_i b_i, so free item parameters absorb
    any γ (see :func:`mmlu_audit.irt.models.linear_predictor`). Under exchangeable item
    effects drawn from a distribution that does not depend on W, with a learned location
    and spread, moving δ W_i from γ1 into the a_i (or from γ0 into the b_i) puts a W-trend
    into the residuals that their common prior penalises by ≈ I δ² Var(W) / (2 σ²) nats
    (σ the residual SD); so γ1 is the linear W-trend of the discrimination and γ0 that of
    the item intercept, estimated as in a random-effects regression, and no longer set by
    a fixed prior's arbitrary scale or by the optimiser's path.
    """
    if "mu_log_a" in values:
        return dist.LogNormal(values["mu_log_a"], values["sigma_a"])
    scale = values.get("sigma_a", spec.a_scale)
    return dist.Normal(0.0, scale) if spec.a_prior == "normal" else dist.HalfNormal(scale)


def _b_prior(spec: IRTSpec, values: dict):
    """Difficulty prior for ``spec.b_prior`` (hyperparameters taken from ``values``)."""
    if spec.b_prior == "paper":
        return dist.Normal(0.0, 1.0)
    if spec.b_prior == "wide":
        return dist.Normal(0.0, _B_WIDE_SD)
    return dist.Normal(values["mu_b"], values["sigma_b"])


def site_priors(spec: IRTSpec, values: dict, names=None) -> dict:
    """The priors of the sites ``names`` (default: every site in ``values``), in summation order.

    θ ~ N(0, 1) (``"2d"``: bivariate with SDs σ_θ ~ LogNormal(0, 1) and ρ ~ Uniform(−1, 1));
    b per ``b_prior``; a ~ HalfNormal(a_scale), or Normal(0, a_scale²) with ``a_prior="normal"``
    (``"hierarchical"``: σ_a in place of a_scale; the interaction model: LogNormal(μ_log a, σ_a)
    with μ_log a ~ N(0, 1)); γ ~ N(0, 1);
    μ_b ~ N(0, 3²), σ_b ~ HalfNormal(3), σ_a ~ HalfNormal(2). A prior that depends on a
    hyperparameter (b on μ_b and σ_b, a on μ_log a and σ_a, θ on ρ and σ_θ) is built at its
    value in ``values``.

    Returns
    -------
    dict of str to numpyro.distributions.Distribution
        One home for the priors: :func:`log_prior` sums their log densities and
        :func:`mmlu_audit.irt.numpyro_svi.numpyro_model` samples from them.
    """
    builders = {
        "theta": lambda: _theta_prior(values), "b": lambda: _b_prior(spec, values),
        "a": lambda: _a_prior(spec, values),
        "rho": lambda: dist.Uniform(-1.0, 1.0), "sigma_theta": lambda: dist.LogNormal(0.0, 1.0),
        "gamma0": lambda: dist.Normal(0.0, 1.0),
        "gamma1": lambda: dist.Normal(0.0, 1.0), "mu_b": lambda: dist.Normal(0.0, 3.0),
        "sigma_b": lambda: dist.HalfNormal(3.0), "mu_log_a": lambda: dist.Normal(0.0, 1.0),
        "sigma_a": lambda: dist.HalfNormal(2.0),
    }
    names = [name for name in builders if name in values] if names is None else list(names)
    return {name: builders[name]() for name in names}


def site_sum(name: str, terms, row_weight=None, item_weight=None):
    """Σ of a site's per-element ``terms``, each model's counted ``row_weight`` times and each item's
    ``item_weight`` times.

    The one place frequency weights reach the per-model and per-item terms (priors, Jacobians,
    entropies); the likelihood takes them in :func:`total_loglik`. A weight of 0 removes the
    element, including from the hierarchical prior its hyperparameters are learned from.
    """
    weight = {"model": row_weight, "item": item_weight}.get(ITEM_SITES.get(name))
    if weight is not None:
        terms = terms * weight.reshape((-1,) + (1,) * (terms.ndim - 1))
    return terms.sum()


def log_prior(spec: IRTSpec, values: dict, row_weight=None, item_weight=None):
    """Σ log p(parameter) over every site, in the constrained space (priors: :func:`site_priors`).

    ``row_weight`` (J,) and ``item_weight`` (I,), optional, weight each model's θ prior term
    and each item's a and b prior terms (see :func:`site_sum`).
    """
    total = 0.0
    for name, prior in site_priors(spec, values).items():
        total = total + site_sum(name, prior.log_prob(values[name]), row_weight, item_weight)
    return total


def log_likelihood(spec: IRTSpec, values: dict, signs, item_stem=None, covariate=None,
                   row_weight=None, item_weight=None, block_rows=None):
    """Σ over used cells of log P(y | parameters) (see :func:`total_loglik`, and its ``block_rows``)."""
    guessing = spec.guessing if spec.has_guessing else 0.0
    gammas = {k: values[k] for k in ("gamma0", "gamma1") if k in values}
    parts = factor_form(values["theta"], values["b"], values.get("a", 1.0),
                        item_stem=item_stem, covariate=covariate, **gammas)
    return total_loglik(*parts, signs, guessing, row_weight, item_weight, block_rows)


def _logit_of_rate(correct: np.ndarray, seen: np.ndarray, guessing: float) -> np.ndarray:
    """Logit of a success rate above the guessing floor, shrunk away from 0 and 1."""
    rate = (correct + 0.5) / (seen + 1.0)
    rate = np.clip((rate - guessing) / (1.0 - guessing), 0.02, 0.98)
    return np.log(rate / (1.0 - rate))


def _orientation(right: np.ndarray, seen: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """+1 or −1 per item: the sign of the covariance of its responses with the starting θ."""
    n_seen = np.maximum(seen.sum(axis=0), 1.0)
    rate = right.sum(axis=0) / n_seen
    centred = (theta[:, None] - (seen * theta[:, None]).sum(axis=0) / n_seen) * seen
    covariance = (centred * (right - rate)).sum(axis=0)
    return np.where(covariance < 0, -1.0, 1.0)


def initial_values(spec: IRTSpec, data: FitData) -> dict[str, np.ndarray]:
    """Starting values of the guide's means (constrained space).

    ``init="neutral"`` gives θ = 0, b = 0, a = 1. ``init="data"`` puts θ at the
    standardised logit of each model's accuracy (per dimension for ``"2d"``) and b at
    minus the item logit, inflated by √(1 + π/8) for averaging over θ ~ N(0, 1). With a
    signed discrimination (``a_prior="normal"``, one dimension) a starts at ±1 by the sign of
    the item's covariance with that θ, and b's sign follows it.
    """
    n_models, n_items = data.shape
    guessing = spec.guessing if spec.has_guessing else 0.0
    right = (data.signs > 0).astype(np.float64)
    seen = (data.signs != 0).astype(np.float64)
    weight = np.ones(n_models) if data.row_weight is None else data.row_weight.astype(np.float64)
    columns = np.ones(n_items) if data.item_weight is None else data.item_weight.astype(np.float64)
    values = {}
    if spec.init == "neutral":
        theta = np.zeros((n_models, 2) if spec.model == "2d" else n_models)
        b = np.zeros(n_items)
    else:
        b = -_logit_of_rate(weight @ right, weight @ seen, guessing) * np.sqrt(1 + np.pi / 8)
        if spec.model == "2d":
            cols = [data.item_stem, ~data.item_stem]
            logits = [_logit_of_rate(right[:, c] @ columns[c], seen[:, c] @ columns[c], guessing)
                      for c in cols]
            theta = np.stack([standardise(x, weights=data.row_weight) for x in logits], axis=1)
        else:
            logit = _logit_of_rate(right @ columns, seen @ columns, guessing)
            theta = standardise(logit, weights=data.row_weight)
    a = np.ones(n_items)
    if spec.a_prior == "normal" and spec.init == "data" and spec.model != "2d":
        # a signed fit starts each item on the side its item–ability covariance points to; from
        # a = +1 a wrong-way item with a floor sits where the gradient in a vanishes
        a = _orientation(right, seen, theta)
        b = b * a  # at θ = 0, σ(a(0 − b)) must keep the item's rate whichever way a points
    values["theta"], values["b"] = theta, b
    if spec.model != "rasch":
        values["a"] = a
    if spec.model == "2d":
        values["rho"], values["sigma_theta"] = np.array(0.5), np.ones(2)
    if spec.model == "interaction":
        values["gamma0"], values["gamma1"] = np.array(0.0), np.array(0.0)
    if spec.b_prior == "hierarchical":
        mean_b, sd_b = weighted_moments(b, columns)
        values["mu_b"], values["sigma_b"] = np.array(mean_b), np.array(max(sd_b, 0.1))
        if spec.model == "interaction":
            values["mu_log_a"], values["sigma_a"] = np.array(0.0), np.array(0.5)
        elif spec.model != "rasch":
            values["sigma_a"] = np.array(1.0)
    return {k: np.asarray(v, dtype=np.float32) for k, v in values.items()}
