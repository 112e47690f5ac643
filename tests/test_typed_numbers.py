"""No typed numbers: a number in prose that a chapter or the library knows is glued, not typed.

The project rule is that a number in prose is computed: a chapter passes it to
:func:`mmlu_audit.book.report.glue_values` and its markdown shows it with ``{glue:text}``. A typed
copy goes stale without a sound when the parameter, the constant or the registered paper value
changes. This static test reads the prose — the markdown cells of ``chapters/*.py`` (the ``# ``
lines under ``# %% [markdown]``) and the hand-written pages ``book/*.md`` (``book/_generated``
and ``book/_executed`` are written by programs) — and flags every typed number that equals a
*known value*:

(a) a value a source reports: :data:`mmlu_audit.core.paper.PAPER` and
    :data:`~mmlu_audit.core.paper.MMLU_PRO_SOURCES` (the first element of each entry);
(b) a default of the chapter's own ``parameters`` cell (``name = literal``; chapters only);
(c) a library constant readers see: the numeric defaults of
    :class:`~mmlu_audit.worlds.simulated.WorldSpec`, the values of its named calibrations and the
    statistics they were matched to (:data:`~mmlu_audit.worlds.simulated.CALIBRATIONS`),
    :data:`~mmlu_audit.worlds.simulated.DEFAULT_SLOPES` and
    :data:`~mmlu_audit.worlds.calibration.CHANCE_CUTOFF`.

The rules:

* **Not prose.** Every role is removed before reading — ``{glue:text}`…``` (a glued number is
  never typed), ``{ref}``, ``{cite}``, ``{numref}`` … — and so are inline code (identifiers, file
  names, commands), link targets, labels ``(name)=``, directive options, ``include`` lines and
  the bodies of code fences. The caption of a ``{glue:figure}`` is prose and is read.
* **A number** is a run of digits with an optional decimal part, thousands written ``14,042``; a
  "−" or "-" before it is its sign unless it joins it to a word (``GPT-4``). Digits that are part
  of a name are not numbers: touching a letter, ``_``, ``-`` or ``.`` (``2PL``, ``θ_1``,
  ``world-4``, ``Qwen2-72B``, ``10-fold``, ``v1.13.0``), an exponent (the ² of ``10²``, a ``^``
  power), or following "§", "Section", "chapter", "Appendix", "issue", "Table", "Figure", "step",
  "version" or a product name with versions (``Redux 2.0``, ``Llama 3.1``).
* **Equal** means: the number as written is the known value rounded to as many decimals as it is
  written with, sign included. A number followed by "%" is read as its fraction. A number of one
  or two significant digits (trailing zeros not counted) must be the value exactly — "0.20"
  flags a slope of 0.20, but "0.97" does not stand for ρ = 0.965 and "0.99" not for
  r = 0.9921; from three significant digits a rounded value counts ("0.992").
* **Not results**, never compared: integers below 100 (counts of things — "20 models", "the
  Top 50" — far too common to mean a known value), "%" of an integer up to 10, years
  1900–2100, the conventional levels 0.05, 5 % and 95 % (α and interval levels), the facts of
  the benchmarks (MMLU's 14,042 test items in 57 subjects, MMLU-Pro's 12,032 questions), and
  0.25 on a line that says "chance" (one in four options, a fact of MMLU's format).
* Numbers written in words ("twenty bands") are not read: reviewers catch those.

A legitimate typed number goes in :data:`ALLOWED` with its reason; an entry that no longer
matches a finding fails the test, so the list cannot rot. Prefer fixing: glue the value (the
chapter passes what it computed or read from the library to ``glue_values``), refer to a glued
value, or reword.

Wall-clock timings are the other kind of number prose must not carry: glued into a page they
make two identical runs render different pages. Only the Performance page
(``chapters/99_performance.py``) shows timings; :func:`test_no_timing_glued_into_prose` holds
every other chapter's markdown to that.
"""

from __future__ import annotations

import ast
import math
import re
from dataclasses import fields

import pytest

from mmlu_audit.core.paper import MMLU_PRO_SOURCES, PAPER
from mmlu_audit.core.paths import project_root
from mmlu_audit.worlds.calibration import CHANCE_CUTOFF
from mmlu_audit.worlds.simulated import CALIBRATED_FIELDS, CALIBRATIONS, DEFAULT_SLOPES, WorldSpec

ROOT = project_root()
CHAPTERS = sorted((ROOT / "chapters").glob("[0-9][0-9]_*.py"))
PAGES = sorted((ROOT / "book").glob("*.md"))  # book/_generated and book/_executed are folders: not globbed
#: The one chapter whose prose may quote timings.
PERFORMANCE = "99_performance.py"

#: Typed numbers that stay: (file name, number as written, a phrase of its line) → reason.
ALLOWED: dict[tuple[str, str, str], str] = {
    ("02_real_leaderboard.py", "1,000", "EM stopped at 1,000 cycles"):
        "the iteration cap of metabench's staged mirt fit, a fact of the data "
        "(mmlu_audit.data.openllm); it equals the paper's model count by chance",
    ("audit_your_own.md", "1,000", "**1,000 models**"):
        "a hand-written page cannot glue; the paper's model count, a fact of its design, beside "
        "the 20-, 29- and 79-model sources in the same list",
}


# ---------------------------------------------------------------- the prose

_FENCE = re.compile(r"^\s*(```+|~~~+)\s*(\{[\w:-]+\})?")
#: Directives whose body is prose (a caption, an admonition); any other fence holds code or data.
_PROSE_DIRECTIVES = ("{glue:figure}", "{figure}", "{note}", "{warning}", "{admonition}", "{important}",
                     "{tip}", "{caution}", "{seealso}", "{margin}", "{sidebar}", "{dropdown}")


def _outside_code(lines):
    """(line number, text) of the lines that are not in a code fence (or a non-prose directive)."""
    fence, prose = None, True
    for number, line in lines:
        match = _FENCE.match(line)
        if match and fence is None:
            fence, prose = match.group(1), (match.group(2) or "") in _PROSE_DIRECTIVES
            continue
        if fence is not None and line.strip() == fence:
            fence, prose = None, True
            continue
        if prose:
            yield number, line


def markdown_lines(text: str) -> list[tuple[int, str]]:
    """The prose of a jupytext percent file: (line number, text) of its markdown cells."""
    cells, inside = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("# %%"):
            inside = line.startswith("# %% [markdown]")
            continue
        if inside and (line == "#" or line.startswith("# ")):
            cells.append((number, line[2:]))
        elif inside and line.strip():
            inside = False
    return list(_outside_code(cells))


def page_lines(text: str) -> list[tuple[int, str]]:
    """The prose of a MyST page."""
    return list(_outside_code(enumerate(text.splitlines(), 1)))


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def parameters(text: str) -> dict[str, float]:
    """The numeric defaults of a chapter's ``parameters`` cell (``name = literal``)."""
    match = re.search(r'^# %% tags=\["parameters"\]\n(.*?)(?=^# %%)', text, re.S | re.M)
    if not match:
        return {}
    out = {}
    for node in ast.parse(match.group(1)).body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Constant) and _is_number(node.value.value)):
            out[node.targets[0].id] = float(node.value.value)
    return out


# ---------------------------------------------------------------- the known values


def _numbers_in(value, path: str):
    """(path, number) for every number nested in a constant (dicts, tuples, lists)."""
    if _is_number(value):
        yield path, float(value)
    elif isinstance(value, dict):
        for key, inner in value.items():
            yield from _numbers_in(inner, f"{path}[{key!r}]")
    elif isinstance(value, (tuple, list)):
        for k, inner in enumerate(value):
            yield from _numbers_in(inner, f"{path}[{k}]")


def library_values() -> dict[str, float]:
    """Name → value of every source value and library constant the test compares with."""
    known = {f"PAPER[{key!r}]": float(entry[0]) for key, entry in PAPER.items() if _is_number(entry[0])}
    known |= {f"MMLU_PRO_SOURCES[{key!r}]": float(entry[0]) for key, entry in MMLU_PRO_SOURCES.items()
              if _is_number(entry[0])}
    spec = WorldSpec()
    known |= {f"WorldSpec.{f.name}": float(getattr(spec, f.name)) for f in fields(spec)
              if f.name not in CALIBRATED_FIELDS and _is_number(getattr(spec, f.name))}
    # every calibration's values and the real statistics it matched (its fitting settings are no values)
    known |= dict(_numbers_in({name: {k: v for k, v in c.items() if k != "fitted_with"}
                               for name, c in CALIBRATIONS.items()}, "CALIBRATIONS"))
    known |= dict(_numbers_in(DEFAULT_SLOPES, "DEFAULT_SLOPES"))
    known["CHANCE_CUTOFF"] = float(CHANCE_CUTOFF)
    return known


# ---------------------------------------------------------------- the typed numbers

_ROLE = re.compile(r"\{[\w:-]+\}`[^`]*`")  # {glue:text}`x`, {ref}`y`, {cite}`z`
_CODE = re.compile(r"``.*?``|`[^`]*`")
_LINK_TARGET = re.compile(r"\]\([^)]*\)|<https?://[^>]*>|https?://\S+")
_LABEL = re.compile(r"^\s*\([\w:-]+\)=\s*$")
_DIRECTIVE_LINE = re.compile(r"^\s*(:[\w-]+:|```+\s*\{)")
_POWER = re.compile(r"\^\{?-?\d+\}?|[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+")
_NUMBER = re.compile(r"(?<![\w.,^])(\d{1,3}(?:,\d{3})+(?!\d)|\d+)(\.\d+)?(?![\w\-]|\.\d|,\d{3})")
_NAME_BEFORE = re.compile(r"(§\s*|\b(?:[Ss]ections?|[Cc]hapters?|[Aa]ppendix|[Ii]ssues?|[Tt]ables?|"
                          r"[Ff]igures?|[Ss]teps?|[Vv]ersions?|Redux|Llama|Qwen|GPT|Gemini|Python)\s+)$")
_PERCENT = re.compile(r"^\s?%")
#: Levels that are conventions, not results: (as written, followed by "%").
_CONVENTIONS = {("0.05", False), ("5", True), ("95", True)}
#: Facts of the benchmarks: MMLU's test items and subjects, MMLU-Pro's questions.
_FACTS = {14_042, 57, 12_032}
#: Chance on a four-option item, not a result where the line says so.
_CHANCE = 0.25


def prose_of(line: str) -> str:
    """A line with everything that is not prose blanked (same length, so positions still hold)."""
    if _LABEL.match(line) or _DIRECTIVE_LINE.match(line):
        return ""
    for pattern in (_ROLE, _CODE, _LINK_TARGET, _POWER):
        line = pattern.sub(lambda m: " " * len(m.group(0)), line)
    return line


def typed_numbers(line: str):
    """(as written, signed value, followed by "%") of every number in a line of prose."""
    prose = prose_of(line)
    for match in _NUMBER.finditer(prose):
        before = prose[:match.start()]
        if _NAME_BEFORE.search(before) or re.search(r"\w[-−]$", before):
            continue
        sign = -1 if before.endswith(("-", "−")) else 1
        written = match.group(0)
        yield written, sign * float(written.replace(",", "")), bool(_PERCENT.match(prose[match.end():]))


def _decimals(written: str) -> int:
    return len(written.split(".")[1]) if "." in written else 0


def _significant(written: str) -> int:
    """Significant digits, trailing zeros not counted (``"0.10"`` → 1, ``"134.79"`` → 5)."""
    return len(written.replace(",", "").replace(".", "").strip("0"))


def equals(written: str, value: float, known: float, shift: int = 0) -> bool:
    """Whether ``value`` (written as ``written``; a percentage is ``shift`` = 2 more decimals) is
    ``known`` rounded to as many decimals. Below three significant digits only an exact match counts."""
    decimals = _decimals(written) + shift
    if not math.isclose(round(known, decimals), value, abs_tol=10 ** -(decimals + 6)):
        return False
    return math.isclose(known, value, abs_tol=1e-12) or _significant(written) >= 3


def compared(written: str, value: float, percent: bool, line: str) -> bool:
    """Whether a number is compared at all (see the module's "not results")."""
    integer = "." not in written
    if (written, percent) in _CONVENTIONS:
        return False
    if percent:
        return not (integer and abs(value) <= 10)
    year = 1900 <= value <= 2100 and "," not in written
    if integer and (abs(value) < 100 or abs(value) in _FACTS or year):
        return False
    return not (value == _CHANCE and "chance" in line)


def findings(name: str, lines: list[tuple[int, str]], known: dict[str, float]):
    """(file name, line number, number as written, the line, the known values it equals)."""
    for number, line in lines:
        for written, value, percent in typed_numbers(line):
            if not compared(written, value, percent, line):
                continue
            hits = [key for key, v in known.items()
                    if (equals(written, value / 100, v, shift=2) if percent else equals(written, value, v))]
            if hits:
                yield name, number, written, line.strip(), hits


def scan(name: str, text: str, known: dict[str, float]) -> list[tuple]:
    """Every typed number of one file that equals a known value (a chapter adds its parameters)."""
    if name.endswith(".py"):
        own = {f"parameter {k}": v for k, v in parameters(text).items()}
        return list(findings(name, markdown_lines(text), known | own))
    return list(findings(name, page_lines(text), known))


def allowed_by(finding) -> tuple | None:
    """The :data:`ALLOWED` key that covers a finding, if any."""
    name, _, written, line, _ = finding
    return next((key for key in ALLOWED if key[0] == name and key[1] == written and key[2] in line), None)


def report(found) -> str:
    return "\n".join(f"  {name}:{k}: {written!r} equals {', '.join(hits[:3])}\n      {line}"
                     for name, k, written, line, hits in found)


@pytest.fixture(scope="module")
def known():
    return library_values()


@pytest.fixture(scope="module")
def everything(known):
    return [f for path in CHAPTERS + PAGES for f in scan(path.name, path.read_text(), known)]


# ---------------------------------------------------------------- the checker can fail

PLANTED = """\
# %% [markdown]
# # A toy chapter
#
# The paper reports W(9) = {paper_w9}, and our run draws {draws} bootstrap samples.

# %% tags=["parameters"]
n_boot = 9999  # bootstrap draws

# %%
glue_values({{"w9": 138.36, "n_boot": n_boot}})
"""


def test_a_typed_paper_value_and_parameter_are_flagged(known):
    text = PLANTED.format(paper_w9="138.36", draws="9,999")
    found = scan("00_toy.py", text, known)
    assert [(f[1], f[2]) for f in found] == [(4, "138.36"), (4, "9,999")]
    assert "PAPER['w9_hc3']" in found[0][4] and "parameter n_boot" in found[1][4]


def test_the_same_values_glued_pass(known):
    text = PLANTED.format(paper_w9="{glue:text}`w9:.2f`", draws="{glue:text}`n_boot:,`")
    assert scan("00_toy.py", text, known) == []


def test_a_typed_worldspec_constant_on_a_page_is_flagged(known):
    page = "The planted ρ is 0.965 and the SD of b is 2.24; see `WorldSpec(rho=0.965)`.\n"
    found = scan("toy.md", page, known)
    assert [f[2] for f in found] == ["0.965", "2.24"]  # the inline code is not prose
    assert "WorldSpec.rho" in found[0][4] and "WorldSpec.b_sd" in found[1][4]


@pytest.mark.parametrize("line", [
    "Section §4.2 and Appendix C, chapter 16, the 2PL and 3PL, 14,042 items in 57 subjects.",
    "A 95 % interval at α = 0.05 (5 % level), in 2024, on 20 models of the Top 50.",
    "MMLU-Redux 2.0 and Llama 3.1 at chance (0.25), `world-4`, θ ~ N(0, 10²), 10-fold.",
    "A rounded 0.97 or 0.99 stands for no known value, nor does a sign-flipped −0.40.",
])
def test_non_results_are_not_flagged(known, line):
    assert scan("toy.md", line, known) == []


@pytest.mark.parametrize(("line", "written"), [
    ("a z of −4.94", "4.94"),                  # PAPER z_hc3_c_bry, with its sign
    ("the split-cohort r of 0.992", "0.992"),  # 0.9921 rounded, three significant digits
    ("80 % power", "80"),                      # a percentage is its fraction: WorldSpec.tail_shift 0.8
    ("a share of 13.3 % near chance", "13.3"),  # the calibration's chance_share 0.133
    ("scores below 0.30", "0.30"),             # CHANCE_CUTOFF
])
def test_results_are_flagged(known, line, written):
    assert [f[2] for f in scan("toy.md", line, known)] == [written]


# ---------------------------------------------------------------- the book


def test_the_prose_is_found():
    assert len(CHAPTERS) >= 17 and any(p.name == "simulated_world.md" for p in PAGES)
    prose = [line for _, line in markdown_lines(CHAPTERS[0].read_text())]
    assert prose and not any(line.startswith(("import ", "from ")) for line in prose)


def test_no_typed_known_number(everything):
    typed = [f for f in everything if allowed_by(f) is None]
    assert not typed, ("typed numbers equal to a known value: glue them, reword, or allowlist them with "
                       "a reason (see this file's docstring)\n" + report(typed))


def test_every_allowlist_entry_is_used(everything):
    stale = set(ALLOWED) - {allowed_by(f) for f in everything}
    assert not stale, f"ALLOWED entries that match nothing any more: {sorted(stale)}"


# ---------------------------------------------------------------- timings

_GLUE_NAME = re.compile(r"\{glue(?::\w+)?\}`([\w.]+)")
#: A glue name that holds a timing: seconds, minutes, wall time, elapsed time.
_TIMING = re.compile(r"(?:^|_)(?:s|ms|secs|seconds|minutes|hours|wall|elapsed|runtime)(?:_|$)")


def timing_glues(text: str) -> list[tuple[int, str]]:
    """(line number, glue name) of every timing glued into a chapter's markdown."""
    return [(number, name) for number, line in markdown_lines(text)
            for name in _GLUE_NAME.findall(line) if _TIMING.search(name)]


def test_the_timing_check_can_fail():
    text = "# %% [markdown]\n# The fit took {glue:text}`wall_s:.0f` s ({glue:text}`n_steps` steps).\n"
    assert timing_glues(text) == [(2, "wall_s")]
    assert timing_glues(text.replace("wall_s", "rs_r_all")) == []


@pytest.mark.parametrize("chapter", [c for c in CHAPTERS if c.name != PERFORMANCE], ids=lambda p: p.stem)
def test_no_timing_glued_into_prose(chapter):
    """A timing in prose renders a different page from every run; the Performance page shows them."""
    assert timing_glues(chapter.read_text()) == []
