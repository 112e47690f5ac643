"""Tests for the scorecard: reading glued values back from executed notebooks, verdicts."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pandas as pd
import pytest
from IPython.core.formatters import format_display_data

from mmlu_audit.core.errors import DataError
from mmlu_audit.core.paper import PAPER
from mmlu_audit.book.scorecard import (
    NOT_COMPUTABLE_REASONS,
    VERDICTS,
    GluedValue,
    Tolerance,
    collect,
    not_computable_reason,
    read_chapter,
    scorecard,
    scorecard_html,
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
    path = write_chapter(tmp_path, "02_calibration",
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
    write_chapter(tmp_path, "03_complexity", {"n_items": 999, "vif_max": 2.3}, banner="real-banner")
    write_chapter(tmp_path, "04_pooled", {"pooled_r2": 0.0357}, failed=True)
    write_chapter(tmp_path, "05_stratified", {"cv_r2_stem": 0.07},
                  params={**EXPECT, "seed": 2})
    write_chapter(tmp_path, "06_homogeneity", {"w9_cr2": 28.0}, finished=False)
    write_chapter(tmp_path, "98_scorecard", {"scorecard_reproduced": 3})
    got = collect(tmp_path, expect=EXPECT, exclude=("98_scorecard",))
    assert got.values["n_items"] == GluedValue("n_items", 14042, "01_data", "simulated")
    assert got.values["vif_max"].source == "real"
    assert set(got.values) == {"n_items", "vif_max"}
    assert got.skipped["04_pooled"] == "its execution failed"
    assert "'seed': 2" in got.skipped["05_stratified"]
    assert got.skipped["06_homogeneity"] == "its execution has not finished"
    assert [c.chapter for c in got.chapters] == ["01_data", "03_complexity", "04_pooled",
                                                 "05_stratified", "06_homogeneity"]


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


def test_every_paper_key_has_a_tolerance_and_a_reason():
    for key in PAPER:
        assert isinstance(tolerance_for(key), Tolerance)
        assert not_computable_reason(key) in {reason for _, reason in NOT_COMPUTABLE_REASONS}


def test_tolerance_boundaries():
    assert Tolerance("relative", 0.05).holds(105.0, 100.0)
    assert not Tolerance("relative", 0.05).holds(105.01, 100.0)
    assert Tolerance("relative", 0.05).holds(-4.75, -5.0)
    assert Tolerance("absolute", 0.01).holds(0.98, 0.99)
    assert not Tolerance("absolute", 0.01).holds(0.9799, 0.99)
    assert Tolerance("exact").holds(5, 5.0) and not Tolerance("exact").holds(4, 5)
    with pytest.raises(DataError, match="unknown kind"):
        Tolerance("loose")
    with pytest.raises(DataError, match="non-negative"):
        Tolerance("absolute", -1)


def test_verdicts():
    sim = GluedValue("b_sd", 2.30, "02_calibration", "simulated")
    assert verdict("b_sd", sim)[0] == "reproduced"
    assert "not a finding about MMLU" in verdict("b_sd", sim)[1]
    real = GluedValue("b_sd", 2.40, "02_calibration", "real")
    assert verdict("b_sd", real) == ("differs", "tolerance ±5 %")
    assert verdict("n_items", GluedValue("n_items", 14041, "01", "real"))[0] == "differs"
    for odd in ("cpu", float("nan"), True, None):
        outcome, why = verdict("b_sd", GluedValue("b_sd", odd, "02", "real"))
        assert outcome == "not computable here" and "not a finite number" in why
    outcome, why = verdict("rho_2d", None)
    assert outcome == "not computable here" and "appendix" in why


def test_scorecard_has_one_row_per_paper_key(tmp_path):
    write_chapter(tmp_path, "02_calibration", {"b_sd": 2.25, "theta_sd": 1.5})
    table = scorecard(collect(tmp_path))
    assert list(table.index) == list(PAPER)
    assert set(table["verdict"]) <= set(VERDICTS)
    assert table.loc["b_sd", "verdict"] == "reproduced" and table.loc["b_sd", "ours"] == 2.25
    assert table.loc["theta_sd", "verdict"] == "differs"
    assert table.loc["b_sd", "chapter"] == "02_calibration"
    assert table.loc["pooled_r2", "verdict"] == "not computable here"
    assert pd.isna(table.loc["pooled_r2", "chapter"]) and pd.isna(table.loc["pooled_r2", "ours"])
    assert (table["paper"] == [v for v, _ in PAPER.values()]).all()


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
    assert declared == {"14_answer_key_audit", "98_scorecard", "99_performance"}


def test_scorecard_html_links_chapters_and_escapes_text():
    table = pd.DataFrame({"section": ["§3", "§4"], "paper": [2.24, 0.5], "ours": [2.2512345, None],
                          "source": ["simulated", None], "chapter": ["02_calibration", None],
                          "verdict": ["reproduced", "not computable here"],
                          "why": ["within 5 %", "needs <the leaderboard> & more"]},
                         index=pd.Index(["b_sd", "pooled_r2"], name="key"))
    page = scorecard_html(table, {"02_calibration": "Calibration & fit"})
    assert '<a href="02_calibration.html">Calibration &amp; fit</a>' in page
    assert "<td>2.251</td>" in page and "<td>—</td>" in page
    assert "needs &lt;the leaderboard&gt; &amp; more" in page and "<the leaderboard>" not in page
    assert page.split("<tbody>")[1].count("<tr>") == len(table)
