"""Open every page of the built site in a real browser and report what a reader would hit.

Usage::

    python -m mmlu_audit.book.sitecheck _build/html [--screenshots _build/screenshots] [--json report.json]

The site is served on ``127.0.0.1`` from a thread and each page is loaded in headless
Chromium (the system ``chromium``, driven by Playwright's Python package). A page
fails on:

- a console error or an uncaught script exception;
- a request that failed, returned an HTTP error, or left the local server (the site
  must work offline: external requests are blocked and reported);
- an image that did not load;
- a math span that MathJax left unrendered;
- a ``{glue:`` placeholder left in the visible text;
- Python or Markdown leaking into the rendered text (prose, headings, table cells; code is
  not read): a whole number printed as a float (``14042.0000``, ``5.000``: an integer part
  other than 0 or 1 followed by two or more zeros), a literal ``**``, a bare ``True`` or
  ``False``, a table cell reading ``nan`` or ``inf``, a raw LaTeX command (``\\text``) or
  ``$…$`` math that MathJax never saw (outside tables, which may list TeX commands as tokens),
  a p-value printed as a bare ``0`` (in prose, or in a table cell reading ``0``, ``0.0``… of a
  column or row whose header has "p" as a word: ``p``, ``p_cr2``, ``mann_whitney_p``, ``p (HTZ)``,
  :func:`mmlu_audit.core.formatting.is_p_label`'s rule), a pandas truncation marker (a cell
  reading ``…``);
- a chapter figure (an image MyST-NB named by its PNG's SHA-256) without a description in its
  ``alt`` text, or whose description — its axis labels, titles and legends, written by
  :func:`mmlu_audit.book.plots.describe_figure` — still shows a code name
  (:func:`mmlu_audit.book.labels.code_names_in`: ``d_ner`` where a reader should see
  "Entity density (D_ner)");
- a chapter figure shown at less than :data:`MIN_SHOWN_SHARE` (70 %) of its drawn width: the
  browser shrinks an image wider than the text column to fit it, and its lettering with it
  (a 1,354-px figure in a 715-px column has 5-px labels); draw it at the size it is shown;
- a table wider than the column of text it sits in and not inside a box that scrolls
  sideways (its right-hand columns would be cut off); a table of class ``fit-width`` (the
  scorecard, which must be read at a glance) when it is wider than what holds it, even
  inside a box that scrolls.

Pages are loaded in a window :data:`VIEWPORT` wide (1,400 px: a laptop's screen), the width
at which a ``fit-width`` table must fit.

A full-page screenshot of every page is saved, so a reviewer can look at the site
without building it.

Every browser step on a page (loading, MathJax's typesetting, the screenshot) is bounded by
``timeout_s``: a page that never settles is reported as a problem, never waited on forever.
The command line prints each page as it is checked, so a run that stops shows where.
"""

from __future__ import annotations

import argparse
import functools
import json
import http.server
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TextIO

from mmlu_audit.core.errors import MissingDependencyError, cli_status
from mmlu_audit.core.formatting import P_LABEL_SPLIT, P_OF_EVENT
from mmlu_audit.core.store import write_json_atomic

__all__ = ["CHROMIUM", "CHROMIUM_FLAGS", "MIN_SHOWN_SHARE", "PAGE_TIMEOUT_S", "VIEWPORT", "PageReport",
           "check_pages", "check_site", "figure_problems", "main", "serve", "shrink_problem"]

#: The system Chromium (Debian package ``chromium``).
CHROMIUM = Path("/usr/bin/chromium")
#: Flags for a quiet, offline, sandbox-free headless run (CI runs as root).
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync")

#: The browser window (width, height in px): a laptop screen, where the scorecard must fit.
VIEWPORT = (1400, 900)

#: The least share of its drawn (intrinsic) width a chapter figure may be shown at in :data:`VIEWPORT`.
MIN_SHOWN_SHARE = 0.7

#: Seconds any one browser step on a page may take.
PAGE_TIMEOUT_S = 30

# After the load event, wait until MathJax has started (its script may run after the load event's
# check), its startup promise has settled and every math span holds its rendering (typesetting can
# lag the promise on a loaded machine), but no longer than the given milliseconds: evaluate()
# itself has no timeout. A page without MathJax is left to the problem check.
_MATHJAX_DONE = """(ms) => new Promise((resolve) => {
  if (!window.MathJax) { resolve(null); return; }
  let finished = false, started = false;
  const done = (value) => { finished = true; clearTimeout(timer); resolve(value); };
  const timer = setTimeout(() => done(started ? null :
    {stalled: true, text: `MathJax did not finish typesetting within ${ms / 1000} s`}), ms);
  const unrendered = () => [...document.querySelectorAll('.math')]
    .some((el) => !el.querySelector('mjx-container'));
  const rendered = () => { if (!finished) { if (unrendered()) setTimeout(rendered, 100); else done(null); } };
  const start = () => {
    if (finished) return;
    const ready = MathJax.startup && MathJax.startup.promise;
    if (!ready) { setTimeout(start, 100); return; }
    ready.then(() => { started = true; rendered(); },
               (err) => done({stalled: false, text: `MathJax failed: ${err}`}));
  };
  start();
})"""
# The description (alt text) and widths (drawn, shown) of every chapter figure: MyST-NB names a
# notebook's images by the SHA-256 of their bytes, which tells them from the theme's logos and icons.
_FIGURE_ALTS = r"""() => [...document.images]
  .filter((img) => /(^|\/)[0-9a-f]{64}\.png$/.test(img.getAttribute('src') || ''))
  .map((img) => ({src: img.getAttribute('src'), alt: img.getAttribute('alt') || '',
                  drawn: img.naturalWidth, shown: img.getBoundingClientRect().width}))"""
_PAGE_PROBLEMS = r"""() => {
  const problems = [];
  for (const img of document.images) {
    if (!img.complete || img.naturalWidth === 0) problems.push(`missing image: ${img.getAttribute('src')}`);
  }
  for (const el of document.querySelectorAll('.math')) {
    if (!el.querySelector('mjx-container')) {
      problems.push(`unrendered math: ${el.textContent.trim().slice(0, 60)}`);
    }
  }
  const text = document.body ? document.body.innerText : '';
  const at = text.indexOf('{glue:');
  if (at >= 0) problems.push(`glue placeholder in text: ${text.slice(at, at + 60)}`);
  const leaks = new Set();
  const proseOf = (el) => {
    const copy = el.cloneNode(true);
    copy.querySelectorAll('pre, code, kbd, samp, script, style, .highlight, mjx-container, .math')
      .forEach((c) => c.remove());
    return copy.textContent.replace(/\s+/g, ' ').trim();
  };
  const seen = (el) => el.getClientRects().length > 0;
  const rules = [
    [/(?:^|[^\d.,])(-?(?:[2-9]|\d{2,}|\d{1,3}(?:,\d{3})+)\.0{2,})(?![\d%])/,
     'whole number printed as a float'],
    [/\*\*/, 'Markdown ** in rendered text'],
    [/\b(True|False)\b/, 'Python boolean in rendered text'],
    [/\bp\s*[=<]\s*0(?![.,\d])/, 'p-value printed as a bare 0'],
  ];
  const proseRules = [  // not table cells: a table may list TeX commands as tokens (the WSCG lexicon)
    [/\\[A-Za-z]{2,}/, 'raw LaTeX command in rendered text'],
    [/(?:^|[\s(])\$[^$\s\d][^$]{0,120}\$/, 'unrendered $…$ math in rendered text'],
  ];
  for (const el of document.querySelectorAll('p, li, dd, dt, td, th, caption, figcaption, h1, h2, h3, h4')) {
    if (el.closest('pre, code, .highlight, script, style') || !seen(el)) continue;
    const prose = proseOf(el);
    const cell = el.tagName === 'TD' || el.tagName === 'TH';
    for (const [pattern, what] of cell ? rules : rules.concat(proseRules)) {
      const hit = prose.match(pattern);
      if (hit) {
        const from = Math.max(0, hit.index - 30);
        leaks.add(`${what}: …${prose.slice(from, hit.index + hit[0].length + 30)}…`);
      }
    }
    if (el.tagName === 'TD' && /^-?(nan|NaN|inf|Inf|None)$/.test(prose)) {
      leaks.add(`missing value printed as ${prose} in a table cell`);
    }
    if ((el.tagName === 'TD' || el.tagName === 'TH') && /^(\.\.\.|…)$/.test(prose)) {
      leaks.add('pandas truncation marker (…) in a table: rows or columns left out');
    }
  }
  // a p-value column or row (a header one of whose words is "p": p, p_cr2, mann_whitney_p, p (HTZ))
  // holding a 0 (0, 0.0, 0.0000)
  const ofEvent = new Set(__P_OF_EVENT__);  // p_correct, p_gold: shares, not p-values
  const isP = (el) => el.textContent.trim().split(/__P_LABEL_SPLIT__/)
    .some((word, k, words) => word === 'p' && !ofEvent.has(words[k + 1]));
  const zero = (cell) => cell && cell.tagName === 'TD' && /^0(\.0*)?$/.test(cell.textContent.trim());
  for (const table of document.querySelectorAll('table')) {
    if (!seen(table)) continue;
    const pColumns = new Map();  // cell index → header text, over every header row (pandas' index names)
    for (const head of table.tHead ? table.tHead.rows : []) {
      for (const c of head.cells) if (isP(c)) pColumns.set(c.cellIndex, c.textContent.trim());
    }
    for (const body of table.tBodies) {
      for (const row of body.rows) {
        for (const [k, name] of pColumns) {
          if (zero(row.cells[k])) leaks.add(`p-value printed as a bare 0 in a table (column ${name})`);
        }
        const first = row.cells[0];
        if (first && first.tagName === 'TH' && isP(first) && [...row.cells].some(zero)) {
          leaks.add(`p-value printed as a bare 0 in a table (row ${first.textContent.trim()})`);
        }
      }
    }
  }
  problems.push(...leaks);
  for (const table of document.querySelectorAll('table')) {
    if (!seen(table)) continue;
    const box = table.closest('article, main, [role=main]') || document.body;
    const width = Math.ceil(table.getBoundingClientRect().width);
    let scrolls = false;  // a table in a box that scrolls sideways is not cut: the reader scrolls it
    for (let el = table.parentElement; el && el !== box && !scrolls; el = el.parentElement) {
      scrolls = ['auto', 'scroll'].includes(getComputedStyle(el).overflowX)
        && el.clientWidth <= box.clientWidth + 1;
    }
    const head = table.querySelector('th, td');
    const label = head ? head.textContent.trim().slice(0, 40) : '';
    // a table that must fit (the scorecard) is cut when it is wider than what holds it, scrolling or not
    const room = Math.min(box.clientWidth, table.parentElement.clientWidth);
    if (table.classList.contains('fit-width') && width > room + 1) {
      problems.push(`table that must fit is wider than its column: ${width} px in ${room} px `
                    + `(first cell: ${label})`);
    } else if (!scrolls && width > box.clientWidth + 1) {
      problems.push(`table wider than its container: ${width} px in ${box.clientWidth} px `
                    + `(first cell: ${label})`);
    }
  }
  return problems;
}""".replace("__P_LABEL_SPLIT__", P_LABEL_SPLIT).replace("__P_OF_EVENT__", json.dumps(sorted(P_OF_EVENT)))


# Sphinx output folders whose .html files are templates or copies, not pages.
_NOT_PAGES = {"_static", "_sources", "_images", "_downloads"}


@dataclass
class PageReport:
    """What the browser found on one page.

    Attributes
    ----------
    page : str
        The page's path relative to the site root.
    problems : list of str
        One line per problem; empty when the page is clean.
    screenshot : Path or None
        Where its screenshot was saved.
    stalled : bool
        Whether a step ran out of time (those problems are among ``problems``).
    first_try : list of str
        When the page was checked twice (its first check stalled), the first check's problems.
    """

    page: str
    problems: list = field(default_factory=list)
    screenshot: Path | None = None
    stalled: bool = False
    first_try: list = field(default_factory=list)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's signature
        pass


@contextmanager
def serve(root: Path):
    """Serve ``root`` on 127.0.0.1 (a free port) from a daemon thread; yields the base URL."""
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _screenshot_name(page: str) -> str:
    return page.replace("/", "__").removesuffix(".html") + ".png"


def _settled_evaluate(tab, script: str, arg=None, attempts: int = 3):
    """Evaluate ``script`` on the page, following a redirect (e.g. the site's index.html)."""
    from playwright.sync_api import Error

    for attempt in range(attempts):
        try:
            return tab.evaluate(script, arg)
        except Error as exc:
            if "context was destroyed" not in str(exc) or attempt == attempts - 1:
                raise
            tab.wait_for_load_state("load")  # a navigation replaced the page: check where it landed


def _check_one(context, base: str, page: str, screenshots: Path | None, timeout_s: float) -> PageReport:
    from playwright.sync_api import TimeoutError as PageTimeout

    report = PageReport(page)
    tab = context.new_page()
    tab.set_default_timeout(timeout_s * 1000)
    tab.on("console", lambda msg: msg.type == "error" and report.problems.append(
        f"console error: {msg.text}"))
    tab.on("pageerror", lambda exc: report.problems.append(f"script error: {exc}"))
    tab.on("requestfailed", lambda req: req.url.startswith(base) and report.problems.append(
        f"failed request: {req.url} ({req.failure})"))
    tab.on("response", lambda resp: resp.status >= 400 and report.problems.append(
        f"HTTP {resp.status}: {resp.url}"))

    def keep_local(route):
        if route.request.url.startswith((base, "data:", "blob:")):
            route.continue_()
        else:
            report.problems.append(f"external request: {route.request.url}")
            route.abort()

    tab.route("**/*", keep_local)
    try:
        tab.goto(base + page, wait_until="load")
        unsettled = _settled_evaluate(tab, _MATHJAX_DONE, timeout_s * 1000)
        if unsettled:
            report.problems.append(unsettled["text"])
            report.stalled = unsettled["stalled"]
        report.problems.extend(_settled_evaluate(tab, _PAGE_PROBLEMS))
        report.problems.extend(figure_problems(_settled_evaluate(tab, _FIGURE_ALTS)))
        if screenshots is not None:
            report.screenshot = screenshots / _screenshot_name(page)
            tab.screenshot(path=str(report.screenshot), full_page=True)
    except PageTimeout as exc:  # Playwright's own: a step ran past timeout_s
        report.problems.append(f"timed out: {exc.message.splitlines()[0]}")
        report.stalled = True
    finally:
        tab.close()
    return report


def shrink_problem(figure: dict) -> str | None:
    """The problem with a figure shown at less than :data:`MIN_SHOWN_SHARE` of its drawn width, if it is.

    Parameters
    ----------
    figure : dict
        ``{"src": …, "drawn": …, "shown": …}``: the PNG's width in pixels and the width the page
        gives its ``<img>`` (CSS pixels). Without ``drawn`` (an image that did not load) there is
        nothing to compare, and no problem here (the missing image is reported on its own).
    """
    drawn, shown = figure.get("drawn") or 0, figure.get("shown") or 0
    if drawn <= 0 or shown >= MIN_SHOWN_SHARE * drawn:
        return None
    name = figure["src"].rsplit("/", 1)[-1][:12]
    return (f"figure shrunk to {shown / drawn:.0%} of its drawn width ({drawn} px shown at {shown:.0f} px): "
            f"{name}… — draw it at the size it is shown (its text shrinks with it)")


def figure_problems(figures: list[dict]) -> list[str]:
    """Problems with chapter figures: no description, a code name on an axis, or shrunk to fit.

    Parameters
    ----------
    figures : list of dict
        ``{"src": …, "alt": …, "drawn": …, "shown": …}`` per chapter image of the page
        (:func:`shrink_problem` says what the widths are).
    """
    from mmlu_audit.book.labels import code_names_in

    def name_of(path: str) -> str:
        return path.rsplit("/", 1)[-1]

    problems = []
    for figure in figures:
        name = name_of(figure["src"])[:12]
        alt = figure["alt"].strip()
        if not alt or name_of(alt) == name_of(figure["src"]):  # Sphinx writes the path when alt is unset
            problems.append(f"figure without a description (alt text): {name}…")
        elif found := code_names_in(alt):
            problems.append(f"code name on a figure ({', '.join(found)}): {name}… — give it words in "
                            "mmlu_audit.book.labels")
        if shrunk := shrink_problem(figure):
            problems.append(shrunk)
    return problems


def _check_twice_if_stalled(context, base: str, page: str, screenshots: Path | None,
                            timeout_s: float) -> PageReport:
    report = _check_one(context, base, page, screenshots, timeout_s)
    if report.stalled:  # once more in a new tab: only a stall that repeats is the page's
        first_try = report.problems
        report = _check_one(context, base, page, screenshots, timeout_s)
        report.first_try = first_try
    return report


def check_pages(root: Path, pages: list[str], screenshots: Path | None = None,
                chromium: Path = CHROMIUM, timeout_s: float = PAGE_TIMEOUT_S,
                log: TextIO | None = None) -> list[PageReport]:
    """Load each page of a static site in headless Chromium and report its problems.

    Parameters
    ----------
    root : Path
        The site's root folder (e.g. ``_build/html``).
    pages : list of str
        Page paths relative to ``root``.
    screenshots : Path, optional
        Folder for one full-page PNG per page (created if needed; files are overwritten).
    chromium : Path
        The Chromium executable.
    timeout_s : float
        Seconds each browser step on a page may take (loading, typesetting, screenshot).
        A page with a step that runs out is checked once more in a new tab, and its report
        is the second check's (the first's problems kept in ``first_try``): a stall that
        repeats is the page's, a single one is taken as the headless browser's.
    log : text stream, optional
        Where to write one line per page as it is checked (the command line uses stdout).

    Returns
    -------
    list of PageReport
        One per page, in the order given.

    Raises
    ------
    MissingDependencyError
        When Chromium or Playwright's Python package is not installed.
    """
    if not Path(chromium).exists():
        raise MissingDependencyError(
            f"{chromium}: Chromium is not installed (`apt-get install -y chromium`; `make test` does it)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        raise MissingDependencyError("the browser check needs `pip install -r requirements.txt` "
                                     "(playwright)") from exc
    if screenshots is not None:
        screenshots.mkdir(parents=True, exist_ok=True)
    with serve(root) as base, sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(chromium), args=list(CHROMIUM_FLAGS))
        try:
            context = browser.new_context(viewport={"width": VIEWPORT[0], "height": VIEWPORT[1]},
                                          service_workers="block")
            reports = []
            for number, page in enumerate(pages, 1):
                start = time.perf_counter()
                report = _check_twice_if_stalled(context, base, page, screenshots, timeout_s)
                reports.append(report)
                if log is not None:
                    again = f"[checked twice: {'; '.join(report.first_try)}]  " if report.first_try else ""
                    print(f"{number:3d}/{len(pages)}  {time.perf_counter() - start:5.1f} s  "
                          f"{len(report.problems)} problems  {again}{page}", file=log, flush=True)
            return reports
        finally:
            browser.close()


def check_site(root: Path, screenshots: Path | None = None, chromium: Path = CHROMIUM,
               **options) -> list[PageReport]:
    """:func:`check_pages` on every page under ``root`` (sorted; ``_static`` and the like skipped)."""
    root = Path(root)
    pages = sorted(str(p.relative_to(root)) for p in root.rglob("*.html")
                   if p.relative_to(root).parts[0] not in _NOT_PAGES)
    if not pages:
        raise FileNotFoundError(f"{root}: no .html pages (build the book first: `make html`)")
    return check_pages(root, pages, screenshots, chromium, **options)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; prints each problem and returns 1 if there were any.

    A missing browser, a site without pages or another expected error is one line on
    stderr and exit status 2; Ctrl-C is exit 130 (:func:`~mmlu_audit.core.errors.cli_status`).
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, help="the built site, e.g. _build/html")
    parser.add_argument("--screenshots", type=Path, help="default: screenshots/ beside the site folder")
    parser.add_argument("--json", type=Path, help="also write every page's report to this file")
    args = parser.parse_args(argv)

    def body() -> int:
        reports = check_site(args.site, args.screenshots or args.site.parent / "screenshots", log=sys.stdout)
        if args.json:
            write_json_atomic(args.json, [asdict(r) | {"screenshot": str(r.screenshot)} for r in reports])
        bad = [r for r in reports if r.problems]
        for report in bad:
            print(f"{report.page}:\n  " + "\n  ".join(report.problems))
        print(f"{len(reports)} pages checked, {len(bad)} with problems")
        return 1 if bad else 0

    return cli_status("sitecheck", body)


if __name__ == "__main__":
    sys.exit(main())
