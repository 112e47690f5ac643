"""The §4.3 joint tests as a chapter parameterises them: kinds, forms, W(10), and their glue values."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from mmlu_audit.analyses.regression import contrast_terms, interaction_fit
from mmlu_audit.analyses.regression.joint import (bootstrap_statistics, joint_wald_tests,
                                                  permutation_statistics, permutation_tests,
                                                  residual_diagnostics, se_inflation, wald_statistics)
from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.inference import lr_interaction, wald_test
from mmlu_audit.inference.bootstrap import BootstrapResult
from mmlu_audit.inference.permutation import PermutationResult
from mmlu_audit.worlds.homogeneity import size_power_summary

PAPER_FORMS = {"HC3": ["chi2"], "CR1": ["chi2", "F"], "CR2": ["chi2", "HTZ"]}


@pytest.fixture(scope="module")
def world():
    """24 subjects (8 STEM) of 30 items; x1's slope differs across the partitions."""
    rng = np.random.default_rng(11)
    subjects = np.repeat(np.arange(24), 30)
    stem = subjects < 8
    X = pd.DataFrame(rng.normal(size=(subjects.size, 3)), columns=["x1", "x2", "x3"])
    noise = rng.normal(0, 0.3, 24)[subjects] + rng.normal(size=subjects.size)
    y = 0.6 * X["x1"] * stem + 0.4 * X["x2"] + noise
    return y.to_numpy(), X, stem, subjects


def test_rows_follow_kinds_then_w10_with_each_kinds_forms(world):
    wald = joint_wald_tests(*world, kinds=["HC3", "CR1", "CR2"], forms=PAPER_FORMS, w10_kinds=["HC3", "CR2"])
    assert list(zip(wald["test"], wald["kind"], wald["form"], strict=True)) == [
        ("W(3)", "HC3", "chi2"), ("W(4)", "HC3", "chi2"), ("W(3)", "CR1", "chi2"), ("W(3)", "CR1", "F"),
        ("W(3)", "CR2", "chi2"), ("W(3)", "CR2", "HTZ"), ("W(4)", "CR2", "chi2"), ("W(4)", "CR2", "HTZ")]
    assert list(wald["df_num"]) == [3, 4, 3, 3, 3, 3, 4, 4]


def test_a_kind_without_forms_gets_chi2_and_a_subset_reruns_alone(world):
    wald = joint_wald_tests(*world, kinds=["CR2", "HC2"], forms={"CR2": ["HTZ"]})
    assert list(zip(wald["kind"], wald["form"], strict=True)) == [("CR2", "HTZ"), ("HC2", "chi2")]


def test_glue_values_match_wald_tests_on_the_interaction_fit(world):
    y, X, stem, subjects = world
    wald = joint_wald_tests(*world, kinds=["HC3", "CR1", "CR2"], forms=PAPER_FORMS, w10_kinds=["HC3"])
    glued = wald_statistics(wald)
    fit, terms = interaction_fit(y, X, stem), contrast_terms(X.columns)
    for kind in ("HC3", "CR1", "CR2"):
        direct = wald_test(fit, terms, kind=kind, clusters=subjects).iloc[0]
        assert glued[f"w3_{kind.lower()}"] == pytest.approx(direct["wald"], rel=1e-12)
        assert glued[f"w3_{kind.lower()}_p"] == pytest.approx(stats.chi2.sf(direct["wald"], 3), rel=1e-10)
    w4 = wald_test(fit, ["STEM", *terms], kind="HC3").iloc[0]
    assert glued["w4_hc3"] == pytest.approx(w4["wald"], rel=1e-12)
    # F under CR1 is W / q against G − 1 = 23 denominator df
    assert glued["w3_cr1_F"] == pytest.approx(glued["w3_cr1"] / 3)
    assert glued["w3_cr1_F_p"] == pytest.approx(stats.f.sf(glued["w3_cr1"] / 3, 3, 23))
    htz = wald_test(fit, terms, kind="CR2", clusters=subjects, form="HTZ").iloc[0]
    assert (glued["w3_htz_F"], glued["w3_htz_df"], glued["w3_htz_p"]) == pytest.approx(
        (htz["stat"], htz["df_den"], htz["p"]))
    assert glued["w3_htz_df1"] == 3 and isinstance(glued["w3_htz_df1"], int)


@pytest.mark.parametrize("bad, match", [
    ({"kinds": ["HC9"]}, "unknown covariance kind 'HC9'"),
    ({"kinds": []}, "at least one kind"),
    ({"kinds": ["HC3", "HC3"]}, "each once"),
    ({"kinds": ["CR1"], "forms": {"CR1": ["HTZ"]}}, "HTZ is the small-sample test of the CR2"),
    ({"kinds": ["CR2"], "forms": {"CR2": ["t"]}}, "from \\['chi2', 'F', 'HTZ'\\]"),
    ({"kinds": ["CR1"], "w10_kinds": ["HC3"]}, "not among kinds"),
])
def test_bad_choices_are_one_parameter_error(world, bad, match):
    with pytest.raises(ParameterError, match=match):
        joint_wald_tests(*world, **bad)


def test_se_inflation_is_the_median_ratio_of_statsmodels_standard_errors(world):
    import statsmodels.api as sm

    y, X, stem, _ = world
    fit = interaction_fit(y, X, stem)
    design = pd.DataFrame(fit.X, columns=fit.names)
    hc3 = sm.OLS(y, design).fit(cov_type="HC3").bse
    hc0 = sm.OLS(y, design).fit(cov_type="HC0").bse
    slopes = [n for n in fit.names if n not in ("Intercept", "STEM")]
    out = se_inflation(fit, None, "HC3", "HC0")
    assert out["n_slopes"] == len(slopes) == 6
    assert out["se_inflation_hc3_hc0"] == pytest.approx(float(np.median(hc3[slopes] / hc0[slopes])), rel=1e-8)
    with pytest.raises(ParameterError, match="unknown covariance kind"):
        se_inflation(fit, None, "CR3")


def test_bootstrap_statistics_by_hand():
    draws = np.arange(1.0, 101.0)
    joint = BootstrapResult(stat=90.5, p=0.1, draws=draws, q=4, kind="CR2", weights="rademacher",
                            method="WCR")
    out = bootstrap_statistics(joint)
    assert out["wcb_q95"] == pytest.approx(95.05) and out["chi2_q95"] == pytest.approx(9.487729, rel=1e-6)
    assert (out["boot_kind"], out["n_boot"], out["wcb_stat"], out["wcb_p"]) == ("CR2", 100, 90.5, 0.1)


def test_permutation_statistics_by_hand_and_the_tests_share_one_observed_statistic(world):
    y, X, stem, subjects = world
    item = PermutationResult(0.2, 0.01, np.array([0.0, 0.1, -0.1, 0.05]), "item", "r2_gap")
    block = PermutationResult(0.2, 0.2, np.array([0.0, 0.3, -0.3, 0.15]), "block", "r2_gap")
    lr = {s: PermutationResult(5.0, p, np.zeros(4), s, "lr") for s, p in (("item", 0.02), ("block", 0.3))}
    out = permutation_statistics({("item", "r2_gap"): item, ("block", "r2_gap"): block,
                                  ("item", "lr"): lr["item"], ("block", "lr"): lr["block"]}, stem, subjects)
    assert out["block_perm_widening"] == pytest.approx(3.0) and out["item_perm_max_gap"] == 0.1
    assert (out["n_perm"], out["n_stem_subjects"]) == (4, 8)
    assert (out["lr_item_p"], out["lr_block_perm_p"]) == (0.02, 0.3)
    with pytest.raises(DataError, match="missing permutation tests"):
        permutation_statistics({("item", "r2_gap"): item}, stem, subjects)
    perm = permutation_tests(y, X, stem, subjects, seed=3, n_perm=19)
    assert list(perm) == [("item", "r2_gap"), ("item", "lr"), ("block", "r2_gap"), ("block", "lr")]
    assert perm[("item", "lr")].stat == pytest.approx(lr_interaction(y, X, stem)[0])
    assert perm[("item", "r2_gap")].stat == pytest.approx(perm[("block", "r2_gap")].stat)


def test_residual_diagnostics_df_is_two_more_than_the_predictors(world):
    y, X, stem, _ = world
    out = residual_diagnostics(y, X, stem, interaction_fit(y, X, stem))
    assert out["lr_df"] == X.shape[1] + 2 and out["lr_11"] == pytest.approx(lr_interaction(y, X, stem)[0])
    assert 0 <= out["bp_p"] <= 1 and out["breusch_pagan"] > 0


def test_size_power_summary_reads_the_table_and_names_the_bootstrapped_kinds():
    rows = [(w, m, r) for w, base in (("null", 0.0), ("planted", 0.5))
            for m, r in (("HC3 chi2", 0.2), ("CR1 chi2", 0.1), ("CR2 chi2", 0.08), ("CR2 HTZ", 0.05),
                         ("WCR(CR1)", 0.06), ("WCR(CR2)", 0.04))]
    table = pd.DataFrame([{"world": w, "method": m, "rejection_rate": r + (0.5 if w == "planted" else 0.0),
                           "mc_se": 0.01 if w == "null" else 0.03, "n_reps": 200} for w, m, r in rows])
    out = size_power_summary(table, "CR2")
    assert (out["sp_reps"], out["sp_hc3"], out["sp_htz"]) == (200, 0.2, 0.05)
    assert (out["sp_wcr"], out["sp_mcse"]) == (0.04, 0.01)
    assert out["sp_htz_power"] == pytest.approx(0.55) and out["sp_wcr_power"] == pytest.approx(0.54)
    assert (out["sp_htz_se"], out["sp_wcr_power_se"]) == (0.01, 0.03)  # each rate's own Monte Carlo SE
    assert size_power_summary(table, "CR1")["sp_wcr"] == 0.06
    with pytest.raises(ParameterError, match=r"bootstrapped \['CR1', 'CR2'\], not 'HC3'"):
        size_power_summary(table, "HC3")


def test_partition_joint_tests_match_statsmodels_hc3_f_tests(world):
    import statsmodels.api as sm

    from mmlu_audit.analyses.regression.joint import partition_joint_tests

    y, X, stem, _ = world
    out = partition_joint_tests(y, X, stem, kind="HC3")
    for label, mask in (("stem", stem), ("nonstem", ~stem)):
        model = sm.OLS(y[mask], sm.add_constant(X[mask])).fit(cov_type="HC3")
        test = model.f_test(np.eye(4)[1:])  # the three slopes
        assert out[f"F_{label}"] == pytest.approx(float(np.squeeze(test.fvalue)), rel=1e-8)
        assert out[f"F_{label}_p"] == pytest.approx(float(test.pvalue), rel=1e-6)
    with pytest.raises(ParameterError, match="item-level kind"):
        partition_joint_tests(y, X, stem, kind="CR2")
