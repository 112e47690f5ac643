"""Reading the benchmark results and build timings that the Performance page shows.

``make bench`` writes JSON and CSV files under ``bench/results/``; ``bookbuild`` writes
each executed chapter, whose papermill metadata holds its run time. This module turns
both into the page's tables and sentences, so the page itself only displays them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.ticker import NullFormatter

from mmlu_audit.core.errors import DataError

__all__ = [
    "BUILD_PHASES",
    "build_load_text",
    "build_span_minutes",
    "chapter_times",
    "cold_build_table",
    "cold_build_text",
    "cost_curve_figure",
    "dask_timing_table",
    "dask_timing_text",
    "encoder_batch_text",
    "encoder_runtime_text",
    "feature_stages",
    "girth_table",
    "make_book_phases",
    "memory_capacity",
    "multi_seed_text",
    "not_recorded_text",
    "numpyro_table",
    "power_law_fit",
    "predict_power_law",
    "quick_label",
    "read_result",
    "recorded_section",
    "repeat_spread_text",
    "repeated_fits",
    "result_with",
    "rule_text",
    "scaling_table",
    "scaling_text",
    "section_absent_text",
    "seed_table",
    "single_seed_table",
    "single_seed_text",
]


def read_result(results_dir: str | Path, name: str) -> dict | None:
    """The parsed JSON of one benchmark result, or None when it has not been recorded.

    Raises
    ------
    DataError
        When the file exists but is not valid JSON (a half-written or hand-edited result).
    """
    path = Path(results_dir) / name
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise DataError(path, f"not a readable benchmark result ({exc})") from exc


def result_with(results_dir: str | Path, names, section: str) -> tuple[str | None, dict | None]:
    """The first of ``names`` (say the full result, then the quick one) that records ``section``.

    ``section`` counts as recorded when it is a non-null top-level key of the result, or a key
    of one of its ``runs``. Returns ``(name, result)``, or ``(None, None)`` when none does.
    """
    for name in names:
        result = read_result(results_dir, name)
        if result is None:
            continue
        if result.get(section) is not None or any(section in run for run in result.get("runs", [])):
            return name, result
    return None, None


def recorded_section(results_dir: str | Path, names, section: str, what: str) -> tuple[dict | None, str]:
    """The first of ``names`` that records ``section``, and the line to show above its tables.

    Parameters
    ----------
    results_dir : str or Path
        ``bench/results``.
    names : sequence of str
        Result files in order of preference (say the full result, then the quick one).
    section : str
        As for :func:`result_with`.
    what : str
        The section in words, for the sentence shown when no file records it.

    Returns
    -------
    (dict or None, str)
        The result and its :func:`quick_label`, or None and :func:`section_absent_text`.
    """
    name, result = result_with(results_dir, names, section)
    if result is None:
        return None, section_absent_text(what, names)
    return result, quick_label(name, result)


def section_absent_text(what: str, names) -> str:
    """The sentence shown where no result file records ``what``."""
    files = " or ".join(f"`bench/results/{n}`" for n in names)
    return f"*{what}: not recorded in {files} yet (run `make bench`).*"


def not_recorded_text(name: str) -> str:
    """The sentence shown where a result file is absent."""
    return f"*`bench/results/{name}` is not recorded yet: run `make bench`.*"


def _fit_identity(run: dict) -> str:
    """What makes two records of our benchmark fit the same computation: world, spec, engine,
    backend, step count and the recovered r (bit-equal estimates give the same r)."""
    ours = run["ours_bench"]
    fields = {"world": run["world"], "spec": ours.get("spec"), "engine": ours.get("engine"),
              "backend": ours.get("backend"), "steps": ours["steps"], "r": ours["r"]}
    return json.dumps(fields, sort_keys=True)


def repeated_fits(results_dir: str | Path, pattern: str = "irt*.json") -> pd.DataFrame:
    """Every record of our benchmark-rule fit that more than one result file holds.

    Parameters
    ----------
    results_dir : str or Path
        ``bench/results``.
    pattern : str
        The multi-seed IRT results to search (a file without ``runs`` is skipped).

    Returns
    -------
    DataFrame
        One row per record of a fit recorded in two or more files, identical in world, spec,
        engine, backend, steps and r (so the same computation timed in different runs):
        ``fit`` (a number per distinct fit), ``file``, ``seed``, ``wall (s)``, ``compile (s)``,
        ``CPUs`` and the run's 1-minute load average at its start and end (NaN when not
        recorded). Empty when no fit was recorded twice.
    """
    rows = []
    for path in sorted(Path(results_dir).glob(pattern)):
        result = read_result(results_dir, path.name)
        machine = result.get("machine", {})
        for run in result.get("runs", []):
            ours = run["ours_bench"]
            rows.append({"identity": _fit_identity(run), "file": path.name,
                         "seed": run["world"]["world_seed"], "wall (s)": ours["wall_s"],
                         "compile (s)": ours.get("compile_s", np.nan), "CPUs": machine.get("cpus"),
                         "load at start": _one_minute(machine.get("loadavg_at_start")),
                         "load at end": _one_minute(machine.get("loadavg_at_end"))})
    table = pd.DataFrame(rows, columns=["identity", "file", "seed", "wall (s)", "compile (s)", "CPUs",
                                        "load at start", "load at end"])
    table = table[table.groupby("identity")["file"].transform("nunique") > 1]
    table.insert(0, "fit", table.groupby("identity", sort=False).ngroup() + 1)
    return table.drop(columns="identity").sort_values(["fit", "wall (s)"]).reset_index(drop=True)


def repeat_spread_text(repeats: pd.DataFrame) -> str:
    """How far the same fit's wall time moved between runs, from :func:`repeated_fits`.

    Returns
    -------
    str
        The end of the page's sentence "the wall time of one and the same fit …": the largest
        slowest-to-fastest factor of any one fit and the range of wall times, over how many runs
        and on how many CPUs; or that no fit has been recorded in two runs yet.
    """
    if repeats.empty:
        return "has not been recorded in two runs yet, so how far it moves is not measured here"
    spread = repeats.groupby("fit")["wall (s)"].agg(["min", "max"])
    factor = (spread["max"] / spread["min"]).max()
    cpus = sorted(int(c) for c in repeats["CPUs"].dropna().unique())
    machines = f"on {' and '.join(map(str, cpus))}-CPU machines" if cpus else "(CPU count not recorded)"
    return (f"moved by up to {factor:.1f}× between its fastest and slowest run: {len(spread)} identical "
            f"fit{'s' if len(spread) > 1 else ''} of ours (same world, rule, steps and estimates), timed in "
            f"{repeats['file'].nunique()} recorded runs {machines}, took "
            f"{repeats['wall (s)'].min():.1f} to {repeats['wall (s)'].max():.1f} s (the table below)")


def seed_table(result: dict) -> pd.DataFrame:
    """One row per world seed: our fit under the benchmark's rule, and py-irt's best where run."""
    rows = []
    for run in result["runs"]:
        ours, peer = run["ours_bench"], run.get("pyirt_best")
        row = {"seed": run["world"]["world_seed"], "ours r(b̂, b)": ours["r"], "ours steps": ours["steps"],
               "ours wall (s)": ours["wall_s"], "ours ms/step": ours["per_step_ms"]}
        if "ours_chapters" in run:
            row |= {"chapters' rule r": run["ours_chapters"]["r"],
                    "chapters' rule steps": run["ours_chapters"]["steps"]}
        if peer is not None:
            row |= {"py-irt best r": peer["r"], "py-irt best wall (s)": peer["wall_s"],
                    "py-irt reached target": peer["reached"], "speed-up": peer["wall_s"] / ours["wall_s"]}
        rows.append(row)
    return pd.DataFrame(rows).set_index("seed")


def rule_text(spec: dict) -> str:
    """A stopping rule in words, from the spec dict a benchmark recorded."""
    return (f"prior `{spec['b_prior']}`, Adam lr {spec['learning_rate']}, stop when the mean ELBO of the "
            f"last {spec['window']} steps moves < {spec['rel_tol']:g} (relative) from the "
            f"{spec['window']} before, at most {spec['max_steps']} steps")


def _target_verdict(met: bool, lower_bound: bool = False) -> str:
    if met:
        return "met"
    return "not demonstrated by this run" if lower_bound else "**missed**"


def multi_seed_text(name: str, result: dict) -> str:
    """The summary sentence of a multi-seed IRT benchmark: r, wall time, speed-up, targets."""
    summary, targets = result["summary"], result["targets"]
    r, wall = summary["r_bench_rule"], summary["wall_s_bench_rule"]
    text = (f"**`{name}`** ({'complete' if result.get('complete') else '**incomplete**'}; recorded "
            f"{result['created']}, backend `{result['runs'][0]['ours_bench']['backend']}`, load average at "
            f"the end {result['machine']['loadavg_at_end'][0]:.1f} on {result['machine']['cpus']} CPUs). "
            f"Over seeds {summary['seeds']}: r(b̂, b) median {r['median']:.4f} (range {r['min']:.4f}–"
            f"{r['max']:.4f}), wall time median {wall['median']:.1f} s (range {wall['min']:.1f}–"
            f"{wall['max']:.1f} s). Targets: r ≥ {targets['r']} on every seed — "
            f"{_target_verdict(summary['ours_reaches_target_r_every_seed'])}; ≤ {targets['wall_s']:g} s — "
            f"{_target_verdict(summary['ours_within_wall_target_every_seed'])}")
    if "speedup_vs_pyirt_best" in summary:
        speed = summary["speedup_vs_pyirt_best"]
        bound = summary["speedup_vs_pyirt_best_is_lower_bound"]
        text += (f"; ≥ {targets['speedup']:g}× py-irt's best — "
                 f"{_target_verdict(speed['min'] >= targets['speedup'], bound)}: speed-up median "
                 f"{speed['median']:.0f}× (range {speed['min']:.0f}–{speed['max']:.0f}×"
                 + (", a lower bound: py-irt missed the target r within its budget" if bound else "")
                 + f"), per-step ratio median {summary['per_step_ratio_vs_pyirt_best']['median']:.0f}×")
    rules = result["stopping_rules"]
    return (text + f". Benchmark rule: {rule_text(rules['bench'])}. Chapters' rule: "
            f"{rule_text(rules['chapters'])} (fast mode: fewer steps).")


def single_seed_text(name: str, result: dict) -> str:
    """The one-world format of earlier runs (and of a GPU run recorded with it)."""
    world, summary = result["world"], result["summary"]
    versus = ""
    if result.get("pyirt"):
        bound = " (a lower bound: py-irt never reached our r)" if summary["speedup_is_lower_bound"] else ""
        versus = (f" Speed-up over py-irt ({result['pyirt'].get('priors', 'vague')} priors): "
                  f"**{summary['speedup_vs_pyirt']:.1f}×**{bound}; per-step ratio "
                  f"{summary['per_step_ratio']:.1f}×.")
    return (f"**`{name}`** — one world (seed {world['world_seed']}), {world['n_models']:,} models × "
            f"{world['n_items']:,} items, backend `{result['ours']['backend']}`, recorded "
            f"{result['created']}.{versus} Targets then: {result['targets']}.")


def single_seed_table(result: dict) -> pd.DataFrame:
    """Ours beside py-irt (when it ran) for a one-world result."""
    fields = ["wall_s", "steps", "per_step_ms", "r", "peak_rss_mb"]
    columns = {"ours (JAX SVI)": [result["ours"][f] for f in fields]}  # a GPU run may skip py-irt
    if result.get("pyirt"):
        columns["py-irt (Pyro)"] = [result["pyirt"][f] for f in fields]
    return pd.DataFrame(columns, index=["wall time (s)", "SVI steps", "ms per step", "r(b̂, b)",
                                        "peak RSS (MB)"])


def feature_stages(features: dict) -> pd.DataFrame:
    """Seconds and items per second of each stage of ``features.json`` (cold, cached, encoder)."""
    cold, cached, encoder = features["cold"], features["cached"], features["encoder"]
    rows = {
        "cold, all features": (cold["total_s"], cold["items_per_s"]),
        "parse (spaCy)": (cold["parse_s"], cold["parse_items_per_s"]),
        "indicators": (cold["indicators_s"], cold["indicators_items_per_s"]),
        "from cache": (cached["total_s"], cached["items_per_s"]),
        f"encoder (MiniLM), batch {encoder['batch_size']}": (encoder["total_s"], encoder["items_per_s"]),
    }
    if "previous_total_s" in encoder:
        rows[f"encoder, batch {encoder['previous_batch_size']} (same run)"] = (
            encoder["previous_total_s"], encoder["n_items"] / encoder["previous_total_s"])
    return pd.DataFrame.from_dict(rows, orient="index", columns=["seconds", "items per second"])


def encoder_batch_text(encoder: dict) -> str:
    """The same-run comparison of the encoder's batch size with the previous one."""
    return (f"Sorted by length, small encoder batches pad less: batch {encoder['batch_size']} embeds "
            f"the items {encoder['speedup_vs_previous']:.2f}× as fast as batch "
            f"{encoder['previous_batch_size']} in the same run, with vectors equal to within "
            f"{encoder['max_abs_difference_vs_previous']:.1e}.")


def encoder_runtime_text(result: dict) -> str:
    """The same-run comparison of the encoder's runtimes in ``encoder_runtime.json``.

    Parameters
    ----------
    result : dict
        ``bench/results/encoder_runtime.json`` (``bench_features.py --encoder-only``).

    Returns
    -------
    str
        Items per second of each runtime, the speed-up, the closest agreement of their vectors
        (smallest cosine), the one-time export and the machine's load during the run.
    """
    encoder, machine = result["encoder"], result.get("machine", {})
    runtimes = encoder["runtimes"]
    rates = ", ".join(f"{name} {r['items_per_s']:.1f}" for name, r in runtimes.items())
    others = [f"{r['speedup_vs_torch']:.2f}× as fast as torch with every vector within cosine "
              f"{r['min_cosine_vs_torch']:.7f} of torch's ({name})"
              for name, r in runtimes.items() if name != "torch"]
    load = machine.get("load_avg_start") or [float("nan")]
    commit = str(result.get("commit"))[:7]
    return (f"On {encoder['n_items']:,} items in one run (commit `{commit}`), items per second: "
            f"{rates}. Each runtime embeds them {'; '.join(others)}; the default, {encoder['runtime']}, "
            f"computes in {encoder.get('precision', 'f32')}. The one-time export to ONNX took "
            f"{encoder['onnx_export_s']:.0f} s. The 1-minute load average was {load[0]:.1f} on "
            f"{machine.get('cpus', '?')} CPUs at the start, so read the ratios, not the rates.")


def chapter_times(executed_dir: str | Path, exclude: tuple = ()) -> pd.DataFrame:
    """Run time of every executed chapter in ``executed_dir``, with the machine's load during it.

    Parameters
    ----------
    executed_dir : str or Path
        Where ``bookbuild`` wrote ``NN_slug.ipynb``.
    exclude : tuple of str
        Chapter stems to leave out (the page reading them is still running).

    Returns
    -------
    DataFrame
        Indexed by chapter stem: ``seconds`` (papermill's record), ``fast`` and ``data_source
        parameter`` (what it was passed; chapters on their own real sources ignore it), ``start``
        (ISO time), and from ``bookbuild``'s record of the machine
        (:func:`mmlu_audit.book.build.record_machine`; missing for a notebook executed before it
        kept one) ``CPUs``, the 1-minute load average at the chapter's start and end
        (``load at start``, ``load at end``) and ``at once``, how many chapters the build ran
        side by side (1 for a notebook recorded before builds ran several). Empty when nothing
        was executed there.
    """
    from mmlu_audit.book.build import MACHINE_KEY

    rows = []
    for path in sorted(Path(executed_dir).glob("[0-9][0-9]_*.ipynb")):
        if path.stem in exclude or path.stem.endswith(".failed"):
            continue
        try:
            metadata = json.loads(path.read_text())["metadata"]
        except (OSError, json.JSONDecodeError, KeyError) as exc:
            raise DataError(path, f"not a readable executed chapter ({exc})") from exc
        meta, machine = metadata.get("papermill", {}), metadata.get(MACHINE_KEY, {})
        parameters = meta.get("parameters", {})
        rows.append({"chapter": path.stem, "seconds": meta.get("duration"),
                     "fast": parameters.get("fast"), "data_source parameter": parameters.get("data_source"),
                     "start": meta.get("start_time"), "CPUs": machine.get("cpus"),
                     "load at start": _one_minute(machine.get("loadavg_start")),
                     "load at end": _one_minute(machine.get("loadavg_end")),
                     "at once": machine.get("jobs", 1) if machine else float("nan")})
    columns = ["seconds", "fast", "data_source parameter", "start", "CPUs", "load at start", "load at end",
               "at once"]
    return pd.DataFrame(rows, columns=["chapter", *columns]).set_index("chapter")


def build_span_minutes(times: pd.DataFrame) -> float:
    """Wall-clock minutes from the first chapter's start to the last one's end in ``times``.

    Less than the chapters' summed time when the build ran several at once; NaN for no chapter.
    """
    if times.empty:
        return float("nan")
    start = pd.to_datetime(times["start"], utc=True)
    end = start + pd.to_timedelta(times["seconds"].astype(float), unit="s")
    return (end.max() - start.min()).total_seconds() / 60


def _one_minute(load) -> float:
    """The 1-minute figure of a recorded ``[1, 5, 15]``-minute load average; NaN when not recorded."""
    return float(load[0]) if load else float("nan")


def build_load_text(times: pd.DataFrame) -> str:
    """How busy the machine was while the chapters in ``times`` ran, and how to read their times.

    Parameters
    ----------
    times : DataFrame
        From :func:`chapter_times`.

    Returns
    -------
    str
        One sentence: the range of the 1-minute load average over the chapters' starts and
        ends against the CPU count, and whether the times are those of a shared machine.
    """
    loads = pd.concat([times["load at start"], times["load at end"]]).astype(float).dropna()
    cpus = times["CPUs"].dropna()
    if loads.empty or cpus.empty:
        return ("The machine's load was not recorded for these chapters (executed before the build runner "
                "kept it), so their times cannot be told from those of an idle machine.")
    n_cpus = int(cpus.max())
    span = f"{loads.min():.1f}" if loads.min() == loads.max() else f"{loads.min():.1f} to {loads.max():.1f}"
    at_once = times["at once"].dropna() if "at once" in times else pd.Series(dtype=float)
    if not at_once.empty and at_once.max() > 1:
        return (f"The build ran up to {int(at_once.max()):,} chapters at once on {n_cpus:,} CPUs, each in "
                f"its own kernel on its own share of the cores, and the 1-minute load average ranged from "
                f"{span} at the chapters' starts and ends: a chapter's time here is longer than the same "
                "chapter run alone with every core (`--jobs 1`), while the build as a whole is shorter.")
    busy = loads.max() > n_cpus
    reading = ("more work than cores at times, so chapters waited for a CPU and these times are longer "
               "than on an idle machine (compare the README's timings only with a build at a load below "
               "the CPU count)" if busy else
               "no more work than cores, so these times are close to those of an idle machine")
    return (f"The 1-minute load average ranged from {span} at the chapters' starts and ends, "
            f"on {n_cpus:,} CPUs: {reading}.")


def quick_label(name: str, result: dict) -> str:
    """The line that names a result file, its date and machine, and says when it is a quick run."""
    machine = result.get("machine", {})
    load = machine.get("loadavg_at_start"), machine.get("loadavg_at_end")
    loads = " → ".join(f"{x[0]:.1f}" for x in load if x)
    size = ("**quick (smoke-size) run: not the full benchmark, do not quote these numbers**"
            if result.get("quick") else "full size")
    memory = f", {machine['memory_gb']:.0f} GiB" if machine.get("memory_gb") else ""
    return (f"**`{name}`**: {size}; recorded {result.get('created', '?')} on {machine.get('cpus', '?')} "
            f"CPUs{memory}, 1-minute load average {loads or 'not recorded'}.")


def power_law_fit(x, y) -> dict:
    """Least-squares line through (log x, log y): y ≈ prefactor · x^exponent.

    Returns
    -------
    dict
        ``exponent``, ``prefactor``, ``r2`` (of the log-log fit) and ``n`` points.

    Raises
    ------
    DataError
        With fewer than two points, or a value that is not positive.
    """
    x, y = np.asarray(x, float), np.asarray(y, float)
    if x.size != y.size or x.size < 2 or np.unique(x).size < 2:
        raise DataError("power_law_fit", f"needs two or more distinct x values, got {x.size} points")
    if np.any(x <= 0) or np.any(y <= 0):
        raise DataError("power_law_fit", "a power law needs positive x and y")
    lx, ly = np.log(x), np.log(y)
    slope, intercept = np.polyfit(lx, ly, 1)
    residual = ly - (intercept + slope * lx)
    total = np.sum((ly - ly.mean()) ** 2)
    return {"exponent": float(slope), "prefactor": float(np.exp(intercept)),
            "r2": float(1 - residual @ residual / total) if total > 0 else 1.0, "n": int(x.size)}


def predict_power_law(fit: dict, x):
    """The value of a :func:`power_law_fit` at ``x``."""
    return fit["prefactor"] * np.asarray(x, float) ** fit["exponent"]


def memory_capacity(cells, peak_mb, limit_mb: float) -> dict:
    """Peak memory as a fixed part plus a per-cell part, and the cells that fit under a limit.

    Least squares of ``peak_mb`` on ``cells`` (an affine line: the runtime's fixed footprint
    plus bytes per cell); a power law fitted to small sizes, where the fixed part dominates,
    would extrapolate far too many cells.

    Returns
    -------
    dict
        ``fixed_mb``, ``bytes_per_cell``, ``max_cells`` under ``limit_mb`` (None when the
        per-cell part is not positive) and ``largest_measured_cells``.
    """
    cells, peak = np.asarray(cells, float), np.asarray(peak_mb, float)
    if cells.size < 2 or np.unique(cells).size < 2:
        raise DataError("memory_capacity", f"needs two or more distinct sizes, got {cells.size}")
    per_cell_mb, fixed = np.polyfit(cells, peak, 1)
    max_cells = (limit_mb - fixed) / per_cell_mb if per_cell_mb > 0 else None
    return {"fixed_mb": float(fixed), "bytes_per_cell": float(per_cell_mb * 2**20),
            "max_cells": None if max_cells is None else float(max_cells),
            "largest_measured_cells": float(cells.max()), "limit_mb": float(limit_mb)}


def scaling_text(result: dict) -> str:
    """The exponents of the cost curves and the largest matrix the memory line predicts."""
    fits, capacity = result["irt"].get("fits", {}), result["irt"].get("capacity")
    if "wall_s" not in fits:
        return "*Fewer than two sizes were fitted: no curve to fit.*"
    text = (f"On the log-log scale, fit time grows as cells^{fits['wall_s']['exponent']:.2f} (r² "
            f"{fits['wall_s']['r2']:.3f}), time per step as cells^{fits['per_step_ms']['exponent']:.2f} and "
            f"peak memory as cells^{fits['peak_rss_mb']['exponent']:.2f}, over "
            f"{fits['wall_s']['n']} sizes.")
    if capacity and capacity["max_cells"]:
        cells = capacity["max_cells"]
        # compilation dominates small fits' wall time; steady steps × the per-step curve does not
        steps = float(np.median([s["steps"] for s in result["irt"]["sizes"] if s["status"] == "fitted"]))
        minutes = float(predict_power_law(fits["per_step_ms"], cells)) * steps / 60_000
        text += (f" Memory is a fixed {capacity['fixed_mb']:.0f} MB plus {capacity['bytes_per_cell']:.0f} "
                 f"bytes per cell, so within {capacity['limit_mb'] / 1024:.0f} GiB one such machine holds "
                 f"about {cells:.2g} cells (≈ {cells / 14042:,.0f} models × all 14,042 items): memory sets "
                 f"the limit, and {steps:.0f} steps on the per-step curve put a fit of that size at "
                 f"about {minutes:.1f} min."
                 f" Both are extrapolated beyond the largest size measured "
                 f"({capacity['largest_measured_cells']:.2g} cells).")
    return text


def scaling_table(result: dict) -> pd.DataFrame:
    """One row per matrix size of ``scaling.json``: cells, time, steps, memory, or why skipped."""
    rows = []
    for size in result["irt"]["sizes"]:
        row = {"models": size["n_models"], "items": size["n_items"], "cells": size["cells"],
               "status": size["status"]}
        if size["status"] == "fitted":
            row |= {"wall (s)": size["wall_s"], "steps": size["steps"], "ms/step": size["per_step_ms"],
                    "peak RSS (MB)": size["peak_rss_mb"], "peak ÷ cells (B)": size["bytes_per_cell"],
                    "r(b̂, b)": size["r"]}
        elif "predicted_peak_mb" in size:
            row["predicted peak (MB)"] = size["predicted_peak_mb"]
        rows.append(row)
    return pd.DataFrame(rows).set_index("cells")


def _curve_panel(ax, points, fit, label, ylabel):
    ax.loglog(points["cells"], points["value"], "o", color="#2a9d8f", label="measured")
    if fit:
        grid = np.geomspace(points["cells"].min(), points["cells"].max(), 50)
        ax.loglog(grid, predict_power_law(fit, grid), "-", color="#6c757d",
                  label=f"fit: ∝ cells^{fit['exponent']:.2f}")
    for axis in (ax.xaxis, ax.yaxis):  # a narrow range would label every minor tick, overlapping
        axis.set_minor_formatter(NullFormatter())
    ax.set_xlabel(label)
    ax.set_ylabel(ylabel)
    ax.legend(loc="upper left")


def cost_curve_figure(result: dict):
    """Log-log panels of ``scaling.json``: 2PL fit time and peak memory against cells, and
    (where recorded) feature throughput against stems, each with its fitted power law."""
    import matplotlib.pyplot as plt

    fitted = [s for s in result["irt"]["sizes"] if s["status"] == "fitted"]
    stems = result.get("stems", {}).get("sizes", [])
    fig, axes = plt.subplots(1, 3 if stems else 2, figsize=(7.5, 3.4))
    cells = pd.Series([s["cells"] for s in fitted], dtype=float)
    fits = result["irt"].get("fits", {})
    for ax, field, ylabel in ((axes[0], "wall_s", "2PL fit wall time (s)"),
                              (axes[1], "peak_rss_mb", "peak resident memory (MB)")):
        points = pd.DataFrame({"cells": cells, "value": [s[field] for s in fitted]})
        _curve_panel(ax, points, fits.get(field), "cells (models × items)", ylabel)
    if stems:
        points = pd.DataFrame({"cells": [s["n_stems"] for s in stems],
                               "value": [s["total_s"] for s in stems]})
        _curve_panel(axes[2], points, result["stems"].get("fit"), "stems",
                     "cold features, parse included (s)")
    if result.get("quick"):
        fig.suptitle("QUICK (smoke-size) run — not the full benchmark", color="#d1495b")
    fig.tight_layout()
    return fig


def girth_table(run: dict) -> pd.DataFrame:
    """Girth's record on one matrix (time, cap, the correlations of its estimates), and ours
    against the reference fit where the matrix has one."""
    rows = {}
    for part in ("full", "subset"):
        if part in run.get("girth", {}):
            fit = run["girth"][part]
            rows[f"girth {part} wall (s)"] = ("hit the cap of {:.0f} s".format(fit["cap_s"])
                                             if fit["hit_cap"] else round(fit["wall_s"], 1))
    rows["ours wall (s)"] = round(run["ours_bench"]["wall_s"], 1)
    compared = (run.get("ours_vs_mirt", {}) | run.get("girth", {}).get("compared", {})
                | run.get("b_vs_classical", {}))
    if "compared_on" in run.get("girth", {}):
        rows["girth compared on"] = run["girth"]["compared_on"]
    for pair, values in compared.items():
        rows[f"r({pair}), Pearson / Spearman"] = f"{values['pearson']:.3f} / {values['spearman']:.3f}"
    return pd.Series(rows, name="value").to_frame()


def numpyro_table(result: dict) -> pd.DataFrame:
    """Per seed: the hand-written engine beside ``engine="numpyro"`` at the same number of steps."""
    rows = []
    for run in result["runs"]:
        if "ours_numpyro" in run:
            ours, slow = run["ours_bench"], run["ours_numpyro"]
            rows.append({"seed": run["world"]["world_seed"], "steps": ours["steps"],
                         "hand-written wall (s)": ours["wall_s"], "numpyro wall (s)": slow["wall_s"],
                         "wall ratio": slow["wall_s"] / ours["wall_s"],
                         "hand-written r(b̂, b)": ours["r"], "numpyro r(b̂, b)": slow["r"],
                         "hand-written peak RSS (MB)": ours["peak_rss_mb"],
                         "numpyro peak RSS (MB)": slow["peak_rss_mb"]})
    return pd.DataFrame(rows).set_index("seed") if rows else pd.DataFrame()


#: The phases of a cold ``make book``, in order, and the recipe line make echoes to open each
#: one after the first (``bench/bench_cold_build.py`` times them).
BUILD_PHASES = ("setup", "data", "chapters", "html")
_PHASE_MARKERS = (("data", re.compile(r"-m mmlu_audit\.book\.prepare\b")),
                  ("chapters", re.compile(r"-m mmlu_audit\.book\.build\b")),
                  ("html", re.compile(r"^(npm install|\S+ -m mmlu_audit\.book\.findings\b)")))
_CHAPTER_LINE = re.compile(r"^\s*(ok|FAILED)\s+(\S+\.py)\s+([\d.]+) s\s*$")
_DATA_STEP_LINE = re.compile(r"^make data: (.+?) took ([\d.]+) s$")


def make_book_phases(lines, total_s: float) -> dict:
    """Seconds of each phase of a timestamped ``make book`` log (:data:`BUILD_PHASES`).

    Parameters
    ----------
    lines : iterable of (float, str)
        Each output line with the seconds since the command started.
    total_s : float
        Wall clock of the whole command (the last phase ends there).

    Returns
    -------
    dict
        One entry per phase whose opening line appeared (``setup`` always), plus
        ``chapter_s`` (each chapter's own seconds, from the build's ``ok NAME 12.3 s`` lines)
        and ``data_steps_s`` (each ``make data`` step's, where the commit prints them).
    """
    lines = list(lines)
    starts = {"setup": 0.0}
    for name, marker in _PHASE_MARKERS:
        hit = next((t for t, line in lines if marker.search(line)), None)
        if hit is not None:
            starts[name] = hit
    order = sorted(starts.items(), key=lambda item: item[1])
    ends = [start for _, start in order[1:]] + [total_s]
    phases = {name: round(end - start, 1) for (name, start), end in zip(order, ends, strict=True)}
    chapters = {m[2]: float(m[3]) for m in map(_CHAPTER_LINE.match, (line for _, line in lines)) if m}
    steps = {m[1]: float(m[2]) for m in map(_DATA_STEP_LINE.match, (line for _, line in lines)) if m}
    return phases | {"chapter_s": chapters, "data_steps_s": steps}


def cold_build_table(result: dict) -> pd.DataFrame:
    """Minutes of each phase of every cold build in ``cold_build.json``, side by side.

    Parameters
    ----------
    result : dict
        ``bench/results/cold_build.json``: ``runs``, each with ``commit``, ``fast``,
        ``total_s``, ``exit_code``, the :data:`BUILD_PHASES` and ``data_steps_s``.

    Returns
    -------
    DataFrame
        One column per run (``commit[:7]``, with "fast" for a smoke build), rows: each phase,
        each data step (indented under data; blank where a commit did not time its steps),
        the three slowest chapters of any run, and the total; then, when there are exactly two
        runs, the second's change against the first in per cent.
    """
    runs = result.get("runs", [])
    if not runs:
        raise DataError("cold_build.json", "holds no run")
    columns = {}
    for run in runs:
        name = run["commit"][:7] + (" (fast)" if run.get("fast") else "")
        rows = {phase: run.get(phase) for phase in BUILD_PHASES}
        rows |= {f"  data: {step}": seconds for step, seconds in run.get("data_steps_s", {}).items()}
        rows["total"] = run["total_s"]
        columns[name] = pd.Series(rows, dtype=float) / 60
    table = pd.DataFrame(columns)
    steps = [row for row in table.index if row.startswith("  data:")]
    order = [*BUILD_PHASES[:2], *steps, *BUILD_PHASES[2:], "total"]
    table = table.reindex([r for r in order if r in table.index])
    if len(runs) == 2:
        before, after = table.columns
        table["change (%)"] = 100 * (table[after] / table[before] - 1)
    return table.round(2).rename_axis("minutes")


def cold_build_text(result: dict) -> str:
    """One sentence per run: the commit, its cold ``make book`` minutes, exit code and load average."""
    parts = []
    for run in result.get("runs", []):
        machine = run.get("machine", {})
        load = machine.get("loadavg_at_start") or [float("nan")]
        status = "built" if run.get("exit_code") == 0 else f"failed (exit {run.get('exit_code')})"
        parts.append(f"`{run['commit'][:7]}`{' (FAST=1)' if run.get('fast') else ''} {status} in "
                     f"{run['total_s'] / 60:.1f} min, started {run.get('started', 'at an unrecorded time')} "
                     f"on {machine.get('cpus', '?')} CPUs at a 1-minute load average of {load[0]:.2f}")
    return "; ".join(parts) + "." if parts else "No cold build is recorded."


def dask_timing_table(result: dict) -> pd.DataFrame:
    """The seed study's wall clock serial and on a local Dask cluster, from one run of each.

    Parameters
    ----------
    result : dict
        ``bench/results/dask_timing.json`` (``bench/bench_dask.py``): ``serial_s``, ``dask_s``,
        ``identical`` and ``settings`` with ``seeds``, ``n_boot`` and ``workers``.

    Returns
    -------
    DataFrame
        Rows "serial" and "Dask, N local workers"; columns the wall clock in seconds, seconds
        per seed, and the speed-up over the serial run.

    Raises
    ------
    DataError
        When a wall clock is missing or not positive.
    """
    settings = result.get("settings", {})
    seeds, workers = settings.get("seeds"), settings.get("workers")
    walls = {"serial": result.get("serial_s"), f"Dask, {workers} local workers": result.get("dask_s")}
    if not all(isinstance(s, (int, float)) and s > 0 for s in walls.values()) or not seeds:
        raise DataError("dask_timing.json", "needs positive serial_s and dask_s and settings.seeds")
    table = pd.DataFrame({"wall clock (s)": walls}, dtype=float)
    table["per seed (s)"] = table["wall clock (s)"] / seeds
    table["speed-up"] = walls["serial"] / table["wall clock (s)"]
    return table.round(2).rename_axis("run")


def dask_timing_text(result: dict) -> str:
    """One sentence: what ran, when and where, and whether the two runs' tables were identical."""
    settings, machine = result.get("settings", {}), result.get("machine", {})
    load = machine.get("loadavg_at_start") or [float("nan")]
    commit = str(result.get("commit") or "unrecorded")
    commit = f"`{commit[:7]}`" + (" (with uncommitted changes)" if commit.endswith("+dirty") else "")
    same = ("gave identical tables" if result.get("identical")
            else "gave **different tables** (a bug: the Dask run must reproduce the serial one)")
    return (f"{settings.get('seeds', '?')} seeds of the item-side seed study ({settings.get('n_boot', '?')} "
            f"bootstrap draws per test), run serially and then on {settings.get('workers', '?')} local Dask "
            f"workers in one run at commit {commit} on "
            f"{result.get('created', 'an unrecorded date')} ({machine.get('cpus', '?')} CPUs, 1-minute load "
            f"average {load[0]:.2f} at the start); the two runs {same}.")
