"""Audit any multiple-choice benchmark: the nine indicators and two item-level capacity indices.

``python -m mmlu_audit audit ITEMS --out DIR [--responses MATRIX]``

ITEMS is a UTF-8 JSONL, CSV or Parquet file with one question per row:

==============  ==========================================================================
column          content
==============  ==========================================================================
``question``    the stem (required; not blank, at most :data:`MAX_STEM_CHARS` characters)
``options``     the options (required): a list (JSONL / Parquet) or a JSON list in a CSV cell;
                2–10 options of at most :data:`MAX_OPTION_CHARS` characters each; neither
                stem nor option may hold a run of more than :data:`MAX_PUNCTUATION_RUN`
                punctuation characters (refused, not shortened)
``id``          optional item id, text or an integer (default: the row's line number)
``subject``     optional; ``category`` is accepted too
``answer``      optional key: one letter A–J or one 0-based index (needed for IRT and consensus)
==============  ==========================================================================

A stem the MMLU item loader would refuse (blank, or only invisible characters) is refused
here too; a stem that is mostly not English is audited and marked ``flag_non_english``.
Items whose stems are the same text up to case and whitespace are named
(:func:`mmlu_audit.features.duplicates.duplicate_summary`): ``duplicate_of`` the earlier copy
with the same option set, ``options_nested_in`` the item whose options contain this one's.

MATRIX (optional) is a long table (JSONL, CSV or Parquet) of model answers with columns
``model``, ``id`` and ``choice``: one letter A–J or one 0-based index, read exactly (``"AB"``
is an error, not A). A blank choice is **no answer**: graded wrong, no consensus vote, and
counted in ``audit.json`` (``no_answer``); a letter past the item's last option is graded
wrong too. With MATRIX the audit adds a 2PL difficulty per item (``irt_converged`` says whether
the fit converged) and the consensus flags (:mod:`mmlu_audit.analyses.consensus`), which need
at least :data:`MIN_PANEL` models and ``m ≤ k ≤`` the number of models.

**Order does not matter.** The rows of both files are put in one canonical order before
anything is computed, so the same rows in any order (and the columns in any order) give the
same ``items.csv`` and ``audit.json`` (but for the files' names, hashes and the run time):
items sort by id (:func:`canonical_id_key`: ids of ASCII digits first, by length and then
digit by digit, which is numeric order for integers without leading zeros; then the other ids
by Unicode code point), and ``items.csv`` lists them in that order; models sort by name (code
point order), so a tie in accuracy for the last seat of the consensus panel goes to the model
whose name sorts first. ``duplicate_of`` names the copy that comes first in that order. Ids
that default to line numbers follow the file's order by construction: give ids to audit a file
whose order is arbitrary.

``irt_converged`` is the IRT engine's ELBO rule (:func:`mmlu_audit.irt.engine.elbo_converged`)
under the audit's settings :data:`AUDIT_STOPPING`: the means of two successive windows of 250
steps agree to 2e-5, judged only from step 1,000 on. A single-draw ELBO is noisy, and with the
engine's default windows of 50 steps from step 100 the rule could fire by chance at step 200,
0.54 logits (largest |Δb|) from a 4,000-step fit on a planted 25 × 150 panel; under the audit's
settings the fits called converged there were within 0.15 of it, about the SVI noise floor
(fits that ran to the 2,000-step cap were 0.07–0.11 from it).

With ``--partition COLUMN`` (and MATRIX) the audit also runs the paper's main test on the
benchmark's own difficulties: the joint test of structural homogeneity, W(9), of the nine
indicator × partition interactions in the regression of b̂ on the indicators, clustered by
subject (:func:`mmlu_audit.analyses.regression.joint.joint_homogeneity`). COLUMN names a field of
ITEMS with exactly two levels (e.g. STEM / non-STEM); every item needs a value and a subject, and
each level at least :data:`MIN_SUBJECTS_PER_LEVEL` subjects among the items some model answered
(checked as soon as the answers are read, before any parsing or fitting). Messages name the levels
by the file's own names (:func:`in_level_names`). ``audit.json`` then holds a
``homogeneity`` block: the levels and their item and subject counts, W(9) under HC3, CR1 and
CR2, CR2's HTZ test and the null-imposed wild cluster bootstrap.

The two indices are computable before any model is evaluated, as the audit paper
recommends (see :data:`mmlu_audit.analyses.capacity.INDEX_DEFINITIONS`). The output folder
receives ``items.csv``, ``audit.json`` and :data:`MANIFEST` (the sha256 of each file written).
The folder must be new, empty, or an unchanged previous audit output (recognised by its
manifest, never by file names); it may not hold an input file. It is checked before the
computation, filled through a temporary folder beside it, and a failure leaves what was there.
"""

from __future__ import annotations

import contextlib
import csv
import glob
import hashlib
import io
import json
import os
import re
import shutil
import signal
import socket
import tempfile
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from mmlu_audit.analyses.capacity import INDEX_DEFINITIONS, capacity_indices
from mmlu_audit.analyses.consensus import consensus_flags
from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.core.paths import expand_user
from mmlu_audit.core.seeds import check_seed, seeded
from mmlu_audit.core.store import file_sha256
from mmlu_audit.data.items import is_blank_text
from mmlu_audit.features import INDICATORS, benchmark_features
from mmlu_audit.features.duplicates import RELATIONS, duplicate_summary
from mmlu_audit.features.table import FLAGS

__all__ = ["AUDIT_STOPPING", "HOMOGENEITY_DRAWS", "MANIFEST", "MAX_OPTION_CHARS", "MAX_PUNCTUATION_RUN",
           "MAX_STEM_CHARS", "MIN_PANEL", "MIN_SUBJECTS_PER_LEVEL", "OUTPUT_FILES", "canonical_id_key",
           "check_partition", "in_level_names", "read_answers", "read_benchmark", "run_audit",
           "write_benchmark"]

OUTPUT_FILES = ("items.csv", "audit.json")
BENCHMARK_FILES = ("items.parquet", "answers.parquet")
#: Written last into every output folder: who wrote it and the sha256 of each file.
MANIFEST = "mmlu_audit_manifest.json"
#: Longest stem and option accepted (4× the longest in MMLU and MMLU-Pro: 4,671 and 881).
MAX_STEM_CHARS = 20_000
MAX_OPTION_CHARS = 5_000
#: Longest run of punctuation and symbols (no letter, digit or space) in a stem or option: 4× the
#: longest in MMLU and MMLU-Pro (63, a table rule). spaCy's tokenizer takes time quadratic in such
#: a run (1,000 ``$``: 1.8 s; 4,000: 21 s; 19,000: 55–90 s), so a longer one is refused.
MAX_PUNCTUATION_RUN = 250
_PUNCTUATION_RUN = re.compile(rf"(?:[^\s\w]|_){{{MAX_PUNCTUATION_RUN + 1},}}")
#: Fewest models a responses file may hold: with fewer, "consensus" is one model's opinion.
MIN_PANEL = 3
#: Fewest subjects (the clusters) a partition level may hold in the homogeneity test: with one,
#: the level's cluster-robust variance has nothing to vary over.
MIN_SUBJECTS_PER_LEVEL = 2
#: Wild cluster bootstrap draws of the homogeneity test (§4.3's default).
HOMOGENEITY_DRAWS = 9999
#: What the homogeneity block of ``audit.json`` tells its reader about the test's size.
HOMOGENEITY_NOTE = ("W(9) tests the nine indicator x partition interactions of the regression of b_hat "
                    "on the indicators, clustered by subject. Read the HTZ p and the wild cluster "
                    "bootstrap p: on the book's simulated null worlds (57 subjects) both held their "
                    "5 % size, while the chi-square p under CR1 / CR2 over-reject with few clusters. "
                    "With few models b_hat is noisy and the test has little power: a non-rejection "
                    "is not evidence of homogeneity.")
#: The 2PL fit's stopping rule in the audit (IRTSpec fields): windows of 250 steps, from step 1,000.
AUDIT_STOPPING = {"min_steps": 1000, "window": 250}
NO_ANSWER, NO_RECORD = -2, -1
_LETTERS = "ABCDEFGHIJ"
_INDEX = re.compile(r"[0-9]{1,2}")
_BIG_NUMBER = "an integer of more than 4,300 digits (no id, answer or option needs one)"
#: Fields of the items file the audit reads itself; a partition column cannot be one of them.
_RESERVED_COLUMNS = ("question", "options", "id", "subject", "category", "answer")
_READERS = {".jsonl": "jsonl", ".json": "jsonl", ".csv": "csv", ".parquet": "parquet"}


# ----------------------------------------------------------------------------------- reading


def _read_rows(path: Path) -> tuple[list[tuple[int, dict]], str]:
    """The rows of a JSONL / CSV / Parquet file, each with its line (row) number in the file,
    and the sha256 of the bytes they were parsed from (read once: a file replaced while the
    audit runs cannot lend its hash to the rows of the old one)."""
    kind = _READERS.get(path.suffix.lower())
    if kind is None:
        raise DataError(path, f"unsupported file type {path.suffix!r}; use .jsonl, .csv or .parquet")
    if not path.is_file():
        raise DataError(path, "file not found" if not path.exists() else "is not a file")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DataError(path, f"cannot be read ({exc.strerror or exc})") from None
    try:
        rows = {"parquet": _parquet_rows, "csv": _csv_rows, "jsonl": _jsonl_rows}[kind](path, data)
    except UnicodeDecodeError as exc:
        raise DataError(path, f"not UTF-8 text ({exc.reason}: byte {exc.object[exc.start:exc.start + 1]!r}); "
                        "convert it to UTF-8 first") from None
    if not rows:
        raise DataError(path, "no rows")
    return rows, hashlib.sha256(data).hexdigest()


def _text_stream(data: bytes, newline: str | None) -> io.TextIOWrapper:
    """``data`` as ``open(path, encoding="utf-8-sig", newline=newline)`` would read the file."""
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8-sig", newline=newline)


def _parquet_rows(path: Path, data: bytes) -> list[tuple[int, dict]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:  # to_pylist keeps ints as ints and gaps as None: no float ids, no "nan" subjects
        rows = pq.read_table(pa.BufferReader(data)).to_pylist()
    except Exception as exc:  # pyarrow raises several unrelated types for corrupt files
        raise DataError(path, f"not a readable Parquet file ({type(exc).__name__}: {exc})") from None
    return list(enumerate(rows, start=1))


def _csv_rows(path: Path, data: bytes) -> list[tuple[int, dict]]:
    rows = []
    with _text_stream(data, "") as handle:
        reader = csv.DictReader(handle)
        try:
            for row in reader:  # every cell is text: ids, subjects and keys are never floats
                if None in row:
                    raise DataError(path, f"line {reader.line_num}: more fields than the header")
                rows.append((reader.line_num, row))
        except csv.Error as exc:
            if "field larger than field limit" in str(exc):  # the csv module's own guard
                raise DataError(path, f"line {reader.line_num + 1}: a field is longer than "
                                f"{csv.field_size_limit():,} characters") from None
            raise DataError(path, f"line {reader.line_num}: not valid CSV ({exc})") from None
    return rows


def _jsonl_rows(path: Path, data: bytes) -> list[tuple[int, dict]]:
    rows = []
    with _text_stream(data, None) as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(path, f"line {number}: not valid JSON ({exc.msg})") from None
            except RecursionError:
                raise DataError(path, f"line {number}: JSON nested too deeply") from None
            except ValueError:  # Python's int-digit limit: json.loads refuses integers of > 4,300 digits
                raise DataError(path, f"line {number}: {_BIG_NUMBER}") from None
            if not isinstance(row, dict):
                raise DataError(path, f"line {number}: expected a JSON object (one per line: "
                                f"{path.suffix} files are read as JSON Lines), got {type(row).__name__}")
            rows.append((number, row))
    return rows


def _where(path: Path, line: int, field: str) -> str:
    return f"line {line}, field {field!r}"


def _text(value, path: Path, line: int, field: str, limit: int | None = None) -> str:
    """A text field, checked: a str of valid Unicode no longer than ``limit``."""
    if not isinstance(value, str):
        raise DataError(path, f"{_where(path, line, field)}: expected text, got {type(value).__name__}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise DataError(path, f"{_where(path, line, field)}: not valid Unicode (a lone surrogate)") from None
    if limit is not None and len(value) > limit:
        raise DataError(path, f"{_where(path, line, field)}: {len(value):,} characters; the audit "
                        f"takes at most {limit:,}")
    run = _PUNCTUATION_RUN.search(value) if field in ("question", "options") else None
    if run:
        raise DataError(path, f"{_where(path, line, field)}: a run of {len(run.group()):,} punctuation "
                        f"characters ({run.group()[:10]!r}…); the audit takes runs of at most "
                        f"{MAX_PUNCTUATION_RUN} (the parser slows quadratically on longer ones)")
    return value


def _whole(value):
    """An integer, an integral float (a Parquet integer column with a gap) or NaN, as int / None."""
    if isinstance(value, (bool, np.bool_)):
        return value
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        if np.isnan(value):
            return None
        if float(value).is_integer():
            return int(value)
    return value


def _label(value, path: Path, line: int, field: str) -> str | None:
    """An id-like field as text (an integer is written out); None when absent or blank."""
    value = _whole(value)
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return _text(value, path, line, field, MAX_STEM_CHARS)


def _options(value, path: Path, line: int) -> list[str]:
    where = _where(path, line, "options")
    if value is None or (isinstance(value, str) and not value.strip()):
        raise DataError(path, f"line {line}: no 'options'")
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise DataError(path, f"{where}: not a JSON list ({exc.msg})") from None
        except RecursionError:
            raise DataError(path, f"{where}: JSON nested too deeply") from None
        except ValueError:
            raise DataError(path, f"{where}: {_BIG_NUMBER}") from None
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if not isinstance(value, list) or not all(isinstance(o, str) for o in value):
        raise DataError(path, f"{where}: expected a list of strings")
    if not 2 <= len(value) <= len(_LETTERS):
        raise DataError(path, f"{where}: {len(value)} options; need 2–10")
    return [_text(o, path, line, "options", MAX_OPTION_CHARS) for o in value]


def _choice(value, path: Path, line: int, field: str) -> int | None:
    """One letter A–J or one 0-based index, read exactly; None for a blank (no answer)."""
    value = _whole(value)
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        index = int(value)
    elif isinstance(value, str) and len(value.strip()) == 1 and value.strip().upper() in _LETTERS:
        index = _LETTERS.index(value.strip().upper())
    elif isinstance(value, str) and _INDEX.fullmatch(value.strip()):
        index = int(value.strip())
    else:
        raise DataError(path, f"{_where(path, line, field)}: {value!r} is neither one letter A–J "
                        "nor a 0-based option index")
    if not 0 <= index < len(_LETTERS):
        raise DataError(path, f"{_where(path, line, field)}: {value!r} is not an option index 0–9")
    return index


def read_benchmark(path: str | Path, partition: str | None = None) -> pd.DataFrame:
    """Read and validate a benchmark file (see the module docstring for its columns).

    Parameters
    ----------
    path : str or Path
    partition : str, optional
        A further column to read as each item's partition level (text or an integer); every
        row must have one.

    Returns
    -------
    DataFrame
        ``item_id`` (str), ``subject`` (or ``""``), ``question``, ``options`` (list),
        ``n_options`` and ``key`` (0-based, -1 where no answer is given), and with
        ``partition`` a ``partition`` column (str); ``attrs["sha256"]`` is the hash of the
        bytes the rows were parsed from.

    Raises
    ------
    DataError
        Naming the file, the line and the field of the first malformed row.
    """
    path = Path(path)
    records, seen = [], {}
    rows, digest = _read_rows(path)
    for line, row in rows:
        question = row.get("question")
        if question is None:
            raise DataError(path, f"line {line}: no 'question' (fields: {sorted(row)})")
        question = _text(question, path, line, "question", MAX_STEM_CHARS)
        if is_blank_text(question):
            raise DataError(path, f"{_where(path, line, 'question')}: empty (blank or only "
                            "invisible characters)")
        options = _options(row.get("options"), path, line)
        key = _choice(row.get("answer"), path, line, "answer")
        if key is not None and key >= len(options):
            raise DataError(path, f"{_where(path, line, 'answer')}: {row['answer']!r} is not one of "
                            f"the item's {len(options)} options")
        item_id = _label(row.get("id"), path, line, "id") or str(line)
        if item_id in seen:
            raise DataError(path, f"{_where(path, line, 'id')}: {item_id!r} is used twice "
                            f"(first on line {seen[item_id]})")
        seen[item_id] = line
        subject_field = "subject" if row.get("subject") is not None else "category"
        subject = _label(row.get(subject_field), path, line, subject_field) or ""
        record = (item_id, subject, question, options, len(options), -1 if key is None else key)
        if partition is not None:
            level = _label(row.get(partition), path, line, partition)
            if level is None:
                raise DataError(path, f"line {line}: no value in the partition column {partition!r} "
                                f"(fields: {sorted(row)}); every item needs one")
            record += (level,)
        records.append(record)
    columns = ["item_id", "subject", "question", "options", "n_options", "key"]
    items = pd.DataFrame(records, columns=columns + (["partition"] if partition is not None else []))
    items.attrs["sha256"] = digest
    return items


def check_partition(items: pd.DataFrame, column: str, answered=None) -> tuple[str, str]:
    """Check that ``items["partition"]`` can carry the homogeneity test; return its two levels.

    Parameters
    ----------
    items : DataFrame
        From :func:`read_benchmark` with ``partition``.
    column : str
        The partition column's name in the user's file (for the messages).
    answered : array of bool, optional
        Which items some model answered (only those get a difficulty and enter the test); the
        subjects of each level are counted among them. Default: every item.

    Returns
    -------
    (str, str)
        The levels in code-point order; the second is coded 1 in the regression (the library's
        "STEM" side), and the audit's messages name both by these names.

    Raises
    ------
    ParameterError
        The column has not exactly two levels, an item has no subject, or a level holds
        fewer than :data:`MIN_SUBJECTS_PER_LEVEL` subjects among the answered items; the
        message says what to change (the column's levels, or leave out ``--partition``).
    """
    levels = sorted(items["partition"].unique())
    if len(levels) != 2:
        shown = ", ".join(repr(level) for level in levels[:5]) + (", …" if len(levels) > 5 else "")
        raise ParameterError("partition", f"column {column!r} has {len(levels)} level(s) ({shown}); the "
                             "homogeneity test compares exactly two: map the levels to two first")
    blank = items["subject"] == ""
    if blank.any():
        raise ParameterError("partition", f"item {items.loc[blank, 'item_id'].iat[0]!r} has no subject; the "
                             "homogeneity test clusters by subject, so every item needs one")
    tested = items if answered is None else items[np.asarray(answered, bool)]
    subjects = tested.groupby("partition")["subject"].nunique().reindex(levels, fill_value=0)
    for level in levels:
        if subjects[level] < MIN_SUBJECTS_PER_LEVEL:
            what = "items" if answered is None else "answered items"
            raise ParameterError("partition", f"level {level!r} of column {column!r} holds {what} of "
                                 f"{subjects[level]} subject(s); the test clusters by subject and needs "
                                 f"at least {MIN_SUBJECTS_PER_LEVEL} per level: give {column!r} levels "
                                 "that each span more subjects, or leave out --partition")
    return levels[0], levels[1]


def in_level_names(message: str, levels: tuple[str, str]) -> str:
    """``message`` from the library, whose "STEM" is the level coded 1, in the user's level names.

    Parameters
    ----------
    message : str
    levels : (str, str)
        From :func:`check_partition`: the second is coded 1 (the library's "STEM").
    """
    names = {"non-STEM": repr(levels[0]), "STEM": repr(levels[1])}
    return re.sub(r"\bnon-STEM\b|\bSTEM\b", lambda match: names[match.group(0)], message)


def _homogeneity(table: pd.DataFrame, levels: tuple[str, str], column: str, seed: int,
                 n_boot: int) -> dict:
    """The ``homogeneity`` block of ``audit.json``: the joint test on the audited difficulties."""
    from mmlu_audit.analyses.regression.joint import joint_homogeneity

    frame = table.assign(stem=table["partition"] == levels[1])
    tested = frame[np.isfinite(frame["b_hat"].to_numpy(float))]
    counts = {level: {"items": int((tested["partition"] == level).sum()),
                      "subjects": int(tested.loc[tested["partition"] == level, "subject"].nunique())}
              for level in levels}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        statistics = joint_homogeneity(frame, seed=seed, n_boot=n_boot)
    for warning in caught:  # the library calls the level coded 1 "STEM": say the user's names
        warnings.warn(in_level_names(str(warning.message), levels), warning.category, stacklevel=2)
    return {"partition": column, "levels": list(levels), "coded_one": levels[1], "counts": counts,
            "n_items_without_b_hat": int(len(frame) - len(tested)), "bootstrap_draws": int(n_boot),
            "seed": seed, "statistics": statistics, "note": HOMOGENEITY_NOTE}


def read_answers(path: str | Path, items: pd.DataFrame) -> tuple[np.ndarray, list[str]]:
    """Read a long table of model answers into a (models × items) choice matrix.

    Returns
    -------
    pred : ndarray of int8, shape (J, I)
        Chosen option; -2 = no answer (a blank choice) or a letter past the item's last option
        (graded wrong, no consensus vote); -1 = no record.
    models : list of str
    """
    pred, models, _digest = _read_answers(Path(path), items)
    return pred, models


def _read_answers(path: Path, items: pd.DataFrame) -> tuple[np.ndarray, list[str], str]:
    """:func:`read_answers` and the sha256 of the bytes it parsed."""
    position = {item: k for k, item in enumerate(items["item_id"])}
    n_options = items["n_options"].to_numpy()
    rows, models = [], {}
    records, digest = _read_rows(path)
    for line, row in records:
        model = _label(row.get("model"), path, line, "model")
        item = _label(row.get("id"), path, line, "id")
        if model is None or item is None:
            raise DataError(path, f"line {line}: no {'model' if model is None else 'id'!r}")
        if item not in position:
            raise DataError(path, f"{_where(path, line, 'id')}: {item!r} is not an item of the benchmark")
        models.setdefault(model, len(models))
        rows.append((line, models[model], position[item], _choice(row.get("choice"), path, line,
                                                                  "choice")))
    pred = np.full((len(models), len(items)), NO_RECORD, dtype=np.int8)
    for line, j, i, choice in rows:
        if pred[j, i] != NO_RECORD:
            raise DataError(path, f"line {line}: a second answer of {list(models)[j]!r} to item "
                            f"{items['item_id'].iloc[i]!r}")
        # a letter past the item's last option is a real (wrong) answer, not a malformed row
        pred[j, i] = NO_ANSWER if choice is None or choice >= n_options[i] else choice
    return pred, list(models), digest


def canonical_id_key(item_id: str) -> tuple[int, int, str]:
    """Sort key of an item id: ASCII-digit ids first, by length then text; then the rest by code point.

    Ids are unique, so the key orders items totally: no tie is left to the file's row order.
    """
    if item_id.isascii() and item_id.isdigit():
        return (0, len(item_id), item_id)
    return (1, 0, item_id)


def _canonical_items(items: pd.DataFrame) -> pd.DataFrame:
    """The items in :func:`canonical_id_key` order, whatever the file's row order."""
    order = sorted(range(len(items)), key=lambda k: canonical_id_key(items["item_id"].iat[k]))
    ordered = items.iloc[order].reset_index(drop=True)
    ordered.attrs = dict(items.attrs)  # the input's hash travels with its rows
    return ordered


def _canonical_models(pred: np.ndarray, models: list[str]) -> tuple[np.ndarray, list[str]]:
    """``pred``'s rows and ``models`` sorted by model name (code point order)."""
    order = sorted(range(len(models)), key=models.__getitem__)
    return pred[order], [models[j] for j in order]


# ------------------------------------------------------------------------------ output folders


def _manifest_of(folder: Path, kind: str, allowed: tuple[str, ...]) -> dict[str, str] | None:
    """``{file: sha256}`` of a folder this module wrote as ``kind``; None if it is not one."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        files = dict(manifest["files"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if manifest.get("written_by") != kind or not set(files) <= set(allowed):
        return None
    return files


def _check_target(target: Path, shown: Path, kind: str, allowed: tuple[str, ...],
                  inputs: tuple[Path, ...] = ()) -> dict[str, str]:
    """Refuse a target that is not new, empty or an unchanged previous output of ``kind``.

    Returns the previous output's manifest (empty for a new or empty folder).
    """
    for source in inputs:
        if target == source or target in source.parents:
            raise DataError(shown, f"holds the input file {source.name!r}; choose an output folder "
                            "outside the input's folder")
    if not target.exists():
        return {}
    if not target.is_dir():
        raise DataError(shown, "exists and is not a folder")
    present = {p.name for p in target.iterdir()}
    if not present:
        return {}
    files = _manifest_of(target, kind, allowed)
    if files is None:
        raise DataError(shown, f"folder is not empty and is not a previous {kind} output (no "
                        f"{MANIFEST} of ours); choose another folder")
    for name in sorted(present - set(files) - {MANIFEST}):
        raise DataError(shown, f"holds {name!r}, which {kind} did not write; choose another folder")
    for name, digest in files.items():
        entry = target / name
        if entry.exists() and (entry.is_symlink() or not entry.is_file() or file_sha256(entry) != digest):
            raise DataError(shown, f"{name!r} changed since {kind} wrote it; choose another folder")
    return files


#: Written into every temporary output folder: the host and process that own it.
_OWNER = ".mmlu_audit_owner"


def _owner_stamp() -> str:
    return f"{socket.gethostname()} {os.getpid()}"


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def _remove_stale_temporaries(target: Path) -> None:
    """Remove the temporary folders of ``target`` left by a process of this host that is gone.

    A run ended by SIGKILL (or SIGTERM outside the swap) cannot clean up; its ``.NAME.xxxx``
    folder carries :data:`_OWNER` naming its host and process id. A folder without that stamp,
    of another host, or of a live process is left alone.
    """
    host = socket.gethostname()
    for folder in target.parent.glob(f".{glob.escape(target.name)}.*"):
        try:
            owner_host, pid = (folder / _OWNER).read_text().rsplit(" ", 1)
            stale = folder.is_dir() and not folder.is_symlink() and owner_host == host \
                and not _process_alive(int(pid))
        except (OSError, ValueError):
            continue  # not a folder of ours
        if stale:
            shutil.rmtree(folder)


class _Output:
    """An output folder filled through a temporary folder beside it, swapped in on success."""

    def __init__(self, folder: str | Path, kind: str, allowed: tuple[str, ...],
                 inputs: tuple[Path, ...] = ()):
        self.shown = Path(folder)
        # links resolved: a link to a previous output is replaced where it points, link kept
        self.target = Path(os.path.realpath(expand_user(self.shown, "output folder")))
        self.kind, self.allowed = kind, allowed
        self.inputs = tuple(Path(os.path.realpath(p)) for p in inputs)
        _check_target(self.target, self.shown, kind, allowed, self.inputs)
        self._made = []
        try:
            parent = self.target.parent
            while not parent.exists():
                self._made.insert(0, parent)
                parent = parent.parent
            for folder in self._made:
                folder.mkdir()
            if self.target.exists() and not os.access(self.target, os.W_OK | os.X_OK):
                raise PermissionError(f"{self.target} is not writable")
            _remove_stale_temporaries(self.target)
            self.tmp = Path(tempfile.mkdtemp(prefix=f".{self.target.name}.", dir=self.target.parent))
            (self.tmp / _OWNER).write_text(_owner_stamp())
        except OSError as exc:
            self._remove_made()
            raise DataError(self.shown, f"cannot write here ({exc.strerror or exc})") from None

    def _remove_made(self) -> None:
        for folder in reversed(self._made):
            try:
                folder.rmdir()
            except OSError:
                break

    def discard(self) -> None:
        """Remove the temporary folder (and any parent folder this output created)."""
        shutil.rmtree(self.tmp, ignore_errors=True)
        if not self.target.exists():
            self._remove_made()

    def commit(self) -> None:
        """Move the files written into ``self.tmp`` into the target; undo everything on failure.

        SIGINT and SIGTERM that arrive during the swap are held until it ends
        (:func:`_signals_held`); any exception inside it, KeyboardInterrupt included, puts the
        previous content back from the state of the folders (not from a record of the moves an
        interrupt could cut short). Should the undo itself fail, the backup is kept and named.
        """
        names = sorted(p.name for p in self.tmp.iterdir() if p.name != _OWNER)
        manifest = {"written_by": self.kind, "files": {n: file_sha256(self.tmp / n) for n in names}}
        try:
            (self.tmp / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True))
        except OSError as exc:
            self.discard()
            raise DataError(self.tmp / MANIFEST, f"could not be written ({exc.strerror or exc}); "
                            "the previous content is left as it was") from None
        previous = _check_target(self.target, self.shown, self.kind, self.allowed, self.inputs)
        backup = self.tmp / ".previous"
        backup.mkdir()
        made = not self.target.exists()
        undo_failed = False
        try:
            with _signals_held():
                try:
                    self._swap(names, previous, backup, made)
                except BaseException:
                    try:
                        self._undo(names, backup, made)
                    except BaseException:
                        undo_failed = True  # the backup is all that is left of the previous output
                        raise
                    raise
        except OSError as exc:
            raise DataError(self.shown, f"could not write the output ({exc.strerror or exc}); "
                            "the previous content is left as it was") from None
        finally:
            if not undo_failed:
                self.discard()
            else:  # unstamped: a later run must not clean the only copy of the previous output away
                (self.tmp / _OWNER).unlink(missing_ok=True)

    def _swap(self, names: list[str], previous: dict, backup: Path, made: bool) -> None:
        if made:
            self.target.mkdir()
        for name in [MANIFEST, *previous]:  # the manifest first: a half-swap is never "ours"
            if (self.target / name).exists():
                os.replace(self.target / name, backup / name)
        for name in names:
            os.replace(self.tmp / name, self.target / name)
        os.replace(self.tmp / MANIFEST, self.target / MANIFEST)

    def _undo(self, names: list[str], backup: Path, made: bool) -> None:
        """Put the previous content back, judging what moved from where each file is now."""
        try:
            for name in [MANIFEST, *names]:  # a new file is in the target exactly when gone from tmp
                if not (self.tmp / name).exists() and (self.target / name).exists():
                    os.replace(self.target / name, self.tmp / name)
            for entry in sorted(backup.iterdir()):
                os.replace(entry, self.target / entry.name)
            if made and self.target.exists() and not any(self.target.iterdir()):
                self.target.rmdir()
        except OSError as exc:
            raise DataError(self.shown, f"could not restore the previous output ({exc.strerror or exc}); "
                            f"its files are kept in {backup}") from None


@contextlib.contextmanager
def _signals_held():
    """Hold SIGINT and SIGTERM until the block ends, then deliver them to their usual handlers.

    Only the main thread can set handlers; elsewhere the block runs unguarded (the swap's undo
    still covers an exception).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught, kept = [], {}

    def hold(number, _frame):
        caught.append(number)

    for number in (signal.SIGINT, signal.SIGTERM):
        kept[number] = signal.signal(number, hold)
    try:
        yield
    finally:
        for number, handler in kept.items():
            signal.signal(number, handler)
        for number in dict.fromkeys(caught):
            signal.raise_signal(number)


# ----------------------------------------------------------------------------------- the audit


def _check_panel(k, m) -> None:
    for name, value in (("k", k), ("m", m)):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise ParameterError(name, f"must be an integer, got {value!r}")
    if k < MIN_PANEL:
        raise ParameterError("k", f"the consensus panel needs at least {MIN_PANEL} models, got k = {k}")
    if not 1 <= m <= k:
        raise ParameterError("m", f"m = {m} votes cannot come from a panel of k = {k} models "
                             "(need 1 ≤ m ≤ k)")


def _difficulty(pred: np.ndarray, key: np.ndarray, seed: int, progress: bool,
                max_steps: int | None) -> tuple[pd.DataFrame, dict]:
    from mmlu_audit.data.responses import MISSING
    from mmlu_audit.irt import IRTSpec, fit_irt

    graded = np.where(pred == NO_RECORD, MISSING, (pred == key[None, :]).astype(np.int8))
    answered = (graded != MISSING).any(axis=0)
    spec = IRTSpec(model="2pl", b_prior="paper", seed=seed, **AUDIT_STOPPING)
    if max_steps is not None:
        spec = spec.with_(max_steps=max_steps, min_steps=min(spec.min_steps, max_steps))
    fit = fit_irt(graded[:, answered].astype(np.int8), spec, progress=progress)
    out = pd.DataFrame({"b_hat": np.nan, "a_hat": np.nan}, index=np.arange(len(key)))
    out.loc[answered, "b_hat"], out.loc[answered, "a_hat"] = fit.b, fit.a
    seen = (graded != MISSING).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        out["accuracy"] = np.where(seen > 0, (graded == 1).sum(axis=0) / seen, np.nan)
    converged = bool(fit.meta["converged"])
    out["irt_converged"] = converged
    if not converged:
        warnings.warn(f"the 2PL fit did not converge in {fit.meta['steps']} steps; b_hat and a_hat are "
                      "marked irt_converged = False", RuntimeWarning, stacklevel=3)
    return out, {"steps": int(fit.meta["steps"]), "max_steps": int(spec.max_steps),
                 "converged": converged}


@seeded
def run_audit(items_path: str | Path, out: str | Path, responses_path: str | Path | None = None,
              k: int = 10, m: int = 6, seed: int = 0, progress: bool = True,
              max_steps: int | None = None, partition: str | None = None,
              n_boot: int = HOMOGENEITY_DRAWS) -> Path:
    """Run the audit and write ``items.csv``, ``audit.json`` and the manifest into ``out``.

    Parameters
    ----------
    items_path : str or Path
        The benchmark file.
    out : str or Path
        Output folder: new, empty, or an unchanged previous audit output (checked first).
    responses_path : str or Path, optional
        Long table of model answers; adds ``b_hat``, ``a_hat``, ``irt_converged``,
        ``accuracy`` and the consensus columns (needs an ``answer`` on every item).
    k, m : int
        Consensus panel size (at least :data:`MIN_PANEL`, at most the number of models) and
        vote threshold (``1 ≤ m ≤ k``); never clipped.
    seed : int
        Seed of the IRT fit (:func:`mmlu_audit.core.seeds.check_seed`).
    progress : bool
        Show progress bars.
    max_steps : int, optional
        Cap on the 2PL fit's SVI steps (default: the IRT spec's).
    partition : str, optional
        A column of the items file with two levels: adds the joint homogeneity test on the
        fitted difficulties (needs ``responses_path``; see :func:`check_partition`).
    n_boot : int
        Wild cluster bootstrap draws of the homogeneity test.

    Returns
    -------
    Path
        The output folder as given.
    """
    from tqdm.auto import tqdm

    seed = check_seed(seed)
    _check_panel(k, m)
    if partition is not None:
        _check_homogeneity_options(partition, responses_path, n_boot)
    items_path = Path(items_path)
    inputs = (items_path,) + ((Path(responses_path),) if responses_path else ())
    output = _Output(out, "audit", OUTPUT_FILES + (MANIFEST,), inputs)
    try:
        table, meta = _audit(items_path, responses_path, k, m, seed, progress, max_steps, tqdm,
                             partition, n_boot)
        table.to_csv(output.tmp / "items.csv")
        (output.tmp / "audit.json").write_text(json.dumps(meta, indent=1, sort_keys=True, default=str))
    except BaseException:
        output.discard()
        raise
    output.commit()
    return Path(out)


def _check_homogeneity_options(partition, responses_path, n_boot) -> None:
    if not isinstance(partition, str) or not partition.strip():
        raise ParameterError("partition", f"must name a column of the items file, got {partition!r}")
    if partition in _RESERVED_COLUMNS:
        raise ParameterError("partition", f"{partition!r} is one of the audit's own columns "
                             f"({', '.join(_RESERVED_COLUMNS)}); name a column that holds the two levels")
    if not responses_path:
        raise ParameterError("partition", "the homogeneity test regresses the 2PL difficulties, so it "
                             "needs model answers: add --responses")
    if isinstance(n_boot, (bool, np.bool_)) or not isinstance(n_boot, (int, np.integer)) or n_boot < 99:
        raise ParameterError("n_boot", f"must be an integer of at least 99, got {n_boot!r}")


def _audit(items_path: Path, responses_path, k, m, seed, progress, max_steps, tqdm, partition=None,
           n_boot=HOMOGENEITY_DRAWS):
    begin = time.perf_counter()
    bar = tqdm(total=(6 + (partition is not None)) if responses_path else 3, desc="audit",
               disable=not progress)
    items = _canonical_items(read_benchmark(items_path, partition))
    levels = check_partition(items, partition) if partition is not None else None
    if responses_path:  # read before minutes of parsing: a bad file stops the run now
        if (items["key"] < 0).any():
            first = items.loc[items["key"] < 0, "item_id"].iloc[0]
            raise DataError(items_path, f"item {first!r} has no 'answer'; IRT and consensus need a "
                            "key on every item")
        pred, models, responses_sha256 = _read_answers(Path(responses_path), items)
        pred, models = _canonical_models(pred, models)
        if len(models) < MIN_PANEL or k > len(models):
            raise ParameterError("k", f"{Path(responses_path).name} holds {len(models)} model(s); "
                                 f"the audit needs at least {MIN_PANEL} and k = {k} at most that many")
        if levels:  # only answered items get a difficulty: check the levels on them, before the parse
            check_partition(items, partition, answered=(pred != NO_RECORD).any(axis=0))
    bar.update()
    features = benchmark_features(items, progress=progress)
    bar.update()
    columns = ["item_id", "subject", "n_options", "key"] + (["partition"] if levels else [])
    table = items[columns].set_index("item_id")
    table = table.join(features[list(INDICATORS)]).join(capacity_indices(features))
    table = table.join(features[list(FLAGS)])
    # copies are relations between items: no feature sees them; counted without listing the pairs
    copies, pair_counts = duplicate_summary(items, "item_id")
    table = table.join(copies)
    bar.update()
    meta = {"items_file": items_path.name, "items_sha256": items.attrs["sha256"],
            "n_items": int(len(items)), "indicators": list(INDICATORS), "flags": list(FLAGS),
            "n_flag_non_english": int(features["flag_non_english"].sum()),
            "same_stem_pairs": {relation: int(pair_counts[relation]) for relation in RELATIONS},
            "indices": INDEX_DEFINITIONS, "seed": seed,
            "feature_provenance": features.attrs.get("provenance", {})}
    if responses_path:
        key = items["key"].to_numpy()
        difficulty, meta["irt"] = _difficulty(pred, key, seed, progress, max_steps)
        table[difficulty.columns] = difficulty.to_numpy()
        bar.update()
        with np.errstate(invalid="ignore", divide="ignore"):
            accuracy = (pred == key[None, :]).sum(axis=1) / (pred != NO_RECORD).sum(axis=1)
        flags = consensus_flags(pred, key, accuracy, k=k, m=m, n_options=items["n_options"].to_numpy())
        for column in ("panel_choice", "choice_votes", "key_votes", "flagged"):
            table[f"consensus_{column}"] = flags[column].to_numpy()
        blank = (pred == NO_ANSWER).sum(axis=1)
        meta.update(responses_file=Path(responses_path).name,
                    responses_sha256=responses_sha256, n_models=len(models),
                    consensus={"k": int(k), "m": int(m)},
                    no_answer={"total": int(blank.sum()), "rule": "a blank choice, or a letter "
                               "past the item's last option, is graded wrong and casts no vote",
                               "by_model": {name: int(n) for name, n in zip(models, blank, strict=True)
                                            if n}})
        bar.update(2)
        if levels:
            meta["homogeneity"] = _homogeneity(table, levels, partition, seed, n_boot)
            bar.update()
    meta["seconds"] = round(time.perf_counter() - begin, 2)
    bar.close()
    return table, meta


def _checked_pred(pred, models, items: pd.DataFrame) -> tuple[np.ndarray, list[str]]:
    """``pred`` as a checked (models × items) integer matrix and ``models`` as distinct names."""
    pred = np.asarray(pred)
    if pred.ndim != 2 or pred.shape[1] != len(items) or (pred.dtype.kind not in "iu" and pred.size):
        raise DataError("pred", f"expected an integer matrix of one column per item ({len(items)}), "
                        f"got {pred.dtype} of shape {pred.shape}")
    n_options = np.array([len(options) for options in items["options"]])
    bad = (pred < NO_ANSWER) | (pred >= n_options[None, :])
    if bad.any():
        j, i = (int(k) for k in np.argwhere(bad)[0])
        raise DataError("pred", f"row {j}, item {items['item_id'].iat[i]!r}: code {int(pred[j, i])} is "
                        f"neither -2 (no answer), -1 (no record) nor one of its {n_options[i]} options")
    if models is None or isinstance(models, (str, bytes)) or len(models) != pred.shape[0]:
        got = "none" if models is None else (1 if isinstance(models, (str, bytes)) else len(models))
        raise ParameterError("models", f"one name per row of pred ({pred.shape[0]}) is needed, got {got}")
    names = [str(name) for name in models]
    if any(not name.strip() for name in names):
        raise ParameterError("models", "a model name is blank")
    if len(set(names)) != len(names):
        repeated = next(name for name in names if names.count(name) > 1)
        raise ParameterError("models", f"{repeated!r} is used twice; read_answers could not tell the "
                             "rows apart")
    return pred.astype(np.int64), names


def write_benchmark(items: pd.DataFrame, folder: str | Path, pred: np.ndarray | None = None,
                    models=None) -> tuple[Path, Path | None]:
    """Write an item table (and optionally model choices) in the audit's input format.

    Parameters
    ----------
    items : DataFrame
        ``item_id``, ``question``, ``options`` (lists), ``key`` (0-based; -1 = no key, written
        as an empty answer) and optionally ``category``.
    folder : str or Path
        Receives ``items.parquet`` and, with ``pred``, ``answers.parquet``. Like the audit's
        output it must be new, empty or an unchanged previous ``write_benchmark`` folder.
    pred : ndarray of int, shape (J, I), optional
        Chosen options; -2 = no answer (written as an empty choice); -1 = no record (omitted).
    models : sequence of str, optional
        Model names of ``pred``'s rows.

    Returns
    -------
    (items path, answers path or None)

    Raises
    ------
    DataError
        A key that is not an option index or -1; a ``pred`` that is not an integer matrix of one
        row per model and one column per item, or holds a code other than -2, -1 or an option
        index of its item.
    ParameterError
        ``models`` missing, of another length than ``pred``'s rows, or with a blank or repeated
        name (which :func:`read_answers` could not tell apart).
    """
    keys = np.asarray(items["key"])
    if keys.dtype.kind not in "iu" or ((keys < -1) | (keys >= len(_LETTERS))).any():
        raise DataError("items", "key must hold 0-based option indices (or -1 for no key)")
    if pred is not None:
        pred, models = _checked_pred(pred, models, items)
    output = _Output(folder, "write_benchmark", BENCHMARK_FILES + (MANIFEST,))
    try:
        table = pd.DataFrame({"id": items["item_id"].astype(str), "question": items["question"],
                              "options": items["options"].map(list),
                              "answer": [_LETTERS[k] if k >= 0 else None for k in keys]})
        if "category" in items.columns:
            table["subject"] = items["category"].to_numpy()
        table.to_parquet(output.tmp / "items.parquet", index=False)
        if pred is not None:
            rows, cols = np.nonzero(pred != NO_RECORD)
            answers = pd.DataFrame({"model": np.asarray(models, dtype=object)[rows],
                                    "id": items["item_id"].to_numpy()[cols].astype(str),
                                    "choice": [_LETTERS[c] if c >= 0 else "" for c in pred[rows, cols]]})
            answers.to_parquet(output.tmp / "answers.parquet", index=False)
    except BaseException:
        output.discard()
        raise
    output.commit()
    folder = Path(folder)
    return folder / "items.parquet", (folder / "answers.parquet" if pred is not None else None)
