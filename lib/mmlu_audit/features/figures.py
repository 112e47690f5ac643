"""Drawing a Weighted Symbolic Complexity Graph (used by the complexity chapter).

:func:`wscg_layout` places each vertex at (reading order, −topological generation), so
the graph reads left to right like the stem and top to bottom along its dependencies;
:func:`draw_wscg` draws it with node size and colour by tier weight and the
maximum-weight path (the one WSCG Depth sums) highlighted.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from itertools import pairwise

import matplotlib as mpl
import matplotlib.pyplot as plt
import networkx as nx
import numpy as np
import pandas as pd

from mmlu_audit.core.formatting import collapse_whitespace
from mmlu_audit.features.wscg import WSCG

__all__ = ["nearest_depth_item", "wscg_layout", "path_vertices", "draw_wscg", "draw_text_panel", "PATH_COLOR"]

PATH_COLOR = "#e76f51"


def wscg_layout(graph: WSCG) -> dict[int, tuple[float, float]]:
    """Vertex → (x, y): x is the vertex's reading order, y minus its generation.

    A vertex's generation is the number of edges on the longest edge path from a
    source to it, so every edge points strictly downwards.
    """
    nx_graph = nx.DiGraph()
    nx_graph.add_nodes_from(range(graph.n_nodes))
    nx_graph.add_edges_from((s, t) for s, t, _kind in graph.edges)
    positions = {}
    for level, generation in enumerate(nx.topological_generations(nx_graph)):
        for v in generation:
            positions[v] = (float(v), -float(level))
    return positions


def path_vertices(graph: WSCG, tiers: Mapping[str, float]) -> list[int]:
    """Vertices (not token indices) along :meth:`WSCG.longest_path`, in order."""
    vertex_of = {token: v for v, token in enumerate(graph.tokens)}
    return [vertex_of[token] for token in graph.longest_path(tiers)]


def draw_wscg(graph: WSCG, tiers: Mapping[str, float], ax=None, cmap: str = "viridis",
              label_size: float = 7.5, colorbar: bool = True):
    """Draw ``graph`` under ``tiers`` and return the axes.

    Node labels are the tokens; size and colour encode the tier weight; dependency
    edges are solid, state-tracking edges dashed; the maximum-weight path is drawn
    in :data:`PATH_COLOR` with outlined nodes.
    """
    ax = ax or plt.gca()
    nx_graph = graph.to_networkx(tiers)
    positions = wscg_layout(graph)
    weights = [nx_graph.nodes[v]["weight"] for v in nx_graph]
    top = max(tiers.values())
    norm = mpl.colors.Normalize(0.0, top)
    path = path_vertices(graph, tiers)
    on_path = set(pairwise(path))
    for kind, style in (("dependency", "solid"), ("state", "dashed")):
        edges = [(s, t) for s, t, k in nx_graph.edges(data="kind") if k == kind]
        plain = [e for e in edges if e not in on_path]
        nx.draw_networkx_edges(nx_graph, positions, edgelist=plain, ax=ax, style=style,
                               edge_color="#999999", width=0.9, arrowsize=8, node_size=200)
        nx.draw_networkx_edges(nx_graph, positions, edgelist=[e for e in edges if e in on_path],
                               ax=ax, style=style, edge_color=PATH_COLOR, width=2.6,
                               arrowsize=12, node_size=200)
    nx.draw_networkx_nodes(nx_graph, positions, ax=ax, node_color=weights, cmap=cmap,
                           vmin=0.0, vmax=top, node_size=[60 + 70 * w for w in weights],
                           edgecolors=[PATH_COLOR if v in path else "white" for v in nx_graph],
                           linewidths=[2.0 if v in path else 0.5 for v in nx_graph])
    for v, (x, y) in positions.items():
        ax.annotate(_literal(nx_graph.nodes[v]["text"]), (x, y), xytext=(0, -11), textcoords="offset points",
                    ha="center", va="top", fontsize=label_size, rotation=30,
                    color=PATH_COLOR if v in path else "#222222",
                    fontweight="bold" if v in path else "normal")
    if colorbar:
        mappable = mpl.cm.ScalarMappable(norm=norm, cmap=cmap)
        ax.figure.colorbar(mappable, ax=ax, fraction=0.03, pad=0.01, label="tier weight w(v)")
    ax.set_axis_off()
    ax.margins(x=0.04, y=0.25)
    return ax


def _literal(text: str) -> str:
    """Escape ``$`` so matplotlib never reads item text as (possibly unbalanced) mathtext."""
    return text.replace("$", r"\$")


def draw_text_panel(ax, title: str, text: str, width: int = 38, size: float = 8.5):
    """Write a wrapped item text (with a bold title) into an empty axes, verbatim (no mathtext)."""
    ax.set_axis_off()
    ax.text(0.0, 1.0, _literal(title), transform=ax.transAxes, ha="left", va="top", fontsize=size + 0.5,
            fontweight="bold")
    ax.text(0.0, 0.86, _literal(textwrap.fill(collapse_whitespace(text), width)), transform=ax.transAxes,
            ha="left", va="top", fontsize=size, family="serif")
    return ax


def nearest_depth_item(candidates: pd.DataFrame, target: float):
    """Index of the row whose ``wscg_depth`` is nearest ``target``.

    Ties go to more vertices (``wscg_nodes``), then to the earlier row, so the drawn example
    is deterministic.
    """
    gap = (candidates["wscg_depth"] - target).abs()
    order = pd.DataFrame({"gap": gap, "nodes": -candidates["wscg_nodes"], "pos": np.arange(len(gap))})
    return order.sort_values(["gap", "nodes", "pos"]).index[0]
