"""Figure style for the whole book, set in one place.

Texts that belong to the whole figure (the source stamp, a figure title) are placed at draw
time around the axes' full extent (tick labels, axis labels, titles and legends included), so
they never cover a tick label or a panel title whatever the figure's size or layout.
"""

from __future__ import annotations

import re

import matplotlib as mpl

from mmlu_audit.core.formatting import collapse_whitespace

__all__ = ["FOREST_STYLES", "KIND_STYLES", "OUTCOME_COLORS", "PAPER_REDRAWN", "PARTITION_COLORS",
           "SOURCE_COLORS", "axes_extent", "describe_figure", "describe_figures", "estimand_forest",
           "figure_title", "legend_outside", "note_figure", "paper_beside_ours", "partition_legend",
           "reference_lines", "specification_curve", "stamp_source", "use_style"]

PARTITION_COLORS = {"STEM": "#1b6ca8", "non-STEM": "#d1495b"}
SOURCE_COLORS = {"paper": "#6c757d", "ours": "#2a9d8f"}
#: How the forest plot marks the paper's value, a real population and the simulated world.
KIND_STYLES = {"paper": {"marker": "D", "color": "#6c757d", "mfc": "white"},
               "real": {"marker": "o", "color": "#2a9d8f", "mfc": "#2a9d8f"},
               "simulated": {"marker": "s", "color": "#b07aa1", "mfc": "white"}}

#: Points between the axes' extent and a text placed beside it.
_GAP_PT = 4
#: The colour cycle of every figure (seaborn's palette of that name, safe for colour-blind readers).
PALETTE = "colorblind"


def use_style() -> None:
    """Apply the book's figure and table defaults (call once at the top of a chapter).

    Tables: every DataFrame the chapter displays goes through
    :func:`mmlu_audit.book.report.frame_html` (integers as integers, four significant
    digits, missing as "—"). Figures: lines and bars take their colours in turn from
    :data:`PALETTE`, which readers with a colour-vision deficiency can tell apart.
    """
    from seaborn import color_palette

    from mmlu_audit.book.report import use_table_format

    use_table_format()
    describe_figures()
    mpl.rcParams.update({
        "axes.prop_cycle": mpl.cycler(color=color_palette(PALETTE).as_hex()),
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
    return _beside_axes(fig, f"{label} · source: {matrix.source}", above=False, fontsize=8.5,
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


#: How the estimand forest plot marks each kind of row.
FOREST_STYLES = {"paper": {"marker": "D", "color": "#000000", "mfc": "white"},
                 "population": {"marker": "o", "color": "#0072B2", "mfc": "#0072B2"},
                 "pool": {"marker": "s", "color": "#009E73", "mfc": "#009E73"},
                 "combined": {"marker": "D", "color": "#D55E00", "mfc": "#D55E00"}}


def estimand_forest(rows, titles: dict | None = None):
    """A forest plot of the claims' estimands, one panel per estimand on its own scale.

    Parameters
    ----------
    rows : DataFrame
        :func:`mmlu_audit.analyses.replication.forest_table`.
    titles : dict, optional
        Claim → panel title (default: the claim key).

    Returns
    -------
    matplotlib.figure.Figure
        Each row with its 95 % interval; the paper (hollow diamond) with its own interval where it
        reports one; a dotted line at no effect, and a grey band over the paper's interval so that a
        reader sees which rows hold the paper's value (inside the band) and which exclude no effect
        (clear of the dotted line).
    """
    import textwrap

    import matplotlib.pyplot as plt
    import numpy as np

    keys = list(dict.fromkeys(rows["estimand"]))
    n_rows = rows.groupby("estimand").size().max()
    fig, axes = plt.subplots(len(keys), 1, figsize=(7.5, (0.4 * n_rows + 1.2) * len(keys)), squeeze=False)
    for ax, key in zip(axes[:, 0], keys, strict=True):
        panel = rows[rows["estimand"] == key].reset_index(drop=True)
        paper = panel[panel["kind"] == "paper"].iloc[0]
        if np.isfinite(paper["low"]):
            ax.axvspan(paper["low"], paper["high"], color="#dddddd", zorder=0)
        for y, row in panel.iterrows():
            style = FOREST_STYLES[row["kind"]]
            finite = np.isfinite(row["low"]) and np.isfinite(row["estimate"])
            err = [[row["estimate"] - row["low"]], [row["high"] - row["estimate"]]] if finite else None
            if np.isfinite(row["estimate"]):
                ax.errorbar(row["estimate"], y, xerr=err, fmt=style["marker"], color=style["color"],
                            mfc=style["mfc"], ms=7, capsize=3, lw=1.4)
            else:
                ax.text(0.5, y, "not estimable", transform=ax.get_yaxis_transform(), va="center",
                        ha="center", fontsize=10, color="#555555")
        ax.axvline(panel["null"].iloc[0], color="k", lw=0.9, ls=":")
        ax.set_yticks(range(len(panel)), panel["who"], fontsize=11)
        ax.invert_yaxis()
        ax.set_xlabel(panel["label"].iloc[0], fontsize=11)
        ax.set_title(textwrap.fill((titles or {}).get(panel["claim"].iloc[0], key), 80), fontsize=12,
                     loc="left")
        if panel["scale"].iloc[0] == "log":
            ax.set_xscale("log")
        ax.tick_params(axis="x", labelsize=10)
    fig.tight_layout()
    return fig


#: Colours of the replication outcomes in a specification curve (Okabe–Ito, colour-blind safe).
OUTCOME_COLORS = {"replicated": "#009E73", "inconsistent (larger)": "#E69F00",
                  "inconsistent (smaller)": "#56B4E9", "inconsistent (opposite sign)": "#CC79A7",
                  "inconclusive": "#999999", "not replicated": "#D55E00", "not estimable": "#000000"}


def specification_curve(rows, titles: dict | None = None):
    """Each estimand under every specification, sorted by estimate, coloured by its outcome.

    Parameters
    ----------
    rows : DataFrame
        :func:`mmlu_audit.analyses.multiverse.specification_forest` with an ``outcome`` column for
        the specifications (the paper's row first per estimand).
    titles : dict, optional
        Claim → panel title.

    Returns
    -------
    matplotlib.figure.Figure
        One panel per estimand: the specifications left to right by estimate with 95 % intervals,
        the paper's interval as a grey band and its estimate as a dashed line, no effect dotted.
    """
    import textwrap

    import matplotlib.pyplot as plt
    import numpy as np

    keys = list(dict.fromkeys(rows["estimand"]))
    fig, axes = plt.subplots(len(keys), 1, figsize=(9.5, 2.6 * len(keys)), squeeze=False)
    for ax, key in zip(axes[:, 0], keys, strict=True):
        panel = rows[rows["estimand"] == key]
        paper = panel[panel["kind"] == "paper"].iloc[0]
        specs = panel[panel["kind"] != "paper"].sort_values("estimate").reset_index(drop=True)
        if np.isfinite(paper["low"]):
            ax.axhspan(paper["low"], paper["high"], color="#dddddd", zorder=0)
        ax.axhline(paper["estimate"], color="k", lw=1, ls="--")
        ax.axhline(panel["null"].iloc[0], color="k", lw=0.9, ls=":")
        for outcome, group in specs.groupby("outcome", sort=False):
            ax.errorbar(group.index, group["estimate"],
                        yerr=[group["estimate"] - group["low"], group["high"] - group["estimate"]],
                        fmt="o", ms=4, lw=1, color=OUTCOME_COLORS.get(outcome, "#000000"), label=outcome)
        if panel["scale"].iloc[0] == "log":
            ax.set_yscale("log")
        ax.set_xticks([])
        ax.set_xlabel(f"{len(specs)} specifications, sorted by estimate", fontsize=10)
        ax.set_ylabel(textwrap.fill(panel["label"].iloc[0], 28), fontsize=10)
        ax.set_title((titles or {}).get(panel["claim"].iloc[0], key), fontsize=12, loc="left")
        ax.legend(fontsize=9, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    fig.tight_layout()
    return fig


def note_figure(text: str):
    """A small figure that says, in words, why the figure it stands in for is absent."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 1.2))
    ax.axis("off")
    ax.text(0.5, 0.5, text, ha="center", va="center", fontsize=10)
    return fig


_GREEK = {"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "kappa": "κ", "lambda": "λ", "mu": "μ",
          "nu": "ν", "rho": "ρ", "sigma": "σ", "theta": "θ", "chi": "χ", "times": "×", "le": "≤", "ge": "≥"}


def _plain(text: str) -> str:
    """``text`` with matplotlib's mathtext turned into plain characters (``$\\hat\\theta$`` → θ̂)."""
    def symbol(name: str) -> str:
        return _GREEK.get(name, name)

    text = re.sub(r"\\hat\s*\{?\\?([A-Za-z]+|\S)\}?", lambda m: symbol(m.group(1)) + "\u0302", text)
    text = re.sub(r"\\(?:mathrm|text|mathit|mathbf)\{([^}]*)\}", r"\1", text)
    text = re.sub(r"\\([A-Za-z]+)", lambda m: symbol(m.group(1)), text)
    return collapse_whitespace(text.replace("$", "").replace("{", "").replace("}", ""))


def _texts(artists) -> list[str]:
    return [_plain(t) for t in (a.get_text() for a in artists) if t and t.strip()]


def describe_figure(fig) -> str:
    """A plain-text description of ``fig`` from its own labels, for the page's ``alt`` text.

    Names the figure's titles and notes, then each panel's title, axis labels and legend
    entries, so a screen reader (and the site check's code-name rule) sees what the axes say.

    Returns
    -------
    str
        E.g. ``"Figure: Null reference … Panel 1: x axis “W(9)”; y axis “density”; legend: …"``.
    """
    from matplotlib.text import Text

    own = _texts([a for a in fig.artists if isinstance(a, Text)] + list(fig.texts)
                 + ([fig._suptitle] if fig._suptitle is not None else []))
    own += [f"legend: {'; '.join(_texts(legend.get_texts()))}" for legend in fig.legends]
    panels = []
    for number, ax in enumerate((ax for ax in fig.axes if ax.get_visible() and ax.axison), start=1):
        parts = [f"“{t}”" for t in _texts([ax.title])]
        parts += [f"{axis} axis “{t}”" for axis, t in (("x", _plain(ax.get_xlabel())),
                                                       ("y", _plain(ax.get_ylabel()))) if t]
        if ax.texts:
            parts.append(f"marked: {'; '.join(_texts(ax.texts))}")
        if ax.get_legend() is not None:
            parts.append(f"legend: {'; '.join(_texts(ax.get_legend().get_texts()))}")
        if parts:
            panels.append(f"Panel {number}: {', '.join(parts)}")
    return ". ".join(["Figure: " + (". ".join(own) if own else "untitled")] + panels) + "."


def _png_described(fig):
    """IPython's PNG of ``fig`` with its description as the output's ``alt`` metadata."""
    from IPython.core.pylabtools import print_figure

    return print_figure(fig, "png", bbox_inches="tight", base64=True), {"alt": describe_figure(fig)}


def describe_figures() -> None:
    """Give every figure the kernel displays its :func:`describe_figure` text as ``alt`` metadata.

    The book's Sphinx extension turns that metadata into the page image's ``alt`` attribute.
    Outside IPython (a script, a test) this does nothing.
    """
    try:
        from IPython import get_ipython
    except ImportError:  # matplotlib without IPython: no display pipeline to describe
        return
    shell = get_ipython()
    if shell is None:
        return
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    # loading the inline backend registers its own PNG formatter: load it first, then replace that
    plt.switch_backend(mpl.get_backend())

    shell.display_formatter.formatters["image/png"].for_type(Figure, _png_described)


def reference_lines(ax, lines) -> None:
    """Vertical reference lines, each named in words beside it on a row of its own.

    Lines that nearly coincide (an estimate and the paper's value) would hide one another and
    their legend entries would not say which is which; here every line's label, with its
    value, sits on its own row near the top, left to right in the lines' order.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Drawn on after its data, so its x-limits are final.
    lines : list of (float, str, dict)
        Position, label and line style (``color``, ``ls``, ``lw`` …) of each line.
    """
    lo, hi = ax.get_xlim()
    for row, (x, text, style) in enumerate(sorted(lines, key=lambda line: line[0])):
        ax.axvline(x, **style)
        right_half = x > lo + 0.6 * (hi - lo)  # a label there reads leftwards, inside the axes
        ax.annotate(f"{text} ({x:.3g})", xy=(x, 1), xycoords=("data", "axes fraction"),
                    xytext=(-3 if right_half else 3, -4 - 13 * row), textcoords="offset points",
                    ha="right" if right_half else "left", va="top", fontsize=8.5,
                    color=style.get("color", "k"), annotation_clip=False,
                    bbox={"boxstyle": "square,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.7})


#: The left panel's title in :func:`paper_beside_ours`.
PAPER_REDRAWN = "the paper (redrawn from its reported values)"


def paper_beside_ours(ours, paper, labels: dict, ylabel: str, computed_on: str):
    """Two panels on one scale: a figure of the paper redrawn from the values it reports, and ours.

    Parameters
    ----------
    ours : DataFrame
        One row per x position (index: the keys of ``labels``), columns the series to draw; a
        series ``name`` may come with ``name 2.5 %`` and ``name 97.5 %`` columns, drawn as its
        95 % range.
    paper : DataFrame
        The paper's values, same index; the columns it reports (a subset of ``ours``' series).
    labels : dict
        Index key → the x tick's words.
    ylabel : str
    computed_on : str
        The right panel's title: what our values were computed on
        (:func:`mmlu_audit.book.report.value_label` of the chapter's responses), never "ours".

    Returns
    -------
    matplotlib.figure.Figure
    """
    import textwrap

    import matplotlib.pyplot as plt
    import numpy as np

    series = [c for c in ours.columns if not c.endswith(("2.5 %", "97.5 %"))]
    looks = ({"marker": "o", "color": SOURCE_COLORS["ours"]}, {"marker": "s", "color": "#888"},
             {"marker": "D", "color": "#b07aa1"})
    styles = dict(zip(series, looks, strict=False))
    fig, axes = plt.subplots(1, 2, figsize=(7.5, 3.8), sharey=True)
    x = np.arange(len(labels))
    for ax, frame, title in zip(axes, (paper, ours), (PAPER_REDRAWN, computed_on), strict=True):
        for k, name in enumerate(c for c in series if c in frame):
            values = frame.loc[list(labels), name].to_numpy(float)
            err = None
            if f"{name} 2.5 %" in frame:
                low, high = (frame.loc[list(labels), f"{name} {q}"].to_numpy(float)
                             for q in ("2.5 %", "97.5 %"))
                err = [values - low, high - values]
            ax.errorbar(x + (k - 0.5) * 0.12, values, yerr=err, ls="-", lw=1, capsize=3, ms=6,
                        label=name, **styles[name])
        ax.axhline(0, color="k", lw=0.6)
        ax.set_xticks(x, [textwrap.fill(labels[key], 16) for key in labels], fontsize=9)
        ax.set_title(title)
        ax.legend(fontsize=9)
    axes[0].set_ylabel(ylabel)
    fig.tight_layout()
    return fig
