"""§4's item-side tests over many world seeds: power, size and coverage with Monte Carlo SEs.

Usage (from the repository root)::

    .venv/bin/python bench/bench_seed_study.py               # 200 seeds × 2 worlds, 999 draws
    .venv/bin/python bench/bench_seed_study.py --seeds 20 --n-boot 199   # a smoke run
    .venv/bin/python bench/bench_seed_study.py --scheduler tcp://HOST:8786   # on a Dask cluster

For each seed the difficulties of the simulator's planted world and of its null world are
re-planted exactly as ``simulate_world(WorldSpec(...), seed)`` draws them, on the 14,042 real
items and their nine indicators, and §4.2's D_ner contrast (CR2 and wild-bootstrap Holm) and
§4.3's joint W(9) test (CR2-HTZ, wild cluster bootstrap) are run on them
(:mod:`mmlu_audit.analyses.seed_study`). Writes ``bench/results/seed_study.csv`` (one row per
world and seed) and ``seed_study.json`` (settings, the summary, the machine); the validity
appendix and the §4 chapters read them.

Each seed is one Dask task (:mod:`mmlu_audit.core.distributed`: a local cluster of one worker
per core by default, ``--scheduler ADDRESS`` or ``$MMLU_AUDIT_SCHEDULER`` for another,
``--scheduler serial`` in this process). Finished seeds are appended to
``seed_study.seeds.csv`` at once, so a stopped run resumes without repeating them.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from _machine import machine, versions

from mmlu_audit.analyses.power import read_rows, run_seeds
from mmlu_audit.analyses.seed_study import seed_study_summary
from mmlu_audit.core.distributed import (add_scheduler_arguments, map_seeds, next_result, pending_seeds,
                                         scheduler_address, seed_client)
from mmlu_audit.core.store import atomic_write, write_json_atomic

RESULTS = Path(__file__).resolve().parent / "results"


def seed_rows(seed: int, items, features, n_boot: int) -> list[dict]:
    """One seed's rows, the planted world's then the null world's (one Dask task)."""
    from mmlu_audit.analyses.seed_study import seed_replicate
    from mmlu_audit.worlds.simulated import WorldSpec

    worlds = {"planted": WorldSpec(), "null": WorldSpec(null_world=True)}
    return [{"world": world} | seed_replicate(spec, items, features, seed, n_boot)
            for world, spec in worlds.items()]


def study_table(rows, n_seeds: int):
    """The seeds file's rows as ``seed_study`` returns them: world by world, seed by seed."""
    rows = rows[rows["seed"] < n_seeds].drop(columns=["seconds", "n_boot"])
    order = rows["world"].map({"planted": 0, "null": 1})
    rows = rows.assign(_order=order).sort_values(["_order", "seed"]).drop(columns="_order")
    return rows[["world", *[c for c in rows.columns if c != "world"]]].reset_index(drop=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=200, help="world seeds 0 … N − 1")
    parser.add_argument("--n-boot", type=int, default=999, help="wild bootstrap draws per test")
    parser.add_argument("--out", type=Path, default=RESULTS)
    add_scheduler_arguments(parser)
    args = parser.parse_args()
    from mmlu_audit import load_items
    from mmlu_audit.features import INDICATORS, build_feature_table

    load = os.getloadavg()
    items = load_items()
    features = build_feature_table(items).loc[items["item_id"].to_numpy(), list(INDICATORS)]
    seeds_file, config = args.out / "seed_study.seeds.csv", {"n_boot": args.n_boot}
    start = time.perf_counter()
    with seed_client(scheduler_address(args.scheduler), args.workers) as client:
        todo = pending_seeds(read_rows(seeds_file), range(args.seeds))
        results = map_seeds(seed_rows, todo, client=client, items=items, features=features,
                            n_boot=args.n_boot)
        run_seeds(next_result(results), todo, seeds_file, config=config, progress=os.isatty(2))
    seconds = time.perf_counter() - start
    table = study_table(read_rows(seeds_file), args.seeds)
    atomic_write(args.out / "seed_study.csv", lambda tmp: table.to_csv(tmp, index=False))
    meta = {"n_seeds": args.seeds, "seeds": f"0 … {args.seeds - 1}", "n_boot": args.n_boot, "alpha": 0.05,
            "n_items": len(items), "outcome": "planted b (no estimation error)",
            "summary": seed_study_summary(table).to_dict(orient="records"), "seconds": seconds,
            "scheduler": args.scheduler or scheduler_address() or "local", "workers": args.workers,
            "created": time.strftime("%Y-%m-%dT%H:%M:%S"), "machine": machine(load),
            "versions": versions("mmlu-audit", "numpy", "scipy")}
    write_json_atomic(args.out / "seed_study.json", meta, sort_keys=False)
    print(json.dumps(meta["summary"], indent=1))


if __name__ == "__main__":
    main()
