"""Checking and encoding the inputs of a calibration.

The engine works on one ``int8`` *sign matrix*: +1 correct, −1 wrong, 0 not used
(missing or held out). A cell with sign 0 contributes exactly zero to the
likelihood, so missing responses are never read as wrong.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mmlu_audit.data.responses import MISSING, ResponseMatrix, validate_response_values
from mmlu_audit.core.errors import DataError
from mmlu_audit.core.scaling import standardise
from mmlu_audit.core.seeds import rng_from, seeded

__all__ = ["FitData", "prepare_data", "holdout_mask", "to_signs", "present_index", "padded_size"]

_SOURCE = "irt input"


@dataclass(frozen=True)
class FitData:
    """Validated inputs of one fit.

    Attributes
    ----------
    responses : ndarray of int8, shape (J, I)
        1 / 0 / -1 (missing), held-out cells still carrying their value.
    signs : ndarray of int8, shape (J, I)
        +1 / −1 for cells the fit uses, 0 for missing and held-out cells.
    model_ids, item_ids : ndarray of str
        Coordinates of the result.
    item_stem : ndarray of bool or None
        Item partition for the ``"2d"`` model (True = loads on θ_STEM).
    covariate : ndarray of float32 or None
        Standardised item covariate W for the ``"interaction"`` model.
    covariate_mean, covariate_sd : float
        What was subtracted and divided to standardise W.
    holdout : ndarray of bool or None
        Cells withheld from the fit.
    row_weight : ndarray of float32 or None
        Frequency weight of each model row (None: every row once; 0: the row is absent).
    item_weight : ndarray of float32 or None
        Frequency weight of each item column (None: every item once; 0: the item is absent).
    """

    responses: np.ndarray
    signs: np.ndarray
    model_ids: np.ndarray
    item_ids: np.ndarray
    item_stem: np.ndarray | None = None
    covariate: np.ndarray | None = None
    covariate_mean: float = 0.0
    covariate_sd: float = 1.0
    holdout: np.ndarray | None = None
    row_weight: np.ndarray | None = None
    item_weight: np.ndarray | None = None

    @property
    def shape(self) -> tuple[int, int]:
        """(J models, I items)."""
        return self.responses.shape


def _as_response_array(data) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return (responses, model_ids, item_ids) from a ResponseMatrix or an int array."""
    if isinstance(data, ResponseMatrix):
        return (data.responses, data.models["model_id"].astype(str).to_numpy(),
                np.asarray(data.item_ids).astype(str))
    validate_response_values(data, _SOURCE)
    j, i = data.shape
    return (data.astype(np.int8, copy=False), np.array([f"model_{k}" for k in range(j)]),
            np.array([f"item_{k}" for k in range(i)]))


def to_signs(responses: np.ndarray, exclude: np.ndarray | None = None) -> np.ndarray:
    """Encode 1 / 0 / -1 responses as +1 / −1 / 0 signs, zeroing ``exclude`` cells."""
    signs = np.where(responses == 1, 1, np.where(responses == 0, -1, 0)).astype(np.int8)
    if exclude is not None:
        signs[exclude] = 0
    return signs


def _check_coverage(signs: np.ndarray, row_weight=None, item_weight=None) -> None:
    """Refuse an empty matrix, and models or items with no usable response at all.

    With frequency weights only the rows and columns of positive weight count: a present
    model must have a response among the present items, and a present item among the
    present models (an absent one is not fitted, whatever it holds).
    """
    if 0 in signs.shape:
        raise DataError(_SOURCE, f"the response matrix is empty ({signs.shape[0]} models × "
                        f"{signs.shape[1]} items): there is nothing to calibrate")
    rows = np.ones(signs.shape[0], bool) if row_weight is None else row_weight > 0
    cols = np.ones(signs.shape[1], bool) if item_weight is None else item_weight > 0
    used = (signs != 0) & rows[:, None] & cols[None, :]
    empty_rows = np.flatnonzero(rows & ~used.any(axis=1))
    empty_cols = np.flatnonzero(cols & ~used.any(axis=0))
    if empty_rows.size:
        raise DataError(_SOURCE, f"{empty_rows.size} model row(s) have no observed response "
                        f"(first indices {empty_rows[:5].tolist()}); drop them before fitting")
    if empty_cols.size:
        raise DataError(_SOURCE, f"{empty_cols.size} item column(s) have no observed response "
                        f"(first indices {empty_cols[:5].tolist()}); drop them before fitting")


def _item_vector(values, n_items: int, name: str) -> np.ndarray:
    """Check that an item-level vector has one finite entry per item."""
    values = np.asarray(values)
    if values.ndim != 1 or values.shape[0] != n_items:
        raise DataError(_SOURCE, f"shape mismatch: {name} has shape {values.shape} but the "
                        f"matrix has {n_items} items")
    return values


def _prepare_covariate(covariate, n_items: int, item_weight=None) -> tuple[np.ndarray, float, float]:
    """Validate and standardise the interaction covariate W.

    With item weights the mean and SD are the weighted ones, those of the matrix with each
    item repeated ``item_weight`` times (absent items are standardised alongside, unused).
    """
    w = _item_vector(covariate, n_items, "item_covariate").astype(np.float64)
    if not np.isfinite(w).all():
        raise DataError(_SOURCE, "item_covariate contains NaN or infinite values")
    z, mean, sd = standardise(w, return_moments=True, weights=item_weight)
    if sd == 0:
        raise DataError(_SOURCE, "item_covariate is constant; it cannot be standardised")
    return z.astype(np.float32), float(mean), float(sd)


def prepare_data(data, model: str, *, item_stem=None, item_covariate=None,
                 holdout=None, row_weight=None, item_weight=None) -> FitData:
    """Validate a calibration's inputs and encode them for the engine.

    Parameters
    ----------
    data : ResponseMatrix or ndarray of int, shape (J, I)
        Responses 1 / 0 / -1 (missing).
    model : str
        The spec's model; decides which item inputs are required.
    item_stem : array of bool, shape (I,), optional
        Required for ``"2d"``.
    item_covariate : array of float, shape (I,), optional
        Required for ``"interaction"``; standardised here.
    holdout : array of bool, shape (J, I), optional
        Cells to withhold from the fit (see :func:`holdout_mask`).
    row_weight : array of int, shape (J,), optional
        Whole-number frequency weight ≥ 0 of each model row (0: absent).
    item_weight : array of int, shape (I,), optional
        Whole-number frequency weight ≥ 0 of each item column (0: absent).

    Raises
    ------
    DataError
        Non-binary or float responses, shape mismatches, missing item inputs, or a
        model/item without any usable response.
    """
    responses, model_ids, item_ids = _as_response_array(data)
    n_items = responses.shape[1]
    if holdout is not None:
        holdout = np.asarray(holdout, dtype=bool)
        if holdout.shape != responses.shape:
            raise DataError(_SOURCE, f"shape mismatch: holdout mask {holdout.shape} vs "
                            f"responses {responses.shape}")
    signs = to_signs(responses, holdout)
    weight = None if row_weight is None else _frequency_weight(row_weight, responses.shape[0], "row_weight")
    item_weight = (None if item_weight is None
                   else _frequency_weight(item_weight, n_items, "item_weight"))
    _check_coverage(signs, weight, item_weight)
    stem = None
    if model == "2d":
        if item_stem is None:
            raise DataError(_SOURCE, "the '2d' model needs item_stem (bool per item)")
        stem = _item_vector(item_stem, n_items, "item_stem").astype(bool)
        if stem.all() or not stem.any():
            raise DataError(_SOURCE, "item_stem puts every item in one dimension")
    w, w_mean, w_sd = None, 0.0, 1.0
    if model == "interaction":
        if item_covariate is None:
            raise DataError(_SOURCE, "the 'interaction' model needs item_covariate (W per item)")
        w, w_mean, w_sd = _prepare_covariate(item_covariate, n_items, item_weight)
    return FitData(responses, signs, model_ids, item_ids, stem, w, w_mean, w_sd, holdout, weight,
                   item_weight)


def _frequency_weight(values, n: int, name: str) -> np.ndarray:
    """Check frequency weights: one whole number ≥ 0 per row (or column), not all 0."""
    what = "model" if name == "row_weight" else "item"
    weight = np.asarray(values)
    if weight.shape != (n,):
        raise DataError(_SOURCE, f"{name} must have one entry per {what} ({n}), got shape {weight.shape}")
    if not np.issubdtype(weight.dtype, np.number) or not np.isfinite(weight).all() \
            or (weight < 0).any() or (weight != np.round(weight)).any():
        raise DataError(_SOURCE, f"{name} must hold whole numbers ≥ 0")
    if not (weight > 0).any():
        raise DataError(_SOURCE, f"{name} is 0 everywhere: no {what} is left to fit")
    return weight.astype(np.float32)


@seeded
def holdout_mask(data, fraction: float = 0.05, seed: int = 0) -> np.ndarray:
    """Pick a random ``fraction`` of the *observed* cells to hold out.

    Parameters
    ----------
    data : ResponseMatrix or ndarray of int
    fraction : float
        Share of observed cells held out (the paper uses 5 %).
    seed : int
        Seed of the NumPy generator that picks the cells.

    Returns
    -------
    ndarray of bool, shape (J, I)
        True on held-out cells; never True on a missing cell.
    """
    responses, _, _ = _as_response_array(data)
    if not 0.0 < fraction < 1.0:
        raise DataError(_SOURCE, f"holdout fraction must lie in (0, 1), got {fraction}")
    observed = np.flatnonzero(responses.ravel() != MISSING)
    rng = rng_from(seed)
    chosen = rng.choice(observed, size=int(round(fraction * observed.size)), replace=False)
    mask = np.zeros(responses.size, dtype=bool)
    mask[chosen] = True
    return mask.reshape(responses.shape)


def padded_size(count: int, total: int, buckets: int = 8) -> int:
    """``count`` rounded up to the next of ``buckets`` evenly spaced sizes up to ``total``.

    Fits of a compacted resample (:func:`present_index`) pad to these sizes so that resamples of
    different sizes share a few compiled programs instead of compiling one each.

    Raises
    ------
    DataError
        ``count`` not in [1, ``total``], or ``buckets`` < 1.
    """
    if not 1 <= count <= total or buckets < 1:
        raise DataError(_SOURCE, f"cannot pad {count} of {total} entries into {buckets} sizes")
    step = -(-total // buckets)
    return min(total, -(-count // step) * step)


def present_index(weight, size: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The entries of frequency weights that are > 0, padded with weight-0 repeats to ``size``.

    An entry of weight 0 is absent from a weighted fit (its likelihood cells, prior, Jacobian and
    entropy terms all count 0 times), so fitting only the present rows and columns optimises the
    same ELBO on fewer cells: a bootstrap resample keeps ~63 % of its rows and of its clusters, so
    its compacted matrix has ~40 % of the cells. Padding repeats the first present entry with
    weight 0 (real responses, so the data-driven start stays finite, and no term of the ELBO).

    Parameters
    ----------
    weight : array of int, shape (n,)
        Whole-number frequency weights ≥ 0, at least one > 0.
    size : int, optional
        Length of the result (≥ the number of present entries, ≤ n); default: no padding.

    Returns
    -------
    index : ndarray of int, shape (size,)
        Positions of the present entries in order, then the padding.
    weight : ndarray, shape (size,)
        Their weights (0 on the padding).

    Raises
    ------
    DataError
        No entry > 0, or ``size`` outside [number present, n].
    """
    weight = np.asarray(weight)
    present = np.flatnonzero(weight > 0)
    size = present.size if size is None else int(size)
    if present.size == 0 or not present.size <= size <= weight.size:
        raise DataError(_SOURCE, f"cannot index {present.size} present of {weight.size} entries "
                                 f"into {size} positions")
    index = np.concatenate([present, np.full(size - present.size, present[0])])
    padded = np.concatenate([weight[present], np.zeros(size - present.size, weight.dtype)])
    return index, padded
