"""λ planted away from zero and the D_ner contrast on b̂: the simulator's log-a shift leaves a λ = 0
world bit for bit, a large planted λ is recovered inside its interval, the runner resumes without
repeating a seed and refuses a file of other settings, and the summaries compute what they state."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mmlu_audit.analyses.dner_estimated import (DNER_COLUMNS, dner_replicate, dner_summary,
                                                load_dner_estimated, scale_free_contrast)
from mmlu_audit.analyses.lambda_coverage import (LAMBDA_COLUMNS, coverage_record, lambda_replicate,
                                                 lambda_setting, lambda_summary, load_lambda_coverage,
                                                 paper_lambda, planted_log_a_shift)
from mmlu_audit.analyses.power import read_rows
from mmlu_audit.analyses.seed_study_fits import reduced_items
from mmlu_audit.analyses.study_designs import StudyDesign, run_study
from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.core.scaling import standardise
from mmlu_audit.data.items import load_items
from mmlu_audit.worlds.simulated import WorldSpec, simulate_world


@pytest.fixture(scope="module")
def toy():
    """A large-signal paper-design world: 1,500 working models (a well estimated) on 3 items of each
    subject, with standard-normal stand-ins for the nine indicators (the real ones take minutes to
    build in the tests' empty cache)."""
    from mmlu_audit.features import INDICATORS

    items = load_items()
    items = items.iloc[reduced_items(items, 3, seed=0)].reset_index(drop=True)
    rng = np.random.default_rng(0)
    features = pd.DataFrame(rng.normal(size=(len(items), len(INDICATORS))), columns=list(INDICATORS))
    return StudyDesign("paper", items, features,
                       WorldSpec(n_models=1500, n_distinct=1500, n_groups=20, chance_share=0.0))


def _world_arrays(world) -> dict:
    return {"responses": world.matrix.responses} | {k: np.asarray(v) for k, v in world.truth.items()}


def test_a_zero_shift_leaves_the_world_bit_for_bit(toy):
    covariates = toy.features[list(toy.spec.slopes)]
    plain = _world_arrays(simulate_world(toy.spec, 4, toy.items, covariates))
    shift = planted_log_a_shift(0.0, toy.features["wscg_depth"], toy.read_on)
    assert not shift.any()
    for zero in (shift, None):
        again = _world_arrays(toy.simulate(4, zero))
        assert again.keys() == plain.keys() and all(np.array_equal(again[k], plain[k]) for k in plain)


def test_a_planted_shift_moves_log_a_of_the_items_read_on_only(toy):
    depth, read_on = toy.features["wscg_depth"].to_numpy(float), toy.read_on
    shift = planted_log_a_shift(-0.3, depth, read_on)
    slope = np.polyfit(standardise(depth[read_on]), shift[read_on], 1)[0]
    assert slope == pytest.approx(-0.3) and not shift[~read_on].any()
    plain, shifted = toy.simulate(4).truth, toy.simulate(4, shift).truth
    assert np.allclose(np.log(shifted["a"]) - np.log(plain["a"]), shift)
    assert np.array_equal(shifted["b"], plain["b"]) and np.array_equal(shifted["theta"], plain["theta"])
    with pytest.raises(DataError, match="log_a_shift"):
        toy.simulate(4, shift[:-1])
    with pytest.raises(DataError, match="vary"):
        planted_log_a_shift(0.1, np.ones(depth.size), read_on)


def test_the_lambda_settings_name_the_paper_gamma1_on_the_worlds_a_scale():
    from mmlu_audit.core.paper import paper_value

    spec = WorldSpec()
    expected = paper_value("gamma1") * np.exp(spec.a_log_sd**2 / 2) / spec.a_median
    assert paper_lambda(spec) == pytest.approx(expected)
    assert lambda_setting("paper", spec) == pytest.approx(expected)
    assert lambda_setting("paper/2", spec) == pytest.approx(expected / 2)
    assert lambda_setting("-0.05", spec) == -0.05
    for bad in ("steep", "paper/0", "nan"):
        with pytest.raises(ParameterError, match="lambda"):
            lambda_setting(bad, spec)


def test_a_large_planted_lambda_is_recovered_inside_its_interval(toy):
    row = lambda_replicate(toy, -0.6, seed=2, n_boot=99)
    assert set(row) == set(LAMBDA_COLUMNS) - {"design", "lambda_setting", "seed"}
    assert row["lambda_planted"] == -0.6
    assert row["lambda_low"] <= -0.6 <= row["lambda_high"] and row["lambda_high"] < 0
    assert row["lambda_p_cr2"] < 0.05 and row["n_items"] == int(toy.read_on.sum())


def _runs(toy, n_boot):
    return [({"design": "paper", "lambda_setting": "paper"},
             {"design": toy, "lam": -0.6, "n_boot": n_boot, "max_steps": 30})]


def test_a_stopped_run_resumes_without_repeating_a_seed(toy, tmp_path):
    path = tmp_path / "lambda.seeds.csv"
    assert run_study(lambda_replicate, _runs(toy, 19), range(2), path, config={"n_boot": 19}) == [2]
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:2]) + "\n")  # killed after seed 0
    first = read_rows(path)
    assert run_study(lambda_replicate, _runs(toy, 19), range(3), path, config={"n_boot": 19}) == [2]
    rows = read_rows(path)
    assert sorted(rows["seed"]) == [0, 1, 2]
    pd.testing.assert_frame_equal(rows.iloc[:1], first)
    assert run_study(lambda_replicate, _runs(toy, 19), range(3), path, config={"n_boot": 19}) == [0]


def test_a_file_of_other_settings_is_refused(toy, tmp_path):
    path = tmp_path / "lambda.seeds.csv"
    run_study(lambda_replicate, _runs(toy, 19), range(1), path, config={"n_boot": 19})
    before = path.read_text()
    with pytest.raises(DataError, match="n_boot"):
        run_study(lambda_replicate, _runs(toy, 29), range(2), path, config={"n_boot": 29})
    assert path.read_text() == before
    rows = read_rows(path)
    pd.concat([rows, rows.assign(seed=5, n_boot=29)]).to_csv(path, index=False)  # a mixed file
    with pytest.raises(DataError, match="n_boot"):
        run_study(lambda_replicate, _runs(toy, 19), range(2), path, config={"n_boot": 19})


def _lambda_table(n: int = 300, seed: int = 0) -> pd.DataFrame:
    """Two settings: λ = −0.1 estimated N(−0.1, 0.02²) with ±1.96·0.02 intervals, λ = 0 shifted by 0.08."""
    rng = np.random.default_rng(seed)
    parts = []
    for setting, planted, shift in (("paper", -0.1, 0.0), ("0.0", 0.0, 0.08)):
        estimate = planted + shift + rng.normal(0, 0.02, n)
        parts.append(pd.DataFrame({
            "design": "real", "lambda_setting": setting, "seed": np.arange(n), "lambda_planted": planted,
            "lambda_estimate": estimate, "lambda_low": estimate - 0.0392, "lambda_high": estimate + 0.0392,
            "lambda_se": 0.02, "lambda_df": 12.0, "lambda_p_cr2": rng.random(n),
            "lambda_p_wcb": rng.random(n),
            "n_items": 3000, "n_clusters": 19, "fit_steps": 500}))
    return pd.concat(parts, ignore_index=True)[list(LAMBDA_COLUMNS)]


def test_the_lambda_summary_is_coverage_bias_and_rejection_per_setting(tmp_path):
    table = _lambda_table()
    summary = lambda_summary(table).set_index("lambda_setting")
    paper = table[table["lambda_setting"] == "paper"]
    covered = ((paper["lambda_low"] <= -0.1) & (-0.1 <= paper["lambda_high"])).mean()
    assert summary.loc["paper", "coverage"] == pytest.approx(covered)
    assert summary.loc["paper", "coverage_mc_se"] == pytest.approx(np.sqrt(covered * (1 - covered) / 300))
    assert summary.loc["paper", "reject_wcb"] == pytest.approx((paper["lambda_p_wcb"] < 0.05).mean())
    assert summary.loc["0.0", "bias"] == pytest.approx(0.08, abs=0.005)
    assert summary.loc["0.0", "coverage"] < 0.1
    with pytest.raises(DataError, match="bench_lambda_coverage"):
        load_lambda_coverage(tmp_path)
    table.to_csv(tmp_path / "lambda_coverage.csv", index=False)
    assert len(load_lambda_coverage(tmp_path)) == len(table)
    table.assign(lambda_planted=np.arange(len(table))).to_csv(tmp_path / "lambda_coverage.csv", index=False)
    with pytest.raises(DataError, match="several planted"):
        load_lambda_coverage(tmp_path)


def test_coverage_record_counts_the_ends_as_covering():
    record = coverage_record([0, 0, 0, 0], [0.1, -0.1, 0.5, 0.0], [0.0, -0.2, 0.1, -1], [0.2, 0.0, 0.9, 1])
    assert record["coverage"] == 0.75 and record["n_seeds"] == 4 and record["bias"] == pytest.approx(0.125)


def test_the_contrast_per_sd_divides_estimate_and_interval_alike():
    y = np.array([0.0, 2.0, 4.0, 6.0])
    out = scale_free_contrast({"d_ner_estimate": 1.0, "d_ner_low": 0.5, "d_ner_high": 1.5}, y)
    assert out == pytest.approx({"estimate": 1 / y.std(), "low": 0.5 / y.std(), "high": 1.5 / y.std(),
                                 "sd": y.std()})
    with pytest.raises(DataError, match="vary"):
        scale_free_contrast({"d_ner_estimate": 1.0, "d_ner_low": 0.5, "d_ner_high": 1.5}, np.ones(4))


def test_one_dner_replicate_records_both_outcomes_per_sd(toy, tmp_path):
    row = dner_replicate(toy, "planted", seed=1, max_steps=60)
    assert set(row) == set(DNER_COLUMNS) - {"design", "world", "seed"}
    assert all(np.isfinite(value) for value in row.values())
    slopes = toy.spec.planted_slopes().loc["d_ner"]
    assert row["d_ner_planted"] == pytest.approx(slopes.iloc[0] - slopes.iloc[1])
    b = toy.simulate(1).truth["b"]
    assert row["planted_sd"] == pytest.approx(row["d_ner_planted"] / b.std())
    assert row["true_sd"] == pytest.approx(b.std())
    assert row["est_low"] <= row["est_estimate"] <= row["est_high"]
    null = dner_replicate(toy, "null", seed=1, max_steps=60)
    assert null["d_ner_planted"] == 0.0 and null["planted_sd"] == 0.0
    table = pd.DataFrame([{"design": "paper", "world": w, "seed": 1} | r for w, r in (("planted", row),
                                                                                        ("null", null))])
    summary = dner_summary(table)
    assert len(summary) == 4 and set(summary["n_seeds"]) == {1}
    table.to_csv(tmp_path / "dner_estimated.csv", index=False)
    assert list(load_dner_estimated(tmp_path)["world"]) == ["planted", "null"]  # "null" is not NaN
    with pytest.raises(ParameterError, match="world"):
        dner_replicate(toy, "flat", seed=1)


def test_a_zero_shift_leaves_a_real_design_world_bit_for_bit(items):
    from mmlu_audit import load_responses
    from mmlu_audit.features import INDICATORS
    from mmlu_audit.worlds.real_design import simulate_at_design

    matrix = load_responses("mmlu_real", items=items)
    rng = np.random.default_rng(1)
    features = pd.DataFrame(rng.normal(size=(len(items), len(INDICATORS))), columns=list(INDICATORS))
    design = StudyDesign("real", items, features, WorldSpec(), matrix)
    plain = _world_arrays(simulate_at_design(matrix, WorldSpec(), items, features[list(WorldSpec().slopes)],
                                             seed=3))
    zero = _world_arrays(design.simulate(3, planted_log_a_shift(0.0, features["wscg_depth"], design.read_on)))
    assert all(np.array_equal(zero[k], plain[k]) for k in plain)
    shifted = design.simulate(3, planted_log_a_shift(-0.2, features["wscg_depth"], design.read_on)).truth
    assert np.array_equal(shifted["b"], plain["b"]) and not np.array_equal(shifted["a"], plain["a"])
