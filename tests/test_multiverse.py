"""The multiverse and reliability helpers (analyses.multiverse): planted worlds, identities, bad files."""

import numpy as np
import pandas as pd
import pytest

from mmlu_audit.analyses.multiverse import (BENCH_FILES, DEFAULT, THREE_PL, combined_specifications,
                                            default_path_rows, disattenuate, empirical_difficulty, fragility,
                                            load_bench, population_words, split_half_reliability)
from mmlu_audit.analyses.replication import ESTIMANDS, judge, outcome_rows
from mmlu_audit.core.errors import DataError


def test_empirical_difficulty_is_the_half_count_logit_of_the_share_wrong():
    responses = np.array([[1, 0, -1], [1, 0, -1], [0, 0, -1]], dtype=np.int8)
    out = empirical_difficulty(responses)
    assert out[0] == pytest.approx(np.log(1.5 / 2.5)) and out[1] == pytest.approx(np.log(3.5 / 0.5))
    assert np.isnan(out[2])


def _rasch(seed: int, item_sd: float, n_models: int = 40, n_items: int = 2000):
    rng = np.random.default_rng(seed)
    theta, b = rng.normal(size=n_models), rng.normal(scale=item_sd, size=n_items)
    p = 1 / (1 + np.exp(-(theta[:, None] - b[None, :])))
    return (rng.random(p.shape) < p).astype(np.int8), np.arange(n_items) < n_items // 4


def test_split_half_reliability_is_high_for_spread_items_and_near_zero_for_identical_ones():
    spread = split_half_reliability(*_rasch(0, 2.0), seed=1, n_splits=20)
    flat = split_half_reliability(*_rasch(0, 0.0), seed=1, n_splits=20)
    assert spread["stem"] > 0.9 and spread["nonstem"] > 0.9
    assert abs(flat["stem"]) < 0.2 and abs(flat["nonstem"]) < 0.2
    assert split_half_reliability(*_rasch(0, 2.0), seed=1, n_splits=20) == spread  # same seed, same value
    with pytest.raises(DataError, match="at least two per half"):
        split_half_reliability(np.zeros((3, 5), np.int8), np.ones(5, bool), seed=1)


def test_disattenuate_scales_the_ratio_by_the_reliabilities():
    out = disattenuate(2.0, 1.0, 4.0, {"stem": 0.8, "nonstem": 0.9})
    assert out["factor"] == pytest.approx(0.9 / 0.8)
    assert (out["ratio"], out["low"], out["high"]) == pytest.approx((2.25, 1.125, 4.5))
    assert np.isnan(disattenuate(2.0, 1.0, 4.0, {"stem": 0.0, "nonstem": 0.9})["ratio"])


def test_fragility_names_the_choice_that_changes_an_outcome():
    paper = ESTIMANDS["d_ner_contrast"].paper
    rows = [{"population": "pool", **DEFAULT, "estimand": "d_ner_contrast", "estimate": paper,
             "low": paper - 0.05, "high": paper + 0.05},
            {"population": "pool", **(DEFAULT | {"indicators": "ten, with length"}),
             "estimand": "d_ner_contrast", "estimate": 0.0, "low": -paper / 2, "high": paper / 2}]
    specs = pd.DataFrame(rows)
    specs = pd.concat([specs, pd.DataFrame([judge(r.estimand, r.estimate, r.low, r.high)
                                            for r in specs.itertuples()])], axis=1)
    sentence = fragility(specs, "pool")["d_ner_contrast"]
    assert sentence.startswith("fragile") and "indicators ten, with length → not replicated" in sentence
    other = specs.assign(population=["pool", "helm20"])
    assert "HELM (20 models), indicators" in fragility(other, "pool", {"helm20": "HELM (20 models)"})[
        "d_ner_contrast"]
    robust = fragility(specs.iloc[:1], "pool")["d_ner_contrast"]
    assert robust.startswith("robust")


def _population(shift: float) -> dict:
    out = {test: {} for test in ("homogeneity", "d_ner", "stem_r2", "guessing_floor")}
    keys = {"interaction_share": ("homogeneity", "interaction_share", "interaction_share_low",
                                  "interaction_share_high"),
            "d_mdd_contrast": ("d_ner", "d_mdd_per_sd", "d_mdd_per_sd_low", "d_mdd_per_sd_high"),
            "d_ner_contrast": ("d_ner", "d_ner_per_sd", "d_ner_per_sd_low", "d_ner_per_sd_high"),
            "logit2_ratio": ("stem_r2", "logit2_ratio", "logit2_ratio_ci_low", "logit2_ratio_ci_high"),
            "rs_r_all": ("guessing_floor", "rs_r_all", "rs_r_low", "rs_r_high")}
    for key, (test, est, low, high) in keys.items():
        centre = ESTIMANDS[key].paper + shift
        out[test] |= {est: centre, low: centre - 0.05, high: centre + 0.05}
    return out | {"population": {"n_models": 10}}


def test_default_path_rows_enter_the_combination_and_each_leave_one_out():
    outcomes = pd.concat([outcome_rows(name, _population(shift)) for name, shift in
                          (("a", 0.0), ("b", 0.01), ("c", 0.02))], ignore_index=True)
    specs = default_path_rows(outcomes, "rs_r_all", ["a", "b", "c"])
    assert len(specs) == 3 and (specs["indicators"] == DEFAULT["indicators"]).all()
    combined = combined_specifications(specs, ["a", "b", "c"])
    assert set(combined["population"]) == {"combined", "combined without a", "combined without b",
                                           "combined without c"}
    assert combined.set_index("population").loc["combined without c", "estimate"] == pytest.approx(
        ESTIMANDS["rs_r_all"].paper + 0.005, abs=1e-3)


def _write_bench(folder, cells=None, halves=None):
    cells = cells if cells is not None else pd.DataFrame([
        {"population": "helm20", "difficulty": THREE_PL, "models": "all", "indicators": "nine",
         "estimand": "d_ner_contrast", "estimate": 0.1, "low": 0.0, "high": 0.2}])
    halves = halves if halves is not None else pd.DataFrame([
        {"population": "helm20", "split": 0, "r_stem": 0.8, "r_nonstem": 0.9,
         "reliability_stem": 2 * 0.8 / 1.8, "reliability_nonstem": 2 * 0.9 / 1.9}])
    cells.to_csv(folder / BENCH_FILES[0], index=False)
    halves.to_csv(folder / BENCH_FILES[1], index=False)


def test_load_bench_judges_the_recorded_cells(tmp_path):
    _write_bench(tmp_path)
    cells, halves = load_bench(tmp_path)
    assert cells.loc[0, "outcome"] == "inconclusive"
    assert halves.loc[0, "reliability_stem"] == pytest.approx(2 * 0.8 / 1.8)


@pytest.mark.parametrize(("defect", "message"), [
    ("missing", "run `make bench`"),
    ("repeated", "repeat|unique|twice"),
    ("interval", "does not hold its estimate"),
    ("derived", "reliability_stem"),
    ("truncated", "no value"),
])
def test_load_bench_refuses_each_planted_defect(tmp_path, defect, message):
    _write_bench(tmp_path)
    cells = pd.read_csv(tmp_path / BENCH_FILES[0])
    halves = pd.read_csv(tmp_path / BENCH_FILES[1])
    if defect == "missing":
        (tmp_path / BENCH_FILES[1]).unlink()
    elif defect == "repeated":
        _write_bench(tmp_path, cells=pd.concat([cells, cells]))
    elif defect == "interval":
        _write_bench(tmp_path, cells=cells.assign(estimate=0.5))
    elif defect == "derived":
        _write_bench(tmp_path, halves=halves.assign(reliability_stem=0.99))
    else:
        _write_bench(tmp_path, cells=cells.assign(high=np.nan))
    with pytest.raises(DataError, match=message):
        load_bench(tmp_path)


def test_population_words_name_a_leave_one_out_row_in_words():
    names = {"helm20": "HELM (20 models)"}
    assert population_words("combined without helm20", names) == "combined without HELM (20 models)"
    assert population_words("helm20", names) == "HELM (20 models)" and population_words("x", names) == "x"


def test_the_figures_draw_one_panel_per_estimand_labelled_in_words():
    import matplotlib.pyplot as plt

    from mmlu_audit.analyses.multiverse import specification_forest
    from mmlu_audit.analyses.replication import COMBINED, combined_rows, forest_table
    from mmlu_audit.book.plots import estimand_forest, specification_curve

    pairs = (("a", 0.0), ("b", 0.01))
    outcomes = pd.concat([outcome_rows(name, _population(shift)) for name, shift in pairs], ignore_index=True)
    table = pd.concat([outcomes, combined_rows(outcomes, ["a", "b"])], ignore_index=True)
    names = {"a": "HELM (20 models)", "b": "OpenCompass (11 models)", COMBINED: "combined"}
    fig = estimand_forest(forest_table(table, names))
    assert len(fig.axes) == 4  # one per claim's estimand
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels[0].startswith("paper") and "HELM (20 models)" in labels
    assert "combined, fixed effect" in labels
    specs = default_path_rows(outcomes, "rs_r_all", ["a", "b"])
    curve = specification_curve(specification_forest(specs, names))
    assert len(curve.axes) == 1 and curve.axes[0].get_legend() is not None
    plt.close("all")
