"""Appendix B: contrasts with option-set controls, and common support.

References: the §4.3 functions (:func:`contrast_tests` on :func:`interaction_fit`)
for the uncontrolled model, separate partition fits (:func:`partition_fits`) for the
fully interacted controlled model, and hand-made ranges for common support.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.features import INDICATORS
from mmlu_audit.analyses.option_set import common_support, controlled_contrasts, option_controls
from mmlu_audit.analyses.regression import (contrast_terms, contrast_tests, design_arrays, interaction_fit,
                                   partition_fits)

CONTROLS = ("opt_a", "opt_b")


def frame_with_options(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    subjects = np.repeat([f"s{k:02d}" for k in range(20)], 50)
    stem = np.repeat(np.arange(20) < 8, 50)
    X = pd.DataFrame(rng.normal(size=(len(subjects), len(INDICATORS))), columns=list(INDICATORS))
    options = pd.DataFrame({"opt_a": rng.normal(size=len(subjects)) + 0.5 * X["d_ner"],
                            "opt_b": (rng.random(len(subjects)) < 0.1).astype(float),
                            "opt_constant": 1.0})
    b = 0.5 * stem * X["d_ner"] + 0.4 * options["opt_a"] + rng.normal(size=len(subjects))
    frame = pd.concat([X, options], axis=1).assign(b_hat=b, stem=stem, subject=subjects)
    frame.index = pd.Index([f"i{k}" for k in range(len(frame))], name="item_id")
    return frame


def test_without_controls_the_contrasts_are_the_section_4_3_ones():
    frame = frame_with_options(0)
    table, joint = controlled_contrasts(frame, None, seed=0)
    X, y, stem, subjects = design_arrays(frame)
    reference = contrast_tests(interaction_fit(y, X, stem), subjects, contrast_terms(X.columns),
                               kinds=("HC3", "CR2"))
    pd.testing.assert_frame_equal(table, reference)
    assert 0 < joint["p"] < 1 and joint["wald"] > 0


def test_fully_interacted_controls_equal_separate_partition_fits():
    frame = frame_with_options(1)
    controls = option_controls(frame, CONTROLS)
    table, _ = controlled_contrasts(frame, controls, seed=0)
    X, y, stem, _ = design_arrays(frame)
    parts = partition_fits(y, pd.concat([X, controls], axis=1), stem)
    expected = (parts[("STEM", "estimate")] - parts[("non-STEM", "estimate")]).loc[list(INDICATORS)]
    np.testing.assert_allclose(table["estimate"].to_numpy(), expected.to_numpy(), atol=1e-10)


def test_option_controls_drop_constant_columns_and_refuse_missing_ones():
    frame = frame_with_options(2)
    controls = option_controls(frame, [*CONTROLS, "opt_constant"])
    assert list(controls.columns) == list(CONTROLS) and controls.attrs["dropped"] == ["opt_constant"]
    assert controls.mean().abs().max() < 1e-12 and np.allclose(controls.std(ddof=0), 1)
    with pytest.raises(DataError, match="missing option covariates"):
        option_controls(frame, ["opt_missing"])
    with pytest.raises(DataError, match="already indicators"):
        controlled_contrasts(frame, frame[["d_ner"]], seed=0)
    with pytest.raises(DataError, match="indexed like frame"):
        controlled_contrasts(frame, controls.reset_index(drop=True), seed=0)


def test_common_support_by_hand():
    frame = pd.DataFrame({"stem": [True] * 4 + [False] * 4,
                          "x": [0.0, 1.0, 2.0, 3.0, 2.0, 4.0, 5.0, 6.0],
                          "z": [5.0, 5.0, 6.0, 7.0, 6.5, 5.5, 5.2, 5.0]})
    bounds, inside = common_support(frame, ["x", "z"], trim=0.0)
    assert bounds.loc["x", "lower"] == 2.0 and bounds.loc["x", "upper"] == 3.0
    assert bounds.loc["z", "lower"] == 5.0 and bounds.loc["z", "upper"] == 6.5
    assert inside.tolist() == [False, False, True, False, True, False, False, False]
    assert bounds.loc["x", "share STEM inside"] == 0.5
    with pytest.raises(DataError, match="do not overlap"):
        common_support(frame.assign(x=[0.0] * 4 + [9.0] * 4), ["x"], trim=0.0)
    with pytest.raises(ParameterError, match="trim"):
        common_support(frame, ["x"], trim=0.5)
