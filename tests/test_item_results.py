"""The item-level download: every item once, in order, with its provenance and no planted truth on
real data."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd

from mmlu_audit.analyses.pipeline import AnalysisInputs, item_results
from mmlu_audit.features import INDICATORS
from mmlu_audit.features.table import FLAGS


def _inputs(source: str, simulated: bool) -> AnalysisInputs:
    rng = np.random.default_rng(0)
    ids = [f"q{k}" for k in range(5)]
    frame = pd.DataFrame({"subject": list("aabbc"), "partition": ["STEM"] * 2 + ["non-STEM"] * 3,
                          "stem": ["x"] * 5, "b_hat": [0.1, np.nan, 0.3, 0.4, 0.5], "b_sd": 0.2,
                          "a_hat": 1.0, "tokens": 10}, index=pd.Index(ids, name="item_id"))
    for column in INDICATORS:
        frame[column] = rng.normal(size=5)
    for column in FLAGS:
        frame[column] = False
    if simulated:
        frame["b_true"], frame["a_true"] = 0.0, 1.0
    return AnalysisInputs(None, None, SimpleNamespace(source=source), None, None, frame)


def test_real_items_carry_their_source_and_no_truth():
    table = item_results(_inputs("helm20", simulated=False))
    assert list(table["item_id"]) == ["q0", "q1", "q2", "q3", "q4"]
    assert list(table.columns[:6]) == ["item_id", "data_source", "subject", "partition", "b_hat", "b_sd"]
    assert set(table["data_source"]) == {"helm20"} and "b_true" not in table and "stem" not in table
    assert set(INDICATORS) | set(FLAGS) <= set(table) and table["b_hat"].isna().sum() == 1


def test_simulated_items_carry_the_planted_truth():
    table = item_results(_inputs("simulated", simulated=True))
    assert {"b_true", "a_true"} <= set(table) and set(table["data_source"]) == {"simulated"}
