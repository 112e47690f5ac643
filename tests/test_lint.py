"""The tree passes the project's ruff configuration (pyproject.toml), as `make test` requires."""

from __future__ import annotations

import subprocess

from ruff.__main__ import find_ruff_bin

from mmlu_audit.core.paths import project_root


def test_ruff_finds_nothing():
    result = subprocess.run([find_ruff_bin(), "check", "--no-cache", "lib", "tests", "chapters", "bench"],
                            cwd=project_root(), capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
