"""The RouterDC and RouteLLM releases: real per-item MMLU results of 7 and 2 models.

``load_lmeval7``: seven open 7–8B models scored by lm-evaluation-harness, 5-shot
**log-likelihood** over the four letters (the Open LLM Leaderboard v1's protocol), from the
RouterDC release (Chen et al., NeurIPS 2024). Each model is observed on the same random
6,118 items (all 57 subjects); its other 7,924 cells stay missing (-1), never wrong.
See ``responses/routerdc7_lmeval_mmlu/README.md`` in the data root.

``load_routellm2``: Mixtral-8x7B-Instruct-v0.1 and gpt-4-1106-preview from the RouteLLM release
(Ong et al., 2024): 5-shot prompt, one generated letter, 14,029 items (13 left missing).
gpt-4-1106-preview is also one of HELM's models, under another prompt.
See ``responses/routellm2_mmlu/README.md`` in the data root.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from mmlu_audit.core.errors import DataError
from mmlu_audit.core.paths import data_root
from mmlu_audit.data.checksums import staged_manifest, verify_file
from mmlu_audit.data.responses import MISSING, ResponseMatrix, validate_response_values

__all__ = ["LMEVAL_DIR", "ROUTELLM_DIR", "load_lmeval7", "load_lmeval7_p_gold", "load_routellm2"]

LMEVAL_DIR = "responses/routerdc7_lmeval_mmlu"
ROUTELLM_DIR = "responses/routellm2_mmlu"
_FILES = ("responses.npz", "models.csv", "build_report.json")
_N_ITEMS = 14_042
_MODEL_COLUMNS = ("model_idx", "model", "n_observed", "n_correct", "accuracy_observed")
#: folder → (models, items each model was observed on), as the READMEs document them.
_LAYOUT = {LMEVAL_DIR: (7, 6_118), ROUTELLM_DIR: (2, 14_029)}


def load_lmeval7(root: str | Path | None = None) -> ResponseMatrix:
    """The 7 × 14,042 matrix of the RouterDC release, lm-eval 5-shot log-likelihood scoring.

    Parameters
    ----------
    root : str or Path, optional
        Data root; defaults to :func:`mmlu_audit.core.paths.data_root`.

    Returns
    -------
    ResponseMatrix
        Source ``"lmeval7"``; ``model_id`` is the Hugging Face id; 6,118 observed cells per
        model, the rest -1.

    Raises
    ------
    DataError
        If a file is missing or altered, or the arrays or the models table are not as documented.
    """
    release = _load_release(root, LMEVAL_DIR)
    return ResponseMatrix(release.y, release.models, release.item_ids, "lmeval7", False,
                          "Real MMLU results of 7 open 7–8B models (RouterDC release), lm-eval 5-shot "
                          "log-likelihood, on a random 6,118-item subset; other cells missing.")


def load_lmeval7_p_gold(root: str | Path | None = None) -> pd.DataFrame:
    """The normalised gold-option probability of the 7 lm-eval models, where they were right.

    Parameters
    ----------
    root : str or Path, optional
        Data root.

    Returns
    -------
    DataFrame
        Models (``model_id``) × item ids: the probability where the model was right, 0 where
        it was wrong (the release keeps no probability for wrong answers), NaN where unobserved.

    Raises
    ------
    DataError
        As :func:`load_lmeval7`, or if ``p_gold`` disagrees with the responses.
    """
    release = _load_release(root, LMEVAL_DIR, extra=("p_gold",))
    p_gold = release.arrays["p_gold"]
    _check_p_gold(release.path, release.y, p_gold)
    index = pd.Index(release.models["model_id"], name="model_id")
    return pd.DataFrame(p_gold, index=index, columns=release.item_ids)


def load_routellm2(root: str | Path | None = None) -> ResponseMatrix:
    """The 2 × 14,042 matrix of the RouteLLM release (one generated letter after a 5-shot prompt).

    Parameters
    ----------
    root : str or Path, optional
        Data root.

    Returns
    -------
    ResponseMatrix
        Source ``"routellm2"``: Mixtral-8x7B-Instruct-v0.1 and gpt-4-1106-preview, 14,029
        observed cells each (13 items whose text could not be matched are -1).

    Raises
    ------
    DataError
        If a file is missing or altered, or the arrays or the models table are not as documented.
    """
    release = _load_release(root, ROUTELLM_DIR)
    return ResponseMatrix(release.y, release.models, release.item_ids, "routellm2", False,
                          "Real MMLU results of Mixtral-8x7B-Instruct and gpt-4-1106-preview (RouteLLM "
                          "release), one generated letter; gpt-4-1106-preview is also a HELM model.")


class _Release(NamedTuple):
    y: np.ndarray
    item_ids: np.ndarray
    models: pd.DataFrame
    path: Path
    arrays: dict[str, np.ndarray]


def _load_release(root, folder: str, extra: tuple[str, ...] = ()) -> _Release:
    """One release folder, every file verified, the arrays and the models table checked."""
    root = Path(root) if root is not None else data_root()
    manifest = staged_manifest()
    paths = {name: verify_file(root / folder / name, manifest[f"{folder}/{name}"]) for name in _FILES}
    npz_path = paths["responses.npz"]
    arrays = _read_arrays(npz_path, ("Y", "item_id", "subject", "row_index") + extra)
    y = arrays["Y"]
    n_models, n_observed = _LAYOUT[folder]
    _check_responses(npz_path, y, n_models, n_observed)
    item_ids = _check_item_ids(npz_path, arrays, root)
    models = _models_table(paths["models.csv"], y)
    return _Release(y.astype(np.int8), item_ids, models, npz_path, arrays)


def _read_arrays(path: Path, keys: tuple[str, ...]) -> dict[str, np.ndarray]:
    try:
        with np.load(path, allow_pickle=False) as npz:
            return {key: npz[key] for key in keys}
    except (KeyError, ValueError, OSError) as exc:
        raise DataError(path, f"not the expected npz archive ({exc})") from exc


def _check_responses(path: Path, y: np.ndarray, n_models: int, n_observed: int) -> None:
    """Shape models × 14,042, values in {-1, 0, 1}, the documented observed count per model."""
    if y.shape != (n_models, _N_ITEMS):
        raise DataError(path, f"expected {n_models} × {_N_ITEMS:,} responses, found {y.shape}")
    validate_response_values(y, str(path))
    seen = (y != MISSING).sum(axis=1)
    if (seen != n_observed).any():
        raise DataError(path, f"expected {n_observed:,} observed items per model, found {seen.tolist()}")


def _check_item_ids(path: Path, arrays: dict[str, np.ndarray], root: Path) -> np.ndarray:
    """The columns are the 14,042 MMLU items, ``subject/row_index``, in the item table's order."""
    from mmlu_audit.data.items import load_items

    item_ids = arrays["item_id"].astype(str)
    built = np.char.add(np.char.add(arrays["subject"].astype(str), "/"), arrays["row_index"].astype(str))
    if item_ids.shape != built.shape or not np.array_equal(item_ids, built):
        raise DataError(path, "item_id is not subject/row_index for every column")
    expected = load_items(root)["item_id"].to_numpy().astype(str)
    if item_ids.shape != expected.shape or not np.array_equal(item_ids, expected):
        raise DataError(path, "item ids are not the 14,042 MMLU test items in their canonical order")
    return item_ids


def _models_table(path: Path, y: np.ndarray) -> pd.DataFrame:
    """models.csv, one row per response row, its counts equal to the responses'."""
    try:
        table = pd.read_csv(path, dtype={"model": str}, keep_default_na=False)
    except (ValueError, pd.errors.ParserError) as exc:
        raise DataError(path, f"not a readable CSV table ({exc})") from exc
    missing = [c for c in _MODEL_COLUMNS if c not in table.columns]
    if missing:
        raise DataError(path, f"missing column(s) {missing}")
    if len(table) != y.shape[0] or list(table["model_idx"]) != list(range(y.shape[0])):
        raise DataError(path, f"expected model_idx 0..{y.shape[0] - 1}, one row each, in order")
    counts = {"n_observed": (y != MISSING).sum(axis=1), "n_correct": (y == 1).sum(axis=1)}
    for column, values in counts.items():
        if not np.array_equal(table[column].to_numpy(), values):
            raise DataError(path, f"{column} differs from the responses ({values.tolist()})")
    if not np.allclose(table["accuracy_observed"], counts["n_correct"] / counts["n_observed"], atol=1e-4):
        raise DataError(path, "accuracy_observed differs from n_correct / n_observed")
    return table.rename(columns={"model": "model_id"})


def _check_p_gold(path: Path, y: np.ndarray, p_gold: np.ndarray) -> None:
    """NaN exactly where unobserved, 0 where wrong, in (0, 1] where right."""
    if p_gold.shape != y.shape:
        raise DataError(path, f"p_gold has shape {p_gold.shape}, the responses {y.shape}")
    missing = np.isnan(p_gold)
    right = p_gold[y == 1]
    if not np.array_equal(missing, y == MISSING) or (p_gold[y == 0] != 0).any() \
            or not ((right > 0) & (right <= 1)).all():
        raise DataError(path, "p_gold is not NaN where unobserved, 0 where wrong and in (0, 1] where right")
