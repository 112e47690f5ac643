"""sha256 verification of every data file before it is read."""

from __future__ import annotations

import hashlib
import io
import json
from functools import lru_cache
from pathlib import Path

import pandas as pd

from mmlu_audit.core.errors import DataError
from mmlu_audit.core.store import file_sha256, write_json_atomic

__all__ = ["staged_manifest", "verify_file", "write_manifest", "read_manifest", "read_parquet"]

@lru_cache(maxsize=1)
def staged_manifest() -> dict[str, str]:
    """Return ``{relative path: sha256}`` for the staged files shipped with the package."""
    text = (Path(__file__).with_name("manifest.json")).read_text()
    return dict(json.loads(text)["files"])


def verify_file(path: str | Path, expected_sha256: str) -> Path:
    """Check that ``path`` exists and has the expected sha256; return it as a Path.

    The file is hashed on every call: a memo keyed on path, size and mtime let a same-size
    edit within one mtime tick pass unchecked, and the staged files hash in milliseconds.

    Raises
    ------
    DataError
        If the file is missing or its checksum differs.
    """
    path = Path(path)
    if not path.is_file():
        raise DataError(path, "file not found")
    _check_digest(path, file_sha256(path), expected_sha256)
    return path


def _check_digest(path: Path, actual: str, expected: str) -> None:
    if actual != expected:
        raise DataError(path, f"checksum mismatch (expected sha256 {expected[:12]}…, got "
                        f"{actual[:12]}…); the file is corrupt or not the published version")


def write_manifest(folder: str | Path, names: list[str]) -> Path:
    """Write ``manifest.json`` in ``folder`` with the sha256 of each named file."""
    folder = Path(folder)
    files = {name: file_sha256(folder / name) for name in sorted(names)}
    target = folder / "manifest.json"
    return write_json_atomic(target, {"files": files}, sort_keys=False)


def read_manifest(folder: str | Path) -> dict[str, str]:
    """Read ``folder/manifest.json`` as ``{name: sha256}``."""
    target = Path(folder) / "manifest.json"
    if not target.is_file():
        raise DataError(target, "manifest not found; the cache is incomplete, delete the folder")
    try:
        return dict(json.loads(target.read_text())["files"])
    except (json.JSONDecodeError, KeyError) as exc:
        raise DataError(target, f"manifest is not valid ({exc})") from exc


def read_parquet(path: str | Path, expected_sha256: str | None) -> pd.DataFrame:
    """Read a Parquet file after checking its sha256 (when one is known).

    Raises
    ------
    DataError
        If the file is missing, fails its checksum or is not readable Parquet.
    """
    path = Path(path)
    if not path.is_file():
        raise DataError(path, "file not found")
    content = path.read_bytes()  # hash and parse the same bytes: no edit can slip in between
    if expected_sha256 is not None:
        _check_digest(path, hashlib.sha256(content).hexdigest(), expected_sha256)
    try:
        return pd.read_parquet(io.BytesIO(content))
    except Exception as exc:  # pyarrow raises several unrelated types for corrupt files
        raise DataError(path, f"not a readable Parquet file ({type(exc).__name__}: {exc})") from exc
