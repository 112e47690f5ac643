"""Benchmark the complexity instrument and record the numbers the chapter quotes.

Usage::

    .venv/bin/python bench/bench_features.py                 # all 14,042 items, cold
    .venv/bin/python bench/bench_features.py --n-items 500 --encoder-items 200
    .venv/bin/python bench/bench_features.py --encoder-only --encoder-items 1000

The cold run parses into a fresh temporary cache (so it is really cold), then
times a second, cached build. Unless ``--no-populate`` is given, the parse
store, feature table and embeddings land in the project cache
(``mmlu_audit.core.paths.cache_root()``) so that chapters start warm. Results go to
``bench/results/features.json``: items/s per stage, cold and cached totals,
encoder throughput, and the chapter statistics (r of WSCG Nodes and Depth with
token count, VIF range of the nine indicators, top-tier count, flags).

The encoder section times both runtimes of the same weights in one run (ONNX, the
default, and torch): items/s of each, their ratio and the smallest cosine between
their vectors. ``--encoder-only`` runs that section alone and writes
``bench/results/encoder_runtime.json`` with the commit, machine and settings.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

import mmlu_audit
from mmlu_audit.features import (
    ENCODER_BATCH_SIZE,
    INDICATORS,
    build_feature_table,
    build_wscg,
    encode_items,
    get_backend,
    load_lexicon,
    parse_texts,
)
from mmlu_audit.core.paths import cache_root

RESULTS = Path(__file__).resolve().parent / "results" / "features.json"


def _rate(n: int, seconds: float) -> float:
    return round(n / seconds, 1) if seconds > 0 else float("inf")


def vif_range(table) -> list[float]:
    """Min and max variance inflation factor of the nine indicators (with intercept)."""
    corr = np.corrcoef(table[list(INDICATORS)].to_numpy(dtype=float), rowvar=False)
    vifs = np.diag(np.linalg.inv(corr))
    return [round(float(vifs.min()), 3), round(float(vifs.max()), 3)]


def chapter_statistics(table, items) -> dict:
    """Numbers the complexity chapter compares with the paper."""
    r = lambda a, b: round(float(np.corrcoef(table[a], table[b])[0, 1]), 3)  # noqa: E731
    stem = items.set_index("item_id")["partition"].reindex(table.index)
    corr = np.corrcoef(table[list(INDICATORS)].to_numpy(dtype=float), rowvar=False)
    vifs = np.diag(np.linalg.inv(corr))
    return {
        "r_nodes_tokens": r("wscg_nodes", "n_tokens"),
        "r_depth_tokens": r("wscg_depth", "n_tokens"),
        "paper_r_nodes_tokens": 0.985, "paper_r_depth_tokens": 0.580,
        "vif_range": vif_range(table), "paper_vif_range": [1.025, 2.379],
        "vif": {c: round(float(v), 3) for c, v in zip(INDICATORS, vifs, strict=True)},
        "top_tier_items": int(table["flag_top_tier"].sum()),
        "top_tier_items_stem": int(table["flag_top_tier"][stem.eq("STEM")].sum()),
        "flags": {c: int(table[c].sum()) for c in table.columns if c.startswith("flag_")},
        "coverage_mean": {c: round(float(table[c].mean()), 4)
                          for c in ("c_bry_coverage", "zipf_coverage", "english_share")},
        "indicator_means_by_partition": {
            p: {c: round(float(table.loc[stem.eq(p), c].mean()), 4) for c in INDICATORS}
            for p in ("STEM", "non-STEM")},
        "indicator_correlations": {
            f"{a}~{b}": round(float(corr[i, j]), 3)
            for i, a in enumerate(INDICATORS) for j, b in enumerate(INDICATORS) if i < j},
    }


def time_tier_perturbation(items, parses) -> dict:
    """Seconds to build all graphs once, and to re-score Depth under one perturbed tier table."""
    lexicon = load_lexicon()
    start = time.perf_counter()
    graphs = [build_wscg(doc, lexicon) for doc in parses]
    build_s = time.perf_counter() - start
    tiers = lexicon.tiers.shifted("T4", 1.0)
    start = time.perf_counter()
    [g.depth(tiers) for g in graphs]
    return {"graphs_build_s": round(build_s, 2),
            "depth_rescore_s": round(time.perf_counter() - start, 2)}


def populate_project_cache(bench_cache: Path) -> list[str]:
    """Copy the bench's parse store and feature tables into the project cache (no overwrite)."""
    copied = []
    for path in sorted(bench_cache.rglob("*")):
        if path.is_file() and path.suffix in (".sqlite", ".parquet", ".json"):
            target = cache_root() / path.relative_to(bench_cache)
            if not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, target)
                copied.append(str(target.relative_to(cache_root())))
    return copied


def run(n_items: int | None, encoder_items: int | None, populate: bool) -> dict:
    items = mmlu_audit.load_items()
    if n_items:
        items = items.sample(n_items, random_state=0).sort_index()
    n = len(items)
    report: dict = {"n_items": n, "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                                              "load_avg_start": os.getloadavg()}}
    start = time.perf_counter()
    _ = get_backend("spacy").nlp  # load the pipeline outside the parse timing
    report["spacy_load_s"] = round(time.perf_counter() - start, 2)
    with tempfile.TemporaryDirectory(prefix="bench-features-") as tmp:
        bench_cache = Path(tmp)
        timings: dict = {}
        start = time.perf_counter()
        table = build_feature_table(items, cache_dir=bench_cache, timings=timings)
        cold_s = time.perf_counter() - start
        report["cold"] = {
            "total_s": round(cold_s, 1), "items_per_s": _rate(n, cold_s),
            **{f"{k}": round(v, 2) for k, v in timings.items() if k.endswith("_s")},
            **{f"{k[:-2]}_items_per_s": _rate(n, v) for k, v in timings.items()
               if k.endswith("_s") and k != "total_s"},
        }
        cached: dict = {}
        start = time.perf_counter()
        build_feature_table(items, cache_dir=bench_cache, timings=cached, progress=False)
        cached_s = time.perf_counter() - start
        report["cached"] = {"total_s": round(cached_s, 2), "items_per_s": _rate(n, cached_s),
                            "from_cache": cached["from_cache"]}
        start = time.perf_counter()
        parses = parse_texts(items["question"].tolist(), cache_dir=bench_cache / "parses",
                             progress=False)
        parse_cached_s = time.perf_counter() - start
        report["parse_cache_read"] = {"total_s": round(parse_cached_s, 2),
                                      "items_per_s": _rate(n, parse_cached_s)}
        report["tier_perturbation"] = time_tier_perturbation(items, parses)
        report["populated_project_cache"] = populate_project_cache(bench_cache) if populate else []
    report["encoder"] = (time_encoder(items, encoder_items, populate) if encoder_items != 0
                         else previous_encoder_result())
    report["chapter"] = chapter_statistics(table, items)
    report["provenance"] = table.attrs["provenance"]
    report["machine"]["load_avg_end"] = os.getloadavg()
    return report


def stem_scaling(sizes: list[int], seed: int = 0) -> dict:
    """Cold feature-table builds (spaCy parse included) of random subsets of ``sizes`` stems.

    spaCy's pipeline and the lexicons are loaded once by a warm-up build of 20 other stems,
    outside the timings; each size parses into a fresh temporary cache. Returns the per-size
    seconds and stems per second of the whole build, the parse and the indicators, and the
    log-log fit of the total against the stem count.
    """
    from mmlu_audit.book.performance import power_law_fit

    items = mmlu_audit.load_items()
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-stems-warmup-") as tmp:
        build_feature_table(items.sample(20, random_state=seed + 1), cache_dir=Path(tmp), progress=False)
    warmup_s = time.perf_counter() - start
    rows = []
    for n in sizes:
        subset = items.sample(min(n, len(items)), random_state=seed).sort_index()
        timings: dict = {}
        with tempfile.TemporaryDirectory(prefix="bench-stems-") as tmp:
            start = time.perf_counter()
            build_feature_table(subset, cache_dir=Path(tmp), timings=timings, progress=False)
            total = time.perf_counter() - start
        rows.append({"n_stems": len(subset), "total_s": total, "stems_per_s": _rate(len(subset), total),
                     "parse_s": timings["parse_s"], "indicators_s": timings["indicators_s"],
                     "parse_stems_per_s": _rate(len(subset), timings["parse_s"])})
        print(json.dumps(rows[-1]), flush=True)
    fit = power_law_fit([r["n_stems"] for r in rows], [r["total_s"] for r in rows]) if len(rows) > 1 else None
    return {"sizes": rows, "fit": fit, "seed": seed, "backend": "spacy", "warmup_s": warmup_s}


#: The encoder's batch size before it was tuned: the peer of the same-run ratio.
PREVIOUS_ENCODER_BATCH_SIZE = 64

#: The encoder-only run's results (``--encoder-only``): the runtime comparison alone.
ENCODER_RESULTS = Path(__file__).resolve().parent / "results" / "encoder_runtime.json"


def _min_cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(((a * b).sum(axis=1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)).min())


def time_encoder(items, encoder_items: int | None, populate: bool) -> dict:
    """Embed whole items (question + options) from a cold cache with each runtime, in one run.

    The default runtime runs at the default batch size and at the previous one, the others at
    the default; the ratios hold on a busy machine because the passes share it. Each pass
    includes loading its model; the one-time ONNX export (cached) and the imports are outside
    the timings (``onnx_export_s``). Full-set default-runtime vectors go to the project cache
    if asked.
    """
    from mmlu_audit.features import ENCODER_RUNTIMES, baselines, openvino_precision

    subset = items if not encoder_items else items.sample(min(encoder_items, len(items)),
                                                           random_state=0).sort_index()
    start = time.perf_counter()
    baselines._onnx_model(baselines._encoder_path())  # the export, once per machine (cached)
    export_s = time.perf_counter() - start
    default_runtime = ENCODER_RUNTIMES[0]
    passes = [(runtime, ENCODER_BATCH_SIZE) for runtime in ENCODER_RUNTIMES]
    passes.append((default_runtime, PREVIOUS_ENCODER_BATCH_SIZE))
    timed = {}
    for runtime, batch_size in passes:
        with tempfile.TemporaryDirectory(prefix="bench-encoder-") as tmp:
            start = time.perf_counter()
            vectors = encode_items(subset, batch_size=batch_size, cache_dir=tmp, progress=False,
                                   runtime=runtime)
            timed[runtime, batch_size] = (time.perf_counter() - start, vectors)
            if (populate and (runtime, batch_size) == passes[0] and len(subset) == len(items)):
                target = cache_root() / "embeddings"
                target.mkdir(parents=True, exist_ok=True)
                for path in Path(tmp).glob("*.npy"):
                    shutil.copy2(path, target / path.name)
            print(json.dumps({"runtime": runtime, "batch_size": batch_size,
                              "items_per_s": _rate(len(subset), timed[runtime, batch_size][0])}), flush=True)
    seconds, vectors = timed[passes[0]]
    torch_s, torch_vectors = timed["torch", ENCODER_BATCH_SIZE]
    before, before_vectors = timed[passes[-1]]
    min_cosine = _min_cosine(vectors, torch_vectors)
    return {"n_items": len(subset), "runtime": default_runtime, "total_s": round(seconds, 1),
            "precision": openvino_precision() if default_runtime == "openvino" else "f32",
            "batch_size": ENCODER_BATCH_SIZE, "items_per_s": _rate(len(subset), seconds),
            "dim": int(vectors.shape[1]),
            "previous_batch_size": PREVIOUS_ENCODER_BATCH_SIZE, "previous_total_s": round(before, 1),
            "speedup_vs_previous": round(before / seconds, 2),
            "max_abs_difference_vs_previous": float(np.abs(vectors - before_vectors).max()),
            "runtimes": {name: {"total_s": round(timed[name, ENCODER_BATCH_SIZE][0], 1),
                                "items_per_s": _rate(len(subset), timed[name, ENCODER_BATCH_SIZE][0]),
                                "speedup_vs_torch": round(torch_s / timed[name, ENCODER_BATCH_SIZE][0], 2),
                                "min_cosine_vs_torch": _min_cosine(timed[name, ENCODER_BATCH_SIZE][1],
                                                                   torch_vectors)}
                         for name in ENCODER_RUNTIMES},
            "speedup_vs_torch": round(torch_s / seconds, 2),
            "min_cosine_vs_torch": min_cosine, "max_cosine_gap_vs_torch": 1.0 - min_cosine,
            "max_abs_difference_vs_torch": float(np.abs(vectors - torch_vectors).max()),
            "onnx_export_s": round(export_s, 1)}


def encoder_only(encoder_items: int | None) -> dict:
    """The encoder section alone (no parsing), with the commit, machine and settings."""
    import subprocess

    from mmlu_audit.features import encoder_threads

    items = mmlu_audit.load_items()
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                            cwd=Path(__file__).resolve().parent).stdout.strip()
    machine = {"cpus": os.cpu_count(), "encoder_threads": encoder_threads(),
               "python": platform.python_version(), "processor": platform.processor() or platform.machine(),
               "load_avg_start": os.getloadavg()}
    encoder = time_encoder(items, encoder_items, populate=False)
    machine["load_avg_end"] = os.getloadavg()
    return {"commit": commit, "machine": machine, "encoder": encoder,
            "settings": {"encoder_items": encoder["n_items"], "sample_seed": 0,
                         "batch_size": ENCODER_BATCH_SIZE,
                         "timed": "cold embeddings cache, model load included"}}


def previous_encoder_result() -> dict:
    """The encoder timing of the last results file (``--encoder-items 0`` skips re-timing)."""
    if not RESULTS.exists():
        return {"skipped": True}
    previous = json.loads(RESULTS.read_text()).get("encoder", {"skipped": True})
    return {**previous, "carried_from_previous_run": True}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-items", type=int, default=None, help="subsample (default: all)")
    parser.add_argument("--encoder-items", type=int, default=None,
                        help="items to embed (default: all; 0 keeps the previous timing)")
    parser.add_argument("--no-populate", action="store_true",
                        help="do not copy caches into the project cache")
    parser.add_argument("--encoder-only", action="store_true",
                        help=f"time only the encoder's runtimes (results: {ENCODER_RESULTS.name})")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    if args.encoder_only:
        report = encoder_only(args.encoder_items)
        out = args.out or ENCODER_RESULTS
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(report, indent=1) + "\n")
        print(json.dumps(report["encoder"], indent=1))
        return
    args.out = args.out or RESULTS
    report = run(args.n_items, args.encoder_items, populate=not args.no_populate)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps({k: report[k] for k in ("n_items", "cold", "cached", "encoder")}, indent=1))
    print(json.dumps({k: v for k, v in report["chapter"].items()
                      if k not in ("indicator_correlations", "indicator_means_by_partition")},
                     indent=1))


if __name__ == "__main__":
    main()
