"""§4's item-side tests over many world seeds: power, size and coverage with Monte Carlo SEs.

Usage (from the repository root)::

    .venv/bin/python bench/bench_seed_study.py               # 200 seeds × 2 worlds, 999 draws
    .venv/bin/python bench/bench_seed_study.py --seeds 20 --n-boot 199   # a smoke run

For each seed the difficulties of the simulator's planted world and of its null world are
re-planted exactly as ``simulate_world(WorldSpec(...), seed)`` draws them, on the 14,042 real
items and their nine indicators, and §4.2's D_ner contrast (CR2 and wild-bootstrap Holm) and
§4.3's joint W(9) test (CR2-HTZ, wild cluster bootstrap) are run on them
(:mod:`mmlu_audit.analyses.seed_study`). Writes ``bench/results/seed_study.csv`` (one row per
world and seed) and ``seed_study.json`` (settings, the summary, the machine); the validity
appendix and the §4 chapters read them.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from _machine import machine, versions

from mmlu_audit.analyses.seed_study import seed_study, seed_study_summary
from mmlu_audit.core.store import atomic_write, write_json_atomic

RESULTS = Path(__file__).resolve().parent / "results"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=200, help="world seeds 0 … N − 1")
    parser.add_argument("--n-boot", type=int, default=999, help="wild bootstrap draws per test")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    from mmlu_audit import load_items
    from mmlu_audit.features import INDICATORS, build_feature_table

    load = os.getloadavg()
    items = load_items()
    features = build_feature_table(items).loc[items["item_id"].to_numpy(), list(INDICATORS)]
    start = time.perf_counter()
    table = seed_study(items, features, seeds=range(args.seeds), n_boot=args.n_boot)
    seconds = time.perf_counter() - start
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write(args.out / "seed_study.csv", lambda tmp: table.to_csv(tmp, index=False))
    meta = {"n_seeds": args.seeds, "seeds": f"0 … {args.seeds - 1}", "n_boot": args.n_boot, "alpha": 0.05,
            "n_items": len(items), "outcome": "planted b (no estimation error)",
            "summary": seed_study_summary(table).to_dict(orient="records"), "seconds": seconds,
            "created": time.strftime("%Y-%m-%dT%H:%M:%S"), "machine": machine(load),
            "versions": versions("mmlu-audit", "numpy", "scipy")}
    write_json_atomic(args.out / "seed_study.json", meta, sort_keys=False)
    print(json.dumps(meta["summary"], indent=1))


if __name__ == "__main__":
    main()
