"""Fit once, reuse while the inputs are unchanged.

:func:`fit_cached` keys a netCDF file on a SHA-256 of everything that determines a
fit: the response bytes and shape, model and item ids, item inputs, the held-out
mask and the full :class:`IRTSpec` (which includes the seed and step limits). A
book rebuild with the same inputs loads the file instead of refitting.

Each file carries its key (``cache_key``), the format (``cache_format``) and a
SHA-256 of its variables' values (``content_sha256``); all three are checked on
every read, and a file that fails any check is refitted with one
:class:`~mmlu_audit.core.errors.CacheWarning`.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from mmlu_audit.core.errors import DataError, warn_bad_cache
from mmlu_audit.core.paths import cache_root, writable_folder
from mmlu_audit.irt.data import _as_response_array
from mmlu_audit.irt.engine import fit_irt
from mmlu_audit.irt.result import IRTFit
from mmlu_audit.irt.spec import IRTSpec

__all__ = ["CACHE_FORMAT", "content_digest", "fit_key", "fit_cached"]

#: Bump when the engine or the file layout changes in a way that alters a stored fit.
CACHE_FORMAT = "irt-svi-3"  # 3: free 2D ability SDs, identified interaction, Laplace scalar SDs


def _update_with_array(digest, name: str, values) -> None:
    """Feed a named array (or None) into the hash."""
    digest.update(name.encode())
    if values is None:
        digest.update(b"<none>")
        return
    values = np.ascontiguousarray(values)
    digest.update(f"{values.dtype.str}{values.shape}".encode())
    digest.update(values.astype(str).tobytes() if values.dtype.kind in "OU" else values.tobytes())


def fit_key(data, spec: IRTSpec, *, item_stem=None, item_covariate=None, holdout=None) -> str:
    """SHA-256 hex digest identifying a fit's inputs."""
    responses, model_ids, item_ids = _as_response_array(data)
    digest = hashlib.sha256(CACHE_FORMAT.encode())
    digest.update(spec.to_json().encode())
    for name, values in (("responses", responses), ("model_ids", model_ids),
                         ("item_ids", item_ids), ("item_stem", item_stem),
                         ("item_covariate", item_covariate),
                         ("holdout", None if holdout is None else np.packbits(holdout))):
        _update_with_array(digest, name, values)
    return digest.hexdigest()


def content_digest(dataset) -> str:
    """SHA-256 over every variable and coordinate of a fit's dataset (names, dtypes, shapes, values)."""
    digest = hashlib.sha256()
    for name in sorted(map(str, dataset.variables)):
        _update_with_array(digest, name, dataset[name].values)
    return digest.hexdigest()


def _verified(path: Path, key: str) -> IRTFit | None:
    """The stored fit if it is readable and carries this key, this format and its own hash."""
    try:
        fit = IRTFit.load(path)
    except DataError as exc:
        warn_bad_cache(path, exc.problem, "refitting it")
        return None
    attrs = fit.dataset.attrs
    problem = None
    if attrs.get("cache_format") != CACHE_FORMAT:
        problem = f"cache format {attrs.get('cache_format')!r}, expected {CACHE_FORMAT!r}"
    elif attrs.get("cache_key") != key:
        problem = f"stored cache_key {str(attrs.get('cache_key'))[:12]}… is not the expected {key[:12]}…"
    elif "content_sha256" not in attrs:
        problem = "no content hash"
    elif attrs["content_sha256"] != content_digest(fit.dataset):
        problem = "content hash mismatch (the stored values were altered)"
    if problem:
        warn_bad_cache(path, problem, "refitting it")
        return None
    return fit


def fit_cached(data, spec: IRTSpec | None = None, cache_dir: str | Path | None = None, *,
               item_stem=None, item_covariate=None, holdout=None,
               progress: bool = True) -> IRTFit:
    """Return the fit of ``spec`` on ``data``, from ``cache_dir`` when already computed.

    Parameters
    ----------
    data, spec, item_stem, item_covariate, holdout, progress
        As for :func:`mmlu_audit.irt.fit_irt`.
    cache_dir : str or Path, optional
        Folder of ``irt-<model>-<key>.nc`` files; defaults to ``cache_root() / "irt"``.

    Notes
    -----
    A cache file that is unreadable, carries another key or format, or fails its
    content hash is refitted and overwritten, with one
    :class:`~mmlu_audit.core.errors.CacheWarning`. The stored ``meta`` keeps the original
    wall time; the ``cache_key``, ``cache_format`` and ``content_sha256`` attributes
    are added on write.
    """
    spec = spec or IRTSpec()
    inputs = {"item_stem": item_stem, "item_covariate": item_covariate, "holdout": holdout}
    key = fit_key(data, spec, **inputs)
    folder = Path(cache_dir) if cache_dir is not None else cache_root() / "irt"
    path = writable_folder(folder, "IRT cache folder") / f"irt-{spec.model}-{key[:20]}.nc"
    if path.exists():
        cached = _verified(path, key)
        if cached is not None:
            return cached
    fit = fit_irt(data, spec, progress=progress, **inputs)
    fit.dataset.attrs.update(cache_key=key, cache_format=CACHE_FORMAT,
                             content_sha256=content_digest(fit.dataset))
    fit.save(path)
    return fit
