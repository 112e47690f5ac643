"""The paper-versus-this-run scorecard, read from the executed chapters.

Every chapter glues its key numbers (:func:`mmlu_audit.book.report.glue_values`); myst-nb
stores each glued value in the executed notebook's outputs. :func:`collect` reads those
outputs back — it re-runs nothing — together with each chapter's data source (from its
provenance banner) and the parameters papermill ran it with. :func:`scorecard` pairs the
collected values with :data:`mmlu_audit.core.paper.PAPER` by key (a paper key and the glue
name of our matching value are the same string) and gives each pair a verdict under the
tolerances of :data:`TOLERANCE_RULES`.
"""

from __future__ import annotations

import ast
import html
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from mmlu_audit.core.errors import DataError
from mmlu_audit.core.paper import PAPER

__all__ = [
    "NOT_COMPUTABLE_REASONS",
    "TOLERANCE_RULES",
    "VERDICTS",
    "ChapterRecord",
    "Collection",
    "GluedValue",
    "Tolerance",
    "collect",
    "not_computable_reason",
    "read_chapter",
    "scorecard",
    "scorecard_html",
    "tolerance_for",
    "verdict",
]

VERDICTS = ("reproduced", "differs", "not computable here")

_GLUE_PREFIX = "application/papermill.record/"
_BANNER_SOURCE = {"sim-banner": "simulated", "real-banner": "real"}


@dataclass(frozen=True)
class Tolerance:
    """How close our value must be to the paper's to count as reproduced.

    Parameters
    ----------
    kind : {"exact", "absolute", "relative"}
    amount : float
        The allowed |ours − paper| (``"absolute"``), or that difference as a share of
        |paper| (``"relative"``); ignored for ``"exact"``.
    """

    kind: str
    amount: float = 0.0

    def __post_init__(self):
        if self.kind not in ("exact", "absolute", "relative"):
            raise DataError("Tolerance", f"unknown kind {self.kind!r}")
        if not self.amount >= 0:
            raise DataError("Tolerance", f"amount must be non-negative, got {self.amount}")

    def holds(self, ours: float, paper: float) -> bool:
        """True when ``ours`` agrees with ``paper`` within this tolerance."""
        gap = abs(ours - paper)
        if self.kind == "exact":
            return gap == 0
        allowed = self.amount if self.kind == "absolute" else self.amount * abs(paper)
        return gap <= allowed * (1 + 1e-9)  # 0.99 − 0.98 is 0.0100…01 in binary

    @property
    def label(self) -> str:
        """Human-readable form, e.g. ``"±5 %"`` or ``"±0.01"``."""
        if self.kind == "exact":
            return "exact"
        if self.kind == "absolute":
            return f"±{self.amount:g}"
        return f"±{100 * self.amount:g} %"


#: Tolerance by key pattern (``re.fullmatch``; the first matching rule wins). Counts must
#: agree exactly; correlations within 0.01 and p-values within 0.02 (absolute, since a
#: relative rule would demand 0.0005 of a p of 0.01); everything else within 5 % of the
#: paper's value, the run-to-run spread of the stochastic quantities at full settings.
TOLERANCE_RULES: list[tuple[str, Tolerance]] = [
    (r"n_.*|holm_survivors_.*", Tolerance("exact")),
    (r"r_[a-z]+_[a-z]+|rho_.*|split_cohort_r|spearman_brown", Tolerance("absolute", 0.01)),
    (r".*_p|.*_p_.*", Tolerance("absolute", 0.02)),
    (r".*", Tolerance("relative", 0.05)),
]

#: Why a paper key has no value in this run, by the paper section it comes from (the
#: first matching pattern, searched in the key's section string, wins).
NOT_COMPUTABLE_REASONS: list[tuple[str, str]] = [
    (r"§5", "the model-side analyses (§5) are planned pages; no chapter computes this yet"),
    (r"Appendix", "the appendix computing this is a planned page; no chapter computes it yet"),
    (r"§6", "the discussion (§6) is a planned page"),
    (r".*", ("no executed chapter of this build glued a value under this name (its chapter "
             "was not executed, failed, ran with other parameters, or does not compute it yet)")),
]


@dataclass(frozen=True)
class GluedValue:
    """One value a chapter glued.

    Attributes
    ----------
    name : str
    value : object
        The value parsed back from its stored ``repr`` (a string when it is not a literal).
    chapter : str
        Stem of the executed notebook, e.g. ``"04_pooled"``.
    source : {"real", "simulated", "not stated"}
        From the chapter's provenance banner.
    """

    name: str
    value: object
    chapter: str
    source: str


@dataclass
class ChapterRecord:
    """What :func:`read_chapter` found in one executed notebook."""

    chapter: str
    title: str
    source: str
    parameters: dict
    failed: bool
    finished: bool
    values: dict = field(default_factory=dict)


@dataclass
class Collection:
    """Glued values of a set of executed chapters.

    Attributes
    ----------
    values : dict of str → GluedValue
        By glue name; a name glued by several chapters keeps the first in book order.
    chapters : list of ChapterRecord
        Every notebook read, in book order.
    skipped : dict of str → str
        Chapter stem → why its values were left out.
    """

    values: dict
    chapters: list
    skipped: dict


def _parse_repr(text: str):
    """A glued value back from its ``text/plain`` repr: a literal, a float, or the text."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        pass
    try:
        return float(text)  # "nan", "inf"
    except ValueError:
        return text


def _cell_parameters(cell) -> dict:
    """Constant assignments ``name = literal`` of a code cell."""
    params = {}
    for node in ast.parse("".join(cell.get("source", ""))).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            try:
                params[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                continue  # a computed default is not a run parameter
    return params


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def read_chapter(path: Path) -> ChapterRecord:
    """Read one executed notebook's title, source, parameters, failure flag and glued values.

    Parameters
    ----------
    path : Path
        An ``.ipynb`` written by :func:`mmlu_audit.book.build.execute_chapter`.

    Raises
    ------
    DataError
        When the file is not a readable notebook.
    """
    try:
        notebook = json.loads(Path(path).read_text())
        cells = notebook["cells"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DataError(path, f"not a readable executed notebook ({exc})") from exc
    title, sources, parameters, values = Path(path).stem, set(), {}, {}
    for cell in cells:
        tags = cell.get("metadata", {}).get("tags", [])
        if cell.get("cell_type") == "markdown" and title == Path(path).stem:
            heading = re.search(r"^# (.+)$", _text(cell.get("source", "")), re.MULTILINE)
            title = heading.group(1).strip() if heading else title
        if cell.get("cell_type") != "code":
            continue
        if "parameters" in tags or "injected-parameters" in tags:
            parameters.update(_cell_parameters(cell))  # injected cells come later and win
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            for css, source in _BANNER_SOURCE.items():
                if f"data-banner {css}" in _text(data.get("text/html", "")):
                    sources.add(source)
            glue = output.get("metadata", {}).get("scrapbook")
            if glue:
                prefix = glue.get("mime_prefix", "")
                text = data.get(prefix + "text/plain", data.get(_GLUE_PREFIX + "text/plain"))
                if text is not None:
                    values[glue["name"]] = _parse_repr(_text(text))
    source = "simulated" if "simulated" in sources else ("real" if sources else "not stated")
    papermill = notebook.get("metadata", {}).get("papermill", {})
    parameters.update(papermill.get("parameters") or {})  # what papermill injected, recorded
    failed, finished = bool(papermill.get("exception")), bool(papermill.get("end_time"))
    return ChapterRecord(Path(path).stem, title, source, parameters, failed, finished, values)


def collect(executed_dir, expect: dict | None = None, exclude: tuple = ()) -> Collection:
    """Collect the glued values of every executed chapter in ``executed_dir``.

    Parameters
    ----------
    executed_dir : str or Path
        Folder of executed notebooks (``book/_executed``).
    expect : dict, optional
        Run parameters (e.g. ``data_source``, ``seed``, ``fast``) every chapter must have
        run with; a chapter executed with other values — a stale notebook from an
        earlier build — is skipped with the reason, as is a chapter that failed or
        is still executing.
    exclude : tuple of str
        Chapter stems to leave out (the scorecard itself).

    Raises
    ------
    DataError
        When ``executed_dir`` is not a folder or holds no executed notebook.
    """
    folder = Path(executed_dir)
    paths = sorted(p for p in folder.glob("*.ipynb") if p.stem not in exclude) \
        if folder.is_dir() else []
    if not paths:
        raise DataError(folder, "holds no executed chapter notebooks; execute the chapters "
                                "first (python -m mmlu_audit.book.build)")
    values, chapters, skipped = {}, [], {}
    for path in paths:
        record = read_chapter(path)
        chapters.append(record)
        stale = {k: record.parameters.get(k) for k, v in (expect or {}).items()
                 if k in record.parameters and record.parameters[k] != v}
        if record.failed:
            skipped[record.chapter] = "its execution failed"
        elif not record.finished:  # papermill writes the notebook as it executes
            skipped[record.chapter] = "its execution has not finished"
        elif stale:
            skipped[record.chapter] = f"it ran with other parameters {stale}, expected {expect}"
        if record.chapter in skipped:
            continue
        for name, value in record.values.items():
            values.setdefault(name, GluedValue(name, value, record.chapter, record.source))
    return Collection(values, chapters, skipped)


def tolerance_for(key: str) -> Tolerance:
    """The tolerance that applies to paper key ``key`` (see :data:`TOLERANCE_RULES`)."""
    return next(tolerance for pattern, tolerance in TOLERANCE_RULES if re.fullmatch(pattern, key))


def not_computable_reason(key: str) -> str:
    """Why ``key`` has no value here, by its paper section (:data:`NOT_COMPUTABLE_REASONS`)."""
    section = PAPER[key][1]
    return next(reason for pattern, reason in NOT_COMPUTABLE_REASONS if re.search(pattern, section))


def _as_number(value):
    """``value`` as a finite float, or None for non-numbers, booleans and NaN/inf."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def verdict(key: str, glued: GluedValue | None) -> tuple[str, str]:
    """The verdict and its explanation for one paper key.

    Returns
    -------
    (str, str)
        One of :data:`VERDICTS`, and why: the tolerance applied (and, for a value
        computed on a simulated world, that agreement there is not a finding about
        MMLU), or why no comparison is possible.
    """
    if glued is None:
        return VERDICTS[2], not_computable_reason(key)
    ours = _as_number(glued.value)
    if ours is None:
        return VERDICTS[2], f"the glued value {glued.value!r} is not a finite number"
    tolerance = tolerance_for(key)
    outcome = VERDICTS[0] if tolerance.holds(ours, PAPER[key][0]) else VERDICTS[1]
    note = f"tolerance {tolerance.label}"
    if glued.source == "simulated":
        note += "; on a simulated world planted after the paper, so not a finding about MMLU"
    return outcome, note


def scorecard(collection: Collection) -> pd.DataFrame:
    """One row per :data:`PAPER` key: paper value, ours, source, chapter, verdict, why.

    Parameters
    ----------
    collection : Collection
        From :func:`collect`.

    Returns
    -------
    DataFrame
        Indexed by key, in :data:`PAPER` order; ``ours``/``source``/``chapter`` are
        missing (NaN) where the run has no value.
    """
    rows = []
    for key, (paper, section) in PAPER.items():
        glued = collection.values.get(key)
        outcome, why = verdict(key, glued)
        rows.append({"key": key, "section": section, "paper": paper,
                     "ours": None if glued is None else glued.value,
                     "source": None if glued is None else glued.source,
                     "chapter": None if glued is None else glued.chapter,
                     "verdict": outcome, "why": why})
    return pd.DataFrame(rows).set_index("key")


def _number_html(value) -> str:
    """A table cell: ``—`` for missing, 4 significant digits for floats, escaped text otherwise."""
    if not isinstance(value, str) and pd.isna(value):
        return "—"
    return f"{value:.4g}" if isinstance(value, float) else html.escape(str(value))


def _chapter_link(stem, titles: dict) -> str:
    """An HTML link to a chapter's page, titled as the chapter is; ``—`` when there is none."""
    if not isinstance(stem, str):
        return "—"
    return f'<a href="{html.escape(stem)}.html">{html.escape(titles.get(stem, stem))}</a>'


def scorecard_html(table: pd.DataFrame, titles: dict) -> str:
    """The scorecard as an HTML table, each value's chapter a link to its page.

    Parameters
    ----------
    table : DataFrame
        From :func:`scorecard`.
    titles : dict
        Chapter stem → title (the link text).
    """
    shown = pd.DataFrame({
        "paper": table["paper"].map(_number_html),
        "ours": table["ours"].map(_number_html),
        "source": table["source"].fillna("—"),
        "chapter": table["chapter"].map(lambda stem: _chapter_link(stem, titles)),
        "verdict": table["verdict"],
        "why": table["why"].map(html.escape),
        "§": table["section"],
    }, index=table.index.rename("quantity"))
    return shown.to_html(escape=False, classes="scorecard")
