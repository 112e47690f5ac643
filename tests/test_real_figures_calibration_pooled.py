"""The tables behind the real-pool figures of the calibration (§3) and pooled (§4.1) chapters."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mmlu_audit.analyses.calibration import calibration_headline, calibration_headline_with_cohorts
from mmlu_audit.analyses.regression import table2_ratios
from mmlu_audit.analyses.regression.pooled import pooled_headline, pooled_headline_with_table
from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.irt import IRTSpec
from test_headlines_pooled_calibration import _item_frame, _pool  # the same synthetic pool and items


def test_the_cohorts_are_the_vectors_the_headline_correlates():
    inputs = _pool()
    spec = IRTSpec(max_steps=5)
    headline, pairs = calibration_headline_with_cohorts(inputs, spec, seed=3)
    assert headline == calibration_headline(inputs, spec, seed=3)  # one split, the same figures
    assert list(pairs.columns) == ["b_first", "b_second"] and pairs.index.name == "item_id"
    assert len(pairs) == headline["cohort_items"] and pairs.index.isin(inputs.matrix.item_ids).all()
    assert np.corrcoef(pairs["b_first"], pairs["b_second"])[0, 1] == pytest.approx(headline["split_cohort_r"])
    rows_headline, by_rows = calibration_headline_with_cohorts(inputs, spec, seed=3, cohort_split="rows",
                                                               strata=None)
    assert np.corrcoef(by_rows.T.to_numpy())[0, 1] == pytest.approx(rows_headline["split_cohort_r"])
    with pytest.raises(ParameterError, match="cohort_split"):
        calibration_headline_with_cohorts(inputs, spec, seed=3, cohort_split="families")


def test_the_table_is_the_one_the_headline_reads():
    frame = _item_frame()
    frame.iloc[[4, 40], frame.columns.get_loc("b_hat")] = np.nan  # items nobody answered
    embeddings = np.random.default_rng(8).normal(size=(len(frame), 6))
    headline, table = pooled_headline_with_table(frame, seed=5, cv_folds=4, cv_items=200,
                                                 embeddings=embeddings)
    assert headline == pytest.approx(pooled_headline(frame, seed=5, cv_folds=4, cv_items=200,
                                                     embeddings=embeddings), nan_ok=True)
    assert list(table.columns) == ["global", "STEM", "non-STEM"] and "encoder ceiling" in table.index
    assert table.loc["encoder ceiling", "global"] == pytest.approx(headline["ceiling_global"])
    assert table.loc["subject identity", "global"] == pytest.approx(headline["subject_global"])
    ratios = table2_ratios(pd.concat({"item": table}, axis=1))
    for key, value in ratios.items():
        assert value == pytest.approx(headline[key], nan_ok=True), key
    no_encoder = pooled_headline_with_table(frame, seed=5, cv_folds=4)[1]  # no embeddings given
    assert "encoder ceiling" not in no_encoder.index
    with pytest.raises(DataError, match="one row per row of frame"):
        pooled_headline_with_table(frame, seed=5, cv_folds=4, embeddings=embeddings[:10])


def test_table2_intervals_resample_subjects_around_the_same_r2():
    frame = _item_frame()
    embeddings = np.random.default_rng(8).normal(size=(len(frame), 6))
    plain = pooled_headline_with_table(frame, seed=5, cv_folds=4, embeddings=embeddings)
    headline, table = pooled_headline_with_table(frame, seed=5, cv_folds=4, embeddings=embeddings, n_boot=199)
    assert headline == pytest.approx(plain[0], nan_ok=True)
    pd.testing.assert_frame_equal(table[["global", "STEM", "non-STEM"]], plain[1])
    for part in ("global", "STEM", "non-STEM"):
        assert (table[f"{part} low"] < table[f"{part} high"]).all()
        # a percentile interval of a skewed statistic need not hold the estimate, but a fair one is near it
        width = table[f"{part} high"] - table[f"{part} low"]
        near = (table[part] > table[f"{part} low"] - width) & (table[part] < table[f"{part} high"] + width)
        assert near.all()
