"""Simulated worlds with a real population's design, for the power of the real-data tests.

A test run on a real population of a few dozen models says little when it fails to reject
unless we know how often it rejects there when the paper's effect is true. These worlds keep
everything of the real design that decides that:

- the same 14,042 items, their subjects, partition and complexity indicators;
- the same models, one simulated model for each real one, each answering exactly the cells its
  real counterpart answered (the missing cells stay missing);
- each model's **accuracy**: its ability is solved so that its expected accuracy over the cells
  it answered equals its real accuracy, under the world's 3PL with the guessing floor; so the
  spread of abilities and the weak models near the floor are the real ones;

and plant the item side of :class:`~mmlu_audit.worlds.simulated.WorldSpec` (the paper's slopes,
or the null world's identical slopes). One ability per model (the STEM / non-STEM abilities of
the leaderboard world are not identified from a few dozen models).

Optionally (``WorldSpec.ability_depth`` = γ ≠ 0) the response model carries an ability × depth
interaction on STEM items, logit = a_i(θ_j − b_i) + γ · z(θ_j) · z(depth_i): the effect §5.1's
two-stage r(β, θ̂) would measure if it were no artefact, so a world where the paper's
guessing-floor claim is false (:class:`AbilityDepth`, :func:`two_stage_interaction`).

Optionally (``calibration``, a :class:`DesignCalibration`) the item side is moved towards the
real pool: another difficulty SD, per-subject random deviations of the indicator slopes, a share
of very easy items (the ceiling: items every model answers) and a share of items no model
answers (the floor: mis-keyed items, below the guessing floor). Its values are fitted by
indirect inference (:mod:`mmlu_audit.worlds.design_calibration`); ``None`` draws exactly the
world without it.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, replace

import numpy as np
import pandas as pd

from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.core.scaling import standardise
from mmlu_audit.core.seeds import check_seed, seeded
from mmlu_audit.data.responses import MISSING, ResponseMatrix
from mmlu_audit.worlds.simulated import World, WorldSpec, plant_items

__all__ = ["AbilityDepth", "DesignCalibration", "abilities_for_accuracy", "simulate_at_design",
           "two_stage_interaction"]

_BOUNDS = (-20.0, 20.0)


def two_stage_interaction() -> float:
    """γ of the ability × depth interaction that §5.1's two-stage estimate implies, from the paper.

    The paper gives no spread of its per-model β, so the two-stage slope cannot be read off its
    text; it does give, in §5.1, r(β, θ̂) over all models (``rs_r_all``), the same r without the
    bottom half of θ̂ (``rs_r_excl_bottom_half``), the 3PL null's r there
    (``null_r_excl_bottom_half``) and the interaction estimated inside the response model, net of
    the floor (``gamma1``, logits per SD of WSCG Depth per unit of ability). Where the floor's
    artefact is weakest (the top half), the part of the two-stage r the null does not reproduce,
    ``rs_r_excl_bottom_half − null_r_excl_bottom_half``, is the two-stage trace of γ1; the
    two-stage estimate read at face value puts all of ``rs_r_all`` on the interaction. Taking r
    proportional to γ (a first-order reading, not a fit), the interaction it implies is

        γ = gamma1 · rs_r_all / (rs_r_excl_bottom_half − null_r_excl_bottom_half),

    a few times γ1, with the sign of γ1 (stronger models lose more per SD of depth).

    Returns
    -------
    float
        γ in logits per SD of depth per SD of ability.
    """
    from mmlu_audit.core.paper import PAPER

    excess = PAPER["rs_r_excl_bottom_half"][0] - PAPER["null_r_excl_bottom_half"][0]
    return float(PAPER["gamma1"][0] * PAPER["rs_r_all"][0] / excess)


@dataclass(frozen=True)
class AbilityDepth:
    """An ability × depth term of the logit: ``gamma · (θ − centre) / scale · z_i``.

    Parameters
    ----------
    weights : ndarray, shape (I,)
        γ · z(depth_i) on STEM items (depth standardised over the STEM items), 0 elsewhere.
    centre, scale : float
        Mean and SD of the abilities that match the models' accuracies without the term, so
        z(θ) is the standardised ability of the design's models.
    """

    weights: np.ndarray
    centre: float
    scale: float

    def logits(self, theta: np.ndarray) -> np.ndarray:
        """The (J, I) term added to a(θ − b)."""
        return ((theta - self.centre) / self.scale)[:, None] * self.weights[None, :]

    @classmethod
    def planted(cls, gamma: float, depth, stem, theta: np.ndarray) -> AbilityDepth:
        """The term for ``gamma``, the items' depth and STEM flags and the abilities it standardises by.

        Raises
        ------
        DataError
            If depth is not finite on the STEM items, is constant there, or fewer than two
            models or no STEM item are given.
        """
        depth, stem = np.asarray(depth, float), np.asarray(stem, bool)
        if stem.sum() < 2 or not np.isfinite(depth[stem]).all() or depth[stem].std() == 0:
            raise DataError("wscg_depth", "needs finite, non-constant values on at least two STEM items")
        if theta.size < 2 or theta.std() == 0:
            raise DataError("design", "needs at least two models of different accuracy to standardise θ")
        weights = np.zeros(depth.size)
        weights[stem] = gamma * standardise(depth[stem])
        return cls(weights, float(theta.mean()), float(theta.std()))


@dataclass(frozen=True)
class DesignCalibration:
    """What the calibrated real-design world changes in the item side (all off by default).

    Parameters
    ----------
    b_sd : float, optional
        The difficulty SD of :func:`~mmlu_audit.worlds.simulated.plant_items` (None: the spec's).
    ceiling_share, ceiling_shift : float
        A share of items, drawn at random, made easier by ``ceiling_shift`` logits of difficulty
        (the ceiling: items nearly every model answers).
    floor_share : float
        A share of items, drawn at random, that no model answers correctly (probability 0: a
        mis-keyed item, below the guessing floor).
    slope_sd : float or tuple of float
        SD of each subject's random deviation from the planted slope of each indicator, in logits
        of difficulty per SD of the indicator (the subject random slopes; 0: none): one for all
        covariates, or one per covariate in ``spec.slopes`` order.
    """

    b_sd: float | None = None
    ceiling_share: float = 0.0
    ceiling_shift: float = 0.0
    floor_share: float = 0.0
    slope_sd: float | tuple = 0.0

    def __post_init__(self):
        if self.b_sd is not None and not (np.isfinite(self.b_sd) and self.b_sd > 0):
            raise ParameterError("b_sd", f"must be positive and finite, got {self.b_sd}")
        for name in ("ceiling_share", "floor_share"):
            if not 0 <= getattr(self, name) < 0.5:
                raise ParameterError(name, f"must lie in [0, 0.5), got {getattr(self, name)}")
        for name in ("ceiling_shift", "slope_sd"):
            values = np.asarray(getattr(self, name), float)
            if values.ndim > 1 or not (np.isfinite(values).all() and (values >= 0).all()):
                raise ParameterError(name, f"must be finite and ≥ 0, got {getattr(self, name)}")

    def to_dict(self) -> dict:
        """The fields, for a results file's settings."""
        return asdict(self)


def _calibrated_items(calibration: DesignCalibration, item_truth: dict, items: pd.DataFrame,
                      x: np.ndarray, rng: np.random.Generator) -> tuple[dict, np.ndarray]:
    """The item truth with the subject random slopes and the ceiling, and the fixed probabilities.

    ``rng`` is drawn in the same amounts whatever the values (tail membership, then one slope
    deviation per subject and covariate), so worlds of one seed at different settings share
    their random numbers.
    """
    membership = rng.random(len(items))
    _, subject = np.unique(items["subject"].to_numpy(str), return_inverse=True)
    sd = np.asarray(calibration.slope_sd, float)
    if sd.ndim == 1 and sd.size != x.shape[1]:
        raise ParameterError("slope_sd", f"needs one SD or one per covariate ({x.shape[1]}), got {sd.size}")
    deviations = rng.normal(0.0, 1.0, (subject.max() + 1, x.shape[1])) * sd
    ceiling = membership < calibration.ceiling_share
    floor = membership >= 1 - calibration.floor_share
    b = item_truth["b"] + (x * deviations[subject]).sum(axis=1) - calibration.ceiling_shift * ceiling
    fixed = np.where(floor, 0.0, np.nan)
    return item_truth | {"b": b, "ceiling": ceiling, "floor": floor,
                         "slope_deviation": deviations[subject]}, fixed


def _probabilities(theta: np.ndarray, a, b, c: float, tilt: AbilityDepth | None,
                   fixed: np.ndarray | None = None) -> np.ndarray:
    """c + (1 − c)·σ(a(θ − b) [+ the ability × depth term]), shape (J, I); ``fixed`` where finite."""
    if tilt is None:
        p = c + (1 - c) / (1 + np.exp(-a[None, :] * (theta[:, None] - b[None, :])))
    else:
        logits = a[None, :] * (theta[:, None] - b[None, :]) + tilt.logits(theta)
        p = c + (1 - c) / (1 + np.exp(-logits))
    if fixed is not None:
        pinned = np.isfinite(fixed)
        p[:, pinned] = fixed[pinned]
    return p


def _expected_accuracy(theta: np.ndarray, a, b, c: float, observed: np.ndarray,
                       tilt: AbilityDepth | None = None, fixed: np.ndarray | None = None) -> np.ndarray:
    p = _probabilities(theta, a, b, c, tilt, fixed)
    return np.where(observed, p, 0.0).sum(axis=1) / observed.sum(axis=1)


def abilities_for_accuracy(accuracy, a, b, c: float, observed: np.ndarray, *,
                           tol: float = 1e-6, tilt: AbilityDepth | None = None,
                           fixed: np.ndarray | None = None) -> np.ndarray:
    """The ability of each model whose expected accuracy over its observed items is ``accuracy``.

    Parameters
    ----------
    accuracy : array-like, shape (J,)
        Target accuracies, each strictly between ``c`` and 1.
    a, b : ndarray, shape (I,)
        Item discriminations and difficulties.
    c : float
        Guessing floor.
    observed : ndarray of bool, shape (J, I)
        The cells each model answered.
    tol : float
        Bisection stops when the ability bracket is narrower than this.
    tilt : AbilityDepth, optional
        An ability × depth term in the logit (expected accuracy still rises with θ while the
        term is smaller than the discriminations, which bisection assumes).
    fixed : ndarray, shape (I,), optional
        A probability that does not depend on ability where finite (NaN elsewhere).

    Raises
    ------
    DataError
        If a target is not strictly between ``c`` and 1 or a model answered no item.
    """
    accuracy = np.asarray(accuracy, float)
    if not ((accuracy > c) & (accuracy < 1)).all():
        raise DataError("accuracy", f"every target accuracy must lie strictly between the floor {c} and 1")
    if not observed.any(axis=1).all():
        raise DataError("observed", "a model answered no item")
    low, high = np.full(accuracy.size, _BOUNDS[0]), np.full(accuracy.size, _BOUNDS[1])
    while (high - low).max() > tol:
        mid = (low + high) / 2
        above = _expected_accuracy(mid, a, b, c, observed, tilt, fixed) > accuracy
        high, low = np.where(above, mid, high), np.where(above, low, mid)
    return (low + high) / 2


@seeded
def simulate_at_design(design: ResponseMatrix, spec: WorldSpec, items: pd.DataFrame,
                       covariates: pd.DataFrame, seed: int, log_a_shift=None,
                       calibration: DesignCalibration | None = None, response_stream: int = 0) -> World:
    """One simulated world with ``design``'s models, missing cells and accuracies.

    Parameters
    ----------
    design : ResponseMatrix
        A real matrix, columns in ``items`` order.
    spec : WorldSpec
        The item side (slopes, null world, difficulty SD, discriminations) and the response
        model (its guessing floor); its population fields are not used.
    items : DataFrame
        The items, in the design's column order.
    covariates : DataFrame
        One column per key of ``spec.slopes``, aligned with ``items``; with
        ``spec.ability_depth`` ≠ 0 also ``wscg_depth`` (the depth of the interaction).
    seed : int
        Seed of the items and the responses; the same seed and inputs give the same matrix.
    log_a_shift : array, shape (I,), optional
        Added to the items' log discriminations (a planted depth trend,
        :func:`~mmlu_audit.worlds.simulated.plant_items`); None plants none.
    calibration : DesignCalibration, optional
        The calibrated item side (its difficulty SD replaces ``spec.b_sd``; subject random
        slopes, ceiling and floor items drawn from a third stream of ``seed``); None draws
        exactly the world without it.
    response_stream : int
        0 (default): the responses come from the second stream of ``seed``. ``k`` ≥ 1: from its
        ``k``-th child, so populations simulated with one seed and different streams answer the
        same planted items (as the real populations answer the same MMLU items) with
        independent responses.

    Returns
    -------
    World
        ``truth`` has ``theta`` (J, 2; both columns the one ability), ``a``, ``b``, ``c``,
        ``stem``, ``subject_effect``, ``covariates`` and ``ability_depth`` (the planted term's
        weights per item, γ · z(depth) on STEM items: all 0 without it); with ``calibration``
        also ``ceiling`` and ``floor`` (bool per item) and ``slope_deviation`` (I, K: each item's
        subject's deviation of the slopes); the matrix keeps the design's models.

    Raises
    ------
    DataError
        If the design's columns are not the items', or ``spec.ability_depth`` ≠ 0 and
        ``covariates`` has no usable ``wscg_depth``.

    Notes
    -----
    With ``spec.ability_depth`` = γ ≠ 0 the abilities are solved twice: first without the term
    (their mean and SD standardise θ in it), then with it, so each model's expected accuracy is
    still its real one. γ = 0 draws exactly the matrix of a world without the option.
    """
    seed = check_seed(seed)
    if list(design.item_ids) != list(items["item_id"]):
        raise DataError("design", "its columns are not in the items' order")
    x = standardise(covariates[list(spec.slopes)].to_numpy(dtype=float))
    if isinstance(response_stream, bool) or not isinstance(response_stream, int | np.integer) \
            or response_stream < 0:
        raise ParameterError("response_stream", f"must be a whole number ≥ 0, got {response_stream!r}")
    streams = np.random.SeedSequence(seed).spawn(3)  # the first two are those of spawn(2)
    responses_from = streams[1] if response_stream == 0 else streams[1].spawn(response_stream)[-1]
    item_rng, response_rng = np.random.default_rng(streams[0]), np.random.default_rng(responses_from)
    if calibration is not None and calibration.b_sd is not None:
        spec = replace(spec, b_sd=calibration.b_sd)
    item_truth = plant_items(spec, items.reset_index(drop=True), x, item_rng, log_a_shift)
    fixed = None
    if calibration is not None:
        item_truth, fixed = _calibrated_items(calibration, item_truth, items, x,
                                              np.random.default_rng(streams[2]))
    c = spec.guessing if spec.response_model == "3pl" else 0.0
    observed = design.observed
    accuracy = design.accuracy().to_numpy()
    _check_reachable(accuracy, c, fixed, observed)
    theta = abilities_for_accuracy(accuracy, item_truth["a"], item_truth["b"], c, observed, fixed=fixed)
    tilt = _planted_tilt(spec, items, covariates, theta)
    if tilt is not None:
        theta = abilities_for_accuracy(accuracy, item_truth["a"], item_truth["b"], c, observed, tilt=tilt,
                                       fixed=fixed)
    p = _probabilities(theta, item_truth["a"], item_truth["b"], c, tilt, fixed)
    responses = (response_rng.random(p.shape) < p).astype(np.int8)
    responses[~observed] = MISSING
    label = "null world (identical slopes)" if spec.null_world else "planted world"
    if tilt is not None:
        label += f", ability × depth γ = {spec.ability_depth:g}"
    if calibration is not None:
        label += ", item side calibrated to the real pool"
    matrix = ResponseMatrix(
        responses, design.models.copy(), design.item_ids.copy(), "simulated", True,
        f"Simulated at the design of {design.source} ({label}, seed {seed}); not MMLU findings.",
        {"seed": seed, "spec": json.loads(spec.to_json()), "design": design.source}
        | ({"calibration": calibration.to_dict()} if calibration is not None else {})
        | ({"response_stream": int(response_stream)} if response_stream else {}),
    )
    truth = {"theta": np.column_stack([theta, theta]), "a": item_truth["a"], "b": item_truth["b"],
             "c": np.float64(c), "stem": items["stem"].to_numpy(bool),
             "subject_effect": item_truth["subject_effect"], "covariates": x,
             "ability_depth": tilt.weights if tilt is not None else np.zeros(len(items))}
    if calibration is not None:
        truth |= {key: item_truth[key] for key in ("ceiling", "floor", "slope_deviation")}
    return World(matrix, truth, spec, seed)


def _check_reachable(accuracy: np.ndarray, c: float, fixed: np.ndarray | None, observed: np.ndarray) -> None:
    """Refuse a floor share so large that a model's accuracy cannot be reached from above it."""
    if fixed is None or not np.isfinite(fixed).any():
        return
    pinned = np.isfinite(fixed)
    lowest = (np.where(observed & pinned, fixed, 0.0).sum(axis=1) + c * (observed & ~pinned).sum(axis=1))
    highest = (np.where(observed & pinned, fixed, 0.0).sum(axis=1) + (observed & ~pinned).sum(axis=1))
    n = observed.sum(axis=1)
    if ((accuracy <= lowest / n) | (accuracy >= highest / n)).any():
        raise ParameterError("floor_share", "leaves some model's accuracy out of reach of any ability")


def _planted_tilt(spec: WorldSpec, items: pd.DataFrame, covariates: pd.DataFrame,
                  theta: np.ndarray) -> AbilityDepth | None:
    """The ability × depth term of ``spec`` (None at γ = 0), standardised by ``theta``."""
    if spec.ability_depth == 0:
        return None
    if "wscg_depth" not in covariates.columns:
        raise DataError("covariates", "an ability × depth interaction needs a 'wscg_depth' column")
    return AbilityDepth.planted(spec.ability_depth, covariates["wscg_depth"].to_numpy(float),
                                items["stem"].to_numpy(bool), theta)
