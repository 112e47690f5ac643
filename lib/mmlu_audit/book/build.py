"""Execute the py:percent chapters with papermill, ready for Jupyter Book to render.

Usage::

    python -m mmlu_audit.book.build [--fast] [--data-source simulated] [--seed 0]
                                   [--device cpu|gpu] [-p NAME VALUE ...] [CHAPTER ...]

Each ``chapters/NN_slug.py`` is converted in memory with jupytext, executed by
papermill with the given parameters, and written to ``book/_executed/NN_slug.ipynb``.
A chapter is executed into a temporary file beside its target and moved into
place only on success, so a failed run leaves the last good notebook untouched;
the failed one is kept beside it as ``NN_slug.failed.ipynb`` for inspection.
Every chapter runs even if an earlier one fails; failures are reported together
at the end and the exit status is 1. Bad options (an unknown chapter prefix, a
parameter the chapter does not declare, a bad seed) exit with status 2 before
anything runs.

Every chapter's kernel shares JAX's persistent compilation cache in ``<cache>/jax``
(:func:`compilation_cache_env`), so a program one chapter compiled is not compiled again.

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

from mmlu_audit.book.tags import FAST_TAG, tag_notebook_file
from mmlu_audit.book.device import DEVICES, jax_platforms, require_device
from mmlu_audit.core.errors import DeviceUnavailableError, ParameterError
from mmlu_audit.core.paths import cache_root, project_root
from mmlu_audit.core.seeds import check_seed

__all__ = ["FAST_TAG", "MACHINE_KEY", "chapter_parameters", "chapter_paths",
           "compilation_cache_env", "execute_chapter", "fast_values", "load_average", "main", "parse_value",
           "record_machine", "run_parameters"]

#: Notebook metadata key of the machine's state during a chapter's run (see :func:`record_machine`).
MACHINE_KEY = "mmlu_audit_machine"

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
    """
    import json

    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


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


def record_machine(path: Path, load_start: list[float] | None, load_end: list[float] | None) -> None:
    """Write the machine's CPU count and load averages at a chapter's start and end into its notebook.

    The Performance page shows them beside the chapter's time: a time measured while other work
    held the cores is not the time of an idle machine. The file is replaced atomically.
    """
    import nbformat

    path = Path(path)
    notebook = nbformat.read(path, as_version=4)
    notebook.metadata[MACHINE_KEY] = {"cpus": os.cpu_count(), "loadavg_start": load_start,
                                      "loadavg_end": load_end}
    staged = path.with_name(f".{path.name}.machine")
    nbformat.write(notebook, staged)
    staged.replace(path)


def execute_chapter(source: Path, out_dir: Path, parameters: dict, kernel: str = "python3") -> Path:
    """Execute one chapter with papermill and return the executed notebook's path.

    The notebook is written to a hidden temporary file in ``out_dir`` and renamed
    to ``NN_slug.ipynb`` only if execution succeeds. On failure the partial
    notebook becomes ``NN_slug.failed.ipynb`` and the exception propagates.
    A chapter whose parameters cell declares ``executed_dir`` is told ``out_dir``, where this
    build writes the executed chapters (the scorecard reads them; a page's downloads go there).
    The notebook's metadata records the machine's load at the start and end of the run
    (:func:`record_machine`).
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
        record_machine(Path(running), load_start, load_end)
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
        or a malformed fast overlay.
    """
    given = _command_line_values(pairs)
    declared = {source: chapter_parameters(source) for source in sources}
    unknown = [name for name in given if not any(name in names for names in declared.values())]
    if unknown:
        listing = "; ".join(f"{s.name}: {', '.join(names)}" for s, names in declared.items())
        raise ParameterError("-p", f"no selected chapter has a parameter {unknown[0]!r} ({listing})")
    out = {}
    for source, names in declared.items():
        overlay = fast_values(source) if common.get("fast") else {}
        merged = {**common, **overlay, **given}
        out[source] = {name: value for name, value in merged.items() if name in names}
    return out


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("chapters", nargs="*", help="chapter name prefixes (default: all)")
    parser.add_argument("--fast", action="store_true", help="smoke-run settings in every chapter")
    parser.add_argument("--data-source", default="simulated")
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("-p", "--parameter", nargs=2, action="append", metavar=("NAME", "VALUE"),
                        help="a chapter parameter (once per name; VALUE is a JSON literal, else a string)")
    parser.add_argument("--out", type=Path, default=project_root() / "book" / "_executed")
    parser.add_argument("--device", choices=sorted(DEVICES), default="cpu",
                        help="what JAX computes on; gpu fails at once where JAX sees no GPU")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the process exit status."""
    args = _parser().parse_args(argv)
    try:
        sources = chapter_paths(only=args.chapters)
        common = {"data_source": args.data_source, "seed": check_seed(args.seed, "--seed"), "fast": args.fast}
        parameters = run_parameters(sources, common, args.parameter)
        require_device(args.device)
    except ParameterError as exc:
        print(f"bookbuild: {exc}", file=sys.stderr)
        return 2
    except DeviceUnavailableError as exc:
        print(exc, file=sys.stderr)
        return 2
    os.environ["JAX_PLATFORMS"] = jax_platforms(args.device)  # inherited by every chapter's kernel
    # OMP_WAIT_POLICY=PASSIVE was tried: it halves the encoder's time at load ~7 but costs 5-10 % idle
    # (3,000 items: 52.4 / 55.3 s default, 57.6 / 58.4 s passive, alternated), and the book builds idle
    for name, value in compilation_cache_env(cache_root() / "jax").items():
        os.environ.setdefault(name, value)  # inherited too; a value the user set wins
    failures = []
    for source in sources:
        start = time.perf_counter()
        try:
            execute_chapter(source, args.out, parameters[source])
            status = "ok"
        except Exception as exc:  # collected and reported together below
            failures.append((source, exc))
            status = "FAILED"
        print(f"{status:>6}  {source.name}  {time.perf_counter() - start:6.1f} s", flush=True)
    for source, exc in failures:
        kept = args.out / f"{source.stem}.failed.ipynb"
        print(f"\n--- {source.name} failed (notebook kept as {kept}) ---\n{exc}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
