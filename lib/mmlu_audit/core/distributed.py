"""Many-seed studies on Dask: one task per seed, on this machine's cores or on any cluster.

The seed-study benchmarks (``bench/bench_seed_study.py``, ``bench_seed_study_fits.py``,
``bench_real_power.py``) hand each seed to a :mod:`distributed` client:

- by default a :class:`~distributed.LocalCluster` of one single-threaded worker process per
  core, with the BLAS, OpenMP and XLA thread pools pinned to one thread (:data:`PINNED_THREADS`),
  so that N seeds run side by side without oversubscribing the cores;
- any running scheduler (a ``dask-jobqueue`` cluster on SLURM or PBS, ``dask scheduler`` on
  another host) by ``--scheduler ADDRESS`` or the environment variable ``MMLU_AUDIT_SCHEDULER``;
- or in this process, seed after seed (``--scheduler serial``).

A seed's result does not depend on where it ran: every task is a pure function of its seed
and inputs, and :func:`map_seeds` hands the results back in seed order, so a runner appends
them to its resumable file exactly as a serial run would. Only a window of seeds
(:data:`IN_FLIGHT_PER_THREAD` per worker thread) runs ahead of the one awaited, so a stopped run
loses at most that window.
"""

from __future__ import annotations

import argparse
import os
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager

import pandas as pd

from mmlu_audit.core.errors import ParameterError
from mmlu_audit.core.seeds import check_seed

__all__ = ["IN_FLIGHT_PER_THREAD", "PINNED_THREADS", "SCHEDULER_ENV", "SERIAL", "add_scheduler_arguments",
           "map_seeds", "next_result", "pending_seeds", "scheduler_address", "seed_client"]

#: The environment variable naming a scheduler when ``--scheduler`` is not given.
SCHEDULER_ENV = "MMLU_AUDIT_SCHEDULER"

#: The ``--scheduler`` value that runs every seed in this process, one after the other.
SERIAL = "serial"

#: Tasks :func:`map_seeds` keeps in flight per worker thread of the cluster.
IN_FLIGHT_PER_THREAD = 2
#: Set in each local worker's environment before it starts: one thread per pool.
PINNED_THREADS = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
                  "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"}


def add_scheduler_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--scheduler ADDRESS`` and ``--workers N`` to a runner's command line."""
    parser.add_argument("--scheduler", default=None,
                        help=f"a Dask scheduler address (default: ${SCHEDULER_ENV}, else a local cluster of "
                             f"one worker per core); {SERIAL!r}: every seed in this process")
    parser.add_argument("--workers", type=int, default=None,
                        help="workers of the local cluster (default: one per core)")


def scheduler_address(value: str | None = None) -> str | None:
    """The scheduler to use: ``value``, else ``$MMLU_AUDIT_SCHEDULER``, else None (a local cluster).

    Raises
    ------
    ParameterError
        If the environment variable is set but blank.
    """
    if value:
        return value
    found = os.environ.get(SCHEDULER_ENV)
    if found is not None and not found.strip():
        raise ParameterError(SCHEDULER_ENV, "is set but blank: unset it or name a scheduler address")
    return found.strip() if found else None


@contextmanager
def seed_client(address: str | None = None, workers: int | None = None):
    """A :class:`distributed.Client` for one study, closed (with its local cluster) on exit.

    Parameters
    ----------
    address : str, optional
        A scheduler address; None starts a :class:`~distributed.LocalCluster`; ``"serial"``
        yields None (run in this process).
    workers : int, optional
        The local cluster's worker processes (default: the cores this process may use).

    Yields
    ------
    distributed.Client or None
    """
    if address == SERIAL:
        yield None
        return
    from distributed import Client, LocalCluster

    if address is not None:
        with Client(address) as client:
            yield client
        return
    if workers is not None and workers < 1:
        raise ParameterError("workers", f"must be at least 1, got {workers}")
    from mmlu_audit.core.machine import available_cores

    with LocalCluster(n_workers=workers or available_cores(), threads_per_worker=1, processes=True,
                      dashboard_address=None, env=dict(PINNED_THREADS)) as cluster, Client(cluster) as client:
        yield client


def _timed(function: Callable, seed: int, inputs: Mapping):
    """``function(seed=seed, **inputs)`` and its wall time in seconds (run where the task runs)."""
    start = time.perf_counter()
    result = function(seed=seed, **inputs)
    return result, time.perf_counter() - start


def map_seeds(function: Callable, seeds: Iterable[int], *, client=None,
              **inputs) -> Iterator[tuple[int, object, float]]:
    """Run ``function(seed=s, **inputs)`` for every seed, one task each; yield the results in seed order.

    Parameters
    ----------
    function : callable
        A function of ``seed`` and the keyword ``inputs``; on a cluster it must be importable or
        picklable by value (a module-level function).
    seeds : iterable of int
    client : distributed.Client, optional
        Where the tasks run; None runs them here, one after the other. Every input is sent to
        the workers once (``scatter``, broadcast), not once per task.
    **inputs
        The function's other arguments, the same for every seed.

    Yields
    ------
    (seed, result, seconds)
        In the order of ``seeds``; ``seconds`` is the task's own wall time where it ran.
        Closing the generator early cancels the tasks not yet collected.
    """
    seeds = [check_seed(seed) for seed in seeds]
    if client is None:
        for seed in seeds:
            yield (seed, *_timed(function, seed, inputs))
        return
    # one scatter per value: scattering the dict would key each future by its name ("items"), and a
    # second study on the same client would then release the first one's inputs
    shared = {name: client.scatter(value, broadcast=True, hash=False) for name, value in inputs.items()}
    run = f"{getattr(function, '__name__', 'task')}-{uuid.uuid4().hex[:8]}"
    # a window of tasks in flight, refilled in seed order: the scheduler may run queued tasks in
    # any order, and a run stopped while later seeds wait on an early one loses every result held
    window = IN_FLIGHT_PER_THREAD * max(1, sum(client.nthreads().values()))
    pending, todo = deque(), iter(seeds)

    def submit_next() -> None:
        seed = next(todo, None)
        if seed is not None:
            pending.append((seed, client.submit(_timed, function, seed, shared, key=f"{run}-seed-{seed}")))

    for _ in range(window):
        submit_next()
    try:
        while pending:
            seed, future = pending.popleft()
            result = future.result()
            submit_next()
            yield (seed, *result)
    finally:
        client.cancel([future for _, future in pending if not future.done()])


def pending_seeds(rows: pd.DataFrame | None, seeds: Iterable[int], key: Mapping | None = None) -> list[int]:
    """The ``seeds`` a resumable results file does not hold yet for ``key``, in their order.

    Parameters
    ----------
    rows : DataFrame or None
        The file's rows (a ``seed`` column and the key's columns); None for no file.
    seeds : iterable of int
    key : dict, optional
        Columns naming this run within the file; values compare as text.
    """
    done = set()
    if rows is not None and len(rows):
        mask = pd.Series(True, index=rows.index)
        for column, wanted in (key or {}).items():
            mask &= rows[column].astype(str) == str(wanted)
        done = set(rows.loc[mask, "seed"].astype(int))
    return [check_seed(seed) for seed in seeds if check_seed(seed) not in done]


def next_result(results: Iterator[tuple[int, object, float]]) -> Callable[[int], list[dict]]:
    """A ``task(seed)`` for :func:`mmlu_audit.analyses.power.run_seeds` that takes the next result.

    Each row of the result gets the task's own wall time as ``seconds``, which the runner's
    file keeps (not the time spent waiting for the task).

    Raises
    ------
    ParameterError
        If the runner asks for a seed other than the next result's (the seed lists differ).
    """
    def task(seed: int) -> list[dict]:
        done, result, seconds = next(results)
        if done != seed:
            raise ParameterError("seeds", f"the runner asked for seed {seed}, the next result is seed {done}")
        rows = [result] if isinstance(result, Mapping) else list(result)
        return [{"seconds": round(seconds, 3), **row} for row in rows]

    return task
