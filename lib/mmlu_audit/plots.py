"""Figure style for the whole book, set in one place."""

from __future__ import annotations

import matplotlib as mpl

__all__ = ["PARTITION_COLORS", "SOURCE_COLORS", "use_style"]

PARTITION_COLORS = {"STEM": "#1b6ca8", "non-STEM": "#d1495b"}
SOURCE_COLORS = {"paper": "#6c757d", "ours": "#2a9d8f"}


def use_style() -> None:
    """Apply the book's matplotlib defaults (call once at the top of a chapter)."""
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
