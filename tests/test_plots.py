"""Figure-level texts and legends sit where they cover nothing: measured with matplotlib's
renderer on figures shaped like the book's (rotated tick labels, short panels, full axes)."""

from __future__ import annotations

from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from mmlu_audit.book.plots import figure_title, legend_outside, stamp_source, use_style  # noqa: E402

SIMULATED = SimpleNamespace(simulated=True, source="simulated")


@pytest.fixture(autouse=True)
def book_style():
    with matplotlib.rc_context():
        use_style()
        yield
    plt.close("all")


def boxplot_panels(height=3.2):
    """The MMLU-Pro chapter's shape: three short panels with rotated tick labels and titles."""
    fig, axes = plt.subplots(1, 3, figsize=(9.5, height))
    rng = np.random.default_rng(0)
    for ax in axes:
        ax.boxplot([rng.normal(size=50) for _ in range(4)], showfliers=False)
        ax.set_xticks([1, 2, 3, 4], ["MMLU", "STEM web", "TheoremQA", "SciBench"], rotation=30, fontsize=8)
        ax.set(title="wscg_depth", xlabel="source")
    return fig, axes


def drawn(fig):
    fig.canvas.draw()
    return fig.canvas.get_renderer()


def axis_texts(axes, renderer):
    """Window extents of every tick label and axis label of ``axes``."""
    texts = [t for ax in axes for t in ax.get_xticklabels() + ax.get_yticklabels()
             + [ax.xaxis.label, ax.yaxis.label] if t.get_visible() and t.get_text()]
    return [t.get_window_extent(renderer) for t in texts]


@pytest.mark.parametrize("height", [2.8, 3.2, 5.0])
def test_the_source_stamp_sits_below_every_tick_and_axis_label(height):
    fig, axes = boxplot_panels(height)
    stamp = stamp_source(fig, SIMULATED)
    renderer = drawn(fig)
    top = stamp.get_window_extent(renderer).y1
    assert top < min(box.y0 for box in axis_texts(axes, renderer))


def test_the_stamp_is_inside_the_saved_figure():
    fig, _ = boxplot_panels()
    stamp = stamp_source(fig, SIMULATED)
    renderer = drawn(fig)
    saved = fig.get_tightbbox(renderer)  # what savefig(bbox_inches="tight") keeps, in inches
    box = stamp.get_window_extent(renderer).transformed(fig.dpi_scale_trans.inverted())
    assert saved.y0 <= box.y0 and saved.x1 >= box.x1 - 1e-9


def test_the_figure_title_sits_above_every_panel_title():
    fig, axes = boxplot_panels()
    title = figure_title(fig, "Three indicators by MMLU-Pro source · source mmlu-pro")
    renderer = drawn(fig)
    bottom = title.get_window_extent(renderer).y0
    assert bottom > max(ax.title.get_window_extent(renderer).y1 for ax in axes)


def test_an_outside_legend_covers_no_plotted_point():
    fig, ax = plt.subplots()
    rng = np.random.default_rng(1)
    x, y = rng.uniform(size=(2, 400))  # points everywhere in the axes: any inside legend covers some
    ax.scatter(x, y, label="points")
    ax.plot([0, 1], [0, 1], label="line")
    legend = legend_outside(ax, fontsize=8)
    renderer = drawn(fig)
    box = legend.get_window_extent(renderer)
    points = ax.transData.transform(np.column_stack([x, y]))
    assert not box.count_contains(points)
    assert box.x0 >= ax.get_window_extent(renderer).x1


def test_figures_cycle_through_seaborns_colour_blind_palette():
    import seaborn as sns

    colours = [entry["color"] for entry in matplotlib.rcParams["axes.prop_cycle"]]
    assert colours == sns.color_palette("colorblind").as_hex()
    assert "#d62728" not in colours and "#2ca02c" not in colours  # tab10's red and green are gone
