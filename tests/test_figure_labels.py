"""Figures speak the reader's words: the label registry, each figure's description (its alt text),
and the path that carries the description from the kernel to the page's image."""

from __future__ import annotations

import base64
import hashlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from mmlu_audit.book.labels import code_names_in, label, labels  # noqa: E402
from mmlu_audit.book.plots import describe_figure, figure_title, reference_lines  # noqa: E402
from mmlu_audit.book.sitecheck import figure_problems  # noqa: E402
from mmlu_audit.book.sphinxext import figure_descriptions  # noqa: E402
from mmlu_audit.features.indicators import INDICATORS  # noqa: E402


def test_every_indicator_has_words():
    assert set(INDICATORS) <= set(labels())
    assert label("d_ner") == "Entity density (D_ner)"
    assert not any(code_names_in(label(name)) for name in INDICATORS)


def test_words_pass_through_and_an_unregistered_code_name_is_refused():
    assert label("stem tokens") == "stem tokens"
    with pytest.raises(KeyError, match="no_such_column"):
        label("no_such_column")


@pytest.mark.parametrize(("text", "found"), [
    ("x axis “d_ner (z-score)”", ["d_ner"]),
    ("simulated p-value (leaderboard-2026)", ["leaderboard-2026"]),
    ("fitted b̂ on theta_stem", ["theta_stem"]),
    ("Entity density (D_ner); θ_STEM; CR2-HTZ p; file book/_static/x_y.png; 2PL, normal", []),
    ("real responses · source: openllm_v1_mmlu102", []),  # a source's name is what a reader types
])
def test_code_names_are_found_and_words_are_not(text, found):
    assert code_names_in(text) == found


@pytest.fixture
def figure(monkeypatch):
    monkeypatch.setitem(matplotlib.rcParams, "axes.titlesize", 11)  # use_style's size in points
    fig, (left, right) = plt.subplots(1, 2)
    left.plot([0, 1], [0, 1], label="STEM")
    left.set(xlabel=r"$\hat\theta$", ylabel="P(correct)", title="curves")
    left.legend()
    right.set(xlabel="d_ner")
    figure_title(fig, "Two panels")
    yield fig
    plt.close(fig)


def test_a_description_names_titles_axes_and_legends_in_plain_text(figure):
    text = describe_figure(figure)
    assert text.startswith("Figure: Two panels. Panel 1: “curves”, x axis “θ̂”, y axis “P(correct)”")
    assert "legend: STEM" in text and "Panel 2: x axis “d_ner”" in text and "$" not in text


def test_the_kernel_attaches_the_description_to_the_png(figure):
    from IPython.core.interactiveshell import InteractiveShell

    from mmlu_audit.book.plots import describe_figures

    shell = InteractiveShell.instance()
    try:
        describe_figures()
        data, metadata = shell.display_formatter.format(figure)
    finally:
        InteractiveShell.clear_instance()
    assert metadata["image/png"]["alt"] == describe_figure(figure)
    png = data["image/png"]
    notebook = {"cells": [{"outputs": [
        {"data": {"image/png": png}, "metadata": metadata},
        {"data": {"application/papermill.record/image/png": png}, "metadata": metadata}]}]}
    raw = base64.b64decode(png) if isinstance(png, str) else png
    assert figure_descriptions(notebook) == {hashlib.sha256(raw).hexdigest(): describe_figure(figure)}
    assert figure_problems([{"src": "_images/x.png", "alt": describe_figure(figure)}]) == [
        "code name on a figure (d_ner): x.png… — give it words in mmlu_audit.book.labels"]


def test_reference_lines_are_each_named_on_a_row_of_their_own():
    fig, ax = plt.subplots()
    ax.set_xlim(0, 100)
    reference_lines(ax, [(50.5, "paper", {"color": "C1", "ls": "--"}), (50.0, "ours", {"color": "C0"}),
                         (90.0, "χ²", {"color": "k"})])
    rows = {text.get_text(): text.xyann[1] for text in ax.texts}
    plt.close(fig)
    assert list(rows) == ["ours (50)", "paper (50.5)", "χ² (90)"]
    assert len(set(rows.values())) == 3
