"""The staged real HELM MMLU data: a 20-model item matrix and 79-model subject scores.

``load_helm20``: HELM's 5-shot generation prompt, 10 models on all items and 10 on
the MMLU-Redux 2.0 subset: cells a model was not run on stay missing (-1), never
wrong. See ``responses/helm_mmlu_top20_via_mmlu_redux/README.md`` in the data root.

``load_helm_subjects``: per-subject correct counts of 79 models on all 57 subjects
(HELM release v1.13.0). See ``helm_mmlu_subjects/README.md`` in the data root.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from mmlu_audit.core.errors import DataError
from mmlu_audit.core.paths import data_root
from mmlu_audit.data.checksums import staged_manifest, verify_file
from mmlu_audit.data.responses import ResponseMatrix
from mmlu_audit.data.tables import require_columns

__all__ = ["load_helm20", "load_helm_subjects", "HELM_SUBJECTS_DIR"]

HELM_DIR = "responses/helm_mmlu_top20_via_mmlu_redux"
HELM_SUBJECTS_DIR = "helm_mmlu_subjects"
_SUBJECT_COLUMNS = ("model_id", "subject", "n_items", "n_correct_reconstructed")


def load_helm20(root: str | Path | None = None) -> ResponseMatrix:
    """Load the 20 × 14,042 HELM matrix with missing cells kept as -1.

    Parameters
    ----------
    root : str or Path, optional
        Data root; defaults to :func:`mmlu_audit.core.paths.data_root`.
    """
    root = Path(root) if root is not None else data_root()
    manifest = staged_manifest()
    npz_path = verify_file(root / HELM_DIR / "responses.npz", manifest[f"{HELM_DIR}/responses.npz"])
    csv_path = verify_file(root / HELM_DIR / "models.csv", manifest[f"{HELM_DIR}/models.csv"])
    try:
        with np.load(npz_path, allow_pickle=False) as npz:
            y, subject, row, model_ids = (npz[k] for k in ("Y", "subject", "row_index", "model_ids"))
    except (KeyError, ValueError, OSError) as exc:
        raise DataError(npz_path, f"not the expected npz archive ({exc})") from exc
    table = pd.read_csv(csv_path)
    ids = pd.read_csv(csv_path, usecols=["helm_model_id"], dtype=str, keep_default_na=False)
    table = table.assign(helm_model_id=ids["helm_model_id"]).rename(columns={"helm_model_id": "model_id"})
    table = table.set_index("model_id").loc[list(model_ids)].reset_index()
    item_ids = np.char.add(np.char.add(subject.astype(str), "/"), row.astype(str))
    return ResponseMatrix(
        y.astype(np.int8), table, item_ids, "helm20", False,
        "Real HELM MMLU predictions of 20 frontier models (5-shot generation), "
        "10 of them on the 5,691-item Redux subset only; not the Open LLM Leaderboard.",
    )


def load_helm_subjects(root: str | Path | None = None) -> pd.DataFrame:
    """Load HELM's per-subject MMLU results of 79 models (real, subject level only).

    Parameters
    ----------
    root : str or Path, optional
        Data root; defaults to :func:`mmlu_audit.core.paths.data_root`.

    Returns
    -------
    DataFrame
        One row per (model, subject): ``model_id``, ``subject``, ``n_items``,
        ``n_correct`` (HELM's score times the item count, uniquely determined) and
        ``em``; every model has all 57 subjects with the MMLU item counts.

    Raises
    ------
    DataError
        If a file is missing or altered, or the table is not a complete,
        consistent model × subject grid.
    """
    root = Path(root) if root is not None else data_root()
    manifest = staged_manifest()
    name = f"{HELM_SUBJECTS_DIR}/helm_mmlu_subject_scores.parquet"
    path = verify_file(root / name, manifest[name])
    counts_name = f"{HELM_SUBJECTS_DIR}/helm_mmlu_subject_item_counts.csv"
    counts = pd.read_csv(verify_file(root / counts_name, manifest[counts_name])).set_index("subject")["n_items"]
    try:
        table = pd.read_parquet(path)
    except (OSError, ValueError) as exc:
        raise DataError(path, f"not a readable parquet table ({exc})") from exc
    require_columns(table, _SUBJECT_COLUMNS + ("em",), path)
    table = table.rename(columns={"n_correct_reconstructed": "n_correct"})
    _check_subject_grid(path, table, counts)
    return table[["model_id", "subject", "n_items", "n_correct", "em"]].reset_index(drop=True)


def _check_subject_grid(path, table: pd.DataFrame, counts: pd.Series) -> None:
    """A complete model × subject grid with the published item counts and valid correct counts."""
    from mmlu_audit.core.taxonomy import check_subjects

    check_subjects(table["subject"], str(path))
    if table.duplicated(["model_id", "subject"]).any():
        raise DataError(path, "duplicate (model, subject) rows")
    per_model = table.groupby("model_id")["subject"].nunique()
    if (per_model != len(counts)).any():
        raise DataError(path, f"{int((per_model != len(counts)).sum())} model(s) lack some of the "
                        f"{len(counts)} subjects")
    if not table["n_items"].eq(table["subject"].map(counts)).all():
        raise DataError(path, "item counts differ from helm_mmlu_subject_item_counts.csv")
    if not table["n_correct"].between(0, table["n_items"]).all():
        raise DataError(path, "correct counts outside [0, n_items]")
