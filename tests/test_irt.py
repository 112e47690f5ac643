"""Tests of mmlu_audit.irt: recovery on simulated data, masking, determinism, inputs,
held-out scoring, reliability and caching. Default-suite sizes are small (≤ 300 models
× 1,500 items, a few hundred steps); full-size runs live in test_irt_slow.py."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.irt import (IRTFit, IRTSpec, fit_cached, fit_irt, fit_key, heldout_loglik,
                            holdout_mask, oracle_difficulties, paired_z, recovery_slope, recovery_stats,
                            split_cohort_reliability)
from mmlu_audit.irt.engine import elbo_converged, first_converged_step

SMALL = {"max_steps": 600}


# ---------------------------------------------------------------- tiny generators
def logistic_data(n_models, n_items, seed, *, guessing=0.0, rasch=False, rho=None,
                  gammas=None, b_sd=1.0):
    """Responses from c + (1 − c)σ(η) with known parameters (and the truth dict)."""
    rng = np.random.default_rng(seed)
    if rho is None:
        theta = rng.normal(size=n_models)
        ability = theta[:, None]
        stem = None
    else:
        cov = np.array([[1.0, rho], [rho, 1.0]])
        theta = rng.multivariate_normal([0.0, 0.0], cov, n_models)
        stem = np.arange(n_items) % 2 == 0
        ability = np.where(stem[None, :], theta[:, :1], theta[:, 1:])
    b = rng.normal(0.0, b_sd, n_items)
    a = np.ones(n_items) if rasch else np.exp(rng.normal(0.0, 0.3, n_items))
    eta = a * (ability - b)
    w = None
    if gammas is not None:
        w = rng.normal(size=n_items)
        w = (w - w.mean()) / w.std()
        eta = eta + w * (gammas[0] + gammas[1] * ability)
    p = guessing + (1 - guessing) / (1 + np.exp(-eta))
    y = (rng.random(p.shape) < p).astype(np.int8)
    return y, {"theta": theta, "a": a, "b": b, "stem": stem, "w": w}


@pytest.fixture(scope="module")
def world_2pl():
    """A 200 × 1,500 slice of the simulated leaderboard world (2PL, b SD 2.24)."""
    from mmlu_audit import load_items
    from mmlu_audit.worlds.simulated import WorldSpec, simulate_world

    items = load_items()
    keep = np.sort(np.random.default_rng(0).choice(len(items), 1500, replace=False))
    spec = WorldSpec(n_models=200, n_distinct=200, n_groups=50, response_model="2pl",
                     calibration="paper-2024")  # engine tests: the world their bounds were set on
    return simulate_world(spec, seed=0, items=items.iloc[keep])


@pytest.fixture(scope="module")
def fit_2pl(world_2pl):
    return fit_irt(world_2pl.matrix, IRTSpec(**SMALL), progress=False)


@pytest.fixture(scope="module")
def small_y():
    return logistic_data(120, 300, seed=3)[0]


# ---------------------------------------------------------------- recovery
def test_2pl_recovers_difficulty_near_the_oracle(world_2pl, fit_2pl):
    """r(b̂, b) close to the oracle (b given the true θ and a) at 200 × 1,500.

    Measured: oracle r = 0.992, SVI r = 0.978 (it must also estimate θ and a from
    200 models). Bound: within 0.03 of the oracle and ≥ 0.96, about twice the gap.
    """
    truth = world_2pl.truth
    oracle = oracle_difficulties(world_2pl.matrix, truth["theta"], truth["a"], 0.0, 2.24,
                                 truth["stem"])
    r_oracle = recovery_stats(oracle, truth["b"])["r"]
    found = recovery_stats(fit_2pl.b, truth["b"])
    assert found["r"] >= max(r_oracle - 0.03, 0.96), (found, r_oracle)


def test_paper_prior_compresses_and_hierarchical_does_not(world_2pl, fit_2pl):
    """Slope of b̂ on b: paper N(0,1) ≈ 0.67 (compressed), hierarchical ≈ 0.94."""
    paper = recovery_stats(fit_2pl.b, world_2pl.truth["b"])["slope"]
    fit_h = fit_irt(world_2pl.matrix, IRTSpec(b_prior="hierarchical", **SMALL), progress=False)
    hier = recovery_stats(fit_h.b, world_2pl.truth["b"])["slope"]
    assert paper < 0.8
    assert abs(hier - 1.0) < 0.15
    assert "sigma_b_mean" in fit_h.dataset and "sigma_a_draws" in fit_h.dataset


def test_wide_prior_weakens_the_compression(world_2pl, fit_2pl):
    fit_w = fit_irt(world_2pl.matrix, IRTSpec(b_prior="wide", **SMALL), progress=False)
    wide = recovery_stats(fit_w.b, world_2pl.truth["b"])["slope"]
    paper = recovery_stats(fit_2pl.b, world_2pl.truth["b"])["slope"]
    assert wide > paper + 0.2


def test_recovery_slope_and_stats_match_scipy_linregress():
    rng = np.random.default_rng(8)
    truth = rng.normal(size=300)
    estimate = 0.6 * truth + 0.2 + rng.normal(0, 0.3, 300)
    ref = stats.linregress(truth, estimate)
    assert recovery_slope(estimate, truth) == pytest.approx(ref.slope, rel=1e-10)
    found = recovery_stats(estimate, truth)
    assert found["slope"] == pytest.approx(ref.slope, rel=1e-10)
    assert found["intercept"] == pytest.approx(ref.intercept, rel=1e-10)
    assert found["r"] == pytest.approx(ref.rvalue, rel=1e-10)
    assert found["rmse"] == pytest.approx(np.sqrt(np.mean((estimate - truth) ** 2)))


def test_recovery_slope_is_nan_when_undefined():
    """It used to return None without a truth, which a format string or an array cannot take."""
    assert np.isnan(recovery_slope([1.0, 2.0], None))
    assert np.isnan(recovery_slope([1.0, 2.0, 3.0], [0.5, 0.5, 0.5]))  # a truth that does not vary
    assert np.isnan(recovery_slope([1.0], [2.0]))
    assert np.isnan(recovery_stats([1.0, 2.0], [3.0, 3.0])["slope"])
    with pytest.raises(DataError, match="recovery_slope: shape mismatch"):
        recovery_slope([1.0, 2.0], [1.0, 2.0, 3.0])
    with pytest.raises(DataError, match="recovery_slope: estimate or truth contains NaN"):
        recovery_slope([1.0, np.nan], [1.0, 2.0])


def test_rasch_recovery():
    """Rasch data, Rasch fit: r ≥ 0.97 and slope within 0.15 of 1 (priors match truth)."""
    y, truth = logistic_data(200, 800, seed=4, rasch=True)
    fit = fit_irt(y, IRTSpec(model="rasch", **SMALL), progress=False)
    stats = recovery_stats(fit.b, truth["b"])
    assert stats["r"] >= 0.97 and abs(stats["slope"] - 1) < 0.15, stats
    assert np.all(fit.a == 1.0) and np.all(fit.dataset["a_sd"].to_numpy() == 0.0)
    assert recovery_stats(fit.theta, truth["theta"])["r"] >= 0.97


def test_3pl_recovers_difficulty_near_the_oracle():
    """3PL (c = 0.25) data: r within 0.04 of the guessing-aware oracle."""
    y, truth = logistic_data(250, 800, seed=5, guessing=0.25)
    fit = fit_irt(y, IRTSpec(model="3pl", **SMALL), progress=False)
    oracle = oracle_difficulties(y, truth["theta"], truth["a"], 0.25, 1.0)
    r_oracle = recovery_stats(oracle, truth["b"])["r"]
    assert recovery_stats(fit.b, truth["b"])["r"] >= r_oracle - 0.04


def test_2d_recovers_the_latent_correlation():
    """Planted ρ = 0.7 (sample value used as truth): |ρ̂ − ρ| < 0.06, narrow posterior."""
    y, truth = logistic_data(300, 1000, seed=6, rho=0.7)
    fit = fit_irt(y, IRTSpec(model="2d", **SMALL), item_stem=truth["stem"], progress=False)
    rho = fit.scalar("rho")
    planted = np.corrcoef(truth["theta"].T)[0, 1]
    assert abs(rho["mean"] - planted) < 0.06, (rho["mean"], planted)
    assert rho["sd"] < 0.05 and rho["draws"].max() < 0.99
    assert fit.dataset["theta_mean"].dims == ("model", "ability")


def test_interaction_recovers_gamma_signs_and_sizes():
    """Planted γ0 = −0.3, γ1 = −0.1 (paper-sized) with c = 0.25.

    The comparison target adds the sample's chance confounding of W with the item
    intercept −a·b (for γ0) and with a (for γ1), the part no estimator can separate.
    Measured errors ≈ 0.04 (γ0) and ≈ 0.01 (γ1); tolerances 0.1 and 0.04.
    """
    y, truth = logistic_data(300, 1000, seed=1, guessing=0.25, gammas=(-0.3, -0.1))
    fit = fit_irt(y, IRTSpec(model="interaction", b_prior="hierarchical", **SMALL), item_covariate=truth["w"],
                  progress=False)
    w, a, b = truth["w"], truth["a"], truth["b"]
    gamma0_target = -0.3 + np.polyfit(w, -a * b, 1)[0]
    gamma1_target = -0.1 + np.polyfit(w, a, 1)[0]
    g0, g1 = fit.scalar("gamma0")["mean"], fit.scalar("gamma1")["mean"]
    assert g0 < 0 and g1 < 0
    assert abs(g0 - gamma0_target) < 0.1, (g0, gamma0_target)
    assert abs(g1 - gamma1_target) < 0.04, (g1, gamma1_target)


# ---------------------------------------------------------------- masking, determinism
def test_masked_cells_do_not_enter_the_likelihood(small_y):
    """Flipping held-out cells, or marking them missing, leaves the fit bit-identical."""
    mask = holdout_mask(small_y, 0.1, seed=0)
    spec = IRTSpec(max_steps=100, min_steps=100)
    base = fit_irt(small_y, spec, holdout=mask, progress=False)
    flipped = small_y.copy()
    flipped[mask] = 1 - flipped[mask]
    other = fit_irt(flipped, spec, holdout=mask, progress=False)
    missing = small_y.copy()
    missing[mask] = -1
    as_missing = fit_irt(missing, spec, progress=False)
    for fit in (other, as_missing):
        np.testing.assert_array_equal(fit.b, base.b)
        np.testing.assert_array_equal(fit.theta, base.theta)


def test_same_seed_same_estimates_other_seed_differs(small_y):
    spec = IRTSpec(max_steps=50, min_steps=50, chunk=25)
    first = fit_irt(small_y, spec, progress=False)
    again = fit_irt(small_y, spec, progress=False)
    other = fit_irt(small_y, spec.with_(seed=1), progress=False)
    np.testing.assert_array_equal(first.b, again.b)
    np.testing.assert_array_equal(first.elbo, again.elbo)
    assert not np.array_equal(first.b, other.b)


def test_holdout_mask_is_seeded_and_avoids_missing(small_y):
    y = small_y.copy()
    y[:, 0] = -1
    mask = holdout_mask(y, 0.05, seed=2)
    np.testing.assert_array_equal(mask, holdout_mask(y, 0.05, seed=2))
    assert not mask[:, 0].any()
    assert mask.sum() == round(0.05 * (y != -1).sum())


# ---------------------------------------------------------------- result object
def test_result_layout_and_metadata(fit_2pl, world_2pl):
    ds = fit_2pl.dataset
    assert ds["b_mean"].dims == ("item",) and ds["theta_mean"].dims == ("model",)
    assert list(ds["item"].values[:3]) == list(world_2pl.matrix.item_ids[:3])
    assert (ds["b_sd"] > 0).all() and (ds["a_mean"] > 0).all()
    meta = fit_2pl.meta
    assert {"steps", "converged", "wall_s", "backend", "spec", "versions"} <= set(meta)
    assert meta["backend"].startswith(("cpu", "gpu", "cuda", "tpu"))
    assert fit_2pl.elbo.size == meta["steps"] and np.isfinite(fit_2pl.elbo).all()
    assert fit_2pl.spec == IRTSpec(**SMALL)


def test_convergence_rule():
    flat = np.full(100, -1000.0)
    rising = -1000.0 + np.arange(100.0)
    assert elbo_converged(flat, 25, 1e-4)
    assert not elbo_converged(rising, 25, 1e-4)
    assert not elbo_converged(flat[:40], 25, 1e-4)


def test_stopping_rule_fires_before_max_steps():
    y = logistic_data(60, 120, seed=9)[0]
    fit = fit_irt(y, IRTSpec(max_steps=2000, rel_tol=1e-3), progress=False)
    assert fit.meta["converged"] and fit.meta["steps"] < 2000


# ---------------------------------------------------------------- held-out comparison
def test_heldout_prefers_the_true_two_dimensional_model():
    """On ρ = 0.5 data the 2D model predicts held-out cells better (paired z > 2)."""
    y, truth = logistic_data(200, 600, seed=7, rho=0.5)
    mask = holdout_mask(y, 0.05, seed=0)
    fit_1d = fit_irt(y, IRTSpec(**SMALL), holdout=mask, progress=False)
    fit_2d = fit_irt(y, IRTSpec(model="2d", **SMALL), item_stem=truth["stem"], holdout=mask,
                     progress=False)
    ll_1d, ll_2d = heldout_loglik(fit_1d, y), heldout_loglik(fit_2d, y)
    assert ll_1d.size == mask.sum() and -0.7 < ll_2d.mean() < 0
    comparison = paired_z(ll_2d, ll_1d)
    assert comparison["total_nats"] > 0 and comparison["z"] > 2


def test_paired_z_formula():
    a = np.array([0.0, -1.0, -0.5, -0.2])
    b = np.array([-0.1, -1.0, -0.7, -0.6])
    d = a - b
    out = paired_z(a, b)
    assert out["z"] == pytest.approx(d.sum() / (d.std(ddof=1) * np.sqrt(4)))
    assert out["total_nats"] == pytest.approx(d.sum()) and out["n"] == 4
    with pytest.raises(DataError):
        paired_z(a, b[:3])


# ---------------------------------------------------------------- reliability
def test_split_cohort_reliability(world_2pl):
    out = split_cohort_reliability(world_2pl.matrix, IRTSpec(max_steps=300), seed=0)
    assert out["cohort_size"] == 100 and out["b_first"].shape == (1500,)
    assert 0.9 < out["r"] < 1
    assert out["spearman_brown"] == pytest.approx(2 * out["r"] / (1 + out["r"]))


# ---------------------------------------------------------------- inputs
@pytest.mark.parametrize("bad, message", [
    (np.array([[0, 1], [2, 0]], dtype=np.int8), "non-binary"),
    (np.array([[0.0, np.nan], [1.0, 0.0]]), "NaN; encode missing cells explicitly"),
    (np.array([[0, 1], [-1, -1]], dtype=np.int8), "model row"),
    (np.array([[0, -1], [1, -1]], dtype=np.int8), "item column"),
    (np.array([0, 1, 1], dtype=np.int8), "2-D"),
])
def test_bad_responses_raise_data_error(bad, message):
    with pytest.raises(DataError, match=message):
        fit_irt(bad, IRTSpec(max_steps=1), progress=False)


def test_bad_item_inputs_raise_data_error(small_y):
    with pytest.raises(DataError, match="shape mismatch"):
        fit_irt(small_y, IRTSpec(model="2d"), item_stem=np.ones(5, bool), progress=False)
    with pytest.raises(DataError, match="needs item_stem"):
        fit_irt(small_y, IRTSpec(model="2d"), progress=False)
    with pytest.raises(DataError, match="constant"):
        fit_irt(small_y, IRTSpec(model="interaction", b_prior="hierarchical"), item_covariate=np.ones(300),
                progress=False)
    with pytest.raises(DataError, match="shape mismatch"):
        fit_irt(small_y, holdout=np.zeros((3, 3), bool), progress=False)
    with pytest.raises(ParameterError, match="unknown model"):
        IRTSpec(model="4pl")


# ---------------------------------------------------------------- cache
def test_fit_cached_reuses_and_rekeys(tmp_path, small_y, monkeypatch):
    spec = IRTSpec(max_steps=50, min_steps=50)
    first = fit_cached(small_y, spec, tmp_path, progress=False)
    assert len(list(tmp_path.glob("*.nc"))) == 1

    def refuse(*args, **kwargs):
        raise AssertionError("refitted although the inputs were unchanged")

    monkeypatch.setattr("mmlu_audit.irt.cache.fit_irt", refuse)
    again = fit_cached(small_y, spec, tmp_path, progress=False)
    np.testing.assert_array_equal(again.b, first.b)
    assert again.meta == first.meta
    changed = small_y.copy()
    changed[0, 0] = 1 - changed[0, 0]
    assert fit_key(changed, spec) != fit_key(small_y, spec)
    assert fit_key(small_y, spec.with_(seed=1)) != fit_key(small_y, spec)
    assert fit_key(small_y, spec.with_(max_steps=60)) != fit_key(small_y, spec)


def test_save_load_roundtrip(tmp_path, fit_2pl):
    path = fit_2pl.save(tmp_path / "fit.nc")
    loaded = IRTFit.load(path)
    np.testing.assert_allclose(loaded.b, fit_2pl.b)
    assert loaded.meta == fit_2pl.meta
    with pytest.raises(DataError):
        IRTFit.load(tmp_path / "missing.nc")


def test_unreadable_cache_is_refitted_with_a_warning(tmp_path):
    from mmlu_audit.irt import fit_cached

    rng = np.random.default_rng(4)
    y = (rng.random((30, 40)) < 0.6).astype(np.int8)
    spec = IRTSpec(max_steps=50, min_steps=25, seed=2)
    first = fit_cached(y, spec, tmp_path, progress=False)
    (stored,) = tmp_path.glob("irt-*.nc")
    stored.write_bytes(b"not netcdf")
    with pytest.warns(UserWarning, match="not a readable IRT fit.*refitting"):
        again = fit_cached(y, spec, tmp_path, progress=False)
    np.testing.assert_array_equal(again.b, first.b)
    assert fit_cached(y, spec, tmp_path, progress=False).b.tolist() == first.b.tolist()


@pytest.mark.parametrize("guessing", [0.0, 0.25])
def test_cell_loglik_is_the_log_of_the_response_probability(guessing):
    """Against log P written directly in float64, over η far into both tails; missing cells give 0."""
    import jax.numpy as jnp

    from mmlu_audit.irt.models import cell_loglik

    eta = np.linspace(-30, 30, 601)
    # float64 references, the tails written without cancellation: 1 − P = (1 − c)(1 − σ(η))
    log_wrong = np.log1p(-guessing) - np.logaddexp(0, eta)
    log_right = np.log(guessing + (1 - guessing) / (1 + np.exp(-eta)))
    for sign, want in ((1, log_right), (-1, log_wrong), (0, np.zeros_like(eta))):
        signs = jnp.full(eta.shape, sign, jnp.int8)
        got = np.asarray(cell_loglik(jnp.asarray(eta, jnp.float32), signs, guessing), np.float64)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_two_way_clustered_z_is_cameron_gelbach_miller():
    from mmlu_audit.irt import paired_z_two_way

    rng = np.random.default_rng(3)
    rows, columns = rng.integers(0, 30, 2000), rng.integers(0, 40, 2000)
    model_effect, item_effect = rng.normal(0, 0.3, 30), rng.normal(0, 0.3, 40)
    a = model_effect[rows] + item_effect[columns] + rng.normal(0.05, 1, 2000)
    b = np.zeros(2000)
    out = paired_z_two_way(a, b, rows, columns)
    by_rows, by_columns = paired_z(a, b, clusters=rows), paired_z(a, b, clusters=columns)
    both = paired_z(a, b, clusters=rows * 1000 + columns)
    variance = sum((out["total_nats"] / z) ** 2 * sign for z, sign in
                   ((by_rows["z"], 1), (by_columns["z"], 1), (both["z"], -1)))
    assert out["z"] == pytest.approx(out["total_nats"] / np.sqrt(variance))
    assert (out["z_rows"], out["z_columns"]) == pytest.approx((by_rows["z"], by_columns["z"]))
    assert (out["n_row_clusters"], out["n_column_clusters"], out["fallback"]) == (30, 40, False)
    # shared model and item effects make the clustered evidence weaker than the independent-cells z
    assert abs(out["z"]) < abs(paired_z(a, b)["z"])


def test_two_way_z_falls_back_to_the_larger_one_way_variance_when_not_positive():
    from mmlu_audit.irt import paired_z_two_way

    # a 2 × 2 checkerboard: row and column sums of the residuals nearly cancel, the cells do not
    a, b = np.array([1.0, -1.0, -1.0, 1.2]), np.zeros(4)
    out = paired_z_two_way(a, b, rows=np.array([0, 0, 1, 1]), columns=np.array([0, 1, 0, 1]))
    assert out["fallback"] and out["z"] == pytest.approx(min(out["z_rows"], out["z_columns"], key=abs))


def test_first_converged_step_is_where_the_rule_would_have_stopped_the_fit():
    rng = np.random.default_rng(3)
    trace = -1e4 * (1 + 2 * np.exp(-np.arange(1500) / 120)) + rng.normal(0, 0.05, 1500)
    window, tol = 50, 2e-5
    brute = next(n for n in range(2 * window, trace.size + 1) if elbo_converged(trace[:n], window, tol))
    assert first_converged_step(trace, window, tol) == brute
    assert 2 * window < brute < trace.size
    assert first_converged_step(np.linspace(-2e4, -1e4, 1500), window, tol) is None  # still rising
    assert first_converged_step(trace[:60], window, tol) is None  # shorter than two windows
