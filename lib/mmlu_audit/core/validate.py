"""One home for checking scalar options: counts, probabilities, positive reals.

Each check returns the value as a plain Python ``int`` or ``float`` or raises one
:class:`~mmlu_audit.core.errors.ParameterError` naming the option. Booleans are never
numbers here (``n_boot=True`` is a mistake, not one replicate), a count must be an
integer (``99.5`` draws is refused, not truncated), and NaN fails every range check.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from mmlu_audit.core.errors import ParameterError

__all__ = ["count", "probability", "positive_real", "real_in"]


def _is_bool(value) -> bool:
    return isinstance(value, (bool, np.bool_))


def count(value, name: str, *, minimum: int = 1, maximum: int | None = None) -> int:
    """Return ``value`` as an ``int`` from ``minimum`` to ``maximum``; refuse bools, floats and strings.

    Parameters
    ----------
    value : int
    name : str
        The option's name, used in the message.
    minimum : int
        Smallest allowed value (1 for a number of draws or steps).
    maximum : int, optional
        Largest allowed value (none by default).
    """
    if _is_bool(value) or not isinstance(value, numbers.Integral):
        raise ParameterError(name, f"must be an integer ≥ {minimum}, got {type(value).__name__} {value!r}")
    if value < minimum:
        raise ParameterError(name, f"must be an integer ≥ {minimum}, got {value}")
    if maximum is not None and value > maximum:
        shown = f"{value:,}" if value < 10**30 else f"an integer of {len(str(value))} digits"
        raise ParameterError(name, f"must be at most {maximum:,}, got {shown}")
    return int(value)


def real_in(value, name: str, low: float = -math.inf, high: float = math.inf, *,
            low_open: bool = True, high_open: bool = True) -> float:
    """Return ``value`` as a finite ``float`` inside the interval from ``low`` to ``high``.

    ``low_open``/``high_open`` say whether each end is excluded. NaN and infinities are
    refused whatever the interval.
    """
    if _is_bool(value) or not isinstance(value, numbers.Real):
        raise ParameterError(name, f"must be a real number, got {type(value).__name__} {value!r}")
    number = float(value)
    above = number > low if low_open else number >= low
    below = number < high if high_open else number <= high
    if not (math.isfinite(number) and above and below):
        interval = f"{'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
        raise ParameterError(name, f"must be a finite number in {interval}, got {value!r}")
    return number


def probability(value, name: str) -> float:
    """Return ``value`` as a ``float`` strictly between 0 and 1 (a level, a share)."""
    return real_in(value, name, 0.0, 1.0)


def positive_real(value, name: str) -> float:
    """Return ``value`` as a finite ``float > 0`` (a step size, a scale)."""
    return real_in(value, name, 0.0)
