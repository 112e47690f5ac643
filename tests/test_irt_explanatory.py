"""Tests of the explanatory IRT model (mmlu_audit.irt.explanatory): recovery of planted
slopes, partition contrasts and subject spread on a small world generated from the model
itself, the restart diagnostics, and input checks."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mmlu_audit.core.errors import ParameterError
from mmlu_audit.core.errors import DataError
from mmlu_audit.analyses.explanatory import explanatory_contrasts
from mmlu_audit.irt.explanatory import (ExplanatorySpec, fit_explanatory, fit_explanatory_restarts,
                                        identification_table, is_identified, step_count_summary)

BETA, GAMMA, DELTA, TAU, SIGMA_B = np.array([0.4, 0.0]), np.array([0.6, 0.0]), 0.5, 0.5, 0.7


@pytest.fixture(scope="module")
def world():
    """300 models × 960 items in 24 subjects (8 STEM) from the model itself (2PL)."""
    rng = np.random.default_rng(11)
    n_models, n_subjects, per_subject = 300, 24, 40
    subjects = np.repeat([f"s{k:02d}" for k in range(n_subjects)], per_subject)
    stem = np.repeat(np.arange(n_subjects) < 8, per_subject)
    X = pd.DataFrame(rng.normal(size=(subjects.size, 2)), columns=["x1", "x2"])
    u = rng.normal(0, TAU, n_subjects)
    u -= u.mean()
    b = (DELTA * stem + X.to_numpy() @ BETA + stem * (X.to_numpy() @ GAMMA)
         + np.repeat(u, per_subject) + rng.normal(0, SIGMA_B, subjects.size))
    a = np.exp(rng.normal(0, 0.2, subjects.size))
    theta = rng.normal(size=n_models)
    y = (rng.random((n_models, subjects.size)) < 1 / (1 + np.exp(-a * (theta[:, None] - b)))).astype(np.int8)
    return {"y": y, "X": X, "stem": stem, "subjects": subjects, "b": b}


@pytest.fixture(scope="module")
def fits(world):
    spec = ExplanatorySpec(guessing=0.0, steps=1000, rel_tol=1e-4)
    return fit_explanatory_restarts(world["y"], world["X"], world["stem"], world["subjects"], seeds=(0, 1),
                                    spec=spec, progress=False)


def test_recovers_slopes_contrasts_and_difficulties(world, fits):
    fit = fits[0]
    est = fit.scalars["mean"]
    assert est["beta[x1]"] == pytest.approx(BETA[0], abs=0.12)
    assert est["gamma[x1]"] == pytest.approx(GAMMA[0], abs=0.15)
    assert abs(est["gamma[x2]"]) < 0.15 and abs(est["beta[x2]"]) < 0.12
    assert est["sigma_b"] == pytest.approx(SIGMA_B, abs=0.15)
    assert np.corrcoef(fit.b, world["b"])[0, 1] > 0.95
    assert fit.converged


def test_restart_table_flags_gamma_as_identified(fits):
    table = identification_table(fits)
    assert {"gamma[x1]", "delta", "delta_plus_subject_gap", "tau"} <= set(table.index)
    assert (table["restart_sd"] >= 0).all() and (table["posterior_sd"] > 0).all()
    assert is_identified(fits)


def test_explanatory_contrasts_sit_beside_the_two_stage_ones(world, fits):
    frame = world["X"].assign(b_hat=world["b"], stem=world["stem"], subject=world["subjects"])
    planted = pd.DataFrame({"STEM": BETA + GAMMA, "non-STEM": BETA}, index=["x1", "x2"])
    table = explanatory_contrasts(fits, frame, ["x1", "x2"], planted=planted)
    assert list(table.index) == ["x1", "x2"] and table.columns[0] == "planted γ (simulated)"
    assert table["planted γ (simulated)"].tolist() == pytest.approx(GAMMA.tolist())
    assert table.loc["x1", "two-stage (b̂ units)"] == pytest.approx(GAMMA[0], abs=0.15)  # OLS on the true b
    half = (1.959963984540054 * table["posterior SD"]).to_numpy()
    assert (table["posterior 95 % high"] - table["explanatory γ"]).to_numpy() == pytest.approx(half)
    assert table["explanatory γ"].tolist() == identification_table(fits).loc[["gamma[x1]", "gamma[x2]"],
                                                                              "mean"].tolist()
    with pytest.raises(ParameterError, match="level"):
        explanatory_contrasts(fits, frame, ["x1", "x2"], level=1.0)


def test_same_seed_same_fit_and_bad_inputs(world, fits):
    rows, columns = slice(0, 60), np.r_[0:120, 600:720]  # two STEM and three non-STEM subjects
    tiny = (world["y"][rows, columns], world["X"].iloc[columns], world["stem"][columns],
            world["subjects"][columns])
    spec = ExplanatorySpec(guessing=0.0, steps=200)
    first, again = fit_explanatory_restarts(*tiny, seeds=(3, 3), spec=spec, progress=False)
    pd.testing.assert_frame_equal(again.scalars, first.scalars)
    alone = fit_explanatory(*tiny, seed=3, spec=spec, progress=False)  # a fresh compile, same numbers
    pd.testing.assert_frame_equal(alone.scalars, first.scalars)
    with pytest.raises(ParameterError, match="seed"):
        fit_explanatory(world["y"], world["X"], world["stem"], world["subjects"], seed=None)
    mixed = world["stem"].copy()
    mixed[0] = not mixed[0]
    with pytest.raises(DataError, match="span both partitions"):
        fit_explanatory(world["y"], world["X"], mixed, world["subjects"], seed=0)
    with pytest.raises(DataError, match="rows"):
        fit_explanatory(world["y"], world["X"].iloc[:10], world["stem"], world["subjects"], seed=0)
    with pytest.raises(DataError, match="both partitions"):
        fit_explanatory(world["y"], world["X"], np.zeros_like(world["stem"]), world["subjects"], seed=0)
    with pytest.raises(DataError, match="two restarts"):
        identification_table(fits[:1])


def _tiny(world):
    rows, columns = slice(0, 60), np.r_[0:120, 600:720]  # two STEM and three non-STEM subjects
    return (world["y"][rows, columns], world["X"].iloc[columns], world["stem"][columns],
            world["subjects"][columns])


def test_compiled_chunks_equal_python_stepped_updates(world):
    """The scan over ``chunk`` updates is the stepwise loop (``chunk=1``: one update per Python
    step, as the module ran before), remainder chunk included."""
    tiny = _tiny(world)
    fits = {chunk: fit_explanatory(*tiny, seed=5, progress=False,
                                   spec=ExplanatorySpec(guessing=0.25, steps=130, window=20, chunk=chunk))
            for chunk in (1, 50)}
    for chunk in (50,):  # 50 + 50 + a 30-step remainder
        np.testing.assert_allclose(fits[chunk].elbo, fits[1].elbo, rtol=1e-5)
        pd.testing.assert_frame_equal(fits[chunk].scalars, fits[1].scalars, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(fits[chunk].b, fits[1].b, rtol=1e-4, atol=1e-5)
    assert fits[1].elbo.size == 130


def test_fit_equals_numpyros_own_svi_run(world):
    """An independent reference: NumPyro's ``SVI.run`` (its own compiled loop) on the same
    model, guide, optimiser and seed ends at the same guide parameters."""
    import jax
    import numpyro
    from numpyro.infer import SVI, Trace_ELBO
    from numpyro.infer.autoguide import AutoNormal
    from numpyro.infer.initialization import init_to_value

    from mmlu_audit.core.seeds import child_seed
    from mmlu_audit.irt.explanatory import _initial_values, _inputs, explanatory_model

    tiny = _tiny(world)
    spec = ExplanatorySpec(guessing=0.25, steps=120, window=20, chunk=40)
    fit = fit_explanatory(*tiny, seed=8, spec=spec, progress=False)
    signs, X, stem, names, codes = _inputs(*tiny)
    guide = AutoNormal(explanatory_model, init_loc_fn=init_to_value(values=_initial_values(signs, 0.25)),
                       init_scale=spec.init_scale)
    svi = SVI(explanatory_model, guide, numpyro.optim.Adam(lambda step: 0.05 * 0.998**step), Trace_ELBO(),
              n_subjects=len(names), guessing=0.25)
    result = svi.run(jax.random.PRNGKey(8), spec.steps, signs, X.to_numpy(np.float32),
                     stem.astype(np.float32), codes, progress_bar=False)
    np.testing.assert_allclose(-np.asarray(result.losses), fit.elbo, rtol=1e-5)
    median = guide.median(result.params)
    np.testing.assert_allclose(np.asarray(median["b"]), fit.b, rtol=1e-4, atol=1e-5)
    gamma = fit.scalars.loc[[f"gamma[{c}]" for c in X.columns], "mean"]
    np.testing.assert_allclose(np.asarray(median["gamma"]), gamma, rtol=1e-4, atol=1e-5)
    draws = guide.sample_posterior(jax.random.PRNGKey(child_seed(8, 1)), result.params, sample_shape=(1000,))
    for name in ("tau", "sigma_b"):
        values = np.asarray(draws[name])
        np.testing.assert_allclose(fit.scalars.loc[name], [values.mean(), values.std()], rtol=1e-4)


@pytest.mark.parametrize("field, value", [("chunk", 0), ("chunk", 2.5), ("steps", True), ("window", -1)])
def test_spec_refuses_non_positive_or_non_integer_counts(field, value):
    with pytest.raises(ParameterError, match=field):
        ExplanatorySpec(**{field: value})


def test_step_count_summary_reads_where_each_restarts_rule_first_held():
    from types import SimpleNamespace

    settled = -5e3 * (1 + np.exp(-np.arange(1000) / 60))  # settles within the rule's tolerance
    rising = np.linspace(-9e3, -5e3, 1000)  # never settles
    spec = ExplanatorySpec(steps=1000)
    summary = step_count_summary([SimpleNamespace(elbo=settled), SimpleNamespace(elbo=settled)], spec)
    first = summary["first_converged_steps"][0]
    assert summary["first_converged_steps"] == [first, first] and 2 * spec.window <= first < 1000
    assert summary["step_count_reading"].endswith(f"are {1000 / first:.1f}× the latest of them")
    bad = step_count_summary([SimpleNamespace(elbo=settled), SimpleNamespace(elbo=rising)], spec)
    assert bad["first_converged_steps"][1] is None and "in 1 of the 2 restarts" in bad["step_count_reading"]
