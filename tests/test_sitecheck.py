"""The browser checker itself, on tiny hand-made pages: it passes a clean page and
catches each kind of problem it promises to catch."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import time

import pytest

from mmlu_audit.book.sitecheck import MIN_SHOWN_SHARE, VIEWPORT, check_pages, main

PNG = base64.b64decode(  # a valid 1×1 transparent PNG
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    site = tmp_path_factory.mktemp("site")
    (site / "dot.png").write_bytes(PNG)
    (site / "clean.html").write_text(
        "<html><body><p>All fine.</p><img src='dot.png'></body></html>")
    (site / "broken.html").write_text(
        "<html><body><p>Value: {glue:text}`n_items`</p>"
        "<span class='math notranslate nohighlight'>\\(x^2\\)</span>"
        "<img src='missing.png'>"
        "<script src='https://cdn.example.invalid/lib.js'></script>"
        "<script>console.error('boom from the page')</script>"
        "<script>undefinedFunction()</script></body></html>")
    shots = site / "screenshots"
    return {r.page: r for r in check_pages(site, ["clean.html", "broken.html"], shots)}


def test_clean_page_has_no_problems(reports):
    assert reports["clean.html"].problems == []
    assert reports["clean.html"].screenshot.stat().st_size > 0


@pytest.mark.parametrize("expected", [
    "console error: boom from the page",
    "script error:",
    "missing image: missing.png",
    "HTTP 404:",
    "external request: https://cdn.example.invalid/lib.js",
    "unrendered math: \\(x^2\\)",
    "glue placeholder in text: {glue:text}",
])
def test_each_problem_is_caught(reports, expected):
    problems = reports["broken.html"].problems
    assert any(p.startswith(expected) for p in problems), problems


def test_every_page_gets_a_screenshot(reports):
    assert reports["broken.html"].screenshot.name == "broken.png"
    assert reports["broken.html"].screenshot.exists()


@pytest.fixture(scope="module")
def stuck_reports(tmp_path_factory):
    """Pages that never settle: MathJax's promise never resolves; a script that never loads."""
    site = tmp_path_factory.mktemp("stuck")
    (site / "mathjax.html").write_text(
        "<html><body><script>window.MathJax = {startup: {promise: new Promise(() => {})}};"
        "</script><p>x</p></body></html>")
    (site / "rejected.html").write_text(
        "<html><body><script>const failed = Promise.reject('no font'); failed.catch(() => {});"
        "window.MathJax = {startup: {promise: failed}};</script><p>x</p></body></html>")
    (site / "once.html").write_text(  # stalls on its first load only
        "<html><body><script>if (!localStorage.getItem('seen')) { localStorage.setItem('seen', 1);"
        "window.MathJax = {startup: {promise: new Promise(() => {})}}; }</script><p>x</p></body></html>")
    log = io.StringIO()
    start = time.perf_counter()
    reports = check_pages(site, ["mathjax.html", "rejected.html", "once.html"], timeout_s=2, log=log)
    return {r.page: r for r in reports}, time.perf_counter() - start, log.getvalue()


STALL = "MathJax did not finish typesetting within 2 s"


def test_a_page_that_never_settles_is_a_problem_not_a_hang(stuck_reports):
    reports, seconds, _ = stuck_reports
    assert reports["mathjax.html"].problems == [STALL]
    assert reports["mathjax.html"].first_try == [STALL]  # it stalled twice
    assert reports["rejected.html"].problems == ["MathJax failed: no font"]
    assert reports["rejected.html"].first_try == []  # a failure is not a stall: checked once
    assert seconds < 30


def test_a_single_stall_is_the_browsers_and_is_checked_again(stuck_reports):
    once = stuck_reports[0]["once.html"]
    assert (once.problems, once.first_try) == ([], [STALL])


@pytest.fixture(scope="module")
def slow_math_reports(tmp_path_factory):
    """MathJax that starts after the load event, or renders after its promise settles, or never renders."""
    site = tmp_path_factory.mktemp("slow_math")
    math = "<span class='math'>\\(x^2\\)</span>"
    render = "document.querySelector('.math').appendChild(document.createElement('mjx-container'))"
    (site / "late.html").write_text(
        f"<html><body><p>{math}</p><script>window.MathJax = {{}}; setTimeout(() => {{"
        f"MathJax.startup = {{promise: Promise.resolve()}}; {render}; }}, 400);</script></body></html>")
    (site / "lagging.html").write_text(
        f"<html><body><p>{math}</p><script>window.MathJax = {{startup: {{promise: Promise.resolve()}}}};"
        f"setTimeout(() => {{ {render}; }}, 600);</script></body></html>")
    (site / "never.html").write_text(
        f"<html><body><p>{math}</p><script>window.MathJax = {{startup: {{promise: Promise.resolve()}}}};"
        "</script></body></html>")
    reports = check_pages(site, ["late.html", "lagging.html", "never.html"], timeout_s=2, log=io.StringIO())
    return {r.page: r for r in reports}


def test_math_rendered_after_the_load_event_is_waited_for(slow_math_reports):
    assert slow_math_reports["late.html"].problems == []
    assert slow_math_reports["lagging.html"].problems == []
    assert slow_math_reports["lagging.html"].first_try == []  # no stall either


def test_math_never_rendered_is_reported_once_the_wait_ends(slow_math_reports):
    never = slow_math_reports["never.html"]
    assert never.problems == ["unrendered math: \\(x^2\\)"]
    assert never.first_try == []  # MathJax settled: not a stall, checked once


def test_each_checked_page_is_logged(stuck_reports):
    lines = stuck_reports[2].splitlines()
    assert [line.split()[-1] for line in lines] == ["mathjax.html", "rejected.html", "once.html"]
    assert lines[0].startswith("  1/3") and "1 problems" in lines[0]
    assert f"0 problems  [checked twice: {STALL}]  once.html" in lines[2]


def test_command_line_writes_every_pages_report_as_json(tmp_path, capsys):
    site = tmp_path / "site"
    site.mkdir()
    (site / "a.html").write_text("<html><body><p>fine</p></body></html>")
    (site / "b.html").write_text("<html><body><img src='gone.png'></body></html>")
    report_file = tmp_path / "report.json"
    assert main([str(site), "--screenshots", str(tmp_path / "shots"), "--json", str(report_file)]) == 1
    reports = {r["page"]: r for r in json.loads(report_file.read_text())}
    assert reports["a.html"]["problems"] == []
    assert "missing image: gone.png" in reports["b.html"]["problems"]
    assert reports["a.html"]["screenshot"] == str(tmp_path / "shots" / "a.png")
    assert "2 pages checked, 1 with problems" in capsys.readouterr().out


@pytest.fixture(scope="module")
def leak_reports(tmp_path_factory):
    """Pages with Python or Markdown leaking into the text, and a table too wide for its column."""
    site = tmp_path_factory.mktemp("leaks")
    (site / "leaky.html").write_text(
        "<html><body><p>The matrix has <span class='pasted-text'>14042.0000</span> items.</p>"
        "<ul><li>Survivors: 5.000 of 9</li></ul>"
        "<p>**no** survivors under CR2</p>"
        "<p>Conclusions hold under the Rasch refit: False.</p>"
        "<table><tr><th>q</th><td>nan</td></tr></table>"
        "<p>Each difficulty is b = \\text{shift} plus noise.</p>"
        "<p>where $x_i$ is the item's vector</p>"
        "<p>the test gives p = 0 against the null</p>"
        "<table><thead><tr><th></th><th>Wald</th><th>p</th></tr></thead>"
        "<tbody><tr><th>W(9)</th><td>31.2</td><td>0</td></tr></tbody></table>"
        "<table><thead><tr><th></th><th>W</th><th>mann_<wbr>whitney_<wbr>p</th><th>cluster_p</th></tr></thead>"
        "<tbody><tr><th>all</th><td>31.2</td><td>0</td><td>0.0000</td></tr></tbody></table>"
        "<table><thead><tr><th></th><th>wrong key</th></tr></thead>"  # a transposed table: a row of p
        "<tbody><tr><th>p</th><td>0</td></tr></tbody></table>"
        "<table><thead><tr><th></th><th>p (HTZ)</th></tr><tr><th>contrast</th><th></th></tr></thead>"
        "<tbody><tr><th>d_ner</th><td>0.0</td></tr></tbody></table>"  # pandas' index-name row comes last
        "<table><tr><td>0.91</td><td>&hellip;</td><td>0.93</td></tr></table></body></html>")
    wide_row = "".join(f"<td>column {k} with a long heading</td>" for k in range(30))
    (site / "wide.html").write_text(  # cut: nothing around the table scrolls
        "<html><body style='width: 600px'><main style='overflow-x: hidden'><p>x</p><div><table><tr>"
        + wide_row + "</tr></table></div></main></body></html>")
    (site / "fine.html").write_text(  # values that look alike but are legitimate
        "<html><body style='width: 600px'><main><p>r = 1.000, p = 0.000, a share of 100.00%, τ = 0.9500, "
        "14,042 items, 2.50 logits, version 3.8.0.</p>"
        "<p>Set <code>fast = True</code> and write <code>**kwargs</code>.</p>"
        "<p>Prizes of $5 and $10; p = 0.012, p < 0.001; see <code>$x_i$</code> and <code>\\text</code>.</p>"
        "<table><thead><tr><th></th><th>p</th></tr></thead><tbody><tr><th>a</th><td>0.012</td></tr>"
        "<tr><th>b</th><td>&lt; 1e-300</td></tr></tbody></table>"
        "<table><thead><tr><th></th><th>top</th><th>p_cr2</th></tr></thead><tbody>"  # 0 outside p columns
        "<tr><th>n</th><td>0</td><td>&lt; 1e-4</td></tr><tr><th>probability</th><td>0</td><td>0.31</td></tr>"
        "</tbody></table>"
        "<table><thead><tr><th></th><th>p_correct</th></tr></thead>"  # a share of models, not a p
        "<tbody><tr><th>item 7</th><td>0</td></tr></tbody></table>"
        "<pre>flag = False  # 5.000</pre>"
        "<table><tr><th>n</th><td>14,042</td><td>—</td></tr></table>"
        "<div style='overflow-x: auto'><table><tr>" + wide_row + "</tr></table></div>"  # scrolls: not cut
        "</main></body></html>")
    (site / "scorecard.html").write_text(  # must fit: scrolling inside its own box is not enough
        "<html><body style='width: 600px'><main><div style='overflow-x: auto'>"
        "<table class='scorecard fit-width'><tr>" + wide_row + "</tr></table></div></main></body></html>")
    (site / "laptop.html").write_text(  # 1,300 px fits a 1,400-px window (and would not fit 1,280 px)
        "<html><body style='margin: 0'><main><div style='overflow-x: auto'>"
        "<table class='fit-width' style='width: 1300px; border-spacing: 0'><tr><td>quantity</td></tr></table>"
        "</div></main></body></html>")
    pages = ["leaky.html", "wide.html", "fine.html", "scorecard.html", "laptop.html"]
    return {r.page: r for r in check_pages(site, pages)}


@pytest.mark.parametrize("expected", [
    "whole number printed as a float: …The matrix has 14042.0000 items.…",
    "whole number printed as a float: …Survivors: 5.000 of 9…",
    "Markdown ** in rendered text: …**no** survivors",
    "Python boolean in rendered text: …s hold under the Rasch refit: False.…",
    "missing value printed as nan in a table cell",
    "raw LaTeX command in rendered text: …Each difficulty is b = \\text{shift}",
    "unrendered $…$ math in rendered text: …where $x_i$ is",
    "p-value printed as a bare 0: …the test gives p = 0 against",
    "p-value printed as a bare 0 in a table (column p)",
    "p-value printed as a bare 0 in a table (column mann_whitney_p)",
    "p-value printed as a bare 0 in a table (column cluster_p)",
    "p-value printed as a bare 0 in a table (row p)",
    "p-value printed as a bare 0 in a table (column p (HTZ))",
    "pandas truncation marker (…) in a table",
])
def test_leaks_into_the_text_are_caught(leak_reports, expected):
    problems = leak_reports["leaky.html"].problems
    assert any(p.startswith(expected) for p in problems), problems


def test_a_table_wider_than_its_column_is_caught(leak_reports):
    (problem,) = leak_reports["wide.html"].problems
    assert problem.startswith("table wider than its container:") and "in 600 px" in problem


def test_lookalike_values_and_code_are_not_leaks(leak_reports):
    assert leak_reports["fine.html"].problems == []


def test_a_table_that_must_fit_is_caught_even_inside_a_scrolling_box(leak_reports):
    (problem,) = leak_reports["scorecard.html"].problems
    assert problem.startswith("table that must fit is wider than its column:") and "in 600 px" in problem


def test_tables_that_must_fit_are_measured_in_a_1400_px_window(leak_reports):
    assert VIEWPORT[0] == 1400
    assert leak_reports["laptop.html"].problems == []


@pytest.fixture(scope="module")
def figure_reports(tmp_path_factory):
    """Chapter figures as MyST-NB names them (the PNG's SHA-256), planted with each defect."""
    site = tmp_path_factory.mktemp("figures")
    images = site / "_images"
    images.mkdir()
    digest = hashlib.sha256(PNG).hexdigest()
    (images / f"{digest}.png").write_bytes(PNG)
    (site / "logo.png").write_bytes(PNG)
    figure = f"<img src='_images/{digest}.png' alt='{{}}'>"
    pages = {
        "coded.html": figure.format("Figure: spline fits. Panel 1: x axis “d_ner (z-score)”"),
        "silent.html": f"<img src='_images/{digest}.png'>",
        "pathalt.html": f"<img src='_images/{digest}.png' alt='../_images/{digest}.png'>",  # Sphinx's default
        "worded.html": figure.format("Figure: spline fits. Panel 1: x axis “Entity density (D_ner)”")
                       + "<img src='logo.png'>",  # the theme's images need no description
    }
    for page, body in pages.items():
        (site / page).write_text(f"<html><head><meta charset='utf-8'></head><body><main>{body}</main></body>"
                                 "</html>")
    return {r.page: r for r in check_pages(site, list(pages))}


def test_a_code_name_on_a_figure_is_caught(figure_reports):
    (problem,) = figure_reports["coded.html"].problems
    assert problem.startswith("code name on a figure (d_ner)")


@pytest.mark.parametrize("page", ["silent.html", "pathalt.html"])
def test_a_chapter_figure_without_a_description_is_caught(figure_reports, page):
    (problem,) = figure_reports[page].problems
    assert problem.startswith("figure without a description (alt text)")


def test_a_figure_in_words_passes(figure_reports):
    assert figure_reports["worded.html"].problems == []


def _png_of_width(pixels: int) -> bytes:
    """A PNG ``pixels`` wide (and 40 high), drawn by matplotlib as a chapter's figure is."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(pixels / 100, 0.4), dpi=100)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return buffer.getvalue()


@pytest.fixture(scope="module")
def width_reports(tmp_path_factory):
    """A figure drawn twice as wide as the 700-px column it is shown in, and one drawn to fit it."""
    site = tmp_path_factory.mktemp("widths")
    (site / "_images").mkdir()
    pages = {}
    for page, pixels in (("shrunk.html", 1400), ("fitting.html", 680), ("near.html", 980)):
        png = _png_of_width(pixels)
        name = f"_images/{hashlib.sha256(png).hexdigest()}.png"
        (site / name).write_bytes(png)
        pages[page] = name
        (site / page).write_text(  # the theme's rule: an image is at most as wide as its column
            "<html><head><meta charset='utf-8'><style>img { max-width: 100%; }</style></head>"
            f"<body style='margin: 0'><main style='width: 700px'><img src='{name}' alt='Figure: a bar'>"
            "</main></body></html>")
    return {r.page: r for r in check_pages(site, list(pages))}


def test_a_figure_shrunk_below_the_least_share_of_its_width_is_caught(width_reports):
    (problem,) = width_reports["shrunk.html"].problems
    assert problem.startswith("figure shrunk to 50% of its drawn width (1400 px shown at 700 px)")


@pytest.mark.parametrize("page", ["fitting.html", "near.html"])  # 100 % and 71 % of their drawn width
def test_a_figure_shown_at_most_of_its_width_passes(width_reports, page):
    assert MIN_SHOWN_SHARE == 0.7
    assert width_reports[page].problems == []
