"""The staged real 20-model HELM MMLU response matrix (via the MMLU-Redux repository).

HELM's 5-shot generation prompt, 10 models on all items and 10 on the
MMLU-Redux 2.0 subset: cells a model was not run on stay missing (-1), never
wrong. See ``responses/helm_mmlu_top20_via_mmlu_redux/README.md`` in the data root.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import DataError
from ..paths import data_root
from .checksums import staged_manifest, verify_file
from .responses import ResponseMatrix

__all__ = ["load_helm20"]

HELM_DIR = "responses/helm_mmlu_top20_via_mmlu_redux"


def load_helm20(root: str | Path | None = None) -> ResponseMatrix:
    """Load the 20 × 14,042 HELM matrix with missing cells kept as -1.

    Parameters
    ----------
    root : str or Path, optional
        Data root; defaults to :func:`mmlu_audit.paths.data_root`.
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
