"""Benchmark the cluster-robust inference engine against peers in the same run.

Writes bench/results/inference.json (timings: median of repeats, ratios to a
peer measured in the same process) and, with --size-power, the size/power
table bench/results/size_power.csv plus its settings in the JSON.

Usage:  python bench/bench_inference.py [--repeats 5] [--size-power] [--reps 200]
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import platform
import statistics
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import statsmodels
import statsmodels.api as sm

import mmlu_audit
from mmlu_audit.inference import fit_ols, interaction_design, permutation_test, vcov, wild_cluster_bootstrap
from mmlu_audit.worlds.homogeneity import simulate_homogeneity_world, size_power_table

RESULTS = Path(__file__).parent / "results"


def mmlu_subjects() -> tuple[np.ndarray, np.ndarray]:
    """Subject sizes (sorted by name) and STEM flags of the 57 MMLU subjects."""
    counts = mmlu_audit.load_items()["subject"].value_counts().sort_index()
    return counts.to_numpy(), np.array([s in mmlu_audit.STEM_SUBJECTS for s in counts.index])


def median_time(fn, repeats: int) -> float:
    """Median wall time of ``repeats`` calls after one warm-up call."""
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def timings(repeats: int, seed: int) -> dict:
    """Median wall times on a simulated 14,042 x 20 interaction design with the 57 MMLU subjects."""
    sizes, stem = mmlu_subjects()
    world = simulate_homogeneity_world(sizes, stem, seed=seed, planted=0.1)
    Z, names = interaction_design(world["X"], world["stem"])
    fit = fit_ols(world["y"], Z, names)
    clusters = world["clusters"]
    R = np.eye(Z.shape[1])[11:]
    sm_model = sm.OLS(world["y"], Z)
    out = {"design": {"n": int(Z.shape[0]), "k": int(Z.shape[1]), "clusters": int(sizes.size),
                      "q": int(R.shape[0])}}
    out["cr2_vcov_s"] = median_time(lambda: vcov(fit, "CR2", clusters), repeats)
    out["cr1_vcov_s"] = median_time(lambda: vcov(fit, "CR1", clusters), repeats)
    out["statsmodels_cr1_fit_and_cov_s"] = median_time(
        lambda: sm_model.fit(cov_type="cluster", cov_kwds={"groups": clusters}).cov_params(), repeats)
    out["ours_fit_and_cr2_s"] = median_time(lambda: vcov(fit_ols(world["y"], Z), "CR2", clusters), repeats)
    for kind in ("CR1", "CR2"):
        out[f"wcr_q9_9999_{kind}_s"] = median_time(
            lambda kind=kind: wild_cluster_bootstrap(fit, R, clusters=clusters, seed=seed, kind=kind,
                                                     n_draws=9999),
            repeats)
    out["wcr_q1_9999_CR1_s"] = median_time(
        lambda: wild_cluster_bootstrap(fit, "STEM:x1", clusters=clusters, seed=seed, n_draws=9999), repeats)
    out["wildboottest_q1_9999_s"] = median_time(
        lambda: _wildboottest(world["y"], Z, names, clusters, seed), 1)
    out["block_permutation_9999_r2gap_s"] = median_time(
        lambda: permutation_test(world["y"], world["X"], world["stem"], clusters, seed=seed, n_perm=9999),
        repeats)
    out["item_permutation_999_r2gap_s"] = median_time(
        lambda: permutation_test(world["y"], world["X"], world["stem"], clusters, seed=seed, scheme="item",
                                 n_perm=999), 1)
    out["ratio_ours_fit_cr2_over_statsmodels_fit_cr1"] = (
        out["ours_fit_and_cr2_s"] / out["statsmodels_cr1_fit_and_cov_s"])
    out["ratio_wildboottest_over_ours_q1"] = out["wildboottest_q1_9999_s"] / out["wcr_q1_9999_CR1_s"]
    return out


def _wildboottest(y, Z, names, clusters, seed):
    from wildboottest.wildboottest import wildboottest

    model = sm.OLS(y, pd.DataFrame(Z, columns=names))
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=UserWarning, module="wildboottest")
        return wildboottest(model, B=9999, cluster=clusters, param="STEM:x1", seed=seed, show=False,
                            parallel=False)


def environment() -> dict:
    """Versions and CPU facts needed to read the timings."""
    return {
        "python": platform.python_version(), "numpy": np.__version__, "pandas": pd.__version__,
        "statsmodels": statsmodels.__version__,
        "cpu_count": os.cpu_count(), "machine": platform.machine(),
        "blas_threads_env": {k: os.environ.get(k) for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")},
    }


def _world_defaults() -> dict:
    """Keyword defaults of ``simulate_homogeneity_world`` (the simulated world's settings)."""
    params = inspect.signature(simulate_homogeneity_world).parameters.values()
    return {p.name: p.default for p in params if p.default is not inspect.Parameter.empty}


def main() -> None:
    """Run the timings (and optionally the size/power simulation) and write the results."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=20261)
    parser.add_argument("--size-power", action="store_true", help="also run the size/power simulation")
    parser.add_argument("--reps", type=int, default=200, help="replicates per world for --size-power")
    args = parser.parse_args()
    RESULTS.mkdir(parents=True, exist_ok=True)
    report = {"environment": environment(), "timings": timings(args.repeats, args.seed),
              "repeats": args.repeats, "seed": args.seed}
    if args.size_power:
        sizes, stem = mmlu_subjects()
        start = time.perf_counter()
        table = size_power_table(sizes, stem, seed=args.seed, n_reps=args.reps)
        table.to_csv(RESULTS / "size_power.csv", index=False)
        report["size_power"] = {"seconds": time.perf_counter() - start, "csv": "bench/results/size_power.csv",
                                "settings": {"n_reps": args.reps, "seed": args.seed,
                                             "subjects": "MMLU sizes, 19 STEM",
                                             "world": _world_defaults(),
                                             "planted": float(table["planted"].max()),
                                             "n_draws": int(table["n_draws"].iloc[0])}}
    elif (RESULTS / "inference.json").exists():
        previous = json.loads((RESULTS / "inference.json").read_text())
        if "size_power" in previous:
            report["size_power"] = previous["size_power"]
    (RESULTS / "inference.json").write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report["timings"], indent=2))


if __name__ == "__main__":
    main()
