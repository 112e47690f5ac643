"""The staged sources of issue 46: lm-eval's 7 open models (RouterDC release) and RouteLLM's 2,
their populations, the four-population pool and the disjoint-population check on replications."""

from __future__ import annotations

import shutil
from itertools import pairwise

import numpy as np
import pandas as pd
import pytest

from mmlu_audit import DataError, data_root, load_responses
from mmlu_audit.core.errors import ParameterError
from mmlu_audit.core.store import file_sha256
from mmlu_audit.core.taxonomy import SUBJECTS
from mmlu_audit.data import router
from mmlu_audit.data.real_pool import (DISJOINT_POPULATIONS, POPULATION_SOURCES, check_disjoint,
                                       model_identities, nested_in, population_models)
from mmlu_audit.data.registry import REAL_SOURCES
from mmlu_audit.data.responses import ResponseMatrix
from mmlu_audit.data.router import (LMEVAL_DIR, ROUTELLM_DIR, load_lmeval7, load_lmeval7_p_gold,
                                    load_routellm2)

_FILES = ("responses.npz", "models.csv", "build_report.json")


@pytest.fixture(scope="module")
def lmeval():
    return load_lmeval7()


@pytest.fixture(scope="module")
def routellm():
    return load_routellm2()


def _published(folder: str) -> pd.DataFrame:
    return pd.read_csv(data_root() / folder / "models.csv")


def test_lmeval7_as_documented(lmeval):
    y = lmeval.responses
    assert lmeval.shape == (7, 14_042) and not lmeval.simulated and lmeval.source == "lmeval7"
    assert (lmeval.observed.sum(axis=1) == 6_118).all()
    assert (lmeval.observed == lmeval.observed[0]).all()  # one item subset for every model
    subjects = {item.split("/")[0] for item in lmeval.item_ids[lmeval.observed[0]]}
    assert subjects == set(SUBJECTS)
    accuracy = lmeval.accuracy()
    assert accuracy.round(4).tolist() == _published(LMEVAL_DIR)["accuracy_observed"].tolist()
    assert accuracy.idxmax() == "meta-llama/Meta-Llama-3-8B" and round(accuracy.max(), 4) == 0.6465
    assert round(accuracy.min(), 4) == 0.5706
    assert [(y == v).sum() for v in (1, 0)] == [25_937, 42_826 - 25_937]


def test_lmeval7_p_gold_follows_the_responses(lmeval):
    p_gold = load_lmeval7_p_gold()
    assert p_gold.shape == (7, 14_042) and list(p_gold.index) == list(lmeval.models["model_id"])
    values = p_gold.to_numpy()
    assert np.array_equal(np.isnan(values), ~lmeval.observed)
    assert (values[lmeval.responses == 0] == 0).all()
    right = values[lmeval.responses == 1]
    assert right.min() >= 0.25 and right.max() <= 1  # the gold option won, so ≥ 1/4 of the mass


def test_routellm2_as_documented(routellm):
    assert routellm.shape == (2, 14_042) and routellm.source == "routellm2"
    unobserved = ~routellm.observed
    assert unobserved.sum(axis=1).tolist() == [13, 13] and (unobserved[0] == unobserved[1]).all()
    accuracy = routellm.accuracy()
    assert list(accuracy.index) == ["mistralai/Mixtral-8x7B-Instruct-v0.1", "gpt-4-1106-preview"]
    assert accuracy.round(3).tolist() == [0.681, 0.806]
    assert (routellm.responses == 1).sum(axis=1).tolist() == _published(ROUTELLM_DIR)["n_correct"].tolist()


@pytest.fixture
def staged_copy(tmp_path):
    """A writable copy of both release folders and the MMLU item table they are checked against."""
    names = [f"{folder}/{name}" for folder in (LMEVAL_DIR, ROUTELLM_DIR) for name in _FILES]
    for relative in names + ["mmlu/test.parquet"]:
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(data_root() / relative, tmp_path / relative)
    return tmp_path


@pytest.mark.parametrize("folder, load", [(LMEVAL_DIR, load_lmeval7), (LMEVAL_DIR, load_lmeval7_p_gold),
                                          (ROUTELLM_DIR, load_routellm2)])
@pytest.mark.parametrize("name", _FILES)
def test_altered_or_missing_files_are_named(staged_copy, folder, load, name):
    path = staged_copy / folder / name
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 1
    path.write_bytes(bytes(raw))
    with pytest.raises(DataError, match=f"{name}: checksum mismatch"):
        load(staged_copy)
    path.unlink()
    with pytest.raises(DataError, match=f"{name}: file not found"):
        load(staged_copy)


def _rewrite(root, folder, monkeypatch, arrays=None, models=None):
    """Write altered content into ``folder`` and trust it in the manifest, so the checks behind
    the checksum are what refuses it."""
    if arrays is not None:
        np.savez(root / folder / "responses.npz", **arrays)
    if models is not None:
        models.to_csv(root / folder / "models.csv", index=False)
    manifest = dict(router.staged_manifest())
    manifest.update({f"{folder}/{n}": file_sha256(root / folder / n) for n in _FILES})
    monkeypatch.setattr(router, "staged_manifest", lambda: manifest)


def _arrays(root, folder):
    with np.load(root / folder / "responses.npz") as npz:
        return {key: npz[key] for key in npz.files}


@pytest.mark.parametrize("change, message", [
    (lambda a: {**a, "Y": a["Y"][:6]}, r"expected 7 × 14,042 responses, found \(6, 14042\)"),
    (lambda a: {**a, "Y": np.where(a["Y"] == 1, 2, a["Y"]).astype(np.int8)}, "25937 non-binary response"),
    (lambda a: {**a, "Y": np.where(a["Y"] == -1, 0, a["Y"]).astype(np.int8)},
     "expected 6,118 observed items per model"),
    (lambda a: {**a, "item_id": a["item_id"][::-1], "subject": a["subject"][::-1],
                "row_index": a["row_index"][::-1]}, "item ids are not the 14,042 MMLU test items"),
    (lambda a: {**a, "item_id": np.roll(a["item_id"], 1)}, "item_id is not subject/row_index"),
    (lambda a: {k: v for k, v in a.items() if k != "subject"}, "not the expected npz archive"),
])
def test_wrong_arrays_are_refused(staged_copy, monkeypatch, change, message):
    _rewrite(staged_copy, LMEVAL_DIR, monkeypatch, arrays=change(_arrays(staged_copy, LMEVAL_DIR)))
    with pytest.raises(DataError, match=f"responses.npz: {message}"):
        load_lmeval7(staged_copy)


def test_wrong_p_gold_is_refused(staged_copy, monkeypatch):
    arrays = _arrays(staged_copy, LMEVAL_DIR)
    p_gold = arrays["p_gold"].copy()
    p_gold[arrays["Y"] == 0] = 0.1  # a probability where the release keeps none
    _rewrite(staged_copy, LMEVAL_DIR, monkeypatch, arrays={**arrays, "p_gold": p_gold})
    load_lmeval7(staged_copy)  # the responses themselves are intact
    with pytest.raises(DataError, match="p_gold is not NaN where unobserved, 0 where wrong"):
        load_lmeval7_p_gold(staged_copy)


@pytest.mark.parametrize("change, message", [
    (lambda t: t.iloc[::-1], "expected model_idx 0..1, one row each"),
    (lambda t: t.assign(n_correct=t["n_correct"] + 1), "n_correct differs from the responses"),
    (lambda t: t.assign(n_observed=14_042), "n_observed differs"),
    (lambda t: t.assign(accuracy_observed=0.5), "accuracy_observed differs"),
    (lambda t: t.drop(columns="model"), r"missing column\(s\) \['model'\]"),
])
def test_models_table_must_match_the_responses(staged_copy, monkeypatch, change, message):
    table = pd.read_csv(staged_copy / ROUTELLM_DIR / "models.csv")
    _rewrite(staged_copy, ROUTELLM_DIR, monkeypatch, models=change(table))
    with pytest.raises(DataError, match=f"models.csv: {message}"):
        load_routellm2(staged_copy)


def test_new_populations_registered_with_their_models(items):
    assert set(POPULATION_SOURCES) <= set(REAL_SOURCES)
    sizes = {"lmeval7": {"lm-eval": 7}, "routellm1": {"RouteLLM": 1}, "routellm2": {"RouteLLM": 2}}
    for source, counts in sizes.items():
        matrix = load_responses(source, items=items)
        assert matrix.source == source and list(matrix.item_ids) == list(items["item_id"])
        assert matrix.models["population"].value_counts().to_dict() == counts
    mixtral = load_responses("routellm1", items=items)
    assert list(mixtral.models["model_id"]) == ["RouteLLM/mistralai/Mixtral-8x7B-Instruct-v0.1"]


def test_the_four_population_pool(items, lmeval):
    pool = load_responses("mmlu_real_all", items=items)
    assert pool.shape == (39, 14_042) and pool.models["model_id"].is_unique
    assert pool.models["population"].value_counts().to_dict() == {
        "HELM": 20, "OpenCompass": 11, "lm-eval": 7, "RouteLLM": 1}
    assert pool.meta["dropped"] == ["OpenCompass/opencompass-03: answers every observed item the same way "
                                    "(no information on b)"]
    rows = pool.models.index[pool.models["population"] == "lm-eval"]
    order = pd.Index(lmeval.item_ids).get_indexer(items["item_id"])
    assert np.array_equal(pool.responses[rows], lmeval.responses[:, order])
    gpt4 = pool.models["model_id"].str.contains("gpt-4-1106-preview")
    assert pool.models.loc[gpt4, "model_id"].tolist() == ["HELM/openai_gpt-4-1106-preview"]  # once
    assert load_responses("mmlu_real", items=items).shape == (31, 14_042)  # the old pool is unchanged


def test_disjoint_populations_are_accepted_and_nested_ones_refused():
    check_disjoint(DISJOINT_POPULATIONS)
    check_disjoint(["mmlu_real", "lmeval7", "routellm1"])
    with pytest.raises(ParameterError, match="'helm10' is nested in 'helm20'"):
        check_disjoint(["helm20", "helm10"])
    with pytest.raises(ParameterError, match="'routellm2' shares models with 'helm20'.*gpt-4-1106-preview"):
        check_disjoint(["routellm2", "helm20"])
    with pytest.raises(ParameterError, match="named twice"):
        check_disjoint(["lmeval7", "lmeval7"])
    with pytest.raises(ParameterError, match="unknown population 'helm99'"):
        check_disjoint(["helm99"])


def test_nesting_by_model_identity():
    chain = ("helm10", "helm20", "mmlu_real", "mmlu_real_all")
    assert all(nested_in(a, b) for a, b in pairwise(chain))
    assert not nested_in("helm20", "helm10") and not nested_in("routellm2", "helm20")
    assert nested_in("routellm2", "mmlu_real_all")  # Mixtral as RouteLLM's, gpt-4-1106-preview as HELM's
    shared = population_models("routellm2") & population_models("helm20")
    assert shared == {"openai/gpt-4-1106-preview"}  # HELM's openai_gpt-4-1106-preview is RouteLLM's model


def test_identities_need_a_population_label():
    y = np.array([[1, 0], [0, 1]], np.int8)
    labelled = pd.DataFrame({"model_id": ["HELM/openai_gpt-4-1106-preview", "RouteLLM/gpt-4-1106-preview"],
                             "population": ["HELM", "RouteLLM"]})
    pair = ResponseMatrix(y, labelled, np.array(["s/0", "s/1"]), "toy", False)
    assert model_identities(pair) == {"openai/gpt-4-1106-preview"}  # one model, two prompts
    bare = ResponseMatrix(y, pd.DataFrame({"model_id": ["a", "b"]}), np.array(["s/0", "s/1"]), "toy", False)
    with pytest.raises(ParameterError, match="source 'toy' has no population label"):
        model_identities(bare)
