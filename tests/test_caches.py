"""Every cache entry carries its key, a content hash and a format version, and is verified
on read: a bad entry warns once (naming the file and the problem) and is rebuilt.

Each test damages one entry the way a disk, an editor or an old version would — altered
bytes, a foreign key, a truncated file, an old format — and checks warn-and-rebuild."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from mmlu_audit.core.errors import CacheWarning
from mmlu_audit.features import build_feature_table, parse_texts
from helpers import WhitespaceBackend
from mmlu_audit.irt import IRTSpec, fit_cached


# ----------------------------------------------------------------------------- IRT fits


@pytest.fixture(scope="module")
def irt_fitted(tmp_path_factory):
    """One real small fit and its cache file (fitting is the slow part: done once)."""
    y = (np.random.default_rng(4).random((30, 40)) < 0.6).astype(np.int8)
    spec = IRTSpec(max_steps=40, min_steps=20, seed=2)
    folder = tmp_path_factory.mktemp("irt")
    first = fit_cached(y, spec, folder, progress=False)
    (path,) = folder.glob("irt-*.nc")
    return y, spec, first, path.read_bytes(), path.name


@pytest.fixture
def irt_cache(irt_fitted, tmp_path, monkeypatch):
    """A copy of the cached fit in ``tmp_path``; refits return the original fit and are counted."""
    from mmlu_audit.irt import IRTFit, cache

    y, spec, first, payload, name = irt_fitted
    path = tmp_path / name
    path.write_bytes(payload)
    calls = []
    clean = first.dataset.copy(deep=True)
    clean.attrs = {k: v for k, v in clean.attrs.items() if not k.startswith(("cache_", "content_"))}
    monkeypatch.setattr(cache, "fit_irt", lambda *a, **k: calls.append(1) or IRTFit(clean.copy(deep=True)))
    return y, spec, first, path, calls


def _rewrite_netcdf(path, change):
    with xr.open_dataset(path, engine="h5netcdf") as stored:
        dataset = stored.load()
    change(dataset)
    dataset.to_netcdf(path, engine="h5netcdf")


def test_irt_cache_hit_is_verified_and_not_refitted(irt_cache, tmp_path):
    y, spec, first, _path, calls = irt_cache
    again = fit_cached(y, spec, tmp_path, progress=False)
    assert calls == [] and again.b.tolist() == first.b.tolist()


@pytest.mark.parametrize("damage, problem", [
    (lambda d: d.attrs.update(cache_key="0" * 64), "stored cache_key 000000000000… is not the expected"),
    (lambda d: d["b_mean"].values.__setitem__(0, 9.0), "content hash mismatch"),
    (lambda d: d.attrs.update(cache_format="irt-svi-0"), "cache format 'irt-svi-0'"),
    (lambda d: d.attrs.pop("content_sha256"), "no content hash"),
])
def test_irt_cache_bad_entry_warns_and_refits(irt_cache, tmp_path, damage, problem):
    """A foreign key or altered values used to be returned as if they were this fit."""
    y, spec, first, path, calls = irt_cache
    _rewrite_netcdf(path, damage)
    with pytest.warns(CacheWarning, match=rf"{path.name}: {problem}.*refitting") as caught:
        again = fit_cached(y, spec, tmp_path, progress=False)
    assert len(caught) == 1 and calls == [1]
    np.testing.assert_array_equal(again.b, first.b)
    fit_cached(y, spec, tmp_path, progress=False)
    assert calls == [1]  # the rebuilt entry verifies


def test_a_fit_another_kernel_wrote_while_this_one_waited_is_read_not_refitted(irt_cache, tmp_path,
                                                                               monkeypatch):
    """Two chapters of a parallel build that miss one fit compute it once: the one that waited on
    the lock finds the other's file and reads it (here the other kernel writes it during the wait)."""
    from contextlib import contextmanager

    from mmlu_audit.core import store

    y, spec, first, path, calls = irt_cache
    payload = path.read_bytes()
    path.unlink()

    @contextmanager
    def other_kernel_finishes_first(entry):
        assert entry == path
        path.write_bytes(payload)
        yield

    monkeypatch.setattr(store, "compute_lock", other_kernel_finishes_first)
    again = fit_cached(y, spec, tmp_path, progress=False)
    assert calls == [] and again.b.tolist() == first.b.tolist()


def test_a_bad_fit_is_warned_about_once_even_across_the_lock(irt_cache, tmp_path):
    y, spec, _first, path, calls = irt_cache
    path.write_bytes(path.read_bytes()[:200])
    with pytest.warns(CacheWarning) as caught:
        fit_cached(y, spec, tmp_path, progress=False)
    assert len(caught) == 1 and calls == [1]


def test_irt_cache_truncated_file_warns_and_refits(irt_cache, tmp_path):
    y, spec, first, path, calls = irt_cache
    path.write_bytes(path.read_bytes()[:200])
    with pytest.warns(CacheWarning, match="not a readable IRT fit.*refitting"):
        again = fit_cached(y, spec, tmp_path, progress=False)
    assert calls == [1] and again.b.tolist() == first.b.tolist()


# ----------------------------------------------------------------------------- feature tables


def _toy_items() -> pd.DataFrame:
    questions = ["If it rains then roads freeze.", "The apple and the pear.", "Dogs bark loudly."]
    return pd.DataFrame({
        "item_id": [f"toy/{i}" for i in range(3)], "question": questions,
        "choice_a": ["yes", "1", "a"], "choice_b": ["no", "2", "b"],
        "choice_c": ["maybe", "3", "c"], "choice_d": ["never", "4", "d"],
    })


@pytest.fixture
def feature_cache(tmp_path):
    backend = WhitespaceBackend()
    first = build_feature_table(_toy_items(), backend=backend, cache_dir=tmp_path, progress=False)
    (table_path,) = (tmp_path / "features").glob("*.parquet")
    return backend, first, table_path, table_path.with_suffix(".json")


def _feature_damage(kind, table_path, meta_path):
    if kind == "edited":
        table = pd.read_parquet(table_path)
        table.iloc[0, table.columns.get_loc("n_tokens")] += 5
        table.to_parquet(table_path)
    elif kind == "truncated":
        table_path.write_bytes(table_path.read_bytes()[:100])
    elif kind == "foreign_key":
        meta = json.loads(meta_path.read_text())
        meta["cache_key"] = "f" * 64
        meta_path.write_text(json.dumps(meta))
    elif kind == "old_format":
        meta = json.loads(meta_path.read_text())
        meta.pop("cache_format", None)
        meta_path.write_text(json.dumps(meta))
    else:
        meta_path.write_text("{truncated")


@pytest.mark.parametrize("kind, problem", [
    ("edited", "content hash mismatch"), ("truncated", "content hash mismatch"),
    ("foreign_key", "stored cache_key ffffffffffff… is not the expected"),
    ("old_format", "cache format None"), ("bad_meta", "unreadable provenance"),
])
def test_feature_table_bad_entry_warns_and_rebuilds(feature_cache, tmp_path, kind, problem):
    """An edited parquet used to be returned as the feature table."""
    backend, first, table_path, meta_path = feature_cache
    _feature_damage(kind, table_path, meta_path)
    timings: dict = {}
    with pytest.warns(CacheWarning, match=rf"features-.*: {problem}.*rebuilding") as caught:
        again = build_feature_table(_toy_items(), backend=backend, cache_dir=tmp_path, progress=False,
                                    timings=timings)
    assert len(caught) == 1 and timings["from_cache"] is False
    pd.testing.assert_frame_equal(again, first)
    build_feature_table(_toy_items(), backend=backend, cache_dir=tmp_path, progress=False, timings=timings)
    assert timings["from_cache"] is True


# ----------------------------------------------------------------------------- parse cache


TEXTS = ["One two.", "Three four five.", "Six."]


@pytest.fixture
def parse_cache(tmp_path):
    backend = WhitespaceBackend()
    first = parse_texts(TEXTS, backend, cache_dir=tmp_path, progress=False)
    (store,) = tmp_path.glob("*.sqlite")
    return backend, first, store


def test_parse_cache_truncated_file_warns_and_reparses(parse_cache, tmp_path):
    """A truncated store used to raise a raw sqlite3.DatabaseError."""
    backend, first, store = parse_cache
    store.write_bytes(store.read_bytes()[:700])
    with pytest.warns(CacheWarning, match=rf"{store.name}: unreadable parse cache.*rebuilding") as caught:
        again = parse_texts(TEXTS, backend, cache_dir=tmp_path, progress=False)
    assert len(caught) == 1 and backend.calls == 6 and again == first
    assert parse_texts(TEXTS, backend, cache_dir=tmp_path, progress=False) == first and backend.calls == 6
    assert store.with_name(store.name + ".corrupt").exists()  # kept aside, not deleted


@pytest.mark.parametrize("payload", ['{"not": "a parse"', '{"sentences": []}'])
def test_parse_cache_altered_row_warns_and_reparses_that_text(parse_cache, tmp_path, payload):
    """A row with altered bytes used to be decoded (or raise JSONDecodeError)."""
    backend, first, store = parse_cache
    with sqlite3.connect(store) as db:
        db.execute("UPDATE parses SET payload = ? WHERE rowid = 1", (payload,))
    with pytest.warns(CacheWarning, match=rf"{store.name}: 1 entry failed its content hash.*reparsing"):
        again = parse_texts(TEXTS, backend, cache_dir=tmp_path, progress=False)
    assert backend.calls == 4 and again == first


def test_parse_cache_of_another_format_warns_and_rebuilds(parse_cache, tmp_path):
    backend, first, store = parse_cache
    with sqlite3.connect(store) as db:
        db.execute("UPDATE meta SET value = 'parse-0' WHERE name = 'format'")
    with pytest.warns(CacheWarning, match=r"cache format 'parse-0'.*rebuilding"):
        again = parse_texts(TEXTS, backend, cache_dir=tmp_path, progress=False)
    assert backend.calls == 6 and again == first


def test_parse_cache_without_hashes_is_migrated_by_validation(tmp_path):
    """A store from before hashes: rows that decode into valid parses are kept and hashed."""
    backend = WhitespaceBackend()
    store = tmp_path / f"{backend.cache_key}.sqlite"
    good = backend.parse(TEXTS[0])
    from mmlu_audit.features.parse import text_hash

    with sqlite3.connect(store) as db:
        db.execute("CREATE TABLE parses (text_hash TEXT PRIMARY KEY, payload TEXT)")
        db.executemany("INSERT INTO parses VALUES (?, ?)",
                       [(text_hash(TEXTS[0]), good.to_json()), (text_hash(TEXTS[1]), "{broken")])
    with pytest.warns(CacheWarning, match="1 entry failed"):
        docs = parse_texts(TEXTS, backend, cache_dir=tmp_path, progress=False)
    assert backend.calls == 2 and docs[0] == good  # texts 1 (broken) and 2 (absent) parsed


# ----------------------------------------------------------------------------- simulated worlds


@pytest.fixture
def world_cache(small_items, tmp_path, monkeypatch):
    from mmlu_audit import WorldSpec, load_or_simulate
    from mmlu_audit.worlds import simulated

    spec = WorldSpec(n_models=60, n_distinct=50, n_groups=10, covariates="text")
    first = load_or_simulate(spec, 4, small_items, cache_dir=tmp_path)
    (folder,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    calls = []
    real = simulated.simulate_world
    monkeypatch.setattr(simulated, "simulate_world", lambda *a, **k: calls.append(1) or real(*a, **k))
    return spec, first, folder, calls


def _edit_meta(folder, change):
    from mmlu_audit.data.checksums import write_manifest

    meta = json.loads((folder / "meta.json").read_text())
    change(meta)
    (folder / "meta.json").write_text(json.dumps(meta))
    write_manifest(folder, ["responses.npz", "models.csv", "meta.json"])  # a consistent but foreign entry


@pytest.mark.parametrize("damage, problem", [
    (lambda f: f.joinpath("responses.npz").write_bytes(f.joinpath("responses.npz").read_bytes()[:-9]),
     "checksum mismatch"),
    (lambda f: _edit_meta(f, lambda m: m.update(world_key="0" * 16)), "stored world_key 0000000000000000"),
    (lambda f: _edit_meta(f, lambda m: m.pop("world_format")), "world format None"),
    (lambda f: _edit_meta(f, lambda m: m.update(world_format="world-2")), "world format 'world-2'"),
    (lambda f: f.joinpath("manifest.json").write_text("{"), "manifest is not valid"),
])
def test_world_cache_bad_entry_warns_and_rebuilds(world_cache, small_items, tmp_path, damage, problem):
    """A tampered world used to raise (checksums) or, with a consistent manifest, be trusted."""
    from mmlu_audit import load_or_simulate

    spec, first, folder, calls = world_cache
    damage(folder)
    with pytest.warns(CacheWarning, match=rf"{folder.name}.*{problem}.*rebuilding") as caught:
        again = load_or_simulate(spec, 4, small_items, cache_dir=tmp_path)
    assert len(caught) == 1 and calls == [1]
    assert again.matrix.responses.tobytes() == first.matrix.responses.tobytes()
    load_or_simulate(spec, 4, small_items, cache_dir=tmp_path)
    assert calls == [1]
