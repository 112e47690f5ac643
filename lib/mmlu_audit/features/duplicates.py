"""Question-level duplicates: items whose stems are the same text, and how their option sets relate.

The option-set covariates (:mod:`mmlu_audit.features.baselines`) look inside one item; a
benchmark's copied questions and questions re-issued with a cut-down option set are relations
*between* items, which no within-item feature can see. :func:`duplicate_pairs` finds them by
exact comparison of normalised text (lower case, whitespace runs collapsed, ends stripped): it
catches verbatim copies, not paraphrases.

Relations of a pair with the same normalised stem:

* ``"same options"``: the two normalised option sets are equal (a duplicate question);
* ``"nested options"``: one set is a strict subset of the other (a redundant option set);
* ``"other options"``: the sets differ otherwise.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from mmlu_audit.core.errors import DataError, ParameterError

__all__ = ["RELATIONS", "normalise_text", "duplicate_pairs", "copies_to_fix", "duplicate_columns"]

RELATIONS = ("same options", "nested options", "other options")


def normalise_text(text) -> str:
    """``text`` lower-cased, with whitespace runs collapsed to one space and the ends stripped."""
    return " ".join(str(text).lower().split())


def _relation(first: frozenset, second: frozenset) -> str:
    if first == second:
        return RELATIONS[0]
    if first < second or second < first:
        return RELATIONS[1]
    return RELATIONS[2]


def duplicate_pairs(items: pd.DataFrame, id_column: str = "item_id") -> pd.DataFrame:
    """Every pair of items with the same normalised question, and the relation of their options.

    Parameters
    ----------
    items : DataFrame
        ``question``, ``options`` (a list per item) and ``id_column``.
    id_column : str
        Column naming the items in the result.

    Returns
    -------
    DataFrame
        One row per pair, in item order: ``first``, ``second`` (ids, ``first`` earlier in
        ``items``), ``relation`` (one of :data:`RELATIONS`) and ``subset`` (the id of the item
        with the smaller option set for ``"nested options"``, else None).

    Raises
    ------
    DataError
        If a column is missing or the ids repeat.
    """
    missing = [c for c in ("question", "options", id_column) if c not in items]
    if missing:
        raise DataError("items", f"missing column(s) {missing}")
    if items[id_column].duplicated().any():
        raise DataError("items", f"{id_column} repeats, so pairs could not be named")
    stems = items["question"].map(normalise_text)
    option_sets = [frozenset(map(normalise_text, options)) for options in items["options"]]
    ids = items[id_column].tolist()
    rows = []
    for positions in pd.Series(range(len(items))).groupby(stems.to_numpy()).groups.values():
        for i, j in combinations(sorted(positions), 2):
            relation = _relation(option_sets[i], option_sets[j])
            subset = None
            if relation == RELATIONS[1]:
                subset = ids[i] if option_sets[i] < option_sets[j] else ids[j]
            rows.append((ids[i], ids[j], relation, subset))
    pairs = pd.DataFrame(rows, columns=["first", "second", "relation", "subset"])
    pairs["subset"] = pd.Series([row[3] for row in rows], dtype=object)  # None stays None
    order = {item_id: k for k, item_id in enumerate(ids)}
    return pairs.sort_values(["first", "second"], key=lambda s: s.map(order)).reset_index(drop=True)


def copies_to_fix(pairs: pd.DataFrame, ids, relation: str) -> np.ndarray:
    """Whether each of ``ids`` is the copy a pair of ``relation`` asks to fix.

    That is the later item (``second``) of a ``"same options"`` pair, and the item with the
    smaller option set (``subset``) of a ``"nested options"`` pair: the items a maintainer
    would edit, one per pair.

    Raises
    ------
    ParameterError
        If ``relation`` is not ``"same options"`` or ``"nested options"``.
    """
    if relation not in RELATIONS[:2]:
        raise ParameterError("relation", f"must be one of {RELATIONS[:2]}, not {relation!r}")
    chosen = pairs.loc[pairs["relation"] == relation, "second" if relation == RELATIONS[0] else "subset"]
    return np.isin(np.asarray(ids), chosen.to_numpy())


def duplicate_columns(pairs: pd.DataFrame, ids) -> pd.DataFrame:
    """Per item, the earlier item it copies and the item whose options contain its own.

    Parameters
    ----------
    pairs : DataFrame
        From :func:`duplicate_pairs` over the items ``ids``.
    ids : sequence
        The item ids, in item order.

    Returns
    -------
    DataFrame
        Indexed by ``ids``: ``duplicate_of`` (the first id of the earliest ``"same options"``
        pair whose later member the item is) and ``options_nested_in`` (the other id of the
        first ``"nested options"`` pair in which the item has the smaller set); None elsewhere.
    """
    ids = list(ids)
    same = pairs[pairs["relation"] == RELATIONS[0]]
    copies = same.drop_duplicates("second").set_index("second")["first"]
    nested = pairs[pairs["relation"] == RELATIONS[1]]
    larger = nested["first"].where(nested["subset"] != nested["first"], nested["second"])
    containers = pd.Series(larger.to_numpy(), index=nested["subset"].to_numpy())
    containers = containers[~containers.index.duplicated()]
    out = pd.DataFrame({"duplicate_of": pd.Series(ids).map(copies).to_numpy(dtype=object),
                        "options_nested_in": pd.Series(ids).map(containers).to_numpy(dtype=object)},
                       index=pd.Index(ids))
    return out.where(out.notna(), None)
