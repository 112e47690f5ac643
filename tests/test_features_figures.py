"""Drawing helpers for the WSCG: layout respects edge direction, the path is the scored one."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from mmlu_audit.features import ParsedDoc, build_wscg, load_lexicon  # noqa: E402
from mmlu_audit.features.figures import (  # noqa: E402
    PATH_COLOR,
    draw_text_panel,
    draw_wscg,
    path_vertices,
    wscg_layout,
)

LEXICON = load_lexicon()
TIERS = LEXICON.tiers

# "cars crash if roads freeze because clouds form" (as in test_features_wscg).
NESTED_CONDITIONAL = [[
    ("cars", "car", "NOUN", 2, "nsubj"), ("crash", "crash", "VERB", 0, "root"),
    ("if", "if", "SCONJ", 5, "mark"), ("roads", "road", "NOUN", 5, "nsubj"),
    ("freeze", "freeze", "VERB", 2, "advcl"), ("because", "because", "SCONJ", 8, "mark"),
    ("clouds", "cloud", "NOUN", 8, "nsubj"), ("form", "form", "VERB", 5, "advcl"),
]]


@pytest.fixture(scope="module")
def graph():
    return build_wscg(ParsedDoc.from_sentences(NESTED_CONDITIONAL), LEXICON)


def test_layout_places_every_vertex_and_edges_point_down(graph):
    positions = wscg_layout(graph)
    assert sorted(positions) == list(range(graph.n_nodes))
    for source, target, _kind in graph.edges:
        assert positions[source][1] > positions[target][1]
    assert [positions[v][0] for v in range(graph.n_nodes)] == list(range(graph.n_nodes))


def test_path_vertices_sum_to_the_depth(graph):
    path = path_vertices(graph, TIERS)
    weights = graph.weights(TIERS)
    assert sum(weights[v] for v in path) == pytest.approx(graph.depth(TIERS))
    assert [graph.texts[v] for v in path] == ["if", "because", "clouds"]


def test_draw_labels_every_token_and_highlights_the_path(graph):
    fig, (left, right) = plt.subplots(1, 2)
    draw_text_panel(left, "item", "cars crash if roads freeze because clouds form")
    ax = draw_wscg(graph, TIERS, ax=right)
    labels = {t.get_text(): t for t in ax.texts}
    assert set(labels) == set(graph.texts)
    assert labels["because"].get_color() == PATH_COLOR
    assert labels["cars"].get_color() != PATH_COLOR
    plt.close(fig)


def test_empty_graph_draws_without_error():
    empty = build_wscg(ParsedDoc.from_sentences([[("hello", "hello", "INTJ", 0, "root")]]), LEXICON)
    assert empty.n_nodes == 0
    fig, ax = plt.subplots()
    draw_wscg(empty, TIERS, ax=ax, colorbar=False)
    plt.close(fig)


def test_dollar_signs_are_drawn_verbatim(graph):
    fig, ax = plt.subplots()
    draw_text_panel(ax, "item", "Let $f(x)=3x$ and cost $5")
    fig.canvas.draw()  # an unbalanced $ would raise if parsed as mathtext
    assert any(r"\$f(x)=3x\$" in t.get_text() for t in ax.texts)
    plt.close(fig)


def test_nearest_depth_item_breaks_ties_by_vertices_then_order():
    import pandas as pd

    from mmlu_audit.features.figures import nearest_depth_item

    rows = pd.DataFrame({"wscg_depth": [2.0, 4.0, 6.0, 6.0], "wscg_nodes": [5, 9, 3, 7]},
                        index=["a", "b", "c", "d"])
    assert nearest_depth_item(rows, 2.4) == "a"
    assert nearest_depth_item(rows, 5.0) == "b"  # 4 and 6 tie on the gap: b has the most vertices
    assert nearest_depth_item(rows, 6.2) == "d"
