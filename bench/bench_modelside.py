"""Benchmark the model-side analyses (paper §5).

β for 1,000 models × 3,153 STEM-sized items (target ≤ 5 s) by the batched Newton
solver, against statsmodels ``Logit`` fitted model by model in the same run (timed
on a few models and scaled to 1,000). With ``--chapters`` also the wall time of the
reasoning-sensitivity and rank-stability chapters (files 08 and 11) at full settings
(target ≤ 10 min together on 2 cores).

Writes bench/results/modelside.json.

Usage:  python bench/bench_modelside.py [--repeats 3] [--chapters 08 11]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import statsmodels
import statsmodels.api as sm

from mmlu_audit.analyses.modelside import reasoning_sensitivity
from mmlu_audit.core.scaling import standardise
from mmlu_audit.core.store import write_json_atomic

RESULTS = Path(__file__).parent / "results"
CHAPTER_KEYS = ("chapters_full_s", "chapters_full_cpu_s", "chapters_load_1min")
ROOT = Path(__file__).resolve().parents[1]


def stem_sized_world(n_models: int = 1000, n_items: int = 3153, seed: int = 0):
    """3PL responses (c = 0.25) with 5 % missing cells and a depth covariate."""
    rng = np.random.default_rng(seed)
    theta, b = rng.normal(size=n_models), rng.normal(0, 2, n_items)
    depth = rng.gamma(2.0, 1.0, n_items)
    p = 0.25 + 0.75 / (1 + np.exp(-(theta[:, None] - b[None, :] - 0.3 * standardise(depth))))
    y = (rng.random(p.shape) < p).astype(np.int8)
    y[rng.random(p.shape) < 0.05] = -1
    return y, depth


def time_ours(y, depth, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        reasoning_sensitivity(y, depth)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def time_statsmodels(y, depth, n_models: int) -> float:
    """Seconds per model for statsmodels Logit (one fit per model)."""
    z = standardise(depth)
    start = time.perf_counter()
    for j in range(n_models):
        seen = y[j] >= 0
        sm.Logit(y[j, seen].astype(float), sm.add_constant(z[seen])).fit(disp=0)
    return (time.perf_counter() - start) / n_models


def time_chapter(chapter: str) -> tuple[float, float]:
    """Wall and CPU seconds of one chapter at full settings, in a fresh process.

    CPU seconds (user + system of the build process and its kernel) depend far less on
    what else shares the machine than wall time does: on an idle 2-core machine the
    wall time lies between half the CPU time and the CPU time.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "mmlu_audit.book.build", chapter, "--out", folder],
                       check=True, cwd=ROOT)
        wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def write_result(result: dict) -> Path:
    """Write the result, keeping chapter timings that another run recorded meanwhile."""
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / "modelside.json"
    current = json.loads(path.read_text()) if path.exists() else {}
    for key in CHAPTER_KEYS:
        if key in current or key in result:
            result[key] = current.get(key, {}) | result.get(key, {})
    write_json_atomic(path, result, sort_keys=False)
    return path


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--peer-models", type=int, default=20)
    parser.add_argument("--chapters", nargs="*", default=[], metavar="NN",
                        help="also time these chapters at full settings (e.g. 08 11)")
    args = parser.parse_args(argv)
    y, depth = stem_sized_world()
    ours = time_ours(y, depth, args.repeats)
    per_model = time_statsmodels(y, depth, args.peer_models)
    result = {
        "benchmark": "β per model (batched Newton) vs statsmodels Logit model by model",
        "shape": list(y.shape), "missing_share": float((y < 0).mean()),
        "beta_1000_s": ours, "target_s": 5.0,
        "statsmodels_1000_s_extrapolated": per_model * y.shape[0],
        "speedup_vs_statsmodels": per_model * y.shape[0] / ours,
        "repeats": args.repeats, "peer_models_timed": args.peer_models,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "load_1min": os.getloadavg()[0]},
        "versions": {"numpy": np.__version__, "statsmodels": statsmodels.__version__},
    }
    write_result(result)  # keeps the last chapter timings unless re-measured below
    for chapter in args.chapters:
        wall, cpu = time_chapter(chapter)
        result.setdefault("chapters_full_s", {})[chapter] = wall
        result.setdefault("chapters_full_cpu_s", {})[chapter] = cpu
        result.setdefault("chapters_load_1min", {})[chapter] = os.getloadavg()[0]
        write_result(result)  # after each chapter, so a partial run still records what it measured
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
