"""The cognitive lexicon: structure, tiers, matching and hashing."""

from __future__ import annotations

import pytest

from mmlu_audit.features import ParsedDoc, TierTable, lexicon_table, load_lexicon, match_categories
from helpers import WhitespaceBackend


@pytest.fixture(scope="module")
def lexicon():
    return load_lexicon()


def _labels(text: str, lexicon) -> dict[str, str | None]:
    doc = WhitespaceBackend().parse(text)
    return dict(zip(doc.tokens, match_categories(doc, lexicon), strict=True))


def test_thirteen_lexical_categories_plus_one_symbolic_class(lexicon):
    kinds = [c.kind for c in lexicon.categories]
    assert kinds.count("lexical") == 13 and kinds.count("symbolic") == 1


def test_eight_active_tiers_in_range(lexicon):
    weights = sorted(lexicon.tiers.values())
    assert len(set(weights)) == 8
    assert weights[0] == 0.5 and weights[-1] == 5.0
    used = {lexicon.tier_of(c.name) for c in lexicon.categories}
    used |= set(lexicon.symbolic.member_tiers.values())
    assert used == set(lexicon.tiers)


def test_paper_tier_anchors(lexicon):
    weight = lambda label: lexicon.tiers[lexicon.tier_of(label)]  # noqa: E731
    assert weight("entity") == 0.5
    assert weight("boolean_conjunction") == 1.0
    assert weight("causal_conditional") == 4.0
    for symbol in ("\\int", "\\nabla", "\u222b", "\u2207"):
        assert weight(f"symbolic_operator:{symbol}") == 5.0


def test_every_category_is_documented(lexicon):
    table = lexicon_table(lexicon)
    assert len(table) == 14
    assert table["grounding"].str.len().gt(40).all()
    assert table["n_members"].gt(0).all()


def test_word_phrase_and_pos_matching(lexicon):
    labels = _labels("If Alice runs then Bob walks as well as 3 dogs", lexicon)
    assert labels["If"] == "causal_conditional"
    assert labels["then"] == "temporal_sequence"
    assert labels["well"] is None  # consumed by the phrase "as well as"
    doc = WhitespaceBackend().parse("cats as well as dogs")
    assert match_categories(doc, lexicon) == ["entity", "boolean_conjunction", None, None,
                                              "entity"]
    assert labels["3"] == "numeral"
    assert labels["Alice"] == "entity" and labels["dogs"] == "entity"
    assert labels["runs"] == "entity"  # toy backend tags every word a noun


def test_latex_symbols_are_found_on_raw_text_even_when_split(lexicon):
    doc = WhitespaceBackend().parse("Find \\int_0^1 f and \\nabla g")
    labels = match_categories(doc, lexicon)
    hit = {doc.tokens[i]: label for i, label in enumerate(labels) if label and label.startswith("symbolic")}
    assert hit["int_0"] == "symbolic_operator:\\int"
    assert hit["nabla"] == "symbolic_operator:\\nabla"


def test_hyphen_and_slash_count_only_between_operands(lexicon):
    words = _labels("a well - known and / or result", lexicon)
    assert words["-"] is None and words["/"] is None
    maths = _labels("3 - 2 / x = 1", lexicon)
    assert maths["-"].startswith("symbolic") and maths["/"].startswith("symbolic")
    assert maths["="] == "symbolic_operator:="


def test_latex_prefixes_do_not_match_longer_commands(lexicon):
    labels = _labels("\\left ( x \\top", lexicon)
    assert not any(label and label.startswith("symbolic") for label in labels.values())


def test_hash_changes_with_members_and_is_stable(lexicon):
    assert load_lexicon().hash == lexicon.hash
    assert lexicon.with_members("negation", ["nay"]).hash != lexicon.hash


def test_tier_table_perturbation_helpers(lexicon):
    tiers = lexicon.tiers
    assert tiers.with_weight("T1", 0.0)["T1"] == 0.0
    assert tiers.shifted("T2", -5.0)["T2"] == 0.0
    assert tiers.shifted("T7", 1.0)["T7"] == 5.0
    assert tiers.digest() != tiers.with_weight("T1", 0.0).digest()
    with pytest.raises(ValueError):
        TierTable({"T1": -1.0})
    with pytest.raises(KeyError):
        tiers.with_weight("T9", 1.0)


def test_symbol_on_a_token_outranks_words(lexicon):
    doc = ParsedDoc.from_sentences([[("x^2", "x^2", "NOUN", 0, "root")]])
    assert match_categories(doc, lexicon) == ["symbolic_operator:^"]


def test_prose_slashes_and_unicode_minus(lexicon):
    prose = _labels("who uses I / me / my pronouns", lexicon)
    assert prose["/"] is None
    assert _labels("dx / dt", lexicon)["/"] == "symbolic_operator:/"
    assert _labels("4 \u2212 3", lexicon)["\u2212"] == "symbolic_operator:\u2212"


def test_elementary_unicode_operators_share_the_ascii_tier(lexicon):
    tier = lambda s: lexicon.tier_of(f"symbolic_operator:{s}")  # noqa: E731
    assert tier("\u00d7") == tier("*") == tier("\u2264") == tier("<") == "T4"
    assert tier("\\frac") == "T6" and tier("\\sum") == "T7" and tier("\\int") == "T8"
