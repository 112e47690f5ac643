"""Each model's β under the 3PL null: the replicates of the null's r, one level down."""

import numpy as np
import pandas as pd
import pytest

from mmlu_audit.analyses.modelside import beta_theta_correlations, null_correlations
from mmlu_audit.analyses.modelside.null3pl import null_betas, two_stage_null
from mmlu_audit.analyses.modelside.null_band import beta_band, null_beta_band
from mmlu_audit.core.errors import DataError, ParameterError


def _null_world(n_models=40, n_items=300, seed=2):
    rng = np.random.default_rng(seed)
    theta, depth = rng.normal(size=n_models), rng.normal(size=n_items)
    b, a = 0.5 * depth + rng.normal(0, 1, n_items), np.exp(rng.normal(0, 0.3, n_items))
    observed = rng.random((n_models, n_items)) > 0.1
    return theta, a, b, depth, observed


def test_null_betas_are_the_replicates_whose_r_null_correlations_reports():
    theta, a, b, depth, observed = _null_world()
    draws = null_betas(theta, a, b, depth, observed, replicates=3, seed=4)
    assert draws.shape == (3, 40)
    again = null_betas(theta, a, b, depth, observed, replicates=3, seed=4)
    np.testing.assert_array_equal(draws, again)
    null = null_correlations(theta, a, b, depth, observed, replicates=3, seed=4, progress=False)
    for r in range(3):
        assert beta_theta_correlations(draws[r], theta)["all"] == pytest.approx(null.loc[r, "all"], rel=1e-12)


def test_null_betas_refuse_no_replicates_and_no_seed():
    theta, a, b, depth, observed = _null_world(n_models=5, n_items=20)
    with pytest.raises(DataError, match="replicate"):
        null_betas(theta, a, b, depth, observed, replicates=0, seed=1)
    with pytest.raises(ParameterError, match="seed"):
        null_betas(theta, a, b, depth, observed, replicates=1, seed=None)


def _three_pl_matrix(n_models=50, n_items=80, seed=5):
    """A 3PL matrix, the first half of the items STEM, STEM item 2 unanswered, with its item frame."""
    from mmlu_audit.data.responses import MISSING, ResponseMatrix

    rng = np.random.default_rng(seed)
    theta, b = rng.normal(size=n_models), rng.normal(size=n_items)
    p = 0.25 + 0.75 / (1 + np.exp(-(theta[:, None] - b[None, :])))
    y = (rng.random(p.shape) < p).astype(np.int8)
    y[:, 2] = MISSING
    ids = np.array([f"i{k}" for k in range(n_items)])
    matrix = ResponseMatrix(y, pd.DataFrame({"model_id": [f"m{j}" for j in range(n_models)]}), ids,
                            "test", simulated=True)
    frame = pd.DataFrame({"stem": np.arange(n_items) < n_items // 2, "wscg_depth": rng.normal(size=n_items),
                          "b_hat": b}, index=pd.Index(ids, name="item_id"))
    return matrix, frame, theta + rng.normal(0, 0.1, n_models)


@pytest.fixture
def short_fit(monkeypatch):
    """A short 3PL fit, read by the band and by the headline alike (the second finds it cached)."""
    import mmlu_audit.analyses.modelside as modelside
    from mmlu_audit.analyses.modelside import null3pl

    short = null3pl.null_spec

    def short_spec(fast=False, seed=0):
        return short(fast, seed).with_(max_steps=60, min_steps=10)

    monkeypatch.setattr(null3pl, "null_spec", short_spec)
    monkeypatch.setattr(modelside, "null_spec", short_spec)


def test_the_band_belongs_to_the_headline_null(short_fit):
    from mmlu_audit.analyses.modelside import two_stage_headline

    matrix, frame, theta_hat = _three_pl_matrix()
    band = null_beta_band(matrix, frame, theta_hat, seed=3, fast=True, replicates=6, level=0.9)
    assert list(band.index) == [f"m{j}" for j in range(50)] and band.index.name == "model_id"
    np.testing.assert_array_equal(band["theta_hat"], theta_hat)
    assert (band["null_low"] <= band["null_mean"]).all() and (band["null_mean"] <= band["null_high"]).all()
    assert (band["n_replicates"] <= 6).all() and (band["n_replicates"] > 0).all()
    # the band's replicates carry the headline's null: the mean of their r is its null_r_all
    headline = two_stage_headline(matrix, frame, theta_hat, seed=3, fast=True, replicates=6)
    from mmlu_audit.analyses.modelside import column_submatrix, reasoning_sensitivity

    answered = frame["stem"].to_numpy() & (np.arange(80) != 2)
    observed = reasoning_sensitivity(column_submatrix(matrix, answered).responses,
                                     frame.loc[answered, "wscg_depth"])["beta"].to_numpy()
    np.testing.assert_allclose(band["beta"], observed)
    assert beta_theta_correlations(band["beta"].to_numpy(), theta_hat)["all"] == pytest.approx(
        headline["rs_r_all"], rel=1e-12)


def test_one_draw_of_the_null_serves_the_headline_and_the_band(short_fit, monkeypatch):
    from mmlu_audit.analyses.modelside import null3pl, two_stage_headline

    matrix, frame, theta_hat = _three_pl_matrix()
    calls = []
    drawn = null3pl.null_betas

    def counted(*args, **kwargs):
        calls.append(kwargs["replicates"])
        return drawn(*args, **kwargs)

    monkeypatch.setattr(null3pl, "null_betas", counted)
    null = two_stage_null(matrix, frame, theta_hat, seed=3, fast=True, replicates=6)
    band = beta_band(null, level=0.9)
    assert calls == [6]  # the headline and the band read one simulation
    again = null_beta_band(matrix, frame, theta_hat, seed=3, fast=True, replicates=6, level=0.9)
    pd.testing.assert_frame_equal(band, again)
    assert null.headline == pytest.approx(two_stage_headline(matrix, frame, theta_hat, seed=3, fast=True,
                                                             replicates=6), nan_ok=True)
    # the headline's null r is the mean over the band's replicates of r(β, θ of the 3PL)
    rs = [beta_theta_correlations(row, null.theta_3pl)["all"] for row in null.draws]
    assert null.headline["null_r_all"] == pytest.approx(np.mean(rs), rel=1e-12)


def test_the_band_refuses_mismatched_abilities_and_a_bad_level():
    matrix, frame, theta_hat = _three_pl_matrix()
    with pytest.raises(DataError, match="theta_hat"):
        null_beta_band(matrix, frame, theta_hat[:-1], seed=3, fast=True, replicates=2)
    with pytest.raises(ParameterError, match="level"):
        null_beta_band(matrix, frame, theta_hat, seed=3, fast=True, replicates=2, level=1.5)
