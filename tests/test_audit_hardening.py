"""Issue 18: the `audit` command loses nothing, reads nothing wrongly and fails in one line.

Every test runs the real command (or the real reader) on files it writes itself.
"""

from __future__ import annotations

import json
import os
import shutil
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mmlu_audit import DataError, ParameterError
from mmlu_audit.__main__ import main
from mmlu_audit.audit import (MANIFEST, canonical_id_key, read_answers, read_benchmark, run_audit,
                              write_benchmark)

FIXTURE = Path(__file__).parent / "fixtures" / "benchmark" / "tiny.jsonl"


def _tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (links not followed) with its bytes."""
    return {str(p.relative_to(folder)): (p.read_bytes() if not p.is_symlink() else b"->" +
                                         os.readlink(p).encode())
            for p in sorted(folder.rglob("*")) if p.is_file() or p.is_symlink()}


def _audit(*args) -> int:
    return main(["audit", *map(str, args), "--no-progress"])


def _one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    assert err.startswith("audit: ")
    return err


def _fixture_rows() -> list[dict]:
    return [json.loads(line) for line in FIXTURE.read_text().splitlines() if line.strip()]


def _write_csv(path: Path, rows: list[dict]) -> Path:
    frame = pd.DataFrame(rows)
    frame["options"] = frame["options"].map(json.dumps)
    frame.to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def previous(tmp_path_factory) -> Path:
    """A real previous audit output."""
    out = tmp_path_factory.mktemp("prev") / "audit"
    run_audit(FIXTURE, out, progress=False)
    return out


def _answers(items: pd.DataFrame, n_models: int = 4, blank=()) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    key = items["key"].to_numpy()
    rows = []
    for j in range(n_models):
        for i, item in enumerate(items["item_id"]):
            choice = key[i] if rng.random() < 0.7 else (key[i] + 1) % 3
            rows.append({"model": f"m{j}", "id": item,
                         "choice": "" if (j, i) in blank else "ABCDE"[choice]})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------- 1–4: output safety


def test_point1_an_audit_json_of_the_users_does_not_make_the_input_folder_ours(tmp_path, capsys):
    folder = tmp_path / "bench"
    folder.mkdir()
    _write_csv(folder / "items.csv", _fixture_rows())
    (folder / "audit.json").write_text('{"my": "own notes"}')
    before = _tree(folder)
    assert _audit(folder / "items.csv", "--out", folder) == 2
    assert "holds the input file 'items.csv'" in _one_line_error(capsys)
    assert _tree(folder) == before
    # the same names without the input inside: still not ours (no manifest of ours)
    other = tmp_path / "other"
    shutil.copytree(folder, other)
    assert _audit(FIXTURE, "--out", other) == 2
    assert "is not a previous audit output" in _one_line_error(capsys)
    assert _tree(other) == before
    # a forged manifest naming a file we never write is not ours either
    (other / MANIFEST).write_text(json.dumps({"written_by": "audit", "files": {"notes.txt": "0"}}))
    assert _audit(FIXTURE, "--out", other) == 2
    assert _tree(other) == before | {MANIFEST: (other / MANIFEST).read_bytes()}


def test_point2_a_link_to_a_previous_audit_is_replaced_where_it_points(tmp_path, previous, capsys):
    real = tmp_path / "real"
    shutil.copytree(previous, real)
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    # a failing run leaves the previous output exactly as it was
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "Q?", "options": ["a", "b"], "answer": "AB"}\n')
    before = _tree(real)
    assert _audit(bad, "--out", link) == 2
    _one_line_error(capsys)
    assert _tree(real) == before and link.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl", "link", "real"]
    # a good run replaces the audit behind the link and keeps the link
    edited = tmp_path / "edited.jsonl"
    rows = _fixture_rows()[:4]
    edited.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert _audit(edited, "--out", link) == 0
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert pd.read_csv(real / "items.csv").shape[0] == 4
    assert sorted(p.name for p in real.iterdir()) == sorted(["items.csv", "audit.json", MANIFEST])


def test_point2_a_failure_while_swapping_leaves_the_previous_output(tmp_path, previous, monkeypatch):
    target = tmp_path / "audit"
    shutil.copytree(previous, target)
    before = _tree(target)
    calls = []
    real_replace = os.replace

    def flaky(src, dst):
        calls.append(dst)
        if len(calls) == 4:  # after the old files moved aside and one new file moved in
            raise OSError(28, "No space left on device")
        return real_replace(src, dst)

    monkeypatch.setattr("mmlu_audit.audit.os.replace", flaky)
    with pytest.raises(DataError, match="previous content is left as it was"):
        run_audit(FIXTURE, target, progress=False)
    assert _tree(target) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["audit"]  # no temporary folder left


def test_point3_write_benchmark_never_overwrites_a_users_files(tmp_path):
    items = read_benchmark(FIXTURE).rename(columns={"subject": "category"})
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "items.parquet").write_bytes(b"my own benchmark")
    with pytest.raises(DataError, match="is not a previous write_benchmark output"):
        write_benchmark(items, mine)
    assert (mine / "items.parquet").read_bytes() == b"my own benchmark"
    ours = tmp_path / "ours"
    write_benchmark(items, ours)
    write_benchmark(items.iloc[:3], ours)  # its own previous output is replaced
    assert len(read_benchmark(ours / "items.parquet")) == 3


def test_point4_the_output_folder_is_checked_before_anything_is_read(tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    garbage = tmp_path / "answers.csv"
    garbage.write_text("model,id,choice\nm0,nope,A\n")  # would fail, but only after parsing
    assert _audit(FIXTURE, "--out", blocker / "out", "--responses", garbage) == 2
    assert "a-file/out: cannot write here" in _one_line_error(capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "answers.csv"]


# ----------------------------------------------------------------------------- 5–6: exact reads


def test_point5_choices_are_one_letter_or_one_index_exactly(tmp_path):
    items = read_benchmark(FIXTURE)
    answers = _answers(items)
    for value, line in (("AB", 2), ("BCD", 2), ("-1", 2), ("1.5", 2)):
        path = tmp_path / "answers.csv"
        answers.assign(choice=[value] + list(answers["choice"][1:])).to_csv(path, index=False)
        with pytest.raises(DataError, match=f"line {line}, field 'choice': '{value}' is neither one "
                                            "letter A–J nor a 0-based option index"):
            read_answers(path, items)
    for blank in ("", " ", "\t"):  # a blank is no answer (graded wrong), never option A
        path = tmp_path / "answers.csv"
        answers.assign(choice=[blank] + list(answers["choice"][1:])).to_csv(path, index=False)
        assert read_answers(path, items)[0][0, 0] == -2
    key = tmp_path / "key.jsonl"
    key.write_text('{"question": "Q?", "options": ["a", "b", "c"], "answer": "AB"}\n')
    with pytest.raises(DataError, match="line 1, field 'answer': 'AB' is neither one letter"):
        read_benchmark(key)


def test_point6_columns_with_gaps_are_read_as_text(tmp_path):
    rows = [{"id": 101, "subject": "math", "question": "One?", "options": ["a", "b"], "answer": 1},
            {"id": 102, "question": "Two?", "options": ["a", "b"], "answer": 0},
            {"subject": "math", "question": "Three?", "options": ["a", "b"]}]
    jsonl = tmp_path / "gaps.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows))
    parquet = tmp_path / "gaps.parquet"
    pd.DataFrame(rows).to_parquet(parquet)  # pandas stores the gapped ints as floats
    for path in (jsonl, parquet):
        items = read_benchmark(path)
        assert items["item_id"].tolist() == ["101", "102", "3"]  # the missing id is the row number
        assert items["subject"].tolist() == ["math", "", "math"]
        assert items["key"].tolist() == [1, 0, -1]
    fraction = tmp_path / "fraction.jsonl"
    fraction.write_text('{"question": "Q?", "options": ["a", "b"], "answer": 0.5}\n')
    with pytest.raises(DataError, match="line 1, field 'answer': 0.5 is neither"):
        read_benchmark(fraction)
    missing = tmp_path / "missing.jsonl"
    missing.write_text('{"question": "Q?", "options": ["a", "b"]}\n{"options": ["a", "b"]}\n')
    with pytest.raises(DataError, match="line 2: no 'question'"):
        read_benchmark(missing)


# ------------------------------------------------------------------- 9–11: fit, panel, stems


def test_points5_9_unconverged_fit_is_marked_and_blanks_are_counted(tmp_path):
    items = read_benchmark(FIXTURE)
    path = tmp_path / "answers.csv"
    _answers(items, blank={(0, 0), (0, 1), (2, 5)}).to_csv(path, index=False)
    with pytest.warns(RuntimeWarning, match="2PL fit did not converge in 50 steps"):
        out = run_audit(FIXTURE, tmp_path / "out", path, k=3, m=2, progress=False, max_steps=50)
    meta = json.loads((out / "audit.json").read_text())
    assert meta["irt"] == {"steps": 50, "max_steps": 50, "converged": False}
    assert meta["no_answer"]["total"] == 3 and meta["no_answer"]["by_model"] == {"m0": 2, "m2": 1}
    table = pd.read_csv(out / "items.csv", index_col="item_id")
    assert not table["irt_converged"].any()


def test_point10_panels_are_refused_not_clipped(tmp_path, capsys):
    items = read_benchmark(FIXTURE)
    path = tmp_path / "answers.csv"
    _answers(items).to_csv(path, index=False)
    assert _audit(FIXTURE, "--out", tmp_path / "o", "--responses", path, "--k", 3, "--m", 5) == 2
    assert "m = 5 votes cannot come from a panel of k = 3 models" in _one_line_error(capsys)
    one = tmp_path / "one.csv"
    _answers(items, n_models=1).to_csv(one, index=False)
    assert _audit(FIXTURE, "--out", tmp_path / "o", "--responses", one, "--k", 3, "--m", 2) == 2
    assert "holds 1 model(s); the audit needs at least 3" in _one_line_error(capsys)
    assert _audit(FIXTURE, "--out", tmp_path / "o", "--responses", path) == 2  # k = 10 > 4 models
    assert "k = 10 at most that many" in _one_line_error(capsys)
    with pytest.raises(ParameterError, match="at least 3 models"):
        run_audit(FIXTURE, tmp_path / "o", path, k=1, m=1, progress=False)
    assert not (tmp_path / "o").exists()


def test_point11_stems_are_validated_like_the_loader_and_the_language_flag_written(tmp_path):
    invisible = tmp_path / "invisible.jsonl"
    invisible.write_text(json.dumps({"question": "\u200b\ufeff\u200b", "options": ["a", "b"]}) + "\n")
    with pytest.raises(DataError, match="line 1, field 'question': empty"):
        read_benchmark(invisible)
    rows = _fixture_rows()[:3] + [{"id": "de", "question": "Welche Stadt ist die Hauptstadt von "
                                   "Frankreich und warum wurde sie gewählt?",
                                   "options": ["Paris", "Rom", "Bern", "Wien"], "answer": "A"}]
    path = tmp_path / "mixed.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    table = pd.read_csv(run_audit(path, tmp_path / "out", progress=False) / "items.csv",
                        index_col="item_id")
    assert table.loc[[r["id"] for r in rows], "flag_non_english"].tolist() == [False, False, False, True]
    assert json.loads((tmp_path / "out" / "audit.json").read_text())["n_flag_non_english"] == 1


# ---------------------------------------------------------------------------- 14: keys, memo


def test_point14_write_benchmark_writes_a_missing_key_as_no_key(tmp_path):
    items = read_benchmark(FIXTURE).rename(columns={"subject": "category"})
    items.loc[2, "key"] = -1
    path, _ = write_benchmark(items, tmp_path / "in")
    assert read_benchmark(path)["key"].tolist() == [0, 1, -1, 1, 2, 1]  # was "J": option 10


def test_point14_a_same_size_edit_is_caught_inside_one_process(tmp_path):
    from mmlu_audit.core.store import file_sha256
    from mmlu_audit.data.checksums import verify_file

    path = tmp_path / "data.bin"
    path.write_bytes(b"original")
    digest, stat = file_sha256(path), path.stat()
    verify_file(path, digest)
    path.write_bytes(b"tampered")  # same size, same mtime
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    with pytest.raises(DataError, match="checksum mismatch"):
        verify_file(path, digest)


# ------------------------------------------------------------------- 17–18: one clear error


NESTED = "[" * 200_000 + "]" * 200_000
NESTED_CELL = "[" * 60_000 + "]" * 60_000  # under the CSV module's 131,072-character field limit


@pytest.mark.parametrize("name, content, message", [
    ("empty.csv", b"", "no rows"),
    ("header.csv", b"question,options\n", "no rows"),
    ("latin1.csv", 'question,options\n"Café?","[""a"", ""b""]"\n'.encode("latin-1"), "not UTF-8 text"),
    ("utf16.jsonl", '{"question": "Q?", "options": ["a", "b"]}\n'.encode("utf-16"), "not UTF-8 text"),
    ("surrogate.jsonl", b'{"question": "Q\\ud800?", "options": ["a", "b"]}\n', "lone surrogate"),
    ("nested.jsonl", ('{"question": "Q?", "options": ' + NESTED + '}\n').encode(), "nested too deeply"),
    ("nested.csv", ('question,options\nQ?,' + NESTED_CELL + '\n').encode(), "nested too deeply"),
    ("long.jsonl", ('{"question": "' + "x" * 1_000_001 + '", "options": ["a", "b"]}\n').encode(),
     "1,000,001 characters; the audit takes at most 20,000"),
    ("long.csv", ("question,options\n" + "x" * 1_000_001 + ',"[""a"", ""b""]"\n').encode(),
     "line 2: a field is longer than 131,072 characters"),
    ("single.csv", b'question,options\nQ?,"[""a"", ""b""]"\n', "need at least two items"),
    ("extra.csv", b'question,options\nQ?,"[""a"", ""b""]",surplus\n', "line 2: more fields"),
    ("missing.jsonl", None, "file not found"),
])
def test_point17_bad_files_are_one_line_and_exit_2(tmp_path, capsys, name, content, message):
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    assert _audit(path, "--out", tmp_path / "out") == 2
    assert message in _one_line_error(capsys)
    assert not (tmp_path / "out").exists()


def test_point17_os_errors_and_ctrl_c(tmp_path, capsys, monkeypatch):
    folder = tmp_path / "a-folder.jsonl"
    folder.mkdir()  # a directory where the items file should be
    assert _audit(folder, "--out", tmp_path / "out") == 2
    assert "is not a file" in _one_line_error(capsys)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("mmlu_audit.audit.run_audit", interrupted)
    assert _audit(FIXTURE, "--out", tmp_path / "out") == 130
    assert capsys.readouterr().err.strip() == "audit: interrupted"


def test_point18_messages_say_what_is_wrong(tmp_path, capsys, monkeypatch):
    empty = tmp_path / "answers.csv"
    empty.write_text("model,id,choice\n")
    assert _audit(FIXTURE, "--out", tmp_path / "o", "--responses", empty) == 2
    assert "answers.csv: no rows" in _one_line_error(capsys)  # was "k must be positive"
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    assert _audit(FIXTURE, "--out", ".") == 0  # was "not empty": the temporary folder was inside
    assert sorted(p.name for p in here.iterdir()) == sorted(["items.csv", "audit.json", MANIFEST])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["answers.csv", "here"]
    # a benchmark with no logical operator at all is audited (was refused as "not distinct")
    rows = [{"question": q, "options": ["a", "b"]} for q in
            ("What is the capital of France?", "Who wrote Hamlet?", "Which planet is largest?")]
    plain = tmp_path / "plain.jsonl"
    plain.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = pd.read_csv(run_audit(plain, tmp_path / "plain", progress=False) / "items.csv")
    assert (table["d_logic"] == 0).all() and table["reasoning_index"].notna().all()
    assert any("'d_logic' takes one value" in str(w.message) for w in caught)


# ------------------------------------------------------------------ the property-style test


def _corrupt(rng: np.random.Generator, text: str, kind: str) -> bytes:
    lines = text.splitlines(keepends=True)
    if kind == "truncate":
        return text.encode()[: int(rng.integers(0, len(text.encode())))]
    if kind == "swap columns":
        header = lines[0].rstrip("\n").split(",")
        a, b = rng.choice(len(header), 2, replace=False)
        header[a], header[b] = header[b], header[a]
        return (",".join(header) + "\n" + "".join(lines[1:])).encode()
    rows = [json.loads(line) for line in lines]
    row = rows[int(rng.integers(len(rows)))]
    field = str(rng.choice(["id", "subject", "question", "options", "answer"]))
    if kind == "blank field":
        row[field] = rng.choice(["", None, " ", "\t"])
    elif kind == "wrong type":
        row[field] = [3.5, True, {"a": 1}, [1, 2], -7, 1e308][int(rng.integers(6))]
    elif kind == "bad encoding":
        raw = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        how = int(rng.integers(3))
        if how == 0:
            return raw.replace("?", "é?", 1).encode("latin-1", errors="replace")
        if how == 1:
            return raw.encode("utf-16")
        return raw.replace('"question": "', '"question": "\\ud800', 1).encode()
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def test_random_corruptions_give_the_same_rows_or_one_line(tmp_path, capsys):
    """Seeded corruptions of a valid file: exit 0 with one row per input row, or exit 2 with
    one line; never a traceback, never a changed file outside --out."""
    rng = np.random.default_rng(20240601)
    rows = _fixture_rows()
    jsonl = "".join(json.dumps(r) + "\n" for r in rows)
    csv_text = _write_csv(tmp_path / "base.csv", rows).read_text()
    (tmp_path / "base.csv").unlink()
    kinds = ["truncate", "swap columns", "blank field", "wrong type", "bad encoding"]
    outcomes = {0: 0, 2: 0}
    for case in range(60):
        kind = kinds[case % len(kinds)]
        suffix = ".csv" if kind == "swap columns" or (kind == "truncate" and case % 2) else ".jsonl"
        base = csv_text if suffix == ".csv" else jsonl
        folder = tmp_path / f"case{case}"
        folder.mkdir()
        path = folder / f"items{suffix}"
        path.write_bytes(_corrupt(rng, base, kind))
        before = _tree(tmp_path)
        status = _audit(path, "--out", folder / "out")
        if status == 0:
            capsys.readouterr()
            written = pd.read_csv(folder / "out" / "items.csv", dtype={"item_id": str})
            canonical = sorted(read_benchmark(path)["item_id"], key=canonical_id_key)
            assert written["item_id"].tolist() == canonical
        else:
            assert status == 2, (case, kind)
            _one_line_error(capsys)
            assert not (folder / "out").exists()
        after = {k: v for k, v in _tree(tmp_path).items() if not k.startswith(f"case{case}/out/")}
        assert after == before, (case, kind)
        outcomes[status] += 1
    assert outcomes[0] > 5 and outcomes[2] > 5  # both roads were taken


# ------------------------------------------------------------------------- 16: linear time


def _best_time(function, text, repeats: int = 5, batch: int = 2) -> float:
    """The least CPU time of ``repeats`` batches: CPU time of this process, so another
    process on a shared machine does not count, and the least of several, so a stray
    interruption does not either."""
    import time

    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        for _ in range(batch):
            function(text)
        best = min(best, time.process_time() - start)
    return best


def _options_of(text):
    from mmlu_audit.features.baselines import option_covariates

    return option_covariates([text, "a", "b", "c"], "Which?")


def _labels_of(text):
    from mmlu_audit.features.lexicon import load_lexicon, match_categories
    from helpers import WhitespaceBackend

    return match_categories(WhitespaceBackend().parse(text), load_lexicon())


@pytest.mark.parametrize("function, unit", [
    (_options_of, lambda n: "i" + " " * (n - 2) + "x"),     # was cubic (baselines' \s* runs)
    (_options_of, lambda n: "true" + " ," * (n // 2)),      # _TRUTH's adjacent \s*
    (_labels_of, lambda n: "x-" * (n // 2)),                # was quadratic (_between_operands)
])
def test_point16_pathological_fields_take_linear_time(function, unit):
    """CPU time grows like the field: a field 4 times longer takes about 4 times as long (a
    quadratic matcher 16 times, the old cubic one 64), so the bound of 8 leaves room for noise
    on either side. Sizes of 20 and 80 KB keep each timing well above the clock's resolution;
    a matcher gone super-linear again would run into pytest-timeout rather than hang."""
    quarter = _best_time(function, unit(20_000))
    assert _best_time(function, unit(80_000)) < 8 * quarter


def test_point16_fields_over_the_documented_limits_are_refused(tmp_path):
    from mmlu_audit.audit import MAX_OPTION_CHARS, MAX_STEM_CHARS

    path = tmp_path / "long.jsonl"
    path.write_text(json.dumps({"question": "Q?", "options": ["a", "i" + " " * MAX_OPTION_CHARS]}) + "\n")
    with pytest.raises(DataError, match=f"field 'options': {MAX_OPTION_CHARS + 1:,} characters"):
        read_benchmark(path)
    path.write_text(json.dumps({"question": "x-" * MAX_STEM_CHARS, "options": ["a", "b"]}) + "\n")
    with pytest.raises(DataError, match=f"field 'question': {2 * MAX_STEM_CHARS:,} characters"):
        read_benchmark(path)


# ============================================================ issue 18, round two: the library
# Points 12, 13, 15, 17 and 18 as they touch the library API and the other command lines.


def _regression(n_clusters=8, per=10, k=2, seed=0):
    """Null data (no STEM difference): y = X·1 + cluster effect + noise, clusters of ``per`` rows."""
    rng = np.random.default_rng(seed)
    clusters = np.repeat(np.arange(n_clusters), per)
    X = rng.normal(size=(clusters.size, k))
    y = X.sum(axis=1) + 0.5 * rng.normal(size=n_clusters)[clusters] + rng.normal(size=clusters.size)
    return y, X, clusters


@pytest.mark.parametrize("field, value", [
    ("learning_rate", float("nan")), ("learning_rate", -0.05), ("learning_rate", 0.0),
    ("lr_decay", 1.001), ("lr_decay", 0.0), ("init_scale", 0.0), ("init_scale", -0.1),
    ("posterior_draws", 0), ("max_steps", 100.5), ("min_steps", 2.5), ("max_steps", 2000.0),
    ("window", True), ("chunk", 0), ("rel_tol", float("inf")), ("guessing", float("nan")),
    ("model", "4pl"),
])
def test_point12_irt_spec_refuses_settings_that_return_nan_or_nonsense(field, value):
    from mmlu_audit.irt import IRTSpec

    with pytest.raises(ParameterError, match=f"IRTSpec.{field}"):
        IRTSpec(**{field: value})
    IRTSpec(lr_decay=1.0, min_steps=0)  # the closed ends stay allowed


def test_point12_inference_options_are_refused_not_misread():
    from mmlu_audit.inference import (cluster_bootstrap_correlation, coef_table, fit_ols, fold_ids,
                                      partition_effects)

    y, X, clusters = _regression()
    fit = fit_ols(y, X, intercept=True)
    with pytest.raises(ParameterError, match="level: must be a finite number in \\(0, 1\\), got 95"):
        coef_table(fit, "CR2", clusters, level=95)
    with pytest.raises(ParameterError, match="n_boot: .* got bool True"):
        cluster_bootstrap_correlation(X[:, 0], y, clusters, n_boot=True, seed=0)
    with pytest.raises(ParameterError, match="n_boot: .* got float 10.0"):
        partition_effects(y, X, clusters < 4, clusters, seed=0, n_boot=10.0)
    with pytest.raises(ParameterError, match="n_folds"):
        fold_ids(20, 2.5, seed=0)


def test_point12_an_empty_matrix_is_refused_not_reported_converged():
    from mmlu_audit.irt import fit_irt
    from mmlu_audit.irt.data import prepare_data

    for shape in ((0, 0), (0, 3), (3, 0)):
        with pytest.raises(DataError, match="empty|no observed response"):
            prepare_data(np.zeros(shape, np.int8), "2pl")
    with pytest.raises(DataError, match=r"empty \(0 models × 0 items\)"):
        fit_irt(np.zeros((0, 0), np.int8), progress=False)


def test_point12_consensus_flags_checks_option_counts_accuracy_and_key():
    from mmlu_audit.analyses.consensus import consensus_flags

    pred = np.array([[0, 1, 2], [0, 1, 1], [1, 1, 2]])
    accuracy = np.array([0.9, 0.8, 0.7])
    consensus_flags(pred, [0, 1, 2], accuracy, k=3, m=2, n_options=[3, 3, 3])
    with pytest.raises(DataError,
                       match="n_options: 1 question.* key past their last option.*question 2, key 2, 2"):
        consensus_flags(pred, [0, 1, 2], accuracy, k=3, m=2, n_options=[3, 3, 2])
    with pytest.raises(DataError, match=r"accuracy: need one accuracy per model.*\(2,\)"):
        consensus_flags(pred, [0, 1, 2], accuracy[:2], k=2, m=2)
    with pytest.raises(DataError, match="key: 1 entr.* NaN.*position 1"):
        consensus_flags(pred, [0.0, np.nan, 2.0], accuracy, k=3, m=2)
    with pytest.raises(DataError, match="key: 1 entr.*not whole numbers.*1.5"):
        consensus_flags(pred, [0.0, 1.5, 2.0], accuracy, k=3, m=2)


def test_point13_homogeneity_refuses_a_single_cluster_partition_and_warns_on_few():
    from mmlu_audit.inference import homogeneity_test

    y, X, clusters = _regression(n_clusters=8)
    # on this null the old code rejected ~80 % of the time at 5 % (200 draws, 12 clusters: 0.81)
    with pytest.raises(DataError, match="1 STEM and 7 non-STEM clusters"):
        homogeneity_test(y, X, clusters == 0, clusters, kind="CR2")
    with pytest.warns(RuntimeWarning, match="2 STEM and 6 non-STEM clusters for 2 restrictions"):
        homogeneity_test(y, X, clusters < 2, clusters, kind="CR1")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        homogeneity_test(y, X, clusters < 4, clusters, kind="CR2")
        homogeneity_test(y, X, clusters == 0, clusters, kind="HC3")  # no clusters in an HC test


def test_point13_hc2_hc3_at_leverage_one_are_nan_with_a_warning():
    from mmlu_audit.inference import fit_ols, vcov

    y, X, _ = _regression()
    dummy = np.zeros(y.size)
    dummy[3] = 1.0  # a coefficient fitted by one row: h_33 = 1, its residual is 0
    fit = fit_ols(y, np.column_stack([X, dummy]), intercept=True)
    assert np.isfinite(vcov(fit, "HC0")).all()
    for kind in ("HC2", "HC3"):
        with pytest.warns(RuntimeWarning, match=f"{kind} is undefined: 1 observation.*rows \\[3\\]"):
            assert np.isnan(vcov(fit, kind)).all()


# ---------------------------------------------------------------------- 15: the MMLU-Pro loader


def _pro_panel_files(tmp_path, monkeypatch, **changes) -> tuple[Path, pd.DataFrame]:
    """A 2-model × 3-question MMLU-Pro panel written by the test, trusted by the manifest."""
    from mmlu_audit.core.store import file_sha256
    from mmlu_audit.data import mmlu_pro

    arrays = {"Y": np.array([[1, 0, -1], [0, 1, 0]], np.int8),
              "pred": np.array([[2, 9, -1], [-2, 0, 3]], np.int8),
              "item_status": np.array([[0, 1, -1], [2, 0, 3]], np.int8),
              "answer": np.array([2, 0, 1], np.int8), "n_options": np.array([4, 4, 10], np.int8),
              "model_ids": np.array(["m0", "m1"]), "question_id": np.array([11, 12, 13], np.int32)}
    arrays["Y"][1, 2] = -1  # status 3: another text of the item, unobserved
    arrays.update(changes)
    folder = tmp_path / mmlu_pro.PRO_RESPONSES_DIR
    folder.mkdir(parents=True)
    np.savez(folder / "responses.npz", **arrays)
    pd.DataFrame({"model_id": ["m0", "m1"]}).to_csv(folder / "models.csv", index=False)
    manifest = {f"{mmlu_pro.PRO_RESPONSES_DIR}/{name}": file_sha256(folder / name)
                for name in ("responses.npz", "models.csv")}
    monkeypatch.setattr(mmlu_pro, "staged_manifest", lambda: manifest)
    items = pd.DataFrame({"question_id": [11, 12, 13], "key": np.array([2, 0, 1], np.int8),
                          "n_options": np.array([4, 4, 10], np.int8),
                          "item_id": ["mmlu_pro/11", "mmlu_pro/12", "mmlu_pro/13"]})
    return tmp_path, items


def _with(name, row, col, value, dtype=np.int8):
    base = {"Y": [[1, 0, -1], [0, 1, -1]], "pred": [[2, 9, -1], [-2, 0, 3]],
            "item_status": [[0, 1, -1], [2, 0, 3]]}[name]
    values = np.array(base, dtype=dtype)
    values[row, col] = value
    return {name: values}


@pytest.mark.parametrize("changes, message", [
    (_with("pred", 1, 1, 12), r"a pred outside -2, -1 and the options 0–9, e\.g\. model row 1 \(m1\), "
                               r"question_id 12"),
    (_with("Y", 0, 1, 1), r"a grade Y that contradicts pred and the key, e\.g\. model row 0 \(m0\), "
                           r"question_id 12: Y 1, pred 9, key 0"),
    (_with("item_status", 0, 1, 7),
     r"item_status outside the known codes .* model row 0 \(m0\), question_id 12"),
    (_with("pred", 0, 0, 2.0, float), r"pred has dtype float64; .* integers"),
    (_with("Y", 1, 2, 0), r"Y = -1 on a record of the same text, or a grade .* model row 1 \(m1\), "
                           r"question_id 13"),
])
def test_point15_pro_panel_contradictions_are_refused_naming_file_and_row(tmp_path, monkeypatch,
                                                                          changes, message):
    from mmlu_audit.data.mmlu_pro import load_pro_panel

    root, items = _pro_panel_files(tmp_path, monkeypatch)
    assert load_pro_panel(items, root).matrix.shape == (2, 3)  # the valid panel loads
    root, items = _pro_panel_files(tmp_path / "bad", monkeypatch, **changes)
    with pytest.raises(DataError, match=r"responses\.npz: 1 cell|responses\.npz: pred has dtype"):
        load_pro_panel(items, root)
    with pytest.raises(DataError, match=message):
        load_pro_panel(items, root)


# ------------------------------------------------------------- 17: the other CLIs, library cases


def test_point17_leaderboard_cli_is_one_line_exit_2_and_ctrl_c_130(tmp_path, capsys, monkeypatch):
    from mmlu_audit.data import leaderboard

    args = ["--models", str(tmp_path / "missing.txt"), "--cache", str(tmp_path / "c"),
            "--out", str(tmp_path / "out")]
    assert leaderboard.main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("leaderboard: ") and "model list not found" in err and len(err.splitlines()) == 1
    (tmp_path / "models.txt").write_text("owner/name\n")
    (tmp_path / "out").write_text("a file where the output folder goes")
    def not_a_folder(out):
        raise NotADirectoryError(20, "Not a directory", str(out))

    monkeypatch.setattr(leaderboard, "check_replaceable", not_a_folder)
    args[1] = str(tmp_path / "models.txt")
    assert leaderboard.main(args) == 2
    assert capsys.readouterr().err.strip() == f"leaderboard: {tmp_path / 'out'}: Not a directory"

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(leaderboard, "download_leaderboard", interrupted)
    monkeypatch.setattr(leaderboard, "check_replaceable", lambda out: None)
    assert leaderboard.main(args) == 130
    assert capsys.readouterr().err.strip() == "leaderboard: interrupted"


def test_point17_sitecheck_cli_is_one_line_exit_2_and_ctrl_c_130(tmp_path, capsys, monkeypatch):
    from mmlu_audit.book import sitecheck

    (tmp_path / "site").mkdir()
    assert sitecheck.main([str(tmp_path / "site")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("sitecheck: ") and "no .html pages" in err and len(err.splitlines()) == 1

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(sitecheck, "check_site", interrupted)
    assert sitecheck.main([str(tmp_path / "site")]) == 130
    assert capsys.readouterr().err.strip() == "sitecheck: interrupted"


def test_point17_library_edge_cases_are_one_clear_error():
    from mmlu_audit.analyses.consensus import consensus_flags
    from mmlu_audit.inference import (fit_ols, partition_effects, permutation_test, vif,
                                      wild_cluster_bootstrap)

    y, X, clusters = _regression()
    stem = clusters < 4
    with pytest.raises(ParameterError, match="n_perm: must be an integer ≥ 1, got 0"):
        permutation_test(y, X, stem, clusters, seed=0, n_perm=0)
    fit = fit_ols(y, X, intercept=True)
    with pytest.raises(ParameterError, match="n_draws: .* got float 99.5"):
        wild_cluster_bootstrap(fit, "x1", clusters=clusters, seed=0, n_draws=99.5)
    with pytest.raises(DataError, match="constant predictor\\(s\\) flat"):
        vif(np.column_stack([X, np.ones(y.size)]), names=["a", "b", "flat"])
    with pytest.raises(DataError, match="the STEM partition has 0 items in 0 clusters"):
        partition_effects(y, X, np.zeros(y.size, bool), clusters, seed=0, n_boot=10)
    with pytest.raises(DataError, match="key: .* NaN"):
        consensus_flags(np.zeros((3, 2), int), np.array([0, np.nan]), np.ones(3), k=2, m=1)


# --------------------------------------------------------------- 18: a read-only cache is read


def test_point18_a_valid_fit_in_a_read_only_cache_is_read_not_refused(tmp_path, monkeypatch):
    from mmlu_audit.irt import IRTSpec, fit_cached
    from mmlu_audit.irt import cache as irt_cache

    rng = np.random.default_rng(0)
    responses = (rng.random((6, 8)) < 0.6).astype(np.int8)
    spec = IRTSpec(max_steps=30, min_steps=30, chunk=10, window=5)
    folder = tmp_path / "irt"
    first = fit_cached(responses, spec, folder, progress=False)
    folder.chmod(0o555)
    real_access = os.access
    # root ignores the mode bits, so the test also makes os.access report what a user would see
    monkeypatch.setattr("mmlu_audit.core.paths.os.access",
                        lambda path, mode: False if Path(path) == folder and mode & os.W_OK
                        else real_access(path, mode))
    monkeypatch.setattr(irt_cache, "fit_irt", lambda *a, **k: pytest.fail("refitted a valid cached fit"))
    try:
        again = fit_cached(responses, spec, folder, progress=False)
        np.testing.assert_array_equal(again.b, first.b)
        with pytest.raises(DataError, match="IRT cache folder is not writable"):
            fit_cached(responses, spec.with_(seed=1), folder, progress=False)  # checked before fitting
    finally:
        folder.chmod(0o755)
