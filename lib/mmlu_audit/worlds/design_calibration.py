"""The real-design world calibrated to the real pool by indirect inference, and held-out targets.

:func:`~mmlu_audit.worlds.real_design.simulate_at_design` keeps the real pool's models, missing
cells and accuracies; its item side is the paper's. This module moves the item side towards the
real pool and says, on figures it was not moved to, how far it still is:

* :func:`subject_slope_sd` estimates the subject random slopes' SD from the real pool's b̂ by the
  method of moments (Swamy's random-coefficient estimator, per indicator: the spread of the
  per-subject OLS slopes around their partition's mean minus their mean sampling variance);
* :func:`calibrate_design` fits the difficulty SD, the ceiling (share and shift of very easy
  items) and the floor (share of items no model answers) by **indirect inference**: the
  :data:`FITTED_MOMENTS` of raw responses simulated at the design (the mean over a few seeds,
  common random numbers) are matched to the real ones by least squares, each gap in units of
  the real moment's jackknife SE;
* :func:`design_moments` computes every moment, fitted and :data:`HELD_OUT_MOMENTS`, on a
  response matrix (no IRT fit).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.core.scaling import standardise
from mmlu_audit.core.seeds import check_seed, seeded
from mmlu_audit.data.responses import ResponseMatrix
from mmlu_audit.worlds.real_design import DesignCalibration, simulate_at_design
from mmlu_audit.worlds.simulated import WorldSpec

__all__ = ["FITTED_MOMENTS", "HELD_OUT_MOMENTS", "CalibrationFit", "calibrate_design", "design_moments",
           "subject_slope_sd"]

#: The moments the calibration matches (name → what it measures), on raw responses.
FITTED_MOMENTS = {
    "sd_p": "SD of item p",
    "share_all_correct": "share of items every model answers",
    "share_all_wrong": "share of items no model answers",
    "share_p_90": "share of items with p ≥ 0.9",
}
#: The moments the calibration never sees.
HELD_OUT_MOMENTS = {
    "mean_p": "mean item p",
    "low_tail_p": "mean p of the hardest tenth of items",
    "share_p_below_half": "share of items with p < 0.5",
    "stem_gap": "STEM − non-STEM mean item p",
    "subject_sd": "SD of the subjects' mean item p",
    "item_total_r": "median item–total correlation",
    "subject_slope_spread": "between-subject SD of the slopes of p on the indicators (mean of nine)",
}


def _item_p(responses: np.ndarray) -> np.ndarray:
    observed = responses >= 0
    with np.errstate(invalid="ignore"):
        return (responses == 1).sum(axis=0) / observed.sum(axis=0)


def _item_total_r(responses: np.ndarray) -> float:
    """Median over items of the correlation of the item's responses with the models' accuracies."""
    observed = responses >= 0
    right = (responses == 1).astype(float)
    accuracy = (right * observed).sum(axis=1) / observed.sum(axis=1)
    n = observed.sum(axis=0)
    t = np.where(observed, accuracy[:, None], 0.0)
    y = right * observed
    with np.errstate(invalid="ignore", divide="ignore"):
        cov = (y * t).sum(axis=0) / n - y.sum(axis=0) / n * t.sum(axis=0) / n
        var_y = y.sum(axis=0) / n * (1 - y.sum(axis=0) / n)
        var_t = (t**2).sum(axis=0) / n - (t.sum(axis=0) / n) ** 2
        r = cov / np.sqrt(var_y * var_t)
    return float(np.nanmedian(r[(var_y > 0) & (n > 2)]))


def _subject_slopes(values: np.ndarray, x: np.ndarray, subject: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-subject OLS slopes of ``values`` on ``x`` (S, K) and their sampling variances (S, K)."""
    slopes, variances = [], []
    for s in np.unique(subject):
        rows = (subject == s) & np.isfinite(values)
        design = np.column_stack([np.ones(rows.sum()), x[rows]])
        coef, *_ = np.linalg.lstsq(design, values[rows], rcond=None)
        dof = rows.sum() - design.shape[1]
        sigma2 = np.sum((values[rows] - design @ coef) ** 2) / dof
        variances.append(sigma2 * np.diag(np.linalg.pinv(design.T @ design))[1:])
        slopes.append(coef[1:])
    return np.array(slopes), np.array(variances)


def design_moments(responses: np.ndarray, stem: np.ndarray, subject: np.ndarray, x: np.ndarray) -> dict:
    """Every fitted and held-out moment of a response matrix, on raw responses.

    Parameters
    ----------
    responses : ndarray of int8, shape (J, I)
        1 right, 0 wrong, negative missing.
    stem : ndarray of bool, shape (I,)
    subject : ndarray, shape (I,)
        The items' subjects.
    x : ndarray, shape (I, K)
        Standardised item covariates (the indicators).

    Returns
    -------
    dict
        One float per key of :data:`FITTED_MOMENTS` and :data:`HELD_OUT_MOMENTS`; item p is the
        share right among the models that answered the item (items none answered are left out).
    """
    p = _item_p(responses)
    keep = np.isfinite(p)
    q = p[keep]
    tenth = np.sort(q)[: max(1, q.size // 10)]
    subject_means = pd.Series(q).groupby(subject[keep]).mean()
    slopes, _ = _subject_slopes(p, x, subject)
    return {"sd_p": float(q.std()), "share_all_correct": float(np.mean(q == 1)),
            "share_all_wrong": float(np.mean(q == 0)), "share_p_90": float(np.mean(q >= 0.9)),
            "mean_p": float(q.mean()), "low_tail_p": float(tenth.mean()),
            "share_p_below_half": float(np.mean(q < 0.5)),
            "stem_gap": float(q[stem[keep]].mean() - q[~stem[keep]].mean()),
            "subject_sd": float(subject_means.std()), "item_total_r": _item_total_r(responses),
            "subject_slope_spread": float(_partition_spread(slopes, subject, stem).mean())}


def _partition_spread(slopes: np.ndarray, subject: np.ndarray, stem: np.ndarray) -> np.ndarray:
    """SD of the subjects' slopes around their partition's mean, per covariate (pooled, S − 2 dof)."""
    names = np.unique(subject)
    subject_stem = np.array([stem[subject == s].mean() > 0.5 for s in names])
    deviations = slopes.copy()
    for flag in (True, False):
        deviations[subject_stem == flag] -= slopes[subject_stem == flag].mean(axis=0)
    return np.sqrt((deviations**2).sum(axis=0) / (len(names) - 2))


def subject_slope_sd(frame: pd.DataFrame, indicators) -> pd.DataFrame:
    """The SD of the subjects' random slopes of b̂ on each indicator, by the method of moments.

    Swamy's random-coefficient estimator, per indicator k: τ̂²_k = s²_k − mean_s V̂_sk, where s²_k
    is the variance of the per-subject OLS slopes β̂_sk (b̂ on the nine indicators standardised
    over all items, with an intercept) around their partition's mean (pooled over STEM and
    non-STEM, S − 2 degrees of freedom, so the planted partition contrasts are not counted), and
    V̂_sk is β̂_sk's OLS sampling variance within its subject; a negative τ̂² is set to 0.

    Parameters
    ----------
    frame : DataFrame
        One row per item with ``b_hat``, ``subject``, ``stem`` and the ``indicators`` (the frame
        of :func:`~mmlu_audit.analyses.pipeline.analysis_inputs`); rows without b̂ are dropped.
    indicators : sequence of str

    Returns
    -------
    DataFrame
        Indexed by indicator: ``spread`` (s_k), ``sampling_sd`` (√mean V̂_sk), ``tau`` (τ̂_k, in
        b̂ units) and ``tau_ratio`` (τ̂_k / SD of b̂: the SD in units of the difficulty spread,
        how the world carries it to its own scale).

    Raises
    ------
    DataError
        If columns are missing or a subject has too few items for its regression.
    """
    indicators = list(indicators)
    missing = [c for c in ("b_hat", "subject", "stem", *indicators) if c not in frame.columns]
    if missing:
        raise DataError("frame", f"lacks the columns {missing}")
    rows = frame.dropna(subset=["b_hat", *indicators])
    subject = rows["subject"].to_numpy(str)
    if pd.Series(subject).value_counts().min() <= len(indicators) + 2:
        raise DataError("frame", "a subject has too few items for its own regression on the indicators")
    b = rows["b_hat"].to_numpy(float)
    slopes, variances = _subject_slopes(b, standardise(rows[indicators].to_numpy(float)), subject)
    spread = _partition_spread(slopes, subject, rows["stem"].to_numpy(bool))
    tau = np.sqrt(np.maximum(spread**2 - variances.mean(axis=0), 0.0))
    b_sd = float(np.std(b))  # a ratio of two SDs, the slope SD per unit of difficulty SD
    return pd.DataFrame({"spread": spread, "sampling_sd": np.sqrt(variances.mean(axis=0)), "tau": tau,
                         "tau_ratio": tau / b_sd}, index=pd.Index(indicators, name="indicator"))


@dataclass(frozen=True)
class CalibrationFit:
    """What :func:`calibrate_design` found.

    Attributes
    ----------
    calibration : DesignCalibration
        The fitted world.
    real : dict
        The real moments (fitted and held out).
    simulated : dict
        The calibrated world's moments, the mean over ``seeds``.
    seeds : tuple of int
        The simulation seeds the moments are averaged over.
    slope_ratio : float
        The subject slope SD in units of the difficulty SD (from :func:`subject_slope_sd`).
    """

    calibration: DesignCalibration
    real: dict
    simulated: dict
    seeds: tuple
    slope_ratio: float


def _item_inputs(items: pd.DataFrame, covariates: pd.DataFrame, spec: WorldSpec):
    x = standardise(covariates[list(spec.slopes)].to_numpy(float))
    return items["stem"].to_numpy(bool), items["subject"].to_numpy(str), x


def simulated_moments(design: ResponseMatrix, spec: WorldSpec, items: pd.DataFrame, covariates: pd.DataFrame,
                      calibration: DesignCalibration | None, seeds) -> dict:
    """The mean of :func:`design_moments` over worlds of ``seeds`` at ``design``."""
    stem, subject, x = _item_inputs(items, covariates, spec)
    draws = [design_moments(simulate_at_design(design, spec, items, covariates, seed=s,
                                               calibration=calibration).matrix.responses, stem, subject, x)
             for s in seeds]
    return {key: float(np.mean([d[key] for d in draws])) for key in draws[0]}


def _calibration(params: np.ndarray, slope_ratio) -> DesignCalibration:
    b_sd, ceiling_share, ceiling_shift, floor_share = params
    ratio = np.asarray(slope_ratio, float)
    return DesignCalibration(b_sd=float(b_sd), ceiling_share=float(ceiling_share),
                             ceiling_shift=float(ceiling_shift), floor_share=float(floor_share),
                             slope_sd=float(ratio * b_sd) if ratio.ndim == 0 else tuple(ratio * b_sd))


#: Bounds of (b_sd, ceiling_share, ceiling_shift, floor_share).
_LOWER, _UPPER = np.array([1.0, 0.0, 0.0, 0.0]), np.array([8.0, 0.45, 12.0, 0.2])
#: The moment each parameter follows in the fixed-point steps, and its step per unit of gap.
_GAINS = np.array([10.0, 1.0, 40.0, 1.0])


@seeded
def calibrate_design(design: ResponseMatrix, spec: WorldSpec, items: pd.DataFrame, covariates: pd.DataFrame,
                     real_se: dict, seed: int, slope_ratio=0.0, n_seeds: int = 2, rounds: int = 8,
                     tolerance: float = 0.1) -> CalibrationFit:
    """Fit the world's difficulty SD, ceiling and floor to the real pool's :data:`FITTED_MOMENTS`.

    Indirect inference, exactly identified (four parameters, four moments), by a damped fixed-point
    iteration: each parameter moves against the gap (simulated − real) of the moment it governs
    most (b_sd ← SD of item p, ceiling_share ← share with p ≥ 0.9, ceiling_shift ← share every
    model answers, floor_share ← share no model answers), by a fixed gain, within bounds. The
    simulated moments are the mean over ``n_seeds`` worlds at ``design`` with the same seeds at
    every step (common random numbers). It stops when every gap is within ``tolerance`` × the
    real moment's SE or after ``rounds`` steps. The subject random slopes' SD is carried, not fitted:
    ``slope_ratio`` × the difficulty SD.

    Parameters
    ----------
    design : ResponseMatrix
        The real matrix (its models, missing cells, accuracies and moments).
    spec : WorldSpec
        The item side calibrated (its ``b_sd`` is the start).
    items, covariates : DataFrame
        As for :func:`~mmlu_audit.worlds.real_design.simulate_at_design`.
    real_se : dict
        The real fitted moments' SEs (their jackknife SEs), one per :data:`FITTED_MOMENTS` key.
    seed : int
        The worlds' seeds are ``seed, seed + 1, ...``.
    slope_ratio : float or array of float
        Subject random-slope SD per unit of difficulty SD, one or one per covariate
        (:func:`subject_slope_sd`'s ``tau_ratio``).
    n_seeds, rounds : int
        Worlds per evaluation; fixed-point steps at most.
    tolerance : float
        Stop once every |gap| ≤ tolerance × SE.

    Returns
    -------
    CalibrationFit

    Raises
    ------
    ParameterError
        If ``n_seeds`` or ``rounds`` < 1, ``slope_ratio`` < 0 or an SE is missing or not positive.
    """
    seed = check_seed(seed)
    ratio = np.asarray(slope_ratio, float)
    if n_seeds < 1 or rounds < 1 or not (np.isfinite(ratio).all() and (ratio >= 0).all()):
        raise ParameterError("n_seeds", "needs n_seeds ≥ 1, rounds ≥ 1 and a finite slope_ratio ≥ 0")
    scale = np.array([real_se.get(key, np.nan) for key in FITTED_MOMENTS], float)
    if not (np.isfinite(scale).all() and (scale > 0).all()):
        raise ParameterError("real_se", f"needs a positive SE for each of {list(FITTED_MOMENTS)}")
    stem, subject, x = _item_inputs(items, covariates, spec)
    real = design_moments(design.responses, stem, subject, x)
    seeds = tuple(range(seed, seed + n_seeds))
    target = np.array([real[key] for key in FITTED_MOMENTS])

    def gaps(params):
        moments = simulated_moments(design, spec, items, covariates, _calibration(params, ratio), seeds)
        return np.array([moments[key] for key in FITTED_MOMENTS]) - target

    params = np.array([spec.b_sd, real["share_all_correct"], 2.0, real["share_all_wrong"]])
    params = _fixed_point(gaps, params, scale * tolerance, rounds)
    calibration = _calibration(params, ratio)
    simulated = simulated_moments(design, spec, items, covariates, calibration, seeds)
    return CalibrationFit(calibration, real, simulated, seeds, ratio)


def _fixed_point(gaps, params: np.ndarray, tolerance: np.ndarray, rounds: int) -> np.ndarray:
    """Move each parameter against its moment's gap until every gap is within ``tolerance``."""
    # gaps are ordered as FITTED_MOMENTS: sd_p, all correct, all wrong, p ≥ 0.9
    governs = np.array([0, 3, 1, 2])
    for _ in range(rounds):
        value = gaps(params)
        if (np.abs(value) <= tolerance).all():
            break
        params = np.clip(params - _GAINS * value[governs], _LOWER, _UPPER)
    return params
