"""Publish the built site to a ``gh-pages`` branch, for a repository without GitHub Actions.

``make publish`` runs ``python -m mmlu_audit.book.publish``: it commits ``_build/html`` (with a
``.nojekyll`` file, so GitHub Pages serves the ``_static`` folders as they are) as the whole
content of the ``gh-pages`` branch with ``ghp-import``, the Jupyter Book convention, and pushes
that branch to the remote. The checkout's own branches and work tree are not touched. Where
Actions are available, the ``book`` workflow (``.github/workflows/book.yml``) builds and
deploys instead.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

from mmlu_audit.core.errors import DataError, MissingDependencyError
from mmlu_audit.core.paths import project_root

__all__ = ["publish", "main"]


def _ghp_import() -> str:
    """The ``ghp-import`` command of this interpreter's environment (else the one on PATH)."""
    beside = Path(sys.executable).with_name("ghp-import")
    found = str(beside) if beside.exists() else shutil.which("ghp-import")
    if found is None:
        raise MissingDependencyError("ghp-import is not installed: "
                                     "`.venv/bin/pip install -r requirements.txt`")
    return found


def publish(html: str | Path, *, repo: str | Path | None = None, remote: str = "origin",
            branch: str = "gh-pages", message: str = "Publish the book", push: bool = True) -> None:
    """Commit a built site as the content of ``branch`` and push it to ``remote``.

    Parameters
    ----------
    html : str or Path
        The built site (``_build/html``); it must hold ``index.html``.
    repo : str or Path, optional
        The git checkout whose ``branch`` is written (default: the project's).
    remote : str
        The remote to push to.
    branch : str
        The branch that holds the site (replaced by a new commit on top of its history).
    message : str
        The commit message on ``branch``.
    push : bool
        Push the branch (force) after committing; False only commits it locally.

    Raises
    ------
    DataError
        If ``html`` has no ``index.html`` (build the book first), or ``ghp-import`` fails
        (its last line is quoted).
    """
    html = Path(html).resolve()
    if not (html / "index.html").is_file():
        raise DataError(html, "holds no index.html: build the site first (`make book` or `make html`)")
    command = [_ghp_import(), "--no-jekyll", "--message", message, "--remote", remote, "--branch", branch]
    if push:
        command += ["--push", "--force"]
    done = subprocess.run([*command, str(html)], cwd=repo or project_root(), capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        last = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise DataError("ghp-import", f"failed (status {done.returncode}): {last[0]}")


def main(argv: list[str] | None = None) -> int:
    """``python -m mmlu_audit.book.publish [--html DIR] [--remote NAME] [--branch NAME]``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--html", type=Path, default=project_root() / "_build" / "html")
    parser.add_argument("--remote", default="origin")
    parser.add_argument("--branch", default="gh-pages")
    args = parser.parse_args(argv)
    try:
        publish(args.html, remote=args.remote, branch=args.branch)
    except (DataError, MissingDependencyError) as exc:
        print(f"make publish: {exc}", file=sys.stderr)
        return 2
    print(f"published {args.html} to {args.remote}/{args.branch}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
