"""Is the simulated world at the real design the real one? Fitted and held-out targets, misfits named.

:func:`real_moments` computes every moment of :mod:`mmlu_audit.worlds.design_calibration` on the
real pool with a 95 % delete-one-model jackknife interval (the models are the sampling unit the
real figure moves with; normal, kept within the statistic's range).
:func:`design_targets` calibrates the world to the fitted moments
(:func:`~mmlu_audit.worlds.design_calibration.calibrate_design`) and sets every moment of the
calibrated world (and, for comparison, of the uncalibrated one) beside the real interval:
a simulated value outside it is a **misfit**, flagged in the table and named by
:func:`misfit_sentence`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mmlu_audit.analyses.simulator_targets import TARGET_COLUMNS, jackknife_interval
from mmlu_audit.core.errors import DataError
from mmlu_audit.core.seeds import seeded
from mmlu_audit.worlds.design_calibration import (FITTED_MOMENTS, HELD_OUT_MOMENTS, CalibrationFit,
                                                  _item_inputs, calibrate_design, design_moments,
                                                  simulated_moments)

__all__ = ["DESIGN_TARGET_COLUMNS", "design_targets", "misfit_sentence", "real_moments", "real_pool_targets",
           "target_table"]

#: Columns of :func:`target_table`: :data:`~.simulator_targets.TARGET_COLUMNS`, then ``misfit``,
#: ``uncalibrated`` (the world without calibration) and ``moment`` (the key).
DESIGN_TARGET_COLUMNS = (*TARGET_COLUMNS, "misfit", "uncalibrated", "moment")
_BOUNDS = {"stem_gap": (-1.0, 1.0), "item_total_r": (-1.0, 1.0), "subject_slope_spread": (0.0, np.inf),
           "sd_p": (0.0, 0.5)}


def real_moments(design, items: pd.DataFrame, covariates: pd.DataFrame, spec) -> pd.DataFrame:
    """Every moment of the real pool, its jackknife SE and 95 % interval (delete one model).

    Parameters
    ----------
    design : ResponseMatrix
        The real matrix, columns in ``items`` order.
    items, covariates : DataFrame
        The items and the world's covariates (``spec.slopes`` columns), aligned.
    spec : WorldSpec
        Names the covariates.

    Returns
    -------
    DataFrame
        Indexed by moment key: ``real``, ``se``, ``low``, ``high``.

    Raises
    ------
    DataError
        If the design has fewer than three models or its columns are not the items'.
    """
    if list(design.item_ids) != list(items["item_id"]):
        raise DataError("design", "its columns are not in the items' order")
    y = design.responses
    if y.shape[0] < 3:
        raise DataError("design", "a jackknife over models needs at least three models")
    stem, subject, x = _item_inputs(items, covariates, spec)
    full = design_moments(y, stem, subject, x)
    left_out = [design_moments(np.delete(y, j, axis=0), stem, subject, x) for j in range(y.shape[0])]
    rows = {}
    for key, value in full.items():
        values = np.array([m[key] for m in left_out])
        se = float(np.sqrt((values.size - 1) / values.size * np.sum((values - values.mean()) ** 2)))
        low, high = jackknife_interval(value, values, _BOUNDS.get(key, (0.0, 1.0)))
        rows[key] = {"real": value, "se": se, "low": low, "high": high}
    return pd.DataFrame.from_dict(rows, orient="index")


def target_table(real: pd.DataFrame, simulated: dict, uncalibrated: dict, source: str) -> pd.DataFrame:
    """The fitted and held-out targets, real [interval] against simulated, misfits flagged.

    Parameters
    ----------
    real : DataFrame
        :func:`real_moments`.
    simulated, uncalibrated : dict
        Moment key → the calibrated and the uncalibrated world's value (mean over seeds).
    source : str
        The real source's description (the ``real source`` column).

    Returns
    -------
    DataFrame
        :data:`DESIGN_TARGET_COLUMNS`, fitted rows first; ``misfit`` is True where the calibrated
        world's value lies outside the real interval (fitted rows included: a fit that missed).
    """
    rows = []
    for kind, moments in (("fitted", FITTED_MOMENTS), ("held out", HELD_OUT_MOMENTS)):
        for key, label in moments.items():
            r = real.loc[key]
            value = float(simulated[key])
            rows.append({"target": label, "kind": kind, "real": r["real"], "real low": r["low"],
                         "real high": r["high"], "simulated": value, "gap": value - r["real"],
                         "real source": source, "misfit": bool(not r["low"] <= value <= r["high"]),
                         "uncalibrated": float(uncalibrated[key]), "moment": key})
    return pd.DataFrame(rows, columns=list(DESIGN_TARGET_COLUMNS))


@seeded
def design_targets(design, spec, items: pd.DataFrame, covariates: pd.DataFrame, seed: int,
                   slope_ratio: float = 0.0, n_seeds: int = 2) -> tuple[pd.DataFrame, CalibrationFit]:
    """Calibrate the real-design world and hold it to every target.

    Parameters
    ----------
    design : ResponseMatrix
        The real matrix.
    spec : WorldSpec
        The uncalibrated world's item side.
    items, covariates : DataFrame
        As for :func:`~mmlu_audit.worlds.real_design.simulate_at_design`.
    seed : int
        First seed of the worlds (:func:`~mmlu_audit.worlds.design_calibration.calibrate_design`).
    slope_ratio : float
        Subject random-slope SD per unit of difficulty SD
        (:func:`~mmlu_audit.worlds.design_calibration.subject_slope_sd`).
    n_seeds : int
        Worlds the simulated moments are averaged over.

    Returns
    -------
    (DataFrame, CalibrationFit)
        :func:`target_table` and the calibration.
    """
    real = real_moments(design, items, covariates, spec)
    fit = calibrate_design(design, spec, items, covariates, real["se"].to_dict(), seed=seed,
                           slope_ratio=slope_ratio, n_seeds=n_seeds)
    plain = simulated_moments(design, spec, items, covariates, None, fit.seeds)
    source = f"{design.source}: {design.shape[0]} models (delete-one-model jackknife)"
    return target_table(real, fit.simulated, plain, source), fit


def misfit_sentence(table: pd.DataFrame) -> str:
    """A sentence naming every misfit of :func:`target_table` (or saying there is none).

    Each misfit reads "target: simulated s against real r [low, high]", fitted ones marked so.
    """
    bad = table[table["misfit"]]
    if bad.empty:
        return "Every target, fitted and held out, lies inside its real interval: no misfit."
    parts = [f"{row['target']} ({row['kind']}): simulated {row['simulated']:.3g} against real "
             f"{row['real']:.3g} [{row['real low']:.3g}, {row['real high']:.3g}]"
             for _, row in bad.iterrows()]
    noun = "target lies" if len(parts) == 1 else "targets lie"
    return f"{len(parts)} {noun} outside the real interval — misfits of the simulated world: " \
           + "; ".join(parts) + "."


@seeded
def real_pool_targets(source: str = "mmlu_real", seed: int = 20240601, fast: bool = False,
                      n_seeds: int = 2) -> tuple[pd.DataFrame, CalibrationFit, pd.DataFrame]:
    """The calibrated world at a real pool's design against that pool's targets (the book's call).

    The subject random slopes' SDs are estimated from the pool's own b̂
    (:func:`~mmlu_audit.analyses.pipeline.analysis_inputs`, the chapters' 2PL) by
    :func:`~mmlu_audit.worlds.design_calibration.subject_slope_sd`; the world is the default
    :class:`~mmlu_audit.worlds.simulated.WorldSpec` on the nine indicators, calibrated from seed 0.

    Returns
    -------
    (DataFrame, CalibrationFit, DataFrame)
        :func:`target_table`, the calibration, and the slope estimator's table.
    """
    from mmlu_audit.analyses.pipeline import analysis_inputs
    from mmlu_audit.features import INDICATORS
    from mmlu_audit.worlds.design_calibration import subject_slope_sd
    from mmlu_audit.worlds.simulated import WorldSpec

    inputs = analysis_inputs(source, seed, fast)
    slopes = subject_slope_sd(inputs.frame, INDICATORS)
    spec = WorldSpec()
    covariates = inputs.features.loc[inputs.items["item_id"].to_numpy(), list(spec.slopes)]
    table, fit = design_targets(inputs.matrix, spec, inputs.items, covariates.reset_index(drop=True), seed=0,
                                slope_ratio=slopes.loc[list(spec.slopes), "tau_ratio"].to_numpy(),
                                n_seeds=n_seeds)
    return table, fit, slopes
