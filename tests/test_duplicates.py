"""Tests for the between-item duplicate detector (mmlu_audit.features.duplicates)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.features.duplicates import copies_to_fix, duplicate_pairs, normalise_text


def _items():
    return pd.DataFrame({
        "qid": [10, 11, 12, 13, 14, 15],
        "question": ["What is 2+2?", "  what is  2+2? ", "Name a prime.", "Name a prime.",
                     "What is 2+2?", "Unrelated?"],
        "options": [["3", "4", "5"], ["5", "4 ", "3"], ["2", "4", "6", "9"], ["2", "9"],
                    ["4", "22"], ["a", "b"]],
    })


def test_normalise_text():
    assert normalise_text("  A\tB \n c ") == "a b c"


def test_pairs_and_relations_by_hand():
    pairs = duplicate_pairs(_items(), "qid")
    # stem "what is 2+2?": 10, 11, 14 → three pairs; "name a prime.": 12, 13
    got = {(r.first, r.second): (r.relation, r.subset) for r in pairs.itertuples()}
    assert got == {(10, 11): ("same options", None), (10, 14): ("other options", None),
                   (11, 14): ("other options", None), (12, 13): ("nested options", 13)}
    assert pairs[["first", "second"]].to_numpy().tolist() == [[10, 11], [10, 14], [11, 14], [12, 13]]
    ids = _items()["qid"]
    assert copies_to_fix(pairs, ids, "same options").tolist() == [False, True, False, False, False, False]
    assert copies_to_fix(pairs, ids, "nested options").tolist() == [False, False, False, True, False, False]


def test_the_subset_is_named_whichever_comes_first():
    items = pd.DataFrame({"qid": [1, 2], "question": ["Q", "q"], "options": [["x"], ["x", "y"]]})
    assert duplicate_pairs(items, "qid")["subset"].tolist() == [1]


def test_no_pairs_gives_an_empty_table():
    items = pd.DataFrame({"qid": [1, 2], "question": ["a", "b"], "options": [["x"], ["y"]]})
    pairs = duplicate_pairs(items, "qid")
    assert pairs.empty and list(pairs.columns) == ["first", "second", "relation", "subset"]
    assert not copies_to_fix(pairs, [1, 2], "same options").any()


def test_bad_input():
    with pytest.raises(DataError, match="missing column"):
        duplicate_pairs(_items().drop(columns="options"), "qid")
    with pytest.raises(DataError, match="repeats"):
        duplicate_pairs(_items().assign(qid=1), "qid")
    with pytest.raises(ParameterError, match="relation"):
        copies_to_fix(duplicate_pairs(_items(), "qid"), np.arange(3), "other options")


def test_duplicate_columns_name_the_earlier_copy_and_the_larger_set():
    from mmlu_audit.features.duplicates import duplicate_columns

    items = _items()
    table = duplicate_columns(duplicate_pairs(items, "qid"), items["qid"])
    assert table.index.tolist() == [10, 11, 12, 13, 14, 15]
    assert table["duplicate_of"].tolist() == [None, 10, None, None, None, None]
    assert table["options_nested_in"].tolist() == [None, None, None, 12, None, None]
    three = pd.DataFrame({"qid": [1, 2, 3], "question": ["q"] * 3, "options": [["x", "y"]] * 3})
    copies = duplicate_columns(duplicate_pairs(three, "qid"), three["qid"])
    assert copies["duplicate_of"].tolist() == [None, 1, 1]  # each later copy points at the first
