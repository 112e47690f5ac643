"""A simulated Open LLM Leaderboard world with known, planted truth.

The real leaderboard matrix (1,000 models × 14,042 items) cannot be fetched on
the machines this project runs on, so every chapter can instead run on a world
generated over the **real** MMLU items. Its item side follows the paper:
1,000 models in 50 base family × size groups with 131 duplicated checkpoints
(869 distinct), two correlated abilities (STEM / non-STEM, ρ = 0.965 overall)
with a small reasoning-tuned tail, positive discriminations, and difficulties
with SD 2.24 built from a partition shift, subject effects, partition-specific
slopes on item covariates, and noise. Its population side (the scale of the
discriminations, the models' mean ability and a share of near-chance models)
comes from a named calibration, :data:`CALIBRATIONS`: ``"paper-2024"`` is the
original world (discriminations around 1, no near-chance models), and
``"leaderboard-2026"`` is fitted to the full-MMLU scores of the real Open LLM
Leaderboard population by :func:`mmlu_audit.worlds.calibration.calibrate_population`.
:data:`DEFAULT_CALIBRATION` names the one a plain ``WorldSpec()`` uses:
``"leaderboard-2026"`` (§2.3 of the real-leaderboard chapter, chap-real-leaderboard, measures
how far either lies from the real leaderboard).

A near-chance model answers every item at the guessing floor, so its ability is not
identified: any value far enough below the items fits its responses, and the planted one
is a stand-in. Model-side planted truth (θ recovery, the latent correlation, the STEM −
non-STEM ability gap) is therefore defined among the **working** models,
:func:`working_models`; the fits themselves keep every model, as a real leaderboard does.

Everything computed on such a world is a statement about the simulation,
never about MMLU: :attr:`ResponseMatrix.simulated` is True and every chapter
shows a banner saying so.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from mmlu_audit.data.responses import ResponseMatrix, load_matrix, save_matrix
from mmlu_audit.core.checkpoints import first_of_each_checkpoint
from mmlu_audit.core.errors import DataError, ParameterError, warn_bad_cache
from mmlu_audit.core.paper import PAPER
from mmlu_audit.core.paths import cache_root, writable_folder
from mmlu_audit.core.store import array_digest, cache_key, locked, stamp_problem
from mmlu_audit.core.scaling import standardise
from mmlu_audit.core.seeds import check_seed, seeded

__all__ = [
    "CALIBRATIONS",
    "CALIBRATED_FIELDS",
    "DEFAULT_CALIBRATION",
    "COVARIATE_KINDS",
    "B_NOISES",
    "DEFAULT_SLOPES",
    "PAPER_ESTIMATE_SLOPES",
    "TEXT_SLOPES",
    "WorldSpec",
    "World",
    "plant_items",
    "working_models",
    "working_correlation",
    "working_rho",
    "simulate_world",
    "load_or_simulate",
    "default_covariates",
    "text_covariates",
]

# Planted slopes (logits of difficulty per SD of indicator): (STEM, non-STEM).
# Three contrasts are planted, as in the paper's findings: entity density and
# syntactic MDD matter in STEM only, concreteness reverses sign; the other six
# indicators have identical slopes in both partitions.
DEFAULT_SLOPES: dict[str, tuple[float, float]] = {
    "wscg_nodes": (0.10, 0.10),
    "wscg_depth": (0.25, 0.25),
    "d_mdd": (0.35, 0.00),
    "clause_depth": (0.10, 0.10),
    "d_logic": (0.10, 0.10),
    "c_bry": (-0.20, 0.10),
    "nominal_rate": (0.05, 0.05),
    "d_ner": (0.40, 0.00),
    "zipf_rarity": (0.20, 0.20),
}
#: The slopes at the paper's own *estimates* (§4.2), where it reports them, for the power of a
#: replication at the paper's effect: D_ner "β = 0.140" in STEM and "b = 0.0002" outside it,
#: D_mdd "b = 0.3694" and "b = 0.0146". The paper gives no other per-partition slope (C_bry's
#: reversal only as test statistics), so the other seven keep :data:`DEFAULT_SLOPES`' values with
#: C_bry's two set to their mean: no contrast the paper does not estimate is planted.
PAPER_ESTIMATE_SLOPES: dict[str, tuple[float, float]] = {
    **DEFAULT_SLOPES,
    "d_mdd": (PAPER["d_mdd_b_stem"][0], PAPER["d_mdd_b_nonstem"][0]),
    "c_bry": ((DEFAULT_SLOPES["c_bry"][0] + DEFAULT_SLOPES["c_bry"][1]) / 2,) * 2,
    "d_ner": (PAPER["d_ner_beta_stem"][0], PAPER["d_ner_b_nonstem"][0]),
}
# Cheap stand-in covariates (``WorldSpec(covariates="text")``) for fast tests.
TEXT_SLOPES: dict[str, tuple[float, float]] = {
    "log_words": (0.30, 0.30),
    "digit_share": (0.45, 0.00),
    "mean_word_length": (0.25, 0.10),
    "n_sentences": (0.00, 0.00),
}
COVARIATE_KINDS = ("indicators", "text")
B_NOISES = ("normal", "skewed")

#: The population-side parameters a calibration sets (see :data:`CALIBRATIONS`).
CALIBRATED_FIELDS = ("a_median", "theta_shift", "chance_share")

#: Named calibrations of the population side of :class:`WorldSpec`, with what each was matched to.
#: This is the one home of the calibrated values and of the real statistics they came from;
#: ``matched_to`` holds the targets of :func:`mmlu_audit.worlds.calibration.calibrate_population`
#: (full-MMLU scores as fractions; "above the floor" = scores of at least ``chance_cutoff``).
CALIBRATIONS: dict[str, dict] = {
    "paper-2024": {
        "values": {"a_median": 1.0, "theta_shift": 0.0, "chance_share": 0.0},
        "matched_to": "the paper's scales: θ ~ N(0, 1) and log a ~ N(0, 0.35²) around a = 1; no "
                      "near-chance models (the world of format world-2)",
    },
    "leaderboard-2026": {
        "values": {"a_median": 0.783, "theta_shift": 0.062, "chance_share": 0.133},
        "matched_to": {
            "source": "openllm_v1_mmlu102: full-MMLU leaderboard scores (lb_mmlu) of the 4,278 "
                      "Open LLM Leaderboard v1 models (not selection-biased, unlike the 102 items); "
                      "the 5,336 scored models of the aggregates table give the same figures to 0.004",
            "chance_cutoff": 0.30,
            "share near chance": 0.1332,
            "median above the floor": 0.6387,
            "SD above the floor": 0.0874,
        },
        # calibrate_population over all 14,042 MMLU items from its default base,
        # WorldSpec(calibration="paper-2024", covariates="text"), and the default grids; the values
        # rounded to three decimals
        "fitted_with": {"seed": 0, "n_worlds": 4, "rounds": 3, "n_items": 14_042},
    },
}
#: The calibration a plain ``WorldSpec()`` uses (``"paper-2024"`` until world format world-4).
DEFAULT_CALIBRATION = "leaderboard-2026"

_FAMILIES = (
    "llama", "llama-2", "llama-3", "mistral", "mixtral", "qwen", "qwen1.5", "qwen2", "yi",
    "falcon", "pythia", "deepseek", "solar", "gpt2", "opt", "bloom", "phi", "gemma",
    "mpt", "stablelm",
)
_SIZES = (0.07, 0.16, 0.41, 1.0, 1.4, 2.8, 6.9, 7.0, 8.0, 10.7, 13.0, 14.0, 34.0, 40.0, 70.0, 72.0, 180.0)


@dataclass(frozen=True)
class WorldSpec:
    """Parameters of a simulated leaderboard world (defaults follow the paper).

    Parameters
    ----------
    n_models, n_distinct, n_groups : int
        Models in the matrix, distinct checkpoints among them (the rest are
        exact duplicates), and base family × size groups.
    rho : float
        Overall correlation of θ_STEM and θ_non-STEM across distinct models,
        reasoning tail included.
    tail_share, tail_shift : float
        Share of distinct models that are reasoning-tuned, and the shift (in SD)
        added to their θ_STEM.
    group_share : float
        Share of ability variance between family × size groups.
    b_sd : float
        Standard deviation of the difficulties (paper: 2.24).
    stem_shift : float
        Mean difficulty of STEM minus non-STEM items before centring.
    subject_share : float
        Share of the non-covariate difficulty variance due to subject effects.
    covariates : {"indicators", "text"}
        Item covariates the slopes are planted on when none are passed: the nine
        complexity indicators of :mod:`mmlu_audit.features` (default), or cheap
        text-derived stand-ins (:func:`text_covariates`) for fast tests.
    slopes : dict, optional
        Covariate name → (STEM slope, non-STEM slope), in logits per SD; defaults
        to :data:`DEFAULT_SLOPES` or :data:`TEXT_SLOPES` by ``covariates``.
    null_world : bool
        Plant identical slopes in both partitions (the average of the two).
    a_log_sd : float
        SD of log discrimination (a = exp(N(0, a_log_sd²)) > 0).
    response_model : {"3pl", "2pl"}
        3PL with fixed guessing ``guessing`` or a 2PL.
    guessing : float
        Lower asymptote c of the 3PL.
    b_noise : {"normal", "skewed"}
        Distribution of the item-level difficulty noise: normal, or a standardised
        log-normal (σ = 0.75: skewness ≈ 2.9, a heavy right tail), which makes the
        difficulty distribution skewed and heavy-tailed at the same SD ``b_sd``.
    calibration : str
        Name of the population-side calibration in :data:`CALIBRATIONS` that fills
        ``a_median``, ``theta_shift`` and ``chance_share`` when they are not given.
    a_median : float, optional
        Median discrimination: a = a_median · exp(N(0, a_log_sd²)). With θ on the N(0, 1)
        scale this sets how far apart the models' accuracies lie.
    theta_shift : float, optional
        Added to both abilities of every model that is not near chance (the models'
        mean ability relative to the items, whose b are centred at 0).
    chance_share : float, optional
        Share of distinct checkpoints that are near chance (broken or untrained models;
        exactly ``round(chance_share · n_distinct)`` of them, drawn at random):
        both their abilities sit at :attr:`chance_theta`, below nearly every item, so they
        answer at about the floor ``guessing`` (at about 0 in a 2PL world).
    ability_depth : float
        γ of an ability × depth interaction planted in the response model's logit on STEM
        items, γ · z(θ_j) · z(depth_i) (logits per SD of WSCG Depth per SD of ability; 0: none,
        the paper's guessing-floor null). Only the real-design simulator plants it
        (:func:`mmlu_audit.worlds.real_design.simulate_at_design`, which defines the
        standardisations); :func:`simulate_world` refuses a non-zero value.
    """

    n_models: int = 1000
    n_distinct: int = 869
    n_groups: int = 50
    rho: float = 0.965
    tail_share: float = 0.03
    tail_shift: float = 0.8
    group_share: float = 0.6
    b_sd: float = 2.24
    stem_shift: float = 0.6
    subject_share: float = 0.15
    covariates: str = "indicators"
    slopes: dict | None = None
    null_world: bool = False
    a_log_sd: float = 0.35
    response_model: str = "3pl"
    guessing: float = 0.25
    b_noise: str = "normal"
    calibration: str = DEFAULT_CALIBRATION
    a_median: float | None = None
    theta_shift: float | None = None
    chance_share: float | None = None
    ability_depth: float = 0.0

    def __post_init__(self):
        if self.calibration not in CALIBRATIONS:
            raise ValueError(f"invalid WorldSpec: calibration must be one of {sorted(CALIBRATIONS)}, "
                             f"not {self.calibration!r}")
        for name, value in CALIBRATIONS[self.calibration]["values"].items():
            if getattr(self, name) is None:
                object.__setattr__(self, name, float(value))
        if self.slopes is None:
            default = DEFAULT_SLOPES if self.covariates == "indicators" else TEXT_SLOPES
            object.__setattr__(self, "slopes", dict(default))
        problems = []
        if self.covariates not in COVARIATE_KINDS:
            problems.append(f"covariates must be one of {COVARIATE_KINDS}")
        if not 1 <= self.n_groups <= self.n_distinct <= self.n_models:
            problems.append("need 1 ≤ n_groups ≤ n_distinct ≤ n_models")
        if not 0 < self.rho < 1:
            problems.append("rho must lie in (0, 1)")
        if self.base_rho >= 1:
            problems.append("rho is too high for the reasoning tail (base correlation ≥ 1)")
        if self.response_model not in ("3pl", "2pl"):
            problems.append("response_model must be '3pl' or '2pl'")
        if not 0 <= self.guessing < 1:
            problems.append("guessing must lie in [0, 1)")
        if self.b_noise not in B_NOISES:
            problems.append(f"b_noise must be one of {B_NOISES}")
        if not self.a_median > 0:
            problems.append("a_median must be positive")
        if not 0 <= self.chance_share < 1:
            problems.append("chance_share must lie in [0, 1)")
        if not np.isfinite(self.theta_shift):
            problems.append("theta_shift must be finite")
        if not np.isfinite(self.ability_depth):
            problems.append("ability_depth must be finite")
        if problems:
            raise ValueError("invalid WorldSpec: " + "; ".join(problems))

    @property
    def base_rho(self) -> float:
        """Correlation among non-tail models that yields :attr:`rho` overall."""
        p = self.tail_share
        return self.rho * np.sqrt(1 + self.tail_shift**2 * p * (1 - p))

    @property
    def chance_theta(self) -> float:
        """Ability of a near-chance model: −(3 · b_sd + 4 / a_median), on both abilities.

        Three difficulty SDs below the mean item and four logits further at the median
        discrimination, so whatever the calibration such a model answers nearly every
        item at the floor.
        """
        return -(3 * self.b_sd + 4 / self.a_median)

    @property
    def calibration_label(self) -> str:
        """The calibration's name, with the population fields set away from it (for banners)."""
        named = CALIBRATIONS[self.calibration]["values"]
        changed = [f"{k} = {getattr(self, k):g}" for k in CALIBRATED_FIELDS
                   if not np.isclose(getattr(self, k), named[k], rtol=1e-12, atol=1e-12)]
        return self.calibration + (f" (modified: {', '.join(changed)})" if changed else "")

    def planted_slopes(self) -> pd.DataFrame:
        """Table of planted slopes per covariate and partition (null world applied)."""
        table = pd.DataFrame(self.slopes, index=["STEM", "non-STEM"]).T
        if self.null_world:
            table[:] = table.mean(axis=1).to_numpy()[:, None]
        table.index.name = "covariate"
        return table

    def to_json(self) -> str:
        """Canonical JSON of the spec (used in cache keys and saved truth).

        ``b_noise`` and ``ability_depth`` appear only when they are not the default, so worlds
        cached before the fields existed keep their keys.
        """
        fields = asdict(self)
        if fields["b_noise"] == "normal":
            del fields["b_noise"]
        if fields["ability_depth"] == 0:
            del fields["ability_depth"]
        return json.dumps(fields, sort_keys=True)


@dataclass(frozen=True)
class World:
    """A simulated response matrix with its generating truth.

    Attributes
    ----------
    matrix : ResponseMatrix
        The responses (``simulated=True``).
    truth : dict of ndarray
        ``theta`` (J, 2) [STEM, non-STEM], ``a``, ``b``, ``c``, ``stem`` (I,),
        ``subject_effect`` (I,), ``covariates`` (I, K), ``group`` / ``checkpoint``
        / ``tail`` / ``chance`` (J,), ``rho`` (realised over all distinct models: ``spec.rho``
        exactly without near-chance models, higher with them, as those sit at one point on
        both abilities; among the working models, :func:`working_rho`, it is ``spec.rho``
        exactly).
    spec : WorldSpec
    seed : int
    """

    matrix: ResponseMatrix
    truth: dict
    spec: WorldSpec
    seed: int

    @property
    def slopes(self) -> pd.DataFrame:
        """The planted slopes (logits per covariate SD) by partition."""
        return self.spec.planted_slopes()

    @property
    def working(self) -> np.ndarray:
        """Boolean mask of the matrix rows that are working models (:func:`working_models`)."""
        return working_models(self.truth)


def working_models(truth: dict) -> np.ndarray:
    """The rows of a simulated world's matrix that are working models, not planted at chance.

    This is the one definition of the population over which model-side planted truth is
    compared with an estimate: a near-chance model answers at the guessing floor whatever
    its ability, so its planted θ (:attr:`WorldSpec.chance_theta`) is a stand-in no fit can
    recover. Duplicated checkpoints count once per row, as in the matrix.

    Parameters
    ----------
    truth : dict
        A world's planted truth (:attr:`World.truth`), with the per-row ``chance`` flag.

    Returns
    -------
    ndarray of bool, shape (J,)
        True for the working models.

    Raises
    ------
    DataError
        If ``truth`` has no ``chance`` flag of one entry per row of ``theta``.
    """
    if "chance" not in truth or "theta" not in truth:
        raise DataError("truth", "needs the per-model 'chance' flag and 'theta' of a simulated world "
                                 "(world format world-3 or later)")
    chance = np.asarray(truth["chance"], bool)
    if chance.shape != (len(np.asarray(truth["theta"])),):
        raise DataError("truth", f"'chance' has shape {chance.shape}, not one flag per model "
                                 f"({len(np.asarray(truth['theta']))})")
    return ~chance


def working_correlation(theta_2d, truth: dict) -> dict:
    """The correlation of two abilities over a world's working distinct checkpoints.

    Applied to the planted abilities it is :func:`working_rho`; applied to a fit's
    [θ̂_STEM, θ̂_nonSTEM] of the same rows it is that fit's estimate of the same quantity, the
    fit itself having seen every model. Each checkpoint counts once, however often it is
    duplicated in the matrix (its first row).

    Parameters
    ----------
    theta_2d : array, shape (J, 2)
        Two abilities per row of the world's matrix (planted or estimated).
    truth : dict
        The world's planted truth, with ``checkpoint`` and ``chance`` (:func:`working_models`).

    Returns
    -------
    dict
        ``r`` (the correlation) and ``n`` (working distinct checkpoints, e.g. for a Fisher interval).

    Raises
    ------
    DataError
        If ``theta_2d`` is not two abilities for each of the world's rows.
    """
    working = working_models(truth)
    theta = np.asarray(theta_2d, float)
    if theta.shape != (len(working), 2):
        raise DataError("theta_2d", f"needs shape ({len(working)}, 2), one row per model, got {theta.shape}")
    first = first_of_each_checkpoint(np.asarray(truth["checkpoint"])[working])
    return {"r": float(np.corrcoef(theta[working][first].T)[0, 1]), "n": int(first.sum())}


def working_rho(truth: dict) -> float:
    """The planted correlation of θ_STEM and θ_nonSTEM over the working distinct checkpoints.

    The world makes it exactly ``spec.rho``. ``truth["rho"]`` is the same correlation over all
    distinct checkpoints, which near-chance models (one point far below the rest on both
    abilities) push towards 1.

    Parameters
    ----------
    truth : dict
        A world's planted truth, with ``theta`` (J, 2), ``checkpoint`` and ``chance``.

    Returns
    -------
    float
    """
    return working_correlation(truth["theta"], truth)["r"]


def text_covariates(items: pd.DataFrame) -> pd.DataFrame:
    """Cheap text-derived item covariates from the question stem.

    Used until the nine complexity indicators are available: log word count,
    share of digit characters, mean word length, and sentence count.
    """
    stems = items["question"].fillna("").astype(str)
    words = stems.str.split()
    n_words = words.str.len().clip(lower=1)
    chars = stems.str.len().clip(lower=1)
    return pd.DataFrame(
        {
            "log_words": np.log(n_words),
            "digit_share": stems.str.count(r"\d") / chars,
            "mean_word_length": words.apply(lambda w: np.mean([len(t) for t in w]) if w else 0.0),
            "n_sentences": stems.str.count(r"[.?!](\s|$)").clip(lower=1),
        },
        index=items.index,
    )


def default_covariates(spec: WorldSpec, items: pd.DataFrame) -> pd.DataFrame:
    """The covariates ``spec.covariates`` names, computed (or read from cache) for ``items``."""
    if spec.covariates == "text":
        return text_covariates(items)
    from mmlu_audit.features import INDICATORS, build_feature_table

    table = build_feature_table(items)
    return table.loc[items["item_id"].to_numpy(), list(INDICATORS)].reset_index(drop=True)


def _difficulties(spec: WorldSpec, items: pd.DataFrame, covariates: np.ndarray,
                  rng: np.random.Generator) -> dict:
    """Build b = partition shift + X·β_partition + s·(subject effect + noise), SD = b_sd."""
    stem = items["stem"].to_numpy(bool)
    slopes = spec.planted_slopes().to_numpy()
    systematic = np.where(stem, covariates @ slopes[:, 0], covariates @ slopes[:, 1])
    systematic = systematic + spec.stem_shift * stem
    subjects, subject_idx = np.unique(items["subject"].to_numpy(str), return_inverse=True)
    effects = rng.normal(0, np.sqrt(spec.subject_share), len(subjects))
    noise = np.sqrt(1 - spec.subject_share) * _standard_noise(spec.b_noise, len(items), rng)
    random_part = effects[subject_idx] + noise
    scale = _scale_for_sd(systematic, random_part, spec.b_sd)
    b = systematic + scale * random_part
    shift = b.mean()
    return {"b": b - shift, "subject_effect": scale * effects[subject_idx], "b_scale": scale,
            "b_shift": shift}


def plant_items(spec: WorldSpec, items: pd.DataFrame, covariates: np.ndarray,
                rng: np.random.Generator, log_a_shift=None) -> dict:
    """The item side of a world: difficulties from the planted slopes, then discriminations.

    Parameters
    ----------
    spec : WorldSpec
    items : DataFrame
        With ``stem`` and ``subject``.
    covariates : ndarray, shape (I, K)
        Standardised covariates, columns in ``spec.slopes`` order.
    rng : numpy.random.Generator
        Consumed in a fixed order (difficulties, then discriminations).
    log_a_shift : array, shape (I,), optional
        Added to each item's log discrimination (a planted depth trend λ, see
        :func:`mmlu_audit.analyses.lambda_coverage.planted_log_a_shift`); draws nothing, so the
        world's other draws stay those of its seed, and zeros give the world without it bit for bit.

    Returns
    -------
    dict
        ``b``, ``a``, ``subject_effect``, ``b_scale`` and ``b_shift``.

    Raises
    ------
    DataError
        If ``log_a_shift`` is not one finite value per item.
    """
    truth = _difficulties(spec, items, covariates, rng)
    log_a = rng.normal(0, spec.a_log_sd, len(items))
    if log_a_shift is not None:
        shift = np.asarray(log_a_shift, float)
        if shift.shape != log_a.shape or not np.isfinite(shift).all():
            raise DataError("log_a_shift",
                            f"needs one finite value per item ({len(items)}), got shape {shift.shape}")
        log_a = log_a + shift
    return truth | {"a": spec.a_median * np.exp(log_a)}


def _standard_noise(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    """Mean-0, SD-1 noise: standard normal, or a standardised log-normal (σ = 0.75)."""
    if kind == "normal":
        return rng.normal(0, 1, n)
    sigma = 0.75
    draws = rng.lognormal(0, sigma, n)
    mean, var = np.exp(sigma**2 / 2), (np.exp(sigma**2) - 1) * np.exp(sigma**2)
    return (draws - mean) / np.sqrt(var)


def _scale_for_sd(fixed: np.ndarray, random_part: np.ndarray, target_sd: float) -> float:
    """Positive s with SD(fixed + s·random_part) = target_sd."""
    var_r = random_part.var()
    cov = np.mean((fixed - fixed.mean()) * (random_part - random_part.mean()))
    const = fixed.var() - target_sd**2
    disc = cov**2 - var_r * const
    if const >= 0 or disc < 0:
        raise ValueError("planted slopes alone exceed the target difficulty SD; lower them")
    return float((-cov + np.sqrt(disc)) / var_r)


def _abilities(spec: WorldSpec, rng: np.random.Generator, chance_rng: np.random.Generator) -> dict:
    """Two correlated abilities for the distinct checkpoints, grouped by family × size.

    The near-chance checkpoints (drawn from ``chance_rng``, so a world without them keeps
    the draws of earlier formats) are set at :attr:`WorldSpec.chance_theta` after the
    correlation is made exact among the others (the working models): a point mass far below
    them would otherwise dominate the correlation and leave the working models' abilities
    far less alike than ``rho``. The mean shift moves the working models.
    """
    cov = np.array([[1.0, spec.base_rho], [spec.base_rho, 1.0]])
    group_means = rng.multivariate_normal([0, 0], cov * spec.group_share, spec.n_groups)
    group = np.concatenate([np.arange(spec.n_groups),
                            rng.integers(0, spec.n_groups, spec.n_distinct - spec.n_groups)])
    group = np.sort(group)
    within = rng.multivariate_normal([0, 0], cov * (1 - spec.group_share), spec.n_distinct)
    theta = group_means[group] + within
    tail = rng.random(spec.n_distinct) < spec.tail_share
    theta[tail, 0] += spec.tail_shift
    chance = np.zeros(spec.n_distinct, bool)
    chance[chance_rng.permutation(spec.n_distinct)[:round(spec.chance_share * spec.n_distinct)]] = True
    if (~chance).sum() < 3:
        raise ValueError("invalid WorldSpec: chance_share leaves fewer than three working checkpoints")
    tail &= ~chance
    working = theta[~chance]
    working[:, 1] = _with_exact_correlation(working[:, 0], working[:, 1], spec.rho)
    theta[~chance] = working + spec.theta_shift
    theta[chance] = spec.chance_theta
    return {"theta": theta, "group": group, "tail": tail, "chance": chance}


def _with_exact_correlation(anchor: np.ndarray, other: np.ndarray, rho: float) -> np.ndarray:
    """Rebuild ``other`` so its sample correlation with ``anchor`` is exactly ``rho``.

    Keeps ``other``'s mean, SD and the part of it orthogonal to ``anchor`` (which
    carries the family × size structure), so the planted ρ is a property of the
    realised world rather than only of its distribution.
    """
    s, n = standardise(anchor), standardise(other)
    residual = n - np.mean(n * s) * s
    residual /= residual.std()
    return other.mean() + other.std() * (rho * s + np.sqrt(1 - rho**2) * residual)


def _model_table(spec: WorldSpec, group: np.ndarray, checkpoint: np.ndarray,
                 rng: np.random.Generator) -> pd.DataFrame:
    """Leaderboard-style names: duplicates get a mirror org, so only their responses match."""
    combos = [(f, s) for f in _FAMILIES for s in _SIZES]
    chosen = rng.choice(len(combos), spec.n_groups, replace=False)
    family = np.array([combos[k][0] for k in chosen])[group[checkpoint]]
    size = np.array([combos[k][1] for k in chosen])[group[checkpoint]]
    seen: dict[int, int] = {}
    names = []
    for row, ckpt in enumerate(checkpoint):
        copy = seen.get(ckpt, 0)
        seen[ckpt] = copy + 1
        org = "sim-org" if copy == 0 else f"sim-mirror{copy}"
        names.append(f"{org}/{family[row]}-{size[row]:g}b-ft{ckpt:04d}")
    return pd.DataFrame({"model_id": names, "family": family, "size_b": size,
                         "group": group[checkpoint], "checkpoint": checkpoint})


def _responses(theta_items: np.ndarray, a: np.ndarray, b: np.ndarray, c: float,
               rng: np.random.Generator) -> np.ndarray:
    """Bernoulli draws from c + (1 − c)·σ(a(θ − b)), row by row to bound memory."""
    out = np.empty(theta_items.shape, dtype=np.int8)
    for j in range(theta_items.shape[0]):
        p = c + (1 - c) / (1 + np.exp(-a * (theta_items[j] - b)))
        out[j] = rng.random(len(b), dtype=np.float32) < p
    return out


@seeded
def simulate_world(spec: WorldSpec | None = None, seed: int = 0,
                   items: pd.DataFrame | None = None,
                   covariates: pd.DataFrame | None = None, log_a_shift=None) -> World:
    """Generate a simulated leaderboard world.

    Parameters
    ----------
    spec : WorldSpec, optional
        Defaults follow the paper.
    seed : int
        Seed of the generator; the same seed and inputs give identical output.
    items : DataFrame, optional
        Items to simulate over (needs ``item_id``, ``subject``, ``question``,
        ``stem``); defaults to the 14,042 real MMLU items.
    covariates : DataFrame, optional
        Item covariates aligned with ``items``, one column per key of
        ``spec.slopes``; defaults to those named by ``spec.covariates``.
    log_a_shift : array, shape (I,), optional
        Added to the items' log discriminations (:func:`plant_items`); not cached by
        :func:`load_or_simulate`, so only this function plants it.

    Returns
    -------
    World

    Raises
    ------
    ParameterError
        If ``spec.ability_depth`` is not 0 (only the real-design simulator plants it).
    """
    from mmlu_audit.data.items import load_items

    seed = check_seed(seed)
    spec = spec or WorldSpec()
    if spec.ability_depth != 0:
        raise ParameterError("spec", "the leaderboard world plants no ability × depth interaction "
                                     "(ability_depth must be 0); simulate_at_design plants it")
    items = load_items() if items is None else items.reset_index(drop=True)
    covariates = default_covariates(spec, items) if covariates is None else covariates
    missing = [name for name in spec.slopes if name not in covariates.columns]
    if missing:
        raise DataError("covariates", f"no column for planted slope(s) {missing}")
    if len(covariates) != len(items):
        raise DataError("covariates", f"{len(covariates)} rows for {len(items)} items")
    x = standardise(covariates[list(spec.slopes)].to_numpy(dtype=float))
    item_rng, model_rng, name_rng, response_rng, chance_rng = (
        np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(5))

    item_truth = plant_items(spec, items, x, item_rng, log_a_shift)
    a = item_truth["a"]
    ability = _abilities(spec, model_rng, chance_rng)
    checkpoint = np.sort(np.concatenate([
        np.arange(spec.n_distinct),
        model_rng.choice(spec.n_distinct, spec.n_models - spec.n_distinct, replace=True)]))
    c = spec.guessing if spec.response_model == "3pl" else 0.0
    stem = items["stem"].to_numpy(bool)
    theta_items = np.where(stem[None, :], ability["theta"][:, [0]], ability["theta"][:, [1]])
    distinct_y = _responses(theta_items, a, item_truth["b"], c, response_rng)

    models = _model_table(spec, ability["group"], checkpoint, name_rng)
    truth = {
        "theta": ability["theta"][checkpoint], "a": a, "b": item_truth["b"], "c": np.float64(c),
        "stem": stem, "subject_effect": item_truth["subject_effect"], "covariates": x,
        "group": ability["group"][checkpoint], "checkpoint": checkpoint,
        "tail": ability["tail"][checkpoint], "chance": ability["chance"][checkpoint],
        "rho": np.float64(np.corrcoef(ability["theta"].T)[0, 1]),
    }
    label = "null world (identical slopes)" if spec.null_world else "planted world"
    matrix = ResponseMatrix(
        distinct_y[checkpoint], models, items["item_id"].to_numpy(str), "simulated", True,
        f"Simulated leaderboard ({label}, {spec.response_model.upper()}, seed {seed}); "
        "not MMLU findings.",
        {"seed": seed, "spec": json.loads(spec.to_json()), "calibration": spec.calibration_label,
         "covariate_names": list(spec.slopes), "b_scale": item_truth["b_scale"]},
    )
    return World(matrix, truth, spec, seed)


#: Layout of a cached world (its arrays and meta); bump when it or the generator changes.
#: world-3: WorldSpec gained a named population calibration (a_median, theta_shift, chance_share)
#: and the truth a ``chance`` flag.
#: world-4: the default calibration is ``"leaderboard-2026"`` (a plain ``WorldSpec()`` plants
#: near-chance models); the layout is that of world-3, and the spec in the key already tells
#: the two calibrations apart, so the bump marks the change of default worlds, not of content.
WORLD_FORMAT = "world-4"


def _world_key(spec: WorldSpec, seed: int, items: pd.DataFrame, covariates: pd.DataFrame | None) -> str:
    covariate_digest = None if covariates is None else {
        "columns": [str(c) for c in covariates.columns],
        "values": array_digest(pd.util.hash_pandas_object(covariates, index=False).to_numpy())}
    return cache_key({"format": WORLD_FORMAT, "spec": json.loads(spec.to_json()), "seed": int(seed),
                      "items": array_digest(items[["item_id", "question"]].astype(str).to_numpy()),
                      "covariates": covariate_digest})


@seeded
def load_or_simulate(spec: WorldSpec | None = None, seed: int = 0,
                     items: pd.DataFrame | None = None,
                     covariates: pd.DataFrame | None = None,
                     cache_dir: str | Path | None = None) -> World:
    """Return the world for (spec, seed, items, covariates), generating and caching it once.

    The cache lives under ``cache_root()/simulated/<key>``. Every load checks
    the sha256 manifest and the stored ``world_key`` and ``world_format``; an
    entry that fails is regenerated with one :class:`~mmlu_audit.core.errors.CacheWarning`.
    A read-only cache serves the worlds it holds.

    Raises
    ------
    DataError
        Naming the cache folder when the world is not cached there and the folder is not
        writable (before simulating).
    """
    from mmlu_audit.data.items import load_items

    seed = check_seed(seed)
    spec = spec or WorldSpec()
    items = load_items() if items is None else items
    covariates = default_covariates(spec, items) if covariates is None else covariates
    key = _world_key(spec, seed, items, covariates)
    root = Path(cache_dir or cache_root(writable=False) / "simulated")
    folder = root / key[:16]
    if folder.exists():
        with locked(root, shared=True):
            cached = _cached_world(folder, key, spec, seed)
        if cached is not None:
            return cached
    writable_folder(root, "world cache folder")  # a miss in a read-only cache fails before the work
    world = simulate_world(spec, seed, items, covariates)
    stamp = {"world_key": key, "world_format": WORLD_FORMAT}
    stamped = replace(world.matrix, meta={**world.matrix.meta, **stamp})
    with locked(root):  # one writer at a time: a second one finds the first one's world
        if folder.exists() and _cached_world(folder, key, spec, seed, quiet=True) is not None:
            return World(stamped, world.truth, spec, seed)
        save_matrix(stamped, folder, {f"truth_{k}": np.asarray(v) for k, v in world.truth.items()})
    return World(stamped, world.truth, spec, seed)


def _cached_world(folder: Path, key: str, spec: WorldSpec, seed: int, quiet: bool = False) -> World | None:
    """The world stored in ``folder`` if it verifies and is the one keyed ``key``, else None.

    The sha256 manifest checks the content; the meta's ``world_key`` and ``world_format``
    the stamp. A bad entry is warned about unless ``quiet`` (it is about to be rewritten).
    """
    try:
        matrix, arrays = load_matrix(folder)
    except DataError as exc:
        if not quiet:
            warn_bad_cache(folder, f"{exc}")
        return None
    problem = stamp_problem(matrix.meta, key=key, version=WORLD_FORMAT, key_field="world_key",
                            version_field="world_format")
    if problem:
        if not quiet:
            warn_bad_cache(folder, problem)
        return None
    truth = {k.removeprefix("truth_"): v for k, v in arrays.items()}
    return World(matrix, truth, spec, seed)
