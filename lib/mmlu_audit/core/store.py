"""Atomic writes and keyed, versioned, verified cache entries: the one home for both.

Writing
    :func:`atomic_write` hands a writer a unique temporary file in the target's folder
    (:func:`tempfile.mkstemp`), fsyncs it and renames it over the target with
    :func:`os.replace`; on any failure the temporary file is removed and the old target
    is left as it was. A reader sees the old file or the whole new one, and two
    processes writing the same target never share a temporary name.
    :func:`write_bytes_atomic` and :func:`write_json_atomic` are the two common writers.

Caching
    A cache entry is found by :func:`cache_key`, the sha256 of a canonical JSON
    serialisation of everything that determines it (arrays enter through
    :func:`array_digest`), so no two different inputs share a key by the way their
    fields happen to join. Every entry carries that key, a format version and a digest
    of its content; :func:`stamp_problem` is the one check of all three, and
    :class:`CacheEntry` is the store for an entry that is one file plus a JSON stamp.
    A bad entry is rebuilt with one :class:`~mmlu_audit.core.errors.CacheWarning`
    (:func:`~mmlu_audit.core.errors.warn_bad_cache`).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mmlu_audit.core.errors import DataError, warn_bad_cache
from mmlu_audit.core.paths import writable_folder

__all__ = ["CacheEntry", "array_digest", "atomic_write", "cache_key", "canonical_json", "check_not_a_folder",
           "compute_once", "file_sha256", "compute_lock", "locked", "stamp_problem", "write_bytes_atomic",
           "write_json_atomic"]

_CHUNK = 1 << 20


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


#: Files are created with the permissions an ordinary ``open(path, "w")`` would give.
_FILE_MODE = 0o666 & ~_umask()


def atomic_write(path: str | Path, writer: Callable[[Path], Any]) -> Path:
    """Write ``path`` through ``writer(temporary_path)``, then move the result into place.

    Parameters
    ----------
    path : str or Path
        The target; its folder is created if needed.
    writer : callable
        Called with the path of a new, empty temporary file in the same folder, which it
        writes (or replaces) completely.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    DataError
        Naming ``path`` when it is a folder, or when the system refuses the write (a full disk,
        a folder that is not writable); the temporary file is removed and any old file kept.
    """
    path = Path(path)
    check_not_a_folder(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise DataError(path, f"could not be written ({exc.strerror or exc})") from exc
    os.close(handle)
    tmp = Path(name)
    try:
        writer(tmp)
        os.chmod(tmp, _FILE_MODE)
        with open(tmp, "rb+") as written:
            os.fsync(written.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise DataError(path, f"could not be written ({exc.strerror or exc}); any earlier file is "
                        "left as it was") from exc
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def check_not_a_folder(path: Path) -> None:
    """Refuse a cache or output file's path that holds a folder (nothing could replace it).

    Raises
    ------
    DataError
        Naming the path.
    """
    if path.is_dir():
        raise DataError(path, "is a folder where a file belongs; remove it")


def write_bytes_atomic(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_write`)."""
    return atomic_write(path, lambda tmp: tmp.write_bytes(bytes(data)))


def write_json_atomic(path: str | Path, payload, *, indent: int | None = 2, sort_keys: bool = True,
                      default=None) -> Path:
    """Write ``payload`` as JSON (with a final newline) to ``path`` atomically."""
    text = json.dumps(payload, indent=indent, sort_keys=sort_keys, default=default) + "\n"
    return write_bytes_atomic(path, text.encode("utf-8"))


def canonical_json(fields) -> str:
    """The one serialisation keys are hashed from: sorted keys, no spaces, no NaN, UTF-8 text."""
    try:
        return json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                          allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise DataError("cache key", f"key fields are not plain JSON ({exc})") from exc


def cache_key(fields) -> str:
    """sha256 hex digest of :func:`canonical_json` of ``fields`` (a mapping or list of JSON values)."""
    return hashlib.sha256(canonical_json(fields).encode("utf-8")).hexdigest()


def array_digest(values) -> str | None:
    """sha256 of an array's dtype, shape and values (None for None), to put an array in a key.

    Text and object arrays are hashed as the canonical JSON of their strings, so their
    digest does not depend on the fixed width numpy happens to store them in.
    """
    if values is None:
        return None
    values = np.ascontiguousarray(values)
    if values.dtype.kind in "OUS":
        return cache_key({"shape": list(values.shape), "text": _as_texts(values)})
    digest = hashlib.sha256(canonical_json({"dtype": values.dtype.str, "shape": list(values.shape)}).encode())
    digest.update(values.tobytes())
    return digest.hexdigest()


def _as_texts(values: np.ndarray) -> list[str]:
    """``values.astype(str).ravel().tolist()``, without the fixed-width copy when it can.

    ``astype(str)`` pads every string to the longest one: on MMLU's 14,042 ids and questions
    (some questions run to thousands of characters) that copy took ~3 s, paid by every chapter
    that loads the simulated world. A numpy string drops trailing NULs; the fast paths do too,
    so the texts, and the digest, are the same.
    """
    flat = values.ravel()
    if values.dtype.kind == "U":
        return flat.tolist()
    if values.dtype.kind == "O" and all(isinstance(v, str) for v in flat):
        return [v.rstrip("\x00") for v in flat]
    return flat.astype(str).tolist()


def file_sha256(path: str | Path) -> str:
    """The hex sha256 of a file's bytes, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(_CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def _short(value) -> str:
    text = str(value)
    return text if len(text) <= 16 else f"{text[:12]}…"


def stamp_problem(stored: Mapping, *, key: str, version: str, digest: Callable[[], str] | None = None,
                  key_field: str = "cache_key", version_field: str = "cache_format",
                  digest_field: str = "content_sha256") -> str | None:
    """What is wrong with an entry's stamp, or None when it has this version, this key and its digest.

    Parameters
    ----------
    stored : mapping
        The stamp the entry carries.
    key, version : str
        What the entry must carry.
    digest : callable, optional
        Computes the digest of the entry's content as it is now; without it the content is
        checked elsewhere (e.g. by a manifest).
    key_field, version_field, digest_field : str
        The stamp's names for the three.
    """
    if stored.get(version_field) != version:
        return f"{version_field.replace('_', ' ')} {stored.get(version_field)!r}, expected {version!r}"
    if stored.get(key_field) != key:
        return f"stored {key_field} {_short(stored.get(key_field))} is not the expected {_short(key)}"
    if digest is None:
        return None
    if digest_field not in stored:
        return "no content hash"
    if stored[digest_field] != digest():
        return "content hash mismatch (the stored content was altered or truncated)"
    return None


@contextmanager
def locked(folder: str | Path, shared: bool = False) -> Iterator[None]:
    """Hold an advisory lock on ``folder`` (exclusive, or shared for readers) while inside.

    Entries made of more than one file are written under the exclusive lock, so a
    reader never pairs one writer's content with another's stamp.
    """
    with _flocked(os.open(folder, os.O_RDONLY), fcntl.LOCK_SH if shared else fcntl.LOCK_EX):
        yield


@contextmanager
def compute_lock(path: str | Path) -> Iterator[None]:
    """Hold the exclusive right to compute the cache entry ``path`` while inside.

    Two processes that miss the same entry (two chapters of a parallel build needing one fit)
    would both compute it; under this lock the second one waits, and on entering should look
    for the entry again before computing. The lock is a hidden file beside the entry,
    ``.<name>.lock``, left in place: deleting it while another process waits on it would let a
    third one lock a new file and compute alongside.
    """
    path = Path(path)
    with _flocked(os.open(path.with_name(f".{path.name}.lock"), os.O_RDWR | os.O_CREAT, _FILE_MODE),
                  fcntl.LOCK_EX):
        yield


def compute_once(path: str | Path, read: Callable[[], Any], compute: Callable[[], Any],
                 what: str = "cache folder") -> Any:
    """The cache entry at ``path``: read if valid, else computed once however many processes miss it.

    Parameters
    ----------
    path : str or Path
        The entry's file.
    read : callable
        Returns the entry's value, or None when it is bad (having warned about it).
        Called only when the file exists.
    compute : callable
        Makes the value, writes the entry at ``path`` and returns the value.
    what : str
        How the error names the entry's folder if it cannot be written.

    Notes
    -----
    A valid entry is read even from a read-only folder. A miss checks the folder is
    writable (before the work, not after it) and takes :func:`compute_lock`; a process
    that waited on it reads the entry the other one wrote instead of computing it again.
    The entry is read a second time only if its file changed meanwhile, so a bad one is
    warned about once.
    """
    path = Path(path)
    check_not_a_folder(path)  # before the work: a folder in the entry's place cannot be replaced
    seen = _file_identity(path)
    found = read() if seen is not None else None
    if found is not None:
        return found
    writable_folder(path.parent, what)
    with compute_lock(path):
        if _file_identity(path) not in (None, seen):
            found = read()
            if found is not None:
                return found
        return compute()


def _file_identity(path: Path) -> tuple | None:
    """What tells one version of a file from another (inode, size, mtime), or None if absent.

    An atomic write gives the file a new inode, so a changed identity means another
    process wrote it.
    """
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    return stat.st_ino, stat.st_size, stat.st_mtime_ns


@contextmanager
def _flocked(handle: int, operation: int) -> Iterator[None]:
    """Hold ``flock(handle, operation)`` while inside, then close ``handle`` (which releases it)."""
    try:
        fcntl.flock(handle, operation)
        yield
    finally:
        os.close(handle)


@dataclass(frozen=True)
class CacheEntry:
    """One cached file and, beside it, a JSON stamp with its key, format and sha256.

    Parameters
    ----------
    path : Path
        The content file; the stamp is ``path.with_suffix(".json")``.
    key : str
        From :func:`cache_key`.
    version : str
        The entry format; bump it when the content's layout or meaning changes.
    what : str
        How a warning names an unreadable stamp (``"provenance file"``).
    """

    path: Path
    key: str
    version: str
    what: str = "stamp file"

    @property
    def stamp_path(self) -> Path:
        """The JSON stamp beside the content file."""
        return self.path.with_suffix(".json")

    def read(self, load: Callable[[Path], Any]) -> tuple[Any, dict] | None:
        """``(load(path), stamp)`` if the entry exists and verifies, else None.

        The stamp is returned with its key and the ``extra`` fields it was written with.

        A present entry that fails (unreadable stamp, another key or format, altered
        content, or a ``load`` that raises :class:`DataError`) is warned about once.
        """
        if not (self.path.exists() and self.stamp_path.exists()):
            return None
        with locked(self.path.parent, shared=True):
            try:
                stamp = json.loads(self.stamp_path.read_text())
                if not isinstance(stamp, dict):
                    raise ValueError("not a JSON object")
            except (ValueError, UnicodeDecodeError) as exc:
                warn_bad_cache(self.stamp_path, f"unreadable {self.what} ({exc})")
                return None
            problem = stamp_problem(stamp, key=self.key, version=self.version,
                                    digest=lambda: file_sha256(self.path))
            if problem:
                warn_bad_cache(self.path, problem)
                return None
            try:
                value = load(self.path)
            except DataError as exc:
                warn_bad_cache(self.path, exc.problem)
                return None
        return value, {k: v for k, v in stamp.items() if k not in ("cache_format", "content_sha256")}

    def read_or_compute(self, load: Callable[[Path], Any], compute: Callable[[], Any],
                        store: Callable[[Any], None], what: str = "cache folder") -> tuple[Any, dict | None]:
        """The entry's value, computed once however many processes miss it together.

        Parameters
        ----------
        load : callable
            As for :meth:`read`.
        compute : callable
            Makes the value when the entry is missing or bad.
        store : callable
            Writes a computed value into the entry (through :meth:`write`).
        what : str
            How the error names the entry's folder when it misses and is not writable.

        Returns
        -------
        (value, stamp)
            ``stamp`` as from :meth:`read`, or None when the value was computed here.
            Waiting and reading what another process wrote: :func:`compute_once`.
        """
        def computed() -> tuple[Any, None]:
            value = compute()
            store(value)
            return value, None

        return compute_once(self.path, lambda: self.read(load), computed, what)

    def write(self, writer: Callable[[Path], Any], extra: Mapping | None = None) -> None:
        """Write the content through ``writer`` and then its stamp (with ``extra`` fields), atomically."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with locked(self.path.parent):
            atomic_write(self.path, writer)
            stamp = {**(extra or {}), "cache_key": self.key, "cache_format": self.version,
                     "content_sha256": file_sha256(self.path)}
            write_json_atomic(self.stamp_path, stamp, indent=1)
