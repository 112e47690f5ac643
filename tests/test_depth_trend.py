"""λ and κ, the depth trends that identify §5.1's γ1: the OLS slope, CR2 inference that covers at
its nominal rate over many seeds, and clear errors."""

from __future__ import annotations

import numpy as np
import pytest

from mmlu_audit.analyses.modelside import depth_trends
from mmlu_audit.core.errors import DataError


def _items(rng, n_subjects=19, per=20, lam=0.0, kappa=0.5):
    subjects = np.repeat(np.arange(n_subjects), per)
    depth = rng.gamma(2.0, 1.0, subjects.size) + rng.normal(0, 0.5, n_subjects)[subjects]
    w = (depth - depth.mean()) / depth.std()
    log_a = -0.2 + lam * w + rng.normal(0, 0.2, n_subjects)[subjects] + rng.normal(0, 0.3, subjects.size)
    b = kappa * w + rng.normal(0, 0.6, n_subjects)[subjects] + rng.normal(0, 1.0, subjects.size)
    return np.exp(log_a), b, depth, subjects


def test_the_estimates_are_the_ols_slopes_on_standardised_depth():
    a, b, depth, subjects = _items(np.random.default_rng(0), lam=-0.3)
    table = depth_trends(a, b, depth, subjects, seed=1, n_boot=199)
    w = (depth - depth.mean()) / depth.std()
    assert table.loc["lambda", "estimate"] == pytest.approx(np.polyfit(w, np.log(a), 1)[0])
    assert table.loc["kappa", "estimate"] == pytest.approx(np.polyfit(w, b, 1)[0])
    assert (table["low"] < table["estimate"]).all() and (table["estimate"] < table["high"]).all()
    assert (table["n_clusters"] == 19).all() and table["df"].lt(19).all()  # Bell–McCaffrey: few clusters


def test_the_cr2_interval_of_lambda_covers_its_planted_zero_at_the_nominal_rate():
    covered = []
    for seed in range(200):
        a, b, depth, subjects = _items(np.random.default_rng(seed))
        row = depth_trends(a, b, depth, subjects, seed=seed, n_boot=9).loc["lambda"]
        covered.append(row["low"] <= 0 <= row["high"])
    rate, se = np.mean(covered), np.sqrt(0.95 * 0.05 / 200)
    assert abs(rate - 0.95) < 3 * se, rate  # 200 seeds: 0.95 ± 0.046


@pytest.mark.parametrize(("change", "message"), [
    ({"a": -1.0}, "positive"), ({"b": np.nan}, "finite"), ({"short": True}, "one value per item")])
def test_bad_item_estimates_get_one_clear_error(change, message):
    a, b, depth, subjects = _items(np.random.default_rng(0))
    if "a" in change:
        a[3] = change["a"]
    if "b" in change:
        b[3] = change["b"]
    if "short" in change:
        depth = depth[:-1]
    with pytest.raises(DataError, match=message):
        depth_trends(a, b, depth, subjects, seed=0, n_boot=9)
