"""The many-seed study of §4's tests: it re-plants exactly the simulator's difficulties, and its
rates and coverage are computed as stated."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mmlu_audit.analyses.seed_study import (SEED_STUDY_TESTS, planted_difficulties, seed_study,
                                            seed_study_summary, where_in_study)
from mmlu_audit.data.items import load_items
from mmlu_audit.features import INDICATORS
from mmlu_audit.worlds.simulated import WorldSpec, simulate_world


@pytest.fixture(scope="module")
def small():
    items = load_items()
    items = items.groupby("subject", group_keys=False).head(30).reset_index(drop=True)  # 57 subjects kept
    rng = np.random.default_rng(0)
    features = pd.DataFrame(rng.normal(size=(len(items), len(INDICATORS))), columns=list(INDICATORS))
    return items, features


def test_the_planted_b_is_the_worlds_own(small):
    items, features = small
    spec = WorldSpec(n_models=60, n_distinct=50, n_groups=5)
    world = simulate_world(spec, seed=11, items=items, covariates=features)
    assert np.array_equal(planted_difficulties(spec, items, features, 11), world.truth["b"])


@pytest.fixture(scope="module")
def study(small):
    items, features = small
    return seed_study(items, features, seeds=[1, 2, 3], n_boot=99, progress=False)


def test_the_study_runs_both_worlds_and_repeats_itself(small, study):
    items, features = small
    assert list(study["world"]) == ["planted"] * 3 + ["null"] * 3
    assert set(study.loc[study["world"] == "null", "d_ner_planted"]) == {0.0}
    again = seed_study(items, features, seeds=[1], n_boot=99, progress=False)
    pd.testing.assert_frame_equal(again.iloc[[0]].reset_index(drop=True),
                                  study.iloc[[0]].reset_index(drop=True))


def test_rates_standard_errors_and_coverage_are_as_stated(study):
    summary = seed_study_summary(study).set_index(["world", "quantity"])
    null = study[study["world"] == "null"]
    for key, name in SEED_STUDY_TESTS.items():
        row = summary.loc[("null", name)]
        assert row["rate"] == pytest.approx((null[key] < 0.05).mean()) and row["reads_as"] == "size"
        assert row["mc_se"] == pytest.approx(np.sqrt(row["rate"] * (1 - row["rate"]) / 3))
    covers = ((null["d_ner_low"] <= 0) & (0 <= null["d_ner_high"])).mean()
    coverage = "CR2 95 % interval of STEM × D_ner covers the planted contrast"
    assert summary.loc[("null", coverage), "rate"] == covers
    assert summary.xs("planted")["reads_as"].isin(["power", "coverage"]).all()


def test_a_single_seed_is_placed_by_its_percentile(study):
    p = np.sort(study.loc[study["world"] == "planted", "w9_htz_p"].to_numpy())
    assert where_in_study(study, "planted", "w9_htz_p", p[1]) == pytest.approx(2 / 3)


def test_a_recorded_study_is_checked_and_a_chapter_p_is_placed_in_it(study, tmp_path):
    from mmlu_audit.analyses.seed_study import load_seed_study, placed_in_study
    from mmlu_audit.core.errors import DataError, ParameterError

    with pytest.raises(DataError, match="make bench"):
        load_seed_study(tmp_path)
    study.drop(columns="wcb_p").to_csv(tmp_path / "seed_study.csv", index=False)
    with pytest.raises(DataError, match="wcb_p"):
        load_seed_study(tmp_path)
    study.to_csv(tmp_path / "seed_study.csv", index=False)
    table = load_seed_study(tmp_path)
    placed = placed_in_study(table, "null", "w9_htz_p", 0.5)
    null_p = study.loc[study["world"] == "null", "w9_htz_p"]
    assert placed["n_seeds"] == 3 and placed["rate"] == pytest.approx((null_p < 0.05).mean())
    assert placed["percentile"] == pytest.approx((null_p <= 0.5).mean())
    with pytest.raises(ParameterError, match="not a test"):
        placed_in_study(table, "null", "d_ner_estimate", 0.1)
