"""Each page loads each script once: the duplicate sphinx-thebe registers is dropped."""

from __future__ import annotations

from sphinx.builders.html._assets import _JavaScript

from mmlu_audit.book.sphinxext import unique_scripts

BODY = 'const THEBE_JS_URL = "x"'


def test_inline_duplicate_registered_with_none_and_empty_filename_is_dropped():
    first, second = _JavaScript(None, body=BODY), _JavaScript("", body=BODY)
    assert first != second  # Sphinx itself tells them apart, so the page lists both
    scripts = [_JavaScript("a.js"), first, _JavaScript("b.js", **{"async": "async"}), second]
    assert unique_scripts(scripts) == scripts[:3]


def test_different_scripts_and_order_are_kept():
    scripts = [_JavaScript("b.js"), _JavaScript("a.js"), _JavaScript("a.js", priority=200),
               _JavaScript(None, body="let x = 1;"), _JavaScript(None, body="let y = 2;"), "plain.js"]
    assert unique_scripts(scripts) == scripts
    assert unique_scripts(["plain.js", "plain.js"]) == ["plain.js"]
