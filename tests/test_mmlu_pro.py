"""The staged MMLU-Pro items, 29-model responses and crosswalk, and their STEM partition."""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest

from mmlu_audit import DataError, data_root, load_items, load_responses
from mmlu_audit.core.errors import ParameterError
from mmlu_audit.data.mmlu_pro import (CROSSWALK_FILE, PRO_ITEMS_FILE, PRO_RESPONSES_DIR,
                                      load_crosswalk, load_pro_items, load_pro_panel,
                                      validate_pro_items)
from mmlu_audit.core.taxonomy import (PRO_CATEGORIES, PRO_CATEGORY_PARTITION, mmlu_subject_partition,
                                 pro_partition_of)


@pytest.fixture(scope="module")
def pro_items():
    return load_items("mmlu_pro")


@pytest.fixture(scope="module")
def panel(pro_items):
    return load_pro_panel(pro_items)


def test_items_as_documented(pro_items):
    assert len(pro_items) == 12_032 and pro_items["item_id"].is_unique
    assert pro_items["question_id"].is_monotonic_increasing
    assert pro_items["origin"].value_counts().to_dict() == {
        "ori_mmlu": 6_810, "stemez": 4_083, "theoremQA": 598, "scibench": 541}
    assert pro_items["options"].map(len).value_counts()[10] == 9_982
    assert pro_items.groupby("category").size()["law"] == 1_101
    # qid 3983: the letter is the key, as the repository scores it
    row = pro_items.set_index("question_id").loc[3983]
    assert row["answer"] == "C" and row["key"] == 2 and row["answer_index"] == 1


def test_partition_and_sensitivity_labels(pro_items):
    assert len(PRO_CATEGORIES) == 14 and set(pro_items["category"]) == set(PRO_CATEGORIES)
    assert sorted(c for c, p in PRO_CATEGORY_PARTITION.items() if p == "STEM") == [
        "biology", "chemistry", "computer science", "engineering", "math", "physics"]
    assert pro_items["partition"].value_counts().to_dict() == {"non-STEM": 6_154, "STEM": 5_878}
    mmlu = pro_items[pro_items["origin"].eq("ori_mmlu")]
    # the category partition agrees with MMLU's own label except for health's anatomy items
    disagree = mmlu[mmlu["partition"] != mmlu["mmlu_partition"]]
    assert set(disagree["category"]) == {"health"} and len(disagree) == 79
    assert set(disagree["mmlu_subject"]) == {"anatomy"}
    assert (pro_items.loc[~pro_items["origin"].eq("ori_mmlu"), "mmlu_partition"] == "").all()
    assert mmlu_subject_partition(["ori_mmlu-anatomy", "stemez-Physics"]).tolist() == ["STEM", ""]
    with pytest.raises(DataError, match="unknown MMLU-Pro categor.*'astrology'"):
        pro_partition_of(["math", "astrology"])


def test_responses_reproduce_the_verification_table(pro_items, panel):
    matrix = load_responses("mmlu_pro_tiger29")
    assert matrix.shape == (29, 12_032) and not matrix.simulated
    assert list(matrix.item_ids) == list(pro_items["item_id"])
    accuracy = matrix.accuracy()
    table = pd.read_csv(data_root() / PRO_RESPONSES_DIR / "models.csv").set_index("model_id")
    assert np.allclose(accuracy.to_numpy(), table.loc[accuracy.index, "accuracy"].to_numpy())
    assert round(accuracy["gemini-1.5-pro-002"] * 100, 2) == 70.25
    y = matrix.responses
    assert [(y == v).sum() for v in (1, 0, -1)] == [139_787, 207_136, 2_005]
    # no answer is wrong, a different text of the item is unobserved
    assert (y[(panel.pred == -2) & (panel.item_status != 3)] == 0).all()
    assert (y[panel.item_status == 3] == -1).all()
    assert (panel.comparable_pred()[panel.item_status == 3] == -1).all()
    graded = (y >= 0)
    assert ((panel.pred == pro_items["key"].to_numpy()) == (y == 1))[graded].all()


def test_crosswalk(pro_items):
    walk = load_crosswalk(pro_items)
    assert len(walk) == 6_810
    assert set(walk["question_id"]) == set(pro_items.loc[pro_items.origin.eq("ori_mmlu"), "question_id"])
    assert walk["redux_error_type"].value_counts()["wrong_groundtruth"] == 61
    assert walk["n_mmlu_choices_in_pro"].value_counts()[4] == 6_362
    assert (walk["n_pro_items_same_mmlu"] == 2).sum() == 548
    assert all(len(c) == 4 for c in walk["mmlu_choices_in_pro"])


@pytest.fixture
def pro_root(tmp_path):
    """A writable copy of the MMLU-Pro files."""
    for relative in (PRO_ITEMS_FILE, CROSSWALK_FILE, f"{PRO_RESPONSES_DIR}/responses.npz",
                     f"{PRO_RESPONSES_DIR}/models.csv"):
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(data_root() / relative, tmp_path / relative)
    return tmp_path


def test_altered_files_are_refused(pro_root):
    (pro_root / PRO_ITEMS_FILE).write_bytes(b"not parquet")
    with pytest.raises(DataError, match="test.parquet: checksum mismatch"):
        load_pro_items(pro_root)
    (pro_root / f"{PRO_RESPONSES_DIR}/models.csv").unlink()
    with pytest.raises(DataError, match="models.csv: file not found"):
        load_pro_panel(load_pro_items(data_root()), pro_root)


def _pro_rows():
    return pd.DataFrame({"question_id": [1, 2], "question": ["Why?", "How?"],
                         "options": [["a", "b", "c"], ["x", "y"]], "answer": ["A", "B"],
                         "category": ["math", "law"], "src": ["stemez-Physics", "ori_mmlu-anatomy"]})


@pytest.mark.parametrize("mutate, message", [
    (lambda t: t.drop(columns="src"), r"missing column\(s\) \['src'\]"),
    (lambda t: t.assign(question_id=[1, 1]), "duplicate question_id"),
    (lambda t: t.assign(answer=["A", "C"]), "not among the item's options, e.g. question_id 2"),
    (lambda t: t.assign(options=[[], ["x"]]), "without 1–10 options"),
    (lambda t: t.assign(category=["math", "astrology"]), "unknown categor"),
    (lambda t: t.assign(src=["stemez-Physics", "wiki-x"]), "unknown origin 'wiki-x'"),
    (lambda t: t.assign(question=["Why?", "  "]), "empty question stem"),
])
def test_item_table_problems(mutate, message):
    validate_pro_items(_pro_rows())
    with pytest.raises(DataError, match=message):
        validate_pro_items(mutate(_pro_rows()))


def test_registered_as_a_real_source():
    from mmlu_audit.data import REAL_SOURCES
    from mmlu_audit.worlds.sources import SOURCES

    assert "mmlu_pro_tiger29" in SOURCES
    assert REAL_SOURCES["mmlu_pro_tiger29"].benchmark == "mmlu_pro"
    assert REAL_SOURCES["helm20"].benchmark == "mmlu"
    with pytest.raises(ParameterError, match="unknown benchmark 'gsm8k'"):
        load_items(benchmark="gsm8k")
