"""Execute the py:percent chapters with papermill, ready for Jupyter Book to render.

Usage::

    python -m mmlu_audit.bookbuild [--fast] [--data-source simulated] [--seed 0]
                                   [--device cpu|gpu] [CHAPTER ...]

Each ``chapters/NN_slug.py`` is converted in memory with jupytext, executed by
papermill with the given parameters, and written to ``book/_executed/NN_slug.ipynb``.
Every chapter runs even if an earlier one fails; failures are reported
together at the end (the failed notebook is kept for inspection) and the exit
status is non-zero.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from .booktags import tag_notebook_file
from .device import DEVICES, jax_platforms, require_device
from .errors import DeviceUnavailableError
from .paths import project_root

__all__ = ["OUT_ENV", "chapter_paths", "execute_chapter", "main"]

#: Set while a chapter executes: the folder its executed notebook is written to.
OUT_ENV = "MMLU_AUDIT_EXECUTED"


def chapter_paths(root: Path | None = None, only: list[str] | None = None) -> list[Path]:
    """The chapter sources in book order, optionally filtered by name prefix."""
    root = root or project_root()
    paths = sorted((root / "chapters").glob("[0-9][0-9]_*.py"))
    if only:
        paths = [p for p in paths if any(p.stem.startswith(o) for o in only)]
    return paths


def _declares(notebook, name: str) -> bool:
    """Whether the notebook's ``parameters`` cell assigns ``name``."""
    return any(line.split("=")[0].strip() == name
               for cell in notebook.cells if "parameters" in cell.metadata.get("tags", [])
               for line in cell.source.splitlines() if "=" in line)


def execute_chapter(source: Path, out_dir: Path, parameters: dict, kernel: str = "python3") -> Path:
    """Execute one chapter with papermill and return the executed notebook's path.

    A chapter whose parameters cell declares ``executed_dir`` (the scorecard, which reads
    the other executed chapters) is told ``out_dir``, where this build writes them.
    """
    import jupytext
    import papermill

    notebook = jupytext.read(source)
    notebook.metadata.pop("jupytext", None)  # the executed copy is not paired
    if _declares(notebook, "executed_dir") and "executed_dir" not in parameters:
        parameters = {**parameters, "executed_dir": str(Path(out_dir).resolve())}
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{source.stem}.ipynb"
    os.environ[OUT_ENV] = str(out_dir.resolve())  # files a page links to go beside it
    with tempfile.TemporaryDirectory() as scratch:
        staged = Path(scratch) / f"{source.stem}.ipynb"
        jupytext.write(notebook, staged, fmt="ipynb")
        papermill.execute_notebook(str(staged), str(target), parameters=parameters,
                                   kernel_name=kernel, cwd=str(source.parent),
                                   progress_bar=False)
    tag_notebook_file(target)
    return target


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the process exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("chapters", nargs="*", help="chapter name prefixes (default: all)")
    parser.add_argument("--fast", action="store_true", help="smoke-run settings in every chapter")
    parser.add_argument("--data-source", default="simulated")
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--out", type=Path, default=project_root() / "book" / "_executed")
    parser.add_argument("--device", choices=sorted(DEVICES), default="cpu",
                        help="what JAX computes on; gpu fails at once where JAX sees no GPU")
    args = parser.parse_args(argv)
    try:
        require_device(args.device)
    except DeviceUnavailableError as exc:
        print(exc, file=sys.stderr)
        return 2
    os.environ["JAX_PLATFORMS"] = jax_platforms(args.device)  # inherited by every chapter's kernel

    parameters = {"data_source": args.data_source, "seed": args.seed, "fast": args.fast}
    failures = []
    for source in chapter_paths(only=args.chapters):
        start = time.perf_counter()
        try:
            execute_chapter(source, args.out, parameters)
            status = "ok"
        except Exception as exc:  # collected and reported together below
            failures.append((source.name, exc))
            status = "FAILED"
        print(f"{status:>6}  {source.name}  {time.perf_counter() - start:6.1f} s", flush=True)
    for name, exc in failures:
        print(f"\n--- {name} failed ---\n{exc}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
