"""Plain-text renderings of results shared by the analyses and the book's prose, and the one
whitespace normaliser of the package."""

from __future__ import annotations

import re

__all__ = ["P_LABEL_SPLIT", "P_OF_EVENT", "collapse_whitespace", "is_p_label", "names_where"]

#: What splits a table label into words; a label is a p-value's (:func:`is_p_label`) when one of
#: its words is "p": ``p``, ``p_cr2``, ``mann_whitney_p``, ``p (HTZ)``, ``Holm p``, ``p-value``. The
#: site check (:mod:`mmlu_audit.book.sitecheck`) splits rendered headers with the same pattern.
P_LABEL_SPLIT = r"[\s_()\[\],:;/-]+"
#: Words after "p" that make it a probability of an event, not a test's p-value: ``p_correct`` (a
#: share of models correct) and ``p_gold`` (a model's probability of the gold answer) are shares.
P_OF_EVENT = frozenset({"correct", "gold"})


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


def is_p_label(label) -> bool:
    """Whether a table's column or row ``label`` names a p-value (one of its words is "p",
    not followed by a word of :data:`P_OF_EVENT`).

    Parameters
    ----------
    label : str, tuple or object
        A column or index label; of a tuple (a MultiIndex) the last level counts.
    """
    if isinstance(label, tuple):
        label = label[-1] if label else ""
    words = re.split(P_LABEL_SPLIT, str(label))
    return any(word == "p" and (k + 1 == len(words) or words[k + 1] not in P_OF_EVENT)
               for k, word in enumerate(words))
