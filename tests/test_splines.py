"""Restricted cubic splines and the non-linearity test (Appendix B).

References: hand computation of Harrell's basis, patsy's natural cubic regression
spline ``cr`` (same function space for the same knots), and statsmodels' OLS F test
for the joint test under the classical covariance.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import patsy
import pytest
import statsmodels.api as sm

from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.features import INDICATORS
from mmlu_audit.analyses.regression import indicator_design
from mmlu_audit.analyses.splines import (HARRELL_QUANTILES, nonlinearity_tests, rcs_basis, rcs_knots,
                                         spline_curve)


def test_basis_by_hand():
    # knots 0, 1, 2, 3 at x = 2.5: f1 = (2.5³ − 0.5³·3/1)/9, f2 = (1.5³ − 0.5³·2/1)/9
    basis = rcs_basis([2.5, -1.0], [0.0, 1.0, 2.0, 3.0])
    np.testing.assert_allclose(basis[0], [(2.5**3 - 0.5**3 * 3) / 9, (1.5**3 - 0.5**3 * 2) / 9])
    np.testing.assert_allclose(basis[1], [0.0, 0.0])


def test_basis_is_linear_outside_the_boundary_knots_and_smooth_inside():
    knots = np.array([0.0, 0.7, 1.5, 2.0, 4.0])
    above = rcs_basis(np.linspace(4.0, 9.0, 11), knots)
    below = rcs_basis(np.linspace(-5.0, 0.0, 11), knots)
    np.testing.assert_allclose(np.diff(above, 2, axis=0), 0.0, atol=1e-9)
    np.testing.assert_allclose(below, 0.0)
    h = 1e-4  # second derivative is continuous at every knot
    for t in knots:
        left = rcs_basis([t - 2 * h, t - h, t], knots)
        right = rcs_basis([t, t + h, t + 2 * h], knots)
        np.testing.assert_allclose(np.diff(left, 2, axis=0) / h**2, np.diff(right, 2, axis=0) / h**2,
                                   atol=1e-3)


@pytest.mark.parametrize("knots", [[0.0, 1.0, 3.0], [0.0, 1.0, 2.0, 3.0], [-1.0, 0.2, 0.5, 2.0, 2.5]])
def test_basis_spans_patsys_natural_cubic_spline(knots):
    x = np.random.default_rng(0).uniform(-2, 5, 400)
    ours = np.column_stack([np.ones_like(x), x, rcs_basis(x, knots)])
    inner = tuple(knots[1:-1])
    reference = np.asarray(patsy.dmatrix(f"cr(x, knots={inner}, lower_bound={knots[0]}, "
                                         f"upper_bound={knots[-1]}) - 1", {"x": x}))
    assert ours.shape[1] == reference.shape[1] == len(knots)
    for a, b in ((ours, reference), (reference, ours)):
        fitted = b @ np.linalg.lstsq(b, a, rcond=None)[0]
        np.testing.assert_allclose(fitted, a, atol=1e-8 * np.abs(a).max())


def test_knots_follow_harrells_quantiles_and_drop_ties():
    x = np.arange(1001.0)
    np.testing.assert_allclose(rcs_knots(x, 4), np.array(HARRELL_QUANTILES[4]) * 1000)
    tied = np.r_[np.zeros(900), np.arange(100.0)]
    assert rcs_knots(tied, 4).size == 2  # 0.05, 0.35, 0.65 quantiles all 0
    with pytest.raises(ParameterError, match="n_knots"):
        rcs_knots(x, 6)
    with pytest.raises(DataError, match="finite"):
        rcs_knots([1.0, np.nan], 4)
    with pytest.raises(DataError, match="increasing"):
        rcs_basis(x, [0.0, 0.0, 1.0])


def curved_frame(seed: int, curvature: float) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n_subjects, per = 30, 80
    subjects = np.repeat([f"s{k:02d}" for k in range(n_subjects)], per)
    stem = np.repeat(np.arange(n_subjects) < 10, per)
    X = pd.DataFrame(rng.normal(size=(len(subjects), len(INDICATORS))), columns=list(INDICATORS))
    b = 0.2 * X["d_mdd"] + curvature * (~stem) * X["c_bry"] ** 2 + rng.normal(size=len(subjects))
    frame = X.assign(b_hat=b, stem=stem, subject=subjects)
    frame.index = pd.Index([f"i{k}" for k in range(len(frame))], name="item_id")
    return frame


def test_planted_curvature_is_found_in_its_partition_only():
    table = nonlinearity_tests(curved_frame(1, 0.8), ["c_bry", "d_mdd"])
    assert table.loc[("c_bry", "non-STEM"), "p"] < 0.001
    assert table.loc[("c_bry", "STEM"), "p"] > 0.01
    assert table.loc[("d_mdd", "non-STEM"), "p"] > 0.01
    assert (table["df_num"] == 2).all() and (table["n_knots_used"] == 4).all()


def test_joint_test_equals_statsmodels_f_test_under_the_classical_covariance():
    frame = curved_frame(2, 0.3)
    table = nonlinearity_tests(frame, INDICATORS, kind="classical", form="F")
    X = indicator_design(frame)
    part = ~frame["stem"].to_numpy()
    z = X[part]
    spline = rcs_basis(z["c_bry"].to_numpy(), rcs_knots(z["c_bry"].to_numpy(), 4))
    design = sm.add_constant(np.column_stack([z.to_numpy(), spline]))
    fit = sm.OLS(frame["b_hat"].to_numpy()[part], design).fit()
    restriction = np.zeros((2, design.shape[1]))
    restriction[0, -2] = restriction[1, -1] = 1
    reference = fit.f_test(restriction)
    row = table.loc[("c_bry", "non-STEM")]
    assert row["stat"] == pytest.approx(float(reference.fvalue), rel=1e-8)
    assert row["p"] == pytest.approx(float(reference.pvalue), rel=1e-6)


def test_collapsed_knots_give_a_named_nan_row():
    frame = curved_frame(3, 0.0)
    frame["d_ner"] = np.where(np.arange(len(frame)) % 20 == 0, 1.0, 0.0)
    row = nonlinearity_tests(frame, ["d_ner"]).loc[("d_ner", "STEM")]
    assert np.isnan(row["p"]) and "ties" in row["note"]


def test_spline_curve_recovers_the_planted_shape():
    frame = curved_frame(4, 0.8)
    grid = np.linspace(-1.5, 1.5, 7)
    curve = spline_curve(frame, "c_bry", grid, stem=False)
    z = indicator_design(frame)["c_bry"][~frame["stem"]]
    # target: the best restricted cubic spline approximation of the planted 0.8 z² (no noise);
    # a natural spline is linear beyond its outer knots, so it cannot be z² itself
    knots = rcs_knots(z.to_numpy(), 4)
    basis = lambda v: np.column_stack([np.ones(len(v)), v, rcs_basis(v, knots)])  # noqa: E731
    coef = np.linalg.lstsq(basis(z.to_numpy()), 0.8 * z.to_numpy() ** 2, rcond=None)[0]
    truth = basis(grid) @ coef - basis(np.array([np.median(z)])) @ coef
    np.testing.assert_allclose(curve, truth, atol=0.25)
    flat = spline_curve(frame, "c_bry", grid, stem=True)
    assert np.abs(flat).max() < 0.3
    assert spline_curve(frame, "c_bry", [np.median(z)], stem=False)[0] == pytest.approx(0.0, abs=1e-12)


def test_nonlinearity_statistics_by_hand():
    from mmlu_audit.analyses.splines import nonlinearity_statistics

    index = pd.MultiIndex.from_tuples([("c_bry", "STEM"), ("c_bry", "non-STEM"), ("d_ner", "STEM"),
                                       ("d_ner", "non-STEM")], names=["indicator", "partition"])
    table = pd.DataFrame({"p": [0.2, 0.01, np.nan, 0.04]}, index=index)
    out = nonlinearity_statistics(table)
    assert out == {"c_bry_nonlinear_p_nonstem": 0.01, "c_bry_nonlinear_p_stem": 0.2,
                   "c_bry_nonlinear_nonstem": True, "nonlinear_flagged": 2, "nonlinear_tested": 3,
                   "nonlinear_names": "c_bry (non-STEM), d_ner (non-STEM)"}
    assert nonlinearity_statistics(table, alpha=0.001)["nonlinear_names"] == "none"
    with pytest.raises(DataError, match="no c_bry rows"):
        nonlinearity_statistics(table.drop(index="c_bry", level="indicator"))
