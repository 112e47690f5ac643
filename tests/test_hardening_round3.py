"""Issue 39 (hardening, round three): order invariance, bounds that bind, validation before work,
memory-bounded duplicates and nothing left behind by an interrupted run.

Each test names the finding it covers and fails on d578694.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest

from mmlu_audit.irt import IRTSpec, fit_irt
from mmlu_audit.irt.engine import chunk_lengths


def _random_responses(n_models: int = 60, n_items: int = 80, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    theta, b = rng.normal(size=(n_models, 1)), rng.normal(size=(1, n_items))
    return (rng.random((n_models, n_items)) < 1 / (1 + np.exp(-(theta - b)))).astype(np.int8)


# ------------------------------------------------------------------ max_steps binds whatever chunk is


def test_max_steps_binds_a_chunk_longer_than_it():
    """Before: ``chunk=10**6`` ran (and reported) 1,000,000 steps; now at most ``max_steps``."""
    fit = fit_irt(_random_responses(), IRTSpec(max_steps=300, chunk=10**6, min_steps=0), progress=False)
    assert fit.meta["steps"] <= 300


def test_max_steps_binds_when_not_a_multiple_of_chunk():
    """Before: ``max_steps=40, chunk=25`` ran two whole chunks, 50 steps."""
    fit = fit_irt(_random_responses(), IRTSpec(max_steps=40, chunk=25, min_steps=1000), progress=False)
    assert fit.meta["steps"] == 40


@pytest.mark.parametrize("max_steps, chunk, lengths", [(300, 10**6, [300]), (40, 25, [25, 15]),
                                                       (50, 25, [25, 25]), (1, 25, [1])])
def test_chunk_lengths_sum_to_max_steps(max_steps, chunk, lengths):
    assert chunk_lengths(max_steps, chunk) == lengths


# ------------------------------------------------------------- book.build: validation before any kernel


def _build_refused(capsys, monkeypatch, argv) -> str:
    """Run book.build with kernels forbidden; it must exit 2 with one line."""
    from mmlu_audit.book import build as bookbuild

    def no_kernel(*_args, **_kwargs):
        raise AssertionError("a kernel was started")

    monkeypatch.setattr(bookbuild, "execute_all", no_kernel)
    start = time.perf_counter()
    assert bookbuild.main(argv) == 2
    assert time.perf_counter() - start < 30
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    return err


def test_build_refuses_a_wrong_typed_parameter_before_any_kernel(capsys, monkeypatch, tmp_path):
    """Before: ``05 --fast -p n_boot '"abc"'`` ran the chapter and failed inside it (exit 1, 187 s)."""
    err = _build_refused(capsys, monkeypatch, ["05", "--fast", "-p", "n_boot", '"abc"',
                                               "--out", str(tmp_path / "x")])
    assert "'n_boot'" in err and "an integer" in err and "'abc'" in err


@pytest.mark.parametrize("value", ["true", "2.5", "[1]"])
def test_build_refuses_a_bool_float_or_list_for_an_integer_parameter(capsys, monkeypatch, tmp_path, value):
    err = _build_refused(capsys, monkeypatch, ["05", "-p", "n_boot", value, "--out", str(tmp_path / "x")])
    assert "'n_boot'" in err


def test_build_refuses_an_unregistered_data_source_before_any_kernel(capsys, monkeypatch, tmp_path):
    """Before: an unknown ``--data-source`` failed inside the chapter's kernel (exit 1)."""
    err = _build_refused(capsys, monkeypatch, ["05", "--data-source", "helm21", "--out", str(tmp_path / "x")])
    assert "'helm21'" in err and "mmlu_real" in err  # the registry's names, read at run time


def test_build_accepts_a_source_registered_at_run_time(monkeypatch):
    from mmlu_audit.book.build import check_data_source
    from mmlu_audit.data import registry

    monkeypatch.setitem(registry.REAL_SOURCES, "just_added", registry.REAL_SOURCES["helm20"])
    assert check_data_source("just_added") == "just_added"


@pytest.mark.parametrize("text, problem", [("9" * 5000, "4300 digits"), ("[" * 5000 + "]" * 5000, "nested")])
def test_build_refuses_unreadable_json_values_in_one_line(capsys, monkeypatch, tmp_path, text, problem):
    """Before: a 5,000-digit integer or 5,000-deep nesting raised a raw ValueError / RecursionError."""
    err = _build_refused(capsys, monkeypatch, ["05", "-p", "n_boot", text, "--out", str(tmp_path / "x")])
    assert problem in err


# ------------------------------------------------------------------ memory-bounded duplicate detection


def _random_duplicates(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    stems = ["What is x?", "  what IS x? ", "Name a prime.", "Other.", "Unique " + "y" * 3]
    pool = ["1", "2", "3", "4", "5"]
    options = [list(rng.choice(pool, size=rng.integers(2, 6), replace=False)) for _ in range(n)]
    return pd.DataFrame({"item_id": [f"q{k}" for k in rng.permutation(n)],
                         "question": [stems[k] for k in rng.integers(0, len(stems), n)],
                         "options": options})


@pytest.mark.parametrize("seed", range(5))
def test_duplicate_summary_equals_the_pairs_it_replaces(seed):
    """The bounded path gives the audit's columns and counts exactly as the pairwise one did."""
    from mmlu_audit.features.duplicates import (RELATIONS, duplicate_columns, duplicate_pairs,
                                                duplicate_summary)

    items = _random_duplicates(60, seed)
    pairs = duplicate_pairs(items)
    columns, counts = duplicate_summary(items)
    pd.testing.assert_frame_equal(columns, duplicate_columns(pairs, items["item_id"]))
    assert counts == {relation: int((pairs["relation"] == relation).sum()) for relation in RELATIONS}


def test_four_thousand_items_of_one_stem_audit_fast_in_bounded_memory(tmp_path):
    """Before: ``duplicate_pairs`` built all 8 million pairs (2.6 GB at 4,000 items; 12,000 were killed).

    The audit runs in a child process so its peak resident memory is its own.
    """
    rows = [{"id": f"q{k}", "question": "Which of these is the same question?",
             "options": [f"a{k % 7}", f"b{k % 5}", "c", "d"][: 2 + k % 3], "answer": "A"}
            for k in range(4000)]
    items = tmp_path / "same_stem.jsonl"
    items.write_text("".join(json.dumps(row) + "\n" for row in rows))
    script = ("import resource, sys\nfrom mmlu_audit.audit import run_audit\n"
              "run_audit(sys.argv[1], sys.argv[2], progress=False)\n"
              "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n")
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", script, str(items), str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=300, env=os.environ.copy())
    seconds = time.perf_counter() - start
    assert done.returncode == 0, done.stderr[-2000:]
    peak_mb = int(done.stdout.split()[-1]) / 1024
    assert seconds < 60 and peak_mb < 1024, (seconds, peak_mb)
    meta = json.loads((tmp_path / "out" / "audit.json").read_text())
    assert sum(meta["same_stem_pairs"].values()) == 4000 * 3999 // 2
