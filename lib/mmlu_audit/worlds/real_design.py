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
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from mmlu_audit.core.errors import DataError
from mmlu_audit.core.scaling import standardise
from mmlu_audit.core.seeds import check_seed, seeded
from mmlu_audit.data.responses import MISSING, ResponseMatrix
from mmlu_audit.worlds.simulated import World, WorldSpec, plant_items

__all__ = ["abilities_for_accuracy", "simulate_at_design"]

_BOUNDS = (-20.0, 20.0)


def _expected_accuracy(theta: np.ndarray, a, b, c: float, observed: np.ndarray) -> np.ndarray:
    p = c + (1 - c) / (1 + np.exp(-a[None, :] * (theta[:, None] - b[None, :])))
    return np.where(observed, p, 0.0).sum(axis=1) / observed.sum(axis=1)


def abilities_for_accuracy(accuracy, a, b, c: float, observed: np.ndarray, *,
                           tol: float = 1e-6) -> np.ndarray:
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
        above = _expected_accuracy(mid, a, b, c, observed) > accuracy
        high, low = np.where(above, mid, high), np.where(above, low, mid)
    return (low + high) / 2


@seeded
def simulate_at_design(design: ResponseMatrix, spec: WorldSpec, items: pd.DataFrame,
                       covariates: pd.DataFrame, seed: int) -> World:
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
        One column per key of ``spec.slopes``, aligned with ``items``.
    seed : int

    Returns
    -------
    World
        ``truth`` has ``theta`` (J, 2; both columns the one ability), ``a``, ``b``, ``c``,
        ``stem``, ``subject_effect`` and ``covariates``; the matrix keeps the design's models.
    """
    seed = check_seed(seed)
    if list(design.item_ids) != list(items["item_id"]):
        raise DataError("design", "its columns are not in the items' order")
    x = standardise(covariates[list(spec.slopes)].to_numpy(dtype=float))
    item_rng, response_rng = (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2))
    item_truth = plant_items(spec, items.reset_index(drop=True), x, item_rng)
    c = spec.guessing if spec.response_model == "3pl" else 0.0
    observed = design.observed
    theta = abilities_for_accuracy(design.accuracy().to_numpy(), item_truth["a"], item_truth["b"], c,
                                   observed)
    p = c + (1 - c) / (1 + np.exp(-item_truth["a"][None, :] * (theta[:, None] - item_truth["b"][None, :])))
    responses = (response_rng.random(p.shape) < p).astype(np.int8)
    responses[~observed] = MISSING
    label = "null world (identical slopes)" if spec.null_world else "planted world"
    matrix = ResponseMatrix(
        responses, design.models.copy(), design.item_ids.copy(), "simulated", True,
        f"Simulated at the design of {design.source} ({label}, seed {seed}); not MMLU findings.",
        {"seed": seed, "spec": json.loads(spec.to_json()), "design": design.source},
    )
    truth = {"theta": np.column_stack([theta, theta]), "a": item_truth["a"], "b": item_truth["b"],
             "c": np.float64(c), "stem": items["stem"].to_numpy(bool),
             "subject_effect": item_truth["subject_effect"], "covariates": x}
    return World(matrix, truth, spec, seed)
