"""Time the two MMLU-Pro chapters at full settings, and the parse-cache reuse on their stems.

Usage::

    .venv/bin/python bench/bench_mmlu_pro.py [--out bench/results/mmlu_pro.json]

Everything runs against a fresh temporary cache (``MMLU_AUDIT_CACHE``), so the first
measurement is cold. Times, in this order: the stem features of all 12,032 MMLU-Pro
questions built twice (the first parses every stem, the second must come from the cache);
then the two MMLU-Pro chapters (chap-mmlu-pro, chap-answer-key-audit; :data:`CHAPTERS`) executed
once each with papermill at full settings (their stems come from that cache, their IRT fits are
computed).
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

import mmlu_audit
from mmlu_audit.features import benchmark_features
from mmlu_audit.book.build import chapter_paths, execute_chapter
from mmlu_audit.data.mmlu_pro import load_pro_items

RESULTS = Path(__file__).resolve().parent / "results" / "mmlu_pro.json"
CHAPTERS = ("20_mmlu_pro", "21_answer_key_audit")


def time_features() -> dict:
    """Two builds of the MMLU-Pro stem features; the second must come from the cache."""
    items = load_pro_items()
    runs = {}
    for name in ("first", "rerun"):
        timings: dict = {}
        start = time.perf_counter()
        table = benchmark_features(items, progress=False, timings=timings)
        runs[name] = {"seconds": round(time.perf_counter() - start, 2), "n_items": len(table),
                      "from_cache": bool(timings.get("from_cache")),
                      "parse_s": round(timings.get("parse_s", 0.0), 2)}
    if runs["first"]["from_cache"] or not runs["rerun"]["from_cache"]:
        raise SystemExit("expected a cold first build and a cached rerun")
    return runs


def time_chapters(seed: int) -> dict:
    out = {}
    with tempfile.TemporaryDirectory() as scratch:
        for source in chapter_paths(only=list(CHAPTERS)):
            start = time.perf_counter()
            execute_chapter(source, Path(scratch), {"seed": seed, "fast": False})
            out[source.stem] = round(time.perf_counter() - start, 1)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--seed", type=int, default=20240601)
    args = parser.parse_args()
    scratch_cache = tempfile.mkdtemp(prefix="bench-mmlu-pro-cache-")
    os.environ["MMLU_AUDIT_CACHE"] = scratch_cache  # cold start; kernels inherit it
    report = {
        "created": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count(),
                    "load_1min": round(os.getloadavg()[0], 2)},
        "package": mmlu_audit.__version__ if hasattr(mmlu_audit, "__version__") else "",
        "features": time_features(),
        "chapters_s": time_chapters(args.seed),
        "cache": "fresh temporary cache: features cold first, IRT fits cold in the chapters",
    }
    shutil.rmtree(scratch_cache, ignore_errors=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    partial = args.out.with_suffix(".json.partial")
    partial.write_text(json.dumps(report, indent=1) + "\n")
    partial.replace(args.out)
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
