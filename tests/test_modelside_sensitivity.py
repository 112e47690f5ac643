"""β per model: batched Newton against statsmodels Logit, truth recovery, the 3PL null."""

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.analyses.modelside import (beta_theta_correlations, construct_consistency, null_correlations,
                                  null_summary, reasoning_sensitivity, simulate_3pl)
from mmlu_audit.core.scaling import standardise


def _logistic_world(n_models=12, n_items=400, seed=0, missing=0.2):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n_items)
    alpha, beta = rng.normal(0, 1, n_models), rng.normal(-0.3, 0.3, n_models)
    p = 1 / (1 + np.exp(-(alpha[:, None] + beta[:, None] * standardise(x)[None, :])))
    y = (rng.random(p.shape) < p).astype(np.int8)
    y[rng.random(p.shape) < missing] = -1
    return y, x, alpha, beta


def test_beta_equals_statsmodels_logit_with_missing_cells_skipped():
    y, x, _, _ = _logistic_world()
    ours = reasoning_sensitivity(y, x)
    z = standardise(x)
    for j in range(4):
        seen = y[j] >= 0
        ref = sm.Logit(y[j, seen].astype(float), sm.add_constant(z[seen])).fit(disp=0, tol=1e-12)
        np.testing.assert_allclose(ours.loc[j, ["alpha", "beta"]].to_numpy(float), ref.params, atol=1e-6)
        assert ours.loc[j, "n_items"] == seen.sum()


def test_beta_recovers_planted_slopes():
    y, x, _, beta = _logistic_world(n_models=30, n_items=20_000, missing=0.0, seed=3)
    est = reasoning_sensitivity(y, x)["beta"].to_numpy()
    # SE of a logistic slope with 20,000 cells is ≈ 0.016–0.02: 5 SE bound.
    assert np.max(np.abs(est - beta)) < 0.1
    assert np.corrcoef(est, beta)[0, 1] > 0.97


def test_degenerate_models_get_nan_not_a_number_that_looks_real():
    y, x, _, _ = _logistic_world(n_models=3)
    y[0] = np.where(y[0] >= 0, 1, -1)  # every answered item right: no finite maximum
    out = reasoning_sensitivity(y, x)
    assert np.isnan(out.loc[0, "beta"]) and not out.loc[0, "converged"]
    assert out.loc[1:, "converged"].all()


def test_bad_inputs_raise_one_clear_error():
    y, x, _, _ = _logistic_world()
    with pytest.raises(DataError, match="does not match"):
        reasoning_sensitivity(y, x[:-1])
    with pytest.raises(DataError, match="constant"):
        reasoning_sensitivity(y, np.ones_like(x))
    with pytest.raises(DataError):
        reasoning_sensitivity(np.full_like(y, 3), x)


def test_correlations_drop_the_weakest_models_by_theta_quantile():
    theta = np.arange(100, dtype=float)
    beta = np.where(theta < 50, theta - 50, 0.0) + np.sin(theta)  # structure only in the bottom half
    r = beta_theta_correlations(beta, theta)
    assert r["all"] > 0.7 and abs(r["excl_bottom_half"]) < 0.3
    top = theta > 49.5
    assert r["excl_bottom_half"] == pytest.approx(np.corrcoef(beta[top], theta[top])[0, 1])
    q = theta > np.quantile(theta, 0.25)
    assert r["excl_bottom_quartile"] == pytest.approx(np.corrcoef(beta[q], theta[q])[0, 1])


def test_guessing_floor_alone_makes_beta_fall_with_ability():
    """The paper's artefact: a 3PL with no interaction still gives r(β, θ) < 0."""
    rng = np.random.default_rng(1)
    n_models, n_items = 200, 1500
    theta = rng.normal(size=n_models)
    depth = rng.normal(size=n_items)
    b = 0.5 * standardise(depth) + rng.normal(0, 1, n_items)
    a = np.exp(rng.normal(0, 0.3, n_items))
    observed = np.ones((n_models, n_items), bool)
    null = null_correlations(theta, a, b, depth, observed, replicates=3, seed=4, progress=False)
    assert (null["all"] < -0.3).all()
    again = null_correlations(theta, a, b, depth, observed, replicates=3, seed=4, progress=False)
    assert null.equals(again)
    table = null_summary({"all": -0.7, "excl_bottom_quartile": -0.5, "excl_bottom_half": -0.4}, null)
    assert table.loc["all", "share of observed"] == pytest.approx(null["all"].mean() / -0.7)


def test_simulate_3pl_keeps_missing_cells_missing_and_respects_the_floor():
    observed = np.ones((50, 40), bool)
    observed[:, :5] = False
    y = simulate_3pl(np.full(50, -8.0), np.ones(40), np.zeros(40), 0.25, observed, np.random.default_rng(0))
    assert (y[:, :5] == -1).all()
    assert abs(y[:, 5:].mean() - 0.25) < 0.05  # far below every item: the guessing rate
    with pytest.raises(DataError):
        simulate_3pl(np.zeros(3), np.ones(4), np.zeros(4), 0.25, observed, np.random.default_rng(0))


def test_seed_none_is_refused():
    with pytest.raises(ParameterError, match="seed"):
        null_correlations(np.zeros(3), np.ones(4), np.zeros(4), np.arange(4.0), np.ones((3, 4), bool),
                          replicates=1, seed=None, progress=False)


def test_construct_consistency_is_a_pair_of_correlations():
    rng = np.random.default_rng(0)
    t, b = rng.normal(size=50), rng.normal(size=80)
    out = construct_consistency(t, 2 * t + 1, b, b + rng.normal(0, 1e-9, 80))
    assert out["theta"] == pytest.approx(1.0) and out["b"] == pytest.approx(1.0)


def test_column_submatrix_keeps_models_and_refuses_an_empty_selection():
    from mmlu_audit.data.responses import ResponseMatrix
    from mmlu_audit.analyses.modelside import column_submatrix

    y, _, _, _ = _logistic_world(n_models=3, n_items=5)
    models = pd.DataFrame({"model_id": ["m0", "m1", "m2"]})
    matrix = ResponseMatrix(y, models, np.array([f"i{k}" for k in range(5)]), "test", True, "test matrix")
    part = column_submatrix(matrix, [True, False, True, False, False])
    assert part.shape == (3, 2) and list(part.item_ids) == ["i0", "i2"]
    np.testing.assert_array_equal(part.responses, y[:, [0, 2]])
    with pytest.raises(DataError, match="selects no items"):
        column_submatrix(matrix, np.zeros(5, bool))


def _three_pl_matrix(n_models=60, n_items=80, seed=5):
    """A 3PL matrix, the first half of the items STEM, STEM item 2 unanswered, with its item frame."""
    from mmlu_audit.data.responses import MISSING, ResponseMatrix

    rng = np.random.default_rng(seed)
    theta, b = rng.normal(size=n_models), rng.normal(size=n_items)
    p = 0.25 + 0.75 / (1 + np.exp(-(theta[:, None] - b[None, :])))
    y = (rng.random(p.shape) < p).astype(np.int8)
    y[:, 2] = MISSING
    y[rng.random(p.shape) < 0.1] = MISSING
    ids = np.array([f"i{k}" for k in range(n_items)])
    matrix = ResponseMatrix(y, pd.DataFrame({"model_id": [f"m{j}" for j in range(n_models)]}), ids,
                            "test", simulated=True)
    frame = pd.DataFrame({"stem": np.arange(n_items) < n_items // 2, "wscg_depth": rng.normal(size=n_items),
                          "b_hat": b + rng.normal(0, 0.1, n_items)}, index=pd.Index(ids, name="item_id"))
    frame.loc["i2", "b_hat"] = np.nan
    return matrix, frame, theta + rng.normal(0, 0.1, n_models)


def test_two_stage_headline_skips_unanswered_stem_items_and_matches_the_central_test(monkeypatch):
    import mmlu_audit.analyses.modelside as modelside
    from mmlu_audit.analyses.central import guessing_floor_test
    from mmlu_audit.analyses.modelside import EXCLUSIONS, column_submatrix, null3pl, two_stage_headline

    # a short 3PL fit (both functions read null_spec, so the second finds the first's fit in the cache)
    short = null3pl.null_spec

    def short_spec(fast=False, seed=0):
        return short(fast, seed).with_(max_steps=60, min_steps=10)

    monkeypatch.setattr(null3pl, "null_spec", short_spec)
    monkeypatch.setattr(modelside, "null_spec", short_spec)
    matrix, frame, theta_hat = _three_pl_matrix()
    out = two_stage_headline(matrix, frame, theta_hat, seed=3, fast=True, replicates=4)
    # the reference: the central claims' guessing-floor test on the same matrix
    central = guessing_floor_test(matrix, frame, theta_hat, seed=3, fast=True, replicates=4)
    for key in ("rs_r_all", "rs_r_low", "rs_r_high", "null_r_all", "null_share_all"):
        assert out[key] == pytest.approx(central[key], rel=1e-12), key
    assert out["n_all"] == central["n_models"]
    # by hand: β over the 39 answered STEM items, then the three correlations and their sample sizes
    answered = frame["stem"].to_numpy() & (np.arange(80) != 2)
    assert (out["n_stem_items"], out["n_stem_unanswered"]) == (39, 1)
    beta = reasoning_sensitivity(column_submatrix(matrix, answered).responses,
                                 frame.loc[answered, "wscg_depth"])["beta"].to_numpy()
    assert np.isfinite(beta).all()
    by_hand = beta_theta_correlations(beta, theta_hat)
    for name, share in EXCLUSIONS.items():
        assert out[f"rs_r_{name}"] == pytest.approx(by_hand[name])
        assert out[f"n_{name}"] == (theta_hat > np.quantile(theta_hat, share)).sum() if share else 60
        assert out[f"null_share_{name}"] == pytest.approx(out[f"null_r_{name}"] / out[f"rs_r_{name}"])
    assert (out["n_excl_bottom_quartile"], out["n_excl_bottom_half"]) == (45, 30)
    assert out["rs_r_low"] < out["rs_r_all"] < out["rs_r_high"]
    assert 0.5 < out["null_b_r_2pl"] <= 1 and 0.5 < out["null_theta_r_2pl"] <= 1


def test_two_stage_headline_refuses_mismatched_abilities_and_too_few_models():
    from mmlu_audit.analyses.modelside import two_stage_headline

    matrix, frame, theta_hat = _three_pl_matrix()
    with pytest.raises(DataError, match="theta_hat"):
        two_stage_headline(matrix, frame, theta_hat[:-1], seed=3, fast=True, replicates=2)
    with pytest.raises(DataError, match="finite β"):
        two_stage_headline(matrix, frame, np.where(np.arange(60) < 57, np.nan, theta_hat), seed=3, fast=True,
                           replicates=2)
