"""A refit bootstrap of the interaction model recorded by ``make bench``, read back only for its inputs.

The interval a reader should trust needs a few hundred refits of the interaction model (each a
full SVI fit); a book build cannot afford them. ``bench/bench_interaction_bootstrap.py`` runs
them once for the book's default inputs and records the refits with a key: the SHA-256 of
everything that determines them (the responses, the covariate, the cluster labels, the
specification, the seed and the number of replicates). A chapter computes the key of its own
inputs and uses the record only when the keys agree; otherwise it refits itself.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.core.seeds import check_seed, seeded
from mmlu_audit.core.store import array_digest, atomic_write, cache_key, write_json_atomic

__all__ = ["RECORD_NAME", "bootstrap_key", "read_bootstrap_record", "record_name", "working_stem_inputs",
           "write_bootstrap_record"]

#: File stem of the simulated world's record under the bench results folder (``.csv`` refits,
#: ``.json`` key and settings); another source's record adds its name (:func:`record_name`).
RECORD_NAME = "interaction_bootstrap"

_COLUMNS = ("gamma0", "gamma1", "converged")


@seeded
def bootstrap_key(responses, covariate, spec, *, replicates: int, seed: int, item_clusters=None,
                  row_clusters=None) -> str:
    """SHA-256 of every input of :func:`~mmlu_audit.analyses.modelside.bootstrap_gammas`."""
    return cache_key({"responses": array_digest(np.asarray(responses)),
                      "covariate": array_digest(np.asarray(covariate, float)),
                      "item_clusters": array_digest(None if item_clusters is None
                                                    else np.asarray(item_clusters).astype(str)),
                      "row_clusters": array_digest(None if row_clusters is None
                                                   else np.asarray(row_clusters).astype(str)),
                      "spec": json.loads(spec.to_json()), "replicates": int(replicates),
                      "seed": check_seed(seed)})


def record_name(data_source: str) -> str:
    """The file stem of ``data_source``'s record: :data:`RECORD_NAME`, plus the source unless simulated.

    Each source keeps its own record, so recording the real pool's refits never replaces the
    simulated world's.
    """
    if not isinstance(data_source, str) or not data_source:
        raise ParameterError("data_source", f"needs a source name, got {data_source!r}")
    return RECORD_NAME if data_source == "simulated" else f"{RECORD_NAME}_{data_source.replace('-', '_')}"


def write_bootstrap_record(folder, boot: pd.DataFrame, key: str, meta: dict, name: str = RECORD_NAME) -> Path:
    """Write the refits (``<folder>/<name>.csv``) and their key and settings (``<name>.json``).

    Both files are written atomically, the table first, so a reader never pairs a key with
    another run's refits. ``name`` is the record's file stem (:func:`record_name`).
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    missing = [c for c in _COLUMNS if c not in boot.columns]
    if missing:
        raise DataError("bootstrap refits", f"columns missing: {missing}")
    table = boot[list(_COLUMNS)].reset_index(drop=True)
    atomic_write(folder / f"{name}.csv", lambda tmp: table.to_csv(tmp, index=False))
    payload = meta | {"key": key, "replicates": len(table),
                      "table_digest": array_digest(table[["gamma0", "gamma1"]].to_numpy(float))}
    return write_json_atomic(folder / f"{name}.json", payload, sort_keys=False)


def read_bootstrap_record(folder, key: str, name: str = RECORD_NAME) -> tuple[pd.DataFrame | None, dict]:
    """The recorded refits ``<folder>/<name>.{csv,json}`` if they were made from the inputs ``key`` names.

    Returns
    -------
    (DataFrame or None, dict)
        The refits (``gamma0``, ``gamma1``, ``converged``) and the record's settings, or None and
        ``{"problem": …}`` when there is no record, it was made from other inputs, or its table is
        not the one its key was written with.
    """
    folder = Path(folder)
    meta_path, table_path = folder / f"{name}.json", folder / f"{name}.csv"
    if not (meta_path.is_file() and table_path.is_file()):
        return None, {"problem": "no recorded bootstrap"}
    meta = json.loads(meta_path.read_text())
    if meta.get("key") != key:
        return None, {"problem": "the recorded bootstrap was made from other inputs or settings"}
    table = pd.read_csv(table_path)
    if list(table.columns) != list(_COLUMNS) or len(table) != meta.get("replicates") or \
            array_digest(table[["gamma0", "gamma1"]].to_numpy(float)) != meta.get("table_digest"):
        return None, {"problem": "the recorded refits do not match their key's record"}
    return table.astype({"converged": bool}).rename_axis("replicate"), meta


def working_stem_inputs(inputs) -> dict:
    """What §5.1's bootstrap refits: the STEM items answered by anyone, the models above the floor.

    Parameters
    ----------
    inputs : AnalysisInputs
        :func:`mmlu_audit.analyses.pipeline.analysis_inputs` of the chapter.

    Returns
    -------
    dict
        ``stem`` (item mask), ``stem_matrix``, ``working`` (row mask, by the observable floor
        rule: accuracy over all items), ``working_stem`` (the refitted matrix), ``depth`` (WSCG
        Depth of its items), ``item_clusters`` (their subjects) and ``row_clusters`` (the
        working rows' distinct checkpoints).
    """
    from mmlu_audit.analyses.modelside.sensitivity import column_submatrix
    from mmlu_audit.core.checkpoints import checkpoint_labels
    from mmlu_audit.worlds.calibration import above_floor

    matrix = inputs.matrix
    stem = inputs.frame["stem"].to_numpy(bool) & matrix.observed.any(axis=0)  # HELM leaves some unanswered
    stem_matrix = column_submatrix(matrix, stem)
    working = above_floor(matrix.responses, matrix.observed)
    return {"stem": stem, "stem_matrix": stem_matrix, "working": working,
            "working_stem": stem_matrix.take(rows=np.flatnonzero(working)),
            "depth": inputs.frame.loc[stem, "wscg_depth"].to_numpy(float),
            "item_clusters": inputs.frame.loc[stem, "subject"].to_numpy(),
            "row_clusters": checkpoint_labels(matrix.responses, matrix.models)[working]}
