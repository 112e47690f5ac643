"""Benchmark: our 2PL SVI fit against py-irt's Pyro 2PL on one simulated matrix.

Usage (from the repository root)::

    .venv/bin/python bench/bench_irt.py                 # 1,000 × 14,042, writes bench/results/irt.json
    .venv/bin/python bench/bench_irt.py --quick         # 200 × 1,500 smoke run
    .venv/bin/python bench/bench_irt.py --out bench/results/irt_gpu.json --skip-pyirt   # on a GPU machine

Both fits run as subprocesses on the same matrix saved to a temporary ``.npz``, so
their peak resident memory (``VmHWM``, which sees XLA's and torch's native
allocations; not ``ru_maxrss``, which children inherit from this parent) is
measured separately. Our fit stops by its ELBO rule; py-irt runs
until its r(b̂, b) reaches ours (equal accuracy) or ``--pyirt-max-seconds``. The
script runs unchanged on a GPU machine: JAX picks the GPU when it sees one and the
backend is recorded. py-irt lives in its own venv (``bench/.venv-pyirt``, torch
pinned to the 2.13.0 CPU wheel); pass ``--skip-pyirt`` where it is not installed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from _memory import peak_rss_mb

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "results" / "irt.json"
DEFAULT_PYIRT = HERE / ".venv-pyirt" / "bin" / "python"
TARGET_R = 0.985
WALL_TARGET_S = 20.0
SPEEDUP_TARGET = 5.0
#: Our benchmark settings: paper priors, data init, stop when the mean ELBO of the
#: last 25 steps moves < 1e-4 relative to the 25 before.
BENCH_SPEC = {"model": "2pl", "b_prior": "paper", "seed": 0, "max_steps": 1000,
              "window": 25, "rel_tol": 1e-4, "chunk": 25, "learning_rate": 0.05}


def simulate_matrix(quick: bool, seed: int, path: Path) -> dict:
    """Simulate the 2PL world, save ``Y`` and ``b_true`` to ``path``; return its summary."""
    from mmlu_audit import load_items
    from mmlu_audit.simulate import WorldSpec, simulate_world

    items = load_items()
    spec = WorldSpec(response_model="2pl")
    if quick:
        keep = np.sort(np.random.default_rng(seed).choice(len(items), 1500, replace=False))
        items = items.iloc[keep]
        spec = WorldSpec(n_models=200, n_distinct=200, n_groups=50, response_model="2pl")
    world = simulate_world(spec, seed=seed, items=items)
    np.savez(path, Y=world.matrix.responses, b_true=world.truth["b"], a_true=world.truth["a"])
    return {"n_models": world.matrix.shape[0], "n_items": world.matrix.shape[1],
            "response_model": "2pl", "b_sd": float(np.std(world.truth["b"])), "world_seed": seed,
            "simulated": True}


def ours_worker(matrix_path: str) -> None:
    """Fit our 2PL on the saved matrix and print one JSON line (runs in a subprocess)."""
    start = time.perf_counter()
    from mmlu_audit.irt import IRTSpec, fit_irt, recovery_stats

    with np.load(matrix_path) as npz:
        responses, b_true = npz["Y"], npz["b_true"]
    spec = IRTSpec(**BENCH_SPEC)
    fit = fit_irt(responses, spec, progress=False)
    meta = fit.meta
    steady = max(meta["steps"] - spec.chunk, 1)
    recovery = recovery_stats(fit.b, b_true)
    print(json.dumps({
        "wall_s": meta["wall_s"], "process_s": time.perf_counter() - start,
        "compile_s": meta["compile_s"], "steps": meta["steps"], "converged": meta["converged"],
        "per_step_ms": 1000 * (meta["wall_s"] - meta["compile_s"]) / steady,
        "r": recovery["r"], "slope": recovery["slope"], "backend": meta["backend"],
        "peak_rss_mb": peak_rss_mb(),
        "spec": BENCH_SPEC, "versions": meta["versions"]}))


def run_json(command: list[str], timeout: float) -> dict:
    """Run a worker subprocess and parse the last line of its stdout as JSON."""
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"{command[:3]} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def summarise(ours: dict, pyirt: dict | None) -> dict:
    """Ratios and pass/fail flags against the targets."""
    out = {"ours_reaches_target_r": ours["r"] >= TARGET_R,
           "ours_within_wall_target": ours["wall_s"] <= WALL_TARGET_S}
    if pyirt is not None:
        ratio = pyirt["wall_s"] / ours["wall_s"]
        out.update({"speedup_vs_pyirt": ratio,
                    "speedup_is_lower_bound": not pyirt["reached"],
                    "per_step_ratio": pyirt["per_step_ms"] / ours["per_step_ms"],
                    "memory_ratio": pyirt["peak_rss_mb"] / ours["peak_rss_mb"],
                    "meets_speedup_target": ratio >= SPEEDUP_TARGET})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="200 × 1,500 smoke run")
    parser.add_argument("--out", type=Path, default=None, help=f"JSON output (default {DEFAULT_OUT})")
    parser.add_argument("--seed", type=int, default=0, help="world seed")
    parser.add_argument("--pyirt-python", type=Path, default=DEFAULT_PYIRT)
    parser.add_argument("--pyirt-max-seconds", type=float, default=None,
                        help="py-irt training budget (default 600 s, 120 s with --quick)")
    parser.add_argument("--skip-pyirt", action="store_true")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        ours_worker(args.worker)
        return
    if args.pyirt_max_seconds is None:
        args.pyirt_max_seconds = 120.0 if args.quick else 600.0
    out_path = args.out or (DEFAULT_OUT.with_name("irt_quick.json") if args.quick else DEFAULT_OUT)
    with tempfile.TemporaryDirectory() as tmp:
        matrix_path = Path(tmp) / "matrix.npz"
        world = simulate_matrix(args.quick, args.seed, matrix_path)
        ours = run_json([sys.executable, __file__, "--worker", str(matrix_path)], timeout=1800)
        pyirt = None
        if not args.skip_pyirt:
            pyirt = run_json([str(args.pyirt_python), str(HERE / "pyirt_driver.py"),
                              str(matrix_path), "--target-r", f"{ours['r']:.6f}",
                              "--max-seconds", str(args.pyirt_max_seconds)],
                             timeout=args.pyirt_max_seconds + 600)
    result = {"benchmark": "2PL SVI calibration, ours (hand-written SVI in JAX) vs py-irt (Pyro)",
              "quick": args.quick, "world": world, "ours": ours, "pyirt": pyirt,
              "summary": summarise(ours, pyirt),
              "targets": {"r": TARGET_R, "wall_s": WALL_TARGET_S, "speedup": SPEEDUP_TARGET},
              "machine": {"platform": platform.platform(), "cpus": os.cpu_count(),
                          "python": platform.python_version(),
                          "loadavg_at_end": os.getloadavg()},
              "created": time.strftime("%Y-%m-%dT%H:%M:%S")}
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps(result, indent=2))
    print(json.dumps(result["summary"], indent=2))
    print(f"wrote {out_path}")


if __name__ == "__main__":
    main()
