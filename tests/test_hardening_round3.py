"""Issue 39 (hardening, round three): order invariance, bounds that bind, validation before work,
memory-bounded duplicates and nothing left behind by an interrupted run.

Each test names the finding it covers and fails on d578694.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import time
import warnings
from contextlib import contextmanager
from pathlib import Path

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
    """Before: ``06 --fast -p n_boot '"abc"'`` ran the chapter and failed inside it (exit 1, 187 s)."""
    err = _build_refused(capsys, monkeypatch, ["06", "--fast", "-p", "n_boot", '"abc"',
                                               "--out", str(tmp_path / "x")])
    assert "'n_boot'" in err and "an integer" in err and "'abc'" in err


@pytest.mark.parametrize("value", ["true", "2.5", "[1]"])
def test_build_refuses_a_bool_float_or_list_for_an_integer_parameter(capsys, monkeypatch, tmp_path, value):
    err = _build_refused(capsys, monkeypatch, ["06", "-p", "n_boot", value, "--out", str(tmp_path / "x")])
    assert "'n_boot'" in err


def test_build_refuses_an_unregistered_data_source_before_any_kernel(capsys, monkeypatch, tmp_path):
    """Before: an unknown ``--data-source`` failed inside the chapter's kernel (exit 1)."""
    err = _build_refused(capsys, monkeypatch, ["06", "--data-source", "helm21", "--out", str(tmp_path / "x")])
    assert "'helm21'" in err and "mmlu_real" in err  # the registry's names, read at run time


def test_build_accepts_a_source_registered_at_run_time(monkeypatch):
    from mmlu_audit.book.build import check_data_source
    from mmlu_audit.data import registry

    monkeypatch.setitem(registry.REAL_SOURCES, "just_added", registry.REAL_SOURCES["helm20"])
    assert check_data_source("just_added") == "just_added"


@pytest.mark.parametrize("text, problem", [("9" * 5000, "4300 digits"), ("[" * 5000 + "]" * 5000, "nested")])
def test_build_refuses_unreadable_json_values_in_one_line(capsys, monkeypatch, tmp_path, text, problem):
    """Before: a 5,000-digit integer or 5,000-deep nesting raised a raw ValueError / RecursionError."""
    err = _build_refused(capsys, monkeypatch, ["06", "-p", "n_boot", text, "--out", str(tmp_path / "x")])
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

    The audit runs in a child process so its peak resident memory is its own: read as VmHWM,
    which starts afresh at exec, not ``ru_maxrss``, which Linux carries over from the forked
    copy of this worker (1.4 GB once earlier tests had loaded torch and spaCy here).
    """
    rows = [{"id": f"q{k}", "question": "Which of these is the same question?",
             "options": [f"a{k % 7}", f"b{k % 5}", "c", "d"][: 2 + k % 3], "answer": "A"}
            for k in range(4000)]
    items = tmp_path / "same_stem.jsonl"
    items.write_text("".join(json.dumps(row) + "\n" for row in rows))
    script = ("import re, sys\nfrom pathlib import Path\nfrom mmlu_audit.audit import run_audit\n"
              "run_audit(sys.argv[1], sys.argv[2], progress=False)\n"
              "print(re.search(r'VmHWM:\\s*(\\d+) kB', Path('/proc/self/status').read_text()).group(1))\n")
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", script, str(items), str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=300, env=os.environ.copy())
    seconds = time.perf_counter() - start
    assert done.returncode == 0, done.stderr[-2000:]
    peak_mb = int(done.stdout.split()[-1]) / 1024
    assert seconds < 60 and peak_mb < 1024, (seconds, peak_mb)
    meta = json.loads((tmp_path / "out" / "audit.json").read_text())
    assert sum(meta["same_stem_pairs"].values()) == 4000 * 3999 // 2


# ------------------------------------------------------------------------ the same answer in any order

FIXTURE = Path(__file__).parent / "fixtures" / "benchmark" / "tiny.jsonl"
#: audit.json fields that name or hash the input file or time the run: the only ones that may differ.
_PER_FILE = {"items_file", "items_sha256", "responses_file", "responses_sha256", "seconds"}


def _order_rows() -> tuple[list[dict], list[dict]]:
    """The fixture's items (numeric and text ids mixed) and answers of five models.

    ``m_b`` and ``m_a`` are equally accurate and tie for the last seat of a k = 3 panel: the
    stated rule gives it to ``m_a``, the name that sorts first, whichever row comes first.
    """
    items = [json.loads(line) for line in FIXTURE.read_text().splitlines() if line.strip()]
    for row, item_id in zip(items, ["q1", "10", "9", "q10", "b", "A"], strict=False):
        row["id"] = item_id
    for row in items:  # one type per column, as Parquet needs
        row["answer"] = "ABCDEFGHIJ"[row["answer"]] if isinstance(row["answer"], int) else row["answer"]
    keys = {row["id"]: "ABCDEFGHIJ".index(row["answer"]) for row in items}
    wrong = {"m_top": 0, "m_two": 0, "m_b": 2, "m_a": 2, "m_low": 4}
    answers = []
    for model, n_wrong in wrong.items():
        for k, (item_id, key) in enumerate(keys.items()):
            choice = key if k >= n_wrong else (key + 1 + (model == "m_b")) % 4
            answers.append({"model": model, "id": item_id, "choice": "ABCD"[choice]})
    return items, answers


def _write(rows: list[dict], path: Path, rng: np.random.Generator) -> Path:
    """``rows`` shuffled, with their fields in a shuffled order, as JSONL, CSV or Parquet."""
    rows = [rows[k] for k in rng.permutation(len(rows))]
    fields = list(rng.permutation(sorted(rows[0])))
    frame = pd.DataFrame(rows)[fields]
    if path.suffix == ".jsonl":
        path.write_text("".join(json.dumps({f: row[f] for f in fields}) + "\n" for row in rows))
    elif path.suffix == ".csv":
        frame.assign(**({"options": frame["options"].map(json.dumps)} if "options" in frame else {})
                     ).to_csv(path, index=False)
    else:
        frame.to_parquet(path, index=False)
    return path


def _audited(folder: Path) -> tuple[bytes, dict]:
    meta = json.loads((folder / "audit.json").read_text())
    return (folder / "items.csv").read_bytes(), {k: v for k, v in meta.items() if k not in _PER_FILE}


def test_shuffled_rows_and_columns_give_identical_audits_in_every_format(tmp_path):
    """Before: the row order changed b_hat (up to 0.39), irt_converged and the panel's tie.

    The same rows, shuffled and with shuffled fields, in JSONL, CSV and Parquet give byte-equal
    ``items.csv`` and equal ``audit.json`` but for the files' names, hashes and the run time.
    """
    from mmlu_audit.audit import run_audit

    items, answers = _order_rows()
    outputs = []
    for trial, suffix in enumerate([".jsonl", ".jsonl", ".csv", ".csv", ".parquet", ".parquet"]):
        rng = np.random.default_rng(trial)
        folder = tmp_path / f"in{trial}"
        folder.mkdir()
        paths = [_write(rows, folder / f"{name}{suffix}", rng)
                 for rows, name in ((items, "items"), (answers, "answers"))]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # 120 steps do not converge; said in the table
            out = run_audit(paths[0], tmp_path / f"out{trial}", paths[1], k=3, m=1, progress=False,
                            max_steps=120)
        outputs.append(_audited(out))
    table = pd.read_csv(tmp_path / "out0" / "items.csv")
    assert table["item_id"].astype(str).tolist() == ["9", "10", "A", "b", "q1", "q10"]
    for csv_bytes, meta in outputs[1:]:
        assert csv_bytes == outputs[0][0]
        assert meta == outputs[0][1]


def test_a_tie_for_the_last_panel_seat_goes_to_the_name_that_sorts_first(tmp_path):
    """Before: the tied seat went to whichever of m_a and m_b appeared first in the file."""
    from mmlu_audit.audit import _canonical_models

    pred = np.array([[1, 1], [2, 2]], dtype=np.int8)
    sorted_pred, models = _canonical_models(pred, ["m_b", "m_a"])
    assert models == ["m_a", "m_b"] and sorted_pred.tolist() == [[2, 2], [1, 1]]


def test_an_audit_fit_called_converged_is_close_to_a_much_longer_fit():
    """Before: the engine's default rule fired at step 200 on one row order, 0.54 logits from
    a 4,000-step fit; under the audit's rule a converged fit is within 0.2 of it.

    The responses are a planted 2PL panel of 25 models × 150 items, shuffled four ways. The
    tolerance is the SVI noise floor with a margin: fits run to the 2,000-step cap lie 0.07–0.11
    from the long fit, the two the audit's rule calls converged 0.125 and 0.150.
    """
    from mmlu_audit.audit import _difficulty

    rng = np.random.default_rng(1)
    theta, b, a = rng.normal(size=(25, 1)), rng.normal(size=(1, 150)), rng.lognormal(0, 0.3, (1, 150))
    y = (rng.random((25, 150)) < 1 / (1 + np.exp(-a * (theta - b)))).astype(np.int8)
    long_fit = fit_irt(y, IRTSpec(b_prior="paper", max_steps=4000, min_steps=4000, average_steps=1000),
                       progress=False)
    converged = 0
    for _ in range(4):
        rows, cols = rng.permutation(25), rng.permutation(150)
        pred = np.where(y[rows][:, cols] == 1, 0, 1).astype(np.int8)  # key 0 on every item
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            table, meta = _difficulty(pred, np.zeros(150, dtype=np.int64), 0, False, None)
        b_hat = np.empty(150)
        b_hat[cols] = table["b_hat"].to_numpy()
        if meta["converged"]:
            converged += 1
            assert meta["steps"] >= 1000
            assert np.abs(b_hat - long_fit.b).max() < 0.2
    assert converged  # the rule is not vacuous: some orders converge


# ------------------------------------------------------------------ atomic and clean: input hashes


def test_audit_json_hashes_the_bytes_it_read_not_a_file_swapped_in_later(tmp_path, monkeypatch):
    """Before: the hash was taken at the end of the run, so a file replaced mid-run lent the
    audit of the old rows its own sha256."""
    import hashlib

    from mmlu_audit import audit

    items, answers = _order_rows()
    items_path = _write(items, tmp_path / "items.jsonl", np.random.default_rng(0))
    answers_path = _write(answers, tmp_path / "answers.csv", np.random.default_rng(0))
    read = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in (items_path, answers_path)}
    features = audit.benchmark_features

    def swap_then_parse(*args, **kwargs):  # both files replaced after they were read
        items_path.write_text(items_path.read_text().replace("capital", "CAPITAL"))
        answers_path.write_text(answers_path.read_text() + "\n")
        return features(*args, **kwargs)

    monkeypatch.setattr(audit, "benchmark_features", swap_then_parse)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        out = audit.run_audit(items_path, tmp_path / "out", answers_path, k=3, m=1, progress=False,
                              max_steps=50)
    meta = json.loads((out / "audit.json").read_text())
    assert meta["items_sha256"] == read[items_path] and meta["responses_sha256"] == read[answers_path]
    assert hashlib.sha256(items_path.read_bytes()).hexdigest() != read[items_path]


# ------------------------------------------------------------- atomic and clean: the --out swap


def _small_items(word: str) -> pd.DataFrame:
    return pd.DataFrame({"item_id": ["a", "b"], "question": [f"{word} one?", f"{word} two?"],
                         "options": [["x", "y"], ["x", "y", "z"]], "key": [0, 1]})


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _count_replaces(monkeypatch, folder: Path, fire_at: int | None, action, after: bool) -> list[int]:
    """Wrap os.replace: on the ``fire_at``-th call touching ``folder``'s parent, run ``action``."""
    from mmlu_audit import audit

    real, calls = audit.os.replace, [0]

    def replace(src, dst, *args, **kwargs):
        if str(folder.parent) not in str(src):
            return real(src, dst, *args, **kwargs)
        calls[0] += 1
        if calls[0] == fire_at and not after:
            action()
        real(src, dst, *args, **kwargs)
        if calls[0] == fire_at and after:
            action()

    monkeypatch.setattr(audit.os, "replace", replace)
    return calls


def _interrupt():
    raise KeyboardInterrupt


@pytest.mark.parametrize("after", [False, True], ids=["before-rename", "after-rename"])
def test_an_interrupt_at_any_step_of_the_swap_leaves_the_previous_output(tmp_path, monkeypatch, after):
    """Before: a KeyboardInterrupt during the final swap of --out deleted the backup of the
    previous output with the temporary folder (the rollback handled OS errors only)."""
    from mmlu_audit.audit import write_benchmark

    out = tmp_path / "bench"
    write_benchmark(_small_items("old"), out)
    before = _tree(out)
    write_benchmark(_small_items("old"), tmp_path / "probe")
    with monkeypatch.context() as patch:  # how many renames one swap over a previous output makes
        calls = _count_replaces(patch, out, None, None, after)
        write_benchmark(_small_items("probe"), tmp_path / "probe")
    probe_renames = calls[0]
    assert probe_renames >= 4
    for step in range(1, probe_renames + 1):
        with monkeypatch.context() as patch:
            _count_replaces(patch, out, step, _interrupt, after)
            with pytest.raises(KeyboardInterrupt):
                write_benchmark(_small_items("new"), out)
        assert _tree(out) == before, step
        assert sorted(p.name for p in tmp_path.iterdir()) == ["bench", "probe"], step  # nothing left
    write_benchmark(_small_items("new"), out)  # still recognised as ours: a rerun replaces it
    assert _tree(out) != before


def test_a_sigint_during_the_swap_is_delivered_after_it_completes(tmp_path, monkeypatch):
    """A real Ctrl-C (SIGINT) mid-swap is held: the new output lands whole, then the interrupt."""
    import signal

    from mmlu_audit.audit import write_benchmark

    write_benchmark(_small_items("new"), tmp_path / "expected")
    out = tmp_path / "bench"
    write_benchmark(_small_items("old"), out)
    # a test runner's worker may ignore SIGINT (CI's did); the test needs Python's own handler
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with monkeypatch.context() as patch:
            _count_replaces(patch, out, 2, lambda: signal.raise_signal(signal.SIGINT), after=True)
            with pytest.raises(KeyboardInterrupt):
                write_benchmark(_small_items("new"), out)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert _tree(out) == _tree(tmp_path / "expected")


# ------------------------------------------------------------ silently wrong: write_benchmark, BP, r


@pytest.mark.parametrize("pred, models, error, message", [
    (np.zeros((2, 3), dtype=int), ["m0", "m1"], "DataError", "one column per item"),
    (np.array([[0, -3]]), ["m0"], "DataError", "code -3"),
    (np.array([[0, 3]]), ["m0"], "DataError", "code 3"),  # item b has three options: 0-2
    (np.array([[0.0, 1.0]]), ["m0"], "DataError", "integer matrix"),
    (np.zeros((2, 2), dtype=int), ["m0"], "ParameterError", "one name per row"),
    (np.zeros((2, 2), dtype=int), None, "ParameterError", "one name per row"),
    (np.zeros((2, 2), dtype=int), ["m0", "m0"], "ParameterError", "'m0' is used twice"),
    (np.zeros((2, 2), dtype=int), ["m0", " "], "ParameterError", "blank"),
])
def test_write_benchmark_checks_pred_and_model_names(tmp_path, pred, models, error, message):
    """Before: a matrix of another width than the items wrote answers silently (3 × 2 for 6 items:
    two answers), code -3
    became "no answer", repeated names were written for read_answers to refuse, and too few
    names raised a raw IndexError. Nothing is written when the check fails."""
    from mmlu_audit.audit import write_benchmark
    from mmlu_audit.core import errors

    with pytest.raises(getattr(errors, error), match=message):
        write_benchmark(_small_items("q"), tmp_path / "bench", pred, models)
    assert not (tmp_path / "bench").exists()


def test_breusch_pagan_refuses_a_perfect_fit():
    """Before: an exact linear y reported p = 2e-19, a test of rounding noise."""
    from mmlu_audit.core.errors import DataError
    from mmlu_audit.inference.diagnostics import breusch_pagan
    from mmlu_audit.inference.ols import fit_ols

    x = np.linspace(0, 10, 200)
    X = np.column_stack([np.ones_like(x), x])
    with pytest.raises(DataError, match="fits the data exactly"):
        breusch_pagan(fit_ols(3 + 2 * x, X, ["const", "x"]))
    noisy = 3 + 2 * x + np.random.default_rng(0).normal(scale=1e-6, size=x.size)
    assert 0 <= breusch_pagan(fit_ols(noisy, X, ["const", "x"]))["p"].iat[0] <= 1  # tiny real noise is tested


@pytest.mark.parametrize("constant", ["x", "y"])
def test_cluster_bootstrap_correlation_refuses_a_constant_variable(constant):
    """Before: a constant x returned (nan, nan, nan) where the other correlation helpers raise."""
    from mmlu_audit.core.errors import DataError
    from mmlu_audit.inference.bootstrap import cluster_bootstrap_correlation

    values = {"x": np.arange(12.0), "y": np.arange(12.0) ** 2}
    values[constant] = np.full(12, 2.5)
    with pytest.raises(DataError, match=f"{constant}.*constant"):
        cluster_bootstrap_correlation(values["x"], values["y"], np.repeat(np.arange(4), 3), n_boot=10, seed=0)


# ---------------------------------------------------------------- bounds that bind; one-line errors


def test_resample_counts_have_an_upper_bound():
    """Before: n_draws=10**12 and n_perm=10**11 died with a MemoryError."""
    from mmlu_audit.core.errors import ParameterError
    from mmlu_audit.inference.bootstrap import wild_cluster_bootstrap
    from mmlu_audit.inference.ols import fit_ols
    from mmlu_audit.inference.permutation import permutation_test

    rng = np.random.default_rng(0)
    x, clusters = rng.normal(size=60), np.repeat(np.arange(6), 10)
    fit = fit_ols(x + rng.normal(size=60), np.column_stack([np.ones(60), x]), ["const", "x"])
    with pytest.raises(ParameterError, match="n_draws.*at most 1,000,000"):
        wild_cluster_bootstrap(fit, ["x"], clusters=clusters, seed=0, n_draws=10**12)
    stem = np.tile([0, 1], 30)
    with pytest.raises(ParameterError, match="n_perm.*at most 1,000,000"):
        permutation_test(x, x[:, None], stem, seed=0, n_perm=10**11)


def test_permutations_that_would_not_fit_in_memory_are_refused():
    from mmlu_audit.core.errors import ParameterError
    from mmlu_audit.inference.permutation import permutation_test

    n = 1000  # 10**6 permutations of 1,000 items: 8 GB of keys
    x, stem = np.random.default_rng(0).normal(size=n), np.tile([0, 1], n // 2)
    with pytest.raises(ParameterError, match="n_perm.*GB; at most 400,000 draws"):
        permutation_test(x, x[:, None], stem, seed=0, n_perm=10**6, scheme="item")


def _one_row(tmp_path: Path, text: str, suffix: str = ".jsonl") -> Path:
    path = tmp_path / f"items{suffix}"
    path.write_text(text)
    return path


@pytest.mark.parametrize("field", ["question", "options"])
@pytest.mark.parametrize("char", ["$", "_", '"', "["])
def test_long_punctuation_runs_are_refused_before_parsing(tmp_path, field, char):
    """Before: a 19,000-character stem of ``$`` took 55-90 s in spaCy's tokenizer."""
    from mmlu_audit.audit import MAX_PUNCTUATION_RUN, read_benchmark
    from mmlu_audit.core.errors import DataError

    row = {"id": "x", "question": "What?", "options": ["a", "b"]}
    run = char * (MAX_PUNCTUATION_RUN + 1)
    row[field] = ("Is " + run + " it?") if field == "question" else ["a", run]
    with pytest.raises(DataError, match=f"field '{field}': a run of 251 punctuation characters"):
        read_benchmark(_one_row(tmp_path, json.dumps(row) + "\n"))
    row[field] = ("Is " + run[1:] + " it?") if field == "question" else ["a", run[1:]]
    assert len(read_benchmark(_one_row(tmp_path, json.dumps(row) + "\n"))) == 1  # 250 is taken


@pytest.mark.parametrize("where", ["id", "answer", "options"])
def test_integers_of_more_than_4300_digits_give_one_error(tmp_path, where):
    """Before: json.loads's int-digit limit escaped as a raw ValueError traceback."""
    from mmlu_audit.audit import read_benchmark
    from mmlu_audit.core.errors import DataError

    huge = "9" * 5000
    if where == "options":  # a CSV cell holding a JSON list with a huge number in it
        text = f'id,question,options\nx,What?,"[{huge}, 1]"\n'
        path = _one_row(tmp_path, text, ".csv")
    else:
        fields = {"id": '"x"', "answer": '"A"', where: huge}
        path = _one_row(tmp_path, '{"question": "What?", "options": ["a", "b"], '
                        f'"id": {fields["id"]}, "answer": {fields["answer"]}}}\n')
    with pytest.raises(DataError, match="more than 4,300 digits"):
        read_benchmark(path)


def test_a_json_array_says_json_files_are_read_as_json_lines(tmp_path):
    """Before: "expected a JSON object", without saying a .json file is read as JSON Lines."""
    from mmlu_audit.audit import read_benchmark
    from mmlu_audit.core.errors import DataError

    path = _one_row(tmp_path, json.dumps([{"question": "What?", "options": ["a", "b"]}]), ".json")
    with pytest.raises(DataError, match=r"\.json files are read as JSON Lines\), got list"):
        read_benchmark(path)


# --------------------------------------------------------------------------- environment and paths


@pytest.mark.parametrize("variable", ["MMLU_AUDIT_DATA", "MMLU_AUDIT_CACHE"])
def test_both_folder_variables_expand_the_home_folder(tmp_path, monkeypatch, variable):
    """Before: MMLU_AUDIT_CACHE=~/x created ./~/x; MMLU_AUDIT_DATA expanded it."""
    from mmlu_audit.core.paths import cache_root, data_root

    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "x").mkdir()
    monkeypatch.setenv(variable, "~/x")
    monkeypatch.chdir(tmp_path)
    assert (data_root() if variable == "MMLU_AUDIT_DATA" else cache_root()) == tmp_path / "x"
    assert not (tmp_path / "~").exists()


@pytest.mark.parametrize("variable", ["MMLU_AUDIT_DATA", "MMLU_AUDIT_CACHE"])
@pytest.mark.parametrize("value, message", [("", "set but empty"), ("  ", "set but empty"),
                                            ("~nouser_h39/x", "'~nouser_h39': no such user"),
                                            ("FILE", "names a file, not a folder")])
def test_both_folder_variables_refuse_blank_unknown_user_and_files_alike(tmp_path, monkeypatch, variable,
                                                                         value, message):
    """Before: a blank value fell back to the default, ~nouser raised a raw RuntimeError, and a
    file in MMLU_AUDIT_DATA was "a folder that does not exist"."""
    from mmlu_audit.core.errors import DataError
    from mmlu_audit.core.paths import cache_root, data_root

    (tmp_path / "file.txt").write_text("x")
    monkeypatch.setenv(variable, str(tmp_path / "file.txt") if value == "FILE" else value)
    with pytest.raises(DataError, match=message):
        data_root() if variable == "MMLU_AUDIT_DATA" else cache_root()


def test_an_output_folder_of_an_unknown_user_is_one_line(tmp_path, capsys):
    """Before: ``--out ~nouser/x`` ended in a RuntimeError traceback."""
    from mmlu_audit.__main__ import main

    assert main(["audit", str(FIXTURE), "--out", "~nouser_h39/x", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1 and "no such user" in err, err


# ------------------------------------------------------------------------ findings: refuse bad builds


@pytest.mark.parametrize("body", ['{"cells": 5}', '{"cells": [], "metadata": []}',
                                  '{"cells": [{"cell_type": "code", "outputs": 3}]}',
                                  '{"cells": [{"cell_type": "code", "metadata": {"tags": 7}}]}'])
def test_findings_refuses_a_malformed_notebook_in_one_line(tmp_path, capsys, body):
    """Before: a notebook whose fields had the wrong shape ended in a raw TypeError/AttributeError."""
    from mmlu_audit.book.findings import main

    (tmp_path / "executed").mkdir()
    (tmp_path / "executed" / "05_pooled.ipynb").write_text(body)
    assert main(["--executed", str(tmp_path / "executed"), "--out", str(tmp_path / "f.md")]) == 2
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1 and "malformed" in err, err
    assert not (tmp_path / "f.md").exists()


def test_findings_refuses_a_missing_executed_folder(tmp_path, capsys):
    """Before: ``findings --executed missing/`` exited 0 with an "incomplete build" box."""
    from mmlu_audit.book.findings import main

    assert main(["--executed", str(tmp_path / "missing"), "--out", str(tmp_path / "f.md")]) == 2
    assert "no such folder of executed chapters" in capsys.readouterr().err
    assert not (tmp_path / "f.md").exists()


def test_a_rerun_removes_the_stale_temporary_folders_it_owns(tmp_path):
    """Before: a run killed by SIGKILL/SIGTERM left ``.NAME.xxxx`` folders no rerun cleaned."""
    import socket

    from mmlu_audit.audit import write_benchmark

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    dead_pid, host = int(gone.stdout), socket.gethostname()
    folders = {"stale": f"{host} {dead_pid}", "live": f"{host} {os.getpid()}",
               "other_host": f"elsewhere.invalid {dead_pid}", "unstamped": None}
    for name, stamp in folders.items():
        (tmp_path / f".bench.{name}").mkdir()
        if stamp:
            (tmp_path / f".bench.{name}" / ".mmlu_audit_owner").write_text(stamp)
    (tmp_path / ".other.stale").mkdir()  # another output's folder: never ours to judge here
    (tmp_path / ".other.stale" / ".mmlu_audit_owner").write_text(f"{host} {dead_pid}")
    write_benchmark(_small_items("q"), tmp_path / "bench")
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == [".bench.live", ".bench.other_host", ".bench.unstamped", ".other.stale", "bench"]
    written = sorted(p.name for p in (tmp_path / "bench").iterdir())
    assert written == ["items.parquet", "mmlu_audit_manifest.json"]  # the stamp is not an output


# --------------------------------------------------------------------- caches: folders, full disks


def test_an_irt_cache_entry_that_is_a_folder_is_one_error_before_fitting(tmp_path, monkeypatch):
    """Before: the fit ran, then atomic_write's os.replace raised a raw IsADirectoryError."""
    from mmlu_audit.core.errors import DataError
    from mmlu_audit.irt import cache as irt_cache
    from mmlu_audit.irt import fit_cached, fit_key

    y, spec = _random_responses(20, 30), IRTSpec(max_steps=50, min_steps=0)
    (tmp_path / f"irt-2pl-{fit_key(y, spec)[:20]}.nc").mkdir()
    monkeypatch.setattr(irt_cache, "fit_irt", lambda *a, **k: pytest.fail("fitted before the check"))
    with pytest.raises(DataError, match=r"\.nc: is a folder where a file belongs"):
        fit_cached(y, spec, tmp_path, progress=False)


def test_a_full_disk_names_the_file_it_could_not_write(tmp_path, monkeypatch):
    """Before: ENOSPC surfaced as a bare OSError naming no file."""
    import errno

    from mmlu_audit.core.errors import DataError
    from mmlu_audit.core.store import write_json_atomic

    def full(*_args, **_kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("mmlu_audit.core.store.os.fsync", full)
    with pytest.raises(DataError, match=r"entry\.json: could not be written \(No space left on device\)"):
        write_json_atomic(tmp_path / "entry.json", {"a": 1})
    assert list(tmp_path.iterdir()) == []


class _FullDisk:
    """A stand-in SQLite connection on a full disk."""

    def __enter__(self):
        return self

    def __exit__(self, *_exc):
        return False

    def execute(self, *_args):
        raise sqlite3.OperationalError("database or disk is full")

    executemany = execute

    def close(self):
        pass


def test_a_full_disk_under_the_parse_cache_is_one_error_not_a_corrupt_store(tmp_path, monkeypatch):
    """Before: ``database or disk is full`` escaped put_many as a raw sqlite3 error, and on
    opening it was taken for corruption (the store moved aside as ``.corrupt``)."""
    from mmlu_audit.core.errors import DataError
    from mmlu_audit.features import parse

    store = parse._ParseStore(tmp_path, "spacy-test", "0" * 64)
    store.connection.close()
    store.connection = _FullDisk()
    with pytest.raises(DataError, match=r"\.sqlite: the parse cache could not be written \(database or disk"):
        store.put_many([("key", "payload")])
    monkeypatch.setattr(parse.sqlite3, "connect", lambda *_a, **_k: _FullDisk())
    with pytest.raises(DataError, match="database or disk is full"):
        parse._ParseStore(tmp_path, "spacy-test", "0" * 64)
    assert not list(tmp_path.glob("*.corrupt"))


def test_a_full_disk_while_writing_the_manifest_names_it_and_leaves_nothing(tmp_path, monkeypatch):
    """Before: the error named no file and the hidden temporary folder stayed behind."""
    import errno

    from mmlu_audit.audit import MANIFEST, write_benchmark
    from mmlu_audit.core.errors import DataError

    real = Path.write_text

    def write_text(self, *args, **kwargs):
        if self.name == MANIFEST:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, *args, **kwargs)

    write_benchmark(_small_items("old"), tmp_path / "bench")
    before = _tree(tmp_path / "bench")
    monkeypatch.setattr(Path, "write_text", write_text)
    with pytest.raises(DataError, match=f"{MANIFEST}: could not be written \\(No space left on device\\)"):
        write_benchmark(_small_items("new"), tmp_path / "bench")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bench"]
    assert _tree(tmp_path / "bench") == before


# --------------------------------------------------------- a read-only cache serves every entry


def _cache_env(tmp_path: Path, monkeypatch) -> Path:
    """An empty cache folder that ``MMLU_AUDIT_CACHE`` names (the default root every cache uses)."""
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setenv("MMLU_AUDIT_CACHE", str(cache))
    return cache


def _snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every path under ``folder`` with a file's bytes (None for a folder)."""
    return {str(p.relative_to(folder)): None if p.is_dir() else p.read_bytes() for p in folder.rglob("*")}


@contextmanager
def _read_only(folder: Path, monkeypatch):
    """``chmod -R a-w folder`` while inside; the folder must come out byte for byte as it went in.

    Root ignores the mode bits, so os.access is also made to say what a user would see; a write
    that then goes through anyway is caught by the snapshot.
    """
    paths = [folder, *folder.rglob("*")]
    modes = {p: p.stat().st_mode for p in paths}
    before = _snapshot(folder)
    real = os.access
    monkeypatch.setattr(os, "access", lambda path, mode, **kw: False if mode & os.W_OK and
                        Path(path).absolute().is_relative_to(folder) else real(path, mode, **kw))
    for path in paths:
        path.chmod(modes[path] & ~0o222)
    try:
        yield
    finally:
        for path in paths:
            path.chmod(modes[path])
        monkeypatch.setattr(os, "access", real)
    assert _snapshot(folder) == before


def _unwritable(folder: Path, what: str) -> str:
    """The pattern of the one error a miss in the read-only ``folder`` raises."""
    return rf"{re.escape(str(folder))}: the {what} is not writable.*set MMLU_AUDIT_CACHE to a writable folder"


def _four_option_items(n: int = 3) -> pd.DataFrame:
    questions = ["If it rains then roads freeze.", "The apple and the pear.", "Dogs bark loudly.",
                 "Cats sleep."][:n]
    return pd.DataFrame({"item_id": [f"toy/{i}" for i in range(n)], "question": questions,
                         **{f"choice_{c}": [f"{c}{i}" for i in range(n)] for c in "abcd"}})


def test_a_read_only_parse_cache_serves_its_parses_and_refuses_a_miss_before_parsing(tmp_path, monkeypatch):
    """Before: a read-only parse cache was refused even when it held every parse asked for."""
    from mmlu_audit.core.errors import DataError
    from mmlu_audit.features import parse_texts
    from helpers import WhitespaceBackend

    cache, backend = _cache_env(tmp_path, monkeypatch), WhitespaceBackend()
    first = parse_texts(["One two.", "Three four."], backend, progress=False)
    with _read_only(cache, monkeypatch):
        assert parse_texts(["Three four.", "One two."], backend, progress=False) == first[::-1]
        with pytest.raises(DataError, match=_unwritable(cache / "parses", "parse cache folder")) as refused:
            parse_texts(["One two.", "Three four.", "Five."], backend, progress=False)
    assert "its store" in str(refused.value) and "lacks 1 of the 3 parses needed" in str(refused.value)
    assert backend.calls == 2  # nothing parsed after the cache was made read-only


def test_a_read_only_feature_cache_serves_tables_and_graphs_and_refuses_a_miss(tmp_path, monkeypatch):
    """Before: build_feature_table and item_graphs refused a read-only cache root that held it all."""
    from mmlu_audit.core.errors import DataError
    from mmlu_audit.features import build_feature_table, item_graphs
    from helpers import WhitespaceBackend

    cache, backend, items = _cache_env(tmp_path, monkeypatch), WhitespaceBackend(), _four_option_items()
    first = build_feature_table(items, backend=backend, progress=False)
    graphs = item_graphs(items, backend, progress=False)
    timings: dict = {}
    with _read_only(cache, monkeypatch):
        pd.testing.assert_frame_equal(build_feature_table(items, backend=backend, progress=False,
                                                          timings=timings), first)
        assert timings["from_cache"] and item_graphs(items, backend, progress=False) == graphs
        with pytest.raises(DataError, match=_unwritable(cache / "features", "feature-table cache folder")):
            build_feature_table(items.iloc[:2], backend=backend, progress=False)
        with pytest.raises(DataError, match=_unwritable(cache / "parses", "parse cache folder")):
            item_graphs(_four_option_items(4), backend, progress=False)
    assert backend.calls == 3


def test_a_read_only_embeddings_cache_serves_its_vectors_and_refuses_a_miss(tmp_path, monkeypatch):
    """Before: encode_items refused a read-only cache root that held the embeddings."""
    from mmlu_audit.core.errors import DataError
    from mmlu_audit.core.store import cache_key
    from mmlu_audit.features import baselines

    cache, items = _cache_env(tmp_path, monkeypatch), _four_option_items()
    monkeypatch.setattr(baselines, "_encoder_path", lambda: tmp_path)  # the model itself is not needed
    monkeypatch.setattr(baselines, "_encoder_key", lambda texts, _runtime: cache_key(texts))
    monkeypatch.setattr(baselines, "_encode", lambda texts, *_a: np.arange(
        len(texts) * 384, dtype=np.float32).reshape(len(texts), 384))
    first = baselines.encode_items(items, progress=False)
    monkeypatch.setattr(baselines, "_encode", lambda *_a: pytest.fail("encoded a cached item"))
    with _read_only(cache, monkeypatch):
        np.testing.assert_array_equal(baselines.encode_items(items, progress=False), first)
        some = baselines.encode_items(items, progress=False, rows=[2, 0])  # sliced from the whole entry
        np.testing.assert_array_equal(some, first[[2, 0]])
        with pytest.raises(DataError, match=_unwritable(cache / "embeddings", "embeddings cache folder")):
            baselines.encode_items(items.iloc[:2], progress=False)


def test_a_read_only_world_cache_serves_its_world_and_refuses_a_miss_before_simulating(small_items, tmp_path,
                                                                                        monkeypatch):
    """Before: load_or_simulate checked the folder was writable before looking for the world."""
    from mmlu_audit import WorldSpec, load_or_simulate
    from mmlu_audit.core.errors import DataError
    from mmlu_audit.worlds import simulated

    cache = _cache_env(tmp_path, monkeypatch)
    spec = WorldSpec(n_models=60, n_distinct=50, n_groups=10, covariates="text")
    first = load_or_simulate(spec, 4, small_items)
    monkeypatch.setattr(simulated, "simulate_world", lambda *_a, **_k: pytest.fail("simulated again"))
    with _read_only(cache, monkeypatch):
        again = load_or_simulate(spec, 4, small_items)
        np.testing.assert_array_equal(again.matrix.responses, first.matrix.responses)
        np.testing.assert_array_equal(again.truth["b"], first.truth["b"])
        with pytest.raises(DataError, match=_unwritable(cache / "simulated", "world cache folder")):
            load_or_simulate(spec, 5, small_items)


def test_a_read_only_cache_loads_the_leaderboard_matrix(tmp_path, monkeypatch):
    """Before: load_leaderboard refused a read-only cache root before looking for the matrix."""
    from mmlu_audit.core.errors import DataError
    from mmlu_audit.data.leaderboard import _SOURCE, MATRIX_SUBDIR, load_leaderboard
    from mmlu_audit.data.responses import ResponseMatrix, save_matrix

    cache = _cache_env(tmp_path, monkeypatch)
    matrix = ResponseMatrix(np.array([[1, 0], [0, -1]], np.int8), pd.DataFrame({"model_id": ["m1", "m2"]}),
                            np.array(["q1", "q2"]), _SOURCE, False, "two models")
    save_matrix(matrix, cache / "leaderboard" / MATRIX_SUBDIR)
    with _read_only(cache, monkeypatch):
        np.testing.assert_array_equal(load_leaderboard().responses, matrix.responses)
    (tmp_path / "empty").mkdir()
    monkeypatch.setenv("MMLU_AUDIT_CACHE", str(tmp_path / "empty"))
    with _read_only(tmp_path / "empty", monkeypatch):
        missing = tmp_path / "empty" / "leaderboard" / MATRIX_SUBDIR
        with pytest.raises(DataError, match=rf"{re.escape(str(missing))}: no leaderboard matrix"):
            load_leaderboard()


def test_a_read_only_cache_builds_the_book_without_the_jax_cache(tmp_path, monkeypatch, capsys):
    """Before: bookbuild died with a DataError traceback when the cache root was read-only."""
    from mmlu_audit.book import build as bookbuild

    cache = _cache_env(tmp_path, monkeypatch)
    (cache / "jax").mkdir()
    (cache / "jax" / "entry-cache").write_bytes(b"compiled")
    for name in ["JAX_PLATFORMS", *bookbuild.compilation_cache_env(cache)]:
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)  # main sets them: restored to absent afterwards
    seen: list[dict] = []
    monkeypatch.setattr(bookbuild, "execute_all", lambda *_a: seen.append(dict(os.environ)) or {})
    with _read_only(cache, monkeypatch):
        assert bookbuild.main(["01", "--out", str(tmp_path / "out")]) == 0
    assert "JAX_COMPILATION_CACHE_DIR" not in seen[0]
    err = capsys.readouterr().err
    assert "JAX compilation cache folder is not writable" in err and "building without" in err
    assert bookbuild.main(["01", "--out", str(tmp_path / "out")]) == 0  # writable again: cache on
    assert seen[1]["JAX_COMPILATION_CACHE_DIR"] == str(cache / "jax")
