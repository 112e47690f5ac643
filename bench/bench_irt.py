"""Benchmark: our 2PL SVI fit against py-irt's Pyro 2PL and girth's MML 2PL, simulated and real.

Usage (from the repository root)::

    .venv/bin/python bench/bench_irt.py                 # 1,000 × 14,042, seeds 0 1 2 → bench/results/irt.json
    .venv/bin/python bench/bench_irt.py --quick         # 200 × 1,500 smoke run
    .venv/bin/python bench/bench_irt.py --out bench/results/irt_gpu.json --skip-pyirt --skip-girth   # GPU

For each world seed the matrix is saved to a temporary ``.npz`` and every fit runs as
its own subprocess, seed by seed: our benchmark fit, then each peer right after it, so that
a same-run ratio compares fits minutes apart rather than an hour apart on a shared machine;
each fit's record holds the 1-minute load average just before and just after it
(``load_1min_before``, ``load_1min_after``), and the result file is rewritten after each fit
so a long run keeps what it measured. Peak resident memory (``VmHWM``, which sees XLA's and
torch's native allocations; not ``ru_maxrss``, which children inherit from this parent) is
measured per fit. Ours runs twice: with the benchmark's stopping rule (``BENCH_SPEC``,
the configuration the targets are about) and with the chapters' rule (the calibration
spec of ``mmlu_audit.analyses.pipeline``), for the record. py-irt runs in its best configuration
here (hierarchical priors) until r(b̂, b) reaches the target or ``--pyirt-max-seconds``;
its default (vague priors) on ``--pyirt-default-seeds`` only, since it does not reach
the target within any budget tried. Speed-ups compare our whole wall time, to a higher
r, with py-irt's time to the target r: a comparison that favours py-irt. The script runs
unchanged on a GPU machine: JAX picks the GPU when it sees one and the backend is
recorded. py-irt lives in its own venv (``bench/.venv-pyirt``, torch pinned to the
2.13.0 CPU wheel); pass ``--skip-pyirt`` where it is not installed.

Two more peers run in the same process tree on the same matrices. ``girth`` (PyPI,
``bench/.venv-girth``): a marginal-maximum-likelihood 2PL (fixed quadrature, item-by-item
EM), a different estimator rather than another SVI, on ``--girth-seeds``; it is
single-threaded and slow at full size, so it runs under ``--girth-max-seconds`` and, when
it hits that cap, again on a random ``--girth-subset-items`` columns (said so in the
result). Its estimates are compared with the truth and with ours (r of b and of a).
``engine="numpyro"`` (the same model through NumPyro's own SVI, AutoNormal, no early
stopping) runs on ``--numpyro-seeds`` for as many steps as our hand-written engine took, so the
ratio is what the hand-written guide, ELBO and Adam buy per step at equal work. Finally
the real Open LLM Leaderboard matrix (4,278 models × 102 items, metabench's training
models, staged with mirt's 3PL fit) is fitted by ours and by girth; with no truth there,
both are compared with each other and with mirt's estimates (a = a1, b = −d/a1).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

from _machine import machine, versions
from _memory import peak_rss_mb

from mmlu_audit.book.build import load_average
from mmlu_audit.book.peers import girth_a_at_bound
from mmlu_audit.core.store import write_bytes_atomic

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "results" / "irt.json"
DEFAULT_PYIRT = HERE / ".venv-pyirt" / "bin" / "python"
DEFAULT_GIRTH = HERE / ".venv-girth" / "bin" / "python"
#: The staged leaderboard matrix and the sha256 its README gives for each file.
REAL_SOURCE = ("responses", "openllm_v1_metabench_mmlu102")
REAL_SHA256 = {"responses.npz": "9ba6b78b0163d5b509e096edaeb0cf274e58fff30bdce4ed16641e24070c5d52",
               "items.csv": "eeb0446c53dd9a5a46f1b584098fff34149fc2dfd315fe1c36bad51f5cd5bb66"}
TARGET_R = 0.985
WALL_TARGET_S = 10.0
SPEEDUP_TARGET = 35.0
#: Our benchmark settings: hierarchical difficulty prior (learned location and scale,
#: so only θ ~ N(0, 1) fixes the scale, and no N(0, 1) pull compresses the extreme
#: items), data init, stop when the mean ELBO of the last 25 steps moves < 1e-4
#: relative to the 25 before.
BENCH_SPEC = {"model": "2pl", "b_prior": "hierarchical", "seed": 0, "max_steps": 1000,
              "window": 25, "rel_tol": 1e-4, "chunk": 25, "learning_rate": 0.05}


def simulate_matrix(quick: bool, seed: int, path: Path) -> dict:
    """Simulate the 2PL world, save ``Y`` and ``b_true`` to ``path``; return its summary."""
    from mmlu_audit import load_items
    from mmlu_audit.worlds.simulated import WorldSpec, simulate_world

    items = load_items()
    spec = WorldSpec(response_model="2pl", calibration="paper-2024")  # the world the stored targets are about
    if quick:
        keep = np.sort(np.random.default_rng(seed).choice(len(items), 1500, replace=False))
        items = items.iloc[keep]
        spec = WorldSpec(n_models=200, n_distinct=200, n_groups=50, response_model="2pl",
                         calibration="paper-2024")
    world = simulate_world(spec, seed=seed, items=items)
    np.savez(path, Y=world.matrix.responses, b_true=world.truth["b"], a_true=world.truth["a"])
    return {"n_models": world.matrix.shape[0], "n_items": world.matrix.shape[1],
            "response_model": "2pl", "b_sd": float(np.std(world.truth["b"])), "world_seed": seed,
            "simulated": True}


def real_matrix(path: Path) -> dict:
    """Save the staged leaderboard matrix and mirt's 2PL-form item parameters to ``path``.

    Raises
    ------
    DataError
        When a staged file is missing or its sha256 differs from the README's.
    """
    import pandas as pd

    from mmlu_audit.core.errors import DataError
    from mmlu_audit.core.paths import data_root

    folder = data_root().joinpath(*REAL_SOURCE)
    for name, digest in REAL_SHA256.items():
        if not (folder / name).exists():
            raise DataError(folder / name, "the staged leaderboard matrix is missing")
        if hashlib.sha256((folder / name).read_bytes()).hexdigest() != digest:
            raise DataError(folder / name, "sha256 differs from the staged README's")
    with np.load(folder / "responses.npz", allow_pickle=False) as npz:
        responses = npz["Y"]
    items = pd.read_csv(folder / "items.csv").sort_values("item_idx")
    if np.abs(responses.mean(axis=0) - items["p_correct"].to_numpy()).max() > 1e-5:
        raise DataError(folder / "items.csv", "p_correct does not match the columns of Y")
    a1, d = items["a1"].to_numpy(float), items["d"].to_numpy(float)
    np.savez(path, Y=responses, ref_b=-d / a1, ref_a=a1)
    return {"n_models": responses.shape[0], "n_items": responses.shape[1], "simulated": False,
            "source": "/".join(REAL_SOURCE), "reference": "mirt 3PL (metabench): a = a1, b = -d/a1",
            "reference_negative_a": int(np.sum(a1 < 0))}


def ours_spec(rule: str):
    """Our IRTSpec under the benchmark's (``"bench"``) or the chapters' (``"chapters"``) rule."""
    from mmlu_audit.irt import IRTSpec
    from mmlu_audit.analyses.pipeline import calibration_spec

    return IRTSpec(**BENCH_SPEC) if rule == "bench" else calibration_spec(fast=False, seed=0)


def ours_worker(args) -> None:
    """Fit our 2PL on the saved matrix and print one JSON line (runs in a subprocess).

    ``--engine numpyro`` runs NumPyro's SVI instead, for ``--max-steps`` steps; with
    ``--estimates`` the item estimates are saved there for the peers' comparison.
    """
    start = time.perf_counter()
    from dataclasses import asdict, replace

    from mmlu_audit.irt import fit_irt, recovery_stats

    with np.load(args.worker) as npz:
        responses = npz["Y"]
        b_true = npz["b_true"] if "b_true" in npz else None
        a_true = npz["a_true"] if "a_true" in npz else None
    spec = ours_spec(args.rule)
    if args.max_steps is not None:
        spec = replace(spec, max_steps=args.max_steps)
    fit = fit_irt(responses, spec, progress=False, engine=args.engine)
    meta = fit.meta
    if args.estimates:
        np.savez(args.estimates, b=fit.b, a=fit.a)
    # the numpyro engine compiles inside its one run: its per-step time includes compilation
    handwritten = args.engine == "handwritten"
    steady = max(meta["steps"] - spec.chunk, 1) if handwritten else meta["steps"]
    recovery = recovery_stats(fit.b, b_true) if b_true is not None else {"r": None, "slope": None}
    print(json.dumps({
        "wall_s": meta["wall_s"], "process_s": time.perf_counter() - start,
        "compile_s": meta["compile_s"], "steps": meta["steps"], "converged": meta["converged"],
        "per_step_ms": 1000 * (meta["wall_s"] - (meta["compile_s"] if handwritten else 0)) / steady,
        "r": recovery["r"], "slope": recovery["slope"],
        "r_a": recovery_stats(fit.a, a_true)["r"] if a_true is not None else None, "backend": meta["backend"],
        "peak_rss_mb": peak_rss_mb(), "engine": args.engine,
        "rule": args.rule, "spec": asdict(spec), "versions": meta["versions"]}))


def one_minute_load() -> float | None:
    """The 1-minute load average now, or None where the system does not report it."""
    load = load_average()
    return load[0] if load else None


def with_load(fit: Callable[[], dict]) -> dict:
    """Run one fit and add the 1-minute load average just before and just after it to its record."""
    before = one_minute_load()
    record = fit()
    return {**record, "load_1min_before": before, "load_1min_after": one_minute_load()}


def run_json(command: list[str], timeout: float) -> dict:
    """Run a worker subprocess and parse the last line of its stdout as JSON."""
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"{command[:3]} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def pyirt_run(args, matrix_path: Path, priors: str) -> dict:
    """py-irt with ``priors`` on the saved matrix, to ``TARGET_R`` or the time cap."""
    return run_json([str(args.pyirt_python), str(HERE / "pyirt_driver.py"), str(matrix_path),
                     "--target-r", f"{TARGET_R:.6f}", "--priors", priors,
                     "--estimates", str(estimates_path(matrix_path, f"pyirt_{priors}")),
                     "--max-seconds", str(args.pyirt_max_seconds)],
                    timeout=args.pyirt_max_seconds + 900)


def estimates_path(matrix_path: Path, who: str) -> Path:
    """Where the fit ``who`` of this matrix leaves its item estimates."""
    return matrix_path.with_name(f"{matrix_path.stem}_{who}.npz")


def ours_run(matrix_path: Path, rule: str, engine: str = "handwritten",
             max_steps: int | None = None) -> dict:
    """Our fit of the saved matrix under stopping rule ``rule``, in its own process."""
    who = "ours" if (rule, engine) == ("bench", "handwritten") else f"ours_{rule}_{engine}"
    command = [sys.executable, __file__, "--worker", str(matrix_path), "--rule", rule, "--engine", engine,
               "--estimates", str(estimates_path(matrix_path, who))]
    return run_json(command + (["--max-steps", str(max_steps)] if max_steps else []), timeout=3600)


def girth_fit(args, matrix_path: Path) -> dict:
    """One girth fit in its own process, or the record that it ran past the time cap, with the
    1-minute load average before it and after it (for a capped fit: at its cap)."""
    command = [str(args.girth_python), str(HERE / "girth_driver.py"), str(matrix_path),
               str(estimates_path(matrix_path, "girth"))]
    before = one_minute_load()
    try:
        record = run_json(command, timeout=args.girth_max_seconds)
    except subprocess.TimeoutExpired:
        return {"hit_cap": True, "cap_s": args.girth_max_seconds, "load_1min_before": before,
                "load_1min_after": one_minute_load()}
    record |= {"load_1min_before": before, "load_1min_after": one_minute_load()}
    with np.load(estimates_path(matrix_path, "girth")) as npz:
        return {**record, "a_at_bound": girth_a_at_bound(npz["a"]), "hit_cap": False}


def subset_columns(matrix_path: Path, n_items: int, seed: int) -> tuple[Path, np.ndarray]:
    """Save a random subset of ``n_items`` columns of the matrix (truth included) beside it."""
    with np.load(matrix_path) as npz:
        arrays = dict(npz)
    keep = np.sort(np.random.default_rng(seed).choice(arrays["Y"].shape[1], n_items, replace=False))
    arrays = {k: (v[:, keep] if k == "Y" else v[keep]) for k, v in arrays.items()}
    path = matrix_path.with_name(f"{matrix_path.stem}_cols{n_items}.npz")
    np.savez(path, **arrays)
    return path, keep


def correlations(estimates: dict[str, dict]) -> dict:
    """Pearson and Spearman r of b and of a between every pair of named estimate sets."""
    from scipy.stats import spearmanr

    names, out = list(estimates), {}
    for i, first in enumerate(names):
        for second in names[i + 1:]:
            for param in ("b", "a"):
                x, y = estimates[first][param], estimates[second][param]
                out[f"{param}: {first} ~ {second}"] = {"pearson": float(np.corrcoef(x, y)[0, 1]),
                                                        "spearman": float(spearmanr(x, y).statistic)}
    return out


def compare_girth(matrix_path: Path, columns: np.ndarray | None, fitted_path: Path) -> dict:
    """Girth's estimates against the truth (or the reference fit) and against ours."""
    with np.load(matrix_path) as npz:
        arrays = dict(npz)
    with np.load(estimates_path(matrix_path, "ours")) as npz:
        ours = dict(npz)
    with np.load(estimates_path(fitted_path, "girth")) as npz:
        girth = dict(npz)
    keep = slice(None) if columns is None else columns
    sets = {"girth": girth, "ours": {k: v[keep] for k, v in ours.items()}}
    for label, (b, a) in {"truth": ("b_true", "a_true"), "mirt": ("ref_b", "ref_a")}.items():
        if b in arrays:
            sets[label] = {"b": arrays[b][keep], "a": arrays[a][keep]}
    return correlations(sets)


def compare_engines(matrix_path: Path, whos: dict[str, str]) -> dict:
    """r of b and of a between the truth and every full-matrix fit that left its estimates.

    ``whos`` maps a label to the name :func:`estimates_path` saved that fit under.
    """
    with np.load(matrix_path) as npz:
        sets = {"truth": {"b": npz["b_true"], "a": npz["a_true"]}}
    for label, who in whos.items():
        if estimates_path(matrix_path, who).exists():
            with np.load(estimates_path(matrix_path, who)) as npz:
                sets[label] = dict(npz)
    return correlations(sets)


def girth_run(args, matrix_path: Path) -> dict:
    """Girth on the whole matrix; past the cap, again on a column subset (recorded as such)."""
    record = {"full": girth_fit(args, matrix_path)}
    if not record["full"]["hit_cap"]:
        record["compared"] = compare_girth(matrix_path, None, matrix_path)
        return record
    with np.load(matrix_path) as npz:
        n_items = npz["Y"].shape[1]
    if args.girth_subset_items and args.girth_subset_items < n_items:
        subset, columns = subset_columns(matrix_path, args.girth_subset_items, seed=0)
        record["subset"] = {"n_items": args.girth_subset_items, "column_seed": 0,
                            **girth_fit(args, subset)}
        if not record["subset"]["hit_cap"]:
            record["compared"] = compare_girth(matrix_path, columns, subset)
            record["compared_on"] = (f"{args.girth_subset_items} random columns (girth fitted on them "
                                     "alone; ours is the full-matrix fit restricted to them)")
    return record


def add_peer_runs(args, run: dict, matrix_path: Path, save: Callable[[], None]) -> None:
    """py-irt's best configuration (and on some seeds its default), girth, NumPyro's SVI,
    then our chapters' rule, each right after the last; ``save`` is called after each fit."""
    seed = run["world"]["world_seed"]
    fits = {"pyirt_best": (not args.skip_pyirt, lambda: pyirt_run(args, matrix_path, "hierarchical")),
            "pyirt_default": (not args.skip_pyirt and seed in args.pyirt_default_seeds,
                              lambda: pyirt_run(args, matrix_path, "vague")),
            "girth": (not args.skip_girth and seed in args.girth_seeds, lambda: girth_run(args, matrix_path)),
            "ours_numpyro": (seed in args.numpyro_seeds,
                             lambda: ours_run(matrix_path, "bench", engine="numpyro",
                                              max_steps=run["ours_bench"]["steps"])),
            "ours_chapters": (seed in args.chapters_rule_seeds, lambda: ours_run(matrix_path, "chapters"))}
    for key, (wanted, fit) in fits.items():
        if wanted:  # girth records the load of each of its fits (full, subset) itself
            run[key] = fit() if key == "girth" else with_load(fit)
            save()
    run["estimates_compared"] = compare_engines(matrix_path, {
        "ours": "ours", "py-irt best": "pyirt_hierarchical", "py-irt default": "pyirt_vague",
        "numpyro": "ours_bench_numpyro", "ours, chapters' rule": "ours_chapters_handwritten",
        "girth": "girth"})  # girth only when its full-matrix fit finished


def real_run(args, matrix_path: Path) -> dict:
    """Ours and girth on the real leaderboard matrix, compared with each other and with mirt."""
    run = {"world": real_matrix(matrix_path)}
    run["ours_bench"] = with_load(partial(ours_run, matrix_path, "bench"))
    with np.load(matrix_path) as npz, np.load(estimates_path(matrix_path, "ours")) as ours:
        run["ours_vs_mirt"] = correlations({"ours": dict(ours),
                                            "mirt": {"b": npz["ref_b"], "a": npz["ref_a"]}})
        share = npz["Y"].mean(axis=0)
        b_sets = {"ours": ours["b"], "mirt": npz["ref_b"]}
    if not args.skip_girth:
        run["girth"] = girth_run(args, matrix_path)
        if not run["girth"]["full"]["hit_cap"]:
            with np.load(estimates_path(matrix_path, "girth")) as girth:
                b_sets["girth"] = girth["b"]
    run["b_vs_classical"] = classical_check(b_sets, share)
    return run


def classical_check(b_sets: dict, share: np.ndarray) -> dict:
    """Spearman r of each difficulty estimate with the classical one, −logit(share correct):
    a truth-free yardstick that tells a disagreement of two fits from a bad fit."""
    from scipy.stats import spearmanr

    classical = -np.log(share / (1 - share))
    return {f"b: {name} ~ -logit p": {"pearson": float(np.corrcoef(b, classical)[0, 1]),
                                      "spearman": float(spearmanr(b, classical).statistic)}
            for name, b in b_sets.items()}


def progress_line(run: dict) -> str:
    fits = {k: {f: v.get(f) for f in ("wall_s", "steps", "r")} for k, v in run.items()
            if k.startswith(("ours", "pyirt")) and "wall_s" in v}
    fits |= {"girth": run["girth"]["full"]} if "girth" in run else {}
    return json.dumps({"seed": run["world"].get("world_seed", "real"), **fits})


def speedup(ours: dict, peer: dict) -> dict:
    """Wall-time ratio peer ÷ ours in one run; a lower bound when the peer missed the target."""
    return {"speedup": peer["wall_s"] / ours["wall_s"], "is_lower_bound": not peer["reached"],
            "per_step_ratio": peer["per_step_ms"] / ours["per_step_ms"],
            "memory_ratio": peer["peak_rss_mb"] / ours["peak_rss_mb"]}


def spread(values) -> dict:
    """Median, minimum and maximum of a list of numbers."""
    values = [float(v) for v in values]
    return {"median": float(np.median(values)), "min": min(values), "max": max(values)}


def summarise(runs: list[dict]) -> dict:
    """Median and range over seeds, and pass/fail flags against the targets on every seed."""
    ours = [run["ours_bench"] for run in runs]
    out = {"n_seeds": len(runs), "seeds": [run["world"]["world_seed"] for run in runs],
           "r_bench_rule": spread(o["r"] for o in ours),
           "wall_s_bench_rule": spread(o["wall_s"] for o in ours),
           "steps_bench_rule": spread(o["steps"] for o in ours),
           "r_a_bench_rule": spread(o["r_a"] for o in ours),
           "chapters_rule_seeds": [run["world"]["world_seed"] for run in runs if "ours_chapters" in run],
           "ours_reaches_target_r_every_seed": all(o["r"] >= TARGET_R for o in ours),
           "ours_within_wall_target_every_seed": all(o["wall_s"] <= WALL_TARGET_S for o in ours)}
    chapters = [run["ours_chapters"] for run in runs if "ours_chapters" in run]
    for field in ("r", "wall_s", "steps") if chapters else ():
        out[f"{field}_chapters_rule"] = spread(c[field] for c in chapters)
    for peer in ("pyirt_best", "pyirt_default"):
        pairs = [speedup(run["ours_bench"], run[peer]) for run in runs if peer in run]
        if pairs:
            out[f"speedup_vs_{peer}"] = spread(p["speedup"] for p in pairs)
            out[f"speedup_vs_{peer}_is_lower_bound"] = any(p["is_lower_bound"] for p in pairs)
            out[f"per_step_ratio_vs_{peer}"] = spread(p["per_step_ratio"] for p in pairs)
            out[f"memory_ratio_vs_{peer}"] = spread(p["memory_ratio"] for p in pairs)
            out[f"{peer}_reached_target_r"] = [run[peer]["reached"] for run in runs if peer in run]
    if "speedup_vs_pyirt_best" in out:
        out["meets_speedup_target_every_seed"] = out["speedup_vs_pyirt_best"]["min"] >= SPEEDUP_TARGET
    numpyro = [(run["ours_bench"], run["ours_numpyro"]) for run in runs if "ours_numpyro" in run]
    if numpyro:
        # both wall times include compilation (NumPyro's SVI.run does not separate it)
        out["numpyro_wall_ratio_same_steps"] = spread(n["wall_s"] / o["wall_s"] for o, n in numpyro)
    girth = [(run["ours_bench"], run["girth"]["full"]) for run in runs if "girth" in run]
    if girth:
        out["girth_hit_cap"] = [g["hit_cap"] for _, g in girth]
        finished = [g["wall_s"] / o["wall_s"] for o, g in girth if not g["hit_cap"]]
        if finished:
            out["girth_wall_ratio"] = spread(finished)
    return out


def write_result(out_path: Path, args, runs: list[dict], complete: bool, real: dict | None = None) -> None:
    """Write the runs so far (after every seed, so a long run keeps what it measured)."""
    result = {"benchmark": ("2PL calibration, ours (hand-written SVI in JAX) vs py-irt (Pyro SVI), "
                            "girth (MML) and NumPyro's SVI, several world seeds and the real matrix"),
              "quick": args.quick, "complete": complete, "seeds_requested": args.seeds,
              "runs": runs, "summary": summarise(runs), "real": real,
              "stopping_rules": {"bench": BENCH_SPEC,
                                 "chapters": json.loads(ours_spec("chapters").to_json())},
              "pyirt_max_seconds": args.pyirt_max_seconds,
              "girth_max_seconds": None if args.skip_girth else args.girth_max_seconds,
              "girth_subset_items": None if args.skip_girth else args.girth_subset_items,
              "targets": {"r": TARGET_R, "wall_s": WALL_TARGET_S, "speedup": SPEEDUP_TARGET},
              "machine": machine(args.loadavg_at_start),
              "versions": versions("jax", "jaxlib", "numpyro", "numpy", "scipy"),
              "created": time.strftime("%Y-%m-%dT%H:%M:%S")}
    out_path.parent.mkdir(parents=True, exist_ok=True)
    write_bytes_atomic(out_path, json.dumps(result, indent=2).encode())  # never a half-written result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="200 × 1,500 smoke run")
    parser.add_argument("--out", type=Path, default=None, help=f"JSON output (default {DEFAULT_OUT})")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2], help="world seeds")
    parser.add_argument("--pyirt-python", type=Path, default=DEFAULT_PYIRT)
    parser.add_argument("--pyirt-max-seconds", type=float, default=None,
                        help="py-irt training budget per fit (default 900 s, 120 s with --quick)")
    parser.add_argument("--pyirt-default-seeds", type=int, nargs="*", default=[0],
                        help="seeds on which py-irt's default (vague priors) also runs")
    parser.add_argument("--chapters-rule-seeds", type=int, nargs="*", default=None,
                        help="seeds also fitted under the chapters' stopping rule (default: all)")
    parser.add_argument("--skip-pyirt", action="store_true")
    parser.add_argument("--girth-python", type=Path, default=DEFAULT_GIRTH)
    parser.add_argument("--girth-seeds", type=int, nargs="*", default=[0],
                        help="world seeds on which girth's MML 2PL also runs")
    parser.add_argument("--girth-max-seconds", type=float, default=None,
                        help="cap per girth fit (default 3600 s, 300 s with --quick)")
    parser.add_argument("--girth-subset-items", type=int, default=None,
                        help="columns girth refits on when it hits the cap (default 2000, 300 with "
                             "--quick; 0: none)")
    parser.add_argument("--skip-girth", action="store_true")
    parser.add_argument("--numpyro-seeds", type=int, nargs="*", default=[0],
                        help="world seeds on which engine='numpyro' also runs (our step count)")
    parser.add_argument("--skip-real", action="store_true", help="skip the real leaderboard matrix")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--rule", choices=["bench", "chapters"], default="bench", help=argparse.SUPPRESS)
    parser.add_argument("--engine", choices=["handwritten", "numpyro"], default="handwritten",
                        help=argparse.SUPPRESS)
    parser.add_argument("--max-steps", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--estimates", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        ours_worker(args)
        return
    args.loadavg_at_start = os.getloadavg()
    if len(set(args.seeds)) != len(args.seeds):
        parser.error("--seeds must be distinct")
    if args.chapters_rule_seeds is None:
        args.chapters_rule_seeds = list(args.seeds)
    if args.pyirt_max_seconds is None:
        args.pyirt_max_seconds = 120.0 if args.quick else 900.0
    if args.girth_max_seconds is None:
        args.girth_max_seconds = 300.0 if args.quick else 3600.0
    if args.girth_subset_items is None:
        args.girth_subset_items = 300 if args.quick else 2000
    out_path = args.out or (DEFAULT_OUT.with_name("irt_quick.json") if args.quick else DEFAULT_OUT)
    runs = []

    def save() -> None:
        write_result(out_path, args, runs, complete=False)

    with tempfile.TemporaryDirectory() as tmp:
        for seed in args.seeds:  # ours and then its peers on each world, back to back
            matrix_path = Path(tmp) / f"matrix_{seed}.npz"
            run = {"world": simulate_matrix(args.quick, seed, matrix_path)}
            run["ours_bench"] = with_load(partial(ours_run, matrix_path, "bench"))
            runs.append(run)
            save()
            add_peer_runs(args, run, matrix_path, save)
            print(progress_line(run), flush=True)
        real = None if args.skip_real else real_run(args, Path(tmp) / "real.npz")
        if real is not None:
            print(progress_line(real), flush=True)
        write_result(out_path, args, runs, complete=True, real=real)
    result = json.loads(out_path.read_text())
    print(json.dumps(result["summary"], indent=2))
    print(f"wrote {out_path}")


if __name__ == "__main__":
    main()
