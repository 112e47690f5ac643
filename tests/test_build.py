"""bookbuild: unknown chapters fail loudly, a failed run keeps the last good notebook,
and chapter-specific parameters pass from the command line, checked against the chapter."""

from __future__ import annotations

import json
import os
import re

import pytest

from mmlu_audit.book import build as bookbuild
from mmlu_audit.core.machine import core_lanes

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

# %% [raw] tags=["fast-parameters"]
# n_draws = 2
# levels = (0.25, 0.75)

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


JAX_CHAPTER = CHAPTER.split("# %%\nfrom pathlib")[0] + '''# %%
import jax
import jax.numpy as jnp

events = []
jax.monitoring.register_event_listener(lambda event, **_: events.append(event))
print("cache", jax.config.jax_compilation_cache_dir, jax.config.jax_persistent_cache_min_compile_time_secs)
jax.jit(lambda x: jnp.sin(x) * 3 + 1)(jnp.arange(4.0)).block_until_ready()
print("hits", events.count("/jax/compilation_cache/cache_hits"))
'''


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
    (["-p", "n_drawz", "3"], "no selected chapter has a parameter 'n_drawz'.*n_draws"),
    (["-p", "seed", "3"], "use --seed"),
    (["-p", "n_draws", "3", "-p", "n_draws", "4"], "'n_draws' is given twice"),
])
def test_bad_chapter_parameters_exit_non_zero_before_running(toy_root, capsys, argv, problem):
    out = toy_root / "executed"
    assert bookbuild.main(["01", "--out", str(out), *argv]) == 2
    assert re.search(problem, capsys.readouterr().err)
    assert not out.exists()


def test_parse_value_reads_json_literals_and_keeps_other_text():
    assert bookbuild.parse_value("3") == 3 and bookbuild.parse_value("0.5") == 0.5
    assert bookbuild.parse_value("1e-3") == 0.001  # YAML 1.1 read this as a string
    assert bookbuild.parse_value("true") is True and bookbuild.parse_value("null") is None
    assert bookbuild.parse_value("[0.9, 0.95]") == [0.9, 0.95]
    for text in ("helm20", "CR1", "no", "010", "[1,"):  # YAML 1.1: False, 8, an error
        assert bookbuild.parse_value(text) == text
    assert bookbuild.parse_value('"010"') == "010"


def test_fast_runs_the_chapter_s_overlay_under_the_command_line(toy_root):
    out = toy_root / "executed"
    assert bookbuild.main(["01", "--fast", "--out", str(out)]) == 0
    assert "n_draws 2 levels [0.25, 0.75] type int" in _printed(out / "01_toy.ipynb")
    assert bookbuild.main(["01", "--fast", "--out", str(out), "-p", "n_draws", "5"]) == 0
    assert "n_draws 5 levels [0.25, 0.75]" in _printed(out / "01_toy.ipynb")
    assert bookbuild.main(["01", "--out", str(out)]) == 0  # without --fast the overlay is ignored
    assert "n_draws 10 levels [0.5]" in _printed(out / "01_toy.ipynb")
    cells = json.loads((out / "01_toy.ipynb").read_text())["cells"]
    (overlay,) = [c for c in cells if "fast-parameters" in c["metadata"].get("tags", [])]
    assert overlay["cell_type"] == "raw" and "remove-cell" in overlay["metadata"]["tags"]


def test_a_chapter_receives_only_what_it_declares(toy_root):
    other = CHAPTER.replace("n_draws = 10  # a chapter-specific knob\n", "").replace("# n_draws = 2\n", "")
    (toy_root / "chapters" / "02_other.py").write_text(other)
    sources = bookbuild.chapter_paths()
    runs = bookbuild.run_parameters(sources, {"data_source": "simulated", "seed": 1, "fast": True},
                                    [["n_draws", "7"]])
    first, second = (runs[s] for s in sources)
    assert first == {"seed": 1, "fast": True, "data_source": "simulated", "n_draws": 7,
                     "levels": [0.25, 0.75]}
    assert "n_draws" not in second and second["levels"] == [0.25, 0.75]


@pytest.mark.parametrize("overlay, problem", [
    ("# n_drawz = 2\n", "sets \\['n_drawz'\\], which its parameters cell does not declare"),
    ("# n_draws 2\n", "is not `name = literal`"),
    ("# n_draws = min(n_draws, 2)\n", "is not `name = literal`"),
])
def test_a_bad_fast_overlay_is_refused_before_running(toy_root, capsys, overlay, problem):
    chapter = toy_root / "chapters" / "01_toy.py"
    chapter.write_text(CHAPTER.replace("# n_draws = 2\n", overlay))
    out = toy_root / "executed"
    assert bookbuild.main(["01", "--fast", "--out", str(out)]) == 2
    assert re.search(problem, capsys.readouterr().err)
    assert not out.exists()


CHAPTERS = bookbuild.chapter_paths()


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_every_assignment_of_a_parameters_cell_is_a_parameter(chapter):
    """papermill skips a line it cannot parse (an ``=`` in a comment, a ``None`` default),
    and the name then silently stops being settable; the overlay must parse too."""
    import ast

    import jupytext

    (cell,) = [c for c in jupytext.read(chapter).cells if "parameters" in c.metadata.get("tags", [])]
    assigned = [target.id for node in ast.parse(cell.source).body if isinstance(node, ast.Assign)
                for target in node.targets]
    assert list(bookbuild.chapter_parameters(chapter)) == assigned
    assert set(bookbuild.fast_values(chapter)) <= set(assigned)


def test_the_machines_load_is_recorded_at_each_chapters_start_and_end(toy_root, monkeypatch):
    readings = iter([[3.5, 2.0, 1.0], [5.25, 3.0, 1.5]])
    monkeypatch.setattr(bookbuild, "load_average", lambda: next(readings))
    out = toy_root / "executed"
    assert bookbuild.main(["01", "--out", str(out)]) == 0
    machine = json.loads((out / "01_toy.ipynb").read_text())["metadata"][bookbuild.MACHINE_KEY]
    assert machine["loadavg_start"] == [3.5, 2.0, 1.0] and machine["loadavg_end"] == [5.25, 3.0, 1.5]
    assert machine["cpus"] >= 1
    assert sorted(p.name for p in out.iterdir()) == ["01_toy.ipynb"]  # no staging file left behind


def test_load_average_is_three_numbers_or_none():
    load = bookbuild.load_average()
    assert load is None or (len(load) == 3 and all(x >= 0 for x in load))


def test_every_chapters_kernel_shares_jaxs_persistent_compilation_cache(toy_root, monkeypatch):
    """The first kernel compiles into ``<cache>/jax``; a second kernel's compile of the same program
    is a cache hit. Even a program that compiles in milliseconds is cached."""
    from mmlu_audit.core.paths import CACHE_ENV

    cache = toy_root / "cache"
    monkeypatch.setenv(CACHE_ENV, str(cache))
    for name in [*bookbuild.compilation_cache_env(cache), "JAX_PLATFORMS"]:
        monkeypatch.delenv(name, raising=False)  # main sets them for its kernels; restored afterwards
    (toy_root / "chapters" / "02_jax.py").write_text(JAX_CHAPTER)
    out = toy_root / "executed"
    assert bookbuild.main(["02", "--out", str(out)]) == 0
    first = _printed(out / "02_jax.ipynb")
    assert f"cache {cache / 'jax'} 0.0" in first and "hits 0" in first
    assert any((cache / "jax").iterdir())
    assert bookbuild.main(["02", "--out", str(out)]) == 0
    assert "hits 0" not in _printed(out / "02_jax.ipynb")


def test_a_compilation_cache_setting_of_the_user_wins(toy_root, monkeypatch):
    monkeypatch.setenv("JAX_COMPILATION_CACHE_DIR", str(toy_root / "mine"))
    monkeypatch.delenv("JAX_PLATFORMS", raising=False)
    (toy_root / "chapters" / "02_jax.py").write_text(JAX_CHAPTER)
    assert bookbuild.main(["02", "--out", str(toy_root / "executed")]) == 0
    printed = _printed(toy_root / "executed" / "02_jax.ipynb")
    assert f"cache {toy_root / 'mine'} " in printed


TIMED_CHAPTER = CHAPTER.split("# %%\nfrom pathlib")[0] + '''# %%
import time
from pathlib import Path

import os

start = time.time()
time.sleep(SLEEP)
cores = ",".join(map(str, sorted(os.sched_getaffinity(0))))
Path(f"ran-{NAME}.txt").write_text(f"{start} {time.time()} {cores} {os.environ.get('OPENBLAS_NUM_THREADS')}")
assert NAME != "broken", "asked to fail"
'''


def _timed_chapter(root, stem, sleep, label=None):
    name = stem.split("_", 1)[1]
    text = TIMED_CHAPTER.replace("SLEEP", str(sleep)).replace("NAME", repr(name))
    if label:  # a chapter is known by the MyST label it declares
        text += f"\n# %% [markdown]\n# ({label})=\n"
    (root / "chapters" / f"{stem}.py").write_text(text)
    return root / "chapters" / f"ran-{name}.txt"


def _interval(record):
    return tuple(float(x) for x in record.read_text().split()[:2])


def _pinned(record):
    cores, blas_threads = record.read_text().split()[2:]
    return set(map(int, cores.split(","))), blas_threads


def test_chapters_run_side_by_side_and_the_readers_after_them_all(toy_root, capsys):
    (toy_root / "chapters" / "01_toy.py").unlink()
    a, b = (_timed_chapter(toy_root, stem, 3) for stem in ("01_a", "02_b"))
    broken = _timed_chapter(toy_root, "03_broken", 0)
    reader = _timed_chapter(toy_root, "04_reader", 0, label="chap-discussion")
    out = toy_root / "executed"
    assert bookbuild.main(["--out", str(out), "--jobs", "2"]) == 1
    (a_start, a_end), (b_start, b_end) = _interval(a), _interval(b)
    assert a_start < b_end and b_start < a_end  # they overlapped
    assert _interval(reader)[0] >= max(a_end, b_end, _interval(broken)[1])
    lanes = core_lanes(2)
    if lanes is not None:  # each kernel on a lane of its own, its BLAS pool sized to it
        (a_cores, a_blas), (b_cores, b_blas) = _pinned(a), _pinned(b)
        assert a_cores.isdisjoint(b_cores)
        assert {frozenset(a_cores), frozenset(b_cores)} <= set(map(frozenset, lanes))
        assert {a_blas, b_blas} <= {str(len(lane)) for lane in lanes}
    assert _pinned(reader)[0] == set(os.sched_getaffinity(0))  # a reader runs alone, on every core
    printed = capsys.readouterr()
    assert "FAILED  03_broken.py" in printed.out and "asked to fail" in printed.err
    assert sorted(p.name for p in out.iterdir()) == ["01_a.ipynb", "02_b.ipynb", "03_broken.failed.ipynb",
                                                    "04_reader.ipynb"]


def test_readers_run_last_and_a_parallel_build_starts_the_listed_chapters_first(tmp_path, monkeypatch):
    monkeypatch.setattr(bookbuild, "START_FIRST", ("chap-long", "chap-fit"))
    labels = {"01_data.py": "chap-data", "13_discussion.py": "chap-discussion", "02_fit.py": "chap-fit",
              "99_performance.py": "chap-performance", "98_scorecard.py": "chap-scorecard",
              "07_long.py": "chap-long", "03_short.py": "chap-short"}
    for name, label in labels.items():
        (tmp_path / name).write_text(f"# %% [markdown]\n# ({label})=\n# # A toy\n")
    side_by_side, readers = bookbuild.run_order(sorted(tmp_path / n for n in labels))
    assert [p.name for p in side_by_side] == ["01_data.py", "02_fit.py", "03_short.py", "07_long.py"]
    started = bookbuild.start_order(side_by_side)
    assert [p.name for p in started] == ["07_long.py", "02_fit.py", "01_data.py", "03_short.py"]
    assert [p.name for p in readers] == ["13_discussion.py", "98_scorecard.py", "99_performance.py"]


def test_the_start_order_names_chapters_that_exist():
    from mmlu_audit.book.chapters import READERS, chapter_labels

    assert set(bookbuild.START_FIRST) <= set(chapter_labels())
    assert set(READERS) <= set(chapter_labels()) and not set(READERS) & set(bookbuild.START_FIRST)


def test_core_lanes_split_the_cores_into_disjoint_near_equal_lanes(monkeypatch):
    from mmlu_audit.core import machine

    monkeypatch.setattr(machine.os, "sched_getaffinity", lambda pid: {4, 0, 2, 6, 8})
    assert machine.core_lanes(2) == [[0, 2], [4, 6, 8]]
    assert machine.core_lanes(5) == [[0], [2], [4], [6], [8]]
    assert machine.core_lanes(6) is None  # more lanes than cores: no pinning
    with pytest.raises(ValueError):
        machine.core_lanes(0)


@pytest.mark.parametrize("jobs", ["0", "-1"])
def test_a_bad_jobs_count_exits_non_zero_before_running(toy_root, capsys, jobs):
    out = toy_root / "executed"
    assert bookbuild.main(["01", "--out", str(out), "--jobs", jobs]) == 2
    assert "--jobs" in capsys.readouterr().err and not out.exists()


def test_two_jobs_by_default_on_a_cpu_with_two_cores_one_on_a_gpu(monkeypatch):
    from mmlu_audit.core import machine

    monkeypatch.setattr(machine, "available_cores", lambda: 2)
    assert bookbuild.default_jobs("cpu") == 2 and bookbuild.default_jobs("gpu") == 1
    monkeypatch.setattr(machine, "available_cores", lambda: 1)
    assert bookbuild.default_jobs("cpu") == 1
