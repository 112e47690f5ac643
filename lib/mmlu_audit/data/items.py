"""Loaders for the MMLU test items and the MMLU-Redux annotations."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pandas as pd

from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.core.paths import data_root
from mmlu_audit.core.taxonomy import SUBJECTS, check_subjects, partition_of
from mmlu_audit.data.checksums import read_parquet, staged_manifest
from mmlu_audit.data.tables import require_columns, require_unique

__all__ = ["ITEM_COLUMNS", "is_blank_text", "load_items", "load_redux", "validate_items", "read_parquet"]

ITEMS_FILE = "mmlu/test.parquet"
REDUX_FILE = "mmlu_redux/annotations.parquet"
ITEM_COLUMNS = (
    "item_id", "subject", "row_index", "question",
    "choice_a", "choice_b", "choice_c", "choice_d", "answer",
)
BENCHMARKS = ("mmlu", "mmlu_pro")


def validate_items(items: pd.DataFrame, source: str | Path = "items",
                   require_all_subjects: bool = True) -> None:
    """Check the item table's schema and content.

    Parameters
    ----------
    items : DataFrame
        Must have :data:`ITEM_COLUMNS`.
    source : str or Path
        Named in the error message.
    require_all_subjects : bool
        Also require every one of the 57 subjects to be present.

    Raises
    ------
    DataError
        On a missing column, duplicate ``item_id``, unknown or missing subject,
        an answer outside A–D, a duplicate ``(subject, row_index)``, an
        ``item_id`` other than ``subject/row_index`` (an item filed under the
        wrong subject), or a question stem that is empty or only whitespace and
        invisible characters.
    """
    require_columns(items, ITEM_COLUMNS, source)
    require_unique(items, "item_id", source)
    check_subjects(items["subject"], str(source))
    if require_all_subjects:
        absent = sorted(set(SUBJECTS) - set(items["subject"]))
        if absent:
            raise DataError(source, f"{len(absent)} subject(s) have no items, e.g. {absent[0]!r}")
    bad_answer = ~items["answer"].isin(list("ABCD"))
    if bad_answer.any():
        first = items.loc[bad_answer, "item_id"].iloc[0]
        raise DataError(source, f"{int(bad_answer.sum())} answer(s) outside A–D, e.g. item {first!r}")
    _check_item_ids(items, source)
    empty = items["question"].map(is_blank_text)
    if empty.any():
        first = items.loc[empty, "item_id"].iloc[0]
        raise DataError(source, f"{int(empty.sum())} empty question stem(s), e.g. item {first!r}")


def is_blank_text(text) -> bool:
    """True for a missing stem or one of only whitespace and invisible format characters (U+200B…)."""
    if not isinstance(text, str):
        return True
    return all(ch.isspace() or unicodedata.category(ch) == "Cf" for ch in text)


def _check_item_ids(items: pd.DataFrame, source) -> None:
    """Each item is ``subject/row_index``, filed under its own subject, one item per row."""
    dupes = items.duplicated(["subject", "row_index"])
    if dupes.any():
        first = items.loc[dupes].iloc[0]
        raise DataError(source, f"{int(dupes.sum())} duplicate row_index value(s), "
                        f"e.g. {first['subject']} row {first['row_index']}")
    prefix = items["item_id"].astype(str).str.rsplit("/", n=1).str[0]
    wrong = prefix != items["subject"].astype(str)
    if wrong.any():
        first = items.loc[wrong].iloc[0]
        raise DataError(source, f"{int(wrong.sum())} item(s) filed under the wrong subject, "
                        f"e.g. {first['item_id']!r} under {first['subject']!r}")
    expected = items["subject"].astype(str) + "/" + items["row_index"].astype(str)
    mismatch = items["item_id"].astype(str) != expected
    if mismatch.any():
        first = items.loc[mismatch].iloc[0]
        raise DataError(source, f"{int(mismatch.sum())} item_id(s) do not match subject/row_index, "
                        f"e.g. {first['item_id']!r} at row {first['row_index']}")


def load_items(root: str | Path | None = None, *, benchmark: str = "mmlu") -> pd.DataFrame:
    """Load the 14,042 MMLU test items in canonical order (subject A–Z, then row).

    Parameters
    ----------
    root : str or Path, optional
        Data root; defaults to :func:`mmlu_audit.core.paths.data_root`. A benchmark name in its
        place is a shortcut: ``load_items("mmlu_pro")``.
    benchmark : {"mmlu", "mmlu_pro"}
        ``"mmlu_pro"`` loads the MMLU-Pro questions instead
        (:func:`mmlu_audit.data.mmlu_pro.load_pro_items`).

    Returns
    -------
    DataFrame
        :data:`ITEM_COLUMNS` plus ``partition`` ("STEM"/"non-STEM") and ``stem`` (bool).
    """
    if isinstance(root, str) and root in BENCHMARKS:  # load_items("mmlu_pro")
        root, benchmark = None, root
    if benchmark not in BENCHMARKS:
        raise ParameterError("benchmark", f"unknown benchmark {benchmark!r}; choose one of {BENCHMARKS}")
    if benchmark == "mmlu_pro":
        from mmlu_audit.data.mmlu_pro import load_pro_items

        return load_pro_items(root)
    root = Path(root) if root is not None else data_root()
    path = root / ITEMS_FILE
    items = read_parquet(path, staged_manifest()[ITEMS_FILE])
    validate_items(items, path)
    items = items.sort_values(["subject", "row_index"], kind="stable").reset_index(drop=True)
    items["partition"] = partition_of(items["subject"])
    items["stem"] = items["partition"].eq("STEM")
    return items


def load_redux(items: pd.DataFrame | None = None, root: str | Path | None = None) -> pd.DataFrame:
    """Load the MMLU-Redux 2.0 annotations joined one-to-one to the items.

    Returns
    -------
    DataFrame
        5,700 rows: the annotation columns plus ``partition`` and ``is_error``
        (any label other than ``ok``).
    """
    root = Path(root) if root is not None else data_root()
    items = load_items(root) if items is None else items
    path = root / REDUX_FILE
    redux = read_parquet(path, staged_manifest()[REDUX_FILE])
    for column in ("item_id", "error_type"):
        if column not in redux.columns:
            raise DataError(path, f"missing column {column!r}")
    unknown = ~redux["item_id"].isin(items["item_id"])
    if unknown.any():
        raise DataError(path, f"{int(unknown.sum())} annotation(s) refer to unknown item ids")
    joined = redux.merge(items[["item_id", "partition"]], on="item_id", how="left",
                         validate="one_to_one")
    joined["is_error"] = joined["error_type"].ne("ok")
    return joined
