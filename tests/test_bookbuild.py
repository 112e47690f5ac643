"""bookbuild: unknown chapters fail loudly, a failed run keeps the last good notebook,
and chapter-specific parameters pass from the command line, checked against the chapter."""

from __future__ import annotations

import json

import pytest

from mmlu_audit.book import build as bookbuild

CHAPTER = '''# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% tags=["parameters"]
seed = 0
fast = False
data_source = "simulated"
n_draws = 10  # a chapter-specific knob
levels = [0.5]

# %%
from pathlib import Path
assert not Path("FAIL").exists(), "asked to fail"
print("n_draws", n_draws, "levels", levels, "type", type(n_draws).__name__)
'''


@pytest.fixture
def toy_root(tmp_path, monkeypatch):
    """A project root with one tiny chapter, so bookbuild runs in seconds."""
    (tmp_path / "chapters").mkdir()
    (tmp_path / "chapters" / "01_toy.py").write_text(CHAPTER)
    monkeypatch.setattr(bookbuild, "project_root", lambda: tmp_path)
    return tmp_path


def _printed(notebook) -> str:
    cells = json.loads(notebook.read_text())["cells"]
    return "".join("".join(o.get("text", ""))
                   for c in cells if c["cell_type"] == "code" for o in c["outputs"])


def test_unknown_chapter_prefix_exits_non_zero(capsys):
    """It used to print nothing and exit 0."""
    assert bookbuild.main(["42", "--out", "/nonexistent/never-written"]) == 2
    assert "no chapter matches '42'" in capsys.readouterr().err


def test_bad_seed_exits_non_zero(capsys):
    assert bookbuild.main(["01", "--seed", "-3"]) == 2
    assert "seed" in capsys.readouterr().err


def test_failed_run_keeps_the_previous_notebook(toy_root, capsys):
    out = toy_root / "executed"
    assert bookbuild.main(["01", "--out", str(out)]) == 0
    good = (out / "01_toy.ipynb").read_bytes()
    (toy_root / "chapters" / "FAIL").touch()
    assert bookbuild.main(["01", "--out", str(out)]) == 1
    assert (out / "01_toy.ipynb").read_bytes() == good
    assert "asked to fail" in (out / "01_toy.failed.ipynb").read_text()
    assert "01_toy.failed.ipynb" in capsys.readouterr().err
    (toy_root / "chapters" / "FAIL").unlink()
    assert bookbuild.main(["01", "--out", str(out)]) == 0
    assert not (out / "01_toy.failed.ipynb").exists()  # the stale failure record goes
    assert sorted(p.name for p in out.iterdir()) == ["01_toy.ipynb"]  # no temporary left behind


def test_chapter_parameters_from_the_command_line(toy_root):
    out = toy_root / "executed"
    assert bookbuild.main(["01", "--out", str(out), "-p", "n_draws", "3", "-p", "levels", "[0.9, 0.95]"]) == 0
    assert "n_draws 3 levels [0.9, 0.95] type int" in _printed(out / "01_toy.ipynb")


@pytest.mark.parametrize("argv, problem", [
    (["-p", "n_drawz", "3"], "01_toy.py has no parameter 'n_drawz'.*n_draws"),
    (["-p", "seed", "3"], "use --seed"),
    (["-p", "n_draws", "[1,"], "not a YAML value"),
])
def test_bad_chapter_parameters_exit_non_zero_before_running(toy_root, capsys, argv, problem):
    out = toy_root / "executed"
    assert bookbuild.main(["01", "--out", str(out), *argv]) == 2
    assert pytest.importorskip("re").search(problem, capsys.readouterr().err)
    assert not out.exists()


def test_parse_value_reads_yaml_literals():
    assert bookbuild.parse_value("3") == 3
    assert bookbuild.parse_value("0.5") == 0.5
    assert bookbuild.parse_value("true") is True
    assert bookbuild.parse_value("helm20") == "helm20"
    assert bookbuild.parse_value("{a: 1}") == {"a": 1}
