"""Posterior draws as ArviZ InferenceData: the netCDF round trip, ArviZ's summaries against
numpy's definitions on a planted sample, and the ρ summary against the hand-rolled one."""

from __future__ import annotations

import arviz as az
import numpy as np
import pytest
import xarray as xr

from mmlu_audit.core.errors import ParameterError
from mmlu_audit.irt import IRTSpec, fit_irt
from mmlu_audit.irt.posterior import fit_summary, posterior_table, save_inference_data, to_inference_data
from mmlu_audit.book.report import write_netcdf_download


@pytest.fixture(scope="module")
def fit_2d():
    """A small two-dimensional fit: 60 models, 40 items (half STEM), a few hundred steps."""
    rng = np.random.default_rng(11)
    theta = rng.multivariate_normal([0, 0], [[1, 0.8], [0.8, 1]], 60)
    stem = np.repeat([True, False], 20)
    b = rng.normal(0, 1, 40)
    p = 1 / (1 + np.exp(-(np.where(stem, theta[:, :1], theta[:, 1:]) - b)))
    responses = (rng.random(p.shape) < p).astype(np.int8)
    spec = IRTSpec(model="2d", seed=3, max_steps=300, posterior_draws=400)
    return fit_irt(responses, spec, item_stem=stem, progress=False)


def _planted(values) -> az.InferenceData:
    return az.from_dict(posterior={"x": np.asarray(values)[None, :]})


def _numpy_hdi(values, prob):
    """The narrowest interval holding ceil(prob · n) of the sorted draws (ArviZ's definition)."""
    ordered = np.sort(values)
    keep = int(np.floor(prob * ordered.size))
    widths = ordered[keep:] - ordered[: ordered.size - keep]
    start = int(np.argmin(widths))
    return ordered[start], ordered[start + keep]


def test_round_trip_through_netcdf_keeps_draws_and_attrs(fit_2d, tmp_path):
    idata = to_inference_data(fit_2d, data_source="planted-test", seed=5, n_draws=12, dtype=np.float32)
    path = save_inference_data(idata, tmp_path / "fit.nc")
    back = az.from_netcdf(path)
    assert set(back.posterior.data_vars) == {"theta", "b", "a", "sigma_theta", "rho"}
    assert back.posterior["theta"].dims == ("chain", "draw", "model", "ability")
    assert back.posterior.sizes["draw"] == 12 and back.posterior["b"].dtype == np.float32
    xr.testing.assert_equal(back.posterior, idata.posterior)
    attrs = back.posterior.attrs
    assert attrs["data_source"] == "planted-test"
    assert int(attrs["fit_seed"]) == 3 and int(attrs["draw_seed"]) == 5
    assert int(attrs["steps"]) == fit_2d.meta["steps"] and "mean-field" in attrs["guide"]
    assert '"arviz"' in attrs["versions"] and '"model": "2d"' in attrs["spec"]
    assert not list(tmp_path.glob(".*")), "no temporary file is left behind"


def test_the_page_download_is_written_atomically(fit_2d, tmp_path):
    idata = to_inference_data(fit_2d, data_source="x", seed=1, var_names=["rho"], n_draws=10)
    path = write_netcdf_download(idata, "rho.nc", tmp_path)
    assert path == tmp_path / "rho.nc" and sorted(p.name for p in tmp_path.iterdir()) == ["rho.nc"]
    np.testing.assert_array_equal(az.from_netcdf(path).posterior["rho"], idata.posterior["rho"])


def test_equal_tailed_summary_is_numpys_quantiles_on_a_planted_sample():
    draws = np.random.default_rng(0).gamma(2.0, 1.5, 3001)  # skewed, so ETI and HDI differ
    table = posterior_table(_planted(draws), ["x"], prob=0.9, interval="eti")
    assert table.loc["x", "mean"] == pytest.approx(draws.mean(), rel=1e-12)
    assert table.loc["x", "sd"] == pytest.approx(draws.std(ddof=1), rel=1e-12)
    np.testing.assert_allclose(table.loc["x", ["low", "high"]], np.quantile(draws, [0.05, 0.95]), rtol=1e-12)


def test_hdi_summary_is_the_narrowest_interval_and_arviz_hdi():
    draws = np.random.default_rng(1).gamma(2.0, 1.5, 3001)
    table = posterior_table(_planted(draws), ["x"], prob=0.9, interval="hdi")
    low, high = table.loc["x", ["low", "high"]]
    np.testing.assert_allclose((low, high), _numpy_hdi(draws, 0.9), rtol=1e-12)
    np.testing.assert_allclose((low, high), az.hdi(draws, hdi_prob=0.9), rtol=1e-12)
    eti = np.quantile(draws, [0.05, 0.95])
    assert high - low < eti[1] - eti[0] and low < eti[0]  # a right-skewed sample's HDI sits left


def test_rho_summary_equals_the_hand_rolled_one(fit_2d):
    rho = fit_2d.scalar("rho")
    table = fit_summary(fit_2d, ["rho"], data_source="x", seed=0, prob=0.95, interval="eti")
    assert table.loc["rho", "mean"] == pytest.approx(rho["mean"], abs=1e-12)
    assert table.loc["rho", "sd"] == pytest.approx(rho["sd"], abs=1e-12)
    np.testing.assert_allclose(table.loc["rho", ["low", "high"]], np.quantile(rho["draws"], [0.025, 0.975]),
                               atol=1e-12)


def test_same_seed_same_summary_and_scalars_need_no_seed(fit_2d):
    first = to_inference_data(fit_2d, data_source="x", seed=9, n_draws=50)
    again = to_inference_data(fit_2d, data_source="x", seed=9, n_draws=50)
    other = to_inference_data(fit_2d, data_source="x", seed=10, n_draws=50)
    assert posterior_table(first).equals(posterior_table(again))
    assert not np.array_equal(first.posterior["b"], other.posterior["b"])
    np.testing.assert_array_equal(first.posterior["rho"], other.posterior["rho"])  # the fit's stored draws


def test_vector_draws_match_the_guides_moments(fit_2d):
    idata = to_inference_data(fit_2d, data_source="x", seed=2, var_names=["a", "b", "sigma_theta"],
                              n_draws=400)
    draws = idata.posterior
    assert (draws["a"] > 0).all() and (draws["sigma_theta"] > 0).all()  # log-normal factors
    for site in ("a", "b"):
        mean = draws[site].mean(("chain", "draw")).to_numpy()
        sd = fit_2d.dataset[f"{site}_sd"].to_numpy()
        error = (mean - fit_2d.dataset[f"{site}_mean"].to_numpy()) / sd
        assert np.abs(error).max() < 5 / np.sqrt(400)  # 5 standard errors


def test_bad_arguments_are_refused(fit_2d):
    with pytest.raises(ParameterError, match="not parameters"):
        to_inference_data(fit_2d, data_source="x", seed=0, var_names=["gamma1"])
    with pytest.raises(ParameterError, match="stores 400 draws"):
        to_inference_data(fit_2d, data_source="x", seed=0, var_names=["rho"], n_draws=401)
    with pytest.raises(ParameterError, match="seed"):
        to_inference_data(fit_2d, data_source="x", seed=-1)
    with pytest.raises(ParameterError, match="interval"):
        posterior_table(_planted([0.0, 1.0, 2.0]), interval="central")
    with pytest.raises(ParameterError, match="prob"):
        posterior_table(_planted([0.0, 1.0, 2.0]), prob=1.0)
