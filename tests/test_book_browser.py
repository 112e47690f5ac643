"""The built site in a real browser: every page of the smoke build loads cleanly.

Screenshots of every page land in ``_build/screenshots/`` (git-ignored) for review.
"""

from __future__ import annotations

import pytest

from mmlu_audit.paths import project_root
from mmlu_audit.sitecheck import check_site

# Every test here shares the one smoke build: keep them on one xdist worker.
pytestmark = pytest.mark.xdist_group("built_book")

SCREENSHOTS = project_root() / "_build" / "screenshots"


@pytest.mark.smoke
def test_every_page_loads_cleanly_in_chromium(built_book):
    reports = check_site(built_book, SCREENSHOTS)
    problems = {r.page: r.problems for r in reports if r.problems}
    assert not problems, problems
    chapters = [r.page for r in reports if r.page.startswith("book/_executed/")]
    assert len(chapters) >= 7 and all(r.screenshot.stat().st_size > 0 for r in reports)
