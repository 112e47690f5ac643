"""The many-seed study of the calibrated intervals (λ, ρ): its item draw, its summary's coverage,
bias and size, and a chapter's placement are computed as stated; one replicate runs end to end."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mmlu_audit.analyses.seed_study_fits import (FIT_STUDY_COLUMNS, FIT_STUDY_INTERVALS, fit_replicate,
                                                 fit_study_summary, load_fit_study, placed_in_fit_study,
                                                 reduced_items)
from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.data.items import load_items


def _table(n: int = 400, seed: int = 0) -> pd.DataFrame:
    """A synthetic study: λ estimates N(0.01, 0.02²) with ±1.96·0.02 intervals, ρ exact at 0.96."""
    rng = np.random.default_rng(seed)
    rows = {"seed": np.arange(n), "lambda_planted": 0.0, "rho_planted": 0.96}
    for key, sd, shift in (("lambda_3pl", 0.02, 0.01), ("lambda_2pl", 0.02, -0.1), ("rho_working", 0.005,
                                                                                    0.0)):
        planted = 0.96 if key == "rho_working" else 0.0
        estimate = planted + shift + rng.normal(0, sd, n)
        rows |= {f"{key}_estimate": estimate, f"{key}_low": estimate - 1.96 * sd,
                 f"{key}_high": estimate + 1.96 * sd}
    rows |= {"lambda_3pl_p_wcb": rng.random(n), "lambda_2pl_p_wcb": np.full(n, 0.001)}
    return pd.DataFrame(rows)[list(FIT_STUDY_COLUMNS)]


def test_the_reduced_items_keep_every_subject_and_repeat_themselves():
    items = load_items()
    kept = reduced_items(items, 7, seed=3)
    assert np.array_equal(kept, reduced_items(items, 7, seed=3)) and np.all(np.diff(kept) > 0)
    counts = items.iloc[kept]["subject"].value_counts()
    assert len(counts) == items["subject"].nunique() and (counts == 7).all()
    assert not np.array_equal(kept, reduced_items(items, 7, seed=4))
    with pytest.raises(ParameterError, match="per_subject"):
        reduced_items(items, 1, seed=0)


def test_coverage_bias_and_size_are_the_stated_shares():
    table = _table()
    summary = fit_study_summary(table).set_index("quantity")
    lam = summary.loc[FIT_STUDY_INTERVALS["lambda_3pl"][0]]
    covered = ((table["lambda_3pl_low"] <= 0) & (0 <= table["lambda_3pl_high"])).mean()
    assert lam["coverage"] == pytest.approx(covered)
    assert lam["coverage_mc_se"] == pytest.approx(np.sqrt(covered * (1 - covered) / len(table)))
    assert lam["bias"] == pytest.approx(table["lambda_3pl_estimate"].mean())
    assert lam["size_wcb"] == pytest.approx((table["lambda_3pl_p_wcb"] < 0.05).mean())
    # a biased estimator's interval misses: the 2PL row, shifted by five SDs, almost never covers
    assert summary.loc[FIT_STUDY_INTERVALS["lambda_2pl"][0], "coverage"] < 0.01
    rho = summary.loc[FIT_STUDY_INTERVALS["rho_working"][0]]
    assert rho["coverage"] == pytest.approx(0.95, abs=0.03) and np.isnan(rho["size_wcb"])


def test_a_chapter_estimate_is_placed_by_its_error():
    table = _table()
    placed = placed_in_fit_study(table, "lambda_3pl", 0.01)
    errors = table["lambda_3pl_estimate"]
    assert placed["percentile"] == pytest.approx((errors <= 0.01).mean())
    assert placed["n_seeds"] == len(table)
    with pytest.raises(ParameterError, match="not an interval"):
        placed_in_fit_study(table, "gamma1", 0.0)


def test_a_recorded_study_is_checked(tmp_path):
    with pytest.raises(DataError, match="make bench"):
        load_fit_study(tmp_path)
    _table().drop(columns="rho_working_low").to_csv(tmp_path / "seed_study_fits.csv", index=False)
    with pytest.raises(DataError, match="rho_working_low"):
        load_fit_study(tmp_path)
    _table().to_csv(tmp_path / "seed_study_fits.csv", index=False)
    assert len(load_fit_study(tmp_path)) == 400


@pytest.mark.slow
def test_one_replicate_fits_and_records_every_column():
    from mmlu_audit.features import build_feature_table
    from mmlu_audit.worlds.simulated import WorldSpec

    items = load_items()
    kept = reduced_items(items, 6, seed=0)
    items = items.iloc[kept].reset_index(drop=True)
    features = build_feature_table(items,
                                   progress=False).loc[items["item_id"].to_numpy()].reset_index(drop=True)
    spec = WorldSpec(n_models=120, n_distinct=100, n_groups=10)
    row = fit_replicate(spec, items, features[list(spec.slopes)], features["wscg_depth"], seed=5, n_boot=99,
                        max_steps=60)
    assert set(row) == set(FIT_STUDY_COLUMNS) and row["lambda_planted"] == 0.0
    assert all(np.isfinite(row[c]) for c in FIT_STUDY_COLUMNS)
    assert row["lambda_3pl_low"] <= row["lambda_3pl_estimate"] <= row["lambda_3pl_high"]
    assert 0 < row["rho_planted"] < 1 and row["rho_working_low"] <= row["rho_working_high"]
