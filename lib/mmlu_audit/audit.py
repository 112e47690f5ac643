"""Audit any multiple-choice benchmark: the nine indicators and two item-level capacity indices.

``python -m mmlu_audit audit ITEMS --out DIR [--responses MATRIX]``

ITEMS is a JSONL, CSV or Parquet file with one question per row:

==============  ==========================================================================
column          content
==============  ==========================================================================
``question``    the stem (required, non-empty)
``options``     the options (required): a list (JSONL / Parquet) or a JSON list in a CSV cell;
                2–10 options
``id``          optional item id (default: the row number, from 1)
``subject``     optional; ``category`` is accepted too
``answer``      optional key: a letter A–J or a 0-based index (needed for IRT and consensus)
==============  ==========================================================================

MATRIX (optional) is a long table (JSONL, CSV or Parquet) of model answers with columns
``model``, ``id`` and ``choice`` (letter or 0-based index; empty = no extractable answer,
graded wrong; a letter past the item's last option is graded wrong too). With it the audit
adds a 2PL difficulty per item and the consensus flags (:mod:`mmlu_audit.analyses.consensus`).

The two indices are computable before any model is evaluated, as the audit paper
recommends (see :data:`mmlu_audit.analyses.capacity.INDEX_DEFINITIONS`). The output folder
receives ``items.csv`` and ``audit.json``; a folder that already holds anything else is never touched.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from mmlu_audit.core.seeds import seeded
from mmlu_audit.analyses.consensus import consensus_flags
from mmlu_audit.data.checksums import sha256_of
from mmlu_audit.core.errors import DataError
from mmlu_audit.analyses.capacity import INDEX_DEFINITIONS, capacity_indices
from mmlu_audit.features import INDICATORS, benchmark_features

__all__ = ["read_benchmark", "read_answers", "run_audit", "write_benchmark", "OUTPUT_FILES"]

OUTPUT_FILES = ("items.csv", "audit.json")
MARKER = "audit.json"
_LETTERS = "ABCDEFGHIJ"
_READERS = {".jsonl": "jsonl", ".json": "jsonl", ".csv": "csv", ".parquet": "parquet"}


def _read_table(path: Path) -> tuple[pd.DataFrame, np.ndarray]:
    """The rows of a JSONL / CSV / Parquet file and each row's line number in the file."""
    kind = _READERS.get(path.suffix.lower())
    if kind is None:
        raise DataError(path, f"unsupported file type {path.suffix!r}; use .jsonl, .csv or .parquet")
    if not path.is_file():
        raise DataError(path, "file not found")
    if kind == "parquet":
        try:
            table = pd.read_parquet(path)
        except Exception as exc:  # pyarrow raises several unrelated types for corrupt files
            raise DataError(path, f"not a readable Parquet file ({exc})") from exc
        return table, np.arange(1, len(table) + 1)
    if kind == "csv":
        try:
            table = pd.read_csv(path, dtype=str, keep_default_na=False)
        except (pd.errors.ParserError, UnicodeDecodeError) as exc:
            raise DataError(path, f"not a readable CSV file ({exc})") from exc
        return table, np.arange(2, len(table) + 2)  # line 1 is the header
    rows, lines = [], []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(path, f"line {number}: not valid JSON ({exc.msg})") from exc
            if not isinstance(row, dict):
                raise DataError(path, f"line {number}: expected a JSON object")
            rows.append(row)
            lines.append(number)
    return pd.DataFrame(rows), np.array(lines, dtype=int)


def _options(value, path: Path, line: int) -> list[str]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise DataError(path, f"line {line}, field 'options': not a JSON list ({exc.msg})") from exc
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if not isinstance(value, list) or not all(isinstance(o, str) for o in value):
        raise DataError(path, f"line {line}, field 'options': expected a list of strings")
    if not 2 <= len(value) <= len(_LETTERS):
        raise DataError(path, f"line {line}, field 'options': {len(value)} options; need 2–10")
    return value


def _choice_index(value, n_options: int | None, path: Path, line: int, field: str) -> int:
    """A letter or 0-based index as an option index; -1 for empty."""
    if value is None or (isinstance(value, float) and np.isnan(value)) or value == "":
        return -1
    if isinstance(value, str) and value.strip().upper() in _LETTERS and not value.strip().isdigit():
        index = _LETTERS.index(value.strip().upper())
    else:
        try:
            index = int(str(value).strip())
        except ValueError:
            raise DataError(path, f"line {line}, field {field!r}: {value!r} is neither a letter A–J "
                            "nor a 0-based option index") from None
    if index < 0 or (n_options is not None and index >= n_options):
        raise DataError(path, f"line {line}, field {field!r}: {value!r} is not one of the "
                        f"{n_options} options")
    return index


def read_benchmark(path: str | Path) -> pd.DataFrame:
    """Read and validate a benchmark file (see the module docstring for its columns).

    Returns
    -------
    DataFrame
        ``item_id`` (str), ``subject`` (or ``""``), ``question``, ``options`` (list),
        ``n_options`` and ``key`` (0-based, -1 where no answer is given).

    Raises
    ------
    DataError
        Naming the file, the line and the field of the first malformed row.
    """
    path = Path(path)
    table, lines = _read_table(path)
    if table.empty:
        raise DataError(path, "no rows")
    for field in ("question", "options"):
        if field not in table.columns:
            raise DataError(path, f"missing field {field!r} (fields: {list(table.columns)})")
    subject_field = "subject" if "subject" in table.columns else (
        "category" if "category" in table.columns else None)
    records = []
    for line, row in zip(lines, table.to_dict("records"), strict=True):
        question = row["question"]
        if not isinstance(question, str) or not question.strip():
            raise DataError(path, f"line {line}, field 'question': empty or not text")
        options = _options(row["options"], path, line)
        key = _choice_index(row.get("answer"), len(options), path, line, "answer")
        item_id = row.get("id")
        item_id = str(line if item_id is None or item_id == "" else item_id)
        subject = "" if subject_field is None else str(row.get(subject_field) or "")
        records.append((item_id, subject, question, options, len(options), key, line))
    items = pd.DataFrame(records, columns=["item_id", "subject", "question", "options",
                                           "n_options", "key", "line"])
    dupes = items[items["item_id"].duplicated()]
    if len(dupes):
        first = dupes.iloc[0]
        raise DataError(path, f"line {first['line']}, field 'id': {first['item_id']!r} is used twice")
    return items.drop(columns="line")


def read_answers(path: str | Path, items: pd.DataFrame) -> tuple[np.ndarray, list[str]]:
    """Read a long table of model answers into a (models × items) choice matrix.

    Returns
    -------
    pred : ndarray of int8, shape (J, I)
        Chosen option; -2 = no extractable answer or a letter past the last option (graded
        wrong, no consensus vote); -1 = no record.
    models : list of str
    """
    path = Path(path)
    table, lines = _read_table(path)
    for field in ("model", "id", "choice"):
        if field not in table.columns:
            raise DataError(path, f"missing field {field!r} (fields: {list(table.columns)})")
    position = pd.Series(np.arange(len(items)), index=items["item_id"])
    n_options = items["n_options"].to_numpy()
    models = list(dict.fromkeys(table["model"].astype(str)))
    row_of = {m: j for j, m in enumerate(models)}
    pred = np.full((len(models), len(items)), -1, dtype=np.int8)
    for line, model, item, choice in zip(lines, table["model"].astype(str), table["id"].astype(str),
                                         table["choice"], strict=True):
        if item not in position.index:
            raise DataError(path, f"line {line}, field 'id': {item!r} is not an item of the benchmark")
        column = position[item]
        if pred[row_of[model], column] != -1:
            raise DataError(path, f"line {line}: a second answer of {model!r} to item {item!r}")
        index = _choice_index(choice, None, path, line, "choice")
        # a letter past the item's last option is a real (wrong) answer, not a malformed row
        pred[row_of[model], column] = -2 if index < 0 or index >= n_options[column] else index
    return pred, models


def _check_out(out: Path) -> None:
    """Refuse a folder that holds anything not written by a previous audit."""
    if out.exists() and not out.is_dir():
        raise DataError(out, "exists and is not a folder")
    if out.is_dir():
        present = {p.name for p in out.iterdir()}
        if present and not (MARKER in present and present <= set(OUTPUT_FILES)):
            raise DataError(out, "folder is not empty and is not a previous audit output; "
                            "choose another --out")


def _difficulty(pred: np.ndarray, key: np.ndarray, seed: int, progress: bool) -> pd.DataFrame:
    from mmlu_audit.data.responses import MISSING
    from mmlu_audit.irt import IRTSpec, fit_irt

    graded = np.where(pred == MISSING, MISSING, (pred == key[None, :]).astype(np.int8))
    answered = (graded != MISSING).any(axis=0)
    fit = fit_irt(graded[:, answered].astype(np.int8), IRTSpec(model="2pl", b_prior="paper",
                                                               seed=seed), progress=progress)
    out = pd.DataFrame({"b_hat": np.nan, "a_hat": np.nan}, index=np.arange(len(key)))
    out.loc[answered, "b_hat"], out.loc[answered, "a_hat"] = fit.b, fit.a
    seen = (graded != MISSING).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        out["accuracy"] = np.where(seen > 0, (graded == 1).sum(axis=0) / seen, np.nan)
    return out


@seeded
def run_audit(items_path: str | Path, out: str | Path, responses_path: str | Path | None = None,
              k: int = 10, m: int = 6, seed: int = 0, progress: bool = True) -> Path:
    """Run the audit and write ``items.csv`` and ``audit.json`` into ``out``.

    Parameters
    ----------
    items_path : str or Path
        The benchmark file.
    out : str or Path
        Output folder: created if absent; refused if it holds anything but a previous audit.
    responses_path : str or Path, optional
        Long table of model answers; adds ``b_hat``, ``a_hat``, ``accuracy`` and the
        consensus columns (needs an ``answer`` on every item).
    k, m : int
        Consensus panel size and vote threshold (clipped to the number of models for k).
    seed : int
        Seed of the IRT fit.
    progress : bool
        Show progress bars.
    """
    from tqdm.auto import tqdm

    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise DataError("seed", f"must be an integer, got {seed!r}")
    out, items_path = Path(out), Path(items_path)
    _check_out(out)
    begin = time.perf_counter()
    steps = ["read items", "indicators", "indices"] + (
        ["read responses", "IRT difficulty", "consensus"] if responses_path else []) + ["write"]
    bar = tqdm(total=len(steps), desc="audit", disable=not progress)

    def step(name):
        bar.set_postfix_str(name)

    step(steps[0])
    items = read_benchmark(items_path)
    bar.update()
    step(steps[1])
    features = benchmark_features(items, progress=progress)
    bar.update()
    step(steps[2])
    table = items[["item_id", "subject", "n_options", "key"]].set_index("item_id")
    table = table.join(features[list(INDICATORS)]).join(capacity_indices(features))
    bar.update()
    meta = {"items_file": items_path.name, "items_sha256": sha256_of(items_path),
            "n_items": int(len(items)), "indicators": list(INDICATORS),
            "indices": INDEX_DEFINITIONS, "seed": int(seed),
            "feature_provenance": features.attrs.get("provenance", {})}
    if responses_path:
        step(steps[3])
        if (items["key"] < 0).any():
            first = items.loc[items["key"] < 0, "item_id"].iloc[0]
            raise DataError(items_path, f"item {first!r} has no 'answer'; IRT and consensus need a key "
                            "on every item")
        pred, models = read_answers(responses_path, items)
        bar.update()
        step(steps[4])
        key = items["key"].to_numpy()
        difficulty = _difficulty(pred, key, seed, progress)
        table[difficulty.columns] = difficulty.to_numpy()
        bar.update()
        step(steps[5])
        with np.errstate(invalid="ignore", divide="ignore"):
            accuracy = (pred == key[None, :]).sum(axis=1) / (pred != -1).sum(axis=1)
        panel_k = min(k, len(models))
        flags = consensus_flags(pred, key, accuracy, k=panel_k, m=min(m, panel_k))
        for column in ("panel_choice", "choice_votes", "key_votes", "flagged"):
            table[f"consensus_{column}"] = flags[column].to_numpy()
        meta.update(responses_file=Path(responses_path).name,
                    responses_sha256=sha256_of(responses_path), n_models=len(models),
                    consensus={"k": panel_k, "m": min(m, panel_k)})
        bar.update()
    step(steps[-1])
    meta["seconds"] = round(time.perf_counter() - begin, 2)
    _write_outputs(out, table, meta)
    bar.update()
    bar.close()
    return out


def _write_outputs(out: Path, table: pd.DataFrame, meta: dict) -> None:
    """Write into a temporary sibling, then swap it in: nothing half-written survives."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        table.to_csv(tmp / "items.csv")
        (tmp / MARKER).write_text(json.dumps(meta, indent=1, sort_keys=True, default=str))
        _check_out(out)  # still ours to replace
        if out.exists():
            for name in OUTPUT_FILES:
                (out / name).unlink(missing_ok=True)
            out.rmdir()
        os.replace(tmp, out)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)


def write_benchmark(items: pd.DataFrame, folder: str | Path, pred: np.ndarray | None = None,
                    models=None) -> tuple[Path, Path | None]:
    """Write an item table (and optionally model choices) in the audit's input format.

    Parameters
    ----------
    items : DataFrame
        ``item_id``, ``question``, ``options`` (lists), ``key`` and optionally ``category``.
    folder : str or Path
        Receives ``items.parquet`` and, with ``pred``, ``answers.parquet``.
    pred : ndarray of int, shape (J, I), optional
        Chosen options; -2 = no answer (written as an empty choice); -1 = no record (omitted).
    models : sequence of str, optional
        Model names of ``pred``'s rows.

    Returns
    -------
    (items path, answers path or None)
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    table = pd.DataFrame({"id": items["item_id"].astype(str), "question": items["question"],
                          "options": items["options"].map(list),
                          "answer": [_LETTERS[k] for k in items["key"]]})
    if "category" in items.columns:
        table["subject"] = items["category"].to_numpy()
    items_path = folder / "items.parquet"
    table.to_parquet(items_path, index=False)
    if pred is None:
        return items_path, None
    rows, cols = np.nonzero(pred != -1)
    answers = pd.DataFrame({"model": np.asarray(models, dtype=object)[rows],
                            "id": items["item_id"].to_numpy()[cols].astype(str),
                            "choice": [_LETTERS[c] if c >= 0 else "" for c in pred[rows, cols]]})
    answers_path = folder / "answers.parquet"
    answers.to_parquet(answers_path, index=False)
    return items_path, answers_path
