"""Small helpers that chapters use to show provenance and computed values."""

from __future__ import annotations

import html
import math
import re
from numbers import Integral, Real
from pathlib import Path

import numpy as np

from mmlu_audit.core.formatting import is_p_label
from mmlu_audit.data.responses import ResponseMatrix
from mmlu_audit.irt.backend import backend_name

__all__ = ["FEW_MODELS", "ITEMS_LABEL", "MISSING", "P_FLOOR", "SIGNIFICANT_DIGITS", "banner_html",
           "finding_checks", "format_number", "format_p", "format_rate", "frame_html", "glue_figure",
           "glue_ready", "glue_values", "in_words", "p_cells_formatted", "population_note",
           "rate_cells", "rate_decimals", "rate_texts", "real_label", "rerun_box", "simulation_banner",
           "source_banner", "text_banner", "three_way_table", "use_table_format", "value_label",
           "write_download", "write_netcdf_download"]

#: How a missing value (None, NaN) is shown in a table.
MISSING = "—"
#: Significant digits of a non-integer number in a table.
SIGNIFICANT_DIGITS = 4
#: A p-value below this prints as "< 1e-4" (:func:`format_p`): a table rounded to four decimals
#: holds 0 for any p below 5e-5, and a p is never printed as 0.
P_FLOOR = 1e-4

_STYLE = {
    True: ("sim-banner", "Simulated responses — not a finding about MMLU"),
    False: ("real-banner", "Real responses"),
}


def banner_html(matrix: ResponseMatrix) -> str:
    """HTML for the real/simulated banner shown at the top of every chapter."""
    css, title = _STYLE[matrix.simulated]
    j, i = matrix.shape
    body = (f"Source <code>{html.escape(matrix.source)}</code>: {j:,} models × {i:,} items. "
            f"{html.escape(matrix.description)}")
    if matrix.calibration_note:
        body += f" <strong>{html.escape(matrix.calibration_note)}</strong>"
    if matrix.simulated:
        body += (" Every number and figure on this page that is computed from responses "
                 "describes the simulated world and its planted truth.")
    return _banner(css, title, body)


def _banner(css: str, title: str, body_html: str) -> str:
    computed_on = (f'<p class="data-banner-device">Computed on JAX backend '
                   f"<code>{html.escape(backend_name())}</code>.</p>")
    return (f'<div class="data-banner {css}"><p class="data-banner-title">{html.escape(title)}</p>'
            f"<p>{body_html}</p>{computed_on}</div>")


def text_banner(title: str, body_html: str):
    """Display the provenance banner of a page that uses real item texts but no responses."""
    from IPython.display import HTML, display

    display(HTML(_banner("real-banner", title, body_html)))


def simulation_banner(body_html: str):
    """Display the simulated-source banner of a page built only from simulation results."""
    from IPython.display import HTML, display

    display(HTML(_banner(_STYLE[True][0], _STYLE[True][1], body_html)))


def source_banner(matrix: ResponseMatrix):
    """Display the real/simulated banner in a notebook."""
    from IPython.display import HTML, display

    display(HTML(banner_html(matrix)))


def glue_ready(value):
    """``value`` as it should be glued for prose: plain Python, integers as integers, yes/no.

    NumPy scalars become Python numbers (MyST-NB formats glued text from the value's
    ``repr``); a float holding a whole number becomes an ``int``, so a count reads ``14042``
    rather than ``14042.0``; a boolean becomes ``"yes"`` or ``"no"``, so no sentence reads
    "True". Anything else is returned unchanged.
    """
    value = value.item() if isinstance(value, np.generic) else value
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and math.isfinite(value) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


def glue_values(values: dict) -> None:
    """Glue each value (after :func:`glue_ready`) for use in prose as ``{glue:text}`name```."""
    from myst_nb import glue

    for name, value in values.items():
        glue(name, glue_ready(value), display=False)


def format_number(value, digits: int = SIGNIFICANT_DIGITS) -> str:
    """One table cell: integers as integers, ``digits`` significant digits, missing as "—".

    Parameters
    ----------
    value : number, bool, str or None
    digits : int
        Significant digits of a number that is not a whole number.

    Returns
    -------
    str
        ``"—"`` for None and NaN, ``"∞"``/``"−∞"`` for infinities, ``"yes"``/``"no"`` for
        booleans, ``"14,042"`` for a whole number (float or int), ``"0.0357"`` or
        ``"138.4"`` for others (a number of ``digits`` or more integer digits is rounded to
        a whole number; one below 10⁻⁴ in magnitude is written in scientific notation);
        text is returned as it is.
    """
    if value is None:
        return MISSING
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if not isinstance(value, Real):
        return str(value)
    if isinstance(value, Integral):
        return f"{int(value):,}"
    value = float(value)
    if math.isnan(value):
        return MISSING
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"
    if value.is_integer() or abs(value) >= 10 ** (digits - 1):
        return f"{value:,.0f}"
    if abs(value) < 1e-4:
        return f"{value:.{digits - 1}e}"
    return f"{value:.{digits}g}"


def format_p(value) -> str:
    """A p-value as a table shows it: "—" when missing, "< 1e-4" below :data:`P_FLOOR` (never "0").

    Parameters
    ----------
    value : number, str or None
        Text (an already formatted p) is returned as it is.
    """
    if isinstance(value, Real) and not isinstance(value, (bool, np.bool_)) and 0 <= value < P_FLOOR:
        return f"< {P_FLOOR:.0e}".replace("e-0", "e-")
    return format_number(value)


def rate_decimals(mc_se: float) -> int:
    """Decimals of a percentage that its Monte Carlo SE allows: the SE's first significant digit is the last.

    An SE of 1.5 points allows "5 %", one of 0.3 points "5.2 %"; an SE of 0 (a rate of 0 or 1)
    or a missing one leaves the percentage whole.
    """
    if mc_se is None or not math.isfinite(mc_se) or mc_se <= 0:
        return 0
    return max(0, -math.floor(math.log10(100 * mc_se)))


def format_rate(rate, mc_se=None, *, n_reps: int | None = None) -> str:
    """A power, size or coverage from a seed or replicate study, as a percentage with its Monte Carlo SE.

    Parameters
    ----------
    rate : float
        The share of replicates (between 0 and 1).
    mc_se : float, optional
        Its Monte Carlo SE, a share too (e.g. the binomial √(r(1 − r)/n) a study records).
    n_reps : int, optional
        Without ``mc_se``, the number of independent replicates the rate is a share of: the SE
        is then the binomial √(r(1 − r)/n_reps).

    Returns
    -------
    str
        The rate to the digits its SE allows (:func:`rate_decimals`) and the SE to two
        significant digits, e.g. "5 % (Monte Carlo SE 1.5 points)"; without an SE, the whole percentage;
        "—" for a missing rate. The one place a chapter or summary formats such a rate.
    """
    if rate is None or (isinstance(rate, Real) and not math.isfinite(rate)):
        return MISSING
    if mc_se is None and n_reps:
        mc_se = math.sqrt(rate * (1 - rate) / n_reps)
    if mc_se is None or not math.isfinite(mc_se):
        return f"{100 * rate:.0f} %"
    if mc_se == 0:  # every replicate alike (a rate of 0 or 1): the binomial SE is 0, not "0.0"
        return f"{100 * rate:.0f} % (Monte Carlo SE 0)"
    se_digits = max(0, 1 - math.floor(math.log10(100 * mc_se)))  # two significant digits
    return f"{100 * rate:.{rate_decimals(mc_se)}f} % (Monte Carlo SE {100 * mc_se:.{se_digits}f} points)"


def rate_texts(values: dict, keys, se_suffix: str = "_se", *, n_reps: int | None = None) -> dict[str, str]:
    """``{key}_text`` for each of ``keys``: :func:`format_rate` of ``values[key]`` and its SE.

    The SE is ``values[key + se_suffix]``; when absent, the binomial SE over ``n_reps``
    replicates (none without them).

    A chapter glues these beside the numbers, and its prose shows the text: a rate is never
    printed to more digits than its Monte Carlo SE allows, nor without it.
    """
    return {f"{key}_text": format_rate(values[key], values.get(f"{key}{se_suffix}"), n_reps=n_reps)
            for key in keys}


def rate_cells(rates, mc_se):
    """A table of rates as a reader sees them: each cell by :func:`format_rate` with its own SE.

    Parameters
    ----------
    rates, mc_se : DataFrame
        Shares and their Monte Carlo SEs, cell for cell (``mc_se`` is aligned on ``rates``'
        rows and columns; a cell it lacks is shown without an SE).
    """
    se = mc_se.reindex(index=rates.index, columns=rates.columns)
    return rates.astype(object).apply(
        lambda column: [format_rate(rate, err) for rate, err in zip(column, se[column.name], strict=True)])


def p_cells_formatted(frame):
    """``frame`` with the cells of its p-value columns and rows
    (:func:`~mmlu_audit.core.formatting.is_p_label`) as text by
    :func:`format_p`; the frame itself when it has none."""
    columns = [k for k, label in enumerate(frame.columns) if is_p_label(label)]
    rows = [k for k, label in enumerate(frame.index) if is_p_label(label)]
    if not columns and not rows:
        return frame
    out = frame.astype(object)
    for k in columns:
        out.iloc[:, k] = [format_p(v) for v in frame.iloc[:, k]]
    for k in rows:
        out.iloc[k, :] = [format_p(v) for v in out.iloc[k, :]]
    return out


def _cell(value) -> str:
    """A table cell: text as it is, anything else by :func:`format_number`."""
    if isinstance(value, str):
        return value
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    return format_number(value)


#: A header cell holding only text (what pandas writes for column and index labels).
_HEADER_CELL = re.compile(r"(<th[^>]*>)([^<]*)(</th>)")


def _breakable_header(match: re.Match) -> str:
    start, text, end = match.groups()
    return start + text.replace("_", "_<wbr>") + end


def in_words(frame):
    """``frame`` with every row and column label (and axis name) the label registry knows in its words.

    The registry (:func:`mmlu_audit.book.labels.labels`) is the one place a code name such as
    ``w9_cr2`` gets the words a reader sees ("W(9), CR2"); a table the book shows goes through
    it here, so a chapter displays the library's tables as they are and never renames by hand.
    Cells are left alone, and so is a label the registry does not know.
    """
    from mmlu_audit.book.labels import labels

    known = labels()
    out = frame.rename(index=known, columns=known)
    return out.rename_axis(index=[known.get(n, n) if isinstance(n, str) else n for n in out.index.names],
                           columns=[known.get(n, n) if isinstance(n, str) else n for n in out.columns.names])


def frame_html(frame) -> str:
    """A DataFrame as the book's HTML table: labels in words (:func:`in_words`), cells by
    :func:`format_number` (p-values by :func:`format_p`), wide tables scroll.

    The notebook's row and column limits (``display.max_rows``, ``display.max_columns``)
    apply as in pandas' own display; cell text is escaped as pandas escapes it. Header labels
    may break after an underscore (``d_ner_survives_holm``), so identifiers do not widen the
    table past the text column. The p-value columns are found under both names, the code name
    (``null_tail_p_all``) and the registry's words ("Holm p, CR2"), so either makes a p a p.
    """
    import pandas as pd

    frame = p_cells_formatted(in_words(p_cells_formatted(frame)))
    table = frame.to_html(
        na_rep=MISSING, formatters=[_cell] * frame.shape[1], classes="book-table", border=0,
        max_rows=pd.get_option("display.max_rows"), max_cols=pd.get_option("display.max_columns"),
        show_dimensions=False)
    return f'<div class="table-scroll">{_HEADER_CELL.sub(_breakable_header, table)}</div>'


def use_table_format() -> None:
    """Show every DataFrame of the notebook through :func:`frame_html` and plain floats alike.

    Every column is shown (the table scrolls sideways); pandas' row limit stays, so a table too
    long for a page is cut where the site check (:mod:`mmlu_audit.book.sitecheck`) sees it.

    Called by :func:`mmlu_audit.book.plots.use_style`, which every chapter calls first; outside
    IPython only pandas' plain-text float format is set.
    """
    import pandas as pd

    pd.set_option("display.float_format", format_number)
    pd.set_option("display.max_columns", None)  # wide tables scroll (frame_html); none loses columns to "…"
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython ships with the book's requirements
        return
    shell = get_ipython()
    if shell is not None:
        shell.display_formatter.formatters["text/html"].for_type(pd.DataFrame, frame_html)


#: Below this many models a chapter says the source cannot test the paper's claims.
FEW_MODELS = 200


def finding_checks(checks: dict):
    """A table of what one seed's results say, read against what the prose or the planted truth expects.

    A chapter asserts only properties of its method and data (identities, bounds, shapes); which
    way a finding came out on one seed, and whether a planted value was recovered, is *reported*
    here instead, so that a build never passes or fails on a single seed at a significance line.

    Parameters
    ----------
    checks : dict
        Check (a sentence) → whether it holds (bool), or None where it does not apply.

    Returns
    -------
    DataFrame
        Indexed by check, one column ``holds`` ("yes", "no" or "not applicable").
    """
    import pandas as pd

    words = {True: "yes", False: "no", None: "not applicable"}
    return pd.DataFrame({"holds": [words[None if v is None else bool(v)] for v in checks.values()]},
                        index=pd.Index(list(checks), name="on this seed"))


def real_label(matrix: ResponseMatrix) -> str:
    """The column header of a real population: ``"real: mmlu_real (31 models)"``."""
    return f"real: {matrix.source} ({matrix.shape[0]:,} models)"


#: The header of values computed on the MMLU items alone (counts, text indicators): real whatever
#: the response source.
ITEMS_LABEL = "MMLU items (real)"


def value_label(matrix: ResponseMatrix) -> str:
    """The header of a column of values computed on ``matrix``, saying whether they are real.

    ``"simulated world"`` for a simulated source (its estimates, checked against what was
    planted), :func:`real_label` for real responses; never "ours".
    """
    return "simulated world" if matrix.simulated else real_label(matrix)


def three_way_table(simulated: dict, real: dict, *, real_matrix: ResponseMatrix,
                    planted: dict | None = None, labels: dict | None = None, paper_keys: dict | None = None):
    """The paper's value, the real population's and the simulated world's, side by side.

    Parameters
    ----------
    simulated : dict
        Key → the value this chapter computed on the simulated world (the keys give the rows,
        in order; keys of :data:`mmlu_audit.core.paper.PAPER` show the paper's value).
    real : dict
        Key → the same quantity computed on the real population; a key it lacks shows "—".
    real_matrix : ResponseMatrix
        The real population (names its column).
    planted : dict, optional
        Key → the simulated world's planted value, where it has one.
    labels : dict, optional
        Key → a readable name of the quantity.
    paper_keys : dict, optional
        Key → its :data:`~mmlu_audit.core.paper.PAPER` key where the two names differ.

    Returns
    -------
    DataFrame
        Indexed by quantity; columns ``paper``, the real column, ``simulated world``, ``planted``
        and ``where`` (the paper's section).

    Raises
    ------
    ParameterError
        If ``real_matrix`` is simulated (the real column would not be real).
    """
    import pandas as pd

    from mmlu_audit.core.errors import ParameterError
    from mmlu_audit.core.paper import PAPER

    if real_matrix.simulated:
        raise ParameterError("real_matrix", "the real column must come from real responses")
    labels, planted, paper_keys = labels or {}, planted or {}, paper_keys or {}
    published = {key: PAPER.get(paper_keys.get(key, key), (np.nan, MISSING)) for key in simulated}
    rows = [{"quantity": labels.get(key, key), "paper": published[key][0],
             real_label(real_matrix): real.get(key, np.nan), "simulated world": value,
             "planted": planted.get(key, np.nan), "where": published[key][1]}
            for key, value in simulated.items()]
    return pd.DataFrame(rows).set_index("quantity")


def population_note(matrix: ResponseMatrix) -> str:
    """One plain sentence on what the model population of ``matrix`` can support."""
    n_models = matrix.shape[0]
    observed = matrix.observed
    correct = (matrix.responses == 1) & observed
    n_obs = observed.sum(axis=0)
    seen = n_obs > 0
    hits = correct.sum(axis=0)[seen]
    extreme = np.mean((hits == n_obs[seen]) | (hits == 0))
    unseen = "" if seen.all() else (f" {int((~seen).sum())} items have no observed response at all "
                                    "and are left out.")
    if matrix.simulated:
        return (f"Simulated source with {n_models:,} models, sized like the paper's leaderboard; "
                "every estimate below describes the simulated world and is checked against its "
                "planted truth.")
    if n_models >= FEW_MODELS:
        return (f"Real responses from {n_models:,} models; {extreme:.1%} of items are answered "
                f"correctly by all of them or by none.{unseen}")
    return (f"Real responses from only {n_models:,} models (at most {int(n_obs.max())} per item). "
            f"{extreme:.1%} of items are answered correctly by every model or by none, so their "
            "difficulty is pinned only by the prior, and every b̂ rests on a handful of binary "
            f"responses.{unseen} The regressions below run and their tests are valid for this noisy "
            "outcome, but they describe these models' difficulty ordering, not MMLU's: effects "
            "of the size the paper reports are mostly below what this population can detect, "
            "so a null result here is not evidence against the paper.")


def glue_figure(name: str, fig) -> None:
    """Glue a matplotlib figure for a ``{glue:figure}`` block, and keep it out of the cell output.

    The page shows the figure once, where the chapter's markdown places it with a
    caption and a ``:name:`` that ``{numref}`` can refer to.
    """
    import matplotlib.pyplot as plt
    from myst_nb import glue

    glue(name, fig, display=False)
    plt.close(fig)


def write_download(table, name: str, folder) -> Path:
    """Write ``table`` as CSV beside the executed page, for a MyST ``{download}`` link.

    Parameters
    ----------
    table : DataFrame
    name : str
        File name; the page links it as ``{download}`text <name>```.
    folder : str or Path
        The folder the page is executed into: a chapter declares ``executed_dir`` in its
        parameters cell and :func:`mmlu_audit.book.build.execute_chapter` fills it in.

    The file is written under a temporary name and renamed, so a reader never finds half a file.
    """
    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    partial = target / f".{name}.partial"
    table.to_csv(partial, index=False)
    return partial.replace(target / name)


def write_netcdf_download(idata, name: str, folder) -> Path:
    """Write an ArviZ ``InferenceData`` as netCDF beside the executed page, for a ``{download}`` link.

    Parameters
    ----------
    idata : arviz.InferenceData
        E.g. from :func:`mmlu_audit.irt.posterior.to_inference_data` (thin it and use float32:
        the file is a page download).
    name : str
        File name (``….nc``); the page links it as ``{download}`text <name>```.
    folder : str or Path
        The folder the page is executed into (the chapter's ``executed_dir`` parameter).

    Returns
    -------
    Path
        The written file. It is written under a temporary name in ``folder`` and renamed, so a
        reader never finds half a file; ``arviz.from_netcdf`` reads it back.
    """
    from mmlu_audit.irt.posterior import save_inference_data  # ArviZ loads only for a page that exports

    return save_inference_data(idata, Path(folder) / name)


def rerun_box(parameter: str, value, note: str) -> None:
    """Show, under a headline result, how to rerun the chapter with ``parameter`` set to ``value``.

    Parameters
    ----------
    parameter : str
        One of the chapter's parameters (its parameters cell).
    value
        The value to try; written as the build's ``-p`` option reads it.
    note : str
        What the rerun checks, in a sentence (Markdown-free text).

    The kernel writes a placeholder that reads sensibly in Jupyter; the book's Sphinx extension
    (:func:`mmlu_audit.book.sphinxext.fill_rerun_boxes`) completes its command with the chapter
    and the data source, seed and mode the page was built with.
    """
    import html

    from IPython.display import HTML, display

    if not parameter.isidentifier():
        raise ValueError(f"rerun_box: {parameter!r} is not a parameter name")
    shown = html.escape(str(value), quote=True)
    display(HTML(f'<div class="rerun-box" data-parameter="{parameter}" data-value="{shown}"><p>'
                 f"{html.escape(note)}</p><pre>python -m mmlu_audit.book.build CHAPTER -p {parameter} {shown}"
                 "</pre></div>"))
