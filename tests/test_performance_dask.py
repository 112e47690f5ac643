"""The Performance page's reader of ``bench/results/dask_timing.json`` (serial vs Dask)."""

from __future__ import annotations

import json

import pytest

from mmlu_audit.book.performance import dask_timing_table, dask_timing_text, read_result
from mmlu_audit.core.errors import DataError


def timing(serial_s=120.0, dask_s=75.0, identical=True) -> dict:
    """A synthetic record in the shape ``bench/bench_dask.py`` writes."""
    return {"commit": "0123456789abcdef+dirty", "created": "2026-12-07T06:00:00",
            "settings": {"seeds": 8, "n_boot": 199, "workers": 2, "order": ["serial", "dask"]},
            "serial_s": serial_s, "dask_s": dask_s, "speedup": 1.6, "identical": identical,
            "machine": {"cpus": 2, "loadavg_at_start": [0.31, 0.2, 0.1]}}


def test_the_table_gives_wall_clock_per_seed_and_speed_up(tmp_path):
    (tmp_path / "dask_timing.json").write_text(json.dumps(timing()))
    table = dask_timing_table(read_result(tmp_path, "dask_timing.json"))
    assert list(table.index) == ["serial", "Dask, 2 local workers"]
    assert table["wall clock (s)"].tolist() == [120.0, 75.0]
    assert table["per seed (s)"].tolist() == [15.0, 9.38]
    assert table["speed-up"].tolist() == [1.0, 1.6]


def test_the_sentence_names_the_run_and_flags_different_tables():
    text = dask_timing_text(timing())
    assert text.startswith("8 seeds") and "199 bootstrap draws" in text and "2 local Dask workers" in text
    assert "`0123456` (with uncommitted changes)" in text and "load average 0.31" in text
    assert "identical tables" in text
    assert "different tables" in dask_timing_text(timing(identical=False))


def test_an_incomplete_record_is_refused():
    with pytest.raises(DataError, match="serial_s"):
        dask_timing_table(timing(dask_s=None))
    with pytest.raises(DataError, match="serial_s"):
        dask_timing_table(timing(serial_s=0.0))
