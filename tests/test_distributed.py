"""Seed studies on Dask: one task per seed, results identical to the serial run, resumable."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest

from mmlu_audit.analyses.power import read_rows, run_seeds
from mmlu_audit.core import distributed
from mmlu_audit.core.errors import ParameterError


def cheap_replicate(seed: int, offset: float, weights: np.ndarray) -> list[dict]:
    """A tiny seeded task: two worlds' rows from one seed's draws."""
    draws = np.random.default_rng(seed).normal(offset, 1.0, weights.size)
    return [{"world": world, "value": float(draws @ weights) * sign} for world, sign in (("a", 1), ("b", -1))]


INPUTS = {"offset": 0.25, "weights": np.linspace(0.0, 1.0, 50)}


def marked_replicate(seed: int, folder: str) -> int:
    """A task that leaves a file named after its seed when it starts, then takes a moment."""
    import pathlib

    pathlib.Path(folder, str(seed)).touch()
    time.sleep(0.2)
    return seed


@pytest.fixture(scope="module")
def client():
    with distributed.seed_client(workers=2) as client:
        yield client


def test_local_cluster_has_two_pinned_single_thread_workers(client):
    workers = client.scheduler_info()["workers"].values()
    assert [w["nthreads"] for w in workers] == [1, 1]
    threads = client.run(lambda: __import__("os").environ["OMP_NUM_THREADS"])
    assert set(threads.values()) == {"1"}


def test_two_workers_give_the_serial_results(client):
    serial = list(distributed.map_seeds(cheap_replicate, [3, 1, 2, 0], **INPUTS))
    spread = list(distributed.map_seeds(cheap_replicate, [3, 1, 2, 0], client=client, **INPUTS))
    assert [seed for seed, _, _ in spread] == [3, 1, 2, 0]  # the seeds' order, not the finishing order
    assert [result for _, result, _ in spread] == [result for _, result, _ in serial]
    assert all(seconds >= 0 for _, _, seconds in spread)


def test_only_a_window_of_seeds_runs_ahead_of_the_one_awaited(client, tmp_path):
    """Before: every seed was queued at once and the scheduler ran them in any order, so a run
    stopped while seed 1 still waited lost the 45 later seeds it had finished."""
    window = distributed.IN_FLIGHT_PER_THREAD * 2
    results = distributed.map_seeds(marked_replicate, range(40), client=client, folder=str(tmp_path))
    first = next(results)
    time.sleep(1.0)  # the workers would start many more seeds in this time if they were queued
    started = sorted(int(path.name) for path in tmp_path.iterdir())
    assert first[:2] == (0, 0)
    assert started == list(range(len(started))) and len(started) <= window + 1
    assert [seed for seed, _, _ in results] == list(range(1, 40))


def test_a_killed_run_resumes_without_repeating_seeds(client, tmp_path):
    path = tmp_path / "study.csv"
    done = distributed.map_seeds(cheap_replicate, range(3), client=client, **INPUTS)
    run_seeds(distributed.next_result(done), range(3), path, config={"n": 1}, progress=False)
    todo = distributed.pending_seeds(read_rows(path), range(6))
    assert todo == [3, 4, 5]
    rest = distributed.map_seeds(cheap_replicate, todo, client=client, **INPUTS)
    result = run_seeds(distributed.next_result(rest), range(6), path, config={"n": 1}, progress=False)
    assert result.ran == [3, 4, 5]
    serial = run_seeds(lambda seed: cheap_replicate(seed, **INPUTS), range(6), tmp_path / "serial.csv",
                       config={"n": 1}, progress=False)
    columns = ["seed", "n", "world", "value"]
    pd.testing.assert_frame_equal(read_rows(path)[columns], serial.rows[columns])
    assert list(read_rows(path).columns) == list(serial.rows.columns)


def test_pending_seeds_reads_only_this_key():
    rows = pd.DataFrame({"seed": [0, 1, 0], "design": ["x", "x", "y"]})
    assert distributed.pending_seeds(rows, range(3), {"design": "y"}) == [1, 2]
    assert distributed.pending_seeds(None, [2, 0]) == [2, 0]


def test_a_mismatched_seed_list_is_refused():
    task = distributed.next_result(distributed.map_seeds(cheap_replicate, [5], **INPUTS))
    with pytest.raises(ParameterError, match="asked for seed 4, the next result is seed 5"):
        task(4)


def test_the_scheduler_comes_from_the_flag_then_the_environment(monkeypatch):
    monkeypatch.setenv(distributed.SCHEDULER_ENV, "tcp://10.0.0.1:8786")
    assert distributed.scheduler_address("tcp://h:1") == "tcp://h:1"
    assert distributed.scheduler_address(None) == "tcp://10.0.0.1:8786"
    monkeypatch.delenv(distributed.SCHEDULER_ENV)
    assert distributed.scheduler_address(None) is None
    monkeypatch.setenv(distributed.SCHEDULER_ENV, " ")
    with pytest.raises(ParameterError, match="set but blank"):
        distributed.scheduler_address(None)


def test_serial_needs_no_cluster():
    with distributed.seed_client(distributed.SERIAL) as client:
        assert client is None
