"""Power and size of the replication outcomes on every real population's design, over many seeds.

Usage (from the repository root)::

    .venv/bin/python bench/bench_outcome_power.py                 # seeds 0 … 624, both worlds
    .venv/bin/python bench/bench_outcome_power.py --seeds 2 --quick --scheduler serial   # smoke run
    .venv/bin/python bench/bench_outcome_power.py --summarise-only     # rewrite the JSON from the seeds

Every seed draws the items of each world of
:data:`mmlu_audit.analyses.outcome_power.OUTCOME_WORLDS` (``paper_estimates``: the paper's own
per-partition estimates where it reports them; ``null``: identical slopes), with the item side
calibrated to the real pool (:func:`mmlu_audit.analyses.design_targets.real_pool_targets`, the
validity chapter's calibration, computed once here); every disjoint population of the
real-verdicts chapter answers them with its own models, missing cells and accuracies; each
estimand is computed and classified per population and for their random-effects combination
(:func:`mmlu_audit.analyses.outcome_power.seed_outcomes`). A signal's rate where the paper's
estimates are planted is the outcome's power, under ``null`` its size.

Each seed is one Dask task (``--scheduler serial`` runs them here); its rows are appended to
``bench/results/outcome_power.seeds.csv`` as it finishes, so a stopped run resumes without
repeating finished seeds, and a file written with other settings is refused. The summary
``outcome_power.json`` holds the rates with their Monte Carlo SEs, the outcome shares, the mean
estimate per world beside the paper's, what was planted, the settings, seconds per seed, the
commit and the machine. A rate near 0.5 needs 625 seeds for an SE of 0.02; the JSON says which
rates reached ``--target-se``.
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
STEM = "outcome_power"


def seed_worlds(seed: int, designs: dict, items, features, worlds: list, n_boot: int, fast: bool,
                calibration) -> list[dict]:
    """One seed's rows in every world (one Dask task)."""
    from mmlu_audit.analyses.outcome_power import seed_outcomes

    rows = []
    for world in worlds:
        rows += seed_outcomes(designs, items, features, seed, world, n_boot=n_boot, fast=fast,
                              calibration=calibration)
    return rows


def planted(calibration) -> dict:
    """What each world plants, with where its values come from."""
    from mmlu_audit.analyses.outcome_power import OUTCOME_WORLDS
    from mmlu_audit.worlds.simulated import WorldSpec

    return {"worlds": {name: WorldSpec(**changes).planted_slopes().to_dict(orient="index")
                       for name, changes in OUTCOME_WORLDS.items()},
            "source": "paper_estimates: PAPER_ESTIMATE_SLOPES (mmlu_audit.worlds.simulated): D_ner and D_mdd "
                      "per partition as §4.2 reports them, no other contrast; null: each slope the mean of "
                      "its two",
            "item_side_calibration": calibration.to_dict()}


def summarise(args, sizes: dict, calibration, seconds: float | None) -> dict:
    """Write ``outcome_power.json`` from the seeds file; return it."""
    from mmlu_audit.analyses.outcome_power import outcome_rates, outcome_shares
    from mmlu_audit.analyses.power import read_rows
    from mmlu_audit.analyses.replication import ESTIMANDS
    from mmlu_audit.core.store import write_json_atomic

    rows = read_rows(args.seeds_csv)
    rows = rows[rows["seed"] < args.seeds]
    table = outcome_rates(rows)
    table["target_reached"] = table["mc_se"] <= args.target_se + 1e-9
    means = (rows.groupby(["world", "population", "estimand"], sort=False)["estimate"]
             .agg(["mean", "std", "count"]).reset_index())
    means["paper"] = means["estimand"].map({k: e.paper for k, e in ESTIMANDS.items()})
    per_seed = rows.drop_duplicates("seed")["seconds"]
    where = args.scheduler or scheduler_address() or "local"
    result = {
        "description": "How often each replication outcome arises on worlds simulated at the designs of the "
                       "disjoint real populations, and for their random-effects combination: a signal's rate "
                       "is power where the paper's estimates are planted (world 'paper_estimates') and size "
                       "where no item-side effect is (world 'null'). Simulated, not findings about MMLU.",
        "target_se": args.target_se,
        "all_targets_reached": bool(table["target_reached"].all()),
        "worst_mc_se": float(table["mc_se"].max()),
        "rates": json.loads(table.to_json(orient="records")),
        "shares": json.loads(outcome_shares(rows).to_json(orient="records")),
        "mean_estimates": json.loads(means.to_json(orient="records")),
        "planted": planted(calibration),
        "settings": {"n_boot": args.n_boot, "quick": args.quick, "worlds": args.worlds,
                     "populations": list(sizes), "calibration": "calibration_spec(fast=quick, seed)",
                     "seeds": f"0 … {args.seeds - 1} (items, calibration, bootstraps and folds share "
                              "the seed)"},
        "designs": sizes,
        "n_seeds": int(rows["seed"].nunique()),
        "seconds_per_seed": {"mean": float(per_seed.mean()), "median": float(per_seed.median()),
                             "max": float(per_seed.max())},
    } | study_meta(args.load, seconds, args.workers, where)
    write_json_atomic(args.json, result, sort_keys=False)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=625, help="seeds 0 … N − 1")
    parser.add_argument("--n-boot", type=int, default=999, help="draws of each bootstrap")
    parser.add_argument("--worlds", nargs="+", default=["paper_estimates", "null"],
                        choices=["paper_estimates", "null"])
    parser.add_argument("--target-se", type=float, default=0.02,
                        help="the Monte Carlo SE each rate should reach")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: fast-mode fits, 99 draws, in outcome_power_quick.*")
    parser.add_argument("--summarise-only", action="store_true", help="rewrite the JSON from the seeds file")
    parser.add_argument("--out", type=Path, default=RESULTS)
    add_scheduler_arguments(parser)
    args = parser.parse_args()
    if args.quick:
        args.n_boot = min(args.n_boot, 99)
    stem = STEM + ("_quick" if args.quick else "")
    args.seeds_csv, args.json = args.out / f"{stem}.seeds.csv", args.out / f"{stem}.json"
    args.load = os.getloadavg()

    from mmlu_audit import load_items, load_responses
    from mmlu_audit.analyses.design_targets import real_pool_targets
    from mmlu_audit.analyses.power import _check_config, read_rows, run_seeds
    from mmlu_audit.core.distributed import map_seeds, next_result, pending_seeds
    from mmlu_audit.data.real_pool import DISJOINT_POPULATIONS
    from mmlu_audit.features import build_feature_table

    items = load_items()
    designs = {name: load_responses(name, items=items) for name in DISJOINT_POPULATIONS}
    sizes = {name: {"models": int(d.shape[0]), "answered_items": int(d.observed.any(axis=0).sum()),
                    "observed_cells": int(d.observed.sum())} for name, d in designs.items()}
    calibration = real_pool_targets(fast=args.quick)[1].calibration
    if args.summarise_only:
        print(json.dumps(summarise(args, sizes, calibration, None)["rates"], indent=1))
        return
    features = build_feature_table(items, progress=False)
    config = {"n_boot": args.n_boot, "quick": args.quick, "worlds": " ".join(args.worlds),
              "calibration": json.dumps(calibration.to_dict(), default=float)}
    existing = read_rows(args.seeds_csv)
    if existing is not None:  # refuse a foreign file before any seed runs
        _check_config(existing, config, args.seeds_csv)
    todo = pending_seeds(existing, range(args.seeds))
    start = time.perf_counter()
    with seed_client(scheduler_address(args.scheduler), args.workers) as client:
        results = map_seeds(seed_worlds, todo, client=client, designs=designs, items=items, features=features,
                            worlds=args.worlds, n_boot=args.n_boot, fast=args.quick, calibration=calibration)
        run_seeds(next_result(results), todo, args.seeds_csv, config=config, progress=os.isatty(2))
        results.close()
    meta = summarise(args, sizes, calibration, time.perf_counter() - start)
    print(json.dumps({k: meta[k] for k in ("n_seeds", "worst_mc_se", "all_targets_reached")}, indent=1))


if __name__ == "__main__":
    main()
