"""The multiverse cells too heavy for the build: the 3PL outcome and the split-half reliability of b̂.

Usage (from the repository root)::

    .venv/bin/python bench/bench_multiverse.py                # every real population of chap-real-verdicts
    .venv/bin/python bench/bench_multiverse.py --splits 1 --fast   # a smoke run

For each disjoint real population that can estimate a difficulty and their pooled matrix it fits
the 3PL (c = 0.25) to every answered item and records the item-side estimands with that outcome
(:func:`mmlu_audit.analyses.multiverse.three_pl_specifications`), and calibrates each half of
``--splits`` random model splits on its own (:func:`~mmlu_audit.analyses.multiverse.b_split_halves`).
Writes ``bench/results/multiverse_3pl.csv``, ``reliability_b.csv`` and ``multiverse.json`` (the
commit it ran on, the settings, the machine); the real-verdicts chapter reads them
(:func:`~mmlu_audit.analyses.multiverse.load_bench`). A population already in both files is not
rerun, so a stopped run resumes where it stopped.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import pandas as pd
from _machine import git_commit, machine, versions

from mmlu_audit.core.store import atomic_write, write_json_atomic

RESULTS = Path(__file__).resolve().parent / "results"
#: The populations of chap-real-verdicts that carry a difficulty, and their pool.
POPULATIONS = ("helm20", "opencompass11", "lmeval7", "mmlu_real_all")


def _append(path: Path, rows: pd.DataFrame) -> None:
    """Add ``rows`` to the CSV at ``path`` atomically (the file is whole after every population)."""
    table = pd.concat([pd.read_csv(path), rows], ignore_index=True) if path.is_file() else rows
    atomic_write(path, lambda tmp: table.to_csv(tmp, index=False))


def _done(path: Path) -> set:
    return set(pd.read_csv(path)["population"]) if path.is_file() else set()


def main() -> None:
    from mmlu_audit.analyses.multiverse import BENCH_FILES, b_split_halves, three_pl_specifications
    from mmlu_audit.analyses.pipeline import analysis_inputs
    from mmlu_audit.worlds.sources import load_responses

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=20240601, help="the book's seed")
    parser.add_argument("--splits", type=int, default=4, help="random model splits per population")
    parser.add_argument("--n-boot", type=int, default=499, help="bootstrap draws of each interval")
    parser.add_argument("--fast", action="store_true", help="smoke run: the fast calibration's step cap")
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder of the result files")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    cells_path, halves_path = (args.out / name for name in BENCH_FILES)
    start, load = time.time(), os.getloadavg()
    for source in POPULATIONS:
        if source in _done(cells_path) and source in _done(halves_path):
            print(f"{source}: already recorded")
            continue
        inputs = analysis_inputs(source, args.seed, args.fast)
        matrix = load_responses(source)
        began = time.time()
        if source not in _done(cells_path):
            _append(cells_path, three_pl_specifications(source, inputs.frame, matrix, seed=args.seed,
                                                        n_boot=args.n_boot, fast=args.fast))
        if source not in _done(halves_path):
            stem = inputs.frame["stem"].to_numpy()
            _append(halves_path, b_split_halves(source, matrix, stem, seed=args.seed, n_splits=args.splits,
                                                fast=args.fast))
        print(f"{source}: {time.time() - began:.0f} s")
    write_json_atomic(args.out / "multiverse.json", {
        "commit": git_commit(), "settings": vars(args) | {"out": str(args.out)},
        "seconds": time.time() - start, "machine": machine(load),
        "versions": versions("mmlu-audit", "numpyro", "jax")})


if __name__ == "__main__":
    main()
