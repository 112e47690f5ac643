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

``-p NAME VALUE`` (repeatable) sets a chapter-specific parameter; ``VALUE`` is
read as a YAML literal (``3``, ``0.5``, ``true``, ``[0.9, 0.95]``, ``helm20``),
and ``NAME`` must be declared in the parameters cell of every selected chapter.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from mmlu_audit.book.tags import tag_notebook_file
from mmlu_audit.book.device import DEVICES, jax_platforms, require_device
from mmlu_audit.core.errors import DeviceUnavailableError, ParameterError
from mmlu_audit.core.paths import project_root
from mmlu_audit.core.seeds import check_seed

__all__ = ["chapter_paths", "chapter_parameters", "execute_chapter", "main", "parse_value"]

#: Parameters every chapter takes, set by their own options rather than ``-p``.
COMMON = {"data_source": "--data-source", "seed": "--seed", "fast": "--fast"}


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


def _declares(notebook, name: str) -> bool:
    """Whether the notebook's ``parameters`` cell assigns ``name``."""
    return any(line.split("=")[0].strip() == name
               for cell in notebook.cells if "parameters" in cell.metadata.get("tags", [])
               for line in cell.source.splitlines() if "=" in line)


def parse_value(text: str):
    """Read a command-line parameter value as a YAML literal, as papermill's ``-y`` does."""
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ParameterError("-p", f"{text!r} is not a YAML value ({getattr(exc, 'problem', exc)})") from None


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


def execute_chapter(source: Path, out_dir: Path, parameters: dict, kernel: str = "python3") -> Path:
    """Execute one chapter with papermill and return the executed notebook's path.

    The notebook is written to a hidden temporary file in ``out_dir`` and renamed
    to ``NN_slug.ipynb`` only if execution succeeds. On failure the partial
    notebook becomes ``NN_slug.failed.ipynb`` and the exception propagates.
    A chapter whose parameters cell declares ``executed_dir`` is told ``out_dir``, where this
    build writes the executed chapters (the scorecard reads them; a page's downloads go there).
    """
    import jupytext
    import papermill

    notebook = _notebook(source)
    if _declares(notebook, "executed_dir") and "executed_dir" not in parameters:
        parameters = {**parameters, "executed_dir": str(Path(out_dir).resolve())}
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{source.stem}.ipynb"
    failed = out_dir / f"{source.stem}.failed.ipynb"
    fd, running = tempfile.mkstemp(prefix=f".{source.stem}.", suffix=".running.ipynb", dir=out_dir)
    os.close(fd)
    try:
        with tempfile.TemporaryDirectory() as scratch:
            staged = Path(scratch) / f"{source.stem}.ipynb"
            jupytext.write(notebook, staged, fmt="ipynb")
            papermill.execute_notebook(str(staged), running, parameters=parameters,
                                       kernel_name=kernel, cwd=str(source.parent),
                                       progress_bar=False)
        tag_notebook_file(Path(running))
    except BaseException:
        if os.path.getsize(running):
            os.replace(running, failed)
        else:  # papermill stopped before writing anything
            os.unlink(running)
        raise
    os.replace(running, target)
    failed.unlink(missing_ok=True)  # our own record of an earlier failure, now stale
    return target


def _chapter_overrides(pairs: list[list[str]] | None, sources: list[Path]) -> dict:
    """Parse ``-p NAME VALUE`` pairs and check every selected chapter declares them."""
    overrides = {}
    for name, text in pairs or []:
        if name in COMMON:
            raise ParameterError("-p", f"{name!r} is set for every chapter: use {COMMON[name]}")
        overrides[name] = parse_value(text)
    if overrides:
        for source in sources:
            declared = chapter_parameters(source)
            for name in overrides:
                if name not in declared:
                    raise ParameterError("-p", f"{source.name} has no parameter {name!r} "
                                               f"(it declares: {', '.join(declared)})")
    return overrides


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("chapters", nargs="*", help="chapter name prefixes (default: all)")
    parser.add_argument("--fast", action="store_true", help="smoke-run settings in every chapter")
    parser.add_argument("--data-source", default="simulated")
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("-p", "--parameter", nargs=2, action="append", metavar=("NAME", "VALUE"),
                        help="a chapter-specific parameter (repeatable; VALUE is a YAML literal)")
    parser.add_argument("--out", type=Path, default=project_root() / "book" / "_executed")
    parser.add_argument("--device", choices=sorted(DEVICES), default="cpu",
                        help="what JAX computes on; gpu fails at once where JAX sees no GPU")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the process exit status."""
    args = _parser().parse_args(argv)
    try:
        sources = chapter_paths(only=args.chapters)
        parameters = {"data_source": args.data_source, "seed": check_seed(args.seed, "--seed"),
                      "fast": args.fast, **_chapter_overrides(args.parameter, sources)}
        require_device(args.device)
    except ParameterError as exc:
        print(f"bookbuild: {exc}", file=sys.stderr)
        return 2
    except DeviceUnavailableError as exc:
        print(exc, file=sys.stderr)
        return 2
    os.environ["JAX_PLATFORMS"] = jax_platforms(args.device)  # inherited by every chapter's kernel
    failures = []
    for source in sources:
        start = time.perf_counter()
        try:
            execute_chapter(source, args.out, parameters)
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
