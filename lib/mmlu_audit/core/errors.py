"""Exceptions raised by :mod:`mmlu_audit`.

Every data problem surfaces as one :class:`DataError` whose message names the
file (or object) and the problem, so a user can fix the input without reading
a traceback.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from pathlib import Path

from mmlu_audit.core.formatting import collapse_whitespace

__all__ = ["CacheWarning", "DataError", "DeviceUnavailableError", "MissingDependencyError",
           "ParameterError", "cli_status", "warn_bad_cache"]


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


class DeviceUnavailableError(RuntimeError):
    """The accelerator a build asked for (``--device gpu``) is not visible to JAX."""


class CacheWarning(UserWarning):
    """A cache entry failed verification and is being rebuilt (never used as is)."""


def warn_bad_cache(path: str | Path, problem: str, action: str = "rebuilding it") -> None:
    """Issue the one warning for a bad cache entry: the file, the problem, what happens next."""
    warnings.warn(f"{Path(path).name}: {problem}; {action}", CacheWarning, stacklevel=3)


#: Errors a command line reports as one line with exit status 2: the project's own and the
#: operating system's (a missing or read-only folder, a directory where a file should be).
EXPECTED_ERRORS = (DataError, ParameterError, MissingDependencyError, DeviceUnavailableError, OSError)


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        where = f"{exc.filename}: " if exc.filename else ""
        text = f"{where}{exc.strerror}"
    else:
        text = str(exc) or type(exc).__name__
    return collapse_whitespace(text)


def cli_status(prog: str, body: Callable[[], int]) -> int:
    """Run a command-line body; map the expected errors to one line on stderr.

    Returns ``body()``'s status, 2 after a :data:`EXPECTED_ERRORS` error (printed as
    ``prog: problem``, no traceback) and 130 after Ctrl-C. Any other exception is a bug and
    propagates with its traceback.
    """
    try:
        return body()
    except EXPECTED_ERRORS as exc:
        print(f"{prog}: {_one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
