"""The many-seed power runner, its rates, the results reader and one seed at a design."""

from __future__ import annotations

import json
import os

import numpy as np
import pandas as pd
import pytest

from mmlu_audit.analyses.central import floor_min_replicates
from mmlu_audit.analyses.power import (CLAIM_FALSE, POWER_TESTS, WORLDS, StopRule, load_power, mc_se,
                                       one_seed_at_design, power_table, rates, read_rows, run_seeds)
from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.core.paths import CACHE_ENV
from mmlu_audit.data.responses import ResponseMatrix
from mmlu_audit.features import INDICATORS
from mmlu_audit.worlds.real_design import two_stage_interaction
from mmlu_audit.worlds.simulated import WorldSpec


def _coin(p):
    """A task whose 'paper' row rejects with probability ``p`` and whose 'null' row never does."""
    def task(seed):
        rng = np.random.default_rng(seed)
        return [{"world": "paper", "reject": bool(rng.random() < p), "stat": float(seed)},
                {"world": "null", "reject": False, "stat": -float(seed)}]
    return task


def test_rates_and_their_mc_se():
    rows = pd.DataFrame({"design": "d", "world": ["paper"] * 4 + ["null"] * 4,
                         "a": [True, True, True, False, False, False, False, True],
                         "b": [1, 1, 1, 1, 0, 0, np.nan, 0]})
    table = rates(rows, ("a", "b", "absent")).set_index(["world", "test"])
    assert list(table.columns) == ["design", "rate", "mc_se", "n_seeds"]
    assert table.loc[("paper", "a"), "rate"] == 0.75
    assert table.loc[("paper", "a"), "mc_se"] == pytest.approx(np.sqrt(0.75 * 0.25 / 4))
    assert table.loc[("null", "b"), "n_seeds"] == 3  # a missing decision does not count
    assert table.loc[("paper", "b"), "mc_se"] == 0.0
    assert mc_se(0.5, 100) == pytest.approx(0.05)
    with pytest.raises(DataError, match="True/False"):
        rates(pd.DataFrame({"world": ["x"], "a": [0.3]}), ("a",))


def test_runner_appends_each_seed_and_resumes(tmp_path):
    path, calls = tmp_path / "rows.csv", []

    def task(seed):
        calls.append(seed)
        if seed == 3 and len(calls) == 4:
            raise RuntimeError("interrupted")
        return _coin(0.5)(seed)

    with pytest.raises(RuntimeError):
        run_seeds(task, range(6), path, config={"n_boot": 9}, key={"design": "d"}, progress=False)
    partial = read_rows(path)
    assert sorted(partial["seed"].unique()) == [0, 1, 2]  # the finished seeds are kept
    assert set(partial["world"]) == {"paper", "null"}  # "null" is a name, not a missing value
    result = run_seeds(task, range(6), path, config={"n_boot": 9}, key={"design": "d"}, progress=False)
    assert result.ran == [3, 4, 5] and calls == [0, 1, 2, 3, 3, 4, 5]
    assert sorted(result.rows["seed"].unique()) == list(range(6)) and len(read_rows(path)) == 12
    assert list(read_rows(path).columns[:4]) == ["seed", "seconds", "design", "n_boot"]
    again = run_seeds(task, range(6), path, config={"n_boot": 9}, key={"design": "d"}, progress=False)
    assert again.ran == [] and len(again.rows) == 12
    other = run_seeds(task, range(2), path, config={"n_boot": 9}, key={"design": "e"}, progress=False)
    assert other.ran == [0, 1] and len(other.rows) == 4 and len(read_rows(path)) == 16


def test_runner_refuses_a_foreign_file(tmp_path):
    path = tmp_path / "rows.csv"
    run_seeds(_coin(0.5), range(2), path, config={"n_boot": 9}, key={"design": "d"}, progress=False)
    with pytest.raises(DataError, match="n_boot"):
        run_seeds(_coin(0.5), range(3), path, config={"n_boot": 99}, key={"design": "d"}, progress=False)
    with pytest.raises(DataError, match="header"):
        run_seeds(lambda seed: {"world": "paper", "other": True}, range(3), path, config={"n_boot": 9},
                  key={"design": "d"}, progress=False)
    with pytest.raises(DataError, match="key column"):
        run_seeds(_coin(0.5), range(3), path, config={"n_boot": 9}, key={"population": "d"}, progress=False)
    (tmp_path / "foreign.csv").write_text("a,b\n1,2\n")
    with pytest.raises(DataError, match="first columns"):
        run_seeds(_coin(0.5), range(3), tmp_path / "foreign.csv", progress=False)


def test_stop_rule_ends_the_run_once_every_se_is_small(tmp_path):
    rule = StopRule(target_se=0.1, min_seeds=5, tests=("reject",), by=("world",))
    sure = run_seeds(_coin(1.0), range(50), tmp_path / "sure.csv", stop=rule, progress=False)
    assert sure.stopped and sure.ran == [0, 1, 2, 3, 4]  # rates 1 and 0: SE 0 once min_seeds are done
    coin = run_seeds(_coin(0.5), range(200), tmp_path / "coin.csv", stop=rule, progress=False)
    n = len(coin.ran)
    table = rates(coin.rows, ("reject",), ("world",)).set_index("world")
    assert coin.stopped and table.loc["paper", "mc_se"] <= 0.1
    assert mc_se(rates(coin.rows[coin.rows["seed"] < n - 1], ("reject",), ("world",))
                 .set_index("world").loc["paper", "rate"], n - 1) > 0.1  # not one seed earlier
    assert not run_seeds(_coin(0.5), range(3), tmp_path / "short.csv", stop=rule, progress=False).stopped
    with pytest.raises(ParameterError):
        StopRule(target_se=0.0)
    with pytest.raises(ParameterError):
        StopRule(min_seeds=0)


def _result_file(path, **changes):
    record = {"design": "mmlu_real", "world": "null", "test": "homogeneity", "rate": 0.05,
              "mc_se": float(mc_se(0.05, 40)), "n_seeds": 40, "target_reached": False}  # SE 0.034
    result = {"rates": [record | changes], "settings": {"n_boot": 999, "replicates": 20}, "target_se": 0.03,
              "designs": {"mmlu_real": {"models": 31}}}
    path.write_text(json.dumps(result))
    return path


def test_load_power_reads_and_validates(tmp_path):
    table = load_power(_result_file(tmp_path / "ok.json"))
    assert table.loc[0, "rate"] == 0.05 and table.loc[0, "world"] == "null"
    assert table.attrs["settings"]["n_boot"] == 999 and table.attrs["target_se"] == 0.03
    with pytest.raises(DataError, match="not recorded"):
        load_power(tmp_path / "absent.json")
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(DataError, match="readable"):
        load_power(tmp_path / "broken.json")
    bad = (({"rate": 1.2}, "'rate' holds a value outside"), ({"mc_se": 0.2}, "'mc_se' as written disagrees"),
           ({"n_seeds": 0}, "'n_seeds' holds a value outside"))
    for changes, problem in bad:
        with pytest.raises(DataError, match=problem):
            load_power(_result_file(tmp_path / "bad.json", **changes))
    path = _result_file(tmp_path / "nokey.json")
    result = json.loads(path.read_text())
    del result["target_se"]
    path.write_text(json.dumps(result))
    with pytest.raises(DataError, match="target_se"):
        load_power(path)


def _cached_fits(cache):
    folder = os.path.join(cache or "", "irt")
    return sorted(os.listdir(folder)) if cache and os.path.isdir(folder) else []


def test_power_table_puts_the_worlds_side_by_side():
    rows = pd.DataFrame({"design": "d", "world": ["paper"] * 5 + ["null"] * 4,
                         "homogeneity": [True, True, True, True, False, False, False, False, True],
                         "d_ner": [True] * 9})
    table = power_table(rates(rows), "d")
    assert list(table.index) == ["homogeneity", "d_ner"]
    assert table.loc["homogeneity", "power"] == 0.8 and table.loc["homogeneity", "null_rate"] == 0.25
    assert table.loc["homogeneity", "null_se"] == pytest.approx(np.sqrt(0.25 * 0.75 / 4))
    assert table.loc["d_ner", "n_seeds"] == 4
    assert table["false_support"].isna().all()  # no world where a claim is false was run
    with pytest.raises(DataError, match="null world"):
        power_table(rates(rows[rows["world"] == "paper"]), "d")


def test_power_table_shows_the_false_support_rate_of_the_floor_claim():
    rows = pd.DataFrame({"design": "d", "world": ["paper"] * 4 + ["null"] * 4 + ["floor_false"] * 3,
                         "guessing_floor": [True] * 8 + [True, False, False],
                         "homogeneity": [True] * 11})
    table = power_table(rates(rows), "d")
    assert table.loc["guessing_floor", "false_support"] == pytest.approx(1 / 3)
    assert table.loc["guessing_floor", "false_support_se"] == pytest.approx(mc_se(1 / 3, 3))
    assert table.loc["guessing_floor", "n_seeds"] == 3 and table.loc["homogeneity", "n_seeds"] == 4
    assert np.isnan(table.loc["homogeneity", "false_support"])  # a power there, not a false support


@pytest.fixture(scope="module")
def toy_design(small_items):
    """Eight models with spread accuracies answering a 2,280-item slice, one missing block."""
    rng = np.random.default_rng(3)
    n_items = len(small_items)
    accuracy = np.linspace(0.35, 0.85, 8)
    responses = (rng.random((8, n_items)) < accuracy[:, None]).astype(np.int8)
    responses[:3, : n_items // 3] = -1
    models = pd.DataFrame({"model_id": [f"m{j}" for j in range(8)]})
    design = ResponseMatrix(responses, models, small_items["item_id"].to_numpy(), "toy", False)
    features = pd.DataFrame(rng.normal(size=(n_items, len(INDICATORS))), columns=list(INDICATORS),
                            index=small_items["item_id"].to_numpy())
    features.index.name = "item_id"
    return design, small_items, features


def test_one_seed_at_design_runs_the_four_tests(toy_design):
    design, items, features = toy_design
    before = os.environ.get(CACHE_ENV)
    fits = _cached_fits(before)
    row = one_seed_at_design(design, items, features, seed=4, world="null", n_boot=19,
                             replicates=floor_min_replicates(), fast=True)
    assert os.environ.get(CACHE_ENV) == before and _cached_fits(before) == fits  # 3PL fit not cached
    assert row["world"] == "null" and row["n_items"] == len(items)
    assert all(isinstance(row[test], bool) for test in POWER_TESTS)
    assert row["homogeneity"] == (row["homogeneity_htz"] and row["homogeneity_wcb"])
    assert row["d_ner"] == (row["d_ner_cr2"] and row["d_ner_boot"])
    assert row["homogeneity_htz"] == (row["w9_htz_p"] < 0.05)
    assert row["guessing_floor"] == (row["null_tail_p_all"] >= 0.05) and row["ability_depth"] == 0.0
    with pytest.raises(ParameterError, match="world"):
        one_seed_at_design(design, items, features, seed=4, world="leaderboard")
    with pytest.raises(ParameterError, match="replicates"):  # too few for the floor rule to fail
        one_seed_at_design(design, items, features, seed=4, world="null",
                           replicates=floor_min_replicates() - 1)


def test_floor_false_world_plants_the_two_stage_interaction():
    assert WORLDS["floor_false"] == {"ability_depth": two_stage_interaction()}
    assert all(WorldSpec(**WORLDS[world]).ability_depth == 0 for world in WORLDS if world not in CLAIM_FALSE)
    assert set(CLAIM_FALSE.values()) <= set(POWER_TESTS)
