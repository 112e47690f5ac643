"""The response-matrix type shared by every source, and its on-disk format.

A :class:`ResponseMatrix` holds ``int8`` responses (``1`` correct, ``0`` wrong,
``-1`` not observed) for J models × I items, the models table, the item ids the
columns refer to, and whether the responses are real or simulated. Missing cells
are always explicit: a float matrix with NaN is refused rather than guessed at.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.data.checksums import read_manifest, verify_file, write_manifest

__all__ = ["MISSING", "ResponseMatrix", "check_replaceable", "load_matrix", "replace_folder", "save_matrix",
           "validate_response_values", "validate_responses"]

MISSING = -1
_MATRIX_FILE = "responses.npz"
_MODELS_FILE = "models.csv"
_META_FILE = "meta.json"
#: meta.json key listing the models table's text columns, read back verbatim.
_TEXT_COLUMNS = "models_text_columns"


@dataclass(frozen=True)
class ResponseMatrix:
    """Binary model × item responses with explicit missing cells.

    Parameters
    ----------
    responses : ndarray of int8, shape (J, I)
        1 = correct, 0 = wrong, -1 (:data:`MISSING`) = not observed.
    models : DataFrame
        J rows with at least a unique ``model_id`` column.
    item_ids : ndarray of str, shape (I,)
        The MMLU ``item_id`` of each column.
    source : str
        ``"leaderboard"``, ``"helm20"``, ``"simulated"`` or a custom name.
    simulated : bool
        True when the responses were generated, not observed.
    description : str
        One line shown on every page that uses the matrix.
    """

    responses: np.ndarray
    models: pd.DataFrame
    item_ids: np.ndarray
    source: str
    simulated: bool
    description: str = ""
    meta: dict = field(default_factory=dict)

    def __post_init__(self):
        validate_responses(self.responses, self.models, self.item_ids, self.source)

    @property
    def shape(self) -> tuple[int, int]:
        """(J models, I items)."""
        return self.responses.shape

    @property
    def observed(self) -> np.ndarray:
        """Boolean mask of observed cells."""
        return self.responses != MISSING

    def as_float(self) -> np.ndarray:
        """Responses as float32 with NaN for missing cells."""
        out = self.responses.astype(np.float32)
        out[~self.observed] = np.nan
        return out

    def accuracy(self) -> pd.Series:
        """Per-model accuracy over observed cells, indexed by ``model_id``."""
        correct = (self.responses == 1).sum(axis=1)
        seen = self.observed.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            acc = correct / seen
        return pd.Series(acc, index=self.models["model_id"].to_numpy(), name="accuracy")

    def take(self, rows=None, columns=None) -> "ResponseMatrix":
        """The sub-matrix of ``rows`` × ``columns``, its models, item ids, provenance and meta kept in step.

        Parameters
        ----------
        rows, columns : array-like of bool or int, optional
            A boolean mask over the models (items) or the positions to keep, in the order
            to keep them; None keeps all. The models table is renumbered from 0 when rows
            are selected.

        Raises
        ------
        ParameterError
            If a mask has the wrong length, or a position is out of range, repeated or not
            an integer.
        """
        rows = _positions(rows, self.shape[0], "rows")
        columns = _positions(columns, self.shape[1], "columns")
        models = self.models if rows is None else self.models.iloc[rows].reset_index(drop=True)
        responses = self.responses
        if rows is not None:
            responses = responses[rows]
        if columns is not None:
            responses = responses[:, columns]
        item_ids = self.item_ids if columns is None else self.item_ids[columns]
        return ResponseMatrix(responses, models, item_ids, self.source, self.simulated,
                              self.description, dict(self.meta))

    def aligned_to(self, items: pd.DataFrame) -> "ResponseMatrix":
        """Return a copy whose columns follow ``items["item_id"]`` order.

        Items absent from this matrix become all-missing columns.
        """
        position = pd.Series(np.arange(len(self.item_ids)), index=self.item_ids)
        target = items["item_id"].to_numpy()
        where = position.reindex(target).to_numpy()
        out = np.full((self.shape[0], len(target)), MISSING, dtype=np.int8)
        present = ~np.isnan(where)
        out[:, present] = self.responses[:, where[present].astype(int)]
        return ResponseMatrix(out, self.models, target.astype(str), self.source,
                              self.simulated, self.description, dict(self.meta))

    @property
    def banner(self) -> str:
        """One-line provenance statement for the top of every page."""
        kind = "SIMULATED responses" if self.simulated else "REAL responses"
        j, i = self.shape
        text = f"{kind} — source `{self.source}`, {j:,} models × {i:,} items. {self.description}"
        return f"{text} {self.calibration_note}" if self.calibration_note else text

    @property
    def calibration_note(self) -> str:
        """The sentence naming a simulated world's calibration (``meta["calibration"]``), else ""."""
        name = self.meta.get("calibration")
        return f"World calibration: {name}." if self.simulated and name else ""


def _positions(which, n: int, name: str) -> np.ndarray | None:
    """``which`` (None, a boolean mask of length ``n`` or integer positions) as positions, checked."""
    if which is None:
        return None
    which = np.asarray(which)
    if which.ndim != 1:
        raise ParameterError(name, f"must be one-dimensional, got shape {which.shape}")
    if which.dtype == bool:
        if which.size != n:
            raise ParameterError(name, f"boolean mask of length {which.size} for {n} {name}")
        return np.flatnonzero(which)
    if which.size and which.dtype.kind not in "iu":
        raise ParameterError(name, f"positions must be integers or a boolean mask, got dtype {which.dtype}")
    which = which.astype(np.intp)
    outside = (which < 0) | (which >= n)
    if outside.any():
        raise ParameterError(name, f"position(s) {which[outside][:5].tolist()} outside 0..{n - 1}")
    if np.unique(which).size != which.size:
        raise ParameterError(name, "repeats a position (a model or item may appear only once)")
    return which


def validate_response_values(responses, source: str = "responses") -> None:
    """Raise :class:`DataError` unless ``responses`` is a 2-D integer array in {-1, 0, 1}."""
    if not isinstance(responses, np.ndarray) or responses.ndim != 2:
        raise DataError(source, "responses must be a 2-D numpy array (models × items)")
    if responses.dtype.kind == "f":
        if np.isnan(responses).any():
            raise DataError(source, "responses contain NaN; encode missing cells explicitly as -1")
        raise DataError(source, "responses must be an integer array (1, 0, or -1 for missing)")
    if responses.dtype.kind not in "iub":
        raise DataError(source, f"responses have dtype {responses.dtype}; expected int8")
    bad = ~np.isin(responses, (MISSING, 0, 1))
    if bad.any():
        values = np.unique(responses[bad])[:5].tolist()
        raise DataError(source, f"{int(bad.sum())} non-binary response(s), values {values}; "
                        "allowed are 1, 0 and -1 (missing)")


def validate_responses(responses, models, item_ids, source: str = "responses") -> None:
    """Raise :class:`DataError` unless the matrix is int, in {-1, 0, 1}, and shapes agree."""
    validate_response_values(responses, source)
    if "model_id" not in models.columns:
        raise DataError(source, "models table has no 'model_id' column")
    if models["model_id"].duplicated().any():
        raise DataError(source, "models table has duplicate model_id values")
    if responses.shape != (len(models), len(item_ids)):
        raise DataError(source, f"shape mismatch: responses {responses.shape} but "
                        f"{len(models)} models and {len(item_ids)} item ids")
    if len(set(item_ids)) != len(item_ids):
        raise DataError(source, "duplicate item ids in the response columns")


def save_matrix(matrix: ResponseMatrix, folder: str | Path, extra: dict[str, np.ndarray] | None = None) -> Path:
    """Write a matrix atomically as ``responses.npz`` + ``models.csv`` + ``meta.json`` + manifest.

    The files are written to a temporary sibling folder and renamed into place,
    so an interrupted write leaves nothing half-written. An existing ``folder``
    is replaced only if it is empty or a previous matrix written by this
    function (its manifest names every file in it); it is moved aside, not
    removed, until the new matrix is in place.

    Raises
    ------
    DataError
        If ``folder`` exists and is not an empty folder or one of our matrices.
    """
    folder = Path(folder)
    check_replaceable(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        arrays = {"Y": matrix.responses.astype(np.int8), "item_ids": matrix.item_ids.astype(str)}
        arrays.update(extra or {})
        np.savez_compressed(tmp / _MATRIX_FILE, **arrays)
        matrix.models.to_csv(tmp / _MODELS_FILE, index=False)
        meta = {"source": matrix.source, "simulated": matrix.simulated,
                "description": matrix.description, **matrix.meta,
                _TEXT_COLUMNS: _text_columns(matrix.models)}
        (tmp / _META_FILE).write_text(json.dumps(meta, indent=2, sort_keys=True, default=str))
        write_manifest(tmp, [_MATRIX_FILE, _MODELS_FILE, _META_FILE])
        replace_folder(tmp, folder)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)
    return folder


def check_replaceable(folder: str | Path) -> None:
    """Raise :class:`DataError` unless ``folder`` is absent, empty, or a matrix written by :func:`save_matrix`."""
    folder = Path(folder)
    if not folder.exists():
        return
    if not folder.is_dir():
        raise DataError(folder, "exists and is not a folder; refusing to replace it")
    present = {p.name for p in folder.iterdir()}
    if not present:
        return
    not_ours = DataError(folder, "refusing to replace a non-empty folder that is not a response matrix "
                         f"written by save_matrix (no manifest naming {_MATRIX_FILE}); choose another folder")
    if "manifest.json" not in present:
        raise not_ours
    try:
        listed = set(read_manifest(folder)) | {"manifest.json"}
    except DataError:  # a damaged matrix of ours: only our own file names may be there
        listed = {_MATRIX_FILE, _MODELS_FILE, _META_FILE, "manifest.json"}
    if _MATRIX_FILE not in listed:
        raise not_ours
    foreign = sorted(present - listed)
    if foreign:
        raise DataError(folder, f"refusing to replace a matrix folder that also holds other files "
                        f"({', '.join(foreign[:5])}); move them first")


def replace_folder(new: Path, target: Path) -> None:
    """Move the complete folder ``new`` to ``target``, moving an old ``target`` aside until done.

    ``new`` and ``target`` must share a parent (so both renames are atomic).
    The old folder is deleted only once the new one is in place; if the second
    rename fails, the old folder is moved back.
    """
    if not target.exists():
        os.replace(new, target)
        return
    aside = Path(tempfile.mkdtemp(prefix=f".{target.name}.old.", dir=target.parent))
    os.replace(target, aside / target.name)
    try:
        os.replace(new, target)
    except BaseException:
        os.replace(aside / target.name, target)  # put the old one back
        aside.rmdir()
        raise
    shutil.rmtree(aside)


def load_matrix(folder: str | Path) -> tuple[ResponseMatrix, dict[str, np.ndarray]]:
    """Read a matrix written by :func:`save_matrix`, verifying every file's sha256.

    Returns
    -------
    matrix : ResponseMatrix
    extra : dict of ndarray
        Any additional arrays stored beside ``Y`` (e.g. simulated truth).
    """
    folder = Path(folder)
    manifest = read_manifest(folder)
    for name, digest in manifest.items():
        verify_file(folder / name, digest)
    try:
        with np.load(folder / _MATRIX_FILE, allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
    except Exception as exc:
        raise DataError(folder / _MATRIX_FILE, f"not a readable npz archive ({exc})") from exc
    meta = json.loads((folder / _META_FILE).read_text())
    models = _read_models(folder / _MODELS_FILE, meta.pop(_TEXT_COLUMNS, ["model_id"]))
    matrix = ResponseMatrix(arrays.pop("Y"), models, arrays.pop("item_ids"),
                            meta.pop("source"), meta.pop("simulated"),
                            meta.pop("description", ""), meta)
    return matrix, arrays


def _text_columns(models: pd.DataFrame) -> list[str]:
    """Columns to read back as text: ``model_id`` always, and every non-numeric column."""
    text = [c for c in models.columns if not pd.api.types.is_numeric_dtype(models[c])
            and not pd.api.types.is_bool_dtype(models[c])]
    return ["model_id", *(c for c in text if c != "model_id")]


def _read_models(path: Path, text_columns: list[str]) -> pd.DataFrame:
    """Read ``models.csv`` so that ids like ``007``, ``7``, ``NA`` or ``1e3`` stay the strings they were.

    Numeric columns are parsed as usual; text columns verbatim, where only an
    empty field (how ``to_csv`` writes a missing value) becomes missing, and
    ``model_id`` has no missing values at all.
    """
    models = pd.read_csv(path)
    present = [c for c in text_columns if c in models.columns]
    verbatim = pd.read_csv(path, dtype=str, keep_default_na=False, usecols=present)
    for column in present:
        values = verbatim[column]
        models[column] = values if column == "model_id" else values.replace("", np.nan)
    return models
