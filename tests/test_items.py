"""The staged MMLU items, Redux annotations and the STEM partition."""

import numpy as np
import pytest

from mmlu_audit import STEM_SUBJECTS, SUBJECTS, DataError, is_stem, load_redux, partition_of


def test_items_count_and_order(items):
    assert len(items) == 14_042
    assert items["item_id"].is_unique
    keys = list(zip(items["subject"], items["row_index"], strict=True))
    assert keys == sorted(keys)
    assert items.loc[items.subject == "professional_law", "row_index"].max() == 1533


def test_partition_matches_paper(items):
    counts = items.groupby("partition").agg(n=("item_id", "size"), subjects=("subject", "nunique"))
    assert counts.loc["STEM"].tolist() == [3_153, 19]
    assert counts.loc["non-STEM"].tolist() == [10_889, 38]
    assert len(SUBJECTS) == 57 and len(STEM_SUBJECTS) == 19
    assert "anatomy" in STEM_SUBJECTS  # lm-eval-harness mmlu_stem adds anatomy to the 18


def test_unknown_subject_is_refused():
    with pytest.raises(DataError, match="unknown subject.*'astrology'"):
        is_stem(["anatomy", "astrology"])
    assert partition_of(["anatomy", "sociology"]).tolist() == ["STEM", "non-STEM"]


def test_redux_join(items):
    redux = load_redux(items)
    assert len(redux) == 5_700
    assert redux["item_id"].is_unique
    assert redux["partition"].notna().all()
    assert redux.groupby("subject").size().eq(100).all()
    assert int(redux["is_error"].sum()) == 370
    assert np.isclose(redux["is_error"].mean(), 0.0649, atol=1e-4)
