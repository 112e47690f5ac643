"""The simulator's targets table: accuracy matching, and the gaps computed as stated."""

from __future__ import annotations

import numpy as np
import pytest

from mmlu_audit.analyses.simulator_targets import matched_models
from mmlu_audit.core.errors import DataError


def test_each_real_model_gets_the_nearest_free_simulated_model():
    chosen = matched_models([0.5, 0.52, 0.9], [0.1, 0.51, 0.53, 0.88, 0.95])
    assert list(chosen) == [1, 2, 3] and len(set(chosen)) == 3


def test_two_real_models_never_share_a_simulated_twin():
    chosen = matched_models([0.5, 0.5, 0.5], np.array([0.49, 0.5, 0.7]))
    assert sorted(chosen) == [0, 1, 2] and chosen[0] == 1


def test_too_few_simulated_models_is_an_error():
    with pytest.raises(DataError, match="cannot match"):
        matched_models([0.1, 0.2], [0.3])
