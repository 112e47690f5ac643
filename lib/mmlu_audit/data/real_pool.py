"""The real item-level MMLU pool: HELM's 20 models and the 11 informative OpenCompass models.

Two model populations answered MMLU item by item and never shared a prompt:

- **HELM** (``load_helm20``): 5-shot generation, 10 models on every item (``helm10``) and 10
  more on the 5,691 MMLU-Redux items only (missing cells elsewhere);
- **OpenCompass** (:func:`load_opencompass12`): 12 anonymous models on every item, from the
  PSN-IRT release; one of them answers every item correctly.

A model that answers every item it saw correctly, or every one wrongly, has no finite 2PL
ability and carries no information on any item's difficulty; :func:`informative_rows` states
that rule and every population below applies it (it drops OpenCompass model 3, by its
responses, not by its index).

How the pool handles two prompting and scoring protocols: each model keeps its own ability
θ_j, so a protocol that makes every item easier or harder for its models (a *source effect in
θ*) is absorbed by those models' θ̂ and leaves the item parameters alone. What the pool cannot
absorb is an item × protocol interaction (an item a prompt makes easy for one population only);
the replication table fits each population separately for that reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.core.paths import data_root
from mmlu_audit.data.checksums import staged_manifest, verify_file
from mmlu_audit.data.responses import ResponseMatrix

__all__ = ["OPENCOMPASS_DIR", "POPULATION_SOURCES", "informative_rows", "load_opencompass12",
           "load_population", "pool_matrices"]

OPENCOMPASS_DIR = "responses/opencompass12_psn_irt"
#: The real item-level MMLU populations: source name → banner line.
POPULATION_SOURCES: dict[str, str] = {
    "helm10": "HELM: the 10 models run on every MMLU item (5-shot generation; real)",
    "opencompass11": "OpenCompass: the 11 informative models of the PSN-IRT release, every item (real)",
    "mmlu_real": "The real MMLU pool: HELM's 20 models and OpenCompass's 11 informative models (real)",
}
_N_ITEMS = 14_042


def load_opencompass12(root: str | Path | None = None) -> ResponseMatrix:
    """The 12 × 14,042 OpenCompass matrix of the PSN-IRT release, all 12 rows kept.

    Parameters
    ----------
    root : str or Path, optional
        Data root; defaults to :func:`mmlu_audit.core.paths.data_root`.

    Raises
    ------
    DataError
        If a file is missing or altered, or the archive does not hold the documented arrays.
    """
    root = Path(root) if root is not None else data_root()
    manifest = staged_manifest()
    npz_path = verify_file(root / OPENCOMPASS_DIR / "responses.npz", manifest[f"{OPENCOMPASS_DIR}/responses.npz"])
    csv_path = verify_file(root / OPENCOMPASS_DIR / "models.csv", manifest[f"{OPENCOMPASS_DIR}/models.csv"])
    try:
        with np.load(npz_path, allow_pickle=False) as npz:
            y, model_idx, item_ids = npz["Y"], npz["model_idx"], npz["item_id"]
    except (KeyError, ValueError, OSError) as exc:
        raise DataError(npz_path, f"not the expected npz archive ({exc})") from exc
    if y.shape != (len(model_idx), len(item_ids)) or len(item_ids) != _N_ITEMS:
        raise DataError(npz_path, f"expected 12 × {_N_ITEMS:,} responses, found {y.shape}")
    if ((y != 0) & (y != 1)).any():
        raise DataError(npz_path, "responses other than 0 and 1 (the release has no missing cells)")
    table = pd.read_csv(csv_path).set_index("model_idx").loc[model_idx.astype(int)].reset_index()
    table.insert(0, "model_id", [f"opencompass-{int(i):02d}" for i in model_idx])
    return ResponseMatrix(y.astype(np.int8), table, item_ids.astype(str), "opencompass12", False,
                          "Real OpenCompass MMLU results of 12 anonymous models (PSN-IRT release), every item.")


def informative_rows(matrix: ResponseMatrix) -> np.ndarray:
    """Mask of the models with at least one right and one wrong observed answer.

    A model with none of one kind has no finite 2PL ability and says nothing about which
    items are harder; it is left out of every estimate by this rule, not by its position.
    """
    right = (matrix.responses == 1).any(axis=1)
    wrong = (matrix.responses == 0).any(axis=1)
    return right & wrong


def pool_matrices(parts: Sequence[tuple[str, ResponseMatrix]], source: str, description: str) -> ResponseMatrix:
    """Stack model populations that answered the same items into one matrix.

    Parameters
    ----------
    parts : sequence of (population, ResponseMatrix)
        Each population's matrix; their item ids must be the same set (columns are aligned to the
        first part's order). Uninformative rows (:func:`informative_rows`) are dropped.
    source, description : str
        The pooled matrix's source name and banner line.

    Returns
    -------
    ResponseMatrix
        Models table with ``model_id`` (``population/model``), ``population``, ``checkpoint``
        (each model its own distinct checkpoint) and ``accuracy``; ``meta["dropped"]`` lists the
        models left out and why.
    """
    if not parts:
        raise ParameterError("parts", "no population to pool")
    columns = parts[0][1].item_ids
    blocks, tables, dropped = [], [], []
    for population, matrix in parts:
        if set(matrix.item_ids) != set(columns):
            raise DataError(population, "its item ids differ from the first population's; pool only "
                            "populations that answered the same items")
        order = pd.Index(matrix.item_ids).get_indexer(columns)
        keep = informative_rows(matrix)
        dropped += [f"{population}/{m}: answers every observed item the same way (no information on b)"
                    for m in matrix.models["model_id"][~keep]]
        accuracy = matrix.accuracy().to_numpy()[keep]
        ids = [f"{population}/{m}" for m in matrix.models["model_id"][keep]]
        blocks.append(matrix.responses[keep][:, order])
        tables.append(pd.DataFrame({"model_id": ids, "population": population, "checkpoint": ids,
                                    "accuracy": accuracy}))
    responses = np.concatenate(blocks, axis=0).astype(np.int8)
    return ResponseMatrix(responses, pd.concat(tables, ignore_index=True), np.asarray(columns), source, False,
                          description, {"dropped": dropped, "populations": [p for p, _ in parts]})


def _helm_parts(root, full_only: bool) -> tuple[str, ResponseMatrix]:
    from mmlu_audit.data.helm import load_helm20

    helm = load_helm20(root)
    if full_only:
        full = helm.models["source"].astype(str).str.contains("helm_full").to_numpy()
        helm = helm.take(rows=full)
    return "HELM", helm


def load_population(source: str, root: str | Path | None = None) -> ResponseMatrix:
    """One of the real item-level populations of :data:`POPULATION_SOURCES`.

    Parameters
    ----------
    source : {"helm10", "opencompass11", "mmlu_real"}
    root : str or Path, optional
        Data root.
    """
    if source not in POPULATION_SOURCES:
        raise ParameterError("data_source", f"unknown population {source!r}; choose one of "
                             f"{tuple(POPULATION_SOURCES)}")
    parts = []
    if source in ("helm10", "mmlu_real"):
        parts.append(_helm_parts(root, full_only=source == "helm10"))
    if source in ("opencompass11", "mmlu_real"):
        parts.append(("OpenCompass", load_opencompass12(root)))
    return pool_matrices(parts, source, POPULATION_SOURCES[source])
