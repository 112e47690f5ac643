"""The book's chapters, known by their MyST labels rather than by file numbers.

Every chapter source opens with its label (``# (chap-pooled)=``). The library names a chapter by
that label — the registries of results, the discussion's evidence, the scorecard's short names,
the build's start order — and this module maps it to the chapter's file, so renumbering the files
changes nothing here. A label that no chapter declares is an error, not a silent miss.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from mmlu_audit.core.errors import ParameterError
from mmlu_audit.core.paths import project_root

__all__ = ["NOT_REAL_FIRST", "READERS", "REAL_FIRST", "chapter_label", "chapter_labels", "chapter_stem",
           "declared_label", "in_book_order",
           "reader_stems"]

#: The line that declares a chapter's label, the first of its first markdown cell.
LABEL_LINE = re.compile(r"^# \((chap-[a-z0-9-]+)\)=[ \t]*$", re.MULTILINE)

#: Pages that read the other chapters' glued values rather than compute results: they run after
#: every other chapter, one at a time, and no registry reads a value from them.
READERS = ("chap-discussion", "chap-scorecard", "chap-performance")

#: Chapters of §3–§5 and the appendices that open with what the real responses say (a
#: ``(sec-…-real)=`` section) and only then check the method on the page's own source, under its
#: banner, in a ``(sec-…-check)=`` section.
REAL_FIRST = ("chap-calibration", "chap-pooled", "chap-stratified", "chap-homogeneity",
              "chap-reasoning-sensitivity", "chap-native-interaction", "chap-interaction-bootstrap",
              "chap-rank-stability",
              "chap-appendix-a", "chap-appendix-b", "chap-appendix-c", "chap-appendix-c-explanatory",
              "chap-appendix-d")

#: The other chapters of those parts, and why they do not open that way.
NOT_REAL_FIRST = {
    "chap-complexity": "every figure is computed from the real item texts: there is no simulated part",
    "chap-validity": "it studies the methods on simulated worlds, by design",
}


@lru_cache(maxsize=4)
def chapter_labels(root: Path | None = None) -> dict[str, str]:
    """Label → file stem of every chapter under ``root / "chapters"``, in book (file-name) order.

    Raises
    ------
    ParameterError
        If a chapter declares no label, or two declare the same one.
    """
    folder = (root or project_root()) / "chapters"
    labels: dict[str, str] = {}
    for path in sorted(folder.glob("[0-9][0-9]_*.py")):
        label = declared_label(path)
        if label is None:
            raise ParameterError("chapter", f"{path.name} declares no `(chap-…)=` label")
        if label in labels:
            raise ParameterError("chapter", f"{path.name} and {labels[label]}.py both declare ({label})=")
        labels[label] = path.stem
    return labels


def declared_label(source: Path) -> str | None:
    """The label a chapter source declares (its ``# (chap-…)=`` line); None when it declares none."""
    found = LABEL_LINE.search(Path(source).read_text(encoding="utf-8"))
    return None if found is None else found.group(1)


def chapter_stem(label: str, root: Path | None = None) -> str:
    """The file stem of the chapter labelled ``label`` (``"chap-pooled"`` → ``"05_pooled"``)."""
    labels = chapter_labels(root)
    try:
        return labels[label]
    except KeyError:
        raise ParameterError("chapter", f"no chapter declares the label {label!r} "
                                        f"(labels: {', '.join(labels)})") from None


def chapter_label(stem: str, root: Path | None = None) -> str | None:
    """The label of the chapter whose file stem is ``stem`` (suffixes after a dot ignored); None if none."""
    base = stem.split(".")[0]
    return next((label for label, own in chapter_labels(root).items() if own == base), None)


def reader_stems(root: Path | None = None) -> tuple[str, ...]:
    """File stems of the :data:`READERS` pages."""
    return tuple(chapter_stem(label, root) for label in READERS)


def in_book_order(labels, root: Path | None = None) -> tuple[str, ...]:
    """The distinct ``labels`` sorted as their chapters appear in the book."""
    return tuple(sorted(set(labels), key=lambda label: chapter_stem(label, root)))
