"""Tests for the landing page's findings box, generated from (synthetic) executed chapters."""

from __future__ import annotations

import os

import pytest
from markdown_it import MarkdownIt

from mmlu_audit.book.findings import (
    GENERATED_MARK,
    ensure_findings,
    findings_markdown,
    main,
    missing_chapters,
    read_build,
    registry_chapters,
    write_findings,
)
from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.book.chapters import chapter_stem
from mmlu_audit.book.results import REAL_RESULTS

from test_scorecard import write_chapter

EXPECT = {"data_source": "simulated", "seed": 1, "fast": True}
HELM79 = {"helm_displacement": 0.4375, "helm_displacement_exact_low": 0.125,
          "helm_displacement_exact_high": 0.6875, "helm_null_blocks_p": 0.0312, "helm_tau_stem": 0.8125,
          "helm_displacement_interval": {"low": 0.125, "high": 0.6875, "method": "exact"}}


def _box_body(text: str) -> str:
    """The admonition's content (what MyST parses as Markdown inside the fence)."""
    lines = text.splitlines()
    assert lines[0] == GENERATED_MARK and lines[1].startswith("::::{admonition}") and lines[-1] == "::::"
    return "\n".join(line for line in lines[2:-1] if not line.startswith((":class:", ":::")))


def _book(folder, **kwargs):
    write_chapter(folder, "01_data", {"n_items": 14042, "n_stem_items": 3000, "n_models": 1000})
    write_chapter(folder, "11_rank_stability", HELM79, banner="real-banner")
    write_chapter(folder, "06_stratified", {"cv_r2_stem": 0.0733})
    return read_build(folder, kwargs.get("expect", EXPECT))


def test_real_results_carry_source_estimate_interval_p_and_chapter(tmp_path):
    text = findings_markdown(_book(tmp_path), EXPECT)
    row = next(line for line in text.splitlines() if "Top-k displacement" in line)
    cells = [c.strip() for c in row.strip("|").split(" | ")]
    assert cells[1:6] == ["HELM per-subject table, 79 models", "0.4375", "0.125 to 0.6875 (exact)", "0.0312",
                          "0.22"]
    assert cells[6] == "{doc}`§5.2 Rankings </book/_executed/11_rank_stability>`"
    assert "τ\\_w STEM subscore vs aggregate | HELM per-subject table, 79 models | 0.8125 | — | — |" in text
    assert not any("accuracy on Redux" in line for line in text.splitlines()), "Appendix D glued nothing"


def test_real_and_simulated_are_kept_apart(tmp_path):
    text = findings_markdown(_book(tmp_path), EXPECT)
    real, simulated = text.split("**Simulation only.**")
    # the data chapter's item counts are real items; one differs from the paper (3,000 against 3,153)
    assert "§2 Data </book/_executed/01_data>` (real items) — reproduces the paper's value: 1 of 2; " \
           "differ: STEM items 3,000 against 3,153" in real  # in the registry's words, not the key
    assert "recovered as planted" not in real
    assert "(simulated responses) — reproduces the paper's value (simulated world): 1 of 1" in simulated
    assert "§4.2 Stratified" in simulated
    assert "For 1 of them the simulation copies the paper's value" in simulated  # n_models is planted
    assert "HELM" not in simulated


def test_build_is_named_and_missing_chapters_are_listed(tmp_path):
    write_chapter(tmp_path, "05_pooled", {"pooled_r2": 0.0357}, failed=True)
    write_chapter(tmp_path, "07_homogeneity", {"w9_hc3": 1.0}, params={**EXPECT, "seed": 2})
    text = findings_markdown(_book(tmp_path), EXPECT)
    assert "Build: `data_source` simulated, seed 1, fast mode yes; values read from 3 executed " \
           "chapters" in text
    incomplete = next(line for line in text.splitlines() if line.startswith("**Incomplete build.**"))
    assert "§4.1 Pooled (chapter 05): its execution failed" in incomplete
    assert "§4.3 Homogeneity (chapter 07): executed with other settings (seed 2)" in incomplete
    assert "MMLU-Pro (chapter 20): not executed" in incomplete
    assert "§2 Data (chapter 01)" not in incomplete and "(chapter 11)" not in incomplete
    assert "pooled" not in text.split("**On real data.**")[1].lower()


def test_a_failed_latest_run_supersedes_the_earlier_notebook(tmp_path):
    write_chapter(tmp_path, "11_rank_stability", HELM79, banner="real-banner")
    write_chapter(tmp_path, "11_rank_stability.failed", {}, failed=True)
    collection = read_build(tmp_path, EXPECT)
    assert "chap-rank-stability" in missing_chapters(collection, ("chap-rank-stability",))
    assert "Top-k displacement" not in findings_markdown(collection, EXPECT)
    # a failure under other parameters says nothing about this build's notebook
    (tmp_path / "11_rank_stability.failed.ipynb").unlink()
    write_chapter(tmp_path, "11_rank_stability.failed", {}, failed=True, params={**EXPECT, "seed": 9})
    assert "Top-k displacement" in findings_markdown(read_build(tmp_path, EXPECT), EXPECT)


def test_no_executed_chapters_shows_no_number(tmp_path):
    for folder in (tmp_path / "absent", tmp_path):
        text = findings_markdown(read_build(folder, EXPECT), EXPECT)
        assert "No chapter's values are available" in text and "|" not in text
        assert all(f"(chapter {chapter_stem(label)[:2]}): not executed" in text
                   for label in registry_chapters())


def test_registry_chapters_cover_every_real_result():
    assert {r.chapter for r in REAL_RESULTS} <= set(registry_chapters())
    assert [chapter_stem(label) for label in registry_chapters()] == sorted(map(chapter_stem,
                                                                                registry_chapters()))


def test_the_box_parses_as_one_table_with_whole_rows(tmp_path):
    body = _box_body(findings_markdown(_book(tmp_path), EXPECT))
    tokens = MarkdownIt("commonmark").enable("table").parse(body)
    assert [t.type for t in tokens].count("table_open") == 1
    widths, cells = [], 0
    for token in tokens:
        cells = 0 if token.type == "tr_open" else cells + (token.type in ("th_open", "td_open"))
        if token.type == "tr_close":
            widths.append(cells)
    assert widths == [7, 7, 7]  # header + the two HELM-79 results


def test_write_is_atomic_and_never_replaces_a_foreign_file(tmp_path):
    target = tmp_path / "gen" / "findings.md"
    write_findings(GENERATED_MARK + "\nfirst\n", target)
    with pytest.raises(TypeError):
        write_findings(123, target)  # fails mid-write
    assert target.read_text() == GENERATED_MARK + "\nfirst\n"
    assert os.listdir(target.parent) == ["findings.md"], "no partial file left behind"
    mine = tmp_path / "notes.md"
    mine.write_text("my own notes\n")
    with pytest.raises(ParameterError, match="not written by"):
        write_findings(GENERATED_MARK + "\n", mine)
    assert mine.read_text() == "my own notes\n"
    with pytest.raises(ParameterError, match="folder"):
        write_findings(GENERATED_MARK, tmp_path)


def test_placeholder_only_where_no_file_is(tmp_path):
    written = ensure_findings(tmp_path)
    assert written == tmp_path / "book/_generated/findings.md"
    assert "Not generated for this build" in written.read_text()
    written.write_text(GENERATED_MARK + "\nfrom a build\n")
    assert ensure_findings(tmp_path) is None
    assert written.read_text().endswith("from a build\n")


def test_cli_writes_the_box_and_reports_bad_input_in_one_line(tmp_path, capsys):
    (tmp_path / "ex").mkdir()
    _book(tmp_path / "ex")
    out = tmp_path / "findings.md"
    assert main(["--executed", str(tmp_path / "ex"), "--out", str(out), "--seed", "1", "--fast"]) == 0
    assert "Top-k displacement" in out.read_text()
    assert "missing chapters: 02_real_leaderboard" in capsys.readouterr().out
    (tmp_path / "ex" / "07_broken.ipynb").write_text("{not json")
    for argv in (["--seed", "-1"], ["--executed", str(tmp_path / "ex")],
                 ["--out", str(tmp_path / "ex" / "01_data.ipynb"), "--executed", str(tmp_path / "absent")]):
        assert main(["--out", str(out), *argv]) == 2
        err = capsys.readouterr().err
        assert err.startswith("findings: ") and err.count("\n") == 1, err
    assert "Top-k displacement" in out.read_text(), "a failed run leaves the last box whole"


def test_read_build_rejects_an_unreadable_notebook(tmp_path):
    (tmp_path / "04_complexity.ipynb").write_text("{")
    with pytest.raises(DataError, match="04_complexity"):
        read_build(tmp_path, EXPECT)
