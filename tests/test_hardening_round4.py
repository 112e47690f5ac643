"""Issue 47 (hardening, round four): generators that never touch what they did not write, result
files checked before they are believed, paths that mean one thing everywhere.

Each test names the finding it covers and fails on 04591a9.
"""

from __future__ import annotations

from pathlib import Path

from test_scorecard import write_chapter

# ------------------------------------------------------------ 1: findings never touches a user's files

USER_FILES = {"findings.md": b"my notes\n", "claims.csv": b"mine,1\n", "real_results.csv": b"mine,2\n",
              "claims_forest.png": b"\x89PNG mine"}


def _verdicts(folder: Path) -> None:
    """An executed real-verdicts chapter, whose claims table the box links as a CSV."""
    folder.mkdir()
    write_chapter(folder, "12_real_verdicts", {"verdict_homogeneity": "supported"}, banner="real-banner")


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
