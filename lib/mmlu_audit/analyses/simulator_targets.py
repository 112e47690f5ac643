"""Every figure the simulated world is held to: the ones it was fitted to, and the ones held out.

A simulator matched to a few moments can only be trusted on what it was not matched to. This
module sets the default world beside the real data on both kinds of target and reports the gap:

* **fitted** — the statistics the population-side calibration matched
  (:data:`mmlu_audit.worlds.simulated.CALIBRATIONS`' ``matched_to``): the share of leaderboard
  models near chance and the median and SD of the scores above that floor;
* **held out** — figures no calibration saw: the spread of item p-values in the real item-level
  pool (HELM + OpenCompass) when the simulated models are matched to the real ones by
  accuracy, and the correlation of STEM with non-STEM subscores across HELM's 79 models.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mmlu_audit.core.errors import DataError
from mmlu_audit.core.scaling import pearson

__all__ = ["TARGET_COLUMNS", "jackknife_interval", "matched_models", "simulator_targets"]

#: Columns of :func:`simulator_targets`.
TARGET_COLUMNS = ("target", "kind", "real", "real low", "real high", "simulated", "gap", "real source")


def _accuracy(responses: np.ndarray) -> np.ndarray:
    y = np.asarray(responses)
    return np.nanmean(np.where(y >= 0, (y == 1).astype(float), np.nan), axis=1)


def matched_models(real_accuracy, simulated_accuracy) -> np.ndarray:
    """For each real model in turn, the not yet taken simulated model nearest in accuracy.

    Returns
    -------
    ndarray of int
        Simulated row indices, one per real model, all distinct.

    Raises
    ------
    DataError
        If there are fewer simulated than real models.
    """
    real, simulated = np.asarray(real_accuracy, float), np.asarray(simulated_accuracy, float)
    if simulated.size < real.size:
        raise DataError("matched_models",
                        f"{simulated.size} simulated models cannot match {real.size} real ones")
    free = np.ones(simulated.size, bool)
    chosen = []
    for value in real:
        candidates = np.flatnonzero(free)
        pick = candidates[np.argmin(np.abs(simulated[candidates] - value))]
        free[pick] = False
        chosen.append(pick)
    return np.array(chosen)


def _p_values(responses: np.ndarray) -> np.ndarray:
    y = np.asarray(responses)
    with np.errstate(invalid="ignore"):
        p = np.nanmean(np.where(y >= 0, (y == 1).astype(float), np.nan), axis=0)
    return p[np.isfinite(p)]


def _subscore_correlation(right: np.ndarray, stem: np.ndarray) -> float:
    return float(np.corrcoef(right[:, stem].mean(axis=1), right[:, ~stem].mean(axis=1))[0, 1])


def jackknife_interval(estimate: float, left_out, bounds: tuple[float, float],
                       z: float = 1.959964) -> tuple[float, float]:
    """estimate ± z · the delete-one jackknife SE √((n − 1)/n · Σ(θ̂₍ᵢ₎ − θ̄)²), kept within ``bounds``."""
    values = np.asarray(left_out, float)
    se = float(np.sqrt((values.size - 1) / values.size * np.sum((values - values.mean()) ** 2)))
    return max(estimate - z * se, bounds[0]), min(estimate + z * se, bounds[1])


def simulator_targets(world, real_pool, helm_subjects: pd.DataFrame, stem_subjects) -> pd.DataFrame:
    """The default world against every real target, fitted and held out, with the gaps.

    A held-out real figure carries a 95 % interval from a delete-one-model jackknife (the real
    pool's models for the item p-values, HELM's models for the subscore correlation; normal,
    kept within the statistic's range): the models are the sampling unit whose choice moves it.
    The quantiles of the p-values have none (they move in steps of one over the model count, and
    the jackknife is inconsistent for such a statistic). (A bootstrap over models would be biased here:
    a resample repeats models, which adds binomial noise to every item's p-value and so widens
    their spread.) The fitted figures are the published statistics the calibration was matched to,
    stored without their data, so they have none.

    Parameters
    ----------
    world : World
        A simulated world over the 14,042 items (its matrix, truth and spec).
    real_pool : ResponseMatrix
        Real item-level responses over the same items, in the same order (e.g. ``mmlu_real``).
    helm_subjects : DataFrame
        :func:`mmlu_audit.data.load_helm_subjects`.
    stem_subjects : collection of str
        The STEM subjects.

    Returns
    -------
    DataFrame
        :data:`TARGET_COLUMNS`; ``gap`` is simulated − real; ``real low``/``real high`` are NaN for
        the fitted rows and the two quantile rows.
    """
    from mmlu_audit.worlds.calibration import CHANCE_CUTOFF
    from mmlu_audit.worlds.simulated import CALIBRATIONS

    matched_to = CALIBRATIONS[world.spec.calibration]["matched_to"]
    if not isinstance(matched_to, dict):
        raise DataError("world", f"calibration {world.spec.calibration!r} was not fitted to real statistics")
    if list(real_pool.item_ids) != list(world.matrix.item_ids):
        raise DataError("real_pool", "the real pool and the world must share their items, in order")
    sim_y = world.matrix.responses
    accuracy = _accuracy(sim_y)
    above = accuracy[accuracy >= CHANCE_CUTOFF]
    rows = [("share of models near chance", "fitted", matched_to["share near chance"],
             float(np.mean(accuracy < CHANCE_CUTOFF)), matched_to["source"]),
            ("median score above the floor", "fitted", matched_to["median above the floor"],
             float(np.median(above)), matched_to["source"]),
            ("SD of scores above the floor", "fitted", matched_to["SD above the floor"], float(above.std()),
             matched_to["source"])]
    rows = [(target, kind, real, np.nan, np.nan, simulated, source)
            for target, kind, real, simulated, source in rows]
    real_y = np.asarray(real_pool.responses)
    real_p = _p_values(real_y)
    left_out_p = [_p_values(np.delete(real_y, j, axis=0)) for j in range(len(real_y))]
    twins = matched_models(_accuracy(real_y), accuracy)
    sim_p = _p_values(sim_y[twins])
    pool = f"{real_pool.source}: {real_pool.shape[0]} models; simulated models matched by accuracy"
    # a quantile of p-values that move in steps of 1/J is not smooth in the models: the jackknife
    # is inconsistent for it, so those rows have no interval
    for name, statistic, smooth in (("SD of item p-values", np.std, True),
                                    ("10th percentile of item p-values", lambda p: np.quantile(p, 0.1),
                                     False),
                                    ("median item p-value", np.median, False),
                                    ("share of items every model answers", lambda p: np.mean(p == 1.0),
                                     True)):
        low, high = (jackknife_interval(float(statistic(real_p)), [statistic(p) for p in left_out_p], (0, 1))
                     if smooth else (np.nan, np.nan))
        rows.append((f"{name} (real item-level pool)", "held out", float(statistic(real_p)), low, high,
                     float(statistic(sim_p)), pool))
    grid = helm_subjects.assign(stem=helm_subjects["subject"].isin(set(stem_subjects)))
    sums = grid.groupby(["model_id", "stem"])[["n_correct", "n_items"]].sum()
    scores = (sums["n_correct"] / sums["n_items"]).unstack("stem")
    working = accuracy >= CHANCE_CUTOFF
    pairs = np.column_stack([scores[True].to_numpy(float), scores[False].to_numpy(float)])
    low, high = jackknife_interval(pearson(*pairs.T), [pearson(*np.delete(pairs, j, axis=0).T)
                                                          for j in range(len(pairs))], (-1, 1))
    simulated_r = _subscore_correlation((sim_y[working] == 1).astype(float), world.truth["stem"])
    rows.append(("r(STEM, non-STEM subscores) across models", "held out", pearson(*pairs.T), low, high,
                 simulated_r,
                 f"HELM per-subject scores, {len(scores)} models; simulated: the working models"))
    table = pd.DataFrame(rows, columns=["target", "kind", "real", "real low", "real high", "simulated",
                                        "real source"])
    table["gap"] = table["simulated"] - table["real"]
    return table[list(TARGET_COLUMNS)]
