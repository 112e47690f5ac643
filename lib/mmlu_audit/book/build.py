"""Execute the py:percent chapters with papermill, ready for Jupyter Book to render.

Usage::

    python -m mmlu_audit.book.build [--fast] [--data-source simulated] [--seed 0]
                                   [--device cpu|gpu|auto] [--jobs N] [-p NAME VALUE ...] [CHAPTER ...]

Each ``chapters/NN_slug.py`` is converted in memory with jupytext, executed by
papermill with the given parameters, and written to ``book/_executed/NN_slug.ipynb``.
A chapter is executed into a temporary file beside its target and moved into
place only on success, so a failed run leaves the last good notebook untouched;
the failed one is kept beside it as ``NN_slug.failed.ipynb`` for inspection.
Every chapter runs even if an earlier one fails; failures are reported together
at the end and the exit status is 1. Bad options (an unknown chapter prefix, a
parameter the chapter does not declare, a ``-p`` value of another type than the
chapter's default, a ``--data-source`` the registry does not hold, a bad seed)
exit with status 2 with one line before any kernel starts.

Every chapter's kernel shares JAX's persistent compilation cache in ``<cache>/jax``
(:func:`compilation_cache_env`), so a program one chapter compiled is not compiled again. Where
that folder is not writable (a read-only cache) the book is built without it, with one line on
stderr.

``--jobs N`` runs N chapters at once, each kernel pinned to its own share of the cores (default:
two on a CPU with two cores or more, one on a GPU; :func:`default_jobs`). On 2 cores one kernel
with both kept them ~82 % busy (imports, tables and figures between the fits), and some of its
work gains little from a second thread (Appendix A: 93 s with two threads, 83 s with one), so two
one-core kernels finished the chapters of a cold build in 12.3 min against 16.9 min one at a
time (2026-12-02). A fit that two chapters need is computed once, the other waiting for it
(:func:`mmlu_audit.core.store.compute_lock`); side-by-side chapters start in
:data:`START_FIRST` order, and the pages that read the other executed chapters
(:data:`~mmlu_audit.book.chapters.READERS`) run after them all, one at a time, in book order. Results
depend on N
only through float rounding: XLA's and BLAS's sums split differently over one thread than over
two (in that build no glued value moved by more than 8.5e-5 relative, 4e-8 absolute); every
chapter is seeded on its own. Each notebook records N beside its time.

Each chapter receives only the parameters its ``parameters`` cell declares.
``-p NAME VALUE`` sets one (once per name); ``VALUE`` is read as a JSON literal
(``3``, ``0.5``, ``1e-3``, ``true``, ``null``, ``[0.9, 0.95]``, ``"010"``), and any
text that is not JSON is taken as a string (``helm20``, ``CR1``, ``no``, ``010``).
A ``NAME`` that no selected chapter declares stops the build.

``--fast`` is an overlay: a chapter's smoke-run values live in the chapter itself,
in a raw cell tagged ``fast-parameters`` (one ``name = value`` Python literal per
line, each a name the parameters cell declares). They are applied as if given with
``-p``, before the command line's own ``-p`` values, which win; the cell is not
executed and is removed from the rendered page.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from mmlu_audit.book.chapters import READERS, declared_label
from mmlu_audit.book.tags import FAST_TAG, tag_notebook_file
from mmlu_audit.book.device import CHOICES, jax_platforms, resolve_device
from mmlu_audit.book.generated import check_out_folder
from mmlu_audit.core.errors import DataError, DeviceUnavailableError, ParameterError
from mmlu_audit.core.paths import absolute_env_folders, cache_root, project_root, writable_folder
from mmlu_audit.core.seeds import check_seed

__all__ = ["FAST_TAG", "MACHINE_KEY", "START_FIRST", "chapter_parameters", "chapter_paths",
           "check_data_source", "check_parameter_type", "compilation_cache_env", "default_jobs",
           "execute_all", "execute_chapter", "fast_values", "load_average", "main", "parse_value",
           "record_machine", "run_order", "run_parameters", "start_order"]

#: Notebook metadata key of the machine's state during a chapter's run (see :func:`record_machine`).
MACHINE_KEY = "mmlu_audit_machine"

#: Start order of a parallel build (chapter labels; the rest follow in book order). The shared
#: calibration first (§3: most chapters read its fit) beside a page that does not need it, then the
#: longest ones, so no long chapter is left to run alone on one lane at the end; §5.2 before
#: Appendix C, which reads §5.2's 2D fit. The explanatory model starts late, beside the short
#: chapters: its fits on the full matrix slow by a sixth beside another lane's SVI (the two cores
#: share the cache and the memory): on one core of an idle 2-core machine it took 168 s alone and
#: 197–199 s beside §5.1's interaction pages in two cold builds (2026-12-03). Only the order
#: depends on it, never a result.
START_FIRST = ("chap-calibration", "chap-real-leaderboard", "chap-native-interaction",
               "chap-interaction-bootstrap", "chap-real-verdicts", "chap-rank-stability", "chap-appendix-a",
               "chap-appendix-c", "chap-appendix-c-explanatory", "chap-appendix-d")

#: Parameters set by their own options rather than ``-p``.
COMMON = {"data_source": "--data-source", "seed": "--seed", "fast": "--fast"}


def compilation_cache_env(folder: Path) -> dict[str, str]:
    """The environment that turns on JAX's persistent compilation cache in ``folder``.

    Every chapter runs in its own kernel, and several compile the same programs (the 2PL, 2D and
    interaction SVI chunks and their curvature programs on one matrix shape): without a persistent
    cache each kernel pays XLA's compile again (2–7 s a program on 2 cores). JAX keys an entry by
    the program, the compile options, the backend and the jax/jaxlib versions, so an entry is
    never served to a different program or version. Every program is cached (no minimum compile
    time or size: the small ones add up too); the folder lives in the project's ignored cache and
    is capped at 2 GB, least recently used entries going first.
    """
    return {"JAX_COMPILATION_CACHE_DIR": str(folder),
            "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
            "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "0",
            "JAX_COMPILATION_CACHE_MAX_SIZE": str(2 * 1024**3)}


def _compilation_cache_env() -> dict[str, str]:
    """:func:`compilation_cache_env` of ``<cache>/jax``, or nothing when that folder is not writable.

    JAX has no read-only persistent cache (with a size cap it takes a lock file and stamps access
    times even to read), so a read-only cache means compiling afresh, not refusing to build.
    """
    try:  # cache_root raises for a blank MMLU_AUDIT_CACHE or an unknown ~user, so inside the try
        folder = cache_root(writable=False) / "jax"
        return compilation_cache_env(writable_folder(folder, "JAX compilation cache folder"))
    except DataError as exc:
        print(f"bookbuild: {exc}; building without JAX's persistent compilation cache", file=sys.stderr)
        return {}


def chapter_paths(root: Path | None = None, only: list[str] | None = None) -> list[Path]:
    """The chapter sources in book order, optionally filtered by name prefix.

    Raises
    ------
    ParameterError
        If a prefix in ``only`` matches no chapter.
    """
    root = root or project_root()
    paths = sorted((root / "chapters").glob("[0-9][0-9]_*.py"))
    if not only:
        return paths
    unmatched = [o for o in only if not any(p.stem.startswith(o) for p in paths)]
    if unmatched:
        known = ", ".join(p.stem for p in paths) or "none"
        raise ParameterError("chapters", f"no chapter matches {unmatched[0]!r} (chapters: {known})")
    return [p for p in paths if any(p.stem.startswith(o) for o in only)]


def parse_value(text: str):
    """Read a command-line parameter value: a JSON literal, or else the text itself as a string.

    JSON rather than YAML, so ``1e-3`` is a number and ``no`` or ``010`` stay strings.

    Raises
    ------
    ParameterError
        For JSON that Python will not read: an integer of more than 4,300 digits, or nesting
        deeper than the interpreter's recursion limit.
    """
    import json

    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text
    except (ValueError, RecursionError) as exc:  # int-digit limit, or nesting too deep
        problem = "nested too deeply" if isinstance(exc, RecursionError) else str(exc).split(";")[0]
        raise ParameterError("-p", f"value {text[:40]!r}{'…' if len(text) > 40 else ''} "
                                   f"cannot be read: {problem}") from None


def _notebook(source: Path):
    import jupytext

    notebook = jupytext.read(source)
    notebook.metadata.pop("jupytext", None)  # the executed copy is not paired
    return notebook


def chapter_parameters(source: Path) -> dict:
    """The names declared in a chapter's ``parameters`` cell, each with its default as source text."""
    import jupytext
    import papermill

    with tempfile.TemporaryDirectory() as scratch:
        staged = Path(scratch) / f"{source.stem}.ipynb"
        jupytext.write(_notebook(source), staged, fmt="ipynb")
        declared = papermill.inspect_notebook(str(staged))
    return {name: spec["default"] for name, spec in declared.items()}


def load_average() -> list[float] | None:
    """The 1-, 5- and 15-minute load averages, or None where the system does not report them."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):  # Windows has no getloadavg; a container may hide /proc/loadavg
        return None


def record_machine(path: Path, load_start: list[float] | None, load_end: list[float] | None,
                   jobs: int = 1) -> None:
    """Write the machine's CPU count and load averages at a chapter's start and end into its notebook.

    The Performance page shows them beside the chapter's time: a time measured while other work
    held the cores is not the time of an idle machine. ``jobs`` is how many chapters the build ran
    at once (a chapter of a parallel build had its share of the cores only). The file is replaced
    atomically.
    """
    import nbformat

    path = Path(path)
    notebook = nbformat.read(path, as_version=4)
    notebook.metadata[MACHINE_KEY] = {"cpus": os.cpu_count(), "loadavg_start": load_start,
                                      "loadavg_end": load_end, "jobs": jobs}
    staged = path.with_name(f".{path.name}.machine")
    nbformat.write(notebook, staged)
    staged.replace(path)


def execute_chapter(source: Path, out_dir: Path, parameters: dict, kernel: str = "python3",
                    jobs: int = 1) -> Path:
    """Execute one chapter with papermill and return the executed notebook's path.

    The notebook is written to a hidden temporary file in ``out_dir`` and renamed
    to ``NN_slug.ipynb`` only if execution succeeds. On failure the partial
    notebook becomes ``NN_slug.failed.ipynb`` and the exception propagates.
    A chapter whose parameters cell declares ``executed_dir`` is told ``out_dir``, where this
    build writes the executed chapters (the scorecard reads them; a page's downloads go there).
    The notebook's metadata records the machine's load at the start and end of the run and the
    build's ``jobs`` (:func:`record_machine`).
    """
    import jupytext
    import papermill

    notebook = _notebook(source)
    if "executed_dir" in chapter_parameters(source) and "executed_dir" not in parameters:
        parameters = {**parameters, "executed_dir": str(Path(out_dir).resolve())}
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{source.stem}.ipynb"
    failed = out_dir / f"{source.stem}.failed.ipynb"
    fd, running = tempfile.mkstemp(prefix=f".{source.stem}.", suffix=".running.ipynb", dir=out_dir)
    os.close(fd)
    load_start = load_average()
    try:
        with tempfile.TemporaryDirectory() as scratch:
            staged = Path(scratch) / f"{source.stem}.ipynb"
            jupytext.write(notebook, staged, fmt="ipynb")
            papermill.execute_notebook(str(staged), running, parameters=parameters,
                                       kernel_name=kernel, cwd=str(source.parent),
                                       progress_bar=False)
        load_end = load_average()
        tag_notebook_file(Path(running))
        record_machine(Path(running), load_start, load_end, jobs)
    except BaseException:
        if os.path.getsize(running):
            os.replace(running, failed)
        else:  # papermill stopped before writing anything
            os.unlink(running)
        raise
    os.replace(running, target)
    failed.unlink(missing_ok=True)  # our own record of an earlier failure, now stale
    return target


def fast_values(source: Path) -> dict:
    """A chapter's smoke-run values: the ``name = literal`` lines of its ``fast-parameters`` cell.

    Raises
    ------
    ParameterError
        If a line is not ``name = literal``, or names a parameter the chapter does not declare.
    """
    import ast

    cells = [c for c in _notebook(source).cells if FAST_TAG in c.metadata.get("tags", [])]
    if len(cells) > 1:
        raise ParameterError(source.name, f"more than one {FAST_TAG!r} cell")
    values = {}
    for line in (cells[0].source.splitlines() if cells else []):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        name, sep, text = (part.strip() for part in line.partition("="))
        try:
            if not (sep and name.isidentifier()):
                raise ValueError(line)
            values[name] = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            problem = f"{FAST_TAG} line {line.strip()!r} is not `name = literal`"
            raise ParameterError(source.name, problem) from None
    undeclared = sorted(set(values) - set(chapter_parameters(source)))
    if undeclared:
        raise ParameterError(source.name, f"{FAST_TAG} sets {undeclared}, which its parameters cell "
                                          "does not declare")
    return {name: list(v) if isinstance(v, tuple) else v for name, v in values.items()}


def _command_line_values(pairs: list[list[str]] | None) -> dict:
    """The ``-p NAME VALUE`` pairs as a dict; a common name or a repeated one is refused."""
    values = {}
    for name, text in pairs or []:
        if name in COMMON:
            raise ParameterError("-p", f"{name!r} is set for every chapter: use {COMMON[name]}")
        if name in values:
            raise ParameterError("-p", f"{name!r} is given twice")
        values[name] = parse_value(text)
    return values


#: The type a ``-p`` value must have, by the type of the chapter's default (None takes anything).
_KINDS = {bool: ((bool,), "true or false"), int: ((int,), "an integer"),
          float: ((int, float), "a number"), str: ((str,), "text"), list: ((list,), "a list"),
          tuple: ((list,), "a list"), dict: ((dict,), "a JSON object")}


def check_parameter_type(source: Path, name: str, value, default_text: str) -> None:
    """Refuse a ``-p`` value whose type differs from the default in the chapter's parameters cell.

    A default that is not a Python literal, or is None, is not checked. A bool is never taken for
    a number (JSON ``true`` for an integer knob is a mistake, not 1).

    Raises
    ------
    ParameterError
        Naming the parameter, the chapter, the type its default has and the value given.
    """
    import ast

    try:
        default = ast.literal_eval(default_text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return
    if default is None or type(default) not in _KINDS:
        return
    allowed, kind = _KINDS[type(default)]
    wrong_bool = isinstance(value, bool) and bool not in allowed
    if wrong_bool or not isinstance(value, allowed):
        shown = repr(value)
        shown = shown if len(shown) <= 40 else shown[:40] + "…"
        raise ParameterError("-p", f"{name!r} of {source.name} takes {kind} (its default is "
                                   f"{default_text}), got {shown}")


def check_data_source(name) -> str:
    """Refuse a ``--data-source`` that the source registry does not hold (read at run time).

    Raises
    ------
    ParameterError
        Naming the source and listing the registered ones.
    """
    from mmlu_audit.data.registry import REAL_SOURCES
    from mmlu_audit.worlds.sources import SIMULATED_SOURCES

    known = SIMULATED_SOURCES + tuple(REAL_SOURCES)
    if name not in known:
        raise ParameterError("--data-source", f"unknown source {name!r}; choose one of {', '.join(known)}")
    return name


def run_parameters(sources: list[Path], common: dict, pairs: list[list[str]] | None = None) -> dict:
    """The parameters each chapter receives: declared ones only, the fast overlay under ``-p``.

    Parameters
    ----------
    sources : list of Path
        The selected chapters.
    common : dict
        ``data_source``, ``seed`` and ``fast`` for every chapter.
    pairs : list of [NAME, VALUE], optional
        The command line's ``-p`` pairs.

    Returns
    -------
    dict
        Chapter path → the parameters dict passed to papermill.

    Raises
    ------
    ParameterError
        A ``-p`` name that no selected chapter declares, a repeated or common ``-p`` name,
        a ``-p`` value whose type differs from a declaring chapter's default
        (:func:`check_parameter_type`), or a malformed fast overlay.
    """
    given = _command_line_values(pairs)
    declared = {source: chapter_parameters(source) for source in sources}
    unknown = [name for name in given if not any(name in names for names in declared.values())]
    if unknown:
        listing = "; ".join(f"{s.name}: {', '.join(names)}" for s, names in declared.items())
        raise ParameterError("-p", f"no selected chapter has a parameter {unknown[0]!r} ({listing})")
    for source, names in declared.items():
        for name in sorted(set(given) & set(names)):
            check_parameter_type(source, name, given[name], names[name])
    out = {}
    for source, names in declared.items():
        overlay = fast_values(source) if common.get("fast") else {}
        merged = {**common, **overlay, **given}
        out[source] = {name: value for name, value in merged.items() if name in names}
        check_source_parameters(source, {name: value for name, value in given.items() if name in names})
    return out


#: Parameters that name one real response source, and those that name a list of replications.
REAL_SOURCE_PARAMETERS = ("pool_source", "real_source")
POPULATION_PARAMETERS = ("populations",)


def check_source_parameters(source: Path, given: dict) -> None:
    """Refuse, before any kernel starts, a ``-p`` source a chapter cannot honour.

    ``pool_source`` / ``real_source`` must name a real MMLU source; ``populations`` must be a list of
    real MMLU sources that share no model (nested or overlapping samples are not replications:
    :func:`mmlu_audit.data.real_pool.check_disjoint`).

    Raises
    ------
    ParameterError
        Naming the chapter, the parameter and why.
    """
    from mmlu_audit.data.real_pool import check_disjoint
    from mmlu_audit.data.registry import REAL_SOURCES

    def real(name, value):
        if not isinstance(value, str) or value not in REAL_SOURCES or REAL_SOURCES[value].benchmark != "mmlu":
            known = ", ".join(k for k, v in REAL_SOURCES.items() if v.benchmark == "mmlu")
            raise ParameterError("-p", f"{name!r} of {source.name} must name a real MMLU source ({known}), "
                                 f"got {value!r}")

    for name in REAL_SOURCE_PARAMETERS:
        if name in given:
            real(name, given[name])
    for name in POPULATION_PARAMETERS:
        if name in given:
            values = given[name]
            if not isinstance(values, list) or not values:
                raise ParameterError("-p", f"{name!r} of {source.name} takes a non-empty list of sources")
            for value in values:
                real(name, value)
            try:
                check_disjoint(values)
            except ParameterError as exc:
                raise ParameterError("-p", f"{name!r} of {source.name}: {exc}") from None


def default_jobs(device: str = "cpu") -> int:
    """How many chapters run at once by default: two on a CPU with two cores or more, else one.

    Not more on a bigger machine without a measurement there (each kernel can hold ~5 GB); one
    on a GPU, where each JAX process would reserve most of the device's memory for itself.
    """
    from mmlu_audit.core.machine import available_cores

    return 1 if device != "cpu" else min(2, available_cores())


def run_order(sources: list[Path]) -> tuple[list[Path], list[Path]]:
    """The chapters split into those that may run side by side and, after them, the readers.

    Both keep the order of ``sources``; the readers are the chapters whose label is one of
    :data:`mmlu_audit.book.chapters.READERS` (they read the others' glued values).
    """
    readers = [s for s in sources if declared_label(s) in READERS]
    return [s for s in sources if s not in readers], readers


def start_order(chapters: list[Path]) -> list[Path]:
    """``chapters`` in the order a parallel build starts them: :data:`START_FIRST`, then as given."""
    rank = {label: k for k, label in enumerate(START_FIRST)}
    return sorted(chapters, key=lambda s: rank.get(declared_label(s), len(rank)))


def _pin_worker(lanes) -> None:
    """Pin this build worker, and so the kernels it starts, to the next free lane of cores.

    The thread pools of BLAS, OpenMP and torch are sized to the lane too (unless the user set
    them): sized to the machine, two kernels' pools would fight over each core.
    """
    cores = lanes.get()
    os.sched_setaffinity(0, cores)
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, str(len(cores)))


def _checked_jobs(jobs) -> int:
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ParameterError("--jobs", f"needs a whole number ≥ 1, got {jobs!r}")
    return jobs


def _timed_run(source: Path, out_dir: Path, parameters: dict, jobs: int) -> tuple[float, str | None]:
    """Execute one chapter; its wall time and, if it failed, the error's text (picklable)."""
    start = time.perf_counter()
    try:
        execute_chapter(source, out_dir, parameters, jobs=jobs)
        error = None
    except Exception as exc:  # reported with the others at the end of the build
        error = f"{type(exc).__name__}: {exc}"
    return time.perf_counter() - start, error


def _report(source: Path, seconds: float, error: str | None) -> None:
    print(f"{'FAILED' if error else 'ok':>6}  {source.name}  {seconds:6.1f} s", flush=True)


def execute_all(sources: list[Path], out_dir: Path, parameters: dict, jobs: int = 1) -> dict[Path, str]:
    """Execute ``sources`` (``jobs`` at once, each on its own lane of cores; readers last).

    Every chapter runs even if another fails. Each line of progress is printed as a chapter
    ends, with its wall time. Where there are fewer cores than ``jobs`` (or no affinity API),
    the kernels run unpinned and share the cores.

    Parameters
    ----------
    sources : list of Path
        Chapters in book order.
    out_dir : Path
        Where the executed notebooks go.
    parameters : dict
        Chapter path → its parameters (:func:`run_parameters`).
    jobs : int
        Chapters at once (≥ 1); each runs in a kernel of its own either way, and with 1 every
        chapter has all the cores.

    Returns
    -------
    dict
        Failed chapter → the error's text; empty when all succeeded.
    """
    from concurrent.futures import ProcessPoolExecutor, as_completed
    import multiprocessing

    from mmlu_audit.core.machine import core_lanes

    _checked_jobs(jobs)
    side_by_side, readers = run_order(sources)
    failures = {}

    def run_here(chapters):  # one at a time, so each records jobs = 1
        for source in chapters:
            seconds, error = _timed_run(source, out_dir, parameters[source], 1)
            _report(source, seconds, error)
            if error:
                failures[source] = error

    if jobs == 1 or len(side_by_side) < 2:
        run_here(side_by_side)
    else:  # a fresh interpreter per worker: a fork would copy this process's threads and locks
        context, lanes = multiprocessing.get_context("spawn"), core_lanes(jobs)
        pinning = {}
        if lanes is not None:
            free = context.Queue()
            for lane in lanes:
                free.put(lane)
            pinning = {"initializer": _pin_worker, "initargs": (free,)}
        with ProcessPoolExecutor(jobs, mp_context=context, **pinning) as pool:
            running = {pool.submit(_timed_run, s, out_dir, parameters[s], jobs): s
                       for s in start_order(side_by_side)}
            for future in as_completed(running):
                seconds, error = future.result()
                _report(running[future], seconds, error)
                if error:
                    failures[running[future]] = error
    run_here(readers)
    return {source: failures[source] for source in sources if source in failures}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("chapters", nargs="*", help="chapter name prefixes (default: all)")
    parser.add_argument("--fast", action="store_true", help="smoke-run settings in every chapter")
    parser.add_argument("--data-source", default="simulated")
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("-p", "--parameter", nargs=2, action="append", metavar=("NAME", "VALUE"),
                        help="a chapter parameter (once per name; VALUE is a JSON literal, else a string)")
    parser.add_argument("--out", type=Path, default=project_root() / "book" / "_executed")
    parser.add_argument("--device", choices=CHOICES, default="cpu",
                        help="what JAX computes on; gpu fails at once where JAX sees no GPU, auto then "
                             "falls back to the CPU")
    parser.add_argument("--jobs", type=int, default=None,
                        help="chapters run at once (default: 2 on a CPU with ≥ 2 cores, 1 on a GPU)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the process exit status."""
    args = _parser().parse_args(argv)
    try:
        sources = chapter_paths(only=args.chapters)
        common = {"data_source": check_data_source(args.data_source),
                  "seed": check_seed(args.seed, "--seed"), "fast": args.fast}
        parameters = run_parameters(sources, common, args.parameter)
        device = resolve_device(args.device)
        jobs = default_jobs(device) if args.jobs is None else _checked_jobs(args.jobs)
        out = check_out_folder(args.out)
        absolute_env_folders()  # before any kernel starts: kernels run in chapters/
    except (ParameterError, DataError) as exc:
        print(f"bookbuild: {exc}", file=sys.stderr)
        return 2
    except DeviceUnavailableError as exc:
        print(exc, file=sys.stderr)
        return 2
    os.environ["JAX_PLATFORMS"] = jax_platforms(device)  # inherited by every chapter's kernel
    # OMP_WAIT_POLICY=PASSIVE was tried: it halves the encoder's time at load ~7 but costs 5-10 % idle
    # (3,000 items: 52.4 / 55.3 s default, 57.6 / 58.4 s passive, alternated), and the book builds idle
    for name, value in _compilation_cache_env().items():
        os.environ.setdefault(name, value)  # inherited too; a value the user set wins
    failures = execute_all(sources, out, parameters, jobs)
    for source, error in failures.items():
        kept = out / f"{source.stem}.failed.ipynb"
        where = f"notebook kept as {kept}" if kept.is_file() else "no notebook kept"
        print(f"\n--- {source.name} failed ({where}) ---\n{error}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
