"""Shape checks shared by the loaders: required columns and unique identifiers."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from mmlu_audit.core.errors import DataError

__all__ = ["require_columns", "require_unique"]


def require_columns(table: pd.DataFrame, columns: Sequence[str], source: str | Path) -> None:
    """Raise one :class:`DataError` naming every column of ``columns`` that ``table`` lacks."""
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise DataError(source, f"missing column(s) {missing}; expected {list(columns)}")


def require_unique(table: pd.DataFrame, column: str, source: str | Path) -> None:
    """Raise one :class:`DataError` when ``column`` repeats a value, with the count and an example."""
    dupes = table[column][table[column].duplicated()]
    if len(dupes):
        raise DataError(source, f"{len(dupes)} duplicate {column}(s), e.g. {dupes.iloc[0]!r}")
