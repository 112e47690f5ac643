"""One seed study's wall clock, serial and on a two-worker local Dask cluster, in one run.

Usage (from the repository root, on an otherwise idle machine)::

    .venv/bin/python bench/bench_dask.py                        # 200 seeds, 999 draws, 2 workers
    .venv/bin/python bench/bench_dask.py --seeds 2 --n-boot 9 --out /tmp/dask_timing.json  # smoke

The task is ``bench_seed_study.py``'s, one seed of §4's item-side tests on both worlds
(:func:`bench_seed_study.seed_rows`), for seeds 0 … N − 1. The same seeds run twice in this
process, one study after the other: first ``--scheduler serial`` (every seed in this process),
then a :class:`~distributed.LocalCluster` of ``--workers`` single-threaded workers
(:func:`mmlu_audit.core.distributed.seed_client`). Each study writes its resumable seeds file
into a temporary folder, so the committed ``bench/results/seed_study*`` files are untouched,
and the two tables must be identical. Each wall clock runs from the client's start (the
cluster's start-up included) to the last row written; loading the items and features once
before both is not counted. The default is 200 seeds: with 24 (about 1 s a seed) the cluster's
start-up outweighed the second worker (22.3 s serial, 24.3 s on two workers, 2026-12-07).
Writes ``bench/results/dask_timing.json`` (the Performance page reads it).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from contextlib import closing
from pathlib import Path

from _machine import git_commit, machine, versions
from bench_seed_study import seed_rows, study_table

from mmlu_audit.analyses.power import read_rows, run_seeds
from mmlu_audit.core.distributed import SERIAL, map_seeds, next_result, seed_client
from mmlu_audit.core.store import write_json_atomic

RESULTS = Path(__file__).resolve().parent / "results"


def timed_study(scheduler: str | None, workers: int | None, folder: Path, n_seeds: int, n_boot: int,
                items, features):
    """Run the study into ``folder``; return its table and wall-clock seconds."""
    seeds_file = folder / "seed_study.seeds.csv"
    start = time.perf_counter()
    with seed_client(scheduler, workers) as client, closing(
            map_seeds(seed_rows, range(n_seeds), client=client, items=items, features=features,
                      n_boot=n_boot)) as results:  # closed while the client is still open
        run_seeds(next_result(results), range(n_seeds), seeds_file, config={"n_boot": n_boot},
                  progress=False)
    seconds = time.perf_counter() - start
    return study_table(read_rows(seeds_file), n_seeds), seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=200, help="world seeds 0 … N − 1")
    parser.add_argument("--n-boot", type=int, default=999, help="bootstrap draws per test (the study's own)")
    parser.add_argument("--workers", type=int, default=2, help="workers of the local cluster")
    parser.add_argument("--out", type=Path, default=RESULTS / "dask_timing.json")
    args = parser.parse_args()
    from mmlu_audit import load_items
    from mmlu_audit.features import INDICATORS, build_feature_table

    load = os.getloadavg()
    items = load_items()
    features = build_feature_table(items).loc[items["item_id"].to_numpy(), list(INDICATORS)]
    with tempfile.TemporaryDirectory(prefix="bench_dask_") as tmp:
        runs = {}
        for name, scheduler in (("serial", SERIAL), ("dask", None)):
            folder = Path(tmp) / name
            folder.mkdir()
            runs[name] = timed_study(scheduler, args.workers if scheduler is None else None, folder,
                                     args.seeds, args.n_boot, items, features)
            print(f"{name}: {runs[name][1]:.1f} s", flush=True)
    (serial, serial_s), (spread, dask_s) = runs["serial"], runs["dask"]
    result = {
        "commit": git_commit(), "created": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "settings": {"seeds": args.seeds, "n_boot": args.n_boot, "workers": args.workers,
                     "task": "bench_seed_study.seed_rows (planted and null world)",
                     "order": ["serial", "dask"], "n_items": len(items)},
        "serial_s": round(serial_s, 2), "dask_s": round(dask_s, 2), "speedup": round(serial_s / dask_s, 3),
        "identical": bool(serial.equals(spread)), "rows": len(serial),
        "machine": machine(load), "versions": versions("mmlu-audit", "dask", "distributed", "jax", "numpy"),
    }
    write_json_atomic(args.out, result, sort_keys=False)
    print(json.dumps({k: result[k] for k in ("serial_s", "dask_s", "speedup", "identical")}))
    if not result["identical"]:
        raise SystemExit("the Dask run's table differs from the serial run's")


if __name__ == "__main__":
    main()
