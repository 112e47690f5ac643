"""The summaries (landing page, Scorecard, Discussion) show what their chapters show (issue 40, point 1).

Each test builds small executed notebooks and reads them back the way the summary pages do; each
fails on the behaviour the reviewer found: a percentile interval where the chapter says to read the
exact one, a statistic beside another test's p, "recovered as planted" for a match with the paper,
the real-leaderboard chapter's real rows filed as "not computed by any chapter", the blog post's
numbers counted as published values, no CSV downloads, and a p of 0 printed as "0".
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from mmlu_audit.book.chapters import chapter_stem
from mmlu_audit.book.discussion import (CLAIMS, EVIDENCE_OUTCOMES, SIMULATED, Evidence, evidence_display,
                                        evidence_table)
from mmlu_audit.book.findings import (CLAIMS_CSV, REAL_RESULTS_CSV, findings_markdown, main, read_build,
                                      real_results_frame, write_downloads)
from mmlu_audit.book.scorecard import (CHAPTER_SHORT_NAMES, VERDICT_SHORT, VERDICTS, chapters_read, collect,
                                       declared_interval, scorecard, scorecard_csv, scorecard_html,
                                       verdict_words)
from mmlu_audit.book.report import format_p
from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.book.results import REAL_RESULTS, TESTS, RealResult, interval_to_read, paired, registered_test
from mmlu_audit.core.paper import (CONSENSUS_BLOG_POST, MMLU_PRO_PAPER, PAPER, RECOVERS, REPRODUCES,
                                   source_kind)

from test_scorecard import write_chapter
from test_replication import claims_json

EXPECT = {"data_source": "simulated", "seed": 1, "fast": True}
CHAPTERS = Path(__file__).resolve().parents[1] / "chapters"
#: The rank-stability chapter as it glues the HELM-79 displacement: the percentile bootstrap (a few
#: atoms), the exact interval, and the declaration of the one to read.
HELM79 = {"helm_displacement": 0.2, "helm_displacement_low": 0.1, "helm_displacement_high": 0.3025,
          "helm_displacement_exact_low": 0.03, "helm_displacement_exact_high": 0.56,
          **interval_to_read("helm_displacement", 0.03, 0.56, "exact Clopper–Pearson 95 %"),
          "helm_tau_stem": 0.81, "helm_tau_nonstem": 0.95, "helm_null_blocks_p": 0.03}
#: The MMLU-Pro chapter's homogeneity glue, with the reviewer's full-build numbers.
PRO = {"pro_w9_cr2": 138.6, "pro_w9_cr2_p": 2e-25, "pro_htz_F": 3.1, "pro_htz_p": 0.21,
       "pro_wcr_stat": 138.6, "pro_wcr_p": 0.080}


def _source(label: str) -> str:
    return (CHAPTERS / f"{chapter_stem(label)}.py").read_text()


def _row(text: str, label: str) -> list[str]:
    line = next(line for line in text.splitlines() if line.startswith(f"| {label}"))
    return [cell.strip() for cell in line.strip("|").split(" | ")]


def _build(folder, **chapters):
    """Executed notebooks for ``chapters`` (stem → values), real banners, read as the summaries read them."""
    for stem, values in chapters.items():
        write_chapter(folder, stem, values, banner="real-banner")
    return read_build(folder, EXPECT)


# -- the interval the chapter says to read ---------------------------------------------------------------

def test_every_summary_shows_the_interval_rank_stability_declares(tmp_path):
    collection = _build(tmp_path, **{"11_rank_stability": HELM79})
    row = scorecard(collection).loc["helm_displacement"]
    assert (row["low"], row["high"], row["interval"]) == (0.03, 0.56, "exact Clopper–Pearson 95 %")
    cells = _row(findings_markdown(collection, EXPECT), "Top-k displacement")
    assert cells[3] == "0.03 to 0.56 (exact Clopper–Pearson 95 %)"
    evidence = evidence_table(collection).set_index("glue").loc["chap-rank-stability:helm_displacement"]
    assert (evidence["low"], evidence["high"]) == (0.03, 0.56)
    for shown in (findings_markdown(collection, EXPECT), scorecard_html(scorecard(collection), {})):
        assert "0.3025" not in shown and "0.1 to" not in shown  # the percentile bootstrap is never shown


def test_rank_stability_declares_its_interval_and_the_registries_name_no_other():
    assert re.search(r'interval_to_read\(\s*"helm_displacement"', _source("chap-rank-stability"))
    entry = next(r for r in REAL_RESULTS if r.glue == "helm_displacement")
    evidence = next(e for c in CLAIMS for e in c.evidence if e.glue == "helm_displacement")
    assert (entry.low, entry.high, evidence.low, evidence.high) == (None, None, None, None)


def test_a_hand_glued_interval_name_is_refused(tmp_path):
    collection = _build(tmp_path, **{"11_rank_stability": {"helm_displacement_interval": "0.03–0.56"}})
    with pytest.raises(DataError, match="helm_displacement_interval"):
        declared_interval(collection, "chap-rank-stability", "helm_displacement")


def test_the_fisher_interval_of_section_5_1_reaches_every_summary(tmp_path):
    collection = _build(tmp_path, **{"08_reasoning_sensitivity": {"helm_r_beta_acc": 0.55, "helm_r_low": 0.14,
                                                                  "helm_r_high": 0.8}})
    assert _row(findings_markdown(collection, EXPECT), "r(β, STEM accuracy logit)")[3] == "0.14 to 0.8"
    assert scorecard(collection).loc["helm_r_beta_acc", ["low", "high"]].tolist() == [0.14, 0.8]
    evidence = evidence_table(collection).set_index("glue").loc["chap-reasoning-sensitivity:helm_r_beta_acc"]
    assert [evidence["low"], evidence["high"]] == [0.14, 0.8]


def _registry_names():
    """(chapter, glue name) of every value, bound and p the summaries read."""
    names = {(r.chapter, n) for r in REAL_RESULTS for n in (r.glue, r.low, r.high, r.p) if n}
    names |= {(e.chapter, n) for c in CLAIMS for e in c.evidence for n in (e.glue, e.low, e.high, e.p) if n}
    names |= {(t.chapter, n) for t in TESTS for n in (t.p, *t.values)}
    return sorted(names)


def _glued_by(chapter: str, name: str) -> bool:
    """Whether ``name`` is a key the chapter's source writes, directly or from a library result dict.

    The real-verdicts chapter glues its pool's values as ``f"pool_{key}"`` over the library's result keys.
    """
    key = name.removeprefix("pool_") if chapter == "chap-real-verdicts" else name
    library = CHAPTERS.parent / "lib" / "mmlu_audit"
    return f'"{name}"' in _source(chapter) or any(f'"{key}"' in path.read_text()
                                                  for path in library.rglob("*.py"))


@pytest.mark.parametrize("chapter, name", _registry_names())
def test_every_name_a_summary_reads_is_glued(chapter, name):
    """A key mismatch (the registry naming a glue nothing writes) shows as "—" on a summary: caught here."""
    assert _glued_by(chapter, name), f"chapter {chapter} glues no {name!r}"


def test_a_misspelt_name_is_caught():
    assert not _glued_by("chap-reasoning-sensitivity",
                         "helm_r_lo") and _glued_by("chap-reasoning-sensitivity", "helm_r_low")


# -- a statistic travels with its own test's p ------------------------------------------------------------

def test_every_row_and_claim_pairs_a_statistic_with_its_own_tests_p():
    for result in REAL_RESULTS:
        assert result.p is None or paired(result.chapter, result.glue, result.p), result
    for evidence in (e for claim in CLAIMS for e in claim.evidence):
        assert evidence.p is None or paired(evidence.chapter, evidence.glue, evidence.p), evidence
    assert len({(t.chapter, t.p) for t in TESTS}) == len(TESTS), "one test per p-value"


def test_the_mmlu_pro_statistic_is_refused_beside_the_bootstrap_p():
    assert not paired("chap-mmlu-pro", "pro_w9_cr2", "pro_wcr_p")
    with pytest.raises(ValueError, match="wild cluster bootstrap"):
        RealResult("chap-mmlu-pro", "pro_w9_cr2", "W(9)", "MMLU-Pro", p="pro_wcr_p")
    with pytest.raises(ParameterError, match="wild cluster bootstrap"):
        Evidence("chap-mmlu-pro", "pro_w9_cr2", "W(9)", conditions=(), kind="context", p="pro_wcr_p")


def test_the_mmlu_pro_rows_show_each_tests_own_p(tmp_path):
    collection = _build(tmp_path, **{"20_mmlu_pro": PRO})
    table = scorecard(collection)
    assert table.loc["pro_w9_cr2", ["ours", "p"]].tolist() == [138.6, 2e-25]
    assert table.loc["pro_wcr_stat", ["ours", "p"]].tolist() == [138.6, 0.080]
    assert registered_test("chap-mmlu-pro", "pro_w9_cr2_p").name == table.loc["pro_w9_cr2", "test"]
    text = findings_markdown(collection, EXPECT)
    assert _row(text, "W(9) homogeneity, CR2 Wald (χ² p)")[2:5] == ["138.6", "—", "\\< 1e-4"]
    assert _row(text, "W(9) homogeneity, CR2 Wald (wild cluster bootstrap p)")[4] == "0.08"


#: The answer-key audit as it glues the wrong-key recall (28 of 61, Wilson interval) and the check
#: against the corrected keys on health (precision with its exact interval; odds ratio, exact
#: interval, Fisher p).
KEY_AUDIT = {"recall_wrong_key": 28 / 61, "recall_wrong_key_low": 0.340, "recall_wrong_key_high": 0.583,
             "fix_health_precision": 0.2, "fix_health_precision_low": 0.08,
             "fix_health_precision_high": 0.39, "fix_health_or": 31.5, "fix_health_or_low": 7.9,
             "fix_health_or_high": 140.0, "fix_health_p": 9.8e-08}


def test_the_key_audit_rows_show_the_chapters_interval_p_and_population(tmp_path):
    """Issue 49: Fisher's p sat on the precision row, not the odds ratio's; the recall lost its interval."""
    collection = _build(tmp_path, **{"21_answer_key_audit": KEY_AUDIT})
    table = scorecard(collection)
    population = next(r.population for r in REAL_RESULTS if r.glue == "fix_health_or")
    expected = {"recall_wrong_key": (0.340, 0.583, None), "fix_health_precision": (0.08, 0.39, None),
                "fix_health_or": (7.9, 140.0, 9.8e-08)}
    for key, (low, high, p) in expected.items():
        row = table.loc[key]
        assert (row["ours"], row["low"], row["high"]) == (KEY_AUDIT[key], low, high), key
        assert (row["p"] if p else None) == p and (p is not None or pd.isna(row["p"])), key
        assert row["section"] == population, key  # the row's population is the chapter's panel
    assert table.loc["fix_health_or", "test"] == registered_test("chap-answer-key-audit", "fix_health_p").name
    text = findings_markdown(collection, EXPECT)
    recall = _row(text, "recall of the experts' wrong-key label")
    assert recall[3] == "0.34 to 0.583" and recall[4] == "—"
    assert _row(text, "consensus rule: precision on health")[3:5] == ["0.08 to 0.39", "—"]
    assert _row(text, "consensus rule: odds ratio for a corrected key")[3:5] == ["7.9 to 140", "\\< 1e-4"]
    assert all(_row(text, r.label)[1] == population for r in REAL_RESULTS if r.glue in expected)


# -- one vocabulary ---------------------------------------------------------------------------------------

def test_two_terms_worded_once_and_used_on_all_three_surfaces(tmp_path):
    write_chapter(tmp_path, "05_pooled", {"pooled_r2": 0.0357, "pooled_F": 80.0})  # simulated banner
    write_chapter(tmp_path, "01_data", {"n_items": 14042}, banner="real-banner")
    collection = read_build(tmp_path, EXPECT)
    text = findings_markdown(collection, EXPECT)
    assert f"(simulated responses) — {REPRODUCES} (simulated world): 1 of 2" in text
    assert f"(real items) — {REPRODUCES}: 1 of 1" in text
    assert VERDICTS[:2] == (f"{REPRODUCES} (real data)", f"{REPRODUCES} (simulated world)")
    assert SIMULATED[0] == RECOVERS and EVIDENCE_OUTCOMES[2] == RECOVERS
    page = scorecard_html(scorecard(collection), {})
    for shown in (text, page, " ".join(VERDICTS + SIMULATED + EVIDENCE_OUTCOMES)):
        assert "recovered as planted" not in shown and not re.search(r"\bas planted\b", shown)
    assert RECOVERS not in " ".join(VERDICTS) and REPRODUCES not in " ".join(SIMULATED)


# -- the real-leaderboard chapter and per-row provenance --------------------------------------------------

def test_real_leaderboard_rows_are_filed_under_their_chapter_with_their_source(tmp_path):
    write_chapter(tmp_path, "02_real_leaderboard", {"split_distinct_sb": 0.993, "best_r_theta": 0.97},
                  banner="real-banner")
    collection = collect(tmp_path)
    page = scorecard_html(scorecard(collection), {}, provenances=("real items", "real responses"))
    assert CHAPTER_SHORT_NAMES["chap-real-leaderboard"] in page and "not computed by any chapter" not in page
    assert "no paper value" not in page and VERDICT_SHORT[VERDICTS[3]] == "other population"
    assert "Open LLM LB 4,278 × 102" in page and "for its own 1,000 leaderboard models" in page


def test_chapters_read_names_a_real_chapter_with_a_simulated_section(tmp_path):
    import nbformat

    from test_scorecard import banner_output

    path = write_chapter(tmp_path, "02_real_leaderboard", {"best_r_theta": 0.97}, banner="real-banner")
    notebook = nbformat.read(path, as_version=4)
    notebook.cells[-1].outputs.append(banner_output("sim-banner"))  # the power worlds, further down
    nbformat.write(notebook, path)
    real_only = write_chapter(tmp_path, "20_mmlu_pro", {"pro_b_sd": 1.3}, banner="real-banner",
                              params={"seed": 1})
    notebook = nbformat.read(real_only, as_version=4)
    notebook.cells[1].source = "seed = 0\nfast = False"  # a real-only chapter has no data_source
    nbformat.write(notebook, real_only)
    table = chapters_read(collect(tmp_path)).set_index("chapter")
    assert table.loc["02_real_leaderboard", "responses"] == "real, with simulated sections"
    assert table.loc["02_real_leaderboard", "data_source"] == "simulated"
    assert table.loc["20_mmlu_pro", ["responses", "data_source"]].tolist() == \
        ["real", "none: its fixed real sources"]


# -- the blog post is not a paper -------------------------------------------------------------------------

def test_the_blog_posts_numbers_are_counted_and_labelled_apart(tmp_path):
    assert {source_kind(k) for k in CONSENSUS_BLOG_POST} == {"blog post"}
    assert {source_kind(k) for k in [*PAPER, *MMLU_PRO_PAPER]} == {"paper"}
    write_chapter(tmp_path, "21_answer_key_audit", {"flag_rate_all": 1210 / 12032, "n_flagged": 1092},
                  banner="real-banner")
    write_chapter(tmp_path, "20_mmlu_pro", {"n_pro_items": 12032}, banner="real-banner")
    text = findings_markdown(read_build(tmp_path, EXPECT), EXPECT)
    papers, blog = text.split("Not a paper")
    assert "MMLU-Pro key audit" not in papers and "MMLU-Pro </book" in papers
    assert "reproduces the blog post's value: 1 of 2" in blog and "blog post" in blog
    assert verdict_words(VERDICTS[0], "blog post") == "reproduces the blog post's value (real data)"
    table = scorecard(read_build(tmp_path, EXPECT))
    assert table.loc["flag_rate_all", "reported_by"] == "blog post"
    assert scorecard_csv(table).set_index("key").loc["n_flagged", "verdict"] == \
        "differs from the blog post's value"


# -- CSV downloads ----------------------------------------------------------------------------------------

def test_the_landing_page_links_the_csvs_it_writes_beside_it(tmp_path):
    (tmp_path / "ex").mkdir()
    write_chapter(tmp_path / "ex", "11_rank_stability", HELM79, banner="real-banner")
    write_chapter(tmp_path / "ex", "12_real_verdicts", {"claims_json": claims_json()},
                  banner="real-banner")
    out = tmp_path / "_generated" / "findings.md"
    assert main(["--executed", str(tmp_path / "ex"), "--out", str(out), "--seed", "1", "--fast"]) == 0
    text = out.read_text()
    for name in (CLAIMS_CSV, REAL_RESULTS_CSV):
        assert f"<_generated/{name}>`" in text and (out.parent / name).is_file()
    results = pd.read_csv(out.parent / REAL_RESULTS_CSV)
    row = results[results["result"].str.startswith("Top-k displacement")].iloc[0]
    assert (row["interval"], row["p of"]) == ("0.03 to 0.56 (exact Clopper–Pearson 95 %)",
                                              registered_test("chap-rank-stability",
                                                              "helm_null_blocks_p").name)
    assert "Structural homogeneity" in pd.read_csv(out.parent / CLAIMS_CSV)["claim"].iloc[0]


def test_no_link_without_its_csv(tmp_path):
    (tmp_path / "ex").mkdir()
    collection = _build(tmp_path / "ex", **{"01_data": {"n_items": 14042}})
    (tmp_path / CLAIMS_CSV).write_text("stale")  # not written by the findings module: kept
    assert write_downloads(collection, tmp_path) == []  # no verdict chapter, no real result
    assert (tmp_path / CLAIMS_CSV).read_text() == "stale"
    (tmp_path / CLAIMS_CSV).unlink()
    verdicts = _build(tmp_path / "ex", **{"12_real_verdicts": {"claims_json": claims_json()}})
    assert write_downloads(verdicts, tmp_path) == [tmp_path / CLAIMS_CSV]
    assert write_downloads(collection, tmp_path) == []
    assert not (tmp_path / CLAIMS_CSV).exists(), "a stale download of its own is removed"
    assert "{download}" not in findings_markdown(collection, EXPECT)


@pytest.mark.parametrize("label, name", [("chap-scorecard", "scorecard.csv"),
                                         ("chap-real-verdicts", "real_verdicts_claims.csv"),
                                         # issue 49: the five pages that had none
                                         ("chap-homogeneity", "homogeneity_real_contrasts.csv"),
                                         ("chap-homogeneity", "homogeneity_side_by_side.csv"),
                                         ("chap-rank-stability", "rank_stability_helm.csv"),
                                         ("chap-appendix-c", "appendix_c_side_by_side.csv"),
                                         ("chap-appendix-c-explanatory", "explanatory_identification.csv"),
                                         ("chap-appendix-c-explanatory", "explanatory_contrasts.csv"),
                                         ("chap-validity", "validity_size_power.csv"),
                                         ("chap-validity", "validity_seed_study.csv"),
                                         ("chap-mmlu-pro", "mmlu_pro_homogeneity.csv")])
def test_the_pages_write_the_csv_they_link(label, name):
    source = _source(label)
    assert "write_download(" in source and f'"{name}", executed_dir)' in source
    assert f"<{name}>`" in source and 'executed_dir = "../book/_executed"' in source


# -- p below display precision ----------------------------------------------------------------------------

def test_a_p_value_is_formatted_in_one_place():
    from pathlib import Path

    import mmlu_audit

    lib = Path(mmlu_audit.__file__).parent
    homes = [str(f.relative_to(lib)) for f in sorted(lib.rglob("*.py")) if "def format_p(" in f.read_text()]
    assert homes == ["book/report.py"]


def test_a_p_below_display_precision_prints_as_a_bound_never_0(tmp_path):
    assert [format_p(v) for v in (0.0, 0, 2e-25, 0.0312, None, float("nan"))] == \
        ["< 1e-4", "< 1e-4", "< 1e-4", "0.0312", "—", "—"]
    collection = _build(tmp_path, **{"11_rank_stability": HELM79 | {"helm_null_blocks_p": 0.0}})
    assert _row(findings_markdown(collection, EXPECT), "Top-k displacement")[4] == "\\< 1e-4"
    page = scorecard_html(scorecard(collection), {})
    assert "p &lt; 1e-4" in page and not re.search(r"p 0(?![.\d])", page)
    shown = evidence_display(evidence_table(collection)).set_index("glue")
    assert shown.loc["chap-rank-stability:helm_displacement", "p"] == "< 1e-4"
    results = real_results_frame(scorecard(collection)).set_index("result")
    assert results.filter(like="Top-k", axis=0)["p"].iloc[0] == "< 1e-4"
    write_chapter(tmp_path, "07_homogeneity", {"wcb_p": 0.0})  # a simulated published p of 0
    text = findings_markdown(read_build(tmp_path, EXPECT), EXPECT)
    assert "wild cluster bootstrap p \\< 1e-4 against 0.06" in text  # in the registry's words


def test_the_evidence_summary_keeps_every_row_in_eight_columns(tmp_path):
    from mmlu_audit.book.discussion import evidence_summary

    collection = _build(tmp_path, **{"11_rank_stability": HELM79 | {"helm_null_blocks_p": 0.0}})
    evidence = evidence_table(collection)
    summary = evidence_summary(evidence)
    assert list(summary.columns) == ["claim", "kind", "evidence", "responses", "estimate", "p", "outcome",
                                     "why"]
    assert len(summary) == len(evidence) and list(summary["outcome"]) == list(evidence["outcome"])
    assert list(summary["why"].str.replace("\u200b", "")) == list(evidence["why"])  # only break points added
    assert not summary["estimate"].str.contains("nan").any()
    assert not summary["p"].astype(str).str.contains("nan").any()
    row = summary[evidence["glue"].eq("chap-rank-stability:helm_displacement").to_numpy()].iloc[0]
    assert row["p"].startswith("< 1e-4 (") and row["responses"].startswith("real: ")
    assert row["estimate"].endswith("]") and "[" in row["estimate"]  # the interval the chapter says to read


def test_the_claims_table_reads_the_prediction_interval_flags_back_from_json(tmp_path):
    from mmlu_audit.book.findings import claims_frame

    (tmp_path / "ex").mkdir()
    write_chapter(tmp_path / "ex", "12_real_verdicts", {"claims_json": claims_json()}, banner="real-banner")
    table = claims_frame(read_build(tmp_path / "ex", {"data_source": "simulated", "seed": 1, "fast": True}))
    flags = table["in the paper's prediction interval"]
    assert set(flags) <= {"yes", "no", "not computable"} and (flags != "not computable").any()
