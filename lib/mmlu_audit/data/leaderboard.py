"""Open LLM Leaderboard v1 per-item MMLU results: download, parse, assemble.

The v1 Open LLM Leaderboard (2023 – mid 2024) published, for every evaluated
model, a Hub *dataset* repository ``open-llm-leaderboard-old/details_<org>__<model>``
holding the per-question logs of its runs. This module turns the 5-shot MMLU
logs (task ``harness|hendrycksTest-<subject>|5``, 57 subjects) of many models
into one :class:`~mmlu_audit.data.responses.ResponseMatrix`.

Three steps, each usable on its own:

1. :func:`download_leaderboard` fetches one file per (model, subject) into a
   raw cache, resumably, and slims each to the two things used later (the
   0/1 outcome and the text of the scored question). Nothing is fetched at
   import time; ``huggingface_hub`` is imported only when a download runs.
2. :func:`parse_details_file` reads one file (original or slim) into per-row
   ``(row_index, correct)`` and checks each row's question text against the
   MMLU items.
3. :func:`build_leaderboard_matrix` assembles every model in the raw cache into
   one int8 matrix (missing cells ``-1``) with a models table, written
   atomically by :func:`~mmlu_audit.data.responses.save_matrix`;
   :func:`load_leaderboard` reads it back.

Raw cache layout (written by step 1, read by step 3)::

    <cache_dir>/raw/<org>__<model>/model.json        model id, repo, revision, per-subject source
    <cache_dir>/raw/<org>__<model>/<subject>.parquet one per subject present
    <cache_dir>/matrix/                              save_matrix output

Schema assumptions
------------------
These describe the public repositories as they were archived; each one is
checked when a file is read, and a file that breaks one raises
:class:`~mmlu_audit.core.errors.DataError` naming the file.

* **File names.** Run files are ``<run>/details_harness|hendrycksTest-<subject>|5_<ts>.parquet``
  where ``<ts>`` is an ISO timestamp written with ``:`` (older runs,
  e.g. ``2023-08-19T16:35:46.942696``) or ``-`` (later runs,
  ``2023-09-15T09-53-02.418861``) between time fields. Files found under a
  per-subject config folder ``harness_hendrycksTest_<subject>_5/<split>.parquet``
  (``<split>`` = ``latest`` or ``2023_08_19T16_35_46.942696``, optionally with a
  ``-00000-of-00001`` shard suffix) are also accepted. Timestamps are compared
  after mapping ``:`` and ``_`` to ``-``, so the forms are interchangeable.
  ``revision="latest"`` takes, per subject, the ``latest`` split when present,
  else the newest timestamp; so subjects of one model may come from different
  runs (recorded per subject in ``model.json``).
* **Outcome column.** One of: a flat numeric ``acc`` column (2023 runs); a
  ``metrics`` column holding a struct/dict (or its JSON / Python-literal text)
  with an ``acc`` key (later runs); or, when neither exists, ``predictions``
  (per-choice log-likelihoods, optionally ``[loglik, is_greedy]`` pairs) with
  ``gold_index``, scored as ``argmax == gold``. ``acc`` must be 0 or 1.
* **Row order.** Rows follow the harness's test split for the subject, which is
  the order of Hendrycks' CSVs, so row ``k`` of subject ``s`` is item
  ``f"{s}/{k}"`` and a file has exactly as many rows as the subject has items.
* **Question text.** When ``full_prompt`` (preferred) or ``example`` is a
  string, it ends with the scored question in the harness format
  ``<question>\\nA. <a>\\nB. <b>\\nC. <c>\\nD. <d>\\nAnswer:``, preceded by an
  optional subject header and few-shot blocks ending ``Answer: <letter>\\n\\n``.
  That question (whitespace-collapsed, with its four choices) is compared with
  the item at row ``k``; a row that differs is re-aligned to the item with the
  same text, and a row whose text matches no item is reported as unmatched.
  Rows without parsable text cannot be checked: they stop the build unless
  ``allow_unverified=True`` (``--allow-unverified``) maps them positionally
  ("unverified"), which the matrix's banner then reports.

Evidence for these assumptions: the file-name forms, the colon/hyphen
timestamp spellings and the per-subject configs were read from an archived
details-repo README (``details_meta-llama__Llama-2-7b-hf``); the flat ``acc``
column (with a ``hashes`` struct) in the August 2023 runs from a public script
that reads them. The ``metrics`` struct, the text columns and the prompt format
are taken from the lighteval / harness conventions and were *not* checked
against a downloaded file: the Hub is unreachable from the development machine,
so the loader is tested on fixtures (``tests/fixtures/leaderboard``) that
reproduce the schema described above.
"""

from __future__ import annotations

import ast
import json
import os
import re
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Protocol

import numpy as np
import pandas as pd

from mmlu_audit.core.errors import DataError, MissingDependencyError, cli_status
from mmlu_audit.core.formatting import collapse_whitespace
from mmlu_audit.core.paths import cache_root
from mmlu_audit.core.store import atomic_write, write_json_atomic
from mmlu_audit.core.taxonomy import SUBJECTS
from mmlu_audit.data.responses import MISSING, ResponseMatrix, check_replaceable, load_matrix, save_matrix

__all__ = [
    "DETAILS_ORG",
    "HubClient",
    "build_leaderboard_matrix",
    "canonical_timestamp",
    "details_repo",
    "download_leaderboard",
    "extract_last_question",
    "load_leaderboard",
    "parse_details_file",
    "question_key",
    "select_remote_files",
    "subject_from_filename",
]

DETAILS_ORG = "open-llm-leaderboard-old"
RAW_SUBDIR = "raw"
MATRIX_SUBDIR = "matrix"
#: Where `make data-leaderboard` writes the matrix, relative to the data root.
LEADERBOARD_DIR = "responses/open_llm_leaderboard_v1"
_MODEL_JSON = "model.json"
_SOURCE = "leaderboard"
_TEXT_COLUMNS = ("full_prompt", "example")
_RUN_FILE = re.compile(
    r"details_harness\|hendrycksTest-(?P<subject>[^|/]+)\|5_(?P<ts>[^/]+)\.parquet$")
_CONFIG_FILE = re.compile(
    r"(?:^|/)harness_hendrycksTest_(?P<subject>[A-Za-z_]+)_5/"
    r"(?P<ts>[^/]+?)(?:-\d+-of-\d+)?(?:/\d+)?\.parquet$")
_SLIM_FILE = re.compile(r"^(?P<subject>[A-Za-z_]+)\.parquet$")
_CHOICE_MARKS = ("\nA. ", "\nB. ", "\nC. ", "\nD. ")
_SHOT_END = re.compile(r"Answer: ?[ABCD]\s*\n\s*\n")
_HEADER = re.compile(r"^\s*The following are multiple choice questions[^\n]*\n\s*\n")


# ----------------------------------------------------------------------------- names


def details_repo(model_id: str, org: str = DETAILS_ORG) -> str:
    """Return the details dataset repo of a model, e.g. ``org/details_meta-llama__Llama-2-7b-hf``.

    Raises
    ------
    DataError
        If ``model_id`` is not of the form ``"owner/name"``.
    """
    parts = model_id.strip().split("/")
    if len(parts) != 2 or not all(parts):
        raise DataError(model_id, "model id must look like 'owner/name'")
    return f"{org}/details_{parts[0]}__{parts[1]}"


def _model_dir(model_id: str) -> str:
    owner, name = model_id.strip().split("/")
    return f"{owner}__{name}"


def canonical_timestamp(ts: str) -> str:
    """Map the three timestamp spellings of the archive onto one (``:``/``_`` → ``-``)."""
    return re.sub(r"[:_]", "-", ts.strip())


def _check_subject(subject: str, source: str | Path) -> str:
    if subject not in SUBJECTS:
        raise DataError(source, f"unknown MMLU subject {subject!r} in the file name")
    return subject


def _match_remote(path: str) -> tuple[str, str] | None:
    for pattern in (_RUN_FILE, _CONFIG_FILE):
        hit = pattern.search(path)
        if hit:
            return hit["subject"], canonical_timestamp(hit["ts"])
    return None


def subject_from_filename(name: str | Path) -> tuple[str, str | None]:
    """Return ``(subject, timestamp or None)`` for a details or raw-cache file name.

    Accepts the archive's run files and config-folder files (see the module
    docstring) and the raw cache's ``<subject>.parquet``.

    Raises
    ------
    DataError
        If the name is none of these forms or names an unknown subject.
    """
    text = str(name).replace(os.sep, "/")
    remote = _match_remote(text)
    if remote is not None:
        return _check_subject(remote[0], name), remote[1]
    slim = _SLIM_FILE.match(Path(text).name)
    if slim is None:
        raise DataError(name, "not a 5-shot MMLU details file name "
                        "(expected '<subject>.parquet' or 'details_harness|hendrycksTest-<subject>|5_<ts>.parquet')")
    return _check_subject(slim["subject"], name), None


def select_remote_files(paths: Iterable[str], revision: str = "latest",
                        source: str = "repository") -> dict[str, tuple[str, str]]:
    """Pick one 5-shot MMLU file per subject from a repository listing.

    Parameters
    ----------
    paths : iterable of str
        Every file path in the details repository; non-MMLU files are ignored.
    revision : str
        ``"latest"`` or a run timestamp in any of the archive's spellings.
    source : str
        Named in error messages (the repository id).

    Returns
    -------
    dict
        ``{subject: (remote path, canonical timestamp)}``; subjects without a
        file for ``revision`` are absent.

    Raises
    ------
    DataError
        If a 5-shot MMLU file names an unknown subject.
    """
    found: dict[str, list[tuple[str, str]]] = {}
    for path in paths:
        hit = _match_remote(path)
        if hit is not None:
            subject = _check_subject(hit[0], f"{source}/{path}")
            found.setdefault(subject, []).append((hit[1], path))
    wanted = None if revision == "latest" else canonical_timestamp(revision)
    chosen = {}
    for subject, runs in sorted(found.items()):
        pick = _pick_run(sorted(runs), wanted)
        if pick is not None:
            chosen[subject] = (pick[1], pick[0])
    return chosen


def _pick_run(runs: list[tuple[str, str]], wanted: str | None) -> tuple[str, str] | None:
    if wanted is not None:
        exact = [run for run in runs if run[0] == wanted]
        return exact[-1] if exact else None
    latest = [run for run in runs if run[0] == "latest"]
    return latest[-1] if latest else runs[-1]


# ----------------------------------------------------------------------------- text


def question_key(question: str, choices: Iterable[str]) -> str:
    """Whitespace-insensitive key of a question stem and its four choices."""
    return "\x1f".join([collapse_whitespace(question), *(collapse_whitespace(c) for c in choices)])


def extract_last_question(prompt: str) -> tuple[str, tuple[str, str, str, str]] | None:
    """Return ``(question, (a, b, c, d))`` of the scored question at the end of a prompt.

    Returns None when ``prompt`` is not a string ending in the harness format
    described in the module docstring.
    """
    if not isinstance(prompt, str):
        return None
    body = prompt.rstrip()
    if not body.endswith("Answer:"):
        return None
    body = body[: -len("Answer:")].rstrip("\n ")
    parts = []
    for mark in reversed(_CHOICE_MARKS):
        head, sep, tail = body.rpartition(mark)
        if not sep:
            return None
        parts.append(tail)
        body = head
    shots = list(_SHOT_END.finditer(body))
    question = body[shots[-1].end():] if shots else _HEADER.sub("", body, count=1)
    return question, tuple(reversed(parts))


def _item_keys(items: pd.DataFrame, subject: str) -> list[str]:
    rows = items[items["subject"] == subject].sort_values("row_index")
    choices = rows[["choice_a", "choice_b", "choice_c", "choice_d"]].to_numpy()
    return [question_key(q, c) for q, c in zip(rows["question"], choices)]


def _row_keys(df: pd.DataFrame) -> list[str | None]:
    column = next((c for c in _TEXT_COLUMNS if c in df.columns), None)
    if column is None:
        return [None] * len(df)
    keys = []
    for text in df[column]:
        parsed = extract_last_question(text)
        keys.append(None if parsed is None else question_key(*parsed))
    return keys


# ----------------------------------------------------------------------------- outcomes


def _as_mapping(value, source) -> Mapping:
    if isinstance(value, Mapping):
        return value
    if isinstance(value, str):
        for reader in (json.loads, ast.literal_eval):
            try:
                parsed = reader(value)
            except (ValueError, SyntaxError):
                continue
            if isinstance(parsed, Mapping):
                return parsed
    raise DataError(source, f"'metrics' cell is not a dict/struct (got {type(value).__name__})")


def _acc_from_metrics(column: pd.Series, source) -> np.ndarray:
    values = []
    for cell in column:
        metrics = _as_mapping(cell, source)
        if "acc" not in metrics:
            raise DataError(source, f"'metrics' has no 'acc' key (keys {sorted(metrics)})")
        values.append(metrics["acc"])
    return np.asarray(values, dtype=float)


def _acc_from_predictions(df: pd.DataFrame, source) -> np.ndarray:
    out = np.empty(len(df))
    for k, (pred, gold) in enumerate(zip(df["predictions"], df["gold_index"])):
        scores = np.asarray(list(pred), dtype=float)
        if scores.ndim == 2:
            scores = scores[:, 0]
        gold = np.asarray(gold).ravel()
        if scores.ndim != 1 or gold.size != 1:
            raise DataError(source, f"row {k}: cannot score 'predictions' against 'gold_index'")
        out[k] = float(np.argmax(scores) == _gold(gold[0], scores, k, source))
    return out


def _gold(gold, scores: np.ndarray, k: int, source) -> int:
    """The gold index of row ``k``, checked against finite scores for every choice."""
    if not np.all(np.isfinite(scores)):
        raise DataError(source, f"row {k}: NaN or infinite log-likelihood in 'predictions' {scores.tolist()}")
    if not float(gold).is_integer() or not 0 <= int(gold) < scores.size:
        raise DataError(source, f"row {k}: gold_index {gold} outside 0..{scores.size - 1}")
    return int(gold)


def _binary(values: np.ndarray, source) -> np.ndarray:
    values = np.asarray(values, dtype=float)
    bad = ~np.isin(values, (0.0, 1.0))
    if bad.any():
        shown = sorted({str(v) for v in values[bad]})[:3]
        raise DataError(source, f"{int(bad.sum())} non-binary acc value(s), e.g. {shown}; expected 0 or 1")
    return values.astype(np.int8)


def _correct(df: pd.DataFrame, source) -> np.ndarray:
    if "acc" in df.columns:
        values = pd.to_numeric(df["acc"], errors="coerce").to_numpy(dtype=float)
    elif "metrics" in df.columns:
        values = _acc_from_metrics(df["metrics"], source)
    elif {"predictions", "gold_index"} <= set(df.columns):
        values = _acc_from_predictions(df, source)
    else:
        raise DataError(source, f"unknown details schema: columns {sorted(map(str, df.columns))}; "
                        "expected 'acc', 'metrics' with 'acc', or 'predictions' + 'gold_index'")
    return _binary(values, source)


# ----------------------------------------------------------------------------- parsing


def _read(path_or_df, source=None) -> tuple[pd.DataFrame, str]:
    if isinstance(path_or_df, pd.DataFrame):
        return path_or_df.reset_index(drop=True), str(source or "DataFrame")
    path = Path(path_or_df)
    try:
        return pd.read_parquet(path), str(path)
    except Exception as exc:  # pyarrow raises several unrelated types for bad files
        raise DataError(path, f"not a readable Parquet file ({type(exc).__name__}: {exc})") from exc


def _align(keys: list[str | None], expected: list[str], source) -> tuple[np.ndarray, np.ndarray]:
    """Map file rows to item rows: positional when the text agrees or is absent, else by text."""
    n = len(expected)
    target = np.full(n, MISSING, dtype=np.int64)
    status = np.full(n, "unverified", dtype=object)
    for k, key in enumerate(keys):
        if key is None or key == expected[k]:
            target[k], status[k] = k, ("unverified" if key is None else "verified")
    used = set(target[target >= 0].tolist())
    where: dict[str, list[int]] = {}
    for j, key in enumerate(expected):
        where.setdefault(key, []).append(j)
    for k in np.flatnonzero(target < 0):
        candidates = where.get(keys[k], [])
        free = [j for j in candidates if j not in used]
        if candidates and not free:
            raise DataError(source, f"duplicate rows: row {k} repeats a question already matched "
                            f"to item row(s) {candidates}")
        if free:
            target[k], status[k] = free[0], "realigned"
            used.add(free[0])
        else:
            status[k] = "unmatched"
    return target, status


def _check_unmatched(status: np.ndarray, keys, expected, source, max_unmatched: float) -> None:
    bad = np.flatnonzero(status == "unmatched")
    if len(bad) > max_unmatched * len(status):
        k = int(bad[0])
        shown, wanted = (text.replace("\x1f", " | ")[:80] for text in (keys[k], expected[k]))
        raise DataError(source, f"{len(bad)} of {len(status)} rows match no item's question text "
                        f"(allowed fraction {max_unmatched}); first: row {k} reads "
                        f"{shown!r}, item row {k} is {wanted!r}")


def parse_details_file(path_or_df, subject: str, items: pd.DataFrame | None = None, *,
                       max_unmatched: float = 0.0, allow_unverified: bool = False) -> pd.DataFrame:
    """Read one 5-shot MMLU details file into per-row outcomes.

    Parameters
    ----------
    path_or_df : str, Path or DataFrame
        A details Parquet file (either schema variant, or a slim raw-cache file).
    subject : str
        The MMLU subject the file holds.
    items : DataFrame, optional
        The item table (``load_items()`` or a subset holding ``subject``). When
        given, the row count is checked and rows are aligned by question text.
    max_unmatched : float
        Largest tolerated fraction of rows whose text matches no item; those
        rows get ``row_index = -1``.
    allow_unverified : bool
        Map rows without readable question text by position (status
        ``"unverified"``) instead of stopping.

    Returns
    -------
    DataFrame
        One row per file row: ``row_index`` (item row, ``-1`` if unmatched),
        ``correct`` (int8 0/1) and ``alignment`` (``"verified"``,
        ``"unverified"``, ``"realigned"`` or ``"unmatched"``).

    Raises
    ------
    DataError
        Unknown schema, non-binary ``acc``, invalid prediction scores, unknown
        subject, wrong row count, duplicate rows, too many unmatched rows, or
        rows whose alignment cannot be verified (unless allowed).
    """
    expected = None if items is None else _item_keys(items, subject)
    return _parse(path_or_df, subject, expected, max_unmatched, allow_unverified)


def _parse(path_or_df, subject: str, expected: list[str] | None,
           max_unmatched: float, allow_unverified: bool) -> pd.DataFrame:
    df, source = _read(path_or_df)
    _check_subject(subject, source)
    correct = _correct(df, source)
    keys = _row_keys(df)
    if expected is None:
        status = np.where([k is None for k in keys], "unverified", "unchecked")
        return pd.DataFrame({"row_index": np.arange(len(df)), "correct": correct,
                             "alignment": status})
    if len(df) != len(expected):
        raise DataError(source, f"wrong row count for {subject}: {len(df)} rows, "
                        f"expected {len(expected)} (one per item)")
    target, status = _align(keys, expected, source)
    _check_unmatched(status, keys, expected, source, max_unmatched)
    n_unverified = int((status == "unverified").sum())
    if n_unverified and not allow_unverified:
        raise DataError(source, f"{n_unverified} of {len(status)} rows have no readable question text "
                        f"({' or '.join(_TEXT_COLUMNS)}), so their alignment to the {subject} items "
                        "cannot be verified; pass allow_unverified=True (--allow-unverified) to map "
                        "them by position")
    return pd.DataFrame({"row_index": target, "correct": correct, "alignment": status})


def _slim(path_or_df, subject: str, source) -> pd.DataFrame:
    """Keep what the build needs: ``acc`` (0/1) and the scored question block as ``example``."""
    df, source = _read(path_or_df, source)
    _check_subject(subject, source)
    correct = _correct(df, source)
    column = next((c for c in _TEXT_COLUMNS if c in df.columns), None)
    blocks = [None] * len(df) if column is None else [_question_block(t) for t in df[column]]
    return pd.DataFrame({"acc": correct.astype(np.float64), "example": pd.array(blocks, dtype=object)})


def _question_block(prompt) -> str | None:
    parsed = extract_last_question(prompt)
    if parsed is None:
        return None
    question, choices = parsed
    lines = [question.strip()] + [f"{m.strip()} {c}" for m, c in zip(_CHOICE_MARKS, choices)]
    return "\n".join(lines) + "\nAnswer:"


# ----------------------------------------------------------------------------- download


class HubClient(Protocol):
    """What :func:`download_leaderboard` needs from the Hub (inject a fake in tests)."""

    def list_files(self, repo_id: str) -> list[str]:
        """Return every file path in the dataset repository ``repo_id``."""

    def fetch(self, repo_id: str, path: str, dest_dir: Path) -> Path:
        """Download ``path`` of ``repo_id`` somewhere under ``dest_dir``; return the local file."""


class _HuggingFaceHub:
    """:class:`HubClient` backed by ``huggingface_hub`` (imported on first use)."""

    def __init__(self, token: str | None = None):
        try:
            import huggingface_hub
        except ImportError as exc:
            raise MissingDependencyError(
                "downloading leaderboard details needs `huggingface_hub` "
                "(pip install huggingface_hub)") from exc
        self._hub = huggingface_hub
        self._api = huggingface_hub.HfApi(token=token)
        self._token = token

    def list_files(self, repo_id: str) -> list[str]:
        try:
            return self._api.list_repo_files(repo_id, repo_type="dataset")
        except self._hub.errors.RepositoryNotFoundError as exc:
            raise DataError(repo_id, "details repository not found on the Hub") from exc

    def fetch(self, repo_id: str, path: str, dest_dir: Path) -> Path:
        local = self._hub.hf_hub_download(repo_id, path, repo_type="dataset",
                                          local_dir=dest_dir, token=self._token)
        return Path(local)


def _read_model_json(folder: Path) -> dict:
    target = folder / _MODEL_JSON
    if not target.is_file():
        return {}
    try:
        record = json.loads(target.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DataError(target, f"not valid JSON ({exc})") from exc
    if not isinstance(record, dict):
        raise DataError(target, f"expected a JSON object, got {type(record).__name__}")
    files = record.get("files", {})
    if not isinstance(files, dict) or not all(isinstance(v, dict) for v in files.values()):
        raise DataError(target, "'files' must be an object of {subject: {remote, timestamp}}")
    model_id = record.get("model_id")
    if model_id is not None and not (isinstance(model_id, str) and _is_model_id(model_id)):
        raise DataError(target, f"model_id {model_id!r} must look like 'owner/name'")
    return record


def _is_model_id(text: str) -> bool:
    parts = text.strip().split("/")
    return len(parts) == 2 and all(parts)


def _fetch_slim(hub: HubClient, repo: str, remote: str, subject: str, target: Path) -> None:
    """Download one file, slim it and move it into place; nothing partial is left behind."""
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".fetch-") as tmp:
        local = hub.fetch(repo, remote, Path(tmp))
        slim = _slim(local, subject, f"{repo}/{remote}")
        atomic_write(target, lambda part: slim.to_parquet(part, index=False))


def _download_model(hub: HubClient, model_id: str, raw_dir: Path, revision: str,
                    org: str, resume: bool, bar) -> list[dict]:
    repo = details_repo(model_id, org)
    folder = raw_dir / _model_dir(model_id)
    folder.mkdir(parents=True, exist_ok=True)
    record = _read_model_json(folder) if resume else {}
    record.update(model_id=model_id, details_repo=repo, revision=revision)
    files = record.setdefault("files", {})
    chosen = select_remote_files(hub.list_files(repo), revision, repo)
    rows = []
    for subject in SUBJECTS:
        status = _download_subject(hub, repo, folder, subject, chosen.get(subject), files, resume)
        if status == "downloaded":
            write_json_atomic(folder / _MODEL_JSON, record)
        rows.append({"model_id": model_id, "subject": subject, "status": status,
                     **files.get(subject, {"remote": "", "timestamp": ""})})
        bar.update(1)
    write_json_atomic(folder / _MODEL_JSON, record)
    return rows


def _download_subject(hub, repo, folder, subject, pick, files, resume) -> str:
    target = folder / f"{subject}.parquet"
    if pick is None:
        target.unlink(missing_ok=True)
        files.pop(subject, None)
        return "absent"
    done = files.get(subject, {}).get("remote") == pick[0] and target.is_file()
    if resume and done:
        return "cached"
    _fetch_slim(hub, repo, pick[0], subject, target)
    files[subject] = {"remote": pick[0], "timestamp": pick[1]}
    return "downloaded"


def download_leaderboard(models: Iterable[str], cache_dir: str | Path, *,
                         revision: str | Mapping[str, str] = "latest", token: str | None = None,
                         resume: bool = True, org: str = DETAILS_ORG,
                         hub: HubClient | None = None, progress: bool = True) -> pd.DataFrame:
    """Download the 5-shot MMLU details of ``models`` into ``<cache_dir>/raw``.

    Parameters
    ----------
    models : iterable of str
        Model ids ``"owner/name"`` as on the leaderboard.
    cache_dir : str or Path
        Cache root; files go to ``<cache_dir>/raw/<owner>__<name>/``.
    revision : str or mapping
        ``"latest"`` or a run timestamp, for all models or per model id.
    token : str, optional
        Hub token (the archive is public; only needed for gated mirrors).
    resume : bool
        Skip (model, subject) pairs already in the cache from the same remote
        file; ``False`` downloads everything again.
    org : str
        Hub organisation holding the details repositories.
    hub : HubClient, optional
        Injected client; defaults to one built on ``huggingface_hub``.
    progress : bool
        Show a tqdm bar over models × subjects.

    Returns
    -------
    DataFrame
        One row per (model, subject): ``status`` (``downloaded``, ``cached`` or
        ``absent``), ``remote`` path and ``timestamp``.

    Raises
    ------
    MissingDependencyError
        If ``huggingface_hub`` is needed and not installed.
    DataError
        If a repository is missing or a downloaded file breaks the schema.
    """
    from tqdm import tqdm

    models = list(dict.fromkeys(m.strip() for m in models))
    hub = hub if hub is not None else _HuggingFaceHub(token)
    raw_dir = Path(cache_dir) / RAW_SUBDIR
    rows = []
    with tqdm(total=len(models) * len(SUBJECTS), disable=not progress, unit="file",
              desc="leaderboard details") as bar:
        for model_id in models:
            wanted = revision.get(model_id, "latest") if isinstance(revision, Mapping) else revision
            rows += _download_model(hub, model_id, raw_dir, wanted, org, resume, bar)
    return pd.DataFrame(rows, columns=["model_id", "subject", "status", "remote", "timestamp"])


# ----------------------------------------------------------------------------- build


def _model_files(folder: Path) -> dict[str, Path]:
    files: dict[str, Path] = {}
    for path in sorted(folder.glob("*.parquet")):
        subject, _ = subject_from_filename(path)
        if subject in files:
            raise DataError(path, f"second file for subject {subject!r} "
                            f"(also {files[subject].name}); keep one run per subject")
        files[subject] = path
    return files


def _model_identity(folder: Path) -> dict:
    record = _read_model_json(folder)
    if "__" not in folder.name and "model_id" not in record:
        raise DataError(folder, "model folder must be named '<owner>__<name>' or hold model.json")
    model_id = record.get("model_id") or folder.name.replace("__", "/", 1)
    owner, name = model_id.split("/", 1)
    stamps = sorted(v.get("timestamp", "") for v in record.get("files", {}).values())
    return {"model_id": model_id, "org": owner, "name": name,
            "details_repo": record.get("details_repo", details_repo(model_id)),
            "revision": record.get("revision", ""), "timestamp": stamps[-1] if stamps else ""}


def _fill_model(row: np.ndarray, files: dict[str, Path], keys: dict[str, list[str]],
                offsets: dict[str, int], max_unmatched: float, allow_unverified: bool) -> dict:
    counts = {"n_subjects": len(files), "n_realigned": 0, "n_unmatched": 0, "n_unverified": 0}
    for subject, path in files.items():
        if subject not in offsets:
            raise DataError(path, f"subject {subject!r} is not in the item table")
        parsed = _parse(path, subject, keys[subject], max_unmatched, allow_unverified)
        keep = parsed["row_index"].to_numpy() >= 0
        cols = offsets[subject] + parsed["row_index"].to_numpy()[keep]
        row[cols] = parsed["correct"].to_numpy()[keep]
        for status in ("realigned", "unmatched", "unverified"):
            counts[f"n_{status}"] += int((parsed["alignment"] == status).sum())
    return counts


def _subject_offsets(items: pd.DataFrame) -> dict[str, int]:
    """Column of row 0 of each subject; items must be subject-blocked with rows 0..n-1 in order."""
    offsets = {}
    for subject, block in items.groupby("subject", sort=False):
        start = int(block.index[0])
        rows = block["row_index"].to_numpy()
        if not (np.array_equal(block.index.to_numpy(), start + np.arange(len(block)))
                and np.array_equal(rows, np.arange(len(block)))):
            raise DataError("items", f"items of {subject!r} are not one contiguous block "
                            "ordered by row_index 0..n-1; pass load_items() output")
        offsets[subject] = start
    return offsets


def build_leaderboard_matrix(raw_dir: str | Path, items: pd.DataFrame, out_dir: str | Path, *,
                             models: Iterable[str] | None = None, max_unmatched: float = 0.0,
                             allow_unverified: bool = False) -> ResponseMatrix:
    """Assemble every model folder under ``raw_dir`` into one response matrix.

    Parameters
    ----------
    raw_dir : str or Path
        Folder of ``<owner>__<name>/`` model folders (``<cache_dir>/raw``).
    items : DataFrame
        Item table in canonical order (:func:`~mmlu_audit.data.items.load_items`);
        its row count per subject is the expected row count of each file.
    out_dir : str or Path
        Where the matrix is written (replaced atomically; untouched on error).
    models : iterable of str, optional
        The model ids to include, exactly (other folders in ``raw_dir``, e.g.
        from an earlier download, are left out). Default: every model folder.
    max_unmatched : float
        Per-file tolerated fraction of rows whose text matches no item.
    allow_unverified : bool
        Map rows without question text by position; the count is reported in
        the matrix description (and so in every page's banner).

    Returns
    -------
    ResponseMatrix
        Models (sorted by ``model_id``) × items, ``-1`` where a model lacks a
        subject or a row; ``source="leaderboard"``, ``simulated=False``. The
        models table has ``model_id, org, name, details_repo, revision,
        timestamp, n_subjects, n_observed, accuracy, n_realigned, n_unmatched,
        n_unverified``.

    Raises
    ------
    DataError
        If ``raw_dir`` holds no model folder, a requested model has none, a
        model folder holds no subject file, or any file fails to parse.
    """
    raw_dir = Path(raw_dir)
    items = items.reset_index(drop=True)
    folders = _model_folders(raw_dir, models)
    offsets = _subject_offsets(items)
    keys = {subject: _item_keys(items, subject) for subject in offsets}
    responses = np.full((len(folders), len(items)), MISSING, dtype=np.int8)
    records = []
    for j, folder in enumerate(folders):
        record = _model_identity(folder)
        files = _model_files(folder)
        if not files:
            raise DataError(folder, "no MMLU subject files (an empty or stale model folder)")
        record.update(_fill_model(responses[j], files, keys, offsets, max_unmatched, allow_unverified))
        records.append(record)
    return _save(responses, records, items, Path(out_dir), raw_dir)


def _model_folders(raw_dir: Path, models: Iterable[str] | None) -> list[Path]:
    """The requested models' folders (all of them when ``models`` is None), sorted by name."""
    folders = sorted(p for p in raw_dir.iterdir() if p.is_dir() and not p.name.startswith(".")) \
        if raw_dir.is_dir() else []
    if not folders:
        raise DataError(raw_dir, "no model folders found; run download_leaderboard first")
    if models is None:
        return folders
    wanted = []
    for model_id in dict.fromkeys(m.strip() for m in models):
        details_repo(model_id)  # validates the 'owner/name' form
        folder = raw_dir / _model_dir(model_id)
        if not folder.is_dir():
            raise DataError(raw_dir, f"no raw folder for requested model {model_id!r} "
                            f"(expected {folder.name}/); download it first")
        found = _model_identity(folder)["model_id"]
        if found != model_id:
            raise DataError(folder / _MODEL_JSON, f"holds model {found!r}, not the requested {model_id!r}")
        wanted.append(folder)
    return sorted(wanted)


def _save(responses, records, items, out_dir: Path, raw_dir: Path) -> ResponseMatrix:
    models = pd.DataFrame(records)
    order = np.argsort(models["model_id"].to_numpy(), kind="stable")
    models, responses = models.iloc[order].reset_index(drop=True), responses[order]
    seen = (responses != MISSING).sum(axis=1)
    models["n_observed"] = seen
    with np.errstate(invalid="ignore", divide="ignore"):
        models["accuracy"] = (responses == 1).sum(axis=1) / seen
    columns = ["model_id", "org", "name", "details_repo", "revision", "timestamp", "n_subjects",
               "n_observed", "accuracy", "n_realigned", "n_unmatched", "n_unverified"]
    n_unverified = int(models["n_unverified"].sum())
    description = "Open LLM Leaderboard v1, MMLU 5-shot per-item acc (harness|hendrycksTest-*|5)"
    if n_unverified:
        description += (f"; {n_unverified:,} rows aligned by position without text check "
                         "(no prompt text; built with allow_unverified)")
    matrix = ResponseMatrix(
        responses, models[columns], items["item_id"].to_numpy().astype(str), _SOURCE, False, description,
        {"raw_dir": str(raw_dir), "n_realigned": int(models["n_realigned"].sum()),
         "n_unmatched": int(models["n_unmatched"].sum()), "n_unverified": n_unverified})
    save_matrix(matrix, out_dir)
    return matrix


def load_leaderboard(cache_dir: str | Path | None = None) -> ResponseMatrix:
    """Load the matrix built by :func:`build_leaderboard_matrix`.

    Parameters
    ----------
    cache_dir : str or Path, optional
        Either the matrix folder itself (it holds ``manifest.json``) or a cache
        root whose ``matrix/`` subfolder holds it. Defaults to
        ``cache_root() / "leaderboard"``; it is only read, so it may be read-only.

    Raises
    ------
    DataError
        If the matrix is absent, fails its checksums or is not a leaderboard matrix.
    """
    root = Path(cache_dir) if cache_dir is not None else cache_root(writable=False) / "leaderboard"
    folder = root if (root / "manifest.json").is_file() else root / MATRIX_SUBDIR
    if not folder.is_dir():
        raise DataError(folder, "no leaderboard matrix; run download_leaderboard then "
                        "build_leaderboard_matrix(raw_dir, load_items(), this folder)")
    matrix, _ = load_matrix(folder)
    if matrix.source != _SOURCE or matrix.simulated:
        raise DataError(folder, f"holds source {matrix.source!r} (simulated={matrix.simulated}), "
                        "not the real leaderboard matrix")
    return matrix


# ----------------------------------------------------------------------------- command line


def _read_model_list(path: Path) -> list[str]:
    if not path.is_file():
        raise DataError(path, "model list not found (one 'owner/name' per line, '#' comments)")
    lines = (line.split("#", 1)[0].strip() for line in path.read_text().splitlines())
    models = [line for line in lines if line]
    if not models:
        raise DataError(path, "model list is empty")
    return models


def _parser():
    import argparse


    parser = argparse.ArgumentParser(
        prog="python -m mmlu_audit.data.leaderboard",
        description="Download Open LLM Leaderboard v1 MMLU details and build the response matrix.")
    parser.add_argument("--models", type=Path, required=True, help="file with one model id per line")
    parser.add_argument("--cache", type=Path, default=None,
                        help="raw download cache (default: <cache_root>/leaderboard)")
    parser.add_argument("--out", type=Path, default=None,
                        help=f"matrix folder (default: <data_root>/{LEADERBOARD_DIR})")
    parser.add_argument("--revision", default="latest", help="'latest' or a run timestamp")
    parser.add_argument("--no-resume", action="store_true", help="download every file again")
    parser.add_argument("--max-unmatched", type=float, default=0.0,
                        help="per-file tolerated fraction of rows whose text matches no item")
    parser.add_argument("--allow-unverified", action="store_true",
                        help="map rows without prompt text by position (reported in the banner)")
    return parser


def main(argv: list[str] | None = None, *, hub: HubClient | None = None,
         items: pd.DataFrame | None = None) -> int:
    """Command line: download the listed models, then build the matrix (``make data-leaderboard``).

    ``hub`` and ``items`` are injection points for tests; the defaults are the
    Hugging Face Hub and :func:`~mmlu_audit.data.items.load_items`. Bad input, a missing
    dependency or an OS error is one line on stderr and exit status 2; Ctrl-C is exit 130
    (:func:`~mmlu_audit.core.errors.cli_status`).
    """
    from mmlu_audit.core.paths import data_root
    from mmlu_audit.data.items import load_items

    args = _parser().parse_args(argv)

    def body() -> int:
        cache = args.cache or cache_root() / "leaderboard"
        out = args.out or data_root() / LEADERBOARD_DIR
        models = _read_model_list(args.models)
        check_replaceable(out)  # before hours of downloading, not after
        report = download_leaderboard(models, cache, revision=args.revision,
                                      resume=not args.no_resume, hub=hub)
        matrix = build_leaderboard_matrix(cache / RAW_SUBDIR, load_items() if items is None else items,
                                          out, models=models, max_unmatched=args.max_unmatched,
                                          allow_unverified=args.allow_unverified)
        counts = report["status"].value_counts().to_dict()
        print(f"{matrix.banner}\nfiles: {counts}; written to {out}")
        return 0

    return cli_status("leaderboard", body)


if __name__ == "__main__":
    raise SystemExit(main())
