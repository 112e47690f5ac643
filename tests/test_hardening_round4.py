"""Issue 47 (hardening, round four): generators that never touch what they did not write, result
files checked before they are believed, paths that mean one thing everywhere.

Each test names the finding it covers and fails on 04591a9.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from test_scorecard import write_chapter
from test_replication import claims_json

from mmlu_audit.core.errors import ParameterError

# ------------------------------------------------------------ 1: findings never touches a user's files

USER_FILES = {"findings.md": b"my notes\n", "claims.csv": b"mine,1\n", "real_results.csv": b"mine,2\n",
              "claims_forest.png": b"\x89PNG mine"}


def _verdicts(folder: Path) -> None:
    """An executed real-verdicts chapter, whose claims table the box links as a CSV."""
    folder.mkdir()
    write_chapter(folder, "12_real_verdicts", {"claims_json": claims_json()}, banner="real-banner")


def _user_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "out"
    folder.mkdir()
    for name, content in USER_FILES.items():
        (folder / name).write_bytes(content)
    return folder


def _unchanged(folder: Path) -> bool:
    return all((folder / name).read_bytes() == content for name, content in USER_FILES.items())


def test_finding1_findings_never_replaces_or_deletes_a_users_downloads(tmp_path, capsys):
    """Before: the CSVs and the PNG were deleted or replaced, then ``findings.md`` was refused (exit 2);
    with another ``--out`` name the run exited 0 and deleted them too. Now every target is checked
    first and only files the module wrote are replaced or removed."""
    from mmlu_audit.book.findings import main

    folder = _user_folder(tmp_path)
    (tmp_path / "empty").mkdir()
    argv = ["--executed", str(tmp_path / "empty"), "--seed", "1", "--fast"]
    assert main([*argv, "--out", str(folder / "findings.md")]) == 2
    assert "not written by" in capsys.readouterr().err and _unchanged(folder)
    assert main([*argv, "--out", str(folder / "box.md")]) == 0, "nothing linked, nothing to replace"
    assert _unchanged(folder) and (folder / "box.md").is_file()
    _verdicts(tmp_path / "ex")
    assert main(["--executed", str(tmp_path / "ex"), "--seed", "1", "--fast",
                 "--out", str(folder / "box.md")]) == 2, "claims.csv is the user's"
    assert _unchanged(folder) and "claims.csv" in capsys.readouterr().err


def test_finding1_findings_replaces_and_removes_its_own_downloads(tmp_path):
    """The ownership manifest lets a rerun replace, then remove, what an earlier run wrote."""
    from mmlu_audit.book.findings import CLAIMS_CSV, main

    _verdicts(tmp_path / "ex")
    out = tmp_path / "gen" / "findings.md"
    argv = ["--seed", "1", "--fast", "--out", str(out)]
    assert main(["--executed", str(tmp_path / "ex"), *argv]) == 0
    assert main(["--executed", str(tmp_path / "ex"), *argv]) == 0, "its own files are replaced"
    assert (out.parent / CLAIMS_CSV).is_file()
    (tmp_path / "empty").mkdir()
    assert main(["--executed", str(tmp_path / "empty"), *argv]) == 0
    assert not (out.parent / CLAIMS_CSV).exists(), "its own stale download is removed"
    assert sorted(p.name for p in out.parent.iterdir()) == [".mmlu_audit.book.findings.generated.json",
                                                           "findings.md"]


def test_finding1_an_edited_download_is_the_users(tmp_path):
    """A download the user edited after the build no longer matches the manifest: it is kept."""
    from mmlu_audit.book.findings import CLAIMS_CSV, main

    _verdicts(tmp_path / "ex")
    out = tmp_path / "gen" / "findings.md"
    argv = ["--executed", str(tmp_path / "ex"), "--seed", "1", "--fast", "--out", str(out)]
    assert main(argv) == 0
    (out.parent / CLAIMS_CSV).write_text("edited\n")
    assert main(argv) == 2
    assert (out.parent / CLAIMS_CSV).read_text() == "edited\n"


# ------------------------------------------------------- 7: --out under a file, refused before any work


@pytest.mark.parametrize("module", ["findings", "examples"])
def test_finding7_out_under_a_file_is_one_line_before_any_work(tmp_path, capsys, monkeypatch, module):
    """Before: ``NotADirectoryError`` / ``FileExistsError`` tracebacks, the latter after ~20 s of audit."""
    import importlib
    import subprocess

    main = importlib.import_module(f"mmlu_audit.book.{module}").main
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: pytest.fail("the audit ran before --out"))
    (tmp_path / "afile").write_text("mine\n")
    (tmp_path / "ex").mkdir()
    argv = ["--executed", str(tmp_path / "ex")] if module == "findings" else []
    for out in (tmp_path / "afile" / "box.md", tmp_path / "afile" / "deeper" / "box.md"):
        assert main([*argv, "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"{module}: ") and err.count("\n") == 1 and "is a file" in err, err
    assert (tmp_path / "afile").read_text() == "mine\n"


# --------------------------------------------------------------- book.build: environment and --out


def _build_refused(capsys, monkeypatch, argv) -> str:
    """Run book.build with kernels forbidden; it must exit 2 with one line."""
    from mmlu_audit.book import build as bookbuild

    monkeypatch.setattr(bookbuild, "execute_all", lambda *a, **k: pytest.fail("a kernel was started"))
    assert bookbuild.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    return err


@pytest.mark.parametrize("value, message", [(" ", "set but empty"), ("~nosuchuser_h47/c", "no such user")])
def test_finding6_a_bad_cache_variable_is_one_line_for_book_build(tmp_path, capsys, monkeypatch, value,
                                                                   message):
    """Before: ``MMLU_AUDIT_CACHE=" "`` or ``"~nosuchuser/c"`` ended in a traceback: the compilation
    cache's setup called ``cache_root()`` outside its ``try``."""
    from mmlu_audit.book.build import _compilation_cache_env

    monkeypatch.setenv("MMLU_AUDIT_CACHE", value)
    assert _compilation_cache_env() == {}, "no persistent compilation cache, not a traceback"
    assert "building without" in capsys.readouterr().err
    err = _build_refused(capsys, monkeypatch, ["06", "--fast", "--out", str(tmp_path / "x")])
    assert err.startswith("bookbuild: ") and message in err


@pytest.mark.parametrize("variable", ["MMLU_AUDIT_DATA", "MMLU_AUDIT_CACHE"])
def test_finding8_a_relative_folder_variable_means_the_same_in_a_kernel(tmp_path, monkeypatch, variable):
    """Before: kernels run in ``chapters/`` read ``MMLU_AUDIT_DATA=./data`` from there ("points at a
    folder that does not exist"), and ``MMLU_AUDIT_CACHE=relcache`` split the cache in two. Now
    book.build rewrites both as absolute paths before any kernel starts."""
    import os
    import subprocess
    import sys

    from mmlu_audit.book import build as bookbuild

    (tmp_path / "rel").mkdir()
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(variable, "./rel")
    seen = {}

    def kernels(sources, out, parameters, jobs):
        probe = ("from mmlu_audit.core.paths import cache_root, data_root; "
                 f"print({'data_root()' if variable == 'MMLU_AUDIT_DATA' else 'cache_root(writable=False)'})")
        seen["env"] = os.environ[variable]
        seen["kernel"] = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path / "elsewhere",
                                        capture_output=True, text=True, check=True).stdout.strip()
        return {}

    monkeypatch.setattr(bookbuild, "execute_all", kernels)
    assert bookbuild.main(["06", "--fast", "--out", str(tmp_path / "x")]) == 0
    assert seen == {"env": str(tmp_path / "rel"), "kernel": str(tmp_path / "rel")}
    assert not (tmp_path / "elsewhere" / "rel").exists()


def test_finding9_book_build_refuses_an_out_that_is_a_file(tmp_path, capsys, monkeypatch):
    """Before: ``book.build 13 --out FILE`` printed "notebook kept as FILE/13_discussion.failed.ipynb"
    (no such notebook) and ended in ``FileExistsError``, exit 1."""
    from mmlu_audit.book import build as bookbuild

    (tmp_path / "afile").write_text("mine\n")
    for out in (tmp_path / "afile", tmp_path / "afile" / "under"):
        err = _build_refused(capsys, monkeypatch, ["06", "--fast", "--out", str(out)])
        assert err.startswith("bookbuild: --out") and "is a file" in err and "kept as" not in err
    assert (tmp_path / "afile").read_text() == "mine\n"
    monkeypatch.setattr(bookbuild, "execute_all", lambda sources, *a: {sources[0]: "boom"})
    assert bookbuild.main(["06", "--fast", "--out", str(tmp_path / "x")]) == 1
    err = capsys.readouterr().err
    assert "no notebook kept" in err and "kept as" not in err, "a notebook is named only when it exists"


# ------------------------------------------- 3, 4: committed study results are checked, not believed

RESULTS = Path(__file__).resolve().parents[1] / "bench" / "results"


def _power_file(tmp_path: Path, plant) -> Path:
    import json

    result = json.loads((RESULTS / "real_power_floor_false.json").read_text())
    plant(result)
    path = tmp_path / "power.json"
    path.write_text(json.dumps(result))
    return path


def _set_all(name, value):
    return lambda result: [record.__setitem__(name, value) for record in result["rates"]]


@pytest.mark.parametrize("plant, message", [
    (_set_all("target_reached", "no"), "'target_reached' as written disagrees"),
    (lambda r: r["rates"][0].update(mc_se=0.2, target_reached=False), "'mc_se' as written disagrees"),
    (lambda r: r["rates"][0].update(rate=0.5, mc_se=float(np.sqrt(0.25 / 10)), n_seeds=10),
     "'target_reached' as written disagrees"),  # its SE 0.158 misses the 0.03 target the row says it met
    (lambda r: r.update(settings={}), "settings['n_boot'] is not a count"),
    (lambda r: r["rates"].append(dict(r["rates"][0])), "not unique on ['design', 'world', 'test']"),
    (lambda r: r["rates"][1].pop("rate"), "row 2 has no value for ['rate']"),
    (lambda r: r["rates"][1].update(n_seeds="many"), "'n_seeds' holds a value that is not a finite number"),
    (lambda r: r["rates"][1].update(n_seeds=10.5), "'n_seeds' holds a value that is not a whole number"),
], ids=["target-no", "se", "target-not-met", "empty-settings", "repeated", "missing", "not-finite",
        "not-whole"])
def test_finding3_load_power_recomputes_derived_fields_and_refuses_defects(tmp_path, plant, message):
    """Before: ``target_reached: "no"`` in every row loaded and read "met" (a non-empty string is
    true), and an empty ``settings`` passed, then the chapter died with ``KeyError: 'n_boot'``."""
    from mmlu_audit.analyses.power import load_power
    from mmlu_audit.core.errors import DataError

    with pytest.raises(DataError, match=re.escape(message)):
        load_power(_power_file(tmp_path, plant))


def test_finding3_the_committed_power_result_loads_with_recomputed_fields(tmp_path):
    from mmlu_audit.analyses.power import load_power, mc_se

    table = load_power(RESULTS / "real_power_floor_false.json")
    assert table["target_reached"].dtype == bool
    assert np.allclose(table["mc_se"], mc_se(table["rate"], table["n_seeds"]))


def _study_file(tmp_path: Path, name: str, plant) -> Path:
    lines = (RESULTS / name).read_text().splitlines(keepends=True)
    (tmp_path / name).write_text("".join(plant(lines)))
    return tmp_path


def _set_field(row: int, column: int, value: str):
    def plant(lines):
        cells = lines[row].rstrip("\n").split(",")
        cells[column] = value
        return [*lines[:row], ",".join(cells) + "\n", *lines[row + 1:]]
    return plant


STUDY_DEFECTS = {
    "truncated": (lambda lines: [*lines[:-1], lines[-1][:len(lines[-1]) // 2]], "a truncated or damaged row"),
    "repeated": (lambda lines: [*lines, *lines[1:]], "appears more than once"),
    "not-finite": (_set_field(3, 3, "inf"), "is not a finite number"),
    "p-outside": (_set_field(3, -1, "1.5"), "outside [0.0, 1.0]"),
    "not-whole-seed": (_set_field(3, 0, "1.5"), "'seed' holds a value that is not a whole number"),
}


@pytest.mark.parametrize("defect", STUDY_DEFECTS)
def test_finding4_load_seed_study_refuses_each_planted_defect(tmp_path, defect):
    """Before: a truncated last row loaded (its p-values NaN, counted "not rejected", the seed kept
    in ``n_seeds``) and repeated (world, seed) rows doubled ``n_seeds`` 200 → 400."""
    from mmlu_audit.analyses.seed_study import load_seed_study
    from mmlu_audit.core.errors import DataError

    plant, message = STUDY_DEFECTS[defect]
    if defect == "not-whole-seed":  # the seed is the second column of the seed study
        plant = _set_field(3, 1, "1.5")
    with pytest.raises(DataError, match=re.escape(message)):
        load_seed_study(_study_file(tmp_path, "seed_study.csv", plant))


def test_finding4_load_seed_study_refuses_a_seed_run_in_one_world_only(tmp_path):
    from mmlu_audit.analyses.seed_study import load_seed_study, rejection_rate
    from mmlu_audit.core.errors import DataError

    assert rejection_rate(load_seed_study(RESULTS), "planted", "wcb_p")["n_seeds"] == 200
    with pytest.raises(DataError, match="each with the same seeds"):
        load_seed_study(_study_file(tmp_path, "seed_study.csv", lambda lines: lines[:-1]))


@pytest.mark.parametrize("defect", STUDY_DEFECTS)
def test_schema_load_fit_study_refuses_each_planted_defect(tmp_path, defect):
    """The fit study shares the seed study's schema check (issue 47, "what to deliver")."""
    from mmlu_audit.analyses.seed_study_fits import load_fit_study
    from mmlu_audit.core.errors import DataError

    plant, message = STUDY_DEFECTS[defect]
    if defect == "p-outside":  # lambda_2pl_p_wcb is the eleventh column of the fit study
        plant = _set_field(3, 10, "1.5")
    with pytest.raises(DataError, match=re.escape(message)):
        load_fit_study(_study_file(tmp_path, "seed_study_fits.csv", plant))
    assert len(load_fit_study(RESULTS)) == 200


# ---------------------------------------------- 10: chapter 07 reads size_power.csv from results_dir


def test_finding10_chapter_07_reads_the_size_study_from_its_results_dir(tmp_path):
    """Before: chapter 07 read ``bench/results/size_power.csv`` whatever its ``results_dir`` said
    (the seed study beside it honoured it), and a missing file was a raw ``FileNotFoundError``."""
    import shutil

    from mmlu_audit.analyses.power import load_size_power
    from mmlu_audit.core.errors import DataError

    source = (Path(__file__).resolve().parents[1] / "chapters" / "07_homogeneity.py").read_text()
    assert "load_size_power(results_dir)" in source and '"size_power.csv"' not in source
    with pytest.raises(DataError, match=re.escape("run `make bench`")):
        load_size_power(tmp_path)
    shutil.copy(RESULTS / "size_power.csv", tmp_path)
    assert load_size_power(tmp_path).equals(load_size_power(RESULTS))
    _study_file(tmp_path, "size_power.csv", lambda lines: [*lines, lines[1]])
    with pytest.raises(DataError, match="appears more than once"):
        load_size_power(tmp_path)


# ------------------------------------------------ 5: audit --partition speaks in the user's level names


def _small_benchmark(folder: Path, answered) -> tuple[Path, Path]:
    """Three subjects per level ("STEM" / "non-STEM"), four items each; ``answered(subject)`` says
    whether the three models answered that subject's items."""
    import json

    import pandas as pd

    subjects = {f"s{k}": "STEM" if k < 3 else "non-STEM" for k in range(6)}
    rows = [{"id": f"{s}-{i}", "question": f"Question {i} about {s}?", "options": ["w", "x", "y", "z"],
             "answer": "A", "subject": s, "domain": level} for s, level in subjects.items() for i in range(4)]
    (folder / "items.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    answers = pd.DataFrame([{"model": f"m{j}", "id": r["id"], "choice": "AB"[(j + len(r["id"])) % 2]}
                            for j in range(3) for r in rows if answered(r["subject"])])
    answers.to_csv(folder / "answers.csv", index=False)
    return folder / "items.jsonl", folder / "answers.csv"


def test_finding5_a_level_without_two_answered_subjects_is_refused_before_parsing(tmp_path, monkeypatch):
    """Before: refused only after parsing and fitting (20–40 s) with advice ("an HC kind") the
    command has no option for, or, with no answered item in a level, "design is singular"."""
    from mmlu_audit import audit

    monkeypatch.setattr(audit, "benchmark_features", lambda *a, **k: pytest.fail("parsed before the check"))
    for answered, count in ((lambda s: s != "s1" and s != "s2", 1), (lambda s: s >= "s3", 0)):
        items, answers = _small_benchmark(tmp_path, answered)
        with pytest.raises(audit.ParameterError, match=re.escape(
                f"level 'STEM' of column 'domain' holds answered items of {count} subject(s)")
                ) as caught:
            audit.run_audit(items, tmp_path / "out", answers, k=3, m=2, progress=False, partition="domain",
                            n_boot=99)
        assert "leave out --partition" in str(caught.value) and "HC kind" not in str(caught.value)
    assert not (tmp_path / "out").exists()


def test_finding5_library_warnings_name_the_users_levels(monkeypatch):
    """Before: levels "STEM" / "non-STEM" sort with "non-STEM" second, coded 1, so the library's
    "STEM" was the user's "non-STEM": a run warned "8 STEM and 6 non-STEM clusters" where
    ``audit.json`` had 6 and 8."""
    import warnings

    import pandas as pd

    from mmlu_audit import audit
    from mmlu_audit.features import INDICATORS

    rng = np.random.default_rng(0)
    subjects = [f"s{k}" for k in range(14)]
    frame = pd.DataFrame({"subject": np.repeat(subjects, 12),
                          "partition": np.repeat(["STEM"] * 6 + ["non-STEM"] * 8, 12),
                          "b_hat": rng.normal(size=168)})
    frame = frame.join(pd.DataFrame(rng.normal(size=(168, len(INDICATORS))), columns=list(INDICATORS)))
    levels = audit.check_partition(frame.assign(item_id=frame.index.astype(str)), "domain")
    assert levels == ("STEM", "non-STEM")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        block = audit._homogeneity(frame, levels, "domain", seed=1, n_boot=99)
    shown = [str(w.message) for w in caught if "clusters" in str(w.message)]
    assert block["counts"]["STEM"]["subjects"] == 6 and block["counts"]["non-STEM"]["subjects"] == 8
    assert shown and all("6 'STEM' and 8 'non-STEM' clusters" in m or "8 'non-STEM' and 6 'STEM' clusters"
                         in m for m in shown), shown


# -- finding 2: a parameter naming a source the chapter cannot honour is refused before any kernel --

def _verdicts_chapter():
    from mmlu_audit.book.build import chapter_paths

    return chapter_paths(only=["12"])


def test_finding2_the_verdicts_chapter_has_no_simulated_column_to_mislabel():
    from mmlu_audit.book.build import chapter_parameters

    (chapter,) = _verdicts_chapter()
    assert "data_source" not in chapter_parameters(chapter)  # no simulated world on the page at all


@pytest.mark.parametrize(("pairs", "message"), [
    ([["pool_source", "simulated"]], "must name a real MMLU source"),
    ([["pool_source", "mmlu_pro_tiger29"]], "must name a real MMLU source"),
    ([["populations", '["helm10", "helm20"]']], "nested"),
    ([["populations", '["helm20", "routellm2"]']], "shares models"),
    ([["populations", "[]"]], "non-empty list"),
])
def test_finding2_a_source_the_chapter_cannot_honour_is_refused_before_any_kernel(pairs, message):
    from mmlu_audit.book.build import run_parameters

    with pytest.raises(ParameterError, match=message):
        run_parameters(_verdicts_chapter(), {"seed": 1, "fast": True}, pairs)


def test_finding2_disjoint_populations_and_a_real_pool_pass():
    from mmlu_audit.book.build import run_parameters

    (chapter,) = _verdicts_chapter()
    params = run_parameters([chapter], {"seed": 1, "fast": True},
                            [["pool_source", "mmlu_real"], ["populations", '["helm20", "opencompass11"]']])
    assert params[chapter]["pool_source"] == "mmlu_real"
