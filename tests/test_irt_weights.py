"""Frequency weights of model rows and item columns: a row (column) of weight k is k identical
rows (columns), one of weight 0 is absent.

The bootstrap of the interaction model fits each resample as weights on the full matrix (so
every refit has one shape and one compiled program). That is only honest if the weighted ELBO
is the ELBO of the duplicated-and-dropped matrix (with the copies' guide factors equal, as they
are at the optimum) and the fits agree.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.irt import IRTSpec, fit_irt
from mmlu_audit.irt.data import prepare_data
from mmlu_audit.irt.engine import elbo_estimate
from mmlu_audit.irt.models import model_sites

COUNTS = np.array([1, 3, 0, 2, 4, 1])
ITEM_COUNTS = np.array([2, 1, 0, 1, 3, 1, 0, 1, 2])


def _responses(n_models, n_items, seed):
    rng = np.random.default_rng(seed)
    theta, b = rng.normal(size=n_models), rng.normal(size=n_items)
    y = (rng.random((n_models, n_items)) < 1 / (1 + np.exp(-(theta[:, None] - b)))).astype(np.int8)
    y[rng.random(y.shape) < 0.1] = -1
    return y


def _inputs(model, n_items=9):
    stem = np.arange(n_items) % 2 == 0 if model == "2d" else None
    covariate = np.linspace(0.0, 3.0, n_items) if model == "interaction" else None
    return {"item_stem": stem, "item_covariate": covariate}


def _elbo(spec, data, guide):
    sites = model_sites(spec, *data.shape)
    weights = [None if w is None else jnp.asarray(w) for w in (data.row_weight, data.item_weight)]
    stem = None if data.item_stem is None else jnp.asarray(data.item_stem)
    covariate = None if data.covariate is None else jnp.asarray(data.covariate)
    return jax.value_and_grad(lambda g: elbo_estimate(spec, sites, g, jax.random.PRNGKey(0),
                                                      jnp.asarray(data.signs), stem, covariate,
                                                      *weights))(guide)


def _guide(spec, shape, rows=None, cols=None):
    """A deterministic guide (σ = e⁻²⁰, so the draw is the mean), θ copied along ``rows``,
    a and b along ``cols``."""
    rng = np.random.default_rng(3)
    loc, log_scale = {}, {}
    for site in model_sites(spec, *shape):
        loc[site.name] = jnp.asarray(rng.normal(0, 0.5, site.shape), jnp.float32)
        log_scale[site.name] = jnp.full(site.shape, -20.0, jnp.float32)
    for names, index in ((("theta",), rows), (("a", "b"), cols)):
        for name in (n for n in names if n in loc and index is not None):
            loc[name], log_scale[name] = loc[name][index], log_scale[name][index]
    return loc, log_scale


def _summed_over_copies(grad, index, n):
    """The gradient of a weighted factor: the sum of its copies' gradients (0 for an absent one)."""
    return np.stack([grad[index == k].sum(0) for k in range(n)])


@pytest.mark.parametrize("model, b_prior", [("2pl", "paper"), ("3pl", "paper"), ("2d", "paper"),
                                            ("interaction", "hierarchical"), ("rasch", "hierarchical"),
                                            ("2pl", "hierarchical")])
@pytest.mark.parametrize("weigh_items", [False, True])
def test_weighted_elbo_is_the_elbo_of_duplicated_and_dropped_rows_and_items(model, b_prior, weigh_items):
    spec = IRTSpec(model=model, b_prior=b_prior, guessing=0.25)
    y = _responses(len(COUNTS), len(ITEM_COUNTS), seed=1)
    item_counts = ITEM_COUNTS if weigh_items else np.ones(len(ITEM_COUNTS), int)
    rows = np.repeat(np.arange(len(COUNTS)), COUNTS)
    cols = np.repeat(np.arange(len(item_counts)), item_counts)
    inputs = _inputs(model, len(ITEM_COUNTS))
    weighted = prepare_data(y, model, row_weight=COUNTS, item_weight=item_counts if weigh_items else None,
                            **inputs)
    duplicated = prepare_data(y[np.ix_(rows, cols)], model,
                              **{k: None if v is None else v[cols] for k, v in inputs.items()})
    if model == "interaction":  # the weighted standardisation of W is the duplicated matrix's
        np.testing.assert_allclose(weighted.covariate[cols], duplicated.covariate, atol=1e-6)
    value, grads = _elbo(spec, weighted, _guide(spec, weighted.shape))
    want, want_grads = _elbo(spec, duplicated, _guide(spec, weighted.shape, rows, cols))
    # the entropy's log σ = −20 per copy is large, so compare at float32 resolution
    assert float(value) == pytest.approx(float(want), rel=1e-6)
    for part, want_part in zip(grads, want_grads, strict=True):
        for name in part:
            got, expect = np.asarray(part[name]), np.asarray(want_part[name])
            if name == "theta":  # one weighted factor carries the gradient of all its copies
                expect = _summed_over_copies(expect, rows, len(COUNTS))
            elif name in ("a", "b"):
                expect = _summed_over_copies(expect, cols, len(item_counts))
            np.testing.assert_allclose(got, expect, rtol=2e-4, atol=2e-3)
    assert not np.asarray(grads[0]["theta"])[COUNTS == 0].any()  # an absent model gets no gradient
    if weigh_items:
        assert not np.asarray(grads[0]["b"])[ITEM_COUNTS == 0].any()


def test_weighted_fit_matches_the_duplicated_fit():
    y = _responses(150, 120, seed=2)
    counts = np.random.default_rng(4).integers(1, 4, len(y))
    rows = np.repeat(np.arange(len(y)), counts)
    # a fixed number of steps, so the stopping rule cannot end the two runs at different points;
    # for scale, two seeds of the duplicated fit differ by up to 0.1 in b at r = 0.9994
    spec = IRTSpec(seed=0, max_steps=800, min_steps=800)
    weighted = fit_irt(y, spec, row_weight=counts, progress=False)
    duplicated = fit_irt(y[rows], spec, progress=False)
    assert np.corrcoef(weighted.b, duplicated.b)[0, 1] > 0.9999
    assert np.abs(weighted.b - duplicated.b).max() < 0.04
    # θ from 120 items is noisy per step: two seeds of the duplicated fit give r = 0.9992
    copies_mean = np.bincount(rows, duplicated.theta) / counts
    assert np.corrcoef(weighted.theta, copies_mean)[0, 1] > 0.998


@pytest.mark.parametrize("name, n", [("row_weight", 6), ("item_weight", 9)])
@pytest.mark.parametrize("last, problem", [(None, "one entry per"), (-1, "whole numbers ≥ 0"),
                                           (1.5, "whole numbers ≥ 0"), (np.nan, "whole numbers ≥ 0"),
                                           (0, "0 everywhere")])
def test_bad_weights_are_refused(name, n, last, problem):
    weight = np.ones(n - 1) if last is None else np.r_[np.ones(n - 1) * (last != 0), last]
    with pytest.raises(DataError, match=problem):
        prepare_data(_responses(6, 9, seed=0), "2pl", **{name: weight})


def test_a_present_row_or_item_needs_a_response_among_the_present_ones():
    y = _responses(6, 9, seed=0)
    y[0, :] = -1
    y[0, 4] = 1  # model 0 answered only item 4
    with pytest.raises(DataError, match="model row"):
        prepare_data(y, "2pl", item_weight=np.r_[np.ones(4), 0, np.ones(4)])
    prepare_data(y, "2pl", row_weight=np.r_[0, np.ones(5)], item_weight=np.r_[np.ones(4), 0, np.ones(4)])


@pytest.mark.parametrize("name", ["row_weight", "item_weight"])
def test_weights_are_a_handwritten_engine_option(name):
    weight = COUNTS if name == "row_weight" else ITEM_COUNTS
    with pytest.raises(ParameterError, match=name):
        fit_irt(_responses(6, 9, seed=0), IRTSpec(max_steps=10), **{name: weight}, engine="numpyro",
                progress=False)


def _interaction_world(seed):
    """A 300 × 400 interaction world over a guessing floor of 0.25: the generator (to draw on from),
    the responses, the depth covariate and one bootstrap draw of row counts."""
    rng = np.random.default_rng(seed)
    n_models, n_items = 300, 400
    theta, b, a = rng.normal(size=n_models), rng.normal(size=n_items), np.exp(rng.normal(0, 0.2, n_items))
    w = rng.gamma(2.0, 1.0, n_items)
    z = (w - w.mean()) / w.std()
    eta = a * (theta[:, None] - b) + z * (-0.3 - 0.1 * theta[:, None])
    y = (rng.random(eta.shape) < 0.25 + 0.75 / (1 + np.exp(-eta))).astype(np.int8)
    return rng, y, w, np.bincount(rng.integers(0, n_models, n_models), minlength=n_models)


def test_weighted_interaction_fit_matches_the_duplicated_and_dropped_fit():
    """Rows and items drawn as in a bootstrap (some twice, some not at all), fitted as weights on the
    full matrix and as the explicit matrix: γ agrees within the optimiser's seed-to-seed tolerance
    (half a reported SD, :data:`test_irt_estimators.SEED_FRACTION`), and absent entries are NaN."""
    rng, y, w, counts = _interaction_world(5)
    n_models, n_items = y.shape
    item_counts = np.bincount(rng.integers(0, n_items, n_items), minlength=n_items)
    rows, cols = np.repeat(np.arange(n_models), counts), np.repeat(np.arange(n_items), item_counts)
    spec = IRTSpec(model="interaction", b_prior="hierarchical", guessing=0.25, max_steps=1000, min_steps=600,
                   average_steps=200)
    weighted = fit_irt(y, spec, item_covariate=w, row_weight=counts, item_weight=item_counts, progress=False)
    explicit = fit_irt(y[np.ix_(rows, cols)], spec, item_covariate=w[cols], progress=False)
    for name in ("gamma0", "gamma1"):
        got, want = weighted.scalar(name), explicit.scalar(name)
        assert abs(got["mean"] - want["mean"]) < 0.5 * want["sd"], (name, got, want)
        assert got["sd"] == pytest.approx(want["sd"], rel=0.02)
    assert np.isnan(weighted.theta[counts == 0]).all() and np.isnan(weighted.b[item_counts == 0]).all()
    assert np.isfinite(weighted.theta[counts > 0]).all() and np.isfinite(weighted.b[item_counts > 0]).all()


def test_iterate_averaging_is_a_handwritten_engine_option():
    with pytest.raises(ParameterError, match="average_steps"):
        fit_irt(_responses(6, 9, seed=0), IRTSpec(max_steps=10, average_steps=25), engine="numpyro",
                progress=False)


def test_weighted_standardise_is_the_standardise_of_the_repeated_sample():
    """Frequency weights in core.scaling: the z-scores and moments of each element repeated w times
    (weight 0 drops it), so the engine's weighted starts and covariate match a duplicated matrix."""
    from mmlu_audit.core.scaling import standardise, weighted_moments

    rng = np.random.default_rng(3)
    x, w = rng.normal(2.0, 3.0, 40), rng.integers(0, 4, 40)
    repeated = np.repeat(x, w)
    assert weighted_moments(x, w) == pytest.approx((repeated.mean(), repeated.std()), rel=1e-12)
    z, mean, sd = standardise(x, weights=w, return_moments=True)
    np.testing.assert_allclose(np.repeat(z, w), standardise(repeated), rtol=1e-12, atol=1e-12)
    assert (mean, sd) == pytest.approx((repeated.mean(), repeated.std()), rel=1e-12)
    with pytest.raises(ValueError, match="1-D"):
        standardise(np.ones((4, 2)), weights=np.ones(4))


def test_present_index_keeps_the_weighted_entries_and_pads_with_weight_zero():
    from mmlu_audit.irt.data import padded_size, present_index

    weight = np.array([0, 2, 0, 1, 3, 0])
    index, kept = present_index(weight)
    assert index.tolist() == [1, 3, 4] and kept.tolist() == [2, 1, 3]
    index, kept = present_index(weight, 5)
    assert index.tolist() == [1, 3, 4, 1, 1] and kept.tolist() == [2, 1, 3, 0, 0]
    assert kept.sum() == weight.sum()
    for bad in (2, 7):
        with pytest.raises(DataError, match="present"):
            present_index(weight, bad)
    with pytest.raises(DataError, match="present"):
        present_index(np.zeros(4, int))
    assert [padded_size(k, 100) for k in (1, 13, 14, 63, 99, 100)] == [13, 13, 26, 65, 100, 100]
    assert padded_size(5, 5, buckets=8) == 5
    with pytest.raises(DataError, match="pad"):
        padded_size(0, 100)


def test_a_compacted_weighted_fit_is_the_weighted_fit_of_the_full_matrix():
    """Dropping the weight-0 rows and columns (padded with weight-0 repeats) leaves the ELBO as it
    was: γ and its SD agree with the full-matrix weighted fit within the optimiser's seed-to-seed
    tolerance (half a reported SD, as in the weighted-vs-duplicated test above)."""
    from mmlu_audit.irt.data import padded_size, present_index

    rng, y, w, counts = _interaction_world(8)
    n_models, n_items = y.shape
    item_counts = np.repeat(np.bincount(rng.integers(0, 20, 20), minlength=20), 20)
    rows, row_w = present_index(counts, padded_size(int((counts > 0).sum()), n_models))
    cols, col_w = present_index(item_counts, padded_size(int((item_counts > 0).sum()), n_items))
    assert rows.size < n_models and cols.size < n_items
    spec = IRTSpec(model="interaction", b_prior="hierarchical", guessing=0.25, max_steps=1000, min_steps=600,
                   average_steps=200)
    full = fit_irt(y, spec, item_covariate=w, row_weight=counts, item_weight=item_counts, progress=False)
    compact = fit_irt(y[np.ix_(rows, cols)], spec, item_covariate=w[cols], row_weight=row_w,
                      item_weight=col_w, progress=False)
    for name in ("gamma0", "gamma1"):
        got, want = compact.scalar(name), full.scalar(name)
        assert abs(got["mean"] - want["mean"]) < 0.5 * want["sd"], (name, got, want)
        assert got["sd"] == pytest.approx(want["sd"], rel=0.02)
    present = col_w > 0  # the padding repeats a present item with weight 0: reported as NaN
    assert np.isnan(compact.b[~present]).all()
    np.testing.assert_allclose(compact.b[present], full.b[cols[present]], atol=0.15)
