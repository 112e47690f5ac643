"""Time a cold ``make book`` of one or more commits, phase by phase, one after the other.

Usage (from the repository root, on an otherwise idle machine)::

    .venv/bin/python bench/bench_cold_build.py 04591a9 HEAD     # before, then after
    .venv/bin/python bench/bench_cold_build.py HEAD --fast        # the smoke build's settings

Each commit is cloned from this repository into a fresh folder that has ``../shared`` beside it,
as CI's clean clone has, so the build starts with no virtual environment, data mirror, parse,
embedding or compilation cache. ``make book`` then runs with its output timestamped line by line,
and its phases are cut where make echoes the next recipe: **setup** (the virtual environment),
**data** (``make data``: mirror, parses, embeddings, worlds; with each step's own time where the
commit prints it), **chapters** (every chapter executed, with each chapter's time) and **html**
(MathJax, the findings box, the audit example and ``jupyter-book build``). The clone is removed
afterwards. Each commit's run replaces any earlier run of the same commit and settings in
``bench/results/cold_build.json``; the Performance page reads it
(:func:`mmlu_audit.book.performance.cold_build_table`).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from _machine import git_commit, machine

from mmlu_audit.book.performance import make_book_phases

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "cold_build.json"
#: Variables of this shell that would let the clone reuse this checkout's data or caches.
ISOLATE = ("MMLU_AUDIT_CACHE", "MMLU_AUDIT_DATA", "VIRTUAL_ENV", "PYTHONPYCACHEPREFIX")


def _timestamped(command: list[str], cwd: Path, env: dict, timeout_s: float, log: Path):
    """Run ``command``, stamping each output line with seconds since start; (rc, lines, wall)."""
    start, lines = time.perf_counter(), []
    with open(log, "w") as sink, subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE,
                                                  stderr=subprocess.STDOUT, text=True, bufsize=1,
                                                  start_new_session=True) as process:
        for raw in process.stdout:
            stamp = time.perf_counter() - start
            for line in raw.replace("\r", "\n").splitlines():
                lines.append((stamp, line))
                sink.write(f"{stamp:9.1f}  {line}\n")
            if stamp > timeout_s:
                os.killpg(process.pid, 9)
                raise TimeoutError(f"make book passed {timeout_s:.0f} s; log in {log}")
        rc = process.wait()
    return rc, lines, time.perf_counter() - start


def cold_build(rev: str, *, fast: bool, timeout_s: float, keep_log: Path,
               keep_site: Path | None = None) -> dict:
    """Clone ``rev`` into a fresh folder beside ``../shared`` and time its ``make book``.

    ``keep_site``: where to copy the built ``_build/html`` before the clone is removed (a
    folder that must not exist yet; nothing is overwritten).
    """
    sha = subprocess.run(["git", "rev-parse", "--verify", f"{rev}^{{commit}}"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout.strip()
    shared = (ROOT.parent / "shared").resolve()
    if not (shared / "data").is_dir():
        sys.exit(f"bench_cold_build: no staged data at {shared / 'data'}")
    base = Path(tempfile.mkdtemp(prefix=f"cold-{sha[:8]}-"))
    try:
        (base / "shared").symlink_to(shared)
        clone = ["git", "clone", "--quiet", "--no-checkout", str(ROOT), str(base / "main")]
        subprocess.run(clone, check=True)
        subprocess.run(["git", "checkout", "--quiet", sha], cwd=base / "main", check=True)
        env = {k: v for k, v in os.environ.items() if k not in ISOLATE}
        command = ["make", "book"] + (["FAST=1"] if fast else [])
        load, started = os.getloadavg(), datetime.now(UTC).isoformat(timespec="seconds")
        rc, lines, wall = _timestamped(command, base / "main", env, timeout_s, keep_log)
        if keep_site is not None and (base / "main/_build/html").is_dir():
            shutil.copytree(base / "main/_build/html", keep_site)
        return {"requested": rev, "commit": sha, "fast": fast, "started": started, "exit_code": rc,
                "total_s": round(wall, 1), **make_book_phases(lines, wall), "machine": machine(load)}
    finally:
        shutil.rmtree(base, ignore_errors=True)


def main() -> None:
    from mmlu_audit.core.store import write_json_atomic

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("revs", nargs="+", help="commits to build, in this order")
    parser.add_argument("--fast", action="store_true", help="FAST=1: the smoke build's settings")
    parser.add_argument("--timeout-min", type=float, default=60.0, help="give up on one build after this")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--keep-sites", type=Path,
                        help="copy each built site to KEEP_SITES/<rev> (a new folder)")
    args = parser.parse_args()
    result = json.loads(args.out.read_text()) if args.out.is_file() else {"runs": []}
    for rev in args.revs:
        log = Path(tempfile.gettempdir()) / f"cold_build_{rev.replace('/', '_')}.log"
        print(f"cold make book of {rev} (log: {log}) ...", flush=True)
        site = args.keep_sites / rev.replace("/", "_") if args.keep_sites else None
        if site is not None and site.exists():
            sys.exit(f"bench_cold_build: {site} exists; choose another --keep-sites folder")
        run = cold_build(rev, fast=args.fast, timeout_s=60 * args.timeout_min, keep_log=log, keep_site=site)
        print(f"  exit {run['exit_code']}, {run['total_s'] / 60:.1f} min: "
              + ", ".join(f"{k} {run[k]:.0f} s" for k in ("setup", "data", "chapters", "html") if k in run),
              flush=True)
        same = (run["commit"], run["fast"])
        result["runs"] = [r for r in result["runs"] if (r["commit"], r["fast"]) != same]
        result["runs"].append(run)
        result["bench_commit"] = git_commit()
        write_json_atomic(args.out, result)
        if run["exit_code"] != 0:
            print(f"  make book failed: see {log}", flush=True)


if __name__ == "__main__":
    main()
