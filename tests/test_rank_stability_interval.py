"""The top-k displacement's interval to read: the hull of the exact and the subject-block intervals."""

from __future__ import annotations

import pytest

from mmlu_audit.analyses.modelside import displacement_exact_interval, displacement_interval


@pytest.mark.parametrize("boot", [{"low": 0.1, "high": 0.3}, {"low": 0.0, "high": 0.9},
                                  {"low": 0.2, "high": 0.2}])
def test_the_interval_holds_both_intervals(boot):
    exact = displacement_exact_interval(0.2, 10)
    low, high = displacement_interval(0.2, 10, boot)
    assert low == min(exact[0], boot["low"]) and high == max(exact[1], boot["high"])
    assert low <= exact[0] and high >= exact[1] and low <= boot["low"] and high >= boot["high"]
