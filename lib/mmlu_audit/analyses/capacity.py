"""The retrieval- and reasoning-capacity indices the paper recommends reporting beside a score.

Both are computable from item text before any model is evaluated: each is the mean z-score
of two of the nine stem indicators (:data:`INDEX_DEFINITIONS`), standardised on a reference
item set (by default the benchmark being audited).
"""

from __future__ import annotations

import warnings

import pandas as pd

from mmlu_audit.core.errors import DataError
from mmlu_audit.core.scaling import standardise

__all__ = ["INDEX_DEFINITIONS", "REASONING_INDICATORS", "RETRIEVAL_INDICATORS", "capacity_indices"]

#: Factual-obscurity indicators: how much the item asks to *retrieve* (named entities, rare words).
RETRIEVAL_INDICATORS = ("d_ner", "zipf_rarity")
#: Sequential-reasoning and logical-nesting indicators: how much the item asks to *derive*.
REASONING_INDICATORS = ("wscg_depth", "d_logic")
INDEX_DEFINITIONS = {
    "retrieval_index": (
        "Retrieval capacity: the mean of the z-scores of named-entity density (d_ner) and "
        "word rarity (zipf_rarity, 7 − mean Zipf frequency) of the stem. High = the item leans "
        "on recalling specific, rare facts."),
    "reasoning_index": (
        "Reasoning capacity: the mean of the z-scores of WSCG depth (wscg_depth, the "
        "tier-weighted longest chain of cognitive operations) and logical-operator density "
        "(d_logic) of the stem. High = the item asks for a longer chain of derivation."),
}

def capacity_indices(features: pd.DataFrame, reference: pd.DataFrame | None = None) -> pd.DataFrame:
    """The retrieval- and reasoning-capacity indices (:data:`INDEX_DEFINITIONS`).

    Parameters
    ----------
    features : DataFrame
        At least the columns of :data:`RETRIEVAL_INDICATORS` and :data:`REASONING_INDICATORS`.
    reference : DataFrame, optional
        The items whose mean and SD standardise each indicator (default: ``features``
        itself, so the indices are relative to the benchmark being audited).

    Returns
    -------
    DataFrame
        ``retrieval_index`` and ``reasoning_index``, indexed like ``features``.

    An indicator with no spread in the reference (a benchmark without a single logical
    operator) cannot separate its items: it adds zero to every item's index, with a warning.

    Raises
    ------
    DataError
        If an indicator is missing, or the reference has fewer than two items.
    """
    reference = features if reference is None else reference
    if len(reference) < 2:
        raise DataError("features", f"the reference has {len(reference)} item(s); the indices are "
                        "z-scores and need at least two items")
    out = pd.DataFrame(index=features.index)
    for name, columns in (("retrieval_index", RETRIEVAL_INDICATORS),
                          ("reasoning_index", REASONING_INDICATORS)):
        zs = []
        for column in columns:
            if column not in features.columns or column not in reference.columns:
                raise DataError("features", f"missing indicator {column!r} for {name}")
            _, mean, sd = standardise(reference[column], return_moments=True)
            if not sd > 0:
                warnings.warn(f"{column!r} takes one value ({mean:g}) on every reference item; it "
                              f"adds nothing to {name}", RuntimeWarning, stacklevel=2)
                zs.append(pd.Series(0.0, index=features.index))
                continue
            zs.append((features[column].astype(float) - mean) / sd)
        out[name] = sum(zs) / len(zs)
    return out
