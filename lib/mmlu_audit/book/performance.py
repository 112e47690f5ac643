"""Reading the benchmark results and build timings that the Performance page shows.

``make bench`` writes JSON and CSV files under ``bench/results/``; ``bookbuild`` writes
each executed chapter, whose papermill metadata holds its run time. This module turns
both into the page's tables and sentences, so the page itself only displays them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from mmlu_audit.core.errors import DataError

__all__ = [
    "chapter_times",
    "encoder_batch_text",
    "feature_stages",
    "multi_seed_text",
    "not_recorded_text",
    "read_result",
    "rule_text",
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


def not_recorded_text(name: str) -> str:
    """The sentence shown where a result file is absent."""
    return f"*`bench/results/{name}` is not recorded yet: run `make bench`.*"


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


def chapter_times(executed_dir: str | Path, exclude: tuple = ()) -> pd.DataFrame:
    """Run time of every executed chapter in ``executed_dir``, from its papermill metadata.

    Parameters
    ----------
    executed_dir : str or Path
        Where ``bookbuild`` wrote ``NN_slug.ipynb``.
    exclude : tuple of str
        Chapter stems to leave out (the page reading them is still running).

    Returns
    -------
    DataFrame
        Indexed by chapter stem: ``seconds``, ``fast`` and ``data_source parameter`` (what
        it was passed; chapters on their own real sources ignore it), ``start`` (ISO time).
        Empty when nothing was executed there.
    """
    rows = []
    for path in sorted(Path(executed_dir).glob("[0-9][0-9]_*.ipynb")):
        if path.stem in exclude or path.stem.endswith(".failed"):
            continue
        try:
            meta = json.loads(path.read_text())["metadata"].get("papermill", {})
        except (OSError, json.JSONDecodeError, KeyError) as exc:
            raise DataError(path, f"not a readable executed chapter ({exc})") from exc
        parameters = meta.get("parameters", {})
        rows.append({"chapter": path.stem, "seconds": meta.get("duration"),
                     "fast": parameters.get("fast"), "data_source parameter": parameters.get("data_source"),
                     "start": meta.get("start_time")})
    columns = ["seconds", "fast", "data_source parameter", "start"]
    return pd.DataFrame(rows, columns=["chapter", *columns]).set_index("chapter")
