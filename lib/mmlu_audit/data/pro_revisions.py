"""MMLU-Pro's later revisions: the per-item diff of the 2024-10 text against February 2026,
and the maintainers' October-2025 fix lists (``mmlu_pro/revisions/README.md`` in the data root).

The 22 answer keys the maintainers corrected between the 2024 text and August 2025
(``key_text_change_2025_08 == "changed"``; 21 health items from MMLU professional_medicine,
1 biology) are the external ground truth for answer-key flags computed on the 2024 text. The
23rd key-text change (qid 11783, by 2026-02 only) is a notation fix and is not a correction.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from mmlu_audit.core.errors import DataError
from mmlu_audit.core.paths import data_root
from mmlu_audit.data.checksums import read_parquet, staged_manifest, verify_file
from mmlu_audit.data.tables import require_columns, require_unique

__all__ = ["REVISIONS_DIR", "DIFF_FILE", "TEXT_2026_FILE", "FIX_LISTS_FILE", "CHANGE_CLASSES",
           "load_pro_revisions", "load_pro_fix_lists", "validate_revisions", "corrected_keys"]

REVISIONS_DIR = "mmlu_pro/revisions"
DIFF_FILE = f"{REVISIONS_DIR}/diff_vs_test.parquet"
TEXT_2026_FILE = f"{REVISIONS_DIR}/mmlu_pro_test_2026-02.parquet"
FIX_LISTS_FILE = f"{REVISIONS_DIR}/tiger_fixes_2025-10/fix_id_lists.csv"
#: ``change_class`` values, 2024-10 → 2026-02, in the README's order of precedence.
CHANGE_CLASSES = ("removed", "key_text_changed", "question_changed", "options_changed",
                  "options_reordered", "key_index_changed_only", "whitespace_only",
                  "metadata_changed", "identical")
_DIFF_COLUMNS = ("question_id", "category", "src", "in_2026_02", "change_class", "key_text_change",
                 "key_letter_test", "key_letter_2026", "change_class_2025_08",
                 "key_text_change_2025_08", "fix_dup", "fix_redun", "fix_again", "fix_category")
_FIX_LISTS = ("duplicate_question_pairs", "supersets_tuples", "target_question_pairs", "target_ids")


def validate_revisions(diff: pd.DataFrame, source: str | Path = "diff",
                       question_ids=None) -> None:
    """Check the revision table: columns, one row per question, known change classes.

    Parameters
    ----------
    diff : DataFrame
    source : str or Path
        Named in the error.
    question_ids : array-like, optional
        The MMLU-Pro ``question_id`` set the table must cover exactly.

    Raises
    ------
    DataError
        On a missing column, a repeated ``question_id``, an unknown ``change_class``, or a
        question set other than ``question_ids``.
    """
    require_columns(diff, _DIFF_COLUMNS, source)
    require_unique(diff, "question_id", source)
    unknown = sorted(set(diff["change_class"].dropna()) - set(CHANGE_CLASSES))
    if unknown:
        raise DataError(source, f"unknown change_class value(s) {unknown[:3]}")
    if question_ids is not None:
        expected, present = set(map(int, question_ids)), set(map(int, diff["question_id"]))
        if expected != present:
            raise DataError(source, f"{len(expected ^ present)} question_id(s) differ from the "
                            "MMLU-Pro item table")


def load_pro_revisions(items: pd.DataFrame | None = None,
                       root: str | Path | None = None) -> pd.DataFrame:
    """One row per 2024-10 MMLU-Pro question: what changed by 2025-08 and by 2026-02.

    Parameters
    ----------
    items : DataFrame, optional
        From :func:`mmlu_audit.data.mmlu_pro.load_pro_items`; loaded when omitted.
    root : str or Path, optional
        Data root.

    Returns
    -------
    DataFrame
        The staged columns in ``question_id`` order, plus ``item_id`` (``mmlu_pro/<qid>``) and
        ``key_corrected`` (the key text changed by 2025-08: the maintainers' 22 corrections).
    """
    from mmlu_audit.data.mmlu_pro import load_pro_items, pro_item_id

    root = Path(root) if root is not None else data_root()
    items = load_pro_items(root) if items is None else items
    path = root / DIFF_FILE
    diff = read_parquet(path, staged_manifest()[DIFF_FILE])
    validate_revisions(diff, path, items["question_id"])
    diff = diff.sort_values("question_id").reset_index(drop=True)
    diff.insert(0, "item_id", pro_item_id(diff["question_id"]))
    diff["key_corrected"] = diff["key_text_change_2025_08"].eq("changed")
    return diff


def corrected_keys(revisions: pd.DataFrame) -> pd.DataFrame:
    """The rows of the answer keys the maintainers corrected by 2025-08 (22 on the staged data)."""
    return revisions[revisions["key_corrected"]].reset_index(drop=True)


def load_pro_fix_lists(root: str | Path | None = None) -> pd.DataFrame:
    """The maintainers' October-2025 id lists (duplicates, redundant option sets, re-edits, category).

    Returns
    -------
    DataFrame
        ``list``, ``position``, ``qid_first`` (nullable; empty for ``target_ids``),
        ``qid_second``, ``script``; 146 + 111 + 11 + 50 rows on the staged data.

    Raises
    ------
    DataError
        If the file is missing or altered, lacks a column, or names an unknown list.
    """
    root = Path(root) if root is not None else data_root()
    path = verify_file(root / FIX_LISTS_FILE, staged_manifest()[FIX_LISTS_FILE])
    table = pd.read_csv(path, dtype={"qid_first": "Int64", "qid_second": "Int64"})
    require_columns(table, ("list", "position", "qid_first", "qid_second", "script"), path)
    unknown = sorted(set(table["list"]) - set(_FIX_LISTS))
    if unknown:
        raise DataError(path, f"unknown fix list(s) {unknown[:3]}; expected {list(_FIX_LISTS)}")
    return table
