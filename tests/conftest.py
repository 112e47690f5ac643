"""Shared fixtures: the real staged items (read once) and a small simulated world."""

from __future__ import annotations

import os

import pytest

from mmlu_audit import load_items


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
