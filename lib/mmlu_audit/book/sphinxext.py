"""A small Sphinx extension for the book's HTML: each page loads each script once.

sphinx-thebe 0.3 registers its inline configuration script (``const THEBE_JS_URL =
…``) and its loader while documents are being read; Sphinx 7.4 then lists both
twice on every page, and the second ``const`` declaration is a script error in the
reader's browser (the browser test catches it). Dropping exact duplicates from the
page's script list, keeping the first, fixes every page without patching the
theme. Enabled in ``_config.yml`` (``sphinx: extra_extensions``).

It also keeps the landing page buildable when the findings box was not generated
(``jupyter-book build`` run without ``make html``'s findings step): the include of
``book/_generated/findings.md`` then finds a placeholder that says so.

And it ends every page with a build stamp (commit, package version, build date, and for an
executed chapter its data source, seed and mode), and every executed chapter with a box to
reuse it: links to its executed notebook and its jupytext source, the line that clones the
project's repository and builds the book (:func:`install_command`; the URL is ``_config.yml``'s
one ``repository_url``, which the BibTeX of the cite box shows too), and the command that reruns
it with one parameter changed (:func:`reuse_box`). The sources are copied into the site's
``_sources/chapters`` when the build ends.

Each figure image gets the description its kernel wrote beside the PNG
(:func:`mmlu_audit.book.plots.describe_figures`) as its ``alt`` text; MyST-NB keeps only an
output's width and height, so the extension matches images to outputs by the PNG's SHA-256,
which MyST-NB uses as the image's file name.
"""

from __future__ import annotations

import binascii
import datetime
import hashlib
import html
import json
import re
import shutil
import subprocess
from importlib import metadata
from pathlib import Path

import yaml
from sphinx.util import logging

from mmlu_audit.book.build import COMMON
from mmlu_audit.book.examples import EXAMPLE_ITEMS, ensure_audit_example
from mmlu_audit.book.findings import ensure_findings
from mmlu_audit.book.worldpage import write_world_values
from mmlu_audit.core.paths import project_root

__all__ = ["CITATION", "EXECUTED", "SERVED", "STAMPED_PACKAGES", "build_stamp", "chapter_settings",
           "cite_box", "copy_served", "figure_descriptions", "fill_rerun_boxes", "install_command",
           "repository_url", "rerun_command", "reuse_box", "setup", "unique_scripts"]

#: Where the executed chapters sit among the book's pages.
EXECUTED = "book/_executed/"
#: The book's citation file, at the repository's root (copied into the site's ``_static``).
CITATION = "CITATION.cff"
#: The packages whose versions the stamp names: this one and its two inference engines.
STAMPED_PACKAGES = ("mmlu-audit", "numpyro", "jax")
#: Project files outside ``book/`` that the site serves, copied into the build's sources when it
#: starts (:func:`copy_served`): the audit example's items (a download on *Audit your own
#: benchmark*) and ``data/README.md`` (included by *Datasets*). Project path → path in the sources.
SERVED = {EXAMPLE_ITEMS: Path("book/_generated/tiny.jsonl"),
          Path("data/README.md"): Path("book/_generated/data_README.md")}


def unique_scripts(scripts: list) -> list:
    """The scripts in their order, each exact duplicate after the first dropped.

    Parameters
    ----------
    scripts : list
        A page's ``script_files`` (Sphinx ``_JavaScript`` objects or plain file names);
        two entries are duplicates when they have the same file (an inline script: none),
        priority and attributes, inline body included.
    """
    seen, kept = set(), []
    for script in scripts:
        key = _script_key(script)
        if key not in seen:
            seen.add(key)
            kept.append(script)
    return kept


def _script_key(script) -> tuple:
    # An inline script is registered once with filename None and once with "", which
    # Sphinx's own equality tells apart; what the reader's browser runs is the same.
    attributes = getattr(script, "attributes", {})
    return (getattr(script, "filename", script) or "", getattr(script, "priority", 500),
            tuple(sorted(attributes.items())))


def _dedupe_page_scripts(app, pagename, templatename, context, doctree):
    if "script_files" in context:
        context["script_files"] = unique_scripts(context["script_files"])


#: The line of the Glossary's source where :func:`insert_outcome_terms` puts the outcome words.
OUTCOME_TERMS_PLACEHOLDER = "% the replication outcome words: inserted by mmlu_audit.book.sphinxext"
#: The page that holds it.
GLOSSARY_DOC = "book/glossary"


def insert_outcome_terms(source: str) -> str:
    """``source`` with :data:`OUTCOME_TERMS_PLACEHOLDER` replaced by the outcome words' glossary block.

    The words and meanings have one home, :data:`mmlu_audit.analyses.replication.OUTCOME_MEANINGS`;
    the Glossary page holds only the placeholder.
    """
    from mmlu_audit.analyses.replication import outcome_glossary

    return source.replace(OUTCOME_TERMS_PLACEHOLDER, outcome_glossary())


def _outcome_terms(app, docname, source):
    if docname == GLOSSARY_DOC:
        source[0] = insert_outcome_terms(source[0])


def _findings_placeholder(app):
    ensure_findings(app.srcdir)
    ensure_audit_example(app.srcdir)
    write_world_values(app.srcdir)
    for missing in copy_served(app.srcdir, project_root()):
        logging.getLogger(__name__).warning(f"{missing} is missing: the site cannot serve it")


def copy_served(srcdir, root) -> list[Path]:
    """Copy the :data:`SERVED` files from the project into the build's sources; the ones missing.

    A copy is rewritten only when its content changed, so Sphinx does not reread the pages that
    use it on every build.

    Parameters
    ----------
    srcdir : path
        The book's sources (``jupyter-book build``'s folder; the project itself for ``make html``).
    root : path
        The project checkout that holds the files.
    """
    missing = []
    for source, copy in SERVED.items():
        source, copy = Path(root) / source, Path(srcdir) / copy
        if not source.is_file():
            missing.append(source)
        elif not copy.is_file() or copy.read_bytes() != source.read_bytes():
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, copy)
    return missing


def chapter_settings(notebook: dict) -> tuple[dict, list[str]]:
    """What an executed chapter ran with, and the names its ``parameters`` cell declares.

    Parameters
    ----------
    notebook : dict
        The executed notebook (papermill records the values it injected in its metadata).
    """
    injected = dict(notebook.get("metadata", {}).get("papermill", {}).get("parameters", {}))
    names = []
    for cell in notebook.get("cells", []):
        if "parameters" in cell.get("metadata", {}).get("tags", []):
            source = "".join(cell.get("source", ""))
            names = [line.split("=")[0].strip() for line in source.splitlines()
                     if "=" in line and not line.lstrip().startswith("#")]
            break
    return injected, names


def build_stamp(commit: str, version: str, date: str, settings: dict | None = None) -> str:
    """The one-line stamp that ends a page (HTML): what built it, when, and on what data.

    Parameters
    ----------
    commit : str
    version : str
        The versions of :data:`STAMPED_PACKAGES`, as one text.
    date : str
    settings : dict, optional
        An executed chapter's ``data_source``, ``seed`` and ``fast``.
    """
    parts = [f"commit {commit}", version, f"built {date}"]
    if settings:
        parts += [f"data source {settings.get('data_source', '?')}", f"seed {settings.get('seed', '?')}",
                  "fast mode" if settings.get("fast") else "full run"]
    return f'<p class="build-stamp">{html.escape(" · ".join(parts))}</p>'


def rerun_command(chapter: str, settings: dict, parameter: str | None = None, value: str = "VALUE") -> str:
    """The command that reruns ``chapter`` as this build ran it, optionally with one parameter changed.

    Parameters
    ----------
    chapter : str
        The chapter's file stem (``07_homogeneity``).
    settings : dict
        The values the build injected (``data_source``, ``seed``, ``fast``).
    parameter, value : str, optional
        The parameter to change and its new value (``-p parameter value``).
    """
    options = [f"{option} {settings[name]}" for name, option in COMMON.items()
               if name in settings and name != "fast"] + (["--fast"] if settings.get("fast") else [])
    change = [f"-p {parameter} {value}"] if parameter else []
    return " ".join([f"python -m mmlu_audit.book.build {chapter[:2]}", *options, *change])


def install_command(repository_url: str) -> str:
    """The shell line that gets the project and builds the book from ``repository_url``.

    Parameters
    ----------
    repository_url : str
        The project's repository (``_config.yml``'s ``html_theme_options.repository_url``).
    """
    folder = repository_url.rstrip("/").rsplit("/", 1)[-1].removesuffix(".git")
    return f"git clone {repository_url} && cd {folder} && make book"


def reuse_box(chapter: str, settings: dict, names: list[str], notebook_url: str, source_url: str,
              repository_url: str) -> str:
    """The box that ends an executed chapter (HTML): its notebook, its source, how to get and rerun it.

    Parameters
    ----------
    chapter : str
        The chapter's file stem (``07_homogeneity``).
    settings : dict
        The values the build injected (``data_source``, ``seed``, ``fast``).
    names : list of str
        The chapter's declared parameters, in order.
    notebook_url, source_url : str
        Links to the executed notebook and the ``.py`` source, relative to the page.
    repository_url : str
        The project's repository: the box says how to clone it and build the book.
    """
    own = [name for name in names if name not in COMMON]
    command = rerun_command(chapter, settings, own[0] if own else None)
    listed = ", ".join(f"<code>{html.escape(name)}</code>" for name in own)
    parameters = (f"<p>Its parameters: {listed} (the parameters cell at the top of the page says what each "
                  "does).</p>" if own else "<p>It has no parameters of its own: only the data source, the "
                  "seed and fast mode, common to every chapter.</p>")
    rerun = "Rerun it with one parameter changed:" if own else "Rerun it:"
    return (f'<div class="admonition reuse-box"><p class="admonition-title">Reuse this page</p>'
            f'<p>Download the <a href="{html.escape(notebook_url)}" download>executed notebook</a> or its '
            f'<a href="{html.escape(source_url)}" download>jupytext source</a>. Get the code from '
            f'<a href="{html.escape(repository_url)}">its repository</a> and build the book (Python 3.11, '
            f"make and npm; the README says more):</p>"
            f"<pre>{html.escape(install_command(repository_url))}</pre>"
            f"<p>{rerun}</p><pre>{html.escape(command)}</pre>{parameters}</div>")


_RERUN_BOX = re.compile(r'<div class="rerun-box" data-parameter="(?P<parameter>[A-Za-z_]\w*)" '
                        r'data-value="(?P<value>[^"]*)">(?P<note>.*?)<pre>.*?</pre></div>', re.S)


def fill_rerun_boxes(body: str, chapter: str, settings: dict) -> str:
    """Turn each rerun placeholder a chapter wrote (:func:`mmlu_audit.book.report.rerun_box`) into a box.

    The kernel does not know which chapter file it runs or how the build called it; the page does,
    so the exact command is written here, from the same :func:`rerun_command` as the reuse box.
    """
    def box(match) -> str:
        value = html.unescape(match["value"])
        command = rerun_command(chapter, settings, match["parameter"], value)
        return (f'<div class="admonition rerun-box"><p class="admonition-title">Rerun this check</p>'
                f'{match["note"]}<pre>{html.escape(command)}</pre></div>')

    return _RERUN_BOX.sub(box, body)


def _names(authors: list[dict]) -> str:
    return " and ".join(a.get("name") or f"{a['family-names']}, {a['given-names']}" for a in authors)


def cite_box(citation: dict, commit: str, date: str, citation_url: str, repository_url: str) -> str:
    """A folded "Cite this" box (HTML) built from the book's ``CITATION.cff``.

    Parameters
    ----------
    citation : dict
        The parsed ``CITATION.cff``.
    commit, date : str
        This build's commit and date: a citation names the version a reader saw.
    citation_url : str
        Link to the copy of ``CITATION.cff`` in the site, relative to the page.
    repository_url : str
        The project's repository, the BibTeX's ``url``.
    """
    year = date[:4]
    bibtex = (f"@software{{mmlu_audit_{year},\n  author = {{{{{_names(citation['authors'])}}}}},\n"
              f"  title = {{{{{citation['title']}}}}},\n"
              f"  version = {{{citation['version']} (commit {commit})}},\n"
              f"  year = {{{year}}},\n  url = {{{repository_url}}},\n"
              f"  license = {{{citation['license']}}}\n}}")
    works = "".join(f"<li>{html.escape(ref['title'])} ({html.escape(_names(ref['authors']))}"
                    f"{', ' + str(ref['year']) if 'year' in ref else ''})</li>"
                    for ref in citation.get("references", []))
    return (f'<details class="cite-box"><summary>Cite this book</summary><pre>{html.escape(bibtex)}</pre>'
            f"<p>{html.escape(citation['message'])} The works it reproduces and the data it reads:</p>"
            f'<ul>{works}</ul><p>Machine-readable: <a href="{html.escape(citation_url)}" download>'
            "CITATION.cff</a>.</p></details>")


def _commit(root: Path) -> str:
    try:
        run = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=root, capture_output=True,
                             text=True, check=False, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return "unknown (no git)"
    return run.stdout.strip() if run.returncode == 0 else "unknown (not a git checkout)"


def _remember_build(app):
    app.config.mmlu_audit_stamp = {
        "commit": _commit(Path(app.srcdir)),
        "version": " · ".join(f"{name} {metadata.version(name)}" for name in STAMPED_PACKAGES),
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")}
    cff = Path(app.srcdir) / CITATION
    app.config.mmlu_audit_citation = citation = yaml.safe_load(cff.read_text()) if cff.is_file() else {}
    url = repository_url(app.config)
    if citation and citation.get("repository-code") != url:  # a warning fails the book's build
        logging.getLogger(__name__).warning(
            f"{CITATION}'s repository-code {citation.get('repository-code')!r} is not _config.yml's "
            f"repository_url {url!r}: write the same URL in both")


def repository_url(config) -> str:
    """The project's repository URL: the one setting in ``_config.yml`` (the theme's ``repository_url``).

    Parameters
    ----------
    config : sphinx.config.Config or dict
        The Sphinx configuration, or anything with ``html_theme_options``.
    """
    options = config["html_theme_options"] if isinstance(config, dict) else config.html_theme_options
    url = options.get("repository_url", "")
    if not url:
        raise ValueError("_config.yml sets no sphinx.config.html_theme_options.repository_url")
    return url


def _stamp_and_reuse(app, pagename, templatename, context, doctree):
    if "body" not in context:
        return
    stamp, settings, extra = app.config.mmlu_audit_stamp, None, ""
    notebook = Path(app.srcdir) / f"{pagename}.ipynb"
    if pagename.startswith(EXECUTED) and notebook.is_file():
        settings, names = chapter_settings(json.loads(notebook.read_text()))
        chapter = pagename.removeprefix(EXECUTED)
        context["body"] = fill_rerun_boxes(context["body"], chapter, settings)
        extra = reuse_box(chapter, settings, names, context["pathto"](f"_sources/{pagename}.ipynb", 1),
                          context["pathto"](f"_sources/chapters/{chapter}.py", 1), repository_url(app.config))
    citation = app.config.mmlu_audit_citation
    if citation:
        link = context["pathto"](f"_static/{CITATION}", 1)
        extra += cite_box(citation, stamp["commit"], stamp["date"], link, repository_url(app.config))
    context["body"] += extra + build_stamp(stamp["commit"], stamp["version"], stamp["date"], settings)


def _copy_chapter_sources(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    cff = Path(app.srcdir) / CITATION
    if cff.is_file():  # the cite boxes link it
        shutil.copyfile(cff, Path(app.outdir) / "_static" / CITATION)
    sources = sorted((Path(app.srcdir) / "chapters").glob("[0-9][0-9]_*.py"))
    if not sources:  # the reuse boxes link these files: a build without them has broken links
        logging.getLogger(__name__).warning(
            f"no chapter sources in {Path(app.srcdir) / 'chapters'}: the pages' source links would be broken")
        return
    target = Path(app.outdir) / "_sources" / "chapters"
    target.mkdir(parents=True, exist_ok=True)
    for source in sources:
        shutil.copyfile(source, target / source.name)


def figure_descriptions(notebook: dict) -> dict[str, str]:
    """SHA-256 of each PNG output in ``notebook`` → the ``alt`` text its metadata carries.

    Glued figures count too: their data keys carry MyST-NB's glue prefix, their metadata does not.
    """
    found = {}
    for cell in notebook.get("cells", []):
        for output in cell.get("outputs", []):
            metadata = output.get("metadata", {})
            for key, content in output.get("data", {}).items():
                if not key.endswith("image/png"):
                    continue
                alt = (metadata.get(key) or metadata.get("image/png") or {}).get("alt")
                if alt:
                    png = binascii.a2b_base64("".join(content) if isinstance(content, list) else content)
                    found[hashlib.sha256(png).hexdigest()] = alt
    return found


def _read_figure_descriptions(app):
    found = {}
    for path in sorted((Path(app.srcdir) / EXECUTED).glob("*.ipynb")):
        found |= figure_descriptions(json.loads(path.read_text()))
    app.config.mmlu_audit_figures = found


def _describe_images(app, doctree, docname):
    from docutils import nodes

    for image in doctree.findall(nodes.image):
        alt = app.config.mmlu_audit_figures.get(Path(image["uri"]).stem)
        if alt and not image.get("alt"):
            image["alt"] = alt


def setup(app):
    """Sphinx entry point."""
    app.add_config_value("mmlu_audit_stamp", {}, "html")
    app.add_config_value("mmlu_audit_figures", {}, "html")
    app.add_config_value("mmlu_audit_citation", {}, "html")
    app.connect("html-page-context", _dedupe_page_scripts, priority=900)
    app.connect("html-page-context", _stamp_and_reuse)
    app.connect("builder-inited", _findings_placeholder)
    app.connect("source-read", _outcome_terms)
    app.connect("builder-inited", _remember_build)
    app.connect("builder-inited", _read_figure_descriptions)
    app.connect("doctree-resolved", _describe_images)
    app.connect("build-finished", _copy_chapter_sources)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
