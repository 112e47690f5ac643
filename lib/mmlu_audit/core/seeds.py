"""One validator for random seeds, used at every public entry that takes one.

A seed must be given explicitly: ``None`` never silently means "fresh entropy",
because a table that changes on every run cannot be checked or reproduced.
"""

from __future__ import annotations

import numbers

import numpy as np

from mmlu_audit.core.errors import ParameterError

__all__ = ["check_seed", "rng_from"]


def check_seed(seed, name: str = "seed") -> int:
    """Return ``seed`` as a non-negative Python ``int`` or raise :class:`ParameterError`.

    Parameters
    ----------
    seed : int
        The seed. Booleans, floats (even integral ones), strings, ``None`` and
        negative integers are rejected.
    name : str
        The argument name used in the error message.

    Returns
    -------
    int
    """
    if seed is None:
        raise ParameterError(name, "a seed is required (None would mean an unreproducible random run)")
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral):
        raise ParameterError(name, f"must be a non-negative integer, got {type(seed).__name__} {seed!r}")
    if seed < 0:
        raise ParameterError(name, f"must be a non-negative integer, got {seed}")
    return int(seed)


def rng_from(seed, name: str = "seed") -> np.random.Generator:
    """A :class:`numpy.random.Generator` from a checked seed, or ``seed`` itself if it is one.

    Passing a Generator lets a caller thread one stream through several draws.
    """
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(check_seed(seed, name))
