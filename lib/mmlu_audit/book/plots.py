"""Figure style for the whole book, set in one place.

Texts that belong to the whole figure (the source stamp, a figure title) are placed at draw
time around the axes' full extent (tick labels, axis labels, titles and legends included), so
they never cover a tick label or a panel title whatever the figure's size or layout.
"""

from __future__ import annotations

import matplotlib as mpl

__all__ = ["KIND_STYLES", "PARTITION_COLORS", "SOURCE_COLORS", "axes_extent", "claims_forest", "figure_title",
           "legend_outside", "note_figure", "partition_legend", "stamp_source", "use_style"]

PARTITION_COLORS = {"STEM": "#1b6ca8", "non-STEM": "#d1495b"}
SOURCE_COLORS = {"paper": "#6c757d", "ours": "#2a9d8f"}
#: How the forest plot marks the paper's value, a real population and the simulated world.
KIND_STYLES = {"paper": {"marker": "D", "color": "#6c757d", "mfc": "white"},
               "real": {"marker": "o", "color": "#2a9d8f", "mfc": "#2a9d8f"},
               "simulated": {"marker": "s", "color": "#b07aa1", "mfc": "white"}}

#: Points between the axes' extent and a text placed beside it.
_GAP_PT = 4


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


def axes_extent(fig):
    """A function of the renderer giving the display box around everything the axes draw.

    Tick labels, axis labels, titles and axis legends of every visible axes, plus the
    figure's own legends; the figure's box when it has none. Matplotlib accepts it as an
    annotation's ``xycoords``, which positions the text relative to that box at each draw.
    """
    from matplotlib.transforms import Bbox

    def extent(renderer):
        boxes = [ax.get_tightbbox(renderer) for ax in fig.axes if ax.get_visible()]
        boxes += [legend.get_window_extent(renderer) for legend in fig.legends]
        boxes = [box for box in boxes if box is not None and box.width > 0 and box.height > 0]
        return Bbox.union(boxes) if boxes else fig.bbox

    return extent


def _beside_axes(fig, text: str, above: bool, **style):
    """Add ``text`` to ``fig`` just above (centred) or just below (right-aligned) the axes' extent."""
    from matplotlib.text import Annotation

    where = dict(xy=(0.5, 1), xytext=(0, _GAP_PT), ha="center", va="bottom") if above else \
        dict(xy=(1, 0), xytext=(0, -_GAP_PT), ha="right", va="top")
    label = Annotation(text, xycoords=axes_extent(fig), textcoords="offset points", annotation_clip=False,
                       **where, **style)
    fig.add_artist(label)
    return label


def stamp_source(fig, matrix):
    """Write the response source on a figure, in red capitals when it is simulated.

    A figure copied out of the book keeps its provenance: simulated results must
    never pass for findings about MMLU. The stamp sits under the lowest tick label or
    axis label (``savefig(bbox_inches="tight")`` grows the figure to include it).

    Returns
    -------
    matplotlib.text.Annotation
        The stamp.
    """
    simulated = matrix.simulated
    label = ("SIMULATED responses — not MMLU findings" if simulated else "real responses")
    return _beside_axes(fig, f"{label} · source: {matrix.source}", above=False, fontsize=7.5,
                        color="#c0392b" if simulated else "#2a7f62",
                        fontweight="bold" if simulated else "normal")


def figure_title(fig, text: str):
    """A title for the whole figure, above every panel title (where ``suptitle`` can collide).

    Returns
    -------
    matplotlib.text.Annotation
        The title.
    """
    return _beside_axes(fig, text, above=True, fontsize=mpl.rcParams["axes.titlesize"] + 1)


def legend_outside(ax, **options):
    """The axes' legend to the right of its plotting area, where it covers no data.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    **options
        Passed to :meth:`~matplotlib.axes.Axes.legend` (e.g. ``fontsize``, ``handles``).
    """
    return ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1), borderaxespad=0, **options)


def partition_legend(ax, loc: str = "lower right") -> None:
    """Legend of the STEM / non-STEM colours, for plots coloured bar by bar."""
    from matplotlib.patches import Patch

    ax.legend(handles=[Patch(color=c, label=p) for p, c in PARTITION_COLORS.items()], loc=loc)


def claims_forest(rows, titles: dict | None = None):
    """A forest plot of the central claims, one panel per claim on its own scale.

    Parameters
    ----------
    rows : DataFrame
        :func:`mmlu_audit.analyses.verdicts.forest_rows`.
    titles : dict, optional
        Claim → panel title (default: the claim key).

    Returns
    -------
    matplotlib.figure.Figure
        Real populations filled circles, the simulated world hollow squares, the paper's value
        hollow diamonds (:data:`KIND_STYLES`); each panel's dotted line is its no-effect value.
    """
    import textwrap

    import matplotlib.pyplot as plt
    import numpy as np

    claims = list(dict.fromkeys(rows["claim"]))
    height = 0.32 * rows.groupby("claim").size().max() + 2.2
    fig, axes = plt.subplots(1, len(claims), figsize=(3.1 * len(claims), height), sharey=True)
    for ax, claim in zip(np.atleast_1d(axes), claims, strict=True):
        panel = rows[rows["claim"] == claim].reset_index(drop=True)
        for y, row in panel.iterrows():
            style = KIND_STYLES[row["kind"]]
            err = None if np.isnan(row["low"]) else [[row["estimate"] - row["low"]],
                                                     [row["high"] - row["estimate"]]]
            ax.errorbar(row["estimate"], y, xerr=err, fmt=style["marker"], color=style["color"],
                        mfc=style["mfc"], ms=6, capsize=2, lw=1.2)
        ax.axvline(panel["reference"].iloc[0], color="k", lw=0.8, ls=":")
        ax.set_yticks(range(len(panel)), panel["who"])
        ax.set_xlabel(textwrap.fill(panel["scale"].iloc[0], 30), fontsize=8)
        ax.set_title(textwrap.fill((titles or {}).get(claim, claim), 26), fontsize=9.5)
        if claim == "stem_r2":
            ax.set_xscale("log")
    np.atleast_1d(axes)[0].invert_yaxis()
    handles = [plt.Line2D([], [], ls="", marker=s["marker"], color=s["color"], mfc=s["mfc"], label=k)
               for k, s in KIND_STYLES.items()]
    fig.legend(handles=handles, labels=["paper (1,000 leaderboard models)", "real population",
                                        "simulated world (not MMLU)"],
               loc="upper center", ncol=3, bbox_to_anchor=(0.5, 0.0), fontsize=8)
    fig.tight_layout()
    return fig


def note_figure(text: str):
    """A small figure that says, in words, why the figure it stands in for is absent."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 1.2))
    ax.axis("off")
    ax.text(0.5, 0.5, text, ha="center", va="center", fontsize=10)
    return fig
