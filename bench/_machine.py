"""The machine, package versions and load every benchmark result records (stdlib only)."""

from __future__ import annotations

import importlib.metadata
import os
import platform
import subprocess
import time
from pathlib import Path


def memory_gb() -> float | None:
    """Total physical memory in GiB (``MemTotal`` of /proc/meminfo), None where unreadable."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) / 1024**2
    except OSError:
        pass
    return None


def versions(*packages: str) -> dict:
    """Installed version of each package in this interpreter (None when not installed)."""
    found = {}
    for name in packages:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found[name] = None
    return found


def machine(loadavg_at_start) -> dict:
    """Platform, cores, memory, Python and the load average at the start and now (the end)."""
    return {"platform": platform.platform(), "cpus": os.cpu_count(), "memory_gb": memory_gb(),
            "python": platform.python_version(), "loadavg_at_start": list(loadavg_at_start),
            "loadavg_at_end": list(os.getloadavg())}


def git_commit() -> str | None:
    """The checkout's HEAD commit (with ``+dirty`` when the tree has changes), None outside git."""
    here = Path(__file__).resolve().parent
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=here,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("+dirty" if dirty else "")


def study_meta(load, seconds, workers, scheduler: str) -> dict:
    """What every many-seed study's summary records about its run, beside its own results.

    ``load`` is the load average at the start, ``seconds`` the run's wall time (None for a summary
    rewritten without running), ``workers`` and ``scheduler`` where the seeds ran.
    """
    return {"seconds": seconds, "workers": workers, "scheduler": scheduler, "git_commit": git_commit(),
            "created": time.strftime("%Y-%m-%dT%H:%M:%S"), "machine": machine(load),
            "versions": versions("mmlu-audit", "numpy", "jax", "numpyro")}
