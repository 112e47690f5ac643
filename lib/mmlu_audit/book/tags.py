"""Fold a chapter's plumbing away in the rendered book, by convention.

Readers come for the prose, the tables and the figures; the code stays one click
away. Every executed chapter passes through :func:`tag_notebook`, so a new
chapter follows the same rules without per-cell work:

- the ``parameters`` cell stays visible, and papermill's ``injected-parameters``
  cell is folded into it (the values this run used are appended as code lines,
  under a comment) and then removed, so the page shows one parameters cell; a value that
  is an absolute path (the folder the build writes to) is named, not shown, since it
  describes the machine that built the page rather than a choice a reader makes;
- a setup cell (one whose top-level statements begin with imports) loses its
  input (``remove-input``): its outputs, such as the provenance banner, stay;
- every other code cell gets ``hide-input`` (a toggle reveals the code);
- the raw ``fast-parameters`` cell (the smoke-run overlay that ``bookbuild --fast``
  reads) is removed: it is never executed, and the parameters cell shows what ran.

A cell opts out by carrying any display tag of its own in the chapter source
(``show-input`` keeps it fully visible; ``hide-cell``, ``remove-cell`` and the
rest are left as written).
"""

from __future__ import annotations

import ast
from pathlib import Path

__all__ = ["DISPLAY_TAGS", "FAST_TAG", "cell_display_tag", "tag_notebook", "tag_notebook_file"]

#: The tag of the raw cell that holds a chapter's smoke-run values.
FAST_TAG = "fast-parameters"

#: Tags that decide how a cell is displayed; a cell with any of them is left as written.
DISPLAY_TAGS = frozenset({
    "show-input", "hide-input", "hide-output", "hide-cell",
    "remove-input", "remove-output", "remove-cell",
})

_FOLD_HEADER = "# values used in this run (set by papermill):"


def _tags(cell) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def _is_setup(source: str) -> bool:
    """True when the cell's first top-level statement is an import."""
    try:
        body = ast.parse(source).body
    except SyntaxError:  # IPython magics: not a setup cell by this rule
        return False
    return bool(body) and isinstance(body[0], (ast.Import, ast.ImportFrom))


def cell_display_tag(cell) -> str | None:
    """The display tag the convention gives one cell, or None to leave it unchanged.

    Parameters
    ----------
    cell : dict-like
        A notebook cell (``cell_type``, ``source``, ``metadata``).

    Returns
    -------
    str or None
        ``"remove-input"`` for a setup cell, ``"hide-input"`` for any other code
        cell, ``"remove-cell"`` for the fast overlay, None for markdown cells, the
        ``parameters`` cell and cells that already carry a display tag.
    """
    tags = _tags(cell)
    if FAST_TAG in tags:
        return "remove-cell"
    if cell.get("cell_type") != "code" or "parameters" in tags or DISPLAY_TAGS & set(tags):
        return None
    if "injected-parameters" in tags:
        return "remove-cell"
    return "remove-input" if _is_setup(cell.get("source", "")) else "hide-input"


def _without_machine_path(line: str) -> str:
    """``name = "/abs/path"`` as a comment naming the parameter; any other line unchanged."""
    try:
        (node,) = ast.parse(line).body
        value = ast.literal_eval(node.value) if isinstance(node, ast.Assign) else None
    except (SyntaxError, ValueError):
        return line
    if isinstance(value, str) and Path(value).is_absolute() and len(node.targets) == 1 \
            and isinstance(node.targets[0], ast.Name):
        return f"# {node.targets[0].id}: a folder on the machine that built this page"
    return line


def _fold_injected(cells: list) -> None:
    """Append the injected values to the parameters cell and hide the injected cell."""
    parameters = next((c for c in cells if "parameters" in _tags(c)), None)
    injected = next((c for c in cells if "injected-parameters" in _tags(c)), None)
    if parameters is None or injected is None:
        return
    lines = [_without_machine_path(line) for line in injected["source"].splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    if lines and _FOLD_HEADER not in parameters["source"]:
        parameters["source"] = parameters["source"].rstrip() + "\n\n" + "\n".join([_FOLD_HEADER, *lines])


def tag_notebook(notebook) -> None:
    """Apply the book's display conventions to an executed notebook, in place.

    Parameters
    ----------
    notebook : nbformat.NotebookNode
        An executed chapter (as written by papermill).
    """
    _fold_injected(notebook.cells)
    for cell in notebook.cells:
        tag = cell_display_tag(cell)
        if tag is not None:
            cell.setdefault("metadata", {}).setdefault("tags", []).append(tag)


def tag_notebook_file(path: Path) -> None:
    """Apply :func:`tag_notebook` to a notebook file, replacing it atomically."""
    import nbformat

    path = Path(path)
    notebook = nbformat.read(path, as_version=4)
    tag_notebook(notebook)
    staged = path.with_name(f".{path.name}.tagging")
    nbformat.write(notebook, staged)
    staged.replace(path)
