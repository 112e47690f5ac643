"""MMLU-Pro (Wang et al., 2024): items, the 29-model TIGER-Lab response matrix, the MMLU crosswalk.

All three files are staged and checked against their published sha256 before
they are read (``mmlu_pro/README`` and ``responses/mmlu_pro_tiger29/README.md``
in the data root describe them). Conventions taken from those READMEs:

- the key is the ``answer`` letter (qid 3983 has ``answer`` C but ``answer_index`` 1;
  the repository's scorer and the staged ``Y`` use the letter);
- ``Y`` = -1 where a model has no record of the item *or* saw a different text of it
  (``item_status`` 3); those cells are unobserved, never wrong;
- a record with no extractable answer (``pred`` -2) counts as wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.core.paths import data_root
from mmlu_audit.core.taxonomy import PRO_CATEGORIES, mmlu_subject_partition, pro_partition_of
from mmlu_audit.data.checksums import read_parquet, staged_manifest, verify_file
from mmlu_audit.data.responses import ResponseMatrix
from mmlu_audit.data.tables import require_columns, require_unique

__all__ = ["PRO_ITEMS_FILE", "CROSSWALK_FILE", "PRO_RESPONSES_DIR", "PRO_ITEM_COLUMNS",
           "EXTRA_RESPONSES_DIR", "PANELS", "ORIGINS", "NO_ANSWER", "ProPanel", "load_pro_items",
           "validate_pro_items",
           "load_pro_panel", "load_pro_responses", "load_crosswalk", "pro_item_id", "LETTERS"]

PRO_ITEMS_FILE = "mmlu_pro/test.parquet"
CROSSWALK_FILE = "mmlu_pro/mmlu_crosswalk.parquet"
PRO_RESPONSES_DIR = "responses/mmlu_pro_tiger29"
EXTRA_RESPONSES_DIR = "responses/mmlu_pro_tiger_extra5"
PRO_ITEM_COLUMNS = ("question_id", "question", "options", "answer", "category", "src")
LETTERS = "ABCDEFGHIJ"
#: MMLU-Pro's four origins, as the prefix of ``src``.
ORIGINS = {"ori_mmlu": "original MMLU", "stemez": "STEM websites", "theoremQA": "TheoremQA",
           "scibench": "SciBench"}
NO_ANSWER = -2
#: ``item_status`` codes of ``responses.npz`` (its README): no record, identical, whitespace
#: only, the file's key differs, different text.
STATUS_CODES = (-1, 0, 1, 2, 3)
_CROSSWALK_COLUMNS = ("question_id", "item_id", "subject", "mmlu_choices_in_pro",
                      "n_mmlu_choices_in_pro", "key_is_mmlu_key", "n_pro_items_same_mmlu",
                      "redux_error_type")


def pro_item_id(question_id) -> np.ndarray:
    """The project's item id of an MMLU-Pro question: ``"mmlu_pro/<question_id>"``."""
    return np.char.add("mmlu_pro/", np.asarray(question_id).astype(str))


def validate_pro_items(items: pd.DataFrame, source: str | Path = "items") -> None:
    """Check an MMLU-Pro item table (as stored) for schema and content.

    Raises
    ------
    DataError
        On a missing column, a duplicate ``question_id``, an option list outside 1–10
        entries, a key letter outside the item's options, an unknown category or origin,
        or an empty stem.
    """
    require_columns(items, PRO_ITEM_COLUMNS, source)
    require_unique(items, "question_id", source)
    n_options = items["options"].map(lambda o: len(o) if hasattr(o, "__len__") else -1)
    bad = ~n_options.between(1, len(LETTERS))
    if bad.any():
        raise DataError(source, f"{int(bad.sum())} item(s) without 1–10 options, e.g. question_id "
                        f"{items.loc[bad, 'question_id'].iloc[0]}")
    key = items["answer"].map(lambda a: LETTERS.find(a) if isinstance(a, str) and len(a) == 1 else -1)
    bad = (key < 0) | (key >= n_options)
    if bad.any():
        raise DataError(source, f"{int(bad.sum())} key(s) not among the item's options, e.g. "
                        f"question_id {items.loc[bad, 'question_id'].iloc[0]}")
    unknown = sorted(set(items["category"]) - set(PRO_CATEGORIES))
    if unknown:
        raise DataError(source, f"unknown categor(ies) {unknown[:3]}; expected MMLU-Pro's 14")
    origin = items["src"].astype(str).str.split("-").str[0]
    if not origin.isin(list(ORIGINS)).all():
        first = items.loc[~origin.isin(list(ORIGINS)), "src"].iloc[0]
        raise DataError(source, f"unknown origin {first!r}; expected a prefix in {list(ORIGINS)}")
    stems = items["question"].fillna("").astype(str).str.strip()
    if (stems == "").any():
        first = items.loc[stems == "", "question_id"].iloc[0]
        raise DataError(source, f"{int((stems == '').sum())} empty question stem(s), e.g. "
                        f"question_id {first}")


def load_pro_items(root: str | Path | None = None) -> pd.DataFrame:
    """Load the 12,032 MMLU-Pro test questions in ``question_id`` order.

    Parameters
    ----------
    root : str or Path, optional
        Data root; defaults to :func:`mmlu_audit.core.paths.data_root`.

    Returns
    -------
    DataFrame
        The stored columns plus ``item_id`` (``mmlu_pro/<qid>``), ``key`` (0-based index of
        the ``answer`` letter), ``origin`` (``ori_mmlu``, ``stemez``, ``theoremQA``,
        ``scibench``), ``mmlu_subject`` (the original MMLU subject, or ``""``), ``partition``
        (the category partition of :data:`mmlu_audit.core.taxonomy.PRO_CATEGORY_PARTITION`),
        ``stem`` (bool) and ``mmlu_partition`` (MMLU's own label of the original subject).
    """
    root = Path(root) if root is not None else data_root()
    path = root / PRO_ITEMS_FILE
    items = read_parquet(path, staged_manifest()[PRO_ITEMS_FILE])
    validate_pro_items(items, path)
    items = items.sort_values("question_id", kind="stable").reset_index(drop=True)
    items["options"] = items["options"].map(list)
    items.insert(0, "item_id", pro_item_id(items["question_id"]))
    items["key"] = items["answer"].map(LETTERS.index).astype(np.int8)
    items["origin"] = items["src"].str.split("-").str[0]
    from_mmlu = items["origin"].eq("ori_mmlu")
    items["mmlu_subject"] = np.where(from_mmlu, items["src"].str[len("ori_mmlu-"):], "")
    items["partition"] = pro_partition_of(items["category"])
    items["stem"] = items["partition"].eq("STEM")
    items["mmlu_partition"] = mmlu_subject_partition(items["src"])
    return items


@dataclass(frozen=True)
class ProPanel:
    """The 29-model MMLU-Pro responses with the chosen options kept beside the grades.

    Attributes
    ----------
    matrix : ResponseMatrix
        ``Y`` graded against the staged key; -1 = no record or a different item text.
    pred : ndarray of int8, shape (J, I)
        Chosen option 0–9; -2 no extractable answer; -1 no record.
    item_status : ndarray of int8, shape (J, I)
        -1 no record; 0 identical item; 1 whitespace only; 2 the file's key differs;
        3 different text (``Y`` is -1 there).
    """

    matrix: ResponseMatrix
    pred: np.ndarray
    item_status: np.ndarray

    def comparable_pred(self) -> np.ndarray:
        """``pred`` with cells of another item text (status 3) set to -1 (unobserved)."""
        out = self.pred.copy()
        out[self.item_status == 3] = -1
        return out


#: The staged MMLU-Pro panels: name → response folders stacked in that order.
PANELS = {"tiger29": (PRO_RESPONSES_DIR,), "tiger34": (PRO_RESPONSES_DIR, EXTRA_RESPONSES_DIR)}
_PANEL_TEXT = {
    "tiger29": "Real per-question answers of 29 models on the 12,032 MMLU-Pro test questions "
               "(TIGER-Lab's published 5-shot chain-of-thought runs)",
    "tiger34": "Real per-question answers of 34 models on the 12,032 MMLU-Pro test questions "
               "(TIGER-Lab's 29 published 5-shot chain-of-thought runs plus 5 recovered from the "
               "repository history, among them GPT-4o and Gemini 3.1 Pro)",
}


def _read_panel_folder(root: Path, folder: str, items: pd.DataFrame):
    """(Y, pred, item_status, models) of one staged response folder, checked against the items."""
    manifest = staged_manifest()
    npz_path = verify_file(root / folder / "responses.npz", manifest[f"{folder}/responses.npz"])
    csv_path = verify_file(root / folder / "models.csv", manifest[f"{folder}/models.csv"])
    names = ("Y", "pred", "item_status", "answer", "n_options", "model_ids", "question_id")
    try:
        with np.load(npz_path, allow_pickle=False) as npz:
            y, pred, status, answer, n_options, model_ids, qid = (npz[k] for k in names)
    except (KeyError, ValueError, OSError) as exc:
        raise DataError(npz_path, f"not the expected npz archive ({exc})") from exc
    _check_panel(npz_path, {"Y": y, "pred": pred, "item_status": status}, answer, model_ids, qid)
    if not np.array_equal(qid, items["question_id"].to_numpy()):
        raise DataError(npz_path, "question_id order differs from the MMLU-Pro item table")
    if not np.array_equal(answer, items["key"].to_numpy()):
        raise DataError(npz_path, "answer keys differ from the MMLU-Pro item table")
    if not np.array_equal(n_options, items["n_options"].to_numpy()):
        raise DataError(npz_path, "option counts differ from the MMLU-Pro item table")
    models = pd.read_csv(csv_path)
    if list(models["model_id"]) != list(model_ids):
        raise DataError(csv_path, "model order differs from responses.npz")
    return y.astype(np.int8), pred.astype(np.int8), status.astype(np.int8), models, csv_path


def load_pro_panel(items: pd.DataFrame | None = None, root: str | Path | None = None,
                   panel: str = "tiger29") -> ProPanel:
    """Load a staged MMLU-Pro panel (29 or 34 models × 12,032) and check it against the items.

    Parameters
    ----------
    items : DataFrame, optional
        From :func:`load_pro_items`; loaded when omitted.
    root : str or Path, optional
        Data root.
    panel : {"tiger29", "tiger34"}
        ``"tiger34"`` stacks the 5 models of ``responses/mmlu_pro_tiger_extra5`` (same
        layout, same grading rule) under the 29; model rows keep the folders' order.

    Raises
    ------
    ParameterError
        On an unknown ``panel``.
    DataError
        If a file is missing or altered, an array is absent, the columns, keys or option
        counts disagree with the item table, or the stacked folders' model tables differ in
        columns or share a model.
    """
    if panel not in PANELS:
        raise ParameterError("panel", f"unknown MMLU-Pro panel {panel!r}; choose one of {tuple(PANELS)}")
    root = Path(root) if root is not None else data_root()
    items = load_pro_items(root) if items is None else items
    parts = [_read_panel_folder(root, folder, items) for folder in PANELS[panel]]
    for *_, models, csv_path in parts[1:]:
        if list(models.columns) != list(parts[0][3].columns):
            raise DataError(csv_path, "model table columns differ from the 29-model panel's")
    models = pd.concat([part[3] for part in parts], ignore_index=True)
    if models["model_id"].duplicated().any():
        repeated = models.loc[models["model_id"].duplicated(), "model_id"].iloc[0]
        raise DataError(parts[-1][4], f"model {repeated!r} is already in the panel")
    models["model_idx"] = np.arange(len(models))
    y, pred, status = (np.concatenate([part[k] for part in parts]) for k in range(3))
    matrix = ResponseMatrix(
        y, models, items["item_id"].to_numpy().astype(str), f"mmlu_pro_{panel}", False,
        f"{_PANEL_TEXT[panel]}; no-answer counted wrong, cells where a model saw another text "
        "of the item left unobserved.",
    )
    return ProPanel(matrix, pred, status)


def _check_panel(path: Path, arrays: dict, key: np.ndarray, model_ids, qid) -> None:
    """Refuse float matrices, unknown codes and grades that contradict the choices."""
    for name, values in {**arrays, "answer": key}.items():
        if values.dtype.kind not in "iu":
            raise DataError(path, f"{name} has dtype {values.dtype}; option indices and codes must be "
                            "integers (a float column would be cast silently)")
    shape = (len(model_ids), len(qid))
    for name, values in {**arrays, "answer": key}.items():
        if values.shape != (shape if name != "answer" else shape[1:]):
            raise DataError(path, f"{name} has shape {values.shape} for {shape[0]} models × {shape[1]} questions")
    y, pred, status = arrays["Y"], arrays["pred"], arrays["item_status"]
    observed = y >= 0
    rules = (
        (~np.isin(y, (-1, 0, 1)), "Y outside 1, 0, -1"),
        (~np.isin(status, STATUS_CODES), f"an item_status outside the known codes {STATUS_CODES}"),
        ((pred < NO_ANSWER) | (pred >= len(LETTERS)), f"a pred outside -2, -1 and the options 0–{len(LETTERS) - 1}"),
        ((status == -1) != (pred == -1), "pred and item_status disagree on whether a record exists"),
        (~observed != np.isin(status, (-1, 3)), "Y = -1 on a record of the same text, or a grade where there is no such record"),
        (observed & ((y == 1) != (pred == key[None, :])), "a grade Y that contradicts pred and the key"),
    )
    for bad, problem in rules:
        if bad.any():
            row, col = (int(v[0]) for v in np.nonzero(bad))
            where = f"model row {row} ({model_ids[row]}), question_id {qid[col]}"
            if "pred" in problem or "grade" in problem:
                where += f": Y {y[row, col]}, pred {pred[row, col]}, key {key[col]}, status {status[row, col]}"
            raise DataError(path, f"{int(bad.sum())} cell(s) with {problem}, e.g. {where}")


def load_pro_responses(items: pd.DataFrame | None = None, root: str | Path | None = None,
                       panel: str = "tiger29") -> ResponseMatrix:
    """The graded MMLU-Pro :class:`ResponseMatrix` of a panel (see :func:`load_pro_panel`)."""
    return load_pro_panel(items, root, panel).matrix


def load_crosswalk(items: pd.DataFrame | None = None, root: str | Path | None = None) -> pd.DataFrame:
    """MMLU-Pro's 6,810 MMLU-derived questions matched to MMLU items (and Redux labels).

    Returns
    -------
    DataFrame
        The stored columns plus ``pro_item_id``; ``mmlu_choices_in_pro`` as a list of four
        MMLU-Pro option indices (-1 where MMLU's choice is not among the options) and
        ``redux_error_type`` null where the experts did not review the MMLU item.

    Raises
    ------
    DataError
        If the file is altered, lacks a column, or names a question absent from the items.
    """
    root = Path(root) if root is not None else data_root()
    items = load_pro_items(root) if items is None else items
    path = root / CROSSWALK_FILE
    walk = read_parquet(path, staged_manifest()[CROSSWALK_FILE])
    require_columns(walk, _CROSSWALK_COLUMNS, path)
    unknown = ~walk["question_id"].isin(items["question_id"])
    if unknown.any():
        raise DataError(path, f"{int(unknown.sum())} row(s) name MMLU-Pro questions not in the items")
    if walk["question_id"].duplicated().any():
        raise DataError(path, "duplicate question_id rows")
    walk = walk.copy()
    walk["mmlu_choices_in_pro"] = walk["mmlu_choices_in_pro"].map(lambda v: [int(x) for x in v])
    walk.insert(0, "pro_item_id", pro_item_id(walk["question_id"]))
    return walk.sort_values("question_id").reset_index(drop=True)
