"""Tests of mmlu_audit.analyses.dif: Mantel–Haenszel against statsmodels' StratifiedTable on
hand-made tables, the ETS rules on hand-picked values, and planted DIF recovered from
simulated responses (and not invented where none is planted)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.contingency_tables import StratifiedTable

from mmlu_audit.analyses.dif import ets_category, mantel_haenszel_dif, score_strata, stratum_counts
from mmlu_audit.core.errors import DataError

# three strata of (group × correct) tables: rows reference / focal, columns right / wrong
TABLES = np.array([[[20, 10], [12, 15]],
                   [[30, 5], [18, 9]],
                   [[8, 14], [3, 16]]], dtype=float)


def responses_from_tables(tables):
    """One item's responses (and focal, strata) that realise the given 2 × 2 tables."""
    column, focal, strata = [], [], []
    for k, ((ref_r, ref_w), (foc_r, foc_w)) in enumerate(tables.astype(int)):
        cells = ((1, ref_r, False), (0, ref_w, False), (1, foc_r, True), (0, foc_w, True))
        for value, count, is_focal in cells:
            column += [value] * count
            focal += [is_focal] * count
            strata += [k] * count
    return np.array(column, np.int8)[:, None], np.array(focal), np.array(strata)


def test_mh_matches_statsmodels_stratified_table():
    y, focal, strata = responses_from_tables(TABLES)
    ours = mantel_haenszel_dif(y, focal, strata=strata).iloc[0]
    reference = StratifiedTable([t for t in TABLES])
    assert ours["alpha_mh"] == pytest.approx(reference.oddsratio_pooled, rel=1e-12)
    assert ours["se_log_alpha"] == pytest.approx(reference.logodds_pooled_se, rel=1e-12)
    null = reference.test_null_odds(correction=True)
    assert ours["chi2"] == pytest.approx(null.statistic, rel=1e-12)
    assert ours["p"] == pytest.approx(null.pvalue, rel=1e-10)
    assert ours["delta"] == pytest.approx(-2.35 * np.log(reference.oddsratio_pooled))


def test_mh_by_hand_on_one_stratum():
    # one stratum: α = (a d) / (b c) exactly
    table = np.array([[[6, 4], [3, 7]]], float)
    y, focal, strata = responses_from_tables(table)
    row = mantel_haenszel_dif(y, focal, strata=strata).iloc[0]
    assert row["alpha_mh"] == pytest.approx(6 * 7 / (4 * 3))


def test_missing_cells_are_not_counted():
    y, focal, strata = responses_from_tables(TABLES)
    extra = np.full((5, 1), -1, np.int8)
    padded = mantel_haenszel_dif(np.vstack([y, extra]), np.r_[focal, [True] * 5],
                                 strata=np.r_[strata, [0] * 5]).iloc[0]
    plain = mantel_haenszel_dif(y, focal, strata=strata).iloc[0]
    assert padded["alpha_mh"] == pytest.approx(plain["alpha_mh"])
    assert padded["chi2"] == pytest.approx(plain["chi2"])


def test_stratum_counts_vectorised_over_items():
    y, focal, strata = responses_from_tables(TABLES)
    both = np.hstack([y, 1 - y])  # the second item flips right and wrong
    counts = stratum_counts(both, focal, strata)
    np.testing.assert_array_equal(counts["ref_right"][:, 0], TABLES[:, 0, 0])
    np.testing.assert_array_equal(counts["ref_right"][:, 1], TABLES[:, 0, 1])
    np.testing.assert_array_equal(counts["focal_wrong"][:, 0], TABLES[:, 1, 1])


def test_ets_rules_on_hand_values():
    delta = np.array([0.5, -1.2, -1.2, 2.0, -2.0, 1.6, np.nan])
    se = np.array([0.1, 0.1, 0.1, 0.1, 0.2, 0.5, 0.1])
    p = np.array([0.001, 0.001, 0.2, 0.001, 0.001, 0.001, 0.5])
    # 0.5: small → A; −1.2 significant → B; −1.2 not significant → A; 2.0 with (2−1)/0.1 → C;
    # −2.0 with 5 SE above 1 → C; 1.6 but (1.6−1)/0.5 = 1.2 < 1.645 → B; NaN → ""
    assert ets_category(delta, se, p).tolist() == ["A", "B", "A", "C", "C", "B", ""]


def test_score_strata_are_ordered_quantiles():
    rng = np.random.default_rng(0)
    y = (rng.random((400, 50)) < rng.random(400)[:, None]).astype(np.int8)
    strata = score_strata(y, 10)
    score = y.mean(1)
    assert strata.max() == 9 and np.bincount(strata).min() >= 30
    assert all(score[strata == k].max() <= score[strata == k + 1].min() for k in range(9))


def planted_dif_data(seed, shift):
    """2PL responses; the focal group's odds on items 0–19 are shifted by ``shift`` logits."""
    rng = np.random.default_rng(seed)
    n_models, n_items = 3000, 200
    theta = rng.normal(size=n_models)
    focal = rng.random(n_models) < 0.3
    b, a = rng.normal(size=n_items), np.exp(rng.normal(0, 0.2, n_items))
    eta = a * (theta[:, None] - b)
    eta[:, :20] += shift * focal[:, None]
    y = (rng.random(eta.shape) < 1 / (1 + np.exp(-eta))).astype(np.int8)
    return y, focal


def test_planted_dif_is_recovered_and_null_items_stay_clean():
    y, focal = planted_dif_data(seed=1, shift=-1.0)  # focal group finds items 0–19 harder
    table = mantel_haenszel_dif(y, focal, n_strata=20)
    planted, clean = table.iloc[:20], table.iloc[20:]
    # log α ≈ +1 on planted items (reference has the higher odds); ≈ 0 elsewhere
    assert planted["log_alpha"].median() == pytest.approx(1.0, abs=0.2)
    assert abs(clean["log_alpha"].median()) < 0.1
    assert (planted["category"] == "C").mean() > 0.5
    assert (clean["category"] == "A").mean() > 0.9


def test_bad_groups_are_refused():
    y, focal, strata = responses_from_tables(TABLES)
    with pytest.raises(DataError, match="both groups"):
        mantel_haenszel_dif(y, np.ones_like(focal), strata=strata)
    with pytest.raises(DataError, match="boolean"):
        mantel_haenszel_dif(y, focal.astype(int), strata=strata)
    with pytest.raises(DataError, match="1, 0 and -1"):
        mantel_haenszel_dif(y * 2, focal, strata=strata)


def test_dif_counts_by_partition_and_direction():
    from mmlu_audit.analyses.dif import dif_counts

    table = pd.DataFrame({"delta": [2.0, -2.0, 1.2, 0.1, np.nan], "category": ["C", "C", "B", "A", ""]})
    counts = dif_counts(table, ["STEM", "STEM", "non-STEM", "non-STEM", "non-STEM"])
    assert counts.loc["STEM", "C+"] == 1 and counts.loc["STEM", "C-"] == 1
    assert counts.loc["non-STEM", "B+"] == 1 and counts.loc["non-STEM", "A"] == 1
    assert counts.loc["non-STEM", "not computable"] == 1
    assert counts.loc["STEM", "share B or C"] == 1.0
    assert counts.loc["non-STEM", "share B or C"] == pytest.approx(1 / 3)


def test_large_models_split_at_median_and_refuse_unknown_sizes():
    from mmlu_audit.analyses.dif import large_models

    models = pd.DataFrame({"size_b": [1.0, 7.0, 13.0, 70.0]})
    assert large_models(models).tolist() == [False, False, True, True]
    assert large_models(models, threshold_b=10).tolist() == [False, False, True, True]
    with pytest.raises(DataError, match="unknown size"):
        large_models(pd.DataFrame({"size_b": [1.0, np.nan]}))
