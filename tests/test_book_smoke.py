"""Smoke test: execute every chapter in fast mode and build the book, offline.

The build runs in a temporary copy of the book sources so a developer's own
``_build`` and executed notebooks are left alone.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mmlu_audit.bookbuild import chapter_paths
from mmlu_audit.paths import project_root

ROOT = project_root()
ASSET_URL = re.compile(r'<(?:script|link|img|iframe|source)\b[^>]*(?:src|href)="(?:https?:)?//', re.I)


@pytest.fixture(scope="module")
def built_book(tmp_path_factory):
    """Execute all chapters (fast) and build the HTML site in a temporary folder."""
    site = tmp_path_factory.mktemp("site")
    for name in ("_config.yml", "_toc.yml"):
        shutil.copy(ROOT / name, site / name)
    shutil.copytree(ROOT / "book", site / "book",
                    ignore=shutil.ignore_patterns("_executed", "_build"))
    assert (site / "book/_mathjax/mathjax/tex-chtml.js").exists(), "run `make test` (fetches MathJax)"
    # Chapters use the project's own cache (content-addressed, so safe to share): a
    # developer's second `make test` reuses parses and fits instead of recomputing them.
    env = {k: v for k, v in os.environ.items() if k != "MMLU_AUDIT_CACHE"}
    execute = subprocess.run(
        [sys.executable, "-m", "mmlu_audit.bookbuild", "--fast", "--out", str(site / "book/_executed")],
        capture_output=True, text=True, cwd=ROOT, env=env)
    assert execute.returncode == 0, execute.stdout + execute.stderr
    build = subprocess.run(
        [str(Path(sys.executable).with_name("jupyter-book")), "build", str(site),
         "--warningiserror", "--nitpick", "--keep-going", "--builder", "html"],
        capture_output=True, text=True)
    assert build.returncode == 0, build.stdout[-4000:] + build.stderr[-4000:]
    return site / "_build" / "html"


@pytest.mark.smoke
def test_every_chapter_is_rendered(built_book):
    for chapter in chapter_paths():
        assert (built_book / "book/_executed" / f"{chapter.stem}.html").exists(), chapter.name


@pytest.mark.smoke
def test_data_chapter_shows_the_source_banner(built_book):
    page = (built_book / "book/_executed/01_data.html").read_text()
    assert "Simulated responses — not a finding about MMLU" in page
    assert 'class="data-banner sim-banner"' in page
    assert "{glue:" not in page  # every glued value resolved


@pytest.mark.smoke
def test_site_has_no_remote_assets(built_book):
    offenders = {}
    for page in built_book.rglob("*.html"):
        hits = ASSET_URL.findall(page.read_text())
        if hits:
            offenders[str(page.relative_to(built_book))] = hits[:3]
    assert not offenders, offenders
    intro = (built_book / "book/intro.html").read_text()
    assert re.search(r'<script[^>]+src="[./]*_static/mathjax/tex-chtml\.js', intro), "local MathJax"


def _text_outputs(notebook: Path) -> list[str]:
    """Every text/plain and text/html output of a notebook's code cells, in order."""
    import json

    cells = json.loads(notebook.read_text())["cells"]
    return [str(output.get("data", {}).get(kind))
            for cell in cells if cell["cell_type"] == "code"
            for output in cell.get("outputs", [])
            for kind in ("text/plain", "text/html") if kind in output.get("data", {})]


@pytest.mark.smoke
def test_same_seed_gives_identical_tables(built_book, tmp_path):
    """Re-executing a chapter with the same seed reproduces every table it printed."""
    first = built_book.parent.parent / "book/_executed/05_stratified.ipynb"
    env = {k: v for k, v in os.environ.items() if k != "MMLU_AUDIT_CACHE"}
    again = subprocess.run(
        [sys.executable, "-m", "mmlu_audit.bookbuild", "05", "--fast", "--out", str(tmp_path)],
        capture_output=True, text=True, cwd=ROOT, env=env)
    assert again.returncode == 0, again.stdout + again.stderr
    assert _text_outputs(first) == _text_outputs(tmp_path / "05_stratified.ipynb")
