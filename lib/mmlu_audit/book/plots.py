"""Figure style for the whole book, set in one place."""

from __future__ import annotations

import matplotlib as mpl

__all__ = ["PARTITION_COLORS", "SOURCE_COLORS", "partition_legend", "stamp_source", "use_style"]

PARTITION_COLORS = {"STEM": "#1b6ca8", "non-STEM": "#d1495b"}
SOURCE_COLORS = {"paper": "#6c757d", "ours": "#2a9d8f"}


def use_style() -> None:
    """Apply the book's figure and table defaults (call once at the top of a chapter).

    Tables: every DataFrame the chapter displays goes through
    :func:`mmlu_audit.book.report.frame_html` (integers as integers, four significant
    digits, missing as "—").
    """
    from mmlu_audit.book.report import use_table_format

    use_table_format()
    mpl.rcParams.update({
        "figure.figsize": (7.5, 3.6),
        "figure.dpi": 110,
        "savefig.bbox": "tight",
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.grid": True,
        "grid.alpha": 0.25,
        "axes.titlesize": 11,
        "axes.labelsize": 10,
        "legend.frameon": False,
        "font.size": 9.5,
    })


def stamp_source(fig, matrix) -> None:
    """Write the response source on a figure, in red capitals when it is simulated.

    A figure copied out of the book keeps its provenance: simulated results must
    never pass for findings about MMLU.
    """
    simulated = matrix.simulated
    label = ("SIMULATED responses — not MMLU findings" if simulated else "real responses")
    # below the canvas: savefig(bbox_inches="tight") grows the figure to include it,
    # so it never covers an axis label
    fig.text(0.995, -0.02, f"{label} · source: {matrix.source}", ha="right", va="top",
             fontsize=7.5, color="#c0392b" if simulated else "#2a7f62",
             fontweight="bold" if simulated else "normal")


def partition_legend(ax, loc: str = "lower right") -> None:
    """Legend of the STEM / non-STEM colours, for plots coloured bar by bar."""
    from matplotlib.patches import Patch

    ax.legend(handles=[Patch(color=c, label=p) for p, c in PARTITION_COLORS.items()], loc=loc)
