"""Exceptions raised by :mod:`mmlu_audit`.

Every data problem surfaces as one :class:`DataError` whose message names the
file (or object) and the problem, so a user can fix the input without reading
a traceback.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["DataError", "DeviceUnavailableError", "MissingDependencyError"]


class DataError(ValueError):
    """Invalid, missing or corrupt input data.

    Parameters
    ----------
    source : str or Path
        The file or object the problem was found in.
    problem : str
        What is wrong, in one sentence.
    """

    def __init__(self, source: str | Path, problem: str):
        self.source = str(source)
        self.problem = problem
        super().__init__(f"{self.source}: {problem}")


class MissingDependencyError(ImportError):
    """An optional dependency (parser model, hub client…) is not installed."""


class DeviceUnavailableError(RuntimeError):
    """The accelerator a build asked for (``--device gpu``) is not visible to JAX."""
