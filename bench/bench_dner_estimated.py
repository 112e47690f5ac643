"""The D_ner contrast's coverage with the estimated b the chapters use, beside the planted-b bound.

Usage (from the repository root)::

    .venv/bin/python bench/bench_dner_estimated.py                  # 200 seeds, real design, both worlds
    .venv/bin/python bench/bench_dner_estimated.py --seeds 3 --max-steps 200 --scheduler serial   # smoke
    .venv/bin/python bench/bench_dner_estimated.py --design real paper    # the paper's reduced design too

For each design and world (``planted``: the paper's slopes; ``null``: identical slopes), every
seed simulates a world, calibrates it with the chapters' 2PL and runs §4.2's STEM × D_ner contrast
on b̂ and on the same world's planted b, each per SD of the difficulties it was regressed on
(:func:`mmlu_audit.analyses.dner_estimated.dner_replicate`, whose docstring defines the
scale-free estimand). Writes ``bench/results/dner_estimated.csv`` and ``dner_estimated.json``
(settings, coverage with Monte Carlo SEs, the seed study's planted-b coverage beside it, seconds
per seed, the commit, the machine).

Each seed is one Dask task (``--scheduler serial`` runs them here); finished seeds are appended to
``dner_estimated.seeds.csv`` at once, keyed by design and world, so a stopped run resumes without
repeating them; a file written with other settings is refused.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from _machine import study_meta

from mmlu_audit.core.distributed import add_scheduler_arguments, scheduler_address, seed_client

RESULTS = Path(__file__).resolve().parent / "results"


def summarise(args, sizes: dict, seconds: float) -> dict:
    """Write ``dner_estimated.csv`` and ``.json`` from the seeds file; return the JSON's content."""
    from mmlu_audit.analyses.dner_estimated import DNER_COLUMNS, dner_summary, planted_bound
    from mmlu_audit.analyses.power import read_rows
    from mmlu_audit.core.store import atomic_write, write_json_atomic

    rows = read_rows(args.out / "dner_estimated.seeds.csv")
    rows = rows[rows["seed"] < args.seeds]
    table = rows[list(DNER_COLUMNS)].sort_values(["design", "world", "seed"], kind="stable")
    atomic_write(args.out / "dner_estimated.csv", lambda tmp: table.to_csv(tmp, index=False))
    per_seed = rows.groupby(["design", "world"])["seconds"].agg(["mean", "median", "max"])
    meta = {"n_seeds": args.seeds, "seeds": f"0 … {args.seeds - 1}", "max_steps": args.max_steps,
            "designs": sizes,
            "estimand": "STEM − non-STEM slope of d_ner per SD of the regressed difficulties",
            "summary": dner_summary(table).to_dict(orient="records"),
            "planted_b_bound": planted_bound(RESULTS).to_dict(orient="records"),
            "seconds_per_seed": [{"design": d, "world": w, **v.to_dict()}
                                 for (d, w), v in per_seed.iterrows()],
            **study_meta(args.load, seconds, args.workers, args.scheduler or scheduler_address() or "local")}
    write_json_atomic(args.out / "dner_estimated.json", meta, sort_keys=False)
    return meta


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--design", nargs="+", default=["real"], choices=["paper", "real"])
    parser.add_argument("--worlds", nargs="+", default=["planted", "null"], choices=["planted", "null"])
    parser.add_argument("--seeds", type=int, default=200, help="world seeds 0 … N − 1")
    parser.add_argument("--models", type=int, default=1000, help="models of the paper's design")
    parser.add_argument("--per-subject", type=int, default=40, help="items per subject of the paper's design")
    parser.add_argument("--source", default="mmlu_real", help="the real source whose design 'real' keeps")
    parser.add_argument("--max-steps", type=int, default=None, help="SVI step cap (smoke runs)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    add_scheduler_arguments(parser)
    args = parser.parse_args()
    from mmlu_audit.analyses.dner_estimated import dner_replicate
    from mmlu_audit.analyses.study_designs import run_study, study_design

    args.load = os.getloadavg()
    designs = {name: study_design(name, models=args.models, per_subject=args.per_subject, source=args.source)
               for name in args.design}
    runs = [({"design": name, "world": world},
             {"design": design, "world": world, "max_steps": args.max_steps})
            for name, design in designs.items() for world in args.worlds]
    config = {"max_steps": args.max_steps or 0, "models": args.models, "per_subject": args.per_subject,
              "source": args.source}  # max_steps 0: no cap
    start = time.perf_counter()
    with seed_client(scheduler_address(args.scheduler), args.workers) as client:
        run_study(dner_replicate, runs, range(args.seeds), args.out / "dner_estimated.seeds.csv",
                  config=config, client=client, progress=os.isatty(2))
    sizes = {name: {"models": int(d.matrix.shape[0]) if d.matrix is not None else d.spec.n_models,
                    "items": len(d.items)} for name, d in designs.items()}
    meta = summarise(args, sizes, time.perf_counter() - start)
    print(json.dumps(meta["summary"], indent=1))
    print(json.dumps(meta["seconds_per_seed"], indent=1))


if __name__ == "__main__":
    main()
