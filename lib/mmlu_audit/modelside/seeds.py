"""Seed validation shared by the model-side analyses."""

from __future__ import annotations

import numbers

from ..errors import DataError

__all__ = ["check_seed"]


def check_seed(seed) -> int:
    """Return ``seed`` if it is a non-negative integer; ``None`` is refused, never "random"."""
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise DataError("seed", f"needs a non-negative integer, got {seed!r}")
    return int(seed)
