"""Fit once, reuse while the inputs are unchanged.

:func:`fit_cached` keys a netCDF file on a SHA-256 of everything that determines a
fit: the response bytes and shape, model and item ids, item inputs, the held-out
mask and the full :class:`IRTSpec` (which includes the seed and step limits). A
book rebuild with the same inputs loads the file instead of refitting.
"""

from __future__ import annotations

import hashlib
import warnings
from pathlib import Path

import numpy as np

from ..paths import cache_root
from .data import _as_response_array
from .engine import fit_irt
from .result import IRTFit
from .spec import IRTSpec

__all__ = ["CACHE_FORMAT", "fit_key", "fit_cached"]

#: Bump when the engine changes in a way that alters results of an unchanged spec.
CACHE_FORMAT = "irt-svi-1"


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
    An unreadable cache file is refitted and overwritten. The stored ``meta`` keeps the
    original wall time; ``meta["cache_key"]`` is added on write.
    """
    spec = spec or IRTSpec()
    inputs = {"item_stem": item_stem, "item_covariate": item_covariate, "holdout": holdout}
    key = fit_key(data, spec, **inputs)
    folder = Path(cache_dir) if cache_dir is not None else cache_root() / "irt"
    path = folder / f"irt-{spec.model}-{key[:20]}.nc"
    if path.exists():
        try:
            return IRTFit.load(path)
        except ValueError as exc:  # DataError: the cache file is unreadable
            warnings.warn(f"{exc}; refitting and overwriting it", stacklevel=2)
    fit = fit_irt(data, spec, progress=progress, **inputs)
    fit.dataset.attrs["cache_key"] = key
    fit.save(path)
    return fit
