"""Shared fixtures: the real staged items (read once), a small simulated world, the smoke build."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from mmlu_audit import load_items
from mmlu_audit.core.paths import project_root

from helpers import run_bounded

#: Deadlines for the smoke build's steps: the parse, the chapters and the site (about 2, 9 and 2 min idle).
SMOKE_EXECUTE_S = 30 * 60
SMOKE_PARSE_S = 10 * 60
SMOKE_HTML_S = 10 * 60


def pytest_collection_modifyitems(config, items):
    """Put the smoke build's file first, so a worker starts the suite's longest unit at once.

    With xdist's default reordering (files with the most tests first) the smoke file, a few
    tests behind a ~18 min build, started ~5 min late and ran alone at the end of the CI run;
    pyproject's ``--no-loadscope-reorder`` keeps this order.
    """
    items.sort(key=lambda item: item.nodeid.split("::")[0] != "tests/test_book_smoke.py")


@pytest.fixture(autouse=True, scope="session")
def _isolated_cache(tmp_path_factory):
    """Send every cache write of the test session to a temporary folder."""
    os.environ["MMLU_AUDIT_CACHE"] = str(tmp_path_factory.mktemp("cache"))


@pytest.fixture(scope="session")
def items():
    """The 14,042 real MMLU test items (checked against their sha256)."""
    return load_items()


@pytest.fixture(scope="session")
def small_items(items):
    """A 40-items-per-subject slice (2,280 items) for fast simulation tests."""
    return items.groupby("subject", group_keys=False).head(40).reset_index(drop=True)


@pytest.fixture(scope="session")
def built_book(tmp_path_factory):
    """Execute all chapters (fast) and build the HTML site in a temporary folder.

    The build runs in a temporary copy of the book sources so a developer's own
    ``_build`` and executed notebooks are left alone. Session-scoped: the smoke and
    browser tests share one build.
    """
    site = tmp_path_factory.mktemp("site")
    for name in ("_config.yml", "_toc.yml", "CITATION.cff"):
        shutil.copy(project_root() / name, site / name)
    shutil.copytree(project_root() / "book", site / "book",
                    ignore=shutil.ignore_patterns("_executed", "_build", "_generated"))
    shutil.copytree(project_root() / "chapters", site / "chapters",  # the pages link their sources
                    ignore=shutil.ignore_patterns("*.ipynb", "__pycache__"))
    assert (site / "book/_mathjax/mathjax/tex-chtml.js").exists(), "run `make test` (fetches MathJax)"
    # Chapters use the project's own cache (content-addressed, so safe to share): a
    # developer's second `make test` reuses parses and fits instead of recomputing them.
    env = {k: v for k, v in os.environ.items() if k != "MMLU_AUDIT_CACHE"}
    # One chapter at a time: `make test` runs no `make data`, so on a fresh clone the chapters parse
    # the stems and embed the items themselves, and a kernel pinned to one core did that alone
    # (§4.1's encoder 575 s; the smoke chapters' span 17.8 min against ~9 min one at a time).
    # The stems are parsed first with one spaCy worker per core, as `make data` does: in §1's kernel
    # the parse ran in one process (272 s of the smoke chapters' 1,372 s in the CI run of f503095).
    parse = run_bounded([sys.executable, "-c", "from mmlu_audit.book.prepare import prepare_features; "
                         "prepare_features()"], SMOKE_PARSE_S, cwd=project_root(), env=env)
    assert parse.returncode == 0, parse.stdout + parse.stderr
    execute = run_bounded(
        [sys.executable, "-m", "mmlu_audit.book.build", "--fast", "--jobs", "1",
         "--out", str(site / "book/_executed")],
        SMOKE_EXECUTE_S, cwd=project_root(), env=env)
    assert execute.returncode == 0, execute.stdout + execute.stderr
    findings = run_bounded(
        [sys.executable, "-m", "mmlu_audit.book.findings", "--fast",
         "--executed", str(site / "book/_executed"), "--out", str(site / "book/_generated/findings.md")],
        120, cwd=project_root(), env=env)
    assert findings.returncode == 0, findings.stdout + findings.stderr
    build = run_bounded(
        [str(Path(sys.executable).with_name("jupyter-book")), "build", str(site),
         "--warningiserror", "--nitpick", "--keep-going", "--builder", "html"], SMOKE_HTML_S)
    assert build.returncode == 0, build.stdout[-4000:] + build.stderr[-4000:]
    return site / "_build" / "html"
