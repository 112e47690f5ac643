"""The staged sources of issue 17: Open LLM Leaderboard v1 × 102 items, its aggregates, the
34-model MMLU-Pro panel and the MMLU-Pro revision table, with their bad-input errors."""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest

from mmlu_audit import DataError, data_root, load_items, load_responses
from mmlu_audit.core.errors import ParameterError
from mmlu_audit.data.mmlu_pro import EXTRA_RESPONSES_DIR, PRO_RESPONSES_DIR, load_pro_panel
from mmlu_audit.data.openllm import (AGGREGATES_FILE, OPENLLM_DIR, load_openllm_aggregates,
                                     load_openllm_items, load_openllm_mmlu102,
                                     validate_aggregates, validate_openllm_items)
from mmlu_audit.data.pro_revisions import (DIFF_FILE, FIX_LISTS_FILE, corrected_keys,
                                           load_pro_fix_lists, load_pro_revisions,
                                           validate_revisions)
from mmlu_audit.data.registry import REAL_SOURCES


@pytest.fixture(scope="module")
def openllm():
    return load_openllm_mmlu102()


def test_openllm_matrix_as_documented(openllm):
    y = openllm.responses
    assert openllm.shape == (4_278, 102) and not openllm.simulated
    assert [(y == v).sum() for v in (1, 0, -1)] == [267_944, 168_412, 0]
    assert pd.DataFrame(y).duplicated().sum() == 1_155
    models = openllm.models
    assert np.corrcoef(y.mean(axis=1), models["lb_mmlu"])[0, 1] == pytest.approx(0.978, abs=5e-4)
    assert np.corrcoef(models["theta"], models["lb_mmlu"])[0, 1] == pytest.approx(0.929, abs=5e-4)
    assert "SELECTED" in openllm.banner and "1,155" in openllm.banner


def test_openllm_items_carry_mirt_in_both_forms():
    items = load_openllm_items()
    assert len(items) == 102 and items["is_stem"].sum() == 18
    assert (items["a1"] < 0).sum() == 5
    assert np.median(items["a1"]) == pytest.approx(6.2, abs=0.05)
    # hand conversion of the first item, from the README's slope-intercept form
    first = items.iloc[0]
    assert first["item_id"] == "high_school_mathematics/87"
    assert first["b"] == pytest.approx(-first["d"] / first["a1"])
    assert first["c"] == pytest.approx(1 / (1 + np.exp(-first["g_logit"])))
    assert set(items["item_id"]) <= set(load_items()["item_id"])


def test_openllm_registered_and_aligned_like_the_others():
    assert REAL_SOURCES["openllm_v1_mmlu102"].benchmark == "mmlu"
    items = load_items()
    subset = items[items["item_id"].isin(load_openllm_items()["item_id"])]
    matrix = load_responses("openllm_v1_mmlu102", items=subset)
    assert matrix.shape == (4_278, 102) and list(matrix.item_ids) == list(subset["item_id"])
    assert (matrix.responses >= 0).all()


def test_aggregates_undo_the_documented_encodings():
    table = load_openllm_aggregates()
    assert len(table) == 6_986 and table["name"].is_unique
    assert table["complete"].sum() == 5_133
    assert table["moe"].sum() == 166
    assert table["truthfulqa"].isna().sum() == 1_650 + 72  # missing plus the 0.0 that means NaN
    assert table["size"].isna().sum() == 574 and (table["size"].dropna() > 0).all()
    assert "merged" not in table.columns  # a loader default with no information


def test_tiger34_stacks_the_five_under_the_29():
    p29, p34 = load_pro_panel(panel="tiger29"), load_pro_panel(panel="tiger34")
    assert p34.matrix.shape == (34, 12_032) and p34.matrix.source == "mmlu_pro_tiger34"
    assert np.array_equal(p34.matrix.responses[:29], p29.matrix.responses)
    assert list(p34.matrix.models["model_id"][29:]) == [
        "gpt-4o", "deepseek-chat", "gemini-3.1-pro-preview", "Meta-Llama-3-8B-Instruct",
        "llama-3-8b-quantized"]
    accuracy = p34.matrix.accuracy()
    assert round(accuracy["gpt-4o"] * 100, 1) == 72.3
    assert round(accuracy["gemini-3.1-pro-preview"] * 100, 1) == 85.7
    assert load_responses("mmlu_pro_tiger34").shape == (34, 12_032)
    assert load_responses("mmlu_pro_tiger29").shape == (29, 12_032)
    with pytest.raises(ParameterError, match="unknown MMLU-Pro panel 'tiger99'"):
        load_pro_panel(panel="tiger99")


def test_revision_table_holds_the_22_corrections():
    revisions = load_pro_revisions()
    assert len(revisions) == 12_032
    fixed = corrected_keys(revisions)
    assert len(fixed) == 22
    assert fixed["category"].value_counts().to_dict() == {"health": 21, "biology": 1}
    assert {6248, 6249, 3011} <= set(fixed["question_id"])
    assert 11783 not in set(fixed["question_id"])  # a notation fix, by 2026-02 only
    assert revisions["fix_dup"].sum() == 146 and revisions["fix_redun"].sum() == 111
    lists = load_pro_fix_lists()
    assert lists["list"].value_counts().to_dict() == {
        "duplicate_question_pairs": 146, "supersets_tuples": 111, "target_ids": 50,
        "target_question_pairs": 11}


@pytest.fixture
def staged_copy(tmp_path):
    """A writable copy of the new staged files (and the item tables they are checked against)."""
    names = [f"{OPENLLM_DIR}/{n}" for n in ("responses.npz", "models.csv", "items.csv")]
    names += [AGGREGATES_FILE, DIFF_FILE, FIX_LISTS_FILE, "mmlu_pro/test.parquet"]
    names += [f"{folder}/{n}" for folder in (PRO_RESPONSES_DIR, EXTRA_RESPONSES_DIR)
              for n in ("responses.npz", "models.csv")]
    for relative in names:
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(data_root() / relative, tmp_path / relative)
    return tmp_path


@pytest.mark.parametrize("relative, load", [
    (f"{OPENLLM_DIR}/responses.npz", load_openllm_mmlu102),
    (f"{OPENLLM_DIR}/models.csv", load_openllm_mmlu102),
    (f"{OPENLLM_DIR}/items.csv", load_openllm_items),
    (AGGREGATES_FILE, load_openllm_aggregates),
    (f"{EXTRA_RESPONSES_DIR}/models.csv", lambda root: load_pro_panel(root=root, panel="tiger34")),
    (DIFF_FILE, lambda root: load_pro_revisions(root=root)),
    (FIX_LISTS_FILE, load_pro_fix_lists),
])
def test_altered_or_missing_files_are_named(staged_copy, relative, load):
    path = staged_copy / relative
    path.write_bytes(path.read_bytes()[:-7] + b"garbage")
    with pytest.raises(DataError, match=f"{path.name}: checksum mismatch"):
        load(staged_copy)
    path.unlink()
    with pytest.raises(DataError, match=f"{path.name}: file not found"):
        load(staged_copy)


def test_openllm_item_table_problems():
    items = load_openllm_items()
    validate_openllm_items(items)
    with pytest.raises(DataError, match=r"items.csv: missing column\(s\) \['g_logit'\]"):
        validate_openllm_items(items.drop(columns="g_logit"), "items.csv")
    bad = items.assign(b=items["b"].where(items.index != 3, 0.0))
    with pytest.raises(DataError, match="1 item.*b is not the documented conversion"):
        validate_openllm_items(bad)
    with pytest.raises(DataError, match="duplicate item_id"):
        validate_openllm_items(items.assign(item_id=items["item_id"].iloc[0]))


def test_aggregate_table_problems():
    rows = pd.DataFrame({"name": ["a/x", "b/y"], "complete": [True, True], "avg": [50.0, 60.0],
                         **{c: [50.0, 60.0] for c in ("arc", "hellaswag", "mmlu", "truthfulqa",
                                                      "winogrande", "gsm8k")},
                         "moe": [False, False], "precision": ["float16", "bfloat16"],
                         "nparams": ["7B", "error"], "arch": ["X", "Y"], "size": [7.0, -1.0]})
    validate_aggregates(rows)
    with pytest.raises(DataError, match="agg.csv: 1 mmlu value.*model 'b/y'"):
        validate_aggregates(rows.assign(mmlu=[50.0, 160.0]), "agg.csv")
    with pytest.raises(DataError, match="1 gsm8k value.*not a score"):
        validate_aggregates(rows.assign(gsm8k=["50", "n/a"]))
    with pytest.raises(DataError, match="duplicate name"):
        validate_aggregates(rows.assign(name=["a/x", "a/x"]))


def test_revision_table_problems():
    revisions = load_pro_revisions()
    with pytest.raises(DataError, match="diff: unknown change_class value.*'renamed'"):
        validate_revisions(revisions.assign(change_class="renamed"), "diff")
    with pytest.raises(DataError, match="1 question_id.*differ from the MMLU-Pro item table"):
        validate_revisions(revisions.iloc[1:], "diff", revisions["question_id"])
