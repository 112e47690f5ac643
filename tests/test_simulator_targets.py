"""The simulator's targets table: accuracy matching, and the gaps computed as stated."""

from __future__ import annotations

import numpy as np
import pytest

from mmlu_audit.analyses.simulator_targets import matched_models
from mmlu_audit.core.errors import DataError


def test_each_real_model_gets_the_nearest_free_simulated_model():
    chosen = matched_models([0.5, 0.52, 0.9], [0.1, 0.51, 0.53, 0.88, 0.95])
    assert list(chosen) == [1, 2, 3] and len(set(chosen)) == 3


def test_two_real_models_never_share_a_simulated_twin():
    chosen = matched_models([0.5, 0.5, 0.5], np.array([0.49, 0.5, 0.7]))
    assert sorted(chosen) == [0, 1, 2] and chosen[0] == 1


def test_too_few_simulated_models_is_an_error():
    with pytest.raises(DataError, match="cannot match"):
        matched_models([0.1, 0.2], [0.3])


def test_held_out_real_figures_carry_a_jackknife_interval_over_models():
    import pandas as pd

    from mmlu_audit.analyses.simulator_targets import TARGET_COLUMNS, simulator_targets
    from mmlu_audit.data.items import load_items
    from mmlu_audit.data.responses import ResponseMatrix
    from mmlu_audit.worlds.simulated import WorldSpec, simulate_world

    items = load_items().groupby("subject", group_keys=False).head(4).reset_index(drop=True)
    rng = np.random.default_rng(0)
    covariates = pd.DataFrame(rng.normal(size=(len(items), 9)), columns=list(WorldSpec().slopes))
    world = simulate_world(WorldSpec(n_models=80, n_distinct=70, n_groups=8), seed=3, items=items,
                           covariates=covariates)
    real_y = (rng.random((20, len(items))) < np.linspace(0.3, 0.9, len(items))).astype(np.int8)
    real = ResponseMatrix(real_y, pd.DataFrame({"model_id": [f"m{j}" for j in range(20)]}),
                          world.matrix.item_ids, "toy_real", False)
    subjects = items["subject"].unique()
    helm = pd.DataFrame([{"model_id": f"h{j}", "subject": s, "n_items": 10, "n_correct": int(rng.integers(3,
                                                                                                          10))}
                         for j in range(15) for s in subjects])
    stem_subjects = set(items.loc[items["stem"], "subject"])
    table = simulator_targets(world, real, helm, stem_subjects)
    assert list(table.columns) == list(TARGET_COLUMNS)
    assert table.equals(simulator_targets(world, real, helm, stem_subjects))
    fitted, held = table[table["kind"] == "fitted"], table[table["kind"] == "held out"]
    assert fitted[["real low", "real high"]].isna().all().all()
    assert len(held) == 5 and held["real low"].notna().sum() == 3  # not the two quantiles
    with_interval = held.dropna(subset=["real low"])
    assert (with_interval["real low"] <= with_interval["real"]).all()
    assert (with_interval["real"] <= with_interval["real high"]).all()
    spread = held.set_index("target").loc["SD of item p-values (real item-level pool)"]
    assert spread["real low"] < spread["real"] < spread["real high"]
    assert spread["real high"] - spread["real"] == pytest.approx(spread["real"] - spread["real low"])
    assert np.allclose(table["gap"], table["simulated"] - table["real"])
