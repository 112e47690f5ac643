"""The GitHub workflows: actionlint-clean, and doing what the README says they do."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from mmlu_audit.core.paths import project_root

WORKFLOWS = project_root() / ".github" / "workflows"
ACTIONLINT = Path(sys.executable).with_name("actionlint")


def actionlint(*args, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([str(ACTIONLINT), "-no-color", *args], cwd=cwd, capture_output=True, text=True,
                          check=False, timeout=120)


def workflow(name: str) -> dict:
    return yaml.safe_load((WORKFLOWS / name).read_text())


def steps(job: dict) -> list[str]:
    return [step.get("run", "") + step.get("uses", "") for step in job["steps"]]


def test_actionlint_finds_nothing():
    result = actionlint(cwd=project_root())
    assert result.returncode == 0, result.stdout + result.stderr


def test_actionlint_catches_a_broken_workflow(tmp_path):
    shutil.copytree(project_root() / ".github", tmp_path / ".github")
    bad = (WORKFLOWS / "book.yml").read_text().replace("linux, gpu]", "linux, gpu-x]")
    (tmp_path / ".github" / "workflows" / "book.yml").write_text(bad)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    result = actionlint(cwd=tmp_path)
    assert result.returncode == 1
    assert 'label "gpu-x" is unknown' in result.stdout


def test_tests_run_make_test_on_every_push():
    tests = workflow("tests.yml")
    assert "push" in tests[True]  # YAML 1.1 reads the key `on` as True
    assert "make test" in steps(tests["jobs"]["test"])


def test_book_builds_on_the_gpu_runner_and_deploys_to_pages():
    book = workflow("book.yml")
    build, deploy = book["jobs"]["build"], book["jobs"]["deploy"]
    assert "gpu" in build["runs-on"] and "self-hosted" in build["runs-on"]
    assert any(step.startswith("make book DEVICE=gpu") for step in steps(build))
    assert any(step.startswith("actions/upload-pages-artifact@") for step in steps(build))
    assert any(step.startswith("actions/deploy-pages@") for step in steps(deploy))
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}


def test_the_manual_trigger_passes_fast():
    book = workflow("book.yml")
    assert book[True]["workflow_dispatch"]["inputs"]["fast"]["type"] == "boolean"
    step = next(s for s in book["jobs"]["build"]["steps"] if s.get("run", "").startswith("make book"))
    assert step["env"]["FAST"] == "${{ inputs.fast && '1' || '' }}"  # "1", or empty on a push
    assert 'FAST="$FAST"' in step["run"]
