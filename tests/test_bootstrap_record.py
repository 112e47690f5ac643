"""A recorded refit bootstrap is read back only for the inputs it was made from, and intact."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mmlu_audit.analyses.modelside import (bootstrap_key, interaction_spec, read_bootstrap_record,
                                           write_bootstrap_record)
from mmlu_audit.core.errors import ParameterError


def _inputs():
    rng = np.random.default_rng(0)
    responses = (rng.random((30, 12)) < 0.6).astype(np.int8)
    return {"responses": responses, "covariate": rng.normal(size=12), "spec": interaction_spec(True, 1),
            "replicates": 3, "seed": 7, "item_clusters": np.repeat(["a", "b", "c"], 4),
            "row_clusters": np.repeat(np.arange(15), 2)}


def _key(**changes):
    given = _inputs() | changes
    return bootstrap_key(given.pop("responses"), given.pop("covariate"), given.pop("spec"), **given)


def test_the_key_names_every_input():
    base = _key()
    assert base == _key()
    flipped = _inputs()["responses"].copy()
    flipped[0, 0] = 1 - flipped[0, 0]
    changed = [_key(responses=flipped), _key(covariate=np.zeros(12)), _key(spec=interaction_spec(True, 2)),
               _key(replicates=4), _key(seed=8), _key(item_clusters=np.repeat(["a", "b"], 6)),
               _key(row_clusters=None)]
    assert len({base, *changed}) == 1 + len(changed)


def test_a_record_round_trips_and_refuses_other_inputs_or_a_changed_table(tmp_path):
    boot = pd.DataFrame({"gamma0": [0.1, -0.05, 0.02], "gamma1": [-0.0123456789, 0.003, 0.1 / 3],
                         "converged": [True, True, False]})
    assert read_bootstrap_record(tmp_path, _key())[0] is None  # nothing recorded yet
    write_bootstrap_record(tmp_path, boot, _key(), {"created": "2026-12-05T00:00:00"})
    table, meta = read_bootstrap_record(tmp_path, _key())
    assert table is not None and np.array_equal(table[["gamma0", "gamma1"]], boot[["gamma0", "gamma1"]])
    assert table["converged"].tolist() == [True, True, False] and meta["replicates"] == 3
    table, meta = read_bootstrap_record(tmp_path, _key(seed=8))
    assert table is None and "other inputs" in meta["problem"]
    csv = tmp_path / "interaction_bootstrap.csv"
    csv.write_text(csv.read_text().replace("0.1,", "0.2,", 1))
    table, meta = read_bootstrap_record(tmp_path, _key())
    assert table is None and "do not match" in meta["problem"]


def test_each_source_keeps_its_own_record(tmp_path):
    from mmlu_audit.analyses.modelside import record_name

    assert record_name("simulated") == "interaction_bootstrap"
    assert record_name("mmlu_real") == "interaction_bootstrap_mmlu_real"
    assert record_name("simulated-null") == "interaction_bootstrap_simulated_null"
    boot = pd.DataFrame({"gamma0": [0.1, 0.2], "gamma1": [0.3, 0.4], "converged": [True, True]})
    write_bootstrap_record(tmp_path, boot, "sim-key", {}, record_name("simulated"))
    write_bootstrap_record(tmp_path, boot * 2, "real-key", {}, record_name("mmlu_real"))
    # recording the real pool's refits leaves the simulated world's record as it was
    assert read_bootstrap_record(tmp_path, "sim-key")[0]["gamma1"].tolist() == [0.3, 0.4]
    real = read_bootstrap_record(tmp_path, "real-key", record_name("mmlu_real"))[0]
    assert real["gamma1"].tolist() == [0.6, 0.8]
    assert read_bootstrap_record(tmp_path, "real-key")[0] is None
    with pytest.raises(ParameterError):
        record_name("")
