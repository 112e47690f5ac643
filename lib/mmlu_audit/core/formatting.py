"""Plain-text renderings of results shared by the analyses and the book's prose."""

from __future__ import annotations

__all__ = ["names_where"]


def names_where(flags, empty: str = "none") -> str:
    """The index labels where ``flags`` is True, comma-separated, in order; ``empty`` if none.

    Parameters
    ----------
    flags : Series of bool
    empty : str
    """
    flags = flags.astype(bool)
    return ", ".join(str(name) for name in flags.index[flags.to_numpy()]) or empty
