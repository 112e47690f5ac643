"""The real item-level MMLU populations: HELM, OpenCompass, lm-eval and RouteLLM, and their pools.

Four model populations answered MMLU item by item, each under its own prompt and scoring:

- **HELM** (``load_helm20``): 5-shot generation, 10 models on every item (``helm10``) and 10
  more on the 5,691 MMLU-Redux items only (missing cells elsewhere);
- **OpenCompass** (:func:`load_opencompass12`): 12 anonymous models on every item, from the
  PSN-IRT release; one of them answers every item correctly;
- **lm-eval** (:func:`~mmlu_audit.data.router.load_lmeval7`): 7 open 7–8B models, 5-shot
  log-likelihood (the Open LLM Leaderboard's protocol), on a random 6,118-item subset;
- **RouteLLM** (:func:`~mmlu_audit.data.router.load_routellm2`): Mixtral-8x7B-Instruct and
  gpt-4-1106-preview, one generated letter. gpt-4-1106-preview is also a HELM model: the same
  model under two prompts is one model, so the disjoint population ``routellm1`` keeps Mixtral
  only, and ``routellm2`` serves the prompt comparison alone.

A model that answers every item it saw correctly, or every one wrongly, has no finite 2PL
ability and carries no information on any item's difficulty; :func:`informative_rows` states
that rule and every population below applies it (it drops OpenCompass model 3, by its
responses, not by its index).

How the pool handles several prompting and scoring protocols: each model keeps its own ability
θ_j, so a protocol that makes every item easier or harder for its models (a *source effect in
θ*) is absorbed by those models' θ̂ and leaves the item parameters alone. What the pool cannot
absorb is an item × protocol interaction (an item a prompt makes easy for one population only);
the replication table fits each population separately for that reason, and only populations
that share no model count as replications (:func:`check_disjoint`).
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

__all__ = ["DISJOINT_POPULATIONS", "OPENCOMPASS_DIR", "POPULATION_LABELS", "POPULATION_SOURCES",
           "SAME_MODEL", "check_disjoint", "informative_rows", "load_opencompass12", "load_population",
           "model_identities", "nested_in", "pool_matrices", "population_models"]

OPENCOMPASS_DIR = "responses/opencompass12_psn_irt"
#: The real item-level MMLU populations: source name → banner line.
POPULATION_SOURCES: dict[str, str] = {
    "helm10": "HELM: the 10 models run on every MMLU item (5-shot generation; real)",
    "opencompass11": "OpenCompass: the 11 informative models of the PSN-IRT release, every item (real)",
    "mmlu_real": "The real MMLU pool: HELM's 20 models and OpenCompass's 11 informative models (real)",
    "lmeval7": "lm-eval: 7 open 7–8B models, 5-shot log-likelihood (the Open LLM Leaderboard's protocol), "
               "on a random 6,118-item subset of all 57 subjects; not frontier models (real)",
    "routellm1": "RouteLLM: Mixtral-8x7B-Instruct only (its gpt-4-1106-preview is HELM's); one model, so "
                 "no difficulty estimate on its own, a member of the pool (real)",
    "routellm2": "RouteLLM: Mixtral-8x7B-Instruct and gpt-4-1106-preview, one generated letter; for the "
                 "prompt comparison only, not a replication (shares gpt-4-1106-preview with HELM) (real)",
    "mmlu_real_all": "The real MMLU pool of four disjoint populations: HELM's 20, OpenCompass's 11 "
                     "informative, lm-eval's 7 and RouteLLM's Mixtral; four protocols, not one (real)",
}
#: The populations that share no model: each may stand as its own replication.
DISJOINT_POPULATIONS = ("helm20", "opencompass11", "lmeval7", "routellm1")
#: Each population's label in a pool's ``population`` column.
POPULATION_LABELS = {"helm10": "HELM", "helm20": "HELM", "opencompass11": "OpenCompass",
                     "lmeval7": "lm-eval", "routellm1": "RouteLLM", "routellm2": "RouteLLM"}
#: Which parts each pooled population stacks (keys of :data:`POPULATION_LABELS`).
_COMPOSITION = {"helm10": ("helm10",), "opencompass11": ("opencompass11",),
                "mmlu_real": ("helm20", "opencompass11"), "lmeval7": ("lmeval7",),
                "routellm1": ("routellm1",), "routellm2": ("routellm2",),
                "mmlu_real_all": DISJOINT_POPULATIONS}
#: Models two releases name differently that are one model (same API snapshot), by
#: ``(population label, the release's model id)``. HELM names models ``provider_model``, RouteLLM
#: by the API name alone. No other pair is mapped: HELM's Llama-3-70B and Mixtral-8x22B are other
#: sizes than lm-eval's Llama-3-8B and RouteLLM's Mixtral-8x7B, and OpenCompass's models are
#: anonymous (an overlap with a named model cannot be checked).
SAME_MODEL = {("HELM", "openai_gpt-4-1106-preview"): "openai/gpt-4-1106-preview",
              ("RouteLLM", "gpt-4-1106-preview"): "openai/gpt-4-1106-preview"}
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
    npz_path, csv_path = (verify_file(root / OPENCOMPASS_DIR / name, manifest[f"{OPENCOMPASS_DIR}/{name}"])
                          for name in ("responses.npz", "models.csv"))
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
                          "Real OpenCompass MMLU results of 12 anonymous models (PSN-IRT release), "
                          "every item.")


def informative_rows(matrix: ResponseMatrix) -> np.ndarray:
    """Mask of the models with at least one right and one wrong observed answer.

    A model with none of one kind has no finite 2PL ability and says nothing about which
    items are harder; it is left out of every estimate by this rule, not by its position.
    """
    right = (matrix.responses == 1).any(axis=1)
    wrong = (matrix.responses == 0).any(axis=1)
    return right & wrong


def pool_matrices(parts: Sequence[tuple[str, ResponseMatrix]], source: str,
                  description: str) -> ResponseMatrix:
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


def _load_part(part: str, root) -> ResponseMatrix:
    """The matrix of one part of :data:`_COMPOSITION`, its models as the part defines them."""
    from mmlu_audit.data.helm import load_helm20
    from mmlu_audit.data.router import load_lmeval7, load_routellm2

    if part in ("helm10", "helm20"):
        helm = load_helm20(root)
        if part == "helm20":
            return helm
        return helm.take(rows=helm.models["source"].astype(str).str.contains("helm_full").to_numpy())
    if part == "opencompass11":
        return load_opencompass12(root)
    if part == "lmeval7":
        return load_lmeval7(root)
    routellm = load_routellm2(root)
    if part == "routellm1":
        return routellm.take(rows=(routellm.models["model_id"] != "gpt-4-1106-preview").to_numpy())
    return routellm


def load_population(source: str, root: str | Path | None = None) -> ResponseMatrix:
    """One of the real item-level populations of :data:`POPULATION_SOURCES`.

    Parameters
    ----------
    source : str
        A key of :data:`POPULATION_SOURCES`.
    root : str or Path, optional
        Data root.

    Returns
    -------
    ResponseMatrix
        As :func:`pool_matrices`: each row keeps its ``population`` label
        (:data:`POPULATION_LABELS`).
    """
    if source not in POPULATION_SOURCES:
        raise ParameterError("data_source", f"unknown population {source!r}; choose one of "
                             f"{tuple(POPULATION_SOURCES)}")
    parts = [(POPULATION_LABELS[part], _load_part(part, root)) for part in _COMPOSITION[source]]
    return pool_matrices(parts, source, POPULATION_SOURCES[source])


def model_identities(matrix: ResponseMatrix) -> frozenset[str]:
    """The models of a population's matrix, named so that one model has one name in every release.

    A model is ``label/model id`` (e.g. ``lm-eval/meta-llama/Meta-Llama-3-8B``) unless
    :data:`SAME_MODEL` maps it to a shared name.

    Parameters
    ----------
    matrix : ResponseMatrix
        A matrix of :func:`load_population` (its ``population`` column gives each row's label)
        or of a source named in :data:`POPULATION_LABELS` (``helm20``: label HELM).

    Raises
    ------
    ParameterError
        If the matrix has no ``population`` column and its source has no known label.
    """
    ids = matrix.models["model_id"].astype(str)
    if "population" in matrix.models.columns:
        labels = matrix.models["population"].astype(str)
        raw = [m[len(label) + 1:] for m, label in zip(ids, labels, strict=True)]
    elif matrix.source in POPULATION_LABELS:
        labels, raw = [POPULATION_LABELS[matrix.source]] * len(ids), list(ids)
    else:
        raise ParameterError("matrix", f"source {matrix.source!r} has no population label")
    return frozenset(SAME_MODEL.get((label, m), f"{label}/{m}") for label, m in zip(labels, raw, strict=True))


def population_models(source: str, root: str | Path | None = None) -> frozenset[str]:
    """The models of a registered real population (:func:`model_identities` of its matrix).

    Parameters
    ----------
    source : str
        ``helm20`` or a key of :data:`POPULATION_SOURCES`.
    root : str or Path, optional
        Data root.
    """
    if source in POPULATION_SOURCES:
        return model_identities(load_population(source, root))
    if source == "helm20":  # registered by the registry itself: the HELM matrix as it is
        return model_identities(_load_part(source, root))
    raise ParameterError("populations", f"unknown population {source!r}; choose helm20 or one of "
                         f"{tuple(POPULATION_SOURCES)}")


def nested_in(a: str, b: str, root: str | Path | None = None) -> bool:
    """Whether every model of population ``a`` is also a model of population ``b``.

    E.g. ``helm10`` ⊂ ``helm20`` ⊂ ``mmlu_real`` ⊂ ``mmlu_real_all``; models are compared by
    identity (:func:`model_identities`), so HELM's and RouteLLM's gpt-4-1106-preview are one.
    """
    return population_models(a, root) <= population_models(b, root)


def check_disjoint(populations: Sequence[str], root: str | Path | None = None) -> None:
    """Refuse populations that share a model: nested or overlapping samples are not replications.

    Parameters
    ----------
    populations : sequence of str
        Population names (``helm20`` or keys of :data:`POPULATION_SOURCES`).
    root : str or Path, optional
        Data root.

    Raises
    ------
    ParameterError
        Naming the first pair that shares a model (and whether one is nested in the other).
    """
    models = {name: population_models(name, root) for name in dict.fromkeys(populations)}
    if len(models) < len(populations):
        raise ParameterError("populations", f"a population is named twice in {tuple(populations)}")
    names = list(models)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            if models[a] & models[b]:
                raise ParameterError("populations", _shared_models(a, b, models[a], models[b]))


def _shared_models(a: str, b: str, models_a: frozenset[str], models_b: frozenset[str]) -> str:
    """The sentence saying how two populations share models."""
    shared = models_a & models_b
    if models_b <= models_a:
        a, b, models_a, models_b = b, a, models_b, models_a
    how = "is nested in" if models_a <= models_b else "shares models with"
    return (f"{a!r} {how} {b!r} ({len(shared)} shared model(s), e.g. {min(shared)!r}): "
            "not independent replications")
