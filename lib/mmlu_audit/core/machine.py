"""What this process may use of the machine, and what is installed on it."""

from __future__ import annotations

import os
from importlib import metadata

__all__ = ["available_cores", "core_lanes", "package_versions"]


def package_versions(names, absent: str = "missing") -> dict[str, str]:
    """The installed version of each distribution in ``names``, ``absent`` where it is not installed.

    Examples
    --------
    >>> package_versions(["no-such-distribution-xyz"])
    {'no-such-distribution-xyz': 'missing'}
    """
    found = {}
    for name in names:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = absent
    return found


def available_cores() -> int:
    """The CPU cores this process may run on (its affinity mask, else the machine's count).

    Examples
    --------
    >>> available_cores() >= 1
    True
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # no affinity API (macOS, Windows)
        return max(1, os.cpu_count() or 1)


def core_lanes(n: int) -> list[list[int]] | None:
    """This process's cores split into ``n`` disjoint lanes of near-equal size, or None.

    None where there are fewer cores than lanes or the system cannot pin a process to cores
    (no affinity API). Each lane lists core ids in ascending order.

    Examples
    --------
    >>> lanes = core_lanes(1)
    >>> lanes is None or sorted(sum(lanes, [])) == sorted(lanes[0])
    True
    """
    if n < 1:
        raise ValueError(f"need at least one lane, got {n}")
    try:
        cores = sorted(os.sched_getaffinity(0))
    except AttributeError:
        return None
    if len(cores) < n:
        return None
    bounds = [round(k * len(cores) / n) for k in range(n + 1)]
    return [cores[bounds[k]:bounds[k + 1]] for k in range(n)]
