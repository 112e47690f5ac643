"""Tests for model identity: repo-id normalisation, distinct checkpoints, family and size."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mmlu_audit.core.errors import DataError
from mmlu_audit.core.checkpoints import (
    distinct_checkpoints,
    family_labels,
    family_size_table,
    first_of_each_checkpoint,
    normalise_repo_id,
    parse_family_size,
)

NAMES = Path(__file__).parent / "fixtures" / "leaderboard_model_names.csv"


@pytest.fixture(scope="module")
def expected() -> pd.DataFrame:
    return pd.read_csv(NAMES, keep_default_na=False, na_values={"size_b": [""]})


# ----------------------------------------------------------------------------- ids


@pytest.mark.parametrize("raw, canonical", [
    (" Meta-Llama/Llama-2-7b-hf ", "meta-llama/llama-2-7b-hf"),
    ("meta-llama/Llama-2-7b-hf@main", "meta-llama/llama-2-7b-hf"),
    ("TheBloke/Llama-2-13B-fp16@3f2a1b", "thebloke/llama-2-13b-fp16"),
    ("details_tiiuae__falcon-7b", "tiiuae/falcon-7b"),
    ("open-llm-leaderboard-old/details_01-ai__Yi-34B", "01-ai/yi-34b"),
    ("https://huggingface.co/datasets/open-llm-leaderboard/details_Qwen__Qwen-7B",
     "qwen/qwen-7b"),
    ("https://huggingface.co/mistralai/Mistral-7B-v0.1/", "mistralai/mistral-7b-v0.1"),
    ("alpha-org__Alpha-7B", "alpha-org/alpha-7b"),
    ("gpt2", "gpt2"),
])
def test_normalise_repo_id(raw, canonical):
    assert normalise_repo_id(raw) == canonical


# ----------------------------------------------------------------------------- checkpoints


def test_identical_vectors_are_grouped():
    y = np.array([[1, 0, -1], [1, 0, -1], [1, 0, 0], [0, 1, 1]], dtype=np.int8)
    labels = distinct_checkpoints(y, ["a/x", "b/y", "c/z", "d/w"])
    assert labels.tolist() == [0, 0, 1, 2]


def test_missing_pattern_distinguishes_vectors():
    y = np.array([[1, -1], [1, 0]], dtype=np.int8)
    assert distinct_checkpoints(y, ["a/x", "b/y"]).tolist() == [0, 1]


def test_same_normalised_id_is_grouped():
    y = np.array([[1, 0], [0, 1], [1, 1]], dtype=np.int8)
    labels = distinct_checkpoints(y, ["Org/Model", "org/model@main", "other/model"])
    assert labels.tolist() == [0, 0, 1]


def test_union_is_transitive():
    # 0 ~ 1 by id, 1 ~ 2 by responses, 2 ~ 3 by id: one group; 4 stands alone.
    y = np.array([[1, 1], [0, 0], [0, 0], [1, 0], [0, 1]], dtype=np.int8)
    ids = ["a/m", "A/M@main", "b/n", "details_b__n", "c/o"]
    assert distinct_checkpoints(y, ids).tolist() == [0, 0, 0, 0, 1]


def test_all_missing_rows_are_not_merged_by_responses():
    y = np.array([[-1, -1], [-1, -1]], dtype=np.int8)
    assert distinct_checkpoints(y, ["a/x", "b/y"]).tolist() == [0, 1]
    assert distinct_checkpoints(y, ["a/x", "b/y"], min_observed=0).tolist() == [0, 0]


def test_checkpoint_shape_mismatch_is_refused():
    with pytest.raises(DataError, match="does not match 3 model ids"):
        distinct_checkpoints(np.zeros((2, 4), dtype=np.int8), ["a/x", "b/y", "c/z"])


# ----------------------------------------------------------------------------- family and size


def test_fixture_has_enough_real_names(expected):
    assert len(expected) >= 40 and expected["model_id"].is_unique


def test_family_and_size_of_leaderboard_names(expected):
    got = family_size_table(expected["model_id"])
    assert got["model_id"].tolist() == expected["model_id"].tolist()
    wrong_family = expected.loc[got["family"] != expected["family"], "model_id"].tolist()
    assert wrong_family == []
    np.testing.assert_allclose(got["size_b"], expected["size_b"], rtol=1e-9, equal_nan=True)
    assert got["size_label"].tolist() == expected["size_label"].tolist()


@pytest.mark.parametrize("name, family, size", [
    ("meta-llama/Llama-2-7b-hf", "llama-2", 7.0),
    ("mistralai/Mixtral-8x7B-v0.1", "mixtral", 46.7),
    ("EleutherAI/pythia-70m-deduped", "pythia", 0.07),
    ("tiiuae/falcon-180B", "falcon", 180.0),
    ("WizardLM/WizardLM-70B-V1.0", "llama-2", 70.0),
    ("sim-org/llama-2.8b-ft0012", "llama", 2.8),
    ("sim-mirror1/qwen2-0.41b-ft0007", "qwen2", 0.41),
    ("mistralai/mathstral-7B", "mistral", 7.0),
])
def test_parse_family_size(name, family, size):
    got_family, got_size = parse_family_size(name)
    assert got_family == family and math.isclose(got_size, size)


@pytest.mark.parametrize("name", ["", "   ", "no-digits-here", "x/y/z", "org/7", 42, "@@@"])
def test_unknown_names_never_raise(name):
    family, size = parse_family_size(name)
    assert family == "unknown" and math.isnan(size)


def test_group_column(expected):
    table = family_size_table(["meta-llama/Llama-2-7b-hf", "TheBloke/Llama-2-7B-fp16",
                               "mistralai/Mixtral-8x7B-v0.1", "Deci/DeciLM-7B", "google/flan-t5-xxl"])
    assert table["group"].tolist() == ["llama-2-7b", "llama-2-7b", "mixtral-8x7b",
                                       "unknown", "unknown"]
    assert table["size_b"].dtype == float
    full = family_size_table(expected["model_id"])
    assert (full["group"] == "unknown").sum() == (
        (expected["family"] == "unknown") | expected["size_b"].isna()).sum()


def test_checkpoint_labels_use_the_recorded_checkpoints_else_infer_them():
    from mmlu_audit.core.checkpoints import checkpoint_labels

    responses = np.array([[1, 0], [1, 0], [0, 1]], dtype=np.int8)
    recorded = pd.DataFrame({"model_id": ["a/x", "b/y", "c/z"], "checkpoint": [7, 3, 7]})
    assert checkpoint_labels(responses, recorded).tolist() == [0, 1, 0]  # the record, not the responses
    inferred = pd.DataFrame({"model_id": ["a/x", "b/y", "c/z"]})
    assert checkpoint_labels(responses, inferred).tolist() == [0, 0, 1]  # identical rows 0 and 1
    with pytest.raises(DataError, match="checkpoint or a model_id"):
        checkpoint_labels(responses, pd.DataFrame({"name": ["a", "b", "c"]}))


def test_family_labels_join_named_families_and_copies_and_keep_unknowns_apart():
    models = pd.DataFrame({"model_id": ["Meta-Llama-3-8B", "Meta-Llama-3_1-70B-Instruct",
                                        "gemini-1.5-pro-002", "gemini-3.1-pro-preview",
                                        "gpt-4o", "jamba-1.5-large", "jamba-copy", "Yi-6B"]})
    responses = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 1], [1, 1, 0],
                          [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 1, 0]], dtype=np.int8)
    labels = family_labels(responses, models)
    # by hand: llama-3 ×2, gemini ×2, gpt-4o alone, jamba + its identical-response copy, yi alone
    assert labels.tolist() == [0, 0, 1, 1, 2, 3, 3, 4]
    assert family_labels(responses[:1], models.iloc[:1]).tolist() == [0]


def test_first_of_each_checkpoint_marks_each_labels_lowest_row():
    labels = np.array(["b", "a", "b", "c", "a", "a"])  # unsorted labels, copies before and after
    first = first_of_each_checkpoint(labels)
    assert first.dtype == bool and first.tolist() == [True, True, False, True, False, False]
    assert sorted(labels[first]) == sorted(set(labels))  # every checkpoint, once
    assert first_of_each_checkpoint(np.array([], dtype=int)).shape == (0,)
