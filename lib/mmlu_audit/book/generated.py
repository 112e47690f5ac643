"""Files the book's generators write: only ever their own, checked first, swapped in at the end.

A generator (the findings box, the audit example, the world pages) writes into a folder a user
may also keep files in, so it must never replace or delete a file it did not write. Ownership
is proved one of two ways: a text fragment starts with its writer's *mark* (a MyST comment), and
any other file (a CSV or PNG download) is listed, with its sha256, in the writer's *manifest*
beside it (``.<writer>.generated.json``). A file that exists and is neither is the user's: the
whole write is refused before any target is touched (:func:`write_owned`).

:func:`check_out` and :func:`check_out_folder` validate an ``--out`` path (a file, a folder) and
its parents before a command does any work.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from mmlu_audit.core.errors import ParameterError

__all__ = ["check_out", "check_out_folder", "owned", "write_generated", "write_owned"]


def check_out(out, flag: str = "--out") -> Path:
    """Make ``out`` absolute and check that it can be written as a file, before any work.

    Parameters
    ----------
    out : str or Path
        The file a command will write.
    flag : str
        The option that named it, for the error.

    Returns
    -------
    Path
        ``out``, absolute (``~`` expanded).

    Raises
    ------
    ParameterError
        When ``out`` is a folder, or a parent of it exists and is not a folder.
    """
    target = _absolute(out, flag)
    if target.is_dir():
        raise ParameterError(flag, f"{target} is a folder, not a file")
    _check_parents(target, flag)
    return target


def check_out_folder(out, flag: str = "--out") -> Path:
    """Make ``out`` absolute and check that it is, or can be created as, a folder, before any work.

    Parameters
    ----------
    out : str or Path
        The folder a command will write into.
    flag : str
        The option that named it, for the error.

    Returns
    -------
    Path
        ``out``, absolute (``~`` expanded).

    Raises
    ------
    ParameterError
        When ``out`` or a parent of it exists and is not a folder.
    """
    target = _absolute(out, flag)
    if target.exists() and not target.is_dir():
        raise ParameterError(flag, f"{target} is a file, not a folder")
    _check_parents(target, flag)
    return target


def _absolute(out, flag: str) -> Path:
    try:
        return Path(out).expanduser().absolute()
    except RuntimeError:  # "~nosuchuser/…"
        raise ParameterError(flag, f"{out}: cannot expand {str(out).split(os.sep, 1)[0]!r}: "
                             "no such user (or no home folder)") from None


def _check_parents(target: Path, flag: str) -> None:
    """Refuse ``target`` when its nearest existing parent is not a folder."""
    parent = next(p for p in target.parents if p.exists())
    if not parent.is_dir():
        raise ParameterError(flag, f"{parent} is a file, so {target} cannot be written under it")


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _manifest_path(folder: Path, writer: str) -> Path:
    return folder / f".{writer}.generated.json"


def _read_manifest(folder: Path, writer: str) -> dict[str, list[str]]:
    path = _manifest_path(folder, writer)
    try:
        entries = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(entries, dict):
        return {}
    return {str(k): [str(h) for h in v] for k, v in entries.items() if isinstance(v, list)}


def owned(path, writer: str, mark: str | None = None) -> bool:
    """Whether the existing file ``path`` was written by ``writer`` and is unchanged since.

    Parameters
    ----------
    path : str or Path
    writer : str
        The generator's name (its manifest is ``.<writer>.generated.json`` beside ``path``).
    mark : str, optional
        The first line the writer's text fragments start with; such a file is the writer's.
    """
    target = Path(path)
    if mark is not None and target.read_bytes().startswith(mark.encode()):
        return True
    return _sha256(target) in _read_manifest(target.parent, writer).get(target.name, [])


def _check_targets(folder: Path, files: dict, writer: str, marks: dict) -> None:
    for name, content in files.items():
        target = folder / name
        if content is None:
            continue  # only removed if the writer's; a user's file of that name is left alone
        if target.is_dir():
            raise ParameterError("--out", f"{target} is a folder, not a file")
        if target.exists() and not owned(target, writer, marks.get(name)):
            raise ParameterError("--out", f"{target} exists and was not written by {writer}; not replacing "
                                 "it (move it away or choose another --out)")


def _write_temporary(folder: Path, name: str, content: bytes) -> Path:
    handle, partial = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".part")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(content)
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise
    return Path(partial)


def _write_manifest(folder: Path, writer: str, entries: dict[str, list[str]]) -> None:
    partial = _write_temporary(folder, _manifest_path(folder, writer).name,
                               json.dumps(entries, indent=1, sort_keys=True).encode())
    os.replace(partial, _manifest_path(folder, writer))


def _swap(folder: Path, partials: dict[str, Path | None], writer: str, marks: dict) -> None:
    for name, partial in partials.items():
        target = folder / name
        if partial is not None:
            os.replace(partial, target)
        elif target.exists() and owned(target, writer, marks.get(name)):
            target.unlink()  # a stale download of ours: the new build does not link it


def write_owned(folder, files: dict[str, bytes | None], writer: str,
                marks: dict[str, str] | None = None) -> list[Path]:
    """Write a set of generated files into ``folder``, replacing or removing only the writer's own.

    Every target is checked before anything is written; the contents are written to temporaries
    in ``folder`` and renamed over the targets at the end, so an error leaves every file as it was.

    Parameters
    ----------
    folder : str or Path
    files : dict of str to bytes or None
        File name → content; None removes a stale file of the writer's (a user's file of that
        name is left alone).
    writer : str
        The generator's name, used for its manifest and in errors.
    marks : dict of str to str, optional
        File name → the mark its content starts with, for text fragments (owned by their mark).

    Returns
    -------
    list of Path
        The files written, in the order of ``files``.

    Raises
    ------
    ParameterError
        When a target exists and is not the writer's, or is a folder or a link.
    """
    folder, marks = Path(folder), marks or {}
    _check_targets(folder, files, writer, marks)
    folder.mkdir(parents=True, exist_ok=True)
    partials: dict[str, Path | None] = {}
    try:
        for name, content in files.items():
            partials[name] = None if content is None else _write_temporary(folder, name, content)
        listed = {name: content for name, content in files.items() if name not in marks}
        if listed:  # both hashes are listed while the swap runs: an interrupted swap leaves files ours
            _write_manifest(folder, writer, _manifest_entries(folder, writer, listed, during=True))
        _swap(folder, partials, writer, marks)
    except BaseException:
        for partial in partials.values():
            if partial is not None:
                partial.unlink(missing_ok=True)
        raise
    if listed:
        _write_manifest(folder, writer, _manifest_entries(folder, writer, listed, during=False))
    return [folder / name for name, content in files.items() if content is not None]


def _manifest_entries(folder: Path, writer: str, listed: dict, during: bool) -> dict[str, list[str]]:
    """The manifest while the swap runs (old and new hashes) or after it (new hashes only)."""
    entries = {name: hashes for name, hashes in _read_manifest(folder, writer).items()
               if name not in listed or during}
    for name, content in listed.items():
        if content is not None:
            entries[name] = entries.get(name, []) + [hashlib.sha256(content).hexdigest()]
    return entries


def write_generated(text: str, out, mark: str, writer: str) -> Path:
    """Write a generated page fragment atomically, replacing only a file that starts with ``mark``.

    Parameters
    ----------
    text : str
        The content; it should start with ``mark`` so that the next run may replace it.
    out : str or Path
    mark, writer : str
        The first line that identifies the writer's files, and the writer's name (for the error).

    Raises
    ------
    ParameterError
        When ``out`` exists and does not start with ``mark``, is a folder, or cannot be written
        because a parent of it is a file.
    """
    if not isinstance(text, str):
        raise TypeError(f"a generated fragment is text, not {type(text).__name__}")
    target = check_out(out)
    write_owned(target.parent, {target.name: text.encode()}, writer, {target.name: mark})
    return target
