"""The paper-versus-this-run scorecard, read from the executed chapters.

Every chapter glues its key numbers (:func:`mmlu_audit.book.report.glue_values`); myst-nb
stores each glued value in the executed notebook's outputs. :func:`collect` reads those
outputs back — it re-runs nothing — with the provenance banner in force where each value was
glued and the parameters papermill ran the chapter with. :func:`scorecard` looks every
published key up where the registry :data:`mmlu_audit.book.results.RESULT_KEYS` says its chapter
glues it, and adds a row for every real-data result of :data:`mmlu_audit.book.results.REAL_RESULTS`;
each row gets its provenance (real items, real responses, simulated responses), the data source
it was computed on, who reported the value it is compared with (a paper or the blog post,
:func:`mmlu_audit.core.paper.source_kind`) and one of :data:`VERDICTS` under the tolerances of
:data:`TOLERANCE_RULES`, worded with the book's two terms of agreement
(:data:`~mmlu_audit.core.paper.REPRODUCES`, :data:`~mmlu_audit.core.paper.RECOVERS`).
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

from mmlu_audit.book.labels import label
from mmlu_audit.book.report import format_number, format_p
from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.book.chapters import chapter_stem
from mmlu_audit.book.results import (INTERVAL_SUFFIX, POPULATION_SHORT, REAL_RESULTS, RESULT_KEYS,
                                     registered_test)
from mmlu_audit.core.paper import MMLU_PRO_SOURCES, PAPER, REPRODUCES, SOURCE_KINDS, reproduces, source_kind

__all__ = [
    "CHAPTER_SHORT_NAMES",
    "PROVENANCES",
    "PROVENANCE_SHORT",
    "TOLERANCE_RULES",
    "VERDICTS",
    "VERDICT_SHORT",
    "ChapterRecord",
    "Collection",
    "GluedValue",
    "Tolerance",
    "chapter_sources",
    "chapters_read",
    "collect",
    "declared_interval",
    "headline",
    "lookup",
    "published",
    "read_chapter",
    "scorecard",
    "scorecard_csv",
    "scorecard_html",
    "short_words_text",
    "tolerance_for",
    "verdict",
    "verdict_words",
]

#: Verdicts, in the order the summary lists them, worded with :data:`~mmlu_audit.core.paper.REPRODUCES`
#: (for a value the blog post reports, :func:`verdict_words` says "the blog post's value").
VERDICTS = (f"{REPRODUCES} (real data)", f"{REPRODUCES} (simulated world)", "differs from the paper's value",
            "real data, another population than the paper's", "not computable")
#: Where a value comes from.
PROVENANCES = ("real items", "real responses", "simulated responses", "not stated")
#: The verdicts and provenances as the compact table prints them (the full words in each cell's tooltip),
#: so that a row fits on one line.
VERDICT_SHORT = dict(zip(VERDICTS, ("reproduces", "reproduces (simulated)", "differs", "other population",
                                   "not computable"), strict=True))
PROVENANCE_SHORT = dict(zip(PROVENANCES, ("items", "responses", "simulated", "not stated"), strict=True))
#: Short names of the chapters (paper section first) by MyST label, for the compact table.
CHAPTER_SHORT_NAMES = {
    "chap-data": "§2 Data",
    "chap-calibration": "§3 Calibration",
    "chap-complexity": "§3 Complexity",
    "chap-pooled": "§4.1 Pooled",
    "chap-stratified": "§4.2 Stratified",
    "chap-homogeneity": "§4.3 Homogeneity",
    "chap-reasoning-sensitivity": "§5.1 Reasoning",
    "chap-native-interaction": "§5.1 Interaction",
    "chap-interaction-bootstrap": "§5.1 Bootstrap",
    "chap-rank-stability": "§5.2 Rankings",
    "chap-appendix-a": "App. A Robustness",
    "chap-appendix-b": "App. B Options",
    "chap-appendix-c": "App. C 2D IRT",
    "chap-appendix-d": "App. D Redux",
    "chap-mmlu-pro": "MMLU-Pro",
    "chap-answer-key-audit": "MMLU-Pro key audit",
    "chap-validity": "Validity",
    "chap-real-leaderboard": "Open LLM Leaderboard (real)",
    "chap-appendix-c-explanatory": "App. C explanatory",
    "chap-real-verdicts": "§6 Real verdicts",
}
_GLUE_PREFIX = "application/papermill.record/"
_BANNER_SOURCE = {"sim-banner": "simulated", "real-banner": "real"}
_BASIS_PROVENANCE = {"items": "real items", "real responses": "real responses"}
_BANNER_PROVENANCE = {"real": "real responses", "simulated": "simulated responses",
                      "not stated": "not stated"}


def verdict_words(verdict: str, reported_by: str | None) -> str:
    """``verdict`` worded for who reported the value (:data:`~mmlu_audit.core.paper.SOURCE_KINDS`)."""
    if reported_by in SOURCE_KINDS and reported_by != SOURCE_KINDS[0]:
        worded = verdict.replace(REPRODUCES, reproduces(reported_by))
        return worded.replace("the paper's", f"the {reported_by}'s")
    return verdict


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
            raise ParameterError("Tolerance", f"unknown kind {self.kind!r}")
        if not self.amount >= 0:
            raise ParameterError("Tolerance", f"amount must be non-negative, got {self.amount}")

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

@dataclass(frozen=True)
class GluedValue:
    """One value a chapter glued.

    Attributes
    ----------
    name : str
    value : object
        The value parsed back from its stored ``repr`` (a string when it is not a literal).
    chapter : str
        Stem of the executed notebook, e.g. ``"05_pooled"``.
    source : {"real", "simulated", "not stated"}
        From the provenance banner in force where the value was glued (the last one above it).
    """

    name: str
    value: object
    chapter: str
    source: str


@dataclass
class ChapterRecord:
    """What :func:`read_chapter` found in one executed notebook.

    ``source`` is "simulated" when any banner of the page says so; ``banners`` lists the sources
    its banners state, in page order, without repeats; ``sources`` holds, by glue name, the banner
    in force where that value was glued.
    """

    chapter: str
    title: str
    source: str
    parameters: dict
    failed: bool
    finished: bool
    values: dict = field(default_factory=dict)
    sources: dict = field(default_factory=dict)
    banners: tuple = ()


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


def _banner_in(data: dict) -> str | None:
    page = _text(data.get("text/html", ""))
    return next((source for css, source in _BANNER_SOURCE.items() if f"data-banner {css}" in page), None)


def read_chapter(path: Path) -> ChapterRecord:
    """Read one executed notebook's title, sources, parameters, failure flag and glued values.

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
    try:
        return _record(Path(path), notebook, cells)
    except DataError:
        raise
    except (AttributeError, TypeError, KeyError, ValueError) as exc:  # a field of the wrong shape
        raise DataError(path, f"not a readable executed notebook (malformed: {type(exc).__name__}: "
                        f"{exc})") from exc


def _record(path: Path, notebook: dict, cells) -> ChapterRecord:
    """The :class:`ChapterRecord` of a parsed notebook (any malformed field raises)."""
    title, banners, parameters, values, sources = Path(path).stem, {}, {}, {}, {}
    in_force = "not stated"
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
            banner = _banner_in(data)
            if banner:
                banners.setdefault(banner)
                in_force = banner
            glue = output.get("metadata", {}).get("scrapbook")
            if glue:
                prefix = glue.get("mime_prefix", "")
                text = data.get(prefix + "text/plain", data.get(_GLUE_PREFIX + "text/plain"))
                if text is not None:
                    values[glue["name"]] = _parse_repr(_text(text))
                    sources[glue["name"]] = in_force
    source = "simulated" if "simulated" in banners else ("real" if banners else "not stated")
    papermill = notebook.get("metadata", {}).get("papermill", {})
    parameters.update(papermill.get("parameters") or {})  # what papermill injected, recorded
    failed, finished = bool(papermill.get("exception")), bool(papermill.get("end_time"))
    return ChapterRecord(Path(path).stem, title, source, parameters, failed, finished, values, sources,
                         tuple(banners))


def collect(executed_dir, expect: dict | None = None, exclude: tuple = ()) -> Collection:
    """Collect the glued values of every executed chapter in ``executed_dir``.

    Parameters
    ----------
    executed_dir : str or Path
        Folder of executed notebooks (``book/_executed``); hidden files (a chapter still being
        written, ``.05_pooled….running.ipynb``) are not chapters and are not read.
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
    found = folder.glob("*.ipynb") if folder.is_dir() else ()
    paths = sorted(p for p in found if p.stem not in exclude and not p.name.startswith("."))
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
            values.setdefault(name, GluedValue(name, value, record.chapter, record.sources[name]))
    return Collection(values, chapters, skipped)


def lookup(collection: Collection, chapter: str, name: str) -> GluedValue | None:
    """The value glued as ``name`` by the used chapter labelled ``chapter`` (its MyST label)."""
    stem = chapter_stem(chapter)
    for record in collection.chapters:
        if record.chapter.split(".")[0] == stem and record.chapter not in collection.skipped \
                and name in record.values:
            return GluedValue(name, record.values[name], record.chapter, record.sources[name])
    return None


def published(key: str) -> tuple[object, str]:
    """The published value of ``key`` and where it is reported (the paper or an MMLU-Pro source)."""
    return PAPER[key] if key in PAPER else MMLU_PRO_SOURCES[key]


def tolerance_for(key: str) -> Tolerance:
    """The tolerance that applies to key ``key`` (see :data:`TOLERANCE_RULES`)."""
    return next(tolerance for pattern, tolerance in TOLERANCE_RULES if re.fullmatch(pattern, key))


def _as_number(value):
    """``value`` as a finite float, or None for non-numbers, booleans and NaN/inf."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _as_answer(value):
    """A yes/no value (``True``/``False`` or the ``"yes"``/``"no"`` glue writes), else None."""
    if isinstance(value, bool):
        return value
    return {"yes": True, "no": False}.get(value) if isinstance(value, str) else None


def provenance(key: str, glued: GluedValue | None) -> str | None:
    """Where our value of ``key`` comes from (one of :data:`PROVENANCES`), None without one."""
    if glued is None:
        return None
    basis = RESULT_KEYS[key].basis
    return _BASIS_PROVENANCE.get(basis) or _BANNER_PROVENANCE[glued.source]


def verdict(key: str, glued: GluedValue | None) -> tuple[str, str]:
    """The verdict and its explanation for one published key.

    Returns
    -------
    (str, str)
        One of :data:`VERDICTS`, and why: the tolerance applied (and, for a value the
        simulation copies from the paper, that the match is by construction), or why no
        comparison is possible.
    """
    entry = RESULT_KEYS[key]
    if entry.reason is not None:
        return VERDICTS[4], entry.reason
    if glued is None:
        where = chapter_stem(entry.chapter)[:2]
        return VERDICTS[4], (f"chapter {where} glued no `{entry.glue}` in this build "
                             "(not executed, failed, or ran with other parameters)")
    paper = published(key)[0]
    simulated = provenance(key, glued) == "simulated responses"
    if isinstance(paper, bool):
        ours, note = _as_answer(glued.value), "yes/no, exact"
        if ours is None:
            return VERDICTS[4], f"the glued value {glued.value!r} is not a yes/no answer"
        agrees = ours == paper
    else:
        ours, tolerance = _as_number(glued.value), tolerance_for(key)
        if ours is None:
            return VERDICTS[4], f"the glued value {glued.value!r} is not a finite number"
        agrees, note = tolerance.holds(ours, paper), f"tolerance {tolerance.label}"
    if simulated and entry.planted:
        note += f"; by construction: the simulation copies the paper's value (WorldSpec.{entry.planted})"
    if not agrees:
        return VERDICTS[2], note
    return (VERDICTS[1] if simulated else VERDICTS[0]), note


def _real_values(collection: Collection, key: str) -> str | None:
    """The real-data values of :data:`REAL_RESULTS` that compare with ``key``, with their populations."""
    found = [(lookup(collection, r.chapter, r.glue), r.population) for r in REAL_RESULTS if r.compare == key]
    text = "; ".join(f"{format_number(glued.value)} ({population})" for glued, population in found
                     if glued is not None)
    return text or None


def declared_interval(collection: Collection, chapter: str, glue: str) -> dict | None:
    """The interval chapter ``chapter`` declares the one to read for ``glue``, or None.

    Returns
    -------
    dict or None
        ``low``, ``high`` and ``method``, as the chapter glued them with
        :func:`mmlu_audit.book.results.interval_to_read`; None when it declared none.

    Raises
    ------
    DataError
        When the declared value is not such a mapping (a chapter glued the name by hand).
    """
    found = lookup(collection, chapter, f"{glue}{INTERVAL_SUFFIX}")
    if found is None:
        return None
    if not isinstance(found.value, dict) or not {"low", "high", "method"} <= set(found.value):
        raise DataError(found.chapter, f"`{found.name}` is not an interval declared by interval_to_read: "
                                       f"{found.value!r}")
    return found.value


def _bounds(collection: Collection, chapter: str, glue: str, low: str | None, high: str | None) -> dict:
    """``low``, ``high`` and ``interval`` (its method): the declared interval, else the named bounds."""
    declared = declared_interval(collection, chapter, glue)
    if declared is not None:
        return {"low": declared["low"], "high": declared["high"], "interval": declared["method"]}
    values = {bound: getattr(lookup(collection, chapter, name) if name else None, "value", None)
              for bound, name in (("low", low), ("high", high))}
    return values | {"interval": None}


def _record_of(collection: Collection, stem: str):
    return next((r for r in collection.chapters if r.chapter == stem), None)


def _data_source(collection: Collection, key: str, glued: GluedValue | None) -> str | None:
    """What a published key's value was computed on: real items, a real population or a ``data_source``."""
    if glued is None:
        return None
    entry = RESULT_KEYS[key]
    if entry.basis == "items":
        return "real MMLU items"
    if entry.basis == "real responses":
        return next((r.population for r in REAL_RESULTS if r.chapter == entry.chapter), "real responses")
    record = _record_of(collection, glued.chapter)
    return f"data_source {record.parameters.get('data_source', 'not stated') if record else 'not stated'}"


def _published_rows(collection: Collection) -> list[dict]:
    rows = []
    for key, entry in RESULT_KEYS.items():
        paper, section = published(key)
        glued = None if entry.glue is None else lookup(collection, entry.chapter, entry.glue)
        outcome, why = verdict(key, glued)
        rows.append({"key": key, "label": label(key), "section": section, "group": entry.chapter,
                     "paper": paper, "reported_by": source_kind(key),
                     "ours": None if glued is None else glued.value,
                     "low": None, "high": None, "interval": None, "p": None, "test": None,
                     "real": _real_values(collection, key), "provenance": provenance(key, glued),
                     "data_source": _data_source(collection, key, glued),
                     "chapter": None if glued is None else glued.chapter,
                     "glue": entry.glue if glued is None else glued.name, "verdict": outcome, "why": why})
    return rows


def _real_rows(collection: Collection) -> list[dict]:
    rows = []
    for result in REAL_RESULTS:
        glued = lookup(collection, result.chapter, result.glue)
        extra = _bounds(collection, result.chapter, result.glue, result.low, result.high)
        found_p = lookup(collection, result.chapter, result.p) if result.p else None
        test = registered_test(result.chapter, result.p) if result.p else None
        extra |= {"p": getattr(found_p, "value", None), "test": getattr(test, "name", None)}
        paper = PAPER[result.compare][0] if result.compare else None
        if glued is None:
            where = chapter_stem(result.chapter)[:2]
            outcome, why = VERDICTS[4], f"chapter {where} glued no `{result.glue}` in this build"
        else:
            outcome = VERDICTS[3]
            why = (f"{result.population}; the paper's value is for its own 1,000 leaderboard models"
                   if result.compare else result.population)
        rows.append({"key": result.glue, "label": result.label, "section": result.population,
                     "group": result.chapter, "paper": paper,
                     "reported_by": "paper" if result.compare else None,
                     "ours": None if glued is None else glued.value, **extra, "real": None,
                     "provenance": "real responses" if glued is not None else None,
                     "data_source": result.population if glued is not None else None,
                     "chapter": None if glued is None else glued.chapter, "glue": result.glue,
                     "verdict": outcome, "why": why})
    return rows


def scorecard(collection: Collection) -> pd.DataFrame:
    """One row per registered published key and per real-data result.

    Parameters
    ----------
    collection : Collection
        From :func:`collect`.

    Returns
    -------
    DataFrame
        Indexed by key (a real-data result by its glue name); columns ``label``, ``section``,
        ``group`` (the label of the chapter the registry names), ``paper`` (the reported value),
        ``reported_by`` ("paper", "blog post" or None), ``ours``, ``low``, ``high`` (the interval the
        chapter says to read: the one it declares, else the registry's bounds), ``interval`` (the
        declared interval's method, or None), ``p`` and ``test`` (the registered test the p is from),
        ``real`` (for a published key, the real-data values of
        :data:`~mmlu_audit.book.results.REAL_RESULTS` computed for the same quantity, each with
        its population, or None), ``provenance``, ``data_source`` (the real items, the real
        population, or the ``data_source`` the chapter ran with), ``chapter``, ``glue``,
        ``verdict``, ``why``. Rows
        computed on real data (items or responses) come first, then simulated ones, then
        those not computable; within each, in registry (book) order.
    """
    table = pd.DataFrame(_published_rows(collection) + _real_rows(collection)).set_index("key")
    rank = table["provenance"].map({"real items": 0, "real responses": 0, "simulated responses": 1,
                                    "not stated": 1}).fillna(2)
    return table.assign(_rank=rank).sort_values("_rank", kind="stable").drop(columns="_rank")


def headline(table: pd.DataFrame) -> dict:
    """The count of rows of each verdict, glue-ready (``scorecard_n_<verdict word>``)."""
    counts = table["verdict"].value_counts().reindex(list(VERDICTS), fill_value=0)
    names = ("reproduced_real", "reproduced_simulated", "differs", "real_other", "not_computable")
    out = {f"scorecard_n_{name}": int(counts[v]) for name, v in zip(names, VERDICTS, strict=True)}
    out["scorecard_n_differs_real"] = int(((table["verdict"] == VERDICTS[2])
                                           & table["provenance"].isin(["real items",
                                                                       "real responses"])).sum())
    out["scorecard_n_rows"] = len(table)
    return out


_VERDICT_CSS = dict(zip(VERDICTS, ("v-real", "v-planted", "v-differs", "v-other", "v-none"), strict=True))
_CAVEATS = {
    "real items": "Real MMLU items: counts and text statistics, whatever the response source.",
    "real responses": "Real responses; a population other than the paper's 1,000 leaderboard models "
                      "unless the row says otherwise.",
    "simulated responses": f"Simulated responses: a match says the simulated world {REPRODUCES} (by "
                           "construction where the simulator copies it), never a finding about MMLU.",
}
_REPORTED = {"paper": "reported by the paper", "blog post": "reported by a blog post, not a paper"}


def _given(value):
    """``value``, or None when it is missing (pandas stores a missing cell as NaN)."""
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


def _value_html(row) -> str:
    if _given(row["ours"]) is None:
        return "—"
    text = html.escape(format_number(row["ours"]))
    if _given(row["low"]) is not None and _given(row["high"]) is not None:
        method = _given(row["interval"])
        title = f' title="{html.escape(method)}"' if method else ""
        text += f' <span class="sc-ci"{title}>[{html.escape(format_number(row["low"]))}, ' \
                f'{html.escape(format_number(row["high"]))}]</span>'
    if _given(row["p"]) is not None:
        test = _given(row["test"])
        title = f' title="p of: {html.escape(test)}"' if test else ""
        text += f' <span class="sc-ci"{title}>p {html.escape(format_p(row["p"]))}</span>'
    return text


def _breakable(label: str) -> str:
    """``label`` escaped, with a line-break opportunity after each underscore of an identifier."""
    return html.escape(label).replace("_", "_<wbr>")


def _group_rows(group: pd.DataFrame, label: str, titles: dict, columns: int) -> list[str]:
    provenances = [p for p in group["provenance"].dropna().unique()]
    caveat = " ".join(_CAVEATS[p] for p in provenances if p in _CAVEATS)
    rows = [f'<tr class="sc-group"><th colspan="{columns}">{html.escape(label)}'
            + (f' <span class="sc-caveat">{html.escape(caveat)}</span>' if caveat else "") + "</th></tr>"]
    for _, row in group.iterrows():
        stem = row["chapter"]
        link = (f'<a href="{html.escape(stem)}.html" title="{html.escape(titles.get(stem, stem))}">'
                f'{html.escape(stem[:2])}</a>') if isinstance(stem, str) else "—"
        paper = "—" if _given(row["paper"]) is None else html.escape(format_number(row["paper"]))
        reported = _REPORTED.get(_given(row["reported_by"]), "")
        if reported and row["provenance"] == "real responses" and row["verdict"] == VERDICTS[3]:
            reported += ", for its own 1,000 leaderboard models"
        real = "—" if _given(row["real"]) is None else html.escape(row["real"])
        provenance = _given(row["provenance"]) or "not stated"
        source = _given(row["data_source"])
        where = f"{provenance}: {source}" if source else provenance
        short = PROVENANCE_SHORT.get(provenance, provenance)
        if source in POPULATION_SHORT:
            short = POPULATION_SHORT[source]
        elif source and source.startswith("data_source "):
            short = source.removeprefix("data_source ")
        words = verdict_words(row["verdict"], _given(row["reported_by"]))
        rows.append(f'<tr><td class="sc-key" title="{html.escape(str(row["section"]))}">'
                    f'{_breakable(row["label"])}</td>'
                    f'<td title="{html.escape(reported)}">{paper}</td><td>{_value_html(row)}</td>'
                    f'<td class="sc-real">{real}</td>'
                    f'<td class="sc-prov" title="{html.escape(where)}">{html.escape(short)}</td>'
                    f'<td class="sc-verdict {_VERDICT_CSS[row["verdict"]]}" title="{html.escape(words)}">'
                    f'{html.escape(VERDICT_SHORT[row["verdict"]])}</td>'
                    f'<td class="sc-why">{html.escape(row["why"])}</td><td>{link}</td></tr>')
    return rows


def short_words_text() -> str:
    """The compact table's short words, each with what it stands for (for the page's legend)."""
    pairs = {**VERDICT_SHORT, **PROVENANCE_SHORT}
    return "; ".join(f"“{short}” for {full}" for full, short in pairs.items() if short != full)


def scorecard_html(table: pd.DataFrame, titles: dict, provenances: tuple = PROVENANCES,
                   verdicts: tuple = VERDICTS) -> str:
    """The compact scorecard: rows grouped by chapter (paper section), one caveat per group.

    It is made to fit a laptop-wide text column (class ``fit-width``, which the browser check
    holds it to): verdicts and provenances in their short words (:data:`VERDICT_SHORT`,
    :data:`PROVENANCE_SHORT`; the full words in each cell's tooltip), identifiers breakable at
    their underscores, the reason column wrapping.

    Parameters
    ----------
    table : DataFrame
        From :func:`scorecard`.
    titles : dict
        Chapter stem → title (the link's tooltip).
    provenances, verdicts : tuple
        Only rows with one of these provenances (missing counts as "not stated") and verdicts.
    """
    chosen = table["provenance"].fillna("not stated").isin(provenances) & table["verdict"].isin(verdicts)
    shown = table[chosen]
    head = ("<thead><tr><th>quantity</th><th>reported</th><th>computed here</th><th>real data</th>"
            "<th>data source</th><th>verdict</th><th>why</th><th>ch.</th></tr></thead>")
    body = []
    for group, rows in shown.groupby("group", sort=False, dropna=False):
        label = CHAPTER_SHORT_NAMES.get(group, "not computed by any chapter") if isinstance(group, str) \
            else "not computed by any chapter"
        body += _group_rows(rows, label, titles, 8)
    # fit-width: the browser check fails the page if the table is wider than its column
    table_html = f'<table class="scorecard fit-width">{head}<tbody>{"".join(body)}</tbody></table>'
    return f'<div class="table-scroll">{table_html}</div>'


def chapter_sources(record: ChapterRecord) -> str:
    """The responses a chapter's banners state, in page order: "real", "simulated", or both, in words."""
    banners = [b for b in record.banners if b in ("real", "simulated")]
    if not banners:
        return "not stated"
    if len(banners) == 1:
        return banners[0]
    return f"{banners[0]}, with {banners[1]} sections"


def chapters_read(collection: Collection) -> pd.DataFrame:
    """Each executed chapter, the responses its banners state, its data source and whether it was used."""
    rows = [{"chapter": c.chapter, "responses": chapter_sources(c),
             "data_source": c.parameters.get("data_source", "none: its fixed real sources"
                                             if chapter_sources(c).startswith("real") else "not stated"),
             "glued values": len(c.values),
             "used": "no: " + collection.skipped[c.chapter] if c.chapter in collection.skipped else "yes"}
            for c in collection.chapters]
    return pd.DataFrame(rows, columns=["chapter", "responses", "data_source", "glued values", "used"])


def scorecard_csv(table: pd.DataFrame) -> pd.DataFrame:
    """The scorecard as its CSV download holds it: a row per key, the verdict in full words, p as printed."""
    out = table.reset_index()[["key", "label", "section", "group", "paper", "reported_by", "ours", "low",
                               "high", "interval", "p", "test", "provenance", "data_source", "verdict", "why",
                               "chapter"]]
    words = [verdict_words(v, r) for v, r in zip(out["verdict"], out["reported_by"], strict=True)]
    out = out.assign(verdict=words, p=[None if _given(v) is None else format_p(v) for v in out["p"]])
    return out.rename(columns={"ours": "computed here"})  # its provenance is in data_source
