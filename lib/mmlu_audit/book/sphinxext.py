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
"""

from __future__ import annotations

from mmlu_audit.book.findings import ensure_findings

__all__ = ["setup", "unique_scripts"]


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


def _findings_placeholder(app):
    ensure_findings(app.srcdir)


def setup(app):
    """Sphinx entry point."""
    app.connect("html-page-context", _dedupe_page_scripts, priority=900)
    app.connect("builder-inited", _findings_placeholder)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
