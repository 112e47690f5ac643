"""Signed and widened discrimination priors (issue 17 §2.1–2.2), and the real-leaderboard analyses."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.irt import IRTSpec, fit_irt, signed_discrimination
from mmlu_audit.irt.models import log_prior, model_sites, site_priors
from mmlu_audit.analyses.real_leaderboard import (near_identical_pairs, population_counts,
                                                  recommended, score_band_accuracy, score_tracking,
                                                  wrong_way_items)

PLANTED_NEGATIVE = (3, 11, 20, 27)


@pytest.fixture(scope="module")
def planted():
    """600 models × 30 items of 2PL data, four items discriminating the wrong way (a = −1.5)."""
    rng = np.random.default_rng(17)
    theta = rng.normal(size=600)
    a = np.exp(rng.normal(0.2, 0.3, 30))
    a[list(PLANTED_NEGATIVE)] = -1.5
    b = rng.normal(0, 1, 30)
    p = 1 / (1 + np.exp(-a * (theta[:, None] - b)))
    y = (rng.random(p.shape) < p).astype(np.int8)
    return y, a, theta


@pytest.fixture(scope="module")
def signed_fit(planted):
    return fit_irt(planted[0], IRTSpec(a_prior="normal", a_scale=3.0, max_steps=1500), progress=False)


def test_signed_fit_flags_exactly_the_planted_items(planted, signed_fit):
    y, a, theta = planted
    items = pd.DataFrame({"item_id": [f"x/{i}" for i in range(30)]})
    flagged = wrong_way_items(signed_fit, items)
    assert sorted(int(i.split("/")[1]) for i in flagged["item_id"]) == list(PLANTED_NEGATIVE)
    assert np.corrcoef(signed_fit.a, a)[0, 1] > 0.95
    assert np.corrcoef(signed_fit.theta, theta)[0, 1] > 0.9
    redux = pd.DataFrame({"item_id": ["x/3"], "error_type": ["wrong_groundtruth"]})
    labelled = wrong_way_items(signed_fit, items, redux)
    assert labelled.set_index("item_id").loc["x/3", "redux"] == "wrong_groundtruth"
    assert labelled.set_index("item_id").loc["x/11", "redux"] == "not reviewed"


def test_signed_discrimination_gives_the_guide_probability_of_a_negative_a(planted, signed_fit):
    table = signed_discrimination(signed_fit, z=2.0)
    a, sd = signed_fit.a, signed_fit.dataset["a_sd"].to_numpy()
    assert np.allclose(table["p_negative"], stats.norm.cdf(-a / sd))
    assert (table["flagged"] == (table["p_negative"] > stats.norm.cdf(2.0))).all()
    planted_rows = np.isin(np.arange(30), PLANTED_NEGATIVE)
    assert (table.loc[planted_rows, "p_negative"] > 0.99).all()
    assert (table.loc[~planted_rows, "p_negative"] < 0.01).all()
    loose = signed_discrimination(signed_fit, z=0.0)
    assert (loose["flagged"] == (a < 0)).all()


def test_positive_prior_cannot_flag_and_says_so(planted):
    fit = fit_irt(planted[0], IRTSpec(max_steps=600), progress=False)
    assert (fit.a > 0).all()
    with pytest.raises(DataError, match="positive-discrimination fit cannot flag"):
        wrong_way_items(fit, pd.DataFrame({"item_id": [f"x/{i}" for i in range(30)]}))
    with pytest.raises(DataError, match="positive-discrimination fit cannot flag"):
        signed_discrimination(fit)


def test_discrimination_priors_are_the_stated_densities():
    values = {"theta": np.zeros(3), "b": np.zeros(2), "a": np.array([-0.5, 2.0])}
    signed = IRTSpec(a_prior="normal", a_scale=4.0)
    assert site_priors(signed, values)["a"].log_prob(values["a"]).tolist() == pytest.approx(
        stats.norm(0, 4).logpdf(values["a"]).tolist(), rel=1e-5)
    wide = IRTSpec(a_scale=10.0)
    assert float(site_priors(wide, values)["a"].log_prob(2.0)) == pytest.approx(
        stats.halfnorm(scale=10).logpdf(2.0), rel=1e-5)
    expected = (stats.norm.logpdf(np.zeros(3)).sum() + stats.norm.logpdf(np.zeros(2)).sum()
                + stats.norm(0, 4).logpdf(values["a"]).sum())
    assert float(log_prior(signed, values)) == pytest.approx(expected, rel=1e-5)
    assert [s.support for s in model_sites(signed, 3, 2) if s.name == "a"] == ["real"]
    assert [s.support for s in model_sites(IRTSpec(), 3, 2) if s.name == "a"] == ["positive"]


def test_new_fields_keep_every_earlier_cache_key():
    assert "a_prior" not in IRTSpec().to_json() and "a_scale" not in IRTSpec(model="3pl").to_json()
    assert '"a_prior": "normal"' in IRTSpec(a_prior="normal").to_json()
    assert '"a_scale": 10.0' in IRTSpec(a_scale=10.0).to_json()
    with pytest.raises(ParameterError, match="unknown a_prior 'cauchy'"):
        IRTSpec(a_prior="cauchy")
    with pytest.raises(ParameterError, match="a_scale"):
        IRTSpec(a_scale=0.0)


def test_population_counts_by_hand():
    responses = np.array([[1, 0, 1], [1, 0, 1], [0, 0, 1], [0, 1, 1]], dtype=np.int8)
    models = pd.DataFrame({"model_id": ["u/llama-2-7b-chat", "v/llama-2-7b-merge", "w/Mistral-7B",
                                        "W/mistral-7b"], "moe": [False, False, True, False]})
    counts = population_counts(responses, models)
    # rows 0 and 1 are identical; rows 2 and 3 are one repository spelled twice
    assert counts["n_repeated_rows"] == 1 and counts["n_distinct"] == 2
    assert counts["n_groups"] == 2 and counts["share_moe"] == 0.25
    assert counts["share_merged_name"] == 0.25


def test_near_identical_pairs_and_tracking_by_hand():
    pairs = near_identical_pairs([50.0, 70.0, 50.05, 70.3], [0.0, 1.0, 0.4, 1.2], tolerance=0.1)
    assert pairs[["first", "second"]].to_numpy().tolist() == [[0, 2]]
    assert pairs["theta_gap"].tolist() == pytest.approx([0.4])
    assert near_identical_pairs([50.0, 50.05], [0.0, 0.0], labels=[7, 7]).empty  # one checkpoint
    table = score_tracking({"x": [1, 2, 3, 4.0]}, [1, 2, 3, 5.0], below=2.0)
    assert table.loc[0, "spearman"] == pytest.approx(1.0)
    assert table.loc[0, "pearson"] == pytest.approx(np.corrcoef([1, 2, 3, 4], [1, 2, 3, 5])[0, 1])
    assert table.loc[0, "pearson_above"] == pytest.approx(np.corrcoef([2, 3, 4], [2, 3, 5])[0, 1])
    assert recommended(pd.DataFrame({"fit": ["p", "q"], "heldout_nats": [-0.3, -0.2]})) == "q"


def test_score_band_accuracy_by_hand():
    responses = np.array([[1, 0], [1, -1], [0, 1], [0, 1]], dtype=np.int8)
    table = score_band_accuracy(responses, [10, 20, 30, 40], columns=[0, 1], bands=2)
    assert table.loc[0].tolist() == [1.0, 0.0] and table.loc[1].tolist() == [0.0, 1.0]


def test_split_by_group_keeps_copies_together_and_removes_their_inflation():
    from mmlu_audit.irt import split_cohort_reliability
    from mmlu_audit.irt.evaluate import _cohort_rows

    groups = np.repeat(np.arange(50), 4)  # 50 models, each present 4 times (as on the leaderboard)
    first, second = _cohort_rows(200, seed=3, groups=groups)
    assert not set(groups[first]) & set(groups[second]) and len(first) + len(second) == 200
    plain = _cohort_rows(200, seed=3)
    assert len(plain[0]) == len(plain[1]) == 100
    assert set(groups[plain[0]]) & set(groups[plain[1]])  # a random split puts copies in both
    with pytest.raises(DataError, match="one label per model"):
        _cohort_rows(200, seed=3, groups=groups[:10])
    rng = np.random.default_rng(5)
    theta, b = rng.normal(size=50), rng.normal(size=40)
    y = (rng.random((50, 40)) < 1 / (1 + np.exp(-(theta[:, None] - b)))).astype(np.int8)
    copies = np.repeat(y, 4, axis=0)
    spec = IRTSpec(max_steps=400)
    inflated = split_cohort_reliability(copies, spec, seed=3)["r"]
    honest = split_cohort_reliability(copies, spec, seed=3, groups=groups)["r"]
    assert honest < inflated - 0.05, (honest, inflated)


def test_signed_start_points_each_item_the_way_its_data_do(planted):
    from mmlu_audit.irt.data import prepare_data
    from mmlu_audit.irt.models import initial_values

    y, a, _ = planted
    start = initial_values(IRTSpec(a_prior="normal"), prepare_data(y, "2pl"))
    assert np.array_equal(start["a"] < 0, a < 0)
    default = initial_values(IRTSpec(), prepare_data(y, "2pl"))
    assert (default["a"] == 1).all()  # the positive prior keeps its start
    assert np.allclose(np.abs(start["b"]), np.abs(default["b"]))


def test_signed_3pl_finds_a_floored_wrong_way_item():
    """With a guessing floor a wrong-way item is a plateau from a = +1; the signed start avoids it."""
    rng = np.random.default_rng(23)
    theta = rng.normal(size=1500)
    a, b = np.exp(rng.normal(0.3, 0.3, 25)), rng.normal(0, 1, 25)
    a[[4, 9]], b[[4, 9]] = -4.0, -1.5  # right answers mostly from the weakest models
    p = 0.1 + 0.9 / (1 + np.exp(-a * (theta[:, None] - b)))
    y = (rng.random(p.shape) < p).astype(np.int8)
    fit = fit_irt(y, IRTSpec(model="3pl", guessing=0.1, a_prior="normal", a_scale=10.0,
                             max_steps=1500), progress=False)
    flagged = wrong_way_items(fit, pd.DataFrame({"item_id": [f"x/{i}" for i in range(25)]}))
    assert sorted(flagged["item_id"]) == ["x/4", "x/9"]
