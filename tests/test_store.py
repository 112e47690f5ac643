"""core.store: atomic writes and the keyed, versioned, verified cache entry.

Each test states what a hand-rolled write-then-rename or a separator-joined key got
wrong: fixed temporary names two writers share, a temporary file left by a failed
writer, an old file lost to a failed write, keys that collide."""

from __future__ import annotations

import json
import threading

import numpy as np
import pandas as pd
import pytest

from mmlu_audit.core.errors import CacheWarning, DataError
from mmlu_audit.core.store import (CacheEntry, array_digest, atomic_write, cache_key, compute_lock,
                                   write_bytes_atomic,
                                   write_json_atomic)


def _entry(tmp_path, version="v1"):
    return CacheEntry(tmp_path / "thing-abc.bin", cache_key({"name": "thing"}), version)


def test_round_trip_returns_the_content_and_the_stamp(tmp_path):
    entry = _entry(tmp_path)
    entry.write(lambda p: p.write_bytes(b"payload"), {"note": "kept"})
    value, stamp = entry.read(lambda p: p.read_bytes())
    assert value == b"payload" and stamp == {"note": "kept", "cache_key": entry.key}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["thing-abc.bin", "thing-abc.json"]


def test_absent_entry_is_none_without_a_warning(tmp_path, recwarn):
    assert _entry(tmp_path).read(lambda p: p.read_bytes()) is None
    assert not recwarn.list


def test_altered_content_is_warned_and_not_returned(tmp_path):
    entry = _entry(tmp_path)
    entry.write(lambda p: p.write_bytes(b"payload"))
    entry.path.write_bytes(b"payloaD")
    with pytest.warns(CacheWarning, match=r"thing-abc.bin: content hash mismatch.*rebuilding it"):
        assert entry.read(lambda p: p.read_bytes()) is None
    entry.write(lambda p: p.write_bytes(b"payload"))  # the rebuild verifies again
    assert entry.read(lambda p: p.read_bytes())[0] == b"payload"


def test_other_version_or_key_is_warned_and_not_returned(tmp_path):
    _entry(tmp_path, "v1").write(lambda p: p.write_bytes(b"old layout"))
    with pytest.warns(CacheWarning, match=r"cache format 'v1', expected 'v2'"):
        assert _entry(tmp_path, "v2").read(lambda p: p.read_bytes()) is None
    other = CacheEntry(tmp_path / "thing-abc.bin", cache_key({"name": "other"}), "v1")
    with pytest.warns(CacheWarning, match=r"stored cache_key [0-9a-f]{12}… is not the expected"):
        assert other.read(lambda p: p.read_bytes()) is None


def test_unreadable_stamp_is_warned(tmp_path):
    entry = _entry(tmp_path)
    entry.write(lambda p: p.write_bytes(b"payload"))
    entry.stamp_path.write_text("{trunc")
    with pytest.warns(CacheWarning, match=r"thing-abc.json: unreadable stamp file"):
        assert entry.read(lambda p: p.read_bytes()) is None


def test_failed_writer_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "result.json"
    write_json_atomic(target, {"old": 1})

    def explode(tmp):
        tmp.write_text("half")
        raise OSError("disk full")

    with pytest.raises(DataError, match="result.json: could not be written \\(disk full\\)"):
        atomic_write(target, explode)
    assert json.loads(target.read_text()) == {"old": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["result.json"]


def test_atomic_write_makes_an_ordinary_readable_file(tmp_path):
    target = write_bytes_atomic(tmp_path / "sub" / "x.bin", b"abc")
    assert target.read_bytes() == b"abc" and target.stat().st_mode & 0o044  # not mkstemp's 0600


def test_concurrent_writers_of_one_entry_leave_one_valid_entry(tmp_path):
    """A fixed temporary name (``.name.tmp``) let two writers interleave into one file."""
    entry = _entry(tmp_path)
    errors = []

    def writer(tag: int):
        try:
            for _ in range(15):
                entry.write(lambda p: p.write_bytes(bytes([tag]) * 200_000), {"writer": tag})
        except Exception as exc:  # a failure in a thread must fail the test, not vanish
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(tag,)) for tag in (1, 2, 3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    value, stamp = entry.read(lambda p: p.read_bytes())
    assert value == bytes([stamp["writer"]]) * 200_000  # content and stamp from the same writer
    assert sorted(p.name for p in tmp_path.iterdir()) == ["thing-abc.bin", "thing-abc.json"]


def test_keys_are_canonical_and_fields_cannot_run_into_each_other():
    assert cache_key({"a": 1, "b": [1, 2]}) == cache_key({"b": [1, 2], "a": 1})
    assert cache_key(["x\x1fy", "z"]) != cache_key(["x", "y\x1fz"])
    assert cache_key({"a": None}) != cache_key({"a": "None"})


def test_array_digest_tells_dtype_shape_and_text_apart():
    a = np.arange(6, dtype=np.int64)
    assert array_digest(a) == array_digest(a.copy())
    assert array_digest(a) != array_digest(a.reshape(2, 3))
    assert array_digest(a) != array_digest(a.astype(np.int32))
    assert array_digest(np.array(["ab", "c"])) != array_digest(np.array(["a", "bc"]))
    assert array_digest(np.array(["a"], dtype="<U1")) == array_digest(np.array(["a"], dtype="<U9"))
    assert array_digest(None) is None


def test_feature_items_that_collided_through_the_separator_no_longer_do(tmp_path):
    """Two different benchmarks joined to the same U+001F string and so shared a feature cache entry."""
    from mmlu_audit.features import build_feature_table
    from helpers import WhitespaceBackend
    from mmlu_audit.features.table import items_digest

    base = {"item_id": ["x/0"], "choice_b": ["b"], "choice_c": ["c"], "choice_d": ["d"]}
    first = pd.DataFrame({**base, "question": ["Is it red\x1fblue"], "choice_a": ["green"]})
    second = pd.DataFrame({**base, "question": ["Is it red"], "choice_a": ["blue\x1fgreen"]})
    columns = ["item_id", "question", "choice_a", "choice_b", "choice_c", "choice_d"]
    joined = ["\x1f".join(map(str, f[columns].iloc[0])) for f in (first, second)]
    assert joined[0] == joined[1]  # what the old digest hashed
    assert items_digest(first) != items_digest(second)
    backend = WhitespaceBackend()
    one = build_feature_table(first, backend=backend, cache_dir=tmp_path, progress=False)
    timings: dict = {}
    two = build_feature_table(second, backend=backend, cache_dir=tmp_path, progress=False, timings=timings)
    assert timings["from_cache"] is False
    assert one.attrs["provenance"]["cache_key"] != two.attrs["provenance"]["cache_key"]
    assert len(list((tmp_path / "features").glob("*.parquet"))) == 2


def _hold_compute_lock(path, entered, release):
    with compute_lock(path):
        entered.set()
        release.wait(30)


def test_a_second_process_waits_for_the_compute_lock_until_the_first_releases_it(tmp_path):
    """flock is per open file, so the second holder must be another process, as two kernels are."""
    import multiprocessing
    import time

    context = multiprocessing.get_context("spawn")
    entry = tmp_path / "fit.nc"
    first_in, second_in, release_first, release_second = (context.Event() for _ in range(4))
    first = context.Process(target=_hold_compute_lock, args=(entry, first_in, release_first))
    first.start()
    assert first_in.wait(60)
    second = context.Process(target=_hold_compute_lock, args=(entry, second_in, release_second))
    second.start()
    time.sleep(1.0)
    assert not second_in.is_set()  # blocked while the first holds it
    release_first.set()
    assert second_in.wait(60)  # and let in once it is released
    release_second.set()
    for process in (first, second):
        process.join(60)
        assert process.exitcode == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [".fit.nc.lock"]  # the entry itself is not touched


def test_read_or_compute_computes_a_missing_entry_once_and_then_reads_it(tmp_path):
    entry, calls = _entry(tmp_path), []

    def compute():
        calls.append(1)
        return b"payload"

    def store(value):
        entry.write(lambda p: p.write_bytes(value), {"note": "kept"})

    assert entry.read_or_compute(lambda p: p.read_bytes(), compute, store) == (b"payload", None)
    value, stamp = entry.read_or_compute(lambda p: p.read_bytes(), compute, store)
    assert calls == [1] and value == b"payload" and stamp["note"] == "kept"


def test_read_or_compute_reads_what_another_process_wrote_while_it_waited(tmp_path, monkeypatch):
    """The kernel that waited on the compute lock finds the other's entry (written here during
    the wait) and reads it instead of computing it a second time."""
    from contextlib import contextmanager

    from mmlu_audit.core import store as store_module

    entry = _entry(tmp_path)

    @contextmanager
    def other_process_finishes_first(path):
        assert path == entry.path
        entry.write(lambda p: p.write_bytes(b"theirs"), {"by": "other"})
        yield

    monkeypatch.setattr(store_module, "compute_lock", other_process_finishes_first)
    value, stamp = entry.read_or_compute(lambda p: p.read_bytes(),
                                         lambda: pytest.fail("computed although the entry was written"),
                                         lambda value: pytest.fail("stored over the other's entry"))
    assert value == b"theirs" and stamp["by"] == "other"


def test_read_or_compute_warns_once_about_a_bad_entry_and_rebuilds_it(tmp_path):
    entry = _entry(tmp_path)
    entry.write(lambda p: p.write_bytes(b"payload"))
    entry.path.write_bytes(b"payloaD")
    with pytest.warns(CacheWarning) as caught:
        value, stamp = entry.read_or_compute(
            lambda p: p.read_bytes(), lambda: b"rebuilt",
            lambda value: entry.write(lambda p: p.write_bytes(value)))
    assert len(caught) == 1 and (value, stamp) == (b"rebuilt", None)
    assert entry.read(lambda p: p.read_bytes())[0] == b"rebuilt"


@pytest.mark.parametrize("values", [
    np.array(["What is 2 + 2?", "x\x00", "a\x00b", "é" * 300], dtype=object),
    np.array([["q1", "A long question " * 50], ["q2", ""]], dtype=object),
    np.array(["x", 3, None, b"q", 0.1], dtype=object),
    np.array(["ab", "c"], dtype="U3"), np.array([b"ab", b"c\x00"], dtype="S3"),
    np.empty((0, 2), dtype=object)])
def test_text_digest_is_that_of_the_fixed_width_strings(values):
    """The fast paths hash the texts numpy's astype(str) gives (trailing NULs dropped, bytes decoded)."""
    expected = cache_key({"shape": list(values.shape), "text": values.astype(str).ravel().tolist()})
    assert array_digest(values) == expected
