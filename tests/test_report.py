"""The book's rendering helpers: glued values and table cells as a reader should see them."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest

from mmlu_audit.book.report import MISSING, format_number, frame_html, glue_ready, use_table_format


@pytest.mark.parametrize("value, shown", [
    (14042.0, "14,042"), (np.float64(2915.0), "2,915"), (5, "5"), (np.int64(3153), "3,153"),
    (0.0357, "0.0357"), (138.36, "138.4"), (0.775459, "0.7755"), (-4.94, "-4.94"),
    (12345.67, "12,346"), (0.0000123, "1.230e-05"), (float("nan"), MISSING), (None, MISSING),
    (float("inf"), "∞"), (-math.inf, "−∞"), (True, "yes"), (np.bool_(False), "no"), ("HC3", "HC3"),
])
def test_format_number(value, shown):
    assert format_number(value) == shown


@pytest.mark.parametrize("value, glued", [
    (14042.0, 14042), (np.float64(5.0), 5), (np.int64(7), 7), (0.5, 0.5), (True, "yes"),
    (np.bool_(False), "no"), (float("nan"), None), ("text", "text"), (1e300, 1e300),
])
def test_glue_ready(value, glued):
    got = glue_ready(value)
    if glued is None:
        assert math.isnan(got)
    else:
        assert got == glued and type(got) is type(glued)


def test_frame_html_formats_every_cell_and_scrolls():
    frame = pd.DataFrame({"paper": [14042.0, 0.7755], "ours": [14042.0, np.nan],
                          "note": ["§2", None], "flag": [True, False]},
                         index=pd.Index(["n_items", "share"], name="quantity"))
    page = frame_html(frame)
    assert page.startswith('<div class="table-scroll">')
    assert page.count("<td>14,042</td>") == 2 and "<td>0.7755</td>" in page
    assert page.count(f"<td>{MISSING}</td>") == 2 and "None" not in page and "nan" not in page
    assert "<td>yes</td>" in page and "True" not in page
    assert "14042.0000" not in page


def test_frame_html_headers_may_break_at_underscores_and_cells_are_untouched():
    frame = pd.DataFrame({"d_ner_survives_holm": ["a_b"]}, index=pd.Index(["clamp_T1"], name="scheme_id"))
    page = frame_html(frame)
    assert "<th>d_<wbr>ner_<wbr>survives_<wbr>holm</th>" in page and "<th>scheme_<wbr>id</th>" in page
    assert "<th>clamp_<wbr>T1</th>" in page and "<td>a_b</td>" in page


@pytest.mark.parametrize("label, is_p", [
    ("p", True), ("p_cr2", True), ("mann_whitney_p", True), ("cluster_p", True), ("w9_cr2_p", True),
    ("p (HTZ)", True), ("Holm p", True), ("p-value", True), (("test", "p"), True),
    ("top", False), ("n_p_items", True), ("share", False), ("pro_panel", False), ("rho", False),
    ("p_correct", False), ("p_gold", False), ("p_correct_p", True)])
def test_a_p_label_has_p_as_one_of_its_words(label, is_p):
    from mmlu_audit.core.formatting import is_p_label

    assert is_p_label(label) is is_p


def test_p_values_are_never_printed_as_zero_in_a_table():
    from mmlu_audit.book.report import format_p

    assert [format_p(v) for v in (0.0, 0, 3e-5, 1e-4, 0.0312, 1.0, None, float("nan"), "< 1e-300")] == \
        ["< 1e-4", "< 1e-4", "< 1e-4", "0.0001", "0.0312", "1", MISSING, MISSING, "< 1e-300"]
    frame = pd.DataFrame({"W": [31.2, 9.0], "mann_whitney_p": [7.4e-64, 0.0], "cluster_p": [0.0412, np.nan]},
                         index=["all", "kept"]).round(4)
    frame.loc["p"] = [0.0, 0.0, 0.5]  # a row of p-values (a transposed table)
    page = frame_html(frame)
    assert "<td>0</td>" not in page and page.count("<td>&lt; 1e-4</td>") == 4, page
    assert "<td>0.0412</td>" in page and "<td>31.2</td>" in page and "<td>0.5</td>" in page


def test_use_table_format_sets_the_plain_text_format_too():
    before = pd.get_option("display.float_format"), pd.get_option("display.max_columns")
    try:
        use_table_format()
        assert "14,042" in repr(pd.Series([14042.0, 0.5]))
        bands = pd.DataFrame(np.arange(48.0).reshape(2, 24), columns=[f"band {k}" for k in range(24)])
        wide = frame_html(bands)
        assert "<th>band 23</th>" in wide and "..." not in wide and "…" not in wide  # no column cut
    finally:
        pd.set_option("display.float_format", before[0])
        pd.set_option("display.max_columns", before[1])


def test_finding_checks_report_yes_no_and_not_applicable():
    from mmlu_audit.book.report import finding_checks

    checks = {"a holds": True, "b fails": 0, "c does not apply": None, "d numpy": np.bool_(True)}
    table = finding_checks(checks)
    assert table["holds"].tolist() == ["yes", "no", "not applicable", "yes"]
    assert table.index.name == "on this seed"


def test_three_way_table_columns_and_refuses_a_simulated_real_column():
    import pandas as pd

    from mmlu_audit.book.report import three_way_table
    from mmlu_audit.core.errors import ParameterError
    from mmlu_audit.data.responses import ResponseMatrix

    def matrix(simulated):
        return ResponseMatrix(np.zeros((2, 3), np.int8), pd.DataFrame({"model_id": ["a", "b"]}),
                              np.array(["s/0", "s/1", "s/2"]), "pool", simulated)

    table = three_way_table({"w9_cr2": 30.0, "holm_hc3": 2, "mine": 1.0}, {"w9_cr2": 26.5},
                            real_matrix=matrix(False), planted={"mine": 0.5},
                            paper_keys={"holm_hc3": "holm_survivors_hc3"})
    assert list(table.columns) == ["paper", "real: pool (2 models)", "simulated world", "planted", "where"]
    assert table.loc["w9_cr2", "paper"] == 28.21 and table.loc["holm_hc3", "paper"] == 5
    assert np.isnan(table.loc["mine", "paper"]) and table.loc["mine", "planted"] == 0.5
    assert np.isnan(table.loc["holm_hc3", "real: pool (2 models)"])
    with pytest.raises(ParameterError, match="real responses"):
        three_way_table({"w9_cr2": 1.0}, {}, real_matrix=matrix(True))


@pytest.mark.parametrize("column", ["holm_HC3", "holm_CR1", "holm_CR2", "holm_boot", "p_boot"])
def test_a_holm_column_through_the_label_registry_is_shown_as_a_p(column):
    """Chapter 06's Table 3 and Appendix B head their Holm columns with the registry's words,
    which name a p, so a Holm p of 0.0 (after rounding) is shown as "< 1e-4", not 0."""
    from mmlu_audit.book.labels import label
    from mmlu_audit.core.formatting import is_p_label

    assert not is_p_label(column) or column == "p_boot"  # the code name alone would print 0
    frame = pd.DataFrame({column: [0.0, 0.0312], "estimate": [0.41, 0.05]}).rename(columns=label)
    page = frame_html(frame)
    assert "<td>0</td>" not in page and "<td>&lt; 1e-4</td>" in page, page


def test_a_value_column_says_what_its_values_were_computed_on():
    """A paper-beside-ours table heads our values with their provenance, never "ours"."""
    from types import SimpleNamespace

    from mmlu_audit.book.report import value_label
    from mmlu_audit.core.paper import paper_table

    simulated = SimpleNamespace(simulated=True, source="paper-2024", shape=(1000, 14042))
    real = SimpleNamespace(simulated=False, source="mmlu_real", shape=(31, 14042))
    assert value_label(simulated) == "simulated world"
    assert value_label(real) == "real: mmlu_real (31 models)"
    table = paper_table({"n_items": 14042}, column=value_label(real))
    assert list(table.columns) == ["paper", "real: mmlu_real (31 models)", "where"]
    assert "ours" not in paper_table({"n_items": 14042}).columns


def test_a_table_shows_the_registrys_words_for_its_code_names():
    """Issue 49: every table the book shows goes through the label registry (frame_html), so no
    registered code name reaches a reader as a row, a column or an axis name."""
    from mmlu_audit.book.labels import code_names_in, label
    from mmlu_audit.book.report import in_words

    frame = pd.DataFrame({"holm_CR2": [0.0, 0.2], "wcb_q95": [16.9, 17.0], "unregistered thing": [1, 2],
                          "null_tail_p_all": [0.0, 0.5]},  # a p by its code name, not by its words
                         index=pd.Index(["w9_cr2", "STEM:d_ner"], name="model_id"))
    shown = in_words(frame)
    assert list(shown.index) == [label("w9_cr2"), f"STEM × {label('d_ner')}"] and shown.index.name == "model"
    assert list(shown.columns) == [label("holm_CR2"), label("wcb_q95"), "unregistered thing",
                                   label("null_tail_p_all")]
    page = frame_html(frame)
    headers = " ".join(re.findall(r"<th>(.*?)</th>", page.replace("<wbr>", "")))
    assert not code_names_in(headers), headers
    assert page.count("<td>&lt; 1e-4</td>") == 2, "a p is formatted as one under either name"
    assert frame.index[0] == "w9_cr2", "the chapter's own frame is left as it is"


@pytest.mark.parametrize("rate, se, shown", [
    (0.05, 0.015, "5 % (Monte Carlo SE 1.5 points)"), (0.052, 0.003, "5.2 % (Monte Carlo SE 0.30 points)"),
    (0.8312, 0.0119, "83 % (Monte Carlo SE 1.2 points)"), (0.0, 0.0, "0 % (Monte Carlo SE 0)"),
    (0.25, 0.2165, "25 % (Monte Carlo SE 22 points)"),
    (0.6, None, "60 %"), (float("nan"), 0.01, MISSING)])
def test_a_rate_is_shown_to_the_digits_its_monte_carlo_se_allows(rate, se, shown):
    from mmlu_audit.book.report import format_rate, rate_texts

    assert format_rate(rate, se) == shown
    assert rate_texts({"power": rate, "power_se": se}, ["power"]) == {"power_text": shown}


def test_a_rate_of_independent_replicates_takes_its_binomial_se():
    from mmlu_audit.book.report import format_rate, rate_texts

    assert format_rate(0.1, n_reps=30) == format_rate(0.1, (0.1 * 0.9 / 30) ** 0.5) == \
        "10 % (Monte Carlo SE 5.5 points)"
    assert rate_texts({"size": 0.1}, ["size"], n_reps=30) == {"size_text": format_rate(0.1, n_reps=30)}


def test_a_rate_is_formatted_in_one_place():
    from pathlib import Path

    import mmlu_audit

    lib = Path(mmlu_audit.__file__).parent
    homes = [str(f.relative_to(lib)) for f in sorted(lib.rglob("*.py"))
             if "def format_rate(" in f.read_text()]
    assert homes == ["book/report.py"]


def test_a_table_of_rates_shows_each_with_its_own_se():
    from mmlu_audit.book.report import format_rate, rate_cells

    rates = pd.DataFrame({"null": [0.05, 0.5], "planted": [0.9, 1.0]}, index=["HTZ", "χ²"])
    se = pd.DataFrame({"null": [0.015, 0.035]}, index=["HTZ", "χ²"])  # no SE for the planted world
    shown = rate_cells(rates, se)
    assert shown.loc["HTZ", "null"] == format_rate(0.05, 0.015) == "5 % (Monte Carlo SE 1.5 points)"
    assert shown.loc["χ²", "planted"] == "100 %" and shown.index.tolist() == ["HTZ", "χ²"]
