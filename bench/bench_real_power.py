"""Power and size of the central tests at the real pool's design, over many seeds.

Usage (from the repository root)::

    .venv/bin/python bench/bench_real_power.py                      # mmlu_real, seeds 0.., until SE ≤ 0.03
    .venv/bin/python bench/bench_real_power.py --designs mmlu_real helm10 opencompass11
    .venv/bin/python bench/bench_real_power.py --quick --max-seeds 1  # smoke run (quick settings, own files)
    .venv/bin/python bench/bench_real_power.py --worlds floor_false   # one world, in its own files
    .venv/bin/python bench/bench_real_power.py --summarise-only      # rewrite the JSON from the CSV
    .venv/bin/python bench/bench_real_power.py --scheduler tcp://HOST:8786   # seeds on a Dask cluster

For every seed and each world of ``--worlds`` (default all of
:data:`mmlu_audit.analyses.power.WORLDS`: ``paper``, the paper's slopes, so a test's rate of
supporting the claim is its power; ``null``, identical slopes in both partitions, so the
item-side tests' rate is their size; ``floor_false``, the paper's slopes plus the ability × depth
interaction §5.1's two-stage estimate implies, so the guessing-floor rate is its false-support
rate, and one minus its rate in the other two its size), one world is simulated at the design
(:func:`mmlu_audit.worlds.real_design.simulate_at_design`: the real models, missing cells and
accuracies), calibrated with the chapters' 2PL, and the four tests of a real-data verdict are run
(:func:`mmlu_audit.analyses.power.one_seed_at_design`) with ``--n-boot`` bootstrap draws (999)
and ``--replicates`` 3PL-null replicates (99; the guessing-floor rule needs at least
:func:`mmlu_audit.analyses.central.floor_min_replicates` to be able to fail). Each finished seed
is appended to ``bench/results/real_power.csv`` at once (a stopped run resumes where it ended;
a subset of worlds writes ``real_power_<worlds>.csv``, quick runs ``real_power_quick*``, and the
settings, the worlds and the guessing-floor rule are config columns, so a file run otherwise is
refused rather than mixed); the run of a
design ends at ``--max-seeds`` or when every rate's Monte Carlo SE √(p(1 − p)/n) is at most
``--target-se`` after at least ``--min-seeds`` seeds. ``bench/results/real_power.json`` then holds
the rates, their SEs, seed counts, whether each reached the target, the settings, the design
sizes, seconds per seed, the date and the git commit; the book reads it with
:func:`mmlu_audit.analyses.power.load_power`.

Each seed is one Dask task (:mod:`mmlu_audit.core.distributed`: a local cluster of one worker
per core by default, ``--scheduler ADDRESS`` or ``$MMLU_AUDIT_SCHEDULER`` for another,
``--scheduler serial`` in this process); results come back in seed order, so the file and the
stopping rule see the seeds exactly as a serial run does (tasks past the stop are cancelled).

The seconds each seed and each world took are in the CSV and the JSON. A rate near 0.5 needs
√(0.25/n) ≤ the target SE, i.e. about 280 seeds for 0.03 and 625 for 0.02; the seeds a run took
and its rates are in the JSON, not here.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from _machine import git_commit

from mmlu_audit.analyses.central import floor_min_replicates
from mmlu_audit.analyses.power import WORLDS
from mmlu_audit.core.distributed import (add_scheduler_arguments, map_seeds, next_result, pending_seeds,
                                         scheduler_address, seed_client)
from mmlu_audit.core.store import write_json_atomic

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"


#: The version of the guessing-floor rule the rows were decided by (a config column of the CSV):
#: "band" = r(β, θ̂) inside the 3PL null's 95 % predictive band (its tail probability ≥ 0.05).
FLOOR_RULE = "band"


def seed_rows(seed: int, design, name: str, items, features, n_boot: int, replicates: int,
              fast: bool, worlds=None) -> list[dict]:
    """One seed's rows at a design, one per world in the order of ``worlds`` (one Dask task)."""
    from mmlu_audit.analyses.power import one_seed_at_design

    rows = []
    for world in worlds or list(WORLDS):
        t0 = time.perf_counter()
        rows.append(one_seed_at_design(design, items, features, seed, world, n_boot=n_boot,
                                       replicates=replicates, fast=fast)
                    | {"world_seconds": round(time.perf_counter() - t0, 3)})
    verdicts = ("homogeneity", "d_ner", "stem_r2", "guessing_floor")
    print(f"[{time.strftime('%H:%M:%S')}] {name} seed {seed}: "
          + "; ".join(f"{r['world']}: " + " ".join(f"{t}={int(r[t])}" for t in verdicts) for r in rows),
          flush=True)
    return rows


def results_stem(quick: bool, worlds: list[str]) -> str:
    """The results files' name: ``real_power``, ``_quick`` for a smoke run, the worlds if not all."""
    subset = "" if list(worlds) == list(WORLDS) else "_" + "_".join(worlds)
    return ("real_power_quick" if quick else "real_power") + subset


def design_size(design) -> dict:
    """Models, items, answered items and observed cells of a design."""
    observed = design.observed
    return {"models": int(observed.shape[0]), "items": int(observed.shape[1]),
            "answered_items": int(observed.any(axis=0).sum()), "observed_cells": int(observed.sum())}


def summarise(args, designs: dict, started: float | None = None) -> dict:
    """Write the JSON summary from the CSV rows; return it."""
    from mmlu_audit.analyses.power import POWER_TESTS, mc_se, rates, read_rows

    rows = read_rows(args.csv)
    table = rates(rows, POWER_TESTS, ("design", "world"))
    table["target_reached"] = table["mc_se"] <= args.target_se
    table["rate"], table["mc_se"] = table["rate"].round(6), mc_se(table["rate"].round(6), table["n_seeds"])
    seconds = rows.drop_duplicates(["design", "seed"]).groupby("design")["seconds"]
    result = {
        "description": "Rate at which each central test supports the paper's claim on worlds simulated at a "
                       "real design: power under the paper's slopes (world 'paper'), size under identical "
                       "slopes (world 'null'); the guessing floor's claim is true in both (one minus its "
                       "rate is its size) and false in world 'floor_false' (the paper's slopes plus the "
                       "ability x depth interaction of the paper's two-stage size), where its rate is its "
                       "false-support rate. Simulated, not findings about MMLU.",
        "target_se": args.target_se,
        "all_targets_reached": bool(table["target_reached"].all()),
        "worst_mc_se": float(table["mc_se"].max()),
        "target_note": ("every rate reached the target SE" if bool(table["target_reached"].all()) else
                        "the run ended (at --max-seeds or stopped by hand) before every rate reached the "
                        "target SE: see each rate's mc_se and target_reached"),
        "settings": {"n_boot": args.n_boot, "replicates": args.replicates, "quick": args.quick,
                     "calibration": "calibration_spec(fast=quick, seed)", "min_seeds": args.min_seeds,
                     "max_seeds": args.max_seeds, "worlds": args.worlds, "alpha": 0.05,
                     "floor_rule": FLOOR_RULE, "ability_depth": {w: WORLDS[w].get("ability_depth", 0.0)
                                                                 for w in args.worlds},
                     "seeds": "0, 1, 2, ... (world, calibration, bootstraps and 3PL null share the seed)"},
        "designs": designs,
        "n_seeds": {d: int(n) for d, n in rows.groupby("design")["seed"].nunique().items()},
        "seconds_per_seed": {d: {"mean": float(s.mean()), "median": float(s.median()), "max": float(s.max())}
                             for d, s in seconds},
        "rates": json.loads(table.to_json(orient="records")),
        "created": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "git_commit": git_commit(),
        "csv": args.csv.name,
    }
    if started is not None:
        result["wall_seconds_this_run"] = time.perf_counter() - started
    write_json_atomic(args.json, result, sort_keys=False)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--designs", nargs="+", default=["mmlu_real"],
                        help="real sources whose design the worlds keep, run in this order")
    parser.add_argument("--n-boot", type=int, default=999,
                        help="bootstrap draws of the item-side tests")
    parser.add_argument("--replicates", type=int, default=99,
                        help="3PL-null replicates of the guessing floor (at least floor_min_replicates())")
    parser.add_argument("--worlds", nargs="+", choices=list(WORLDS), default=list(WORLDS),
                        help="the worlds to run, in this order (a subset writes its own files)")
    parser.add_argument("--max-seeds", type=int, default=400,
                        help="seeds first-seed .. max-seeds-1 at most per design")
    parser.add_argument("--first-seed", type=int, default=0,
                        help="the first seed (a second process on another core takes a later range, "
                             "into its own --out; its rows then join the main CSV)")
    parser.add_argument("--target-se", type=float, default=0.03,
                        help="stop once every rate's MC SE is at most this")
    parser.add_argument("--min-seeds", type=int, default=30,
                        help="seeds before the stopping rule may stop")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: fast-mode fits, 99 draws, the fewest replicates that can "
                             "fail, in real_power_quick*.*")
    parser.add_argument("--summarise-only", action="store_true",
                        help="rewrite the JSON from the CSV and stop")
    parser.add_argument("--out", type=Path, default=RESULTS)
    add_scheduler_arguments(parser)
    args = parser.parse_args()
    if args.quick:
        args.n_boot, args.replicates = min(args.n_boot, 99), min(args.replicates, floor_min_replicates())
    if args.replicates < floor_min_replicates():
        parser.error(f"--replicates must be at least {floor_min_replicates()}: with fewer the guessing-floor "
                     "rule cannot fail")
    args.worlds = list(dict.fromkeys(args.worlds))
    stem = results_stem(args.quick, args.worlds)
    args.csv, args.json = args.out / f"{stem}.csv", args.out / f"{stem}.json"

    from mmlu_audit import load_items, load_responses
    from mmlu_audit.analyses.power import StopRule, read_rows, run_seeds
    from mmlu_audit.features import build_feature_table

    items = load_items()
    if args.summarise_only:  # every design the CSV holds
        args.designs = list(dict.fromkeys(read_rows(args.csv)["design"]))
    designs = {name: load_responses(name, items=items) for name in args.designs}
    sizes = {name: design_size(design) for name, design in designs.items()}
    if args.summarise_only:
        print(json.dumps(summarise(args, sizes), indent=2))
        return
    features = build_feature_table(items, progress=False)
    stop = StopRule(target_se=args.target_se, min_seeds=args.min_seeds)
    config = {"n_boot": args.n_boot, "replicates": args.replicates, "quick": args.quick,
              "worlds": " ".join(args.worlds), "floor_rule": FLOOR_RULE}
    started = time.perf_counter()
    with seed_client(scheduler_address(args.scheduler), args.workers) as client:
        for name, design in designs.items():
            seeds = range(args.first_seed, args.max_seeds)
            todo = pending_seeds(read_rows(args.csv), seeds, {"design": name})
            results = map_seeds(seed_rows, todo, client=client, design=design, name=name, items=items,
                                features=features, n_boot=args.n_boot, replicates=args.replicates,
                                fast=args.quick, worlds=args.worlds)
            result = run_seeds(next_result(results), todo, args.csv, config=config, key={"design": name},
                               stop=stop, progress=os.isatty(2))
            results.close()  # cancels the seeds past the stopping rule
            print(f"{name}: {result.rows['seed'].nunique()} seeds in the file, {len(result.ran)} run now, "
                  f"{'stopped by the SE rule' if result.stopped else 'seed list done'}", flush=True)
            summarise(args, {n: sizes[n] for n in designs}, started)
    print(json.dumps(summarise(args, sizes, started), indent=2))


if __name__ == "__main__":
    main()
