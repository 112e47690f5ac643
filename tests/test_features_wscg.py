"""The Weighted Symbolic Complexity Graph on hand-built and random parses."""

from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mmlu_audit.features import ParsedDoc, build_wscg, load_lexicon, match_categories

LEXICON = load_lexicon()
TIERS = LEXICON.tiers

# "cars crash if roads freeze because clouds form": a conditional whose antecedent
# carries its own causal clause (if → because → clouds, depth 4 + 4 + 0.5).
NESTED_CONDITIONAL = [[
    ("cars", "car", "NOUN", 2, "nsubj"), ("crash", "crash", "VERB", 0, "root"),
    ("if", "if", "SCONJ", 5, "mark"), ("roads", "road", "NOUN", 5, "nsubj"),
    ("freeze", "freeze", "VERB", 2, "advcl"), ("because", "because", "SCONJ", 8, "mark"),
    ("clouds", "cloud", "NOUN", 8, "nsubj"), ("form", "form", "VERB", 5, "advcl"),
]]
# "apples and pears and plums and figs ripen": a flat coordination (UD style).
CONJUNCTION_LIST = [[
    ("apples", "apple", "NOUN", 8, "nsubj"), ("and", "and", "CCONJ", 3, "cc"),
    ("pears", "pear", "NOUN", 1, "conj"), ("and", "and", "CCONJ", 5, "cc"),
    ("plums", "plum", "NOUN", 1, "conj"), ("and", "and", "CCONJ", 7, "cc"),
    ("figs", "fig", "NOUN", 1, "conj"), ("ripen", "ripen", "VERB", 0, "root"),
]]


def _sentence(*words):
    """A sentence whose tokens all attach to the last one (a verb root)."""
    tokens = [(w, w.lower(), "PROPN", len(words), "nsubj") for w in words[:-1]]
    return tokens + [(words[-1], words[-1], "VERB", 0, "root")]


def _graph(sentences, entities=()):
    return build_wscg(ParsedDoc.from_sentences(sentences, entities), LEXICON)


def test_nested_causal_conditional_is_deeper_than_a_conjunction_list():
    nested, flat = _graph(NESTED_CONDITIONAL), _graph(CONJUNCTION_LIST)
    assert nested.depth(TIERS) == pytest.approx(4.0 + 4.0 + 0.5)
    assert flat.depth(TIERS) == pytest.approx(0.5 + 0.5 + 1.0)
    assert flat.n_nodes > nested.n_nodes  # more nodes, yet shallower


def test_longest_path_follows_the_nested_operators():
    doc = ParsedDoc.from_sentences(NESTED_CONDITIONAL)
    path = build_wscg(doc, LEXICON).longest_path(TIERS)
    assert [doc.tokens[i] for i in path] == ["if", "because", "clouds"]


def test_state_edge_only_for_a_later_sentence_re_mention():
    across = _graph([_sentence("Paris", "shines"), _sentence("Paris", "grows")])
    assert [k for _s, _t, k in across.edges] == ["state"]
    within = _graph([_sentence("Paris", "Paris", "shines")])
    assert within.edges == ()
    assert across.depth(TIERS) == pytest.approx(1.0)  # 0.5 + 0.5 through the state edge


def test_state_edge_links_the_most_recent_earlier_sentence():
    graph = _graph([_sentence("Rome", "falls"), _sentence("Rome", "rises"),
                    _sentence("Rome", "waits")])
    state = [(graph.tokens[s], graph.tokens[t]) for s, t, k in graph.edges if k == "state"]
    assert state == [(0, 2), (2, 4)]
    assert graph.depth(TIERS) == pytest.approx(1.5)


def test_named_entity_tokens_are_mentions_even_when_not_nouns():
    sentences = [[("1990", "1990", "NUM", 0, "root")], [("1990", "1990", "NUM", 0, "root")]]
    assert _graph(sentences).edges == ()
    tagged = _graph(sentences, entities=[(0, 1, "DATE"), (1, 2, "DATE")])
    assert [k for _s, _t, k in tagged.edges] == ["state"]


def test_depth_conventions_for_empty_and_single_node_graphs():
    assert _graph([]).depth(TIERS) == 0.0 and _graph([]).n_nodes == 0
    lone = _graph([[("because", "because", "SCONJ", 0, "root")]])
    assert lone.n_nodes == 1 and lone.depth(TIERS) == 4.0


def test_tier_perturbation_changes_depth_as_expected():
    graph = _graph(NESTED_CONDITIONAL)
    assert graph.depth(TIERS.shifted("T7", 1.0)) == pytest.approx(5.0 + 5.0 + 0.5)
    assert graph.depth(TIERS.with_weight("T1", 0.0)) == pytest.approx(8.0)
    assert graph.depth(TIERS.shifted("T2", 1.0)) == graph.depth(TIERS)
    assert graph.n_nodes == 5  # node count does not depend on weights


def test_clamping_the_noun_tier_flattens_pure_noun_chains():
    flat = _graph(CONJUNCTION_LIST)
    assert flat.depth(TIERS.with_weight("T1", 0.0)) == pytest.approx(1.0)


def test_top_tier_count_and_networkx_export():
    doc = ParsedDoc.from_sentences([[("Find", "find", "VERB", 0, "root"),
                                     ("\u222b", "\u222b", "SYM", 1, "dobj"),
                                     ("f", "f", "NOUN", 2, "dep")]])
    graph = build_wscg(doc, LEXICON)
    assert graph.count_tier("T8") == 1
    exported = graph.to_networkx(TIERS)
    assert exported.nodes[0]["weight"] == 5.0
    assert exported.edges[0, 1]["weight"] == 0.5  # the target's weight sits on the edge


# ---------------------------------------------------------------- property-based

VOCABULARY = ["if", "because", "and", "or", "not", "all", "which", "x", "=", "3", "cat",
              "Paris", "would", "compute", "\\int", "than", "it", "the", "runs"]
UPOS = ["NOUN", "PROPN", "VERB", "SCONJ", "CCONJ", "NUM", "SYM", "ADJ", "DET", "PRON"]
DEPRELS = ["nsubj", "obj", "mark", "cc", "advmod", "aux", "det", "advcl", "conj", "dep"]


@st.composite
def random_parses(draw):
    """Random valid parses: random trees per sentence, random labels and entity spans."""
    sentences = []
    for n in draw(st.lists(st.integers(1, 7), max_size=4)):
        order = draw(st.permutations(range(n)))
        heads = {order[0]: 0}
        for k in range(1, n):
            heads[order[k]] = order[draw(st.integers(0, k - 1))] + 1
        sentences.append([(w, w.lower(), draw(st.sampled_from(UPOS)), heads[i],
                           "root" if heads[i] == 0 else draw(st.sampled_from(DEPRELS)))
                          for i, w in enumerate(draw(st.lists(st.sampled_from(VOCABULARY),
                                                              min_size=n, max_size=n)))])
    total = sum(map(len, sentences))
    spans = []
    if total:
        for start in draw(st.lists(st.integers(0, total - 1), max_size=3, unique=True)):
            spans.append((start, start + 1, "ENT"))
    return ParsedDoc.from_sentences(sentences, sorted(spans))


def _reference_depth(graph, tiers) -> float:
    """Longest path by networkx: a super-source with an edge of weight w(v) into every v."""
    exported = graph.to_networkx(tiers)
    for v, data in list(exported.nodes(data=True)):
        exported.add_edge("source", v, weight=data["weight"])
    return nx.dag_longest_path_length(exported, weight="weight") if graph.n_nodes else 0.0


PROPERTY_SETTINGS = settings(max_examples=150, deadline=None,
                             suppress_health_check=[HealthCheck.too_slow])


@PROPERTY_SETTINGS
@given(random_parses())
def test_wscg_is_always_a_dag_with_one_vertex_per_operational_token(doc):
    labels = match_categories(doc, LEXICON)
    graph = build_wscg(doc, LEXICON, labels)
    exported = graph.to_networkx(TIERS)
    assert nx.is_directed_acyclic_graph(exported)
    assert graph.n_nodes == sum(label is not None for label in labels)
    incoming = [t for _s, t, k in graph.edges if k == "dependency"]
    assert len(incoming) == len(set(incoming))  # at most one dependency parent
    for s, t, kind in graph.edges:
        s_sent, t_sent = (doc.sentence_ids[graph.tokens[v]] for v in (s, t))
        assert (s_sent == t_sent) if kind == "dependency" else (s_sent < t_sent)


@PROPERTY_SETTINGS
@given(random_parses())
def test_depth_matches_networkx_longest_path(doc):
    graph = build_wscg(doc, LEXICON)
    assert graph.depth(TIERS) == pytest.approx(_reference_depth(graph, TIERS))
    weights = graph.weights(TIERS)
    if weights:
        assert max(weights) <= graph.depth(TIERS) <= sum(weights) + 1e-9


@PROPERTY_SETTINGS
@given(random_parses(), st.sampled_from(list(TIERS)), st.floats(0.0, 3.0))
def test_raising_a_tier_never_lowers_depth(doc, tier, delta):
    graph = build_wscg(doc, LEXICON)
    assert graph.depth(TIERS.shifted(tier, delta)) >= graph.depth(TIERS) - 1e-12


def test_depths_rescore_prebuilt_graphs():
    from mmlu_audit.features import depths

    graphs = [_graph(NESTED_CONDITIONAL), _graph(CONJUNCTION_LIST), _graph([])]
    assert depths(graphs, TIERS).tolist() == [8.5, 2.0, 0.0]
    assert depths(graphs, TIERS.with_weight("T1", 0.0)).tolist() == [8.0, 1.0, 0.0]
