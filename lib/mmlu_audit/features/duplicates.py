"""Question-level duplicates: items whose stems are the same text, and how their option sets relate.

The option-set covariates (:mod:`mmlu_audit.features.baselines`) look inside one item; a
benchmark's copied questions and questions re-issued with a cut-down option set are relations
*between* items, which no within-item feature can see. :func:`duplicate_pairs` finds them by
exact comparison of normalised text (lower case, whitespace runs collapsed, ends stripped): it
catches verbatim copies, not paraphrases. :func:`duplicate_pairs` lists every pair, so its size
grows with the square of a group of same-stem items (4,000 copies of one stem: 8 million rows);
:func:`duplicate_summary` gives the per-item columns and the pair counts in memory linear in the
items, grouping stems by a hash of their normalised text (what the ``audit`` command uses).

Relations of a pair with the same normalised stem:

* ``"same options"``: the two normalised option sets are equal (a duplicate question);
* ``"nested options"``: one set is a strict subset of the other (a redundant option set);
* ``"other options"``: the sets differ otherwise.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_right
from collections import defaultdict
from itertools import combinations

import numpy as np
import pandas as pd

from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.core.formatting import collapse_whitespace

__all__ = ["RELATIONS", "normalise_text", "duplicate_pairs", "copies_to_fix", "duplicate_columns",
           "duplicate_summary"]

RELATIONS = ("same options", "nested options", "other options")


def normalise_text(text) -> str:
    """``text`` lower-cased, with whitespace runs collapsed to one space and the ends stripped."""
    return collapse_whitespace(str(text).lower())


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
        One row per pair (quadratic in the size of a same-stem group; see
        :func:`duplicate_summary` for a bounded alternative), in item order: ``first``,
        ``second`` (ids, ``first`` earlier in ``items``), ``relation`` (one of
        :data:`RELATIONS`) and ``subset`` (the id of the item with the smaller option set for
        ``"nested options"``, else None).

    Raises
    ------
    DataError
        If a column is missing or the ids repeat.
    """
    _check_items(items, id_column)
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


def _check_items(items: pd.DataFrame, id_column: str) -> None:
    missing = [c for c in ("question", "options", id_column) if c not in items]
    if missing:
        raise DataError("items", f"missing column(s) {missing}")
    if items[id_column].duplicated().any():
        raise DataError("items", f"{id_column} repeats, so pairs could not be named")


def _stem_groups(questions) -> list[list[int]]:
    """Positions of items with the same normalised stem (groups of two or more), by a hash of it."""
    groups = defaultdict(list)
    for position, question in enumerate(questions):
        digest = hashlib.blake2b(normalise_text(question).encode("utf-8"), digest_size=16).digest()
        groups[digest].append(position)
    return [members for members in groups.values() if len(members) > 1]


def _group_relations(members: list[int], option_sets: list[frozenset]):
    """One stem group: each member's copy and container positions, and its pair counts."""
    by_set = defaultdict(list)  # option set -> member positions in item order
    for position in members:
        by_set[option_sets[position]].append(position)
    copy_of = {p: firsts[0] for firsts in by_set.values() for p in firsts[1:]}
    same = sum(len(ps) * (len(ps) - 1) // 2 for ps in by_set.values())
    nested, container = 0, {}
    distinct = sorted(by_set, key=len)
    sizes = [len(option_set) for option_set in distinct]
    for small in distinct:  # a strict subset is shorter: compare with the longer sets only
        for large in distinct[bisect_right(sizes, len(small)):]:
            if small < large:
                nested += len(by_set[small]) * len(by_set[large])
                for p in by_set[small]:  # the earliest item whose set contains this one's
                    container[p] = min(container.get(p, by_set[large][0]), by_set[large][0])
    total = len(members) * (len(members) - 1) // 2
    return copy_of, container, {RELATIONS[0]: same, RELATIONS[1]: nested, RELATIONS[2]: total - same - nested}


def duplicate_summary(items: pd.DataFrame, id_column: str = "item_id") -> tuple[pd.DataFrame, dict[str, int]]:
    """:func:`duplicate_columns` of :func:`duplicate_pairs` and the pair counts, without the pairs.

    Same-stem items are grouped by a hash (BLAKE2b, 128 bits) of the normalised stem, and within
    a group by option set, so memory grows with the number of items and of distinct option sets,
    never with the number of pairs (4,000 items of one stem: a few seconds and megabytes).

    Parameters
    ----------
    items : DataFrame
        ``question``, ``options`` (a list per item) and ``id_column``.
    id_column : str
        Column naming the items.

    Returns
    -------
    columns : DataFrame
        Exactly :func:`duplicate_columns` ``(duplicate_pairs(items), items[id_column])``.
    counts : dict
        Number of pairs of each relation in :data:`RELATIONS`.

    Raises
    ------
    DataError
        If a column is missing or the ids repeat.
    """
    _check_items(items, id_column)
    ids = items[id_column].tolist()
    option_sets = [frozenset(map(normalise_text, options)) for options in items["options"]]
    copies, containers = [None] * len(ids), [None] * len(ids)
    counts = dict.fromkeys(RELATIONS, 0)
    for members in _stem_groups(items["question"]):
        copy_of, container, group_counts = _group_relations(members, option_sets)
        for position, original in copy_of.items():
            copies[position] = ids[original]
        for position, larger in container.items():
            containers[position] = ids[larger]
        counts = {relation: counts[relation] + group_counts[relation] for relation in RELATIONS}
    columns = pd.DataFrame({"duplicate_of": pd.Series(copies, dtype=object).to_numpy(),
                            "options_nested_in": pd.Series(containers, dtype=object).to_numpy()},
                           index=pd.Index(ids))
    return columns, counts
