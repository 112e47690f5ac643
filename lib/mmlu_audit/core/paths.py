"""Where data, caches and results live.

Resolution order for the data root (first match wins):

1. the ``MMLU_AUDIT_DATA`` environment variable;
2. ``<project>/data`` when it holds ``mmlu/test.parquet`` (what ``make data`` mirrors);
3. ``<project>/../shared/data``, the staged read-only mirror beside a checkout.

Caches (simulated worlds, fitted models, parses) go to ``MMLU_AUDIT_CACHE`` or
``<project>/data/cache``. Every cache serves its valid entries from a read-only folder (a
shared or archived cache); only an entry that has to be computed needs the folder writable,
and that is checked before the work (:func:`writable_folder`).

Both variables are read alike (:func:`env_folder`): ``~`` and ``~user`` are expanded (an unknown
user is one error), a value that is set but empty or blank is refused rather than taken for
"unset", one that names a file is called a file, and a relative one is made absolute from the
working folder of the process that reads it. A command that starts other processes (the book
build's kernels run in ``chapters/``) rewrites both variables as absolute paths first
(:func:`absolute_env_folders`), so a path means one thing in every process.
"""

from __future__ import annotations

import os
from pathlib import Path

from mmlu_audit.core.errors import DataError

__all__ = ["project_root", "data_root", "cache_root", "writable_folder", "env_folder", "expand_user",
           "absolute_env_folders", "DATA_ENV", "CACHE_ENV"]

DATA_ENV = "MMLU_AUDIT_DATA"
CACHE_ENV = "MMLU_AUDIT_CACHE"
_MARKER = Path("mmlu") / "test.parquet"


def project_root() -> Path:
    """Return the project checkout that holds ``_toc.yml`` (editable install), else the cwd."""
    here = Path(__file__).resolve().parents[3]  # lib/mmlu_audit/core/paths.py -> the checkout
    if (here / "_toc.yml").exists():
        return here
    return Path.cwd()


def expand_user(path: str | Path, what: str) -> Path:
    """``path`` with a leading ``~`` or ``~user`` expanded.

    Raises
    ------
    DataError
        Naming ``what`` when the home folder of ``~user`` is unknown (pathlib's RuntimeError).
    """
    try:
        return Path(path).expanduser()
    except RuntimeError:
        head = str(path).split(os.sep, 1)[0]
        raise DataError(path, f"{what}: cannot expand {head!r}: no such user (or no home folder)") from None


def env_folder(variable: str) -> Path | None:
    """The folder an environment variable names, ``~`` expanded, absolute; None when it is not set.

    A relative value is taken from the current working folder.

    Raises
    ------
    DataError
        A value that is empty or blank, an unknown ``~user``, or a path that is a file.
    """
    value = os.environ.get(variable)
    if value is None:
        return None
    if not value.strip():
        raise DataError(variable, "is set but empty; unset it or name a folder")
    folder = expand_user(value, variable).absolute()
    if folder.exists() and not folder.is_dir():
        raise DataError(folder, f"{variable} names a file, not a folder")
    return folder


def absolute_env_folders() -> dict[str, str]:
    """Rewrite ``MMLU_AUDIT_DATA`` and ``MMLU_AUDIT_CACHE``, where set, as checked absolute paths.

    Call it before starting a process that runs in another working folder (a chapter's kernel
    runs in ``chapters/``), so that a relative value keeps the meaning it had where it was typed.

    Returns
    -------
    dict of str to str
        The variables rewritten, with their new values.

    Raises
    ------
    DataError
        A value :func:`env_folder` refuses (blank, unknown ``~user``, a file).
    """
    rewritten = {}
    for variable in (DATA_ENV, CACHE_ENV):
        folder = env_folder(variable)
        if folder is not None:
            rewritten[variable] = os.environ[variable] = str(folder)
    return rewritten


def data_root() -> Path:
    """Return the data root, following the documented resolution order.

    Raises
    ------
    DataError
        If ``MMLU_AUDIT_DATA`` is blank, names a file or a missing folder (:func:`env_folder`),
        or no candidate holds ``mmlu/test.parquet``.
    """
    root = env_folder(DATA_ENV)
    if root is not None:
        if not root.is_dir():
            raise DataError(root, f"{DATA_ENV} points at a folder that does not exist")
        return root
    candidates = [project_root() / "data", project_root().parent / "shared" / "data"]
    for root in candidates:
        if (root / _MARKER).exists():
            return root
    tried = ", ".join(str(c) for c in candidates)
    raise DataError(
        _MARKER, f"no data root found (tried {tried}); run `make data` or set {DATA_ENV}"
    )


def cache_root(*, writable: bool = True) -> Path:
    """Return the cache folder for generated artefacts, created and checked writable by default.

    Parameters
    ----------
    writable : bool
        ``False`` for a cache that reads its valid entries even from a read-only folder (every
        cache of the package): the folder is then neither created nor checked here, and the
        cache checks it (:func:`writable_folder`) only when an entry has to be computed.
        ``True`` for a caller that will write whatever it finds.

    Raises
    ------
    DataError
        If ``MMLU_AUDIT_CACHE`` is blank or names a file (:func:`env_folder`), or, when
        ``writable``, the folder cannot be created or written (see :func:`writable_folder`).
    """
    folder = env_folder(CACHE_ENV) or project_root() / "data" / "cache"
    if not writable:
        return folder
    return writable_folder(folder, "cache folder")


def writable_folder(folder: str | Path, what: str = "cache folder") -> Path:
    """Create ``folder`` if needed and check it is writable, else raise one :class:`DataError`.

    Parameters
    ----------
    folder : str or Path
    what : str
        How the error describes the folder.

    Raises
    ------
    DataError
        Naming the folder, and saying to set ``MMLU_AUDIT_CACHE`` to a writable folder.
    """
    folder = Path(folder)
    hint = f"set {CACHE_ENV} to a writable folder"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DataError(folder, f"cannot create the {what} ({exc.strerror or exc}); {hint}") from exc
    if not os.access(folder, os.W_OK | os.X_OK):
        raise DataError(folder, f"the {what} is not writable; {hint}")
    return folder
