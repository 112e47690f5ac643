"""Fitting the population side of the simulated world to a real leaderboard.

:func:`calibrate_population` is a simulated method of moments: it generates worlds
(:func:`~mmlu_audit.worlds.simulated.simulate_world`, the same seeds for every trial, so
the trials differ only by their parameters; the statistics are averaged over ``n_worlds``
worlds, as a single world's family × size groups move its models' mean ability by about
0.09 from seed to seed) and moves three population parameters of
:class:`~mmlu_audit.worlds.simulated.WorldSpec` until the models' accuracy distribution
matches three statistics of a real one (:func:`accuracy_statistics`):

- ``chance_share`` ← the share of models near chance (accuracy below ``chance_cutoff``);
- ``a_median`` ← the SD of accuracy among the models above that floor (with θ on the
  N(0, 1) scale, larger discriminations spread the accuracies further apart);
- ``theta_shift`` ← the median accuracy among the models above the floor.

The real target should be a distribution the items were not selected on: the full-MMLU
leaderboard scores of the real models, not their accuracy on the 102 items metabench
selected for information (selected items discriminate more than random ones, so a world
matched on them would be too sharp for the 14,042 items it stands in for). The item side
(difficulties, planted slopes, STEM shift, b_sd, the guessing floor c) is left as it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import numpy as np
import pandas as pd

from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.core.seeds import check_seed, seeded
from mmlu_audit.worlds.simulated import WorldSpec, simulate_world

__all__ = ["CALIBRATION_TARGETS", "CHANCE_CUTOFF", "above_floor", "accuracy_statistics",
           "calibrate_population"]

#: Accuracy below which a model counts as near chance: within five points of the 0.25 of four
#: options. The calibration matched the real share of such models, and :func:`above_floor`
#: applies the same rule to a response matrix.
CHANCE_CUTOFF = 0.30

#: The statistics :func:`calibrate_population` matches, each with the parameter it moves.
CALIBRATION_TARGETS: dict[str, str] = {
    "share near chance": "chance_share",
    "SD above the floor": "a_median",
    "median above the floor": "theta_shift",
}


def accuracy_statistics(accuracy, chance_cutoff: float = CHANCE_CUTOFF) -> dict[str, float]:
    """Summaries of a model accuracy distribution that split off the near-chance models.

    Parameters
    ----------
    accuracy : array of float
        One proportion correct per model, in [0, 1] (e.g. full-MMLU scores / 100).
    chance_cutoff : float
        Accuracy below which a model counts as near chance (0.30: within five points of
        the 0.25 of four options).

    Returns
    -------
    dict
        ``share near chance``, ``median above the floor``, ``SD above the floor`` (the
        targets of :func:`calibrate_population`), and over all models ``median``, ``SD``,
        ``5th percentile``, ``95th percentile``.

    Raises
    ------
    DataError
        If an accuracy lies outside [0, 1] or is missing, or no model is above the cutoff.
    """
    accuracy = np.asarray(accuracy, float)
    if accuracy.ndim != 1 or accuracy.size == 0 or not np.all((accuracy >= 0) & (accuracy <= 1)):
        raise DataError("accuracy", "need one accuracy in [0, 1] per model (scores in % divide by 100)")
    above = accuracy[accuracy >= chance_cutoff]
    if above.size < 2:
        raise DataError("accuracy", f"fewer than two models at or above the cutoff {chance_cutoff}")
    return {"share near chance": float(np.mean(accuracy < chance_cutoff)),
            "median above the floor": float(np.median(above)), "SD above the floor": float(np.std(above)),
            "median": float(np.median(accuracy)), "SD": float(np.std(accuracy)),
            "5th percentile": float(np.quantile(accuracy, 0.05)),
            "95th percentile": float(np.quantile(accuracy, 0.95))}


def above_floor(responses, observed=None, chance_cutoff: float = CHANCE_CUTOFF) -> np.ndarray:
    """The models an analyst can tell from the guessing floor by their responses alone.

    A model whose observed accuracy is below ``chance_cutoff`` answers at (or near) the floor,
    so a fit cannot place its ability; this is the observable counterpart of a simulated
    world's planted ``chance`` flag, and the rule by which the share of near-chance models was
    measured on the real leaderboard (:func:`accuracy_statistics`). A threshold rather than a
    binomial test against 0.25: near-chance models sit a little above the floor (they still
    know the easiest items), and over thousands of items a test tells that apart from 0.25
    without making the model usable.

    Parameters
    ----------
    responses : array, shape (J, I)
        0/1 responses (other values where ``observed`` is False are ignored).
    observed : array of bool, shape (J, I), optional
        Which cells were answered; ``responses >= 0`` when omitted (−1 marks a missing cell).
    chance_cutoff : float
        In (0, 1).

    Returns
    -------
    ndarray of bool, shape (J,)
        True for the models whose accuracy is at least ``chance_cutoff``.

    Raises
    ------
    DataError
        If the matrix is not two-dimensional, ``observed`` does not match it, or a model
        answered nothing.
    ParameterError
        If ``chance_cutoff`` is outside (0, 1).
    """
    if not 0 < chance_cutoff < 1:
        raise ParameterError("chance_cutoff", f"must lie in (0, 1), got {chance_cutoff}")
    y = np.asarray(responses)
    seen = y >= 0 if observed is None else np.asarray(observed, bool)
    if y.ndim != 2 or seen.shape != y.shape:
        raise DataError("responses", f"need a (models, items) matrix with a matching observed mask, "
                                     f"got {y.shape} and {seen.shape}")
    answered = seen.sum(axis=1)
    if np.any(answered == 0):
        raise DataError("responses", f"{int(np.sum(answered == 0))} model(s) answered no item")
    accuracy = np.where(seen, y == 1, False).sum(axis=1) / answered
    return accuracy >= chance_cutoff


@seeded
def calibrate_population(target: Mapping[str, float], items: pd.DataFrame, *, seed: int,
                         base: WorldSpec | None = None, covariates: pd.DataFrame | None = None,
                         chance_cutoff: float = CHANCE_CUTOFF, rounds: int = 3, n_worlds: int = 4,
                         world_seeds=None,
                         a_grid=(0.25, 0.35, 0.5, 0.6, 0.7, 0.85, 1.0, 1.4, 2.0, 3.0),
                         shift_grid=(-1.0, -0.5, -0.25, 0.0, 0.1, 0.2, 0.3, 0.5, 1.0)) -> dict:
    """Fit ``a_median``, ``theta_shift`` and ``chance_share`` to a real accuracy distribution.

    Parameters
    ----------
    target : mapping
        The real :func:`accuracy_statistics` (at least the keys of :data:`CALIBRATION_TARGETS`).
    items : DataFrame
        Items to simulate over (any subset of MMLU with ``item_id``, ``subject``,
        ``question``, ``stem``); the model accuracy distribution depends on them only through
        their difficulties, so a random few thousand items stand in for the 14,042.
    seed : int
        Seed of the trial worlds' seeds (common random numbers: every trial uses the same).
    base : WorldSpec, optional
        The spec whose other fields are kept and whose population fields start the search;
        defaults to ``WorldSpec(calibration="paper-2024", covariates="text")``, the start
        ``"leaderboard-2026"`` was fitted from (it is now the default calibration itself).
    covariates : DataFrame, optional
        Passed to :func:`simulate_world`.
    chance_cutoff : float
        As in :func:`accuracy_statistics`.
    n_worlds : int
        Worlds per trial; their statistics are averaged.
    world_seeds : sequence of int, optional
        The trial worlds' seeds themselves (overrides ``n_worlds``): e.g. a simulated
        target's own seed, to check the search on a target it can match exactly.
    rounds : int
        Passes of the coordinate search (each: ``chance_share`` in closed form, ``a_median``
        by interpolation over ``a_grid``, ``theta_shift`` over ``shift_grid``).
    a_grid, shift_grid : sequence of float
        Trial values; the fit interpolates linearly between them and refuses a target
        outside the range the grid reaches.

    Returns
    -------
    dict
        ``values`` (the three fitted parameters), ``achieved`` (the mean statistics of the
        worlds with them, same seeds), ``target`` and ``trials`` (the number of trials, each
        of ``n_worlds`` worlds).

    Raises
    ------
    ParameterError
        For a target without the needed keys, fewer than one round or world, or a grid that
        cannot reach the target.
    """
    seed = check_seed(seed)
    missing = [k for k in CALIBRATION_TARGETS if k not in target]
    if missing:
        raise ParameterError("target", f"missing statistic(s) {missing}")
    if rounds < 1 or n_worlds < 1:
        raise ParameterError("rounds", f"need at least one round and one world, got {rounds}, {n_worlds}")
    spec = base or WorldSpec(calibration="paper-2024", covariates="text")
    seeds = ([int(s.generate_state(1)[0]) for s in np.random.SeedSequence(seed).spawn(n_worlds)]
             if world_seeds is None else [check_seed(s) for s in world_seeds])
    counter = {"trials": 0}

    def statistics(**values) -> dict:
        counter["trials"] += 1
        runs = [accuracy_statistics(simulate_world(replace(spec, **values), seed=s, items=items,
                                                   covariates=covariates).matrix.responses.mean(axis=1),
                                    chance_cutoff) for s in seeds]
        return {key: float(np.mean([run[key] for run in runs])) for key in runs[0]}

    values = {"a_median": spec.a_median, "theta_shift": spec.theta_shift, "chance_share": spec.chance_share}
    for _ in range(rounds):
        values["chance_share"] = _chance_share(statistics(**{**values, "chance_share": 0.0}),
                                               target["share near chance"])
        values["a_median"] = _solve(lambda a: statistics(**{**values, "a_median": a})["SD above the floor"],
                                    a_grid, target["SD above the floor"], "a_grid")
        values["theta_shift"] = _solve(
            lambda t: statistics(**{**values, "theta_shift": t})["median above the floor"],
            shift_grid, target["median above the floor"], "shift_grid")
    achieved = statistics(**values)
    return {"values": {k: float(v) for k, v in values.items()}, "achieved": achieved,
            "target": {k: float(target[k]) for k in CALIBRATION_TARGETS}, "trials": counter["trials"]}


def _chance_share(without: dict, target_share: float) -> float:
    """The share of near-chance models that brings a world's share below the cutoff to the target.

    Near-chance models always fall below the cutoff; the others fall there at the rate of
    the world without them, so share = s + (1 − s) · q₀ gives s in closed form.
    """
    q0 = without["share near chance"]
    if target_share < q0:
        raise ParameterError("target", f"share near chance {target_share:.3f} is below the "
                             f"{q0:.3f} the world has without near-chance models")
    return float(min((target_share - q0) / (1 - q0), 0.99))


def _solve(statistic, grid, target: float, name: str) -> float:
    """The grid value at which an increasing-or-decreasing ``statistic`` meets ``target`` (linear)."""
    grid = np.sort(np.asarray(grid, float))
    values = np.array([statistic(g) for g in grid])
    order = np.argsort(values)
    if not values[order[0]] <= target <= values[order[-1]]:
        raise ParameterError(name, f"the grid reaches {values.min():.4f}..{values.max():.4f}, "
                             f"not the target {target:.4f}; widen it")
    if not (np.all(np.diff(values) > 0) or np.all(np.diff(values) < 0)):
        raise ParameterError(name, "the statistic is not monotone over the grid; refine it")
    return float(np.interp(target, values[order], grid[order]))
