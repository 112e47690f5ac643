"""Plain-text renderings of results shared by the analyses and the book's prose, and the one
whitespace normaliser of the package."""

from __future__ import annotations

__all__ = ["collapse_whitespace", "names_where"]


def names_where(flags, empty: str = "none") -> str:
    """The index labels where ``flags`` is True, comma-separated, in order; ``empty`` if none.

    Parameters
    ----------
    flags : Series of bool
    empty : str
    """
    flags = flags.astype(bool)
    return ", ".join(str(name) for name in flags.index[flags.to_numpy()]) or empty


def collapse_whitespace(text) -> str:
    """``str(text)`` with its ends stripped and each inner whitespace run cut to one space.

    Whitespace is what :meth:`str.split` splits on (Unicode whitespace: tabs, newlines,
    no-break spaces and the rest), so ``"  a\tb \n c "`` becomes ``"a b c"``.

    Parameters
    ----------
    text : str or object
        Anything; a non-string is converted with ``str`` first.

    Returns
    -------
    str
    """
    return " ".join(str(text).split())
