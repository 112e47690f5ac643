"""What to fit: the model family, priors and optimiser settings of one IRT calibration.

An :class:`IRTSpec` is a frozen, hashable description of a fit. Together with the
response matrix (and any item covariates) it fully determines the result, which is
what :func:`mmlu_audit.irt.fit_cached` keys its cache on.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, replace

from mmlu_audit.core.errors import ParameterError
from mmlu_audit.core.seeds import check_seed
from mmlu_audit.core.validate import count, positive_real, real_in

__all__ = ["MODELS", "B_PRIORS", "A_PRIORS", "INITS", "IRTSpec"]

#: Response models the engine knows. ``"2d"`` is the between-item two-dimensional
#: 2PL (STEM items load on θ_STEM, the others on θ_nonSTEM); ``"interaction"`` is the
#: paper's native ability × item-covariate model with a guessing floor.
MODELS = ("2pl", "rasch", "3pl", "2d", "interaction")

#: Difficulty priors. ``"paper"``: b ~ N(0, 1) as printed. ``"wide"``: b ~ N(0, 3²).
#: ``"hierarchical"``: b ~ N(μ_b, σ_b) and a ~ HalfNormal(σ_a) with hyperpriors
#: μ_b ~ N(0, 3²), σ_b ~ HalfNormal(3), σ_a ~ HalfNormal(2); see :class:`IRTSpec`.
B_PRIORS = ("paper", "wide", "hierarchical")

#: Discrimination priors. ``"halfnormal"``: a ~ HalfNormal(a_scale), a > 0 (the paper's, with
#: a_scale 1). ``"normal"``: the signed a ~ Normal(0, a_scale²), so an item may discriminate
#: the wrong way (a candidate key error). Under ``b_prior="hierarchical"`` σ_a replaces a_scale.
A_PRIORS = ("halfnormal", "normal")

#: Fields added after fits were first cached: left out of :meth:`IRTSpec.to_json` while at
#: their defaults, so every earlier fit keeps its cache key.
_LATER_FIELDS = {"a_prior": "halfnormal", "a_scale": 1.0, "average_steps": 0}

#: Starting points of the guide (see :class:`IRTSpec`).
INITS = ("data", "neutral")


@dataclass(frozen=True)
class IRTSpec:
    """Model, priors and optimiser settings for one SVI calibration.

    Parameters
    ----------
    model : {"2pl", "rasch", "3pl", "2d", "interaction"}
        Response model. All share θ ~ N(0, 1) (``"2d"``: a bivariate normal with free SDs
        σ_θ ~ LogNormal(0, 1) and correlation ρ ~ Uniform(−1, 1), i.e. LKJ(1) for 2 × 2),
        a ~ HalfNormal(1) (``"rasch"``: a ≡ 1) and the difficulty prior ``b_prior``.
        ``"3pl"`` and ``"interaction"`` use P = c + (1 − c) σ(η) with c = ``guessing``;
        ``"interaction"`` has η = a(θ − b) + γ0 W + γ1 θ W with γ0, γ1 ~ N(0, 1) and needs
        ``b_prior="hierarchical"`` (a ~ LogNormal(μ_log a, σ_a), b ~ N(μ_b, σ_b)): with free
        per-item a and b under fixed priors the likelihood does not identify γ (the items
        absorb it), see :func:`mmlu_audit.irt.models._a_prior`.
    b_prior : {"paper", "wide", "hierarchical"}
        ``"paper"`` (default) is N(0, 1). Under mean-field VI the scale of an IRT model
        is fixed only by the priors (the likelihood is invariant to θ → kθ, b → kb,
        a → a/k), and with I ≫ J the N(0, 1) item prior outweighs the ability prior and
        compresses the difficulty scale when the true b spread is > 1. ``"wide"``
        weakens that pull with N(0, 3²). ``"hierarchical"`` learns the location and
        scale of b and the scale of a, so only θ ~ N(0, 1) sets the scale, as in the
        generating model.
    guessing : float
        The fixed lower asymptote c of ``"3pl"`` and ``"interaction"`` (ignored otherwise),
        in [0, 1).
    a_prior : {"halfnormal", "normal"}
        ``"halfnormal"`` (default): a ~ HalfNormal(``a_scale``), positive. ``"normal"``: the
        signed a ~ Normal(0, ``a_scale``²); with the data-driven start (a = 1) the fit keeps the
        usual orientation, and an item whose a ends negative discriminates the wrong way.
    a_scale : float
        Scale of the discrimination prior (1 in the paper). Ignored under ``"hierarchical"``,
        whose learned σ_a takes its place.
    seed : int
        PRNG seed of the SVI noise. Same seed, same data → identical estimates.
    max_steps, min_steps : int
        Hard upper bound (≥ 1), and the fewest steps before convergence may be declared (≥ 0).
    learning_rate, lr_decay : float
        Adam step size at step 0 (> 0), multiplied by ``lr_decay`` (in (0, 1]) every step.
    window, rel_tol : int, float
        Converged when the mean ELBO of the last ``window`` steps differs from the mean
        of the ``window`` steps before by less than ``rel_tol`` (> 0) relative to its size.
    chunk : int
        Steps run inside one compiled ``lax.scan`` between convergence checks. ``max_steps``
        binds whatever ``chunk`` is (:func:`mmlu_audit.irt.engine.chunk_lengths`): a longer
        chunk is cut to ``max_steps``, and a remainder runs as one shorter scan.
    init : {"data", "neutral"}
        ``"data"`` starts θ at standardised logits of model accuracy and b at the
        matching item logits (a = 1); ``"neutral"`` starts θ = 0, b = 0, a = 1.
    init_scale : float
        Initial standard deviation (> 0) of every mean-field factor (unconstrained space).
    posterior_draws : int
        Draws (≥ 1) from the fitted guide kept for scalar parameters (ρ, γ, hyperpriors).
    average_steps : int
        Polyak–Ruppert tail averaging (≥ 0; 0 = off): after the stopping rule fires (or
        ``max_steps``), run this many more steps (rounded up to whole chunks) and return the
        mean of their iterates instead of the last one. A single-draw ELBO gradient keeps the
        iterate jittering around the optimum by about the step size; the mean over n steps
        cuts that jitter by roughly √(n / autocorrelation time).

    Raises
    ------
    ParameterError
        An unknown choice, a count that is not an integer (or is a bool) in range, or a
        real setting that is NaN, infinite or out of range.
    """

    model: str = "2pl"
    b_prior: str = "paper"
    guessing: float = 0.25
    a_prior: str = "halfnormal"
    a_scale: float = 1.0
    seed: int = 0
    max_steps: int = 2000
    min_steps: int = 100
    learning_rate: float = 0.05
    lr_decay: float = 0.998
    window: int = 50
    rel_tol: float = 2e-5
    chunk: int = 25
    init: str = "data"
    init_scale: float = 0.1
    posterior_draws: int = 1000
    average_steps: int = 0

    def __post_init__(self):
        check_seed(self.seed, "IRTSpec.seed")
        for field, choices in (("model", MODELS), ("b_prior", B_PRIORS), ("a_prior", A_PRIORS),
                               ("init", INITS)):
            if getattr(self, field) not in choices:
                raise ParameterError(f"IRTSpec.{field}",
                                     f"unknown {field} {getattr(self, field)!r}; choose one of {choices}")
        real_in(self.guessing, "IRTSpec.guessing", 0.0, 1.0, low_open=False)
        for field in ("max_steps", "window", "chunk", "posterior_draws"):
            count(getattr(self, field), f"IRTSpec.{field}")
        count(self.min_steps, "IRTSpec.min_steps", minimum=0)
        count(self.average_steps, "IRTSpec.average_steps", minimum=0)
        for field in ("learning_rate", "rel_tol", "init_scale", "a_scale"):
            positive_real(getattr(self, field), f"IRTSpec.{field}")
        # A decay above 1 grows the step size geometrically (0.05 * 1.01**2000 ≈ 2e7).
        real_in(self.lr_decay, "IRTSpec.lr_decay", 0.0, 1.0, high_open=False)
        if self.model == "interaction" and self.b_prior != "hierarchical":
            raise ParameterError(
                "IRTSpec.b_prior", f"the interaction model needs b_prior='hierarchical', got "
                f"{self.b_prior!r}: under fixed item priors each item's a and b absorb γ0 W and γ1 W, "
                "so γ would be set by the priors, not the data")

    @property
    def has_guessing(self) -> bool:
        """True when the model has the c + (1 − c) σ(η) floor."""
        return self.model in ("3pl", "interaction") and self.guessing > 0

    def with_(self, **changes) -> IRTSpec:
        """Return a copy with some fields changed."""
        return replace(self, **changes)

    def to_json(self) -> str:
        """Canonical JSON (sorted keys), used in cache keys and result metadata.

        Fields added later (``a_prior``, ``a_scale``, ``average_steps``) appear only when they differ
        from their defaults, so a spec that does not use them has the key it always had.
        """
        fields = {k: v for k, v in asdict(self).items()
                  if k not in _LATER_FIELDS or v != _LATER_FIELDS[k]}
        return json.dumps(fields, sort_keys=True)
