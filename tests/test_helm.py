"""The staged real 20-model HELM matrix."""

import numpy as np

from mmlu_audit import load_responses


def test_helm20_shape_and_missing_cells(items):
    matrix = load_responses("helm20", items=items)
    assert matrix.shape == (20, 14_042)
    assert not matrix.simulated
    values, counts = np.unique(matrix.responses, return_counts=True)
    assert dict(zip(values.tolist(), counts.tolist(), strict=True)) == {-1: 83_728, 0: 37_429, 1: 159_683}
    assert list(matrix.item_ids) == list(items["item_id"])


def test_helm20_full_models_match_published_accuracy(items):
    matrix = load_responses("helm20", items=items)
    acc = matrix.accuracy()
    assert acc["anthropic_claude-3-opus-20240229"] == np.float64(11_928 / 14_028)
    redux_only = matrix.models["source"].eq("helm_redux2").to_numpy()
    assert (matrix.observed[redux_only].sum(axis=1) == 5_691).all()
