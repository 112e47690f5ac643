"""One validator for random seeds, used at every public entry that takes one.

A seed must be given explicitly: ``None`` never silently means "fresh entropy",
because a table that changes on every run cannot be checked or reproduced.

The one range is ``0 <= seed < 2**32`` (:data:`SEED_LIMIT`): JAX keys are 32-bit, so a
larger seed would be folded onto a smaller one (``2**32 + 1`` would silently equal ``1``)
while the project recorded the two as distinct runs.
"""

from __future__ import annotations

import functools
import inspect
import numbers

import numpy as np

from mmlu_audit.core.errors import ParameterError

__all__ = ["SEED_LIMIT", "check_seed", "child_seed", "rng_from", "seeded"]

#: Seeds are integers in ``[0, SEED_LIMIT)``.
SEED_LIMIT = 2**32


def check_seed(seed, name: str = "seed") -> int:
    """Return ``seed`` as a Python ``int`` in ``[0, 2**32)`` or raise :class:`ParameterError`.

    Parameters
    ----------
    seed : int
        The seed. Booleans, floats (even integral ones), strings, ``None`` and
        integers outside ``0 … 2**32 - 1`` are rejected.
    name : str
        The argument name used in the error message.

    Returns
    -------
    int
    """
    if seed is None:
        raise ParameterError(name, "a seed is required (None would mean an unreproducible random run)")
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral):
        raise ParameterError(name, f"must be an integer in 0 … 2**32 - 1, got {type(seed).__name__} "
                             f"{seed!r}")
    if not 0 <= seed < SEED_LIMIT:
        raise ParameterError(name, f"must be an integer in 0 … 2**32 - 1 (JAX keys are 32-bit), "
                             f"got {seed}")
    return int(seed)


def child_seed(seed: int, offset: int) -> int:
    """The seed ``offset`` places after ``seed`` (a refit, a second stream), kept in range.

    Wraps at ``2**32`` so a derived seed is always a valid one; for every seed a run has
    used so far (``seed + offset < 2**32``) it is plain ``seed + offset``.
    """
    return (check_seed(seed) + int(offset)) % SEED_LIMIT


def rng_from(seed, name: str = "seed") -> np.random.Generator:
    """A :class:`numpy.random.Generator` from a checked seed, or ``seed`` itself if it is one.

    Passing a Generator lets a caller thread one stream through several draws.
    """
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(check_seed(seed, name))


def seeded(function):
    """Decorate a public function so its ``seed`` argument is checked before anything else.

    The check is :func:`check_seed`; a :class:`numpy.random.Generator` passes through, and
    ``None`` passes only where the function's own default is ``None`` (a seed that is needed
    only on some paths, such as :func:`mmlu_audit.inference.cv_r2` without explicit folds).
    Checking first means a bad seed is reported as a bad seed, whatever else is wrong.
    """
    signature = inspect.signature(function)
    default = signature.parameters["seed"].default

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        bound = signature.bind_partial(*args, **kwargs)
        seed = bound.arguments.get("seed", default)
        if seed is inspect.Parameter.empty:
            raise ParameterError("seed", f"{function.__name__} needs an explicit seed")
        if not (seed is None and default is None) and not isinstance(seed, np.random.Generator):
            check_seed(seed)
        return function(*args, **kwargs)

    return wrapper
