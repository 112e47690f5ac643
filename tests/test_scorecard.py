"""Tests for the scorecard: reading glued values back from executed notebooks, verdicts."""

from __future__ import annotations

import html
import json
from pathlib import Path

import nbformat
import pandas as pd
import pytest
from IPython.core.formatters import format_display_data

from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.book.labels import label
from mmlu_audit.book.results import REAL_RESULTS, RESULT_KEYS, ResultKey
from mmlu_audit.core.paper import MMLU_PRO_SOURCES, PAPER
from mmlu_audit.book.scorecard import (
    PROVENANCE_SHORT,
    PROVENANCES,
    VERDICT_SHORT,
    VERDICTS,
    GluedValue,
    Tolerance,
    collect,
    headline,
    read_chapter,
    scorecard,
    scorecard_csv,
    scorecard_html,
    short_words_text,
    tolerance_for,
    verdict,
)


def glue_output(name, value):
    """The output myst_nb.glue(name, value, display=False) writes, built the same way."""
    bundle, metadata = format_display_data(value)
    prefix = "application/papermill.record/"
    metadata["scrapbook"] = {"name": name, "mime_prefix": prefix}
    return nbformat.v4.new_output("display_data", data={prefix + k: v for k, v in bundle.items()},
                                  metadata=metadata)


def banner_output(css):
    html = f'<div class="data-banner {css}"><p class="data-banner-title">x</p></div>'
    return nbformat.v4.new_output("display_data", data={"text/html": html, "text/plain": "<HTML>"})


def write_chapter(folder: Path, stem, values, banner="sim-banner", params=None, failed=False,
                  title="A chapter", finished=True):
    """A small executed notebook: title, parameters (+ injected), banner, glued values."""
    params = params or {"data_source": "simulated", "seed": 1, "fast": True}
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_markdown_cell(f"(chap-x)=\n# {title}\n\nProse."))
    defaults = nbformat.v4.new_code_cell('data_source = "simulated"\nseed = 0\nfast = False\n'
                                         'knob = len("abc")')
    defaults.metadata["tags"] = ["parameters"]
    injected = nbformat.v4.new_code_cell("\n".join(f"{k} = {v!r}" for k, v in params.items()))
    injected.metadata["tags"] = ["injected-parameters"]
    body = nbformat.v4.new_code_cell("glue_values(...)")
    body.outputs = ([banner_output(banner)] if banner else []) + \
        [glue_output(k, v) for k, v in values.items()]
    nb.cells += [defaults, injected, body]
    nb.metadata["papermill"] = {"exception": True if failed else None,
                                "end_time": "2026-12-01T10:00:00" if finished else None}
    path = folder / f"{stem}.ipynb"
    nbformat.write(nb, path)
    return path


EXPECT = {"data_source": "simulated", "seed": 1, "fast": True}


def test_read_chapter_recovers_values_source_parameters_and_title(tmp_path):
    path = write_chapter(tmp_path, "03_calibration",
                         {"b_sd": 2.2399, "n_items": 14042, "backend": "cpu (cpu)",
                          "bad": float("nan")}, title="Calibration")
    record = read_chapter(path)
    assert record.values == {"b_sd": 2.2399, "n_items": 14042, "backend": "cpu (cpu)",
                             "bad": pytest.approx(float("nan"), nan_ok=True)}
    assert type(record.values["n_items"]) is int
    assert record.source == "simulated" and record.title == "Calibration"
    assert record.finished and not record.failed
    assert record.parameters == EXPECT  # the computed default "knob" is not a parameter


def test_read_chapter_source_from_banner(tmp_path):
    assert read_chapter(write_chapter(tmp_path, "a", {}, banner="real-banner")).source == "real"
    assert read_chapter(write_chapter(tmp_path, "b", {}, banner=None)).source == "not stated"


def test_read_chapter_rejects_a_non_notebook(tmp_path):
    path = tmp_path / "broken.ipynb"
    path.write_text("{not json")
    with pytest.raises(DataError, match="broken.ipynb: not a readable executed notebook"):
        read_chapter(path)


def test_collect_keeps_first_chapter_and_skips_failed_stale_and_excluded(tmp_path):
    write_chapter(tmp_path, "01_data", {"n_items": 14042})
    write_chapter(tmp_path, "04_complexity", {"n_items": 999, "vif_max": 2.3}, banner="real-banner")
    write_chapter(tmp_path, "05_pooled", {"pooled_r2": 0.0357}, failed=True)
    write_chapter(tmp_path, "06_stratified", {"cv_r2_stem": 0.07},
                  params={**EXPECT, "seed": 2})
    write_chapter(tmp_path, "07_homogeneity", {"w9_cr2": 28.0}, finished=False)
    write_chapter(tmp_path, "98_scorecard", {"scorecard_reproduced": 3})
    got = collect(tmp_path, expect=EXPECT, exclude=("98_scorecard",))
    assert got.values["n_items"] == GluedValue("n_items", 14042, "01_data", "simulated")
    assert got.values["vif_max"].source == "real"
    assert set(got.values) == {"n_items", "vif_max"}
    assert got.skipped["05_pooled"] == "its execution failed"
    assert "'seed': 2" in got.skipped["06_stratified"]
    assert got.skipped["07_homogeneity"] == "its execution has not finished"
    assert [c.chapter for c in got.chapters] == ["01_data", "04_complexity", "05_pooled",
                                                 "06_stratified", "07_homogeneity"]


def test_collect_without_notebooks_names_the_folder(tmp_path):
    with pytest.raises(DataError, match="holds no executed chapter notebooks"):
        collect(tmp_path / "missing")
    with pytest.raises(DataError, match="holds no executed chapter notebooks"):
        collect(tmp_path)


@pytest.mark.parametrize("key, kind, amount", [
    ("n_items", "exact", 0), ("holm_survivors_cr1", "exact", 0),
    ("split_cohort_r", "absolute", 0.01), ("r_nodes_tokens", "absolute", 0.01),
    ("rho_2d", "absolute", 0.01), ("wcb_p", "absolute", 0.02),
    ("boot_p_d_ner", "absolute", 0.02), ("r2_gap_block_perm_p", "absolute", 0.02),
    ("pooled_r2", "relative", 0.05), ("heldout_paired_z", "relative", 0.05),
    ("ratio_framework_vs_length_stem", "relative", 0.05),
])
def test_tolerance_rules(key, kind, amount):
    assert tolerance_for(key) == Tolerance(kind, amount)


def test_every_published_key_is_registered_with_a_chapter_or_a_reason():
    assert set(RESULT_KEYS) == set(PAPER) | set(MMLU_PRO_SOURCES)
    for key, entry in RESULT_KEYS.items():
        assert isinstance(tolerance_for(key), Tolerance)
        assert (entry.chapter and entry.glue) or entry.reason, key


def test_every_glue_name_the_summaries_read_is_in_its_chapter_source():
    """A static guard in test-fast (the smoke build checks the executed glue names): every glue
    name the result registries, the tests' registry, the Discussion's claims and the scorecard read
    appears in the source of the chapter its label names, as a glued name or a dict key, so a
    renamed glue or chapter fails here rather than in the 15-minute smoke build."""
    import re

    from mmlu_audit.book.build import chapter_paths
    from mmlu_audit.book.chapters import declared_label
    from mmlu_audit.book.discussion import glue_names
    from mmlu_audit.book.findings import VERDICT_CHAPTER, verdict_glue_names
    from mmlu_audit.book.results import TESTS

    sources = {declared_label(p): p.read_text() for p in chapter_paths()}
    entries = [(e.chapter, e.glue) for e in RESULT_KEYS.values() if e.glue] + \
        [(r.chapter, name) for r in REAL_RESULTS for name in (r.glue, r.low, r.high, r.p) if name] + \
        [(test.chapter, name) for test in TESTS for name in (test.p, *test.values)] + \
        sorted(glue_names()) + [(VERDICT_CHAPTER, name) for name in verdict_glue_names()]
    generated = re.compile(r"\{f\"(\w+)_\{")  # {f"rs_r_{k}": …} makes every rs_r_* name
    missing = []
    for chapter, glue in entries:
        source = sources[chapter]
        prefixes = generated.findall(source)
        if not re.search(rf"[`\"']{re.escape(glue)}[`\"':]", source) \
                and not any(glue.startswith(prefix + "_") for prefix in prefixes):
            missing.append(f"{chapter}:{glue}")
    assert set(missing) == set(), "glue these names in their chapters, or fix the registry"


def test_result_key_states_a_chapter_or_a_reason_not_both():
    with pytest.raises(ValueError, match="not both"):
        ResultKey("chap-pooled", "x", reason="and a reason")
    with pytest.raises(ValueError, match="not both"):
        ResultKey(None, None)
    with pytest.raises(ValueError, match="basis"):
        ResultKey("chap-pooled", "x", basis="vibes")


def test_tolerance_boundaries():
    assert Tolerance("relative", 0.05).holds(105.0, 100.0)
    assert not Tolerance("relative", 0.05).holds(105.01, 100.0)
    assert Tolerance("relative", 0.05).holds(-4.75, -5.0)
    assert Tolerance("absolute", 0.01).holds(0.98, 0.99)
    assert not Tolerance("absolute", 0.01).holds(0.9799, 0.99)
    assert Tolerance("exact").holds(5, 5.0) and not Tolerance("exact").holds(4, 5)
    with pytest.raises(ParameterError, match="unknown kind"):
        Tolerance("loose")
    with pytest.raises(ParameterError, match="non-negative"):
        Tolerance("absolute", -1)


def test_verdicts():
    sim = GluedValue("b_sd", 2.30, "03_calibration", "simulated")
    outcome, why = verdict("b_sd", sim)
    assert outcome == VERDICTS[1] and "by construction" in why
    assert verdict("theta_sd", GluedValue("theta_sd", 1.03, "02", "simulated"))[1] == "tolerance ±5 %"
    real = GluedValue("b_sd", 2.40, "03_calibration", "real")
    assert verdict("b_sd", real) == (VERDICTS[2], "tolerance ±5 %")
    assert verdict("b_sd", GluedValue("b_sd", 2.25, "02", "real"))[0] == VERDICTS[0]
    # counts from the real items are real whatever the banner says
    assert verdict("n_items", GluedValue("n_items", 14042, "01", "simulated"))[0] == VERDICTS[0]
    assert verdict("n_items", GluedValue("n_items", 14041, "01", "real"))[0] == VERDICTS[2]
    for odd in ("cpu", float("nan"), True, None):
        outcome, why = verdict("b_sd", GluedValue("b_sd", odd, "02", "real"))
        assert outcome == "not computable" and "not a finite number" in why
    outcome, why = verdict("rho_2d", None)
    assert outcome == "not computable" and "chapter 16 glued no `rho_2d`" in why
    assert verdict("n_archives", None) == ("not computable", RESULT_KEYS["n_archives"].reason)


@pytest.mark.parametrize("ours, outcome", [
    (True, VERDICTS[1]), ("yes", VERDICTS[1]), (False, VERDICTS[2]), ("no", VERDICTS[2]),
    ("maybe", "not computable"),
])
def test_yes_no_results_are_scored(ours, outcome):
    assert PAPER["rasch_conclusions_intact"][0] is True
    got = verdict("rasch_conclusions_intact", GluedValue("rasch_conclusions_intact", ours, "09", "simulated"))
    assert got[0] == outcome


def test_scorecard_looks_values_up_where_the_registry_says(tmp_path):
    write_chapter(tmp_path, "01_data", {"n_items": 14042, "share_nonstem": 0.77546, "n_models": 1000})
    write_chapter(tmp_path, "03_calibration", {"b_sd": 2.25, "theta_sd": 1.5})
    write_chapter(tmp_path, "05_pooled", {"ceiling_global": 0.1270, "n_items": 1})  # n_items: 01 wins
    write_chapter(tmp_path, "11_rank_stability", {"helm_tau_stem": 0.91, "helm_displacement": 0.3,
                                                  "helm_displacement_interval":
                                                      {"low": 0.2, "high": 0.4, "method": "exact"},
                                                  "helm_null_blocks_p": 0.5})
    table = scorecard(collect(tmp_path))
    assert set(RESULT_KEYS) <= set(table.index) and table.index.is_unique
    assert table.loc["encoder_ceiling_pooled", "ours"] == 0.1270  # glued as ceiling_global
    assert table.loc["encoder_ceiling_pooled", "verdict"] == VERDICTS[1]
    assert table.loc["share_nonstem_items", "verdict"] == VERDICTS[0]
    assert table.loc["share_nonstem_items", "provenance"] == "real items"
    assert table.loc["n_models", "provenance"] == "simulated responses"
    assert table.loc["theta_sd", "verdict"] == VERDICTS[2]
    assert table.loc["pooled_r2", "verdict"] == "not computable"
    assert pd.isna(table.loc["pooled_r2", "chapter"]) and pd.isna(table.loc["pooled_r2", "ours"])
    helm = table.loc["helm_displacement"]
    assert (helm["provenance"], helm["low"], helm["high"], helm["p"]) == ("real responses", 0.2, 0.4, 0.5)
    assert helm["verdict"] == VERDICTS[3] == "real data, another population than the paper's"
    assert helm["paper"] == PAPER["displacement"][0]
    order = table["provenance"].map({"real items": 0, "real responses": 0}).fillna(
        table["provenance"].map({"simulated responses": 1})).fillna(2)
    assert order.is_monotonic_increasing  # real rows first, then simulated, then the rest
    counts = headline(table)
    assert counts["scorecard_n_rows"] == len(table)
    assert counts["scorecard_n_reproduced_real"] == 2 and counts["scorecard_n_differs"] == 1


def test_a_value_takes_the_banner_above_it(tmp_path):
    """A real section under a simulated page banner: its values are real, the rest simulated."""
    path = write_chapter(tmp_path, "18_appendix_d_redux", {"n_flagged": 3})
    nb = nbformat.read(path, as_version=4)
    later = nbformat.v4.new_code_cell("x")
    later.outputs = [banner_output("real-banner"), glue_output("acc_flagged", 0.6)]
    nb.cells.append(later)
    nbformat.write(nb, path)
    record = read_chapter(path)
    assert record.sources == {"n_flagged": "simulated", "acc_flagged": "real"}
    assert record.source == "simulated"


def test_a_chapter_still_being_written_is_not_read(tmp_path):
    write_chapter(tmp_path, "01_data", {"n_items": 14042})
    write_chapter(tmp_path, ".05_pooled.o1rm5rcb.running", {"pooled_r2": 0.03})
    assert [c.chapter for c in collect(tmp_path).chapters] == ["01_data"]


def test_reads_a_real_myst_nb_glue(tmp_path):
    """The hand-built glue output matches what myst_nb.glue writes in a live kernel."""
    from IPython.core.interactiveshell import InteractiveShell
    from myst_nb.ext.glue import glue

    shell = InteractiveShell.instance()
    captured = []
    shell.display_pub.publish = lambda data, metadata=None, **kw: captured.append((data, metadata))
    glue("pooled_r2", 0.0361, display=False)
    data, metadata = captured[-1]
    assert metadata["scrapbook"] == glue_output("pooled_r2", 0.0361)["metadata"]["scrapbook"]
    assert data == dict(glue_output("pooled_r2", 0.0361)["data"])
    json.dumps(data)


def test_bookbuild_tells_the_chapters_that_declare_it_where_the_pages_go():
    from mmlu_audit.book.build import chapter_parameters, chapter_paths

    declared = {p.stem for p in chapter_paths() if "executed_dir" in chapter_parameters(p)}
    assert {"21_answer_key_audit", "12_real_verdicts", "13_discussion", "98_scorecard",
            "99_performance"} <= declared
    assert "01_data" not in declared  # only a chapter that declares it is told


def test_scorecard_html_groups_by_chapter_with_one_caveat_and_escapes(tmp_path):
    write_chapter(tmp_path, "03_calibration", {"b_sd": 2.2512345, "theta_sd": 1.03, "b_min": -5.0})
    table = scorecard(collect(tmp_path))
    page = scorecard_html(table, {"03_calibration": "Calibration & fit"},
                          provenances=("simulated responses",))
    assert page.count('class="sc-group"') == 1 and "§3 Calibration" in page
    assert page.count("Simulated responses: a match") == 1  # one caveat for the group
    assert 'title="Calibration &amp; fit">03</a>' in page
    assert "<td>2.251</td>" in page and "<td>-5</td>" in page
    assert page.split("<tbody>")[1].count("<tr>") == 3
    assert 'class="sc-verdict v-planted"' in page
    table.loc["b_sd", "why"] = "needs <the leaderboard> & more"
    page = scorecard_html(table, {})
    assert "needs &lt;the leaderboard&gt; &amp; more" in page and "<the leaderboard>" not in page


def test_a_published_row_shows_the_real_data_values_of_the_same_quantity(tmp_path):
    write_chapter(tmp_path, "11_rank_stability", {"tau_stem": 0.9634, "helm_tau_stem": 0.8125,
                                                  "h20_tau_stem": 0.65})
    table = scorecard(collect(tmp_path, expect=EXPECT))
    assert table.loc["tau_stem", "real"] == "0.8125 (HELM per-subject table, 79 models); " \
                                            "0.65 (HELM item level, 20 models)"
    assert pd.isna(table.loc["tau_nonstem", "real"]) and pd.isna(table.loc["helm_tau_stem", "real"])
    page = scorecard_html(table, {})
    assert "<th>real data</th>" in page
    assert '<td class="sc-real">0.8125 (HELM per-subject table, 79 models); 0.65 (HELM item level, ' \
           '20 models)</td>' in page


def test_the_compact_table_is_made_to_fit_with_full_words_in_tooltips(tmp_path):
    write_chapter(tmp_path, "03_calibration", {"b_sd": 2.2512345, "theta_sd": 1.03, "b_min": -5.0})
    table = scorecard(collect(tmp_path))
    page = scorecard_html(table, {}, provenances=("simulated responses",))
    assert '<table class="scorecard fit-width">' in page  # the browser check holds it to its column
    assert '<td class="sc-prov" title="simulated responses: data_source simulated">simulated</td>' in page
    verdict = table.loc["b_sd", "verdict"]
    assert f'title="{html.escape(verdict)}">{VERDICT_SHORT[verdict]}</td>' in page
    # a row is named in the label registry's words, not by its key (issue 49); the CSV keeps the key
    assert f">{label('b_sd')}</td>" in page and f">{label('theta_sd')}</td>" in page
    assert "b_<wbr>sd" not in page
    assert scorecard_csv(table).set_index("key").loc["b_sd", "label"] == label("b_sd")
    assert set(VERDICT_SHORT) == set(VERDICTS) and set(PROVENANCE_SHORT) == set(PROVENANCES)
    legend = short_words_text()
    assert "“reproduces (simulated)” for reproduces the paper's value (simulated world)" in legend
    assert "“items” for real items" in legend and "not computable" not in legend  # kept whole: no legend


def test_the_scorecards_rho_is_the_chapters_glued_rho_and_the_real_rho_comes_with_its_interval(tmp_path):
    """The row ``rho_2d`` shows what chapter 16 glues as ``rho_2d`` (0.9871), never the working models'
    ρ (0.9645, glued as ``rho_2d_working``) in its place; the real population's ρ is a row of its own
    with its Fisher interval."""
    glued = {"rho_2d": 0.9871, "rho_2d_working": 0.9645, "real_rho_2d": 0.923, "real_rho_2d_low": 0.845,
             "real_rho_2d_high": 0.962}
    write_chapter(tmp_path, "16_appendix_c_2d_irt", glued)
    table = scorecard(collect(tmp_path))
    row = table.loc["rho_2d"]
    assert (row["ours"], row["glue"]) == (glued["rho_2d"], "rho_2d")
    assert "WorldSpec.rho" in row["why"]  # on a simulated source the match is by construction
    real = table.loc["real_rho_2d"]
    assert (real["ours"], real["low"], real["high"]) == (0.923, 0.845, 0.962)
    assert real["paper"] == PAPER["rho_2d"][0] and "31 models" in real["section"]


def test_a_summary_never_sets_another_quantity_or_population_size_beside_the_papers():
    """r(β, STEM accuracy logit) is not the paper's r(β, θ̂), so it has no paper value beside it; the
    MMLU-Pro panel staged here is 34 models (29 published + 5 recovered), as the chapters read it."""
    by_glue = {r.glue: r for r in REAL_RESULTS}
    assert by_glue["helm_r_beta_acc"].compare is None
    assert by_glue["pro_b_sd"].population.startswith("MMLU-Pro, 34 models")
    reason = RESULT_KEYS["n_archives"].reason
    assert "34 models" in reason and "only 29" not in reason
