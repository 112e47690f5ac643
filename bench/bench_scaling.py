"""Cost curves: 2PL fit time and peak memory against the number of cells; features against stems.

Usage (from the repository root)::

    .venv/bin/python bench/bench_scaling.py            # 10^5 … 1.4 × 10^8 cells → bench/results/scaling.json
    .venv/bin/python bench/bench_scaling.py --quick    # 10^5 … 6 × 10^5 cells → scaling_quick.json

Every size is a simulated 2PL matrix (θ ~ N(0, 1), b ~ N(0, 2.24²), log a ~ N(0, 0.3²), no
missing cells) generated and fitted in its own subprocess, with ``bench_irt.BENCH_SPEC``
(the benchmark's stopping rule), so peak resident memory (``VmHWM``, see ``_memory.py``)
is that fit's. Sizes run smallest first; from the third on, the peaks measured so far
predict the next one (the larger of an affine and a log-log line), and a size predicted
above ``--memory-limit-gb`` (20) is skipped (recorded with its prediction) instead of
risking the machine. The fitted exponents (log-log least squares) of wall time, time per
step and peak memory, and the largest matrix the memory line (a fixed part plus bytes per
cell) predicts within ``--capacity-gb`` (24 GB, the build machine), go into the result.
The stem part times a cold build of the feature table (spaCy parse included) of random
subsets of the MMLU stems (``bench_features.stem_scaling``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from _machine import machine, versions
from _memory import peak_rss_mb

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
#: (models, items), ascending in cells: 10^5 … 4,278 × 14,042 (6.0 × 10^7) and 10^4 × 14,042.
SIZES = [(100, 1000), (300, 1000), (500, 2000), (1000, 3000), (1000, 14042), (2000, 14042),
         (4278, 14042), (10000, 14042)]
QUICK_SIZES = [(100, 1000), (200, 1500), (300, 2000)]
STEMS = [250, 1000, 4000, 14042]
QUICK_STEMS = [50, 100, 200]


def simulate_2pl(n_models: int, n_items: int, seed: int):
    """A 2PL response matrix (int8), generated in row blocks so the generator's own peak stays small."""
    rng = np.random.default_rng(seed)
    theta = rng.standard_normal(n_models)
    b = 2.24 * rng.standard_normal(n_items)
    a = np.exp(0.3 * rng.standard_normal(n_items))
    responses = np.empty((n_models, n_items), dtype=np.int8)
    for start in range(0, n_models, 256):
        block = theta[start:start + 256, None]
        p = 1.0 / (1.0 + np.exp(-a * (block - b)))
        responses[start:start + 256] = rng.random(p.shape) < p
    return responses, b


def worker(n_models: int, n_items: int, seed: int) -> None:
    """Simulate, fit under the benchmark's rule, print one JSON line (runs in a subprocess)."""
    from mmlu_audit.irt import IRTSpec, fit_irt, recovery_stats

    from bench_irt import BENCH_SPEC

    responses, b_true = simulate_2pl(n_models, n_items, seed)
    before_fit_mb = peak_rss_mb()
    spec = IRTSpec(**BENCH_SPEC)
    fit = fit_irt(responses, spec, progress=False)
    meta = fit.meta
    steady = max(meta["steps"] - spec.chunk, 1)
    print(json.dumps({"wall_s": meta["wall_s"], "compile_s": meta["compile_s"], "steps": meta["steps"],
                      "converged": meta["converged"],
                      "per_step_ms": 1000 * (meta["wall_s"] - meta["compile_s"]) / steady,
                      "r": recovery_stats(fit.b, b_true)["r"], "peak_rss_mb": peak_rss_mb(),
                      "peak_before_fit_mb": before_fit_mb, "backend": meta["backend"]}))


def fit_size(n_models: int, n_items: int, seed: int, timeout: float) -> dict:
    """One size in its own process: its record, or why it did not finish."""
    command = [sys.executable, __file__, "--worker", str(n_models), str(n_items), str(seed)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"status": "timed out", "timeout_s": timeout}
    if done.returncode != 0:  # e.g. killed by the kernel for memory (-9)
        return {"status": "failed", "returncode": done.returncode, "stderr_tail": done.stderr[-2000:]}
    return {"status": "fitted", **json.loads(done.stdout.strip().splitlines()[-1])}


def predicted_peak_mb(sizes: list[dict], cells: int) -> float | None:
    """Peak memory at ``cells`` from the sizes fitted so far (three or more): the larger of the
    affine line (fixed + per cell) and the log-log line, to err on the side of skipping."""
    from mmlu_audit.book.performance import memory_capacity, power_law_fit, predict_power_law

    fitted = [s for s in sizes if s["status"] == "fitted"]
    if len(fitted) < 3:
        return None
    x, peak = [s["cells"] for s in fitted], [s["peak_rss_mb"] for s in fitted]
    line = memory_capacity(x, peak, limit_mb=1.0)
    affine = line["fixed_mb"] + line["bytes_per_cell"] * cells / 2**20
    return float(max(affine, predict_power_law(power_law_fit(x, peak), cells)))


def curve_fits(sizes: list[dict]) -> dict:
    """Log-log exponents of wall time, time per step and peak memory against cells."""
    from mmlu_audit.book.performance import power_law_fit

    fitted = [s for s in sizes if s["status"] == "fitted"]
    if len(fitted) < 2:
        return {}
    cells = [s["cells"] for s in fitted]
    return {f: power_law_fit(cells, [s[f] for s in fitted]) for f in ("wall_s", "per_step_ms", "peak_rss_mb")}


def capacity(sizes: list[dict], limit_gb: float) -> dict | None:
    """The largest matrix the memory line of the fitted sizes predicts under ``limit_gb``."""
    from mmlu_audit.book.performance import memory_capacity

    fitted = [s for s in sizes if s["status"] == "fitted"]
    if len(fitted) < 2:
        return None
    return memory_capacity([s["cells"] for s in fitted], [s["peak_rss_mb"] for s in fitted],
                           limit_mb=limit_gb * 1024)


def irt_curve(args, write) -> dict:
    """Fit every size in turn, skipping those predicted over the memory limit."""
    part = {"sizes": [], "memory_limit_gb": args.memory_limit_gb, "capacity_gb": args.capacity_gb,
            "seed": args.seed,
            "rule": "bench_irt.BENCH_SPEC"}
    for n_models, n_items in (QUICK_SIZES if args.quick else SIZES):
        cells = n_models * n_items
        record = {"n_models": n_models, "n_items": n_items, "cells": cells}
        predicted = predicted_peak_mb(part["sizes"], cells)
        if predicted is not None:
            record["predicted_peak_mb"] = predicted
        if predicted is not None and predicted > args.memory_limit_gb * 1024:
            record["status"] = "skipped: predicted over the memory limit"
        else:
            record |= fit_size(n_models, n_items, args.seed, args.timeout)
        if record["status"] == "fitted":
            record["bytes_per_cell"] = record["peak_rss_mb"] * 2**20 / cells
        part["sizes"].append(record)
        part["fits"] = curve_fits(part["sizes"])
        part["capacity"] = capacity(part["sizes"], args.capacity_gb)
        print(json.dumps({k: record.get(k) for k in ("cells", "status", "wall_s", "steps", "peak_rss_mb")}),
              flush=True)
        write(part)
    return part


def write_result(path: Path, args, parts: dict, complete: bool) -> None:
    """Write what is measured so far, atomically."""
    result = {"benchmark": "cost curves: 2PL fit vs cells, features vs stems", "quick": args.quick,
              "complete": complete, **parts, "machine": machine(args.loadavg_at_start),
              "versions": versions("jax", "jaxlib", "numpyro", "numpy", "spacy"),
              "created": time.strftime("%Y-%m-%dT%H:%M:%S")}
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".tmp")
    partial.write_text(json.dumps(result, indent=1))
    partial.replace(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="three small sizes, three small stem counts")
    parser.add_argument("--out", type=Path, default=None, help="default bench/results/scaling.json")
    parser.add_argument("--seed", type=int, default=0, help="seed of every simulated matrix")
    parser.add_argument("--memory-limit-gb", type=float, default=20.0,
                        help="skip sizes whose predicted peak exceeds this")
    parser.add_argument("--capacity-gb", type=float, default=24.0,
                        help="machine memory the largest-matrix prediction is stated for")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds per fit")
    parser.add_argument("--skip-stems", action="store_true")
    parser.add_argument("--skip-irt", action="store_true")
    parser.add_argument("--worker", nargs=3, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(*args.worker)
        return
    args.loadavg_at_start = os.getloadavg()
    out = args.out or RESULTS / ("scaling_quick.json" if args.quick else "scaling.json")
    parts: dict = {"irt": None, "stems": None}
    if not args.skip_irt:
        parts["irt"] = irt_curve(args, lambda part: write_result(out, args, parts | {"irt": part}, False))
    if not args.skip_stems:
        from bench_features import stem_scaling

        parts["stems"] = stem_scaling(QUICK_STEMS if args.quick else STEMS, seed=args.seed)
    write_result(out, args, parts, complete=True)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
