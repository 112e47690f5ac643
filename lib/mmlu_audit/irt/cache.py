"""Fit once, reuse while the inputs are unchanged.

:func:`fit_cached` keys a netCDF file on :func:`~mmlu_audit.core.store.cache_key` of
everything that determines a fit: the responses, model and item ids, item inputs and
the held-out mask (each by :func:`~mmlu_audit.core.store.array_digest`) and the full
:class:`IRTSpec` (which includes the seed and step limits). A book rebuild with the
same inputs loads the file instead of refitting.

Each file carries its key (``cache_key``), the format (``cache_format``) and a
SHA-256 of its variables' values (``content_sha256``); all three are checked on
every read (:func:`~mmlu_audit.core.store.stamp_problem`), and a file that fails any
check is refitted with one :class:`~mmlu_audit.core.errors.CacheWarning`.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from mmlu_audit.core.errors import DataError, warn_bad_cache
from mmlu_audit.core.paths import cache_root
from mmlu_audit.core.store import array_digest, cache_key, compute_once, stamp_problem
from mmlu_audit.irt.data import _as_response_array
from mmlu_audit.irt.engine import fit_irt
from mmlu_audit.irt.result import IRTFit
from mmlu_audit.irt.spec import IRTSpec

__all__ = ["CACHE_FORMAT", "content_digest", "fit_key", "fit_cached"]

#: Bump when the engine or the file layout changes in a way that alters a stored fit.
#: 3: canonical keys; 4: free 2D ability SDs, identified interaction, Laplace scalar SDs;
#: 5: the interaction model's θ location and scale set at their optimum (interaction_gauge_step);
#: 7: the likelihood in blocks of rows on a CPU, the logistic cells in closed form (the estimates
#: move at float rounding; 6 named a closed form that was retired, so its old entries stay unread);
#: 8: the cells' sum by matrix-vector products, log(1 + e) in the logistic cells (the stored ELBO
#: moves at float rounding, and with it, rarely, the step the stopping rule picks; the gradients do not)
CACHE_FORMAT = "irt-svi-8"

#: Version of the likelihood with a guessing floor (3PL, interaction), keyed only into those
#: fits so the 2PL, Rasch and 2D fits, whose arithmetic did not change, keep their keys.
#: 2: its gradient in closed form (the estimates move at float rounding);
#: 3: one exp and one log per cell (the estimates move at float rounding).
GUESSING_LIKELIHOOD = 3


def fit_key(data, spec: IRTSpec, *, item_stem=None, item_covariate=None, holdout=None) -> str:
    """SHA-256 hex digest identifying a fit's inputs."""
    responses, model_ids, item_ids = _as_response_array(data)
    holdout = None if holdout is None else np.asarray(holdout, bool)
    inputs = {"format": CACHE_FORMAT, "spec": json.loads(spec.to_json()),
              "responses": array_digest(responses), "model_ids": array_digest(model_ids),
              "item_ids": array_digest(item_ids), "item_stem": array_digest(item_stem),
              "item_covariate": array_digest(item_covariate), "holdout": array_digest(holdout)}
    if spec.has_guessing:
        inputs["guessing_likelihood"] = GUESSING_LIKELIHOOD
    return cache_key(inputs)


def content_digest(dataset) -> str:
    """SHA-256 over every variable and coordinate of a fit's dataset (names, dtypes, shapes, values)."""
    return cache_key({str(name): array_digest(dataset[name].values) for name in dataset.variables})


def _verified(path: Path, key: str) -> IRTFit | None:
    """The stored fit if it is readable and carries this key, this format and its own hash."""
    try:
        fit = IRTFit.load(path)
    except DataError as exc:
        warn_bad_cache(path, exc.problem, "refitting it")
        return None
    problem = stamp_problem(fit.dataset.attrs, key=key, version=CACHE_FORMAT,
                            digest=lambda: content_digest(fit.dataset))
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
    A valid cached fit is read even where the folder is read-only; the folder must be
    writable only when a fit has to be computed and stored (checked before fitting).
    A cache file that is unreadable, carries another key or format, or fails its
    content hash is refitted and overwritten, with one
    :class:`~mmlu_audit.core.errors.CacheWarning`. The stored ``meta`` keeps the original
    wall time; the ``cache_key``, ``cache_format`` and ``content_sha256`` attributes
    are added on write. Kernels that miss the same fit at once compute it once: the others wait
    for it (:func:`~mmlu_audit.core.store.compute_once`) and read the file it wrote.
    """
    spec = spec or IRTSpec()
    inputs = {"item_stem": item_stem, "item_covariate": item_covariate, "holdout": holdout}
    key = fit_key(data, spec, **inputs)
    folder = Path(cache_dir) if cache_dir is not None else cache_root(writable=False) / "irt"
    path = folder / f"irt-{spec.model}-{key[:20]}.nc"

    def refit() -> IRTFit:
        fit = fit_irt(data, spec, progress=progress, **inputs)
        fit.dataset.attrs.update(cache_key=key, cache_format=CACHE_FORMAT,
                                 content_sha256=content_digest(fit.dataset))
        fit.save(path)
        return fit

    # a valid fit is read even from a read-only (shared, archived) cache; kernels missing it
    # at once fit it once, the others wait and read its file
    return compute_once(path, lambda: _verified(path, key), refit, "IRT cache folder")
