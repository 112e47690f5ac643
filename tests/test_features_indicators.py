"""The nine indicators on small inputs with known values."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from wordfreq import zipf_frequency

from mmlu_audit.features import DIMENSIONS, INDICATORS, ParsedDoc, indicator_table, load_lexicon
from mmlu_audit.features.indicators import (
    brysbaert_norms,
    clausal_embedding_depth,
    concreteness,
    english_share,
    fill_lexical_fallbacks,
    mean_dependency_distance,
    nominalisation_rate,
    stem_indicators,
    zipf_rarity,
)

LEXICON = load_lexicon()

NESTED_CONDITIONAL = ParsedDoc.from_sentences([[
    ("cars", "car", "NOUN", 2, "nsubj"), ("crash", "crash", "VERB", 0, "root"),
    ("if", "if", "SCONJ", 5, "mark"), ("roads", "road", "NOUN", 5, "nsubj"),
    ("freeze", "freeze", "VERB", 2, "advcl"), ("because", "because", "SCONJ", 8, "mark"),
    ("clouds", "cloud", "NOUN", 8, "nsubj"), ("form", "form", "VERB", 5, "advcl"),
    (".", ".", "PUNCT", 2, "punct"),
]])


def _doc(words, upos, entities=()):
    """One sentence whose tokens all attach to the first."""
    tokens = [(w, w.lower(), p, 1 if i else 0, "dep" if i else "root")
              for i, (w, p) in enumerate(zip(words, upos, strict=True))]
    return ParsedDoc.from_sentences([tokens], entities)


def test_table_one_covers_five_dimensions_with_nine_indicators():
    table = indicator_table()
    assert tuple(table["column"]) == INDICATORS and len(INDICATORS) == 9
    assert set(table["dimension"]) == set(DIMENSIONS)
    assert table[["definition", "grounding"]].apply(lambda c: c.str.len().gt(30)).all().all()


def test_mean_dependency_distance_skips_roots_and_punctuation():
    # cars→crash 1, if→freeze 2, roads→freeze 1, freeze→crash 3, because→form 2,
    # clouds→form 1, form→freeze 3; the full stop is ignored.
    assert mean_dependency_distance(NESTED_CONDITIONAL) == pytest.approx(13 / 7)
    assert mean_dependency_distance(ParsedDoc.from_sentences([])) == 0.0


def test_clausal_embedding_depth_counts_stacked_clauses():
    assert clausal_embedding_depth(NESTED_CONDITIONAL) == 2
    assert clausal_embedding_depth(_doc(["a", "b"], ["NOUN", "NOUN"])) == 0


def test_logic_density_counts_scope_bearing_operators_per_word():
    values = stem_indicators(NESTED_CONDITIONAL, LEXICON)
    assert values["d_logic"] == pytest.approx(2 / 8)  # "if", "because"; 8 words
    plain = _doc(["cats", "and", "dogs", "not"], ["NOUN", "CCONJ", "NOUN", "PART"])
    assert stem_indicators(plain, LEXICON)["d_logic"] == pytest.approx(1 / 4)  # "not" only


def test_nominalisation_rate():
    doc = _doc(["information", "flows", "quickly", "city"], ["NOUN", "VERB", "ADV", "NOUN"])
    assert nominalisation_rate(doc) == pytest.approx(1 / 4)  # "city" is too short


def test_entity_density_is_spans_per_word():
    doc = _doc(["Marie", "Curie", "won", "twice", "."], ["PROPN", "PROPN", "VERB", "ADV",
                                                        "PUNCT"], entities=[(0, 2, "PERSON")])
    assert stem_indicators(doc, LEXICON)["d_ner"] == pytest.approx(1 / 4)


def test_concreteness_uses_brysbaert_norms_and_reports_coverage():
    norms = brysbaert_norms()
    assert len(norms) == 39_954
    doc = _doc(["apple", "justice", "eigenvalue"], ["NOUN", "NOUN", "NOUN"])
    result = concreteness(doc)
    assert result["c_bry"] == pytest.approx((norms["apple"] + norms["justice"]) / 2)
    assert result["c_bry_coverage"] == pytest.approx(2 / 3)


def test_zipf_rarity_is_ceiling_minus_mean_zipf_of_known_content_words():
    doc = _doc(["apple", "xqzzyv", "the"], ["NOUN", "NOUN", "DET"])
    result = zipf_rarity(doc)
    assert result["zipf_rarity"] == pytest.approx(7.0 - zipf_frequency("apple", "en"))
    assert result["zipf_coverage"] == pytest.approx(1 / 2)


def test_english_share_separates_english_from_german():
    english = _doc("The cat sat on the mat".split(), ["DET", "NOUN", "VERB", "ADP", "DET",
                                                      "NOUN"])
    german = _doc("Der Hund läuft schnell über die Straße".split(), ["PROPN"] * 7)
    assert english_share(english)["english_share"] == 1.0
    assert english_share(german)["english_share"] < 0.5


def test_empty_stem_gives_defined_values():
    values = stem_indicators(ParsedDoc.from_sentences([]), LEXICON)
    finite = {k: v for k, v in values.items() if k not in ("c_bry", "zipf_rarity")}
    assert all(math.isfinite(v) for v in finite.values())
    assert math.isnan(values["c_bry"]) and math.isnan(values["zipf_rarity"])


def test_fallback_fills_population_mean_and_flags():
    raw = pd.DataFrame({"c_bry": [2.0, np.nan, 4.0], "zipf_rarity": [np.nan, 1.0, 3.0]})
    filled = fill_lexical_fallbacks(raw)
    assert filled["c_bry"].tolist() == [2.0, 3.0, 4.0]
    assert filled["zipf_rarity"].tolist() == [2.0, 1.0, 3.0]
    assert filled["flag_concreteness_fallback"].tolist() == [False, True, False]
    assert filled["flag_zipf_fallback"].tolist() == [True, False, False]
    nothing = fill_lexical_fallbacks(pd.DataFrame({"c_bry": [np.nan], "zipf_rarity": [np.nan]}))
    assert nothing.notna().all().all()


def test_indicators_are_deterministic():
    first = stem_indicators(NESTED_CONDITIONAL, LEXICON)
    assert stem_indicators(NESTED_CONDITIONAL, load_lexicon()) == first
