"""One model under two prompts: gpt-4-1106-preview as HELM and as RouteLLM ran it."""

from __future__ import annotations

import numpy as np
import pytest

from mmlu_audit import DataError
from mmlu_audit.analyses.prompt_effect import PROMPT_PAIR, compare_outcomes, prompt_effect
from mmlu_audit.core.errors import ParameterError


@pytest.fixture(scope="module")
def effect():
    return prompt_effect(seed=7, n_boot=500)


def test_the_pair_is_one_model_named_by_two_releases():
    assert PROMPT_PAIR == (("HELM", "openai_gpt-4-1106-preview"), ("RouteLLM", "gpt-4-1106-preview"))


def test_real_counts_add_up(effect):
    n = effect["n_items"]
    assert 14_000 <= n <= 14_015  # HELM saw 14,015 items, RouteLLM 14,029
    discordant = effect["helm_right_routellm_wrong"] + effect["helm_wrong_routellm_right"]
    assert round(effect["agreement"] * n) + discordant == n
    gap = (effect["helm_right_routellm_wrong"] - effect["helm_wrong_routellm_right"]) / n
    assert effect["difference"] == pytest.approx(gap)
    assert effect["difference"] == pytest.approx(effect["accuracy_helm"] - effect["accuracy_routellm"])
    assert -1 <= effect["kappa"] <= 1 and effect["kappa"] > 0.5  # one model: outcomes mostly agree
    assert effect["difference_low"] <= effect["difference"] <= effect["difference_high"]
    assert effect["n_subjects"] == len(effect["subject_difference"]) == 57


def test_same_seed_same_output(effect):
    assert prompt_effect(seed=7, n_boot=500) == effect
    other = prompt_effect(seed=8, n_boot=500)
    assert other["difference_low"] != effect["difference_low"]
    assert other["kappa"] == effect["kappa"]  # only the bootstrap depends on the seed


def test_planted_pair():
    first = [1, 1, 1, 1, 0, 0, 0, 0, 1, 0]
    second = [1, 1, 1, 0, 0, 0, 0, 1, 1, 1]
    subjects = ["x"] * 5 + ["y"] * 5
    out = compare_outcomes(first, second, subjects, seed=0, labels=("a", "b"))
    assert out["agreement"] == pytest.approx(0.7)
    assert out["kappa"] == pytest.approx(0.4)  # chance agreement 0.5·0.6 + 0.5·0.4 = 0.5
    assert (out["a_right_b_wrong"], out["a_wrong_b_right"]) == (1, 2)
    assert out["difference"] == pytest.approx(-0.1)
    assert out["subject_difference"] == pytest.approx({"x": 0.2, "y": -0.4})
    # two equal-sized subjects: a replicate is x twice (0.2), y twice (-0.4) or one of each (-0.1)
    assert (out["difference_low"], out["difference_high"]) == pytest.approx((-0.4, 0.2))
    opposite = compare_outcomes([1, 0, 1, 0], [0, 1, 0, 1], ["x"] * 4, seed=0)
    assert opposite["kappa"] == pytest.approx(-1.0) and opposite["agreement"] == 0


@pytest.mark.parametrize("first, second, subjects, error, message", [
    ([1, 0], [1], ["x", "x"], DataError, "one length"),
    ([1, -1], [1, 0], ["x", "x"], DataError, "other than 0 and 1"),
    ([], [], [], DataError, "non-empty"),
])
def test_bad_rows_are_refused(first, second, subjects, error, message):
    with pytest.raises(error, match=message):
        compare_outcomes(first, second, subjects, seed=0)


def test_bad_options_are_refused():
    row = np.array([1, 0, 1])
    with pytest.raises(ParameterError, match="seed"):
        compare_outcomes(row, row, ["x"] * 3, seed=None)
    with pytest.raises(ParameterError, match="n_boot"):
        compare_outcomes(row, row, ["x"] * 3, seed=0, n_boot=10)
    with pytest.raises(ParameterError, match="level"):
        compare_outcomes(row, row, ["x"] * 3, seed=0, level=1.5)
