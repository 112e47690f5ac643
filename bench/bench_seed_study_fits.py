"""λ's and ρ's intervals over many world seeds: coverage, bias and size with Monte Carlo SEs.

Usage (from the repository root)::

    .venv/bin/python bench/bench_seed_study_fits.py                 # 200 seeds, all cores
    .venv/bin/python bench/bench_seed_study_fits.py --seeds 4 --max-steps 200   # a smoke run
    .venv/bin/python bench/bench_seed_study_fits.py --scheduler tcp://HOST:8786  # on a Dask cluster

Each seed simulates a reduced default world (``--models`` models, ``--per-subject`` items of each
of the 57 subjects, drawn once with seed 0), fits it three times — the 2PL, the 3PL (c = 0.25) of
its STEM items, the 2-D model — and records λ's CR2 interval and wild-bootstrap p from each
one-dimensional fit and ρ's posterior interval among the working checkpoints
(:mod:`mmlu_audit.analyses.seed_study_fits`). Writes ``bench/results/seed_study_fits.csv`` and
``seed_study_fits.json`` (settings, the summary, the machine); the validity appendix reads them.

Each seed is one Dask task (:mod:`mmlu_audit.core.distributed`: a local cluster of one worker
per core by default, ``--scheduler ADDRESS`` or ``$MMLU_AUDIT_SCHEDULER`` for another,
``--scheduler serial`` in this process). Finished seeds are appended to
``seed_study_fits.seeds.csv`` at once, so a stopped run resumes without repeating them.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from _machine import machine, versions

from mmlu_audit.core.distributed import (add_scheduler_arguments, map_seeds, next_result, pending_seeds,
                                         scheduler_address, seed_client)

RESULTS = Path(__file__).resolve().parent / "results"


def _world_inputs(models: int, per_subject: int):
    """The reduced world's spec, items, covariates and depth (sent to every worker once)."""
    from mmlu_audit import load_items
    from mmlu_audit.analyses.seed_study_fits import reduced_items
    from mmlu_audit.features import build_feature_table
    from mmlu_audit.worlds.simulated import WorldSpec

    full = WorldSpec()
    spec = WorldSpec(n_models=models, n_distinct=round(models * full.n_distinct / full.n_models))
    items = load_items()
    features = build_feature_table(items, progress=False).loc[items["item_id"].to_numpy()]
    kept = reduced_items(items, per_subject, seed=0)
    items, features = items.iloc[kept].reset_index(drop=True), features.iloc[kept].reset_index(drop=True)
    return spec, items, features[list(spec.slopes)], features["wscg_depth"].to_numpy(float)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=200, help="world seeds 0 … N − 1")
    parser.add_argument("--models", type=int, default=1000, help="models per world (the book's)")
    parser.add_argument("--per-subject", type=int, default=40, help="items kept per subject")
    parser.add_argument("--n-boot", type=int, default=999, help="wild bootstrap draws of λ's test")
    parser.add_argument("--max-steps", type=int, default=None, help="SVI step cap (smoke runs)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    add_scheduler_arguments(parser)
    args = parser.parse_args()
    from mmlu_audit.analyses.power import read_rows, run_seeds
    from mmlu_audit.analyses.seed_study_fits import fit_replicate, fit_study_summary
    from mmlu_audit.core.store import atomic_write, write_json_atomic

    load = os.getloadavg()
    spec, items, covariates, depth = _world_inputs(args.models, args.per_subject)
    config = {"models": args.models, "per_subject": args.per_subject, "n_boot": args.n_boot,
              "max_steps": args.max_steps or 0}  # 0: no cap (a CSV cannot hold None)
    seeds_file = args.out / "seed_study_fits.seeds.csv"
    start = time.perf_counter()
    with seed_client(scheduler_address(args.scheduler), args.workers) as client:
        todo = pending_seeds(read_rows(seeds_file), range(args.seeds))
        results = map_seeds(fit_replicate, todo, client=client, spec=spec, items=items, covariates=covariates,
                            depth=depth, n_boot=args.n_boot, max_steps=args.max_steps)
        run_seeds(next_result(results), todo, seeds_file, config=config, progress=os.isatty(2))
    seconds = time.perf_counter() - start
    rows = read_rows(seeds_file)
    table = rows[rows["seed"] < args.seeds].drop(columns=["seconds", *config]).sort_values("seed")
    atomic_write(args.out / "seed_study_fits.csv", lambda tmp: table.to_csv(tmp, index=False))
    meta = {"n_seeds": args.seeds, "seeds": f"0 … {args.seeds - 1}", "n_models": spec.n_models,
            "n_distinct": spec.n_distinct, "per_subject": args.per_subject, "n_items": len(items),
            "n_stem_items": int(items["stem"].sum()), "n_boot": args.n_boot, "max_steps": args.max_steps,
            "alpha": 0.05, "summary": fit_study_summary(table).to_dict(orient="records"),
            "seconds": seconds, "workers": args.workers,
            "scheduler": args.scheduler or scheduler_address() or "local",
            "created": time.strftime("%Y-%m-%dT%H:%M:%S"),
            "machine": machine(load), "versions": versions("mmlu-audit", "numpy", "jax", "numpyro")}
    write_json_atomic(args.out / "seed_study_fits.json", meta, sort_keys=False)
    print(json.dumps(meta["summary"], indent=1))


if __name__ == "__main__":
    main()
