"""Exceptions raised by :mod:`mmlu_audit`.

Every data problem surfaces as one :class:`DataError` whose message names the
file (or object) and the problem, so a user can fix the input without reading
a traceback.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["DataError", "MissingDependencyError", "ParameterError"]


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


class ParameterError(ValueError):
    """An invalid option or argument (a bad seed, an unknown chapter, a wrong knob).

    Bad *options* are kept apart from bad *data* (:class:`DataError`) so a caller
    can tell "you called it wrongly" from "the input is broken".

    Parameters
    ----------
    name : str
        The argument or option that is wrong.
    problem : str
        What is wrong, in one sentence.
    """

    def __init__(self, name: str, problem: str):
        self.name = str(name)
        self.problem = problem
        super().__init__(f"{self.name}: {problem}")


class MissingDependencyError(ImportError):
    """An optional dependency (parser model, hub client…) is not installed."""
