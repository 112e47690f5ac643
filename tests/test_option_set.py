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
from mmlu_audit.analyses.option_set import (common_support, controlled_contrasts, option_controls,
                                            option_set_headline)
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


def test_option_set_headline_is_the_appendix_pipeline_and_finds_what_was_planted():
    from mmlu_audit.analyses.robustness import section4_statistics
    from mmlu_audit.analyses.splines import nonlinearity_statistics, nonlinearity_tests
    from mmlu_audit.features import OPTION_COVARIATES

    rng = np.random.default_rng(5)
    subjects = np.repeat([f"s{k:02d}" for k in range(24)], 50)
    stem = np.repeat(np.arange(24) < 10, 50)
    X = pd.DataFrame(rng.normal(size=(len(subjects), len(INDICATORS))), columns=list(INDICATORS))
    options = pd.DataFrame(rng.normal(size=(len(subjects), len(OPTION_COVARIATES))),
                           columns=list(OPTION_COVARIATES))
    # planted: a STEM-only D_ner slope, one option effect, C_bry curved outside STEM only
    b = (0.6 * stem * X["d_ner"] + 0.4 * options["opt_len_mean"] + 0.5 * ~stem * X["c_bry"] ** 2
         + rng.normal(size=len(subjects)))
    frame = pd.concat([X, options], axis=1).assign(b_hat=b, stem=stem, subject=subjects)
    frame.index = pd.Index([f"i{k}" for k in range(len(frame))], name="item_id")
    frame.loc["i0", "b_hat"] = np.nan  # an item nobody answered is left out
    out = option_set_headline(frame, seed=2, n_boot=99, n_folds=5)
    # the reference: the appendix's functions one by one, on the estimated items
    kept = frame.dropna(subset=["b_hat"])
    plain, plain_joint = controlled_contrasts(kept, None, seed=2)
    with_options, option_joint = controlled_contrasts(kept, option_controls(kept), seed=2, n_boot=99)
    assert out["plain_d_ner_t"] == pytest.approx(plain.loc["STEM:d_ner", "t_CR2"])
    assert out["plain_htz_p"] == out["full_htz_p"] == pytest.approx(plain_joint["p"])
    assert out["option_d_ner_holm"] == pytest.approx(with_options.loc["STEM:d_ner", "holm_CR2"])
    assert out["option_d_ner_boot"] == pytest.approx(with_options.loc["STEM:d_ner", "holm_boot"])
    assert out["option_htz_p"] == pytest.approx(option_joint["p"])
    nonlinear = nonlinearity_statistics(nonlinearity_tests(kept))
    assert {k: out[k] for k in nonlinear} == nonlinear
    _, inside = common_support(kept, INDICATORS)
    support = section4_statistics(kept[inside], seed=2, n_folds=5)
    assert (out["support_n"], out["support_n_stem"]) == (inside.sum(), kept.loc[inside, "stem"].sum())
    assert out["support_share"] == pytest.approx(inside.mean()) and out["support_htz_p"] == support["htz_p"]
    # what was planted is found: the contrast survives the options, C_bry bends outside STEM only
    assert out["contrast_survives_options"] and out["d_ner_survives_common_support"]
    assert out["c_bry_nonlinear_nonstem"] and out["c_bry_nonlinear_p_stem"] > 0.01
    assert np.isnan(option_set_headline(kept, seed=2)["option_d_ner_boot"])  # no bootstrap asked
