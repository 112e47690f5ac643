"""§5.1's refit bootstrap of the interaction model, recorded for the book's default inputs.

Usage (from the repository root)::

    .venv/bin/python bench/bench_interaction_bootstrap.py                  # 200 refits (~10 min, 2 cores)
    .venv/bin/python bench/bench_interaction_bootstrap.py --replicates 4   # a smoke run (writes to --out)
    .venv/bin/python bench/bench_interaction_bootstrap.py --data-source mmlu_real   # the real pool's refits

The interaction bootstrap chapter (chap-interaction-bootstrap) refits the interaction model on
resamples of distinct checkpoints and subjects. A few hundred refits are what a basic interval
needs; a book build cannot afford them, so this script runs them once on exactly the chapter's
default inputs (``data_source``, ``seed``, full settings) and writes
``bench/results/interaction_bootstrap.{csv,json}`` with the SHA-256 key of those inputs
(:mod:`mmlu_audit.analyses.modelside.bootstrap_record`); another ``--data-source`` (the chapter's
``real_source``, whose refits open the page) writes ``interaction_bootstrap_<source>.{csv,json}``.
The chapter reads a record only when its own inputs give the same key, and refits itself
otherwise.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from _machine import machine, versions

RESULTS = Path(__file__).resolve().parent / "results"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicates", type=int, default=200, help="refits (the chapter's default)")
    parser.add_argument("--data-source", default="simulated", help="the chapter's data_source")
    parser.add_argument("--seed", type=int, default=20240601, help="the chapter's seed")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    from mmlu_audit.analyses.modelside import (bootstrap_gammas, bootstrap_key, bootstrap_spec, record_name,
                                               working_stem_inputs, write_bootstrap_record)
    from mmlu_audit.analyses.pipeline import analysis_inputs

    load = os.getloadavg()
    inputs = analysis_inputs(args.data_source, args.seed, False)
    refitted = working_stem_inputs(inputs)
    spec = bootstrap_spec(False, args.seed)
    boot_inputs = {"replicates": args.replicates, "seed": args.seed,
                   "item_clusters": refitted["item_clusters"], "row_clusters": refitted["row_clusters"]}
    key = bootstrap_key(refitted["working_stem"].responses, refitted["depth"], spec, **boot_inputs)
    start = time.perf_counter()
    boot = bootstrap_gammas(refitted["working_stem"].responses, refitted["depth"], spec, **boot_inputs)
    seconds = time.perf_counter() - start
    meta = {"data_source": args.data_source, "seed": args.seed, "n_rows": int(refitted["working"].sum()),
            "n_items": int(refitted["depth"].size), "seconds": seconds,
            "created": time.strftime("%Y-%m-%dT%H:%M:%S"), "machine": machine(load),
            "versions": versions("mmlu-audit", "numpy", "jax", "numpyro")}
    path = write_bootstrap_record(args.out, boot, key, meta, record_name(args.data_source))
    print(f"{len(boot)} refits in {seconds:.0f} s; {int(boot['converged'].sum())} converged; wrote {path}")


if __name__ == "__main__":
    main()
