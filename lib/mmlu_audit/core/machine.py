"""What this process may use of the machine."""

from __future__ import annotations

import os

__all__ = ["available_cores"]


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
