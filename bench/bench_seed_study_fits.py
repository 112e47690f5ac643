"""λ's and ρ's intervals over many world seeds: coverage, bias and size with Monte Carlo SEs.

Usage (from the repository root)::

    .venv/bin/python bench/bench_seed_study_fits.py                 # 200 seeds, all cores
    .venv/bin/python bench/bench_seed_study_fits.py --seeds 4 --max-steps 200   # a smoke run

Each seed simulates a reduced default world (``--models`` models, ``--per-subject`` items of each
of the 57 subjects, drawn once with seed 0), fits it three times — the 2PL, the 3PL (c = 0.25) of
its STEM items, the 2-D model — and records λ's CR2 interval and wild-bootstrap p from each
one-dimensional fit and ρ's posterior interval among the working checkpoints
(:mod:`mmlu_audit.analyses.seed_study_fits`). Writes ``bench/results/seed_study_fits.csv`` and
``seed_study_fits.json`` (settings, the summary, the machine); the validity appendix reads them.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from concurrent.futures import ProcessPoolExecutor
from functools import lru_cache
from multiprocessing import get_context
from pathlib import Path

from _machine import machine, versions

RESULTS = Path(__file__).resolve().parent / "results"


@lru_cache(maxsize=1)
def _world_inputs(models: int, per_subject: int):
    """The reduced world's spec, items, covariates and depth (once per worker)."""
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


def _replicate(job: tuple) -> dict:
    seed, models, per_subject, n_boot, max_steps = job
    from mmlu_audit.analyses.seed_study_fits import fit_replicate

    spec, items, covariates, depth = _world_inputs(models, per_subject)
    return fit_replicate(spec, items, covariates, depth, seed, n_boot=n_boot, max_steps=max_steps)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=200, help="world seeds 0 … N − 1")
    parser.add_argument("--models", type=int, default=1000, help="models per world (the book's)")
    parser.add_argument("--per-subject", type=int, default=40, help="items kept per subject")
    parser.add_argument("--n-boot", type=int, default=999, help="wild bootstrap draws of λ's test")
    parser.add_argument("--max-steps", type=int, default=None, help="SVI step cap (smoke runs)")
    parser.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    import pandas as pd
    from tqdm.auto import tqdm

    from mmlu_audit.analyses.seed_study_fits import fit_study_summary
    from mmlu_audit.core.machine import available_cores
    from mmlu_audit.core.store import atomic_write, write_json_atomic

    load = os.getloadavg()
    workers = args.workers or available_cores()
    jobs = [(seed, args.models, args.per_subject, args.n_boot, args.max_steps) for seed in range(args.seeds)]
    start = time.perf_counter()
    # spawned, not forked: JAX's threads do not survive a fork
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
        rows = list(tqdm(pool.map(_replicate, jobs), total=len(jobs), desc="fit seed study"))
    seconds = time.perf_counter() - start
    table = pd.DataFrame(rows).sort_values("seed")
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write(args.out / "seed_study_fits.csv", lambda tmp: table.to_csv(tmp, index=False))
    spec, items, _, _ = _world_inputs(args.models, args.per_subject)
    meta = {"n_seeds": args.seeds, "seeds": f"0 … {args.seeds - 1}", "n_models": spec.n_models,
            "n_distinct": spec.n_distinct, "per_subject": args.per_subject, "n_items": len(items),
            "n_stem_items": int(items["stem"].sum()), "n_boot": args.n_boot, "max_steps": args.max_steps,
            "alpha": 0.05, "summary": fit_study_summary(table).to_dict(orient="records"),
            "seconds": seconds, "workers": workers, "created": time.strftime("%Y-%m-%dT%H:%M:%S"),
            "machine": machine(load), "versions": versions("mmlu-audit", "numpy", "jax", "numpyro")}
    write_json_atomic(args.out / "seed_study_fits.json", meta, sort_keys=False)
    print(json.dumps(meta["summary"], indent=1))


if __name__ == "__main__":
    main()
