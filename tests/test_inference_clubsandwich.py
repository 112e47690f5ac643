"""mmlu_audit.inference against frozen R references (clubSandwich 0.5.8, sandwich 3.0).

The fixtures in tests/data/clubsandwich/ are written by tests/r/make_reference.R;
see tests/r/README.md. CI reads the frozen files; the ``r`` test regenerates them
when Rscript is available and checks they have not drifted.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mmlu_audit.inference import coef_table, fit_ols, vcov, wald_test

FIXTURES = Path(__file__).parent / "data" / "clubsandwich"
DESIGNS = ["unequal", "interaction", "many", "fixed_effects"]
RTOL = 1e-8


def _load(design: str):
    ref = json.loads((FIXTURES / f"{design}.json").read_text())
    data = pd.read_csv(FIXTURES / f"{design}.csv")
    fit = fit_ols(data["y"], data[ref["terms"][1:]], intercept=True)
    return ref, data, fit


def _as_float(values) -> np.ndarray:
    return np.array([np.inf if v == "Inf" else v for v in np.ravel(values)], dtype=float)


def _max_rel(actual, expected) -> float:
    actual, expected = np.ravel(np.asarray(actual, float)), _as_float(expected)
    finite = np.isfinite(expected)
    assert np.array_equal(actual[~finite], expected[~finite])
    if not finite.any():
        return 0.0
    scale = np.maximum(np.abs(expected[finite]), 1e-300)
    return float(np.max(np.abs(actual[finite] - expected[finite]) / scale))


@pytest.fixture(params=DESIGNS)
def design(request):
    return _load(request.param)


def test_fixture_designs_cover_the_hard_cases():
    unequal = pd.read_csv(FIXTURES / "unequal.csv")
    assert unequal["cluster"].value_counts().min() == 1
    inter = pd.read_csv(FIXTURES / "interaction.csv")
    assert (inter.groupby("cluster")["stem"].nunique() == 1).all()
    sizes = [pd.read_csv(FIXTURES / f"{d}.csv")["cluster"].nunique() for d in DESIGNS]
    assert min(sizes) <= 12 and max(sizes) >= 60


def test_coefficients_match_lm(design):
    ref, _, fit = design
    assert _max_rel(fit.beta, ref["coef"]) < RTOL


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [("CR0", "CR0"), ("CR1", "CR1S"), ("CR1", "vcovCL_HC1"), ("CR2", "CR2"),
     ("HC0", "HC0"), ("HC1", "HC1"), ("HC2", "HC2"), ("HC3", "HC3")],
)
def test_vcov_matches_r(design, ours, theirs):
    ref, data, fit = design
    assert _max_rel(vcov(fit, ours, data["cluster"]), ref["vcov"][theirs]) < RTOL


@pytest.mark.parametrize("kind", ["CR2", "CR1"])
def test_coef_test_satterthwaite_matches_clubsandwich(design, kind):
    ref, data, fit = design
    table = coef_table(fit, kind, data["cluster"], df="satterthwaite")
    expected = ref["coef_test"][kind]
    for ours, theirs in [("se", "se"), ("stat", "tstat"), ("df", "df"), ("p", "p")]:
        assert _max_rel(table[ours], expected[theirs]) < RTOL, ours


@pytest.mark.parametrize(("form", "row"), [("chi2", 0), ("F", 1), ("HTZ", 2)])
def test_wald_test_matches_clubsandwich(design, form, row):
    ref, data, fit = design
    for case in ref["wald"]:
        R = np.eye(fit.n_params)[case["columns"]]
        res = wald_test(fit, R, kind=case["kind"], clusters=data["cluster"], form=form).iloc[0]
        q = case["df_num"][row]
        expected_stat = case["Fstat"][row] * (q if form == "chi2" else 1)
        assert _max_rel([res["stat"]], [expected_stat]) < RTOL
        assert _max_rel([res["df_den"]], [case["df_denom"][row]]) < RTOL
        assert _max_rel([res["p"]], [case["p_val"][row]]) < RTOL


@pytest.mark.r
def test_regenerated_fixtures_match_committed(tmp_path):
    rscript = shutil.which("Rscript")
    if rscript is None:
        pytest.skip("Rscript not installed")
    script = Path(__file__).parent / "r" / "make_reference.R"
    subprocess.run([rscript, str(script), str(tmp_path)], check=True, capture_output=True, timeout=300)
    for name in DESIGNS:
        assert (tmp_path / f"{name}.csv").read_text() == (FIXTURES / f"{name}.csv").read_text()
        fresh, frozen = json.loads((tmp_path / f"{name}.json").read_text()), _load(name)[0]
        assert _max_rel(np.ravel(fresh["vcov"]["CR2"]), np.ravel(frozen["vcov"]["CR2"])) < 1e-12
