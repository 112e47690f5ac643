"""The replication outcomes' power study: one seed's rows, the worlds, the rates and the results file."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from mmlu_audit.analyses.modelside import rs_r_interval, two_stage_headline
from mmlu_audit.analyses.outcome_power import (OUTCOME_COLUMNS, PLANTED, SIGNAL_OUTCOMES, claim_power,
                                               claim_power_rows, load_outcome_power, observed_outcome_rate,
                                               outcome_rates, outcome_shares, planted_spec,
                                               population_extremes, seed_outcomes, simulated_power)
from mmlu_audit.analyses.replication import COMBINED, ESTIMANDS, OUTCOMES, combined_rows
from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.core.paper import PAPER
from mmlu_audit.data.responses import ResponseMatrix
from mmlu_audit.features import INDICATORS
from mmlu_audit.worlds.real_design import DesignCalibration, simulate_at_design
from mmlu_audit.worlds.simulated import WorldSpec


def _design(items, n_models, seed, name):
    rng = np.random.default_rng(seed)
    accuracy = np.linspace(0.35, 0.85, n_models)
    responses = (rng.random((n_models, len(items))) < accuracy[:, None]).astype(np.int8)
    models = pd.DataFrame({"model_id": [f"{name}{j}" for j in range(n_models)]})
    return ResponseMatrix(responses, models, items["item_id"].to_numpy(), name, False)


@pytest.fixture(scope="module")
def toy(small_items):
    """Two small populations and a one-model one on a 2,280-item slice, with random indicators."""
    rng = np.random.default_rng(5)
    features = pd.DataFrame(rng.normal(size=(len(small_items), len(INDICATORS))), columns=list(INDICATORS),
                            index=small_items["item_id"].to_numpy())
    features.index.name = "item_id"
    designs = {"eight": _design(small_items, 8, 1, "e"), "six": _design(small_items, 6, 2, "s"),
               "one": _design(small_items, 1, 3, "o")}
    return designs, small_items, features


def test_one_seed_classifies_every_population_their_combination_and_the_planted_truth(toy):
    designs, items, features = toy
    rows = pd.DataFrame(seed_outcomes(designs, items, features, 7, "paper_estimates", n_boot=19, fast=True))
    assert list(rows.columns) == list(OUTCOME_COLUMNS)
    assert list(dict.fromkeys(rows["population"])) == [*designs, COMBINED, PLANTED]
    assert (rows.groupby("population").size() == len(ESTIMANDS)).all()
    assert (rows.loc[rows["population"] == "one", "outcome"] == OUTCOMES[6]).all()  # too few models
    raw = seed_outcomes(designs, items, features, 7, "paper_estimates", n_boot=19, fast=True)
    assert all(row["estimate"] is None for row in raw if row["population"] == "one")  # not "nan" in a CSV
    assert (rows["signal"] == rows["outcome"].isin(SIGNAL_OUTCOMES)).all()
    assert (rows["replicated"] == (rows["outcome"] == OUTCOMES[0])).all()
    populations = rows[rows["population"].isin(list(designs))]
    expected = combined_rows(populations, list(designs)).set_index("estimand")
    got = rows[rows["population"] == COMBINED].set_index("estimand")
    finite = expected["estimate"].notna()
    assert finite.sum() >= 3
    np.testing.assert_allclose(got.loc[finite, ["estimate", "low", "high"]],
                               expected.loc[finite, ["estimate", "low", "high"]], rtol=1e-9)
    assert got.loc["d_ner_contrast", "n_models"] == 14  # the estimable populations' models
    planted = rows[rows["population"] == PLANTED].set_index("estimand")
    assert planted.loc["rs_r_all", "outcome"] == OUTCOMES[6]
    assert np.isfinite(planted.loc["d_ner_contrast", "estimate"])
    pd.testing.assert_frame_equal(rows, pd.DataFrame(raw))  # same seed, same table
    with pytest.raises(ParameterError, match="world"):
        seed_outcomes(designs, items, features, 7, "paper", n_boot=19)


def test_response_streams_share_the_items_and_nothing_else(toy):
    designs, items, features = toy
    spec = WorldSpec()
    covariates = features.loc[items["item_id"].to_numpy(), list(spec.slopes)].reset_index(drop=True)
    plain = simulate_at_design(designs["eight"], spec, items, covariates, seed=3)
    first = simulate_at_design(designs["eight"], spec, items, covariates, seed=3, response_stream=0)
    other = simulate_at_design(designs["eight"], spec, items, covariates, seed=3, response_stream=2)
    np.testing.assert_array_equal(plain.matrix.responses, first.matrix.responses)  # stream 0: the old world
    np.testing.assert_array_equal(plain.truth["b"], other.truth["b"])
    assert (plain.matrix.responses != other.matrix.responses).mean() > 0.1
    assert other.matrix.meta["response_stream"] == 2
    with pytest.raises(ParameterError, match="response_stream"):
        simulate_at_design(designs["eight"], spec, items, covariates, seed=3, response_stream=-1)


def test_planted_spec_keeps_the_papers_contrasts_per_sd_of_difficulty():
    paper = planted_spec("paper_estimates")
    assert paper.slopes["d_ner"] == (PAPER["d_ner_beta_stem"][0], PAPER["d_ner_b_nonstem"][0])
    assert paper.slopes["d_mdd"] == (PAPER["d_mdd_b_stem"][0], PAPER["d_mdd_b_nonstem"][0])
    contrasts = {k: s - n for k, (s, n) in paper.slopes.items()}
    assert {k for k, v in contrasts.items() if v} == {"d_ner", "d_mdd"}  # none the paper did not estimate
    calibrated = planted_spec("paper_estimates", DesignCalibration(b_sd=2 * paper.b_sd))
    for key, (stem, other) in calibrated.slopes.items():
        assert (stem - other) / (2 * paper.b_sd) == pytest.approx(contrasts[key] / paper.b_sd)
    null = planted_spec("null", DesignCalibration(b_sd=3.0))
    assert null.null_world
    with pytest.raises(ParameterError, match="world"):
        planted_spec("floor_false")


def test_rates_and_shares_count_every_outcome():
    rows = pd.DataFrame({"world": ["paper_estimates"] * 4, "population": ["p"] * 4, "estimand": ["e"] * 4,
                         "outcome": [OUTCOMES[0], OUTCOMES[4], OUTCOMES[2], OUTCOMES[0]]})
    rows["signal"] = rows["outcome"].isin(SIGNAL_OUTCOMES)
    rows["replicated"] = rows["outcome"] == OUTCOMES[0]
    rates = outcome_rates(rows).set_index("test")
    assert rates.loc["signal", "rate"] == 0.75 and rates.loc["replicated", "rate"] == 0.5
    assert rates.loc["signal", "mc_se"] == pytest.approx(np.sqrt(0.75 * 0.25 / 4))
    shares = outcome_shares(rows)
    assert list(shares["outcome"]) == list(OUTCOMES) and shares["rate"].sum() == pytest.approx(1.0)
    with pytest.raises(DataError, match="not replication outcomes"):
        outcome_shares(rows.assign(outcome="supported"))


def _result(rates):
    means = [{"world": "paper_estimates", "population": "a", "estimand": "d_ner_contrast", "mean": 0.05}]
    shares = [{"world": w, "population": "a", "estimand": "rs_r_all", "outcome": OUTCOMES[6], "rate": 1.0}
              for w in ("paper_estimates", "null")]  # never estimable: left out of the display
    return {"rates": rates, "shares": shares, "mean_estimates": means, "settings": {"n_boot": 9},
            "target_se": 0.02, "planted": {"worlds": {}}, "git_commit": "abc"}


def test_observed_outcome_rate_reads_each_rows_own_outcome_in_the_world(tmp_path):
    rates = [{"world": w, "population": "a", "estimand": key, "test": t, "rate": 0.5,
              "mc_se": 0.05, "n_seeds": 100, "target_reached": False}
             for w in ("paper_estimates", "null") for key in ESTIMANDS for t in ("signal", "replicated")]
    result = _result(rates)
    result["shares"] = [{"world": w, "population": "a", "estimand": "d_ner_contrast", "outcome": o, "rate": r,
                         "mc_se": 0.0, "n_seeds": 100}
                        for w, pairs in (("paper_estimates", ((OUTCOMES[0], 0.3), (OUTCOMES[5], 0.7))),
                                         ("null", ((OUTCOMES[0], 0.01), (OUTCOMES[5], 0.99))))
                        for o, r in pairs]
    path = tmp_path / "outcome_power.json"
    path.write_text(json.dumps(result))
    study = load_outcome_power(path)
    rows = pd.DataFrame({"population": ["a", "a", "pool"], "estimand": ["d_ner_contrast"] * 3,
                         "outcome": [OUTCOMES[0], OUTCOMES[5], OUTCOMES[0]]})
    paper = observed_outcome_rate(rows, study, "paper_estimates")
    assert paper.iloc[0] == 0.3 and paper.iloc[1] == 0.7 and np.isnan(paper.iloc[2])  # pool: not simulated
    assert observed_outcome_rate(rows, study, "null").iloc[0] == 0.01
    with pytest.raises(DataError, match="not a world"):
        observed_outcome_rate(rows, study, "planted")


def test_load_outcome_power_checks_the_file_and_claim_power_reads_it(tmp_path):
    rates = [{"world": w, "population": p, "estimand": key, "test": t, "rate": r,
              "mc_se": np.sqrt(r * (1 - r) / 100), "n_seeds": 100, "target_reached": False}
             for w, r in (("paper_estimates", 0.6), ("null", 0.1)) for p in ("a", COMBINED)
             for key in ESTIMANDS for t in ("signal", "replicated")]
    path = tmp_path / "outcome_power.json"
    path.write_text(json.dumps(_result(rates)))
    table = load_outcome_power(path)
    power = claim_power(table)
    assert power.loc[("d_ner", "a"), "power"] == 0.6 and power.loc[("d_ner", COMBINED), "size"] == 0.1
    assert power.loc[("homogeneity", "a"), "estimand"] == "interaction_share"
    rows = pd.DataFrame({"population": ["a", "pool"], "estimand": ["d_ner_contrast"] * 2})
    column = simulated_power(rows, table)
    assert column.iloc[0] == 0.6 and np.isnan(column.iloc[1])  # the pool was not simulated
    shown = claim_power_rows(table).set_index(["claim", "population"])
    assert shown.loc[("d_ner", "a"), "mean_estimate"] == 0.05 and np.isnan(shown.loc[("d_ner", COMBINED),
                                                                                       "mean_estimate"])
    assert shown.loc[("d_ner", "a"), "paper"] == ESTIMANDS["d_ner_contrast"].paper
    assert ("guessing_floor", "a") not in shown.index and ("guessing_floor", COMBINED) in shown.index
    extremes = population_extremes(shown.reset_index(), "d_ner", "size")
    assert extremes == {"max": 0.1, "max_se": pytest.approx(0.03), "max_population": "a", "combined": 0.1,
                        "combined_se": pytest.approx(0.03)}
    path.write_text(json.dumps(_result([{**rates[0], "rate": 1.5}] + rates[1:])))
    with pytest.raises(DataError):
        load_outcome_power(path)
    path.write_text(json.dumps({"rates": rates}))
    with pytest.raises(DataError, match="not an outcome power result"):
        load_outcome_power(path)
    with pytest.raises(DataError, match="not recorded"):
        load_outcome_power(tmp_path / "missing.json")
    with pytest.raises(DataError, match="needs worlds"):
        claim_power(table[table["world"] == "null"])


def test_rs_r_interval_is_the_two_stage_headlines_value(toy):
    designs, items, features = toy
    design = designs["eight"]
    frame = items[["item_id", "stem"]].assign(wscg_depth=features["wscg_depth"].to_numpy(),
                                               b_hat=np.linspace(-2, 2, len(items)))
    theta = np.linspace(-1.5, 1.5, design.shape[0])
    quick = rs_r_interval(design, frame, theta)
    full = two_stage_headline(design, frame, theta, seed=1, fast=True, replicates=3)
    for key in ("rs_r_all", "rs_r_low", "rs_r_high", "n_all"):
        assert quick[key] == pytest.approx(full[key])
