"""λ's CR2 interval where λ is planted away from zero: coverage, bias and power over many seeds.

Usage (from the repository root)::

    .venv/bin/python bench/bench_lambda_coverage.py       # 200 seeds; λ = 0, paper, paper/2; both designs
    .venv/bin/python bench/bench_lambda_coverage.py --design real --lambda paper --seeds 3 --max-steps 200
    .venv/bin/python bench/bench_lambda_coverage.py --scheduler tcp://HOST:8786   # on a Dask cluster

For each design (``--design``: ``paper``, the paper's design reduced as the fit study reduces it;
``real``, the real pool's models, missing cells and accuracies) and each planted λ (``--lambda``: a
number, ``paper`` — the paper's γ1 as a depth trend of log a,
:func:`mmlu_audit.analyses.lambda_coverage.paper_lambda` — or ``paper/K``), every seed simulates a
world whose answered STEM items' log discriminations carry λ·(standardised depth), fits the 3PL
(c = 0.25) of those items and records λ's CR2 interval and the CR2 and wild-bootstrap p of λ = 0
(:func:`mmlu_audit.analyses.lambda_coverage.lambda_replicate`). Writes
``bench/results/lambda_coverage.csv`` and ``lambda_coverage.json`` (settings, the summary per
design and λ, seconds per seed, the commit, the machine).

Each seed is one Dask task (:mod:`mmlu_audit.core.distributed`; ``--scheduler serial`` runs them
here). Finished seeds are appended to ``lambda_coverage.seeds.csv`` at once, keyed by design and λ
setting, so a stopped run resumes without repeating them; a file written with other settings
(``--n-boot``, ``--max-steps``, ``--models``, ``--per-subject``, ``--source``) is refused.
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


def setting_label(setting: str) -> str:
    """The text a λ setting is keyed by in the CSV: a number as Python writes its float, else as given."""
    try:
        return repr(float(setting))
    except ValueError:
        return setting.strip()


def summarise(args, designs: dict, seconds: float) -> dict:
    """Write ``lambda_coverage.csv`` and ``.json`` from the seeds file; return the JSON's content."""
    from mmlu_audit.analyses.lambda_coverage import LAMBDA_COLUMNS, lambda_summary
    from mmlu_audit.analyses.power import read_rows
    from mmlu_audit.core.store import atomic_write, write_json_atomic

    rows = read_rows(args.out / "lambda_coverage.seeds.csv")
    rows = rows[rows["seed"] < args.seeds]
    table = rows[list(LAMBDA_COLUMNS)].sort_values(["design", "lambda_setting", "seed"], kind="stable")
    atomic_write(args.out / "lambda_coverage.csv", lambda tmp: table.to_csv(tmp, index=False))
    per_seed = rows.groupby(["design", "lambda_setting"])["seconds"].agg(["mean", "median", "max"])
    meta = {"n_seeds": args.seeds, "seeds": f"0 … {args.seeds - 1}", "n_boot": args.n_boot,
            "max_steps": args.max_steps, "alpha": 0.05, "designs": designs,
            "lambda_settings": args.lambdas, "summary": lambda_summary(table).to_dict(orient="records"),
            "seconds_per_seed": [{"design": d, "lambda_setting": s, **v.to_dict()}
                                 for (d, s), v in per_seed.iterrows()],
            **study_meta(args.load, seconds, args.workers, args.scheduler or scheduler_address() or "local")}
    write_json_atomic(args.out / "lambda_coverage.json", meta, sort_keys=False)
    return meta


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--design", nargs="+", default=["paper", "real"], choices=["paper", "real"])
    parser.add_argument("--lambda", dest="lambdas", nargs="+", default=["0", "paper", "paper/2"],
                        help="planted λ values: numbers, 'paper' or 'paper/K'")
    parser.add_argument("--seeds", type=int, default=200, help="world seeds 0 … N − 1 of every design and λ")
    parser.add_argument("--models", type=int, default=1000, help="models of the paper's design")
    parser.add_argument("--per-subject", type=int, default=40, help="items per subject of the paper's design")
    parser.add_argument("--source", default="mmlu_real", help="the real source whose design 'real' keeps")
    parser.add_argument("--n-boot", type=int, default=999, help="wild bootstrap draws of the test of λ = 0")
    parser.add_argument("--max-steps", type=int, default=None, help="SVI step cap (smoke runs)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    add_scheduler_arguments(parser)
    args = parser.parse_args()
    from mmlu_audit.analyses.lambda_coverage import lambda_replicate, lambda_setting
    from mmlu_audit.analyses.study_designs import run_study, study_design

    args.load = os.getloadavg()
    designs = {name: study_design(name, models=args.models, per_subject=args.per_subject, source=args.source)
               for name in args.design}
    runs = [({"design": name, "lambda_setting": setting_label(setting)},
             {"design": design, "lam": lambda_setting(setting, design.spec), "n_boot": args.n_boot,
              "max_steps": args.max_steps})
            for name, design in designs.items() for setting in args.lambdas]
    config = {"n_boot": args.n_boot, "max_steps": args.max_steps or 0, "models": args.models,
              "per_subject": args.per_subject, "source": args.source}  # max_steps 0: no cap
    start = time.perf_counter()
    with seed_client(scheduler_address(args.scheduler), args.workers) as client:
        run_study(lambda_replicate, runs, range(args.seeds), args.out / "lambda_coverage.seeds.csv",
                  config=config, client=client, progress=os.isatty(2))
    sizes = {name: {"models": int(d.matrix.shape[0]) if d.matrix is not None else d.spec.n_models,
                    "items": len(d.items), "items_read_on": int(d.read_on.sum())}
             for name, d in designs.items()}
    meta = summarise(args, sizes, time.perf_counter() - start)
    print(json.dumps(meta["summary"], indent=1))
    print(json.dumps(meta["seconds_per_seed"], indent=1))


if __name__ == "__main__":
    main()
