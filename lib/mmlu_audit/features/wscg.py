"""The Weighted Symbolic Complexity Graph (WSCG).

Vertices are the operational tokens of a parse (tokens the cognitive lexicon
claims). Edges come from two sources:

* **dependency projection** — each operational token is linked from its
  nearest operational ancestor in the dependency tree (governor → dependent);
  an operational token with no operational ancestor is a source. Because
  dependency grammars attach operators such as ``if``, ``because``, ``not`` or
  ``would`` as leaves of the clause they govern, a non-operational head is
  represented by its first operational function-word dependent (``mark``,
  ``cc``, ``advmod``, ``aux``, ``det``, ``case`` …): the clause's other
  operational tokens hang below that operator, and the operator continues the
  search above the head;
* **state tracking** — a mention (an operational noun, proper noun or
  named-entity token) in sentence *j* is linked from the most recent mention
  of the same lemma in any earlier sentence *i < j*.

The graph is acyclic by construction. Place each operational token at its
own tree node, or at its head when it is a function-word dependent of a
non-operational head. Dependency edges then run from a strictly higher node
to a lower one, or, within one node, from its representative to a later
sibling; the parse trees are validated to be acyclic and sentence-local.
State edges only point forward in sentence order, so no path can return to
an earlier sentence. A topological sort (Kahn) re-checks this on every build.

**Depth convention.** Each target node's weight is mapped onto its incoming
edge, and a path's length is the weight of its first (source) node plus the
weights of its edges; equivalently, the sum of the node weights along the
path. WSCG Depth is the maximum over all paths, so a single isolated vertex
has depth equal to its own weight and an empty graph has depth 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Mapping, Sequence

import networkx as nx
import numpy as np

from mmlu_audit.features.lexicon import TOP_TIER, Lexicon, TierTable, load_lexicon, match_categories
from mmlu_audit.features.parse import ParsedDoc

__all__ = ["WSCG", "build_wscg", "wscg_depth", "depths", "GraphBatch", "MENTION_UPOS", "FUNCTION_RELATIONS"]

MENTION_UPOS = frozenset({"NOUN", "PROPN"})
FUNCTION_RELATIONS = frozenset({"mark", "cc", "preconj", "advmod", "neg", "aux", "auxpass",
                                "det", "predet", "case", "cop", "discourse"})


@dataclass(frozen=True)
class WSCG:
    """A built graph; weights are applied late so tier tables can vary.

    Attributes
    ----------
    tokens : tuple of int
        Token index of each vertex, ascending.
    texts, labels, tiers : tuple of str
        Token text, lexicon label and tier of each vertex.
    edges : tuple of (int, int, str)
        ``(source vertex, target vertex, kind)`` with kind ``"dependency"`` or ``"state"``;
        vertex numbers index ``tokens``.
    order : tuple of int
        A topological order of the vertices.
    """

    tokens: tuple[int, ...]
    texts: tuple[str, ...]
    labels: tuple[str, ...]
    tiers: tuple[str, ...]
    edges: tuple[tuple[int, int, str], ...]
    order: tuple[int, ...]

    @property
    def n_nodes(self) -> int:
        """WSCG Nodes: the number of operational vertices."""
        return len(self.tokens)

    def weights(self, tiers: Mapping[str, float]) -> list[float]:
        """Node weights under a tier table."""
        return [float(tiers[t]) for t in self.tiers]

    def depth(self, tiers: Mapping[str, float]) -> float:
        """WSCG Depth: the maximum-weight path (source weight included)."""
        best, _ = self._longest(tiers)
        return max(best, default=0.0)

    def longest_path(self, tiers: Mapping[str, float]) -> list[int]:
        """Token indices along one maximum-weight path (ties: earliest vertex)."""
        best, previous = self._longest(tiers)
        if not best:
            return []
        node = max(range(len(best)), key=lambda v: (best[v], -v))
        path = []
        while node is not None:
            path.append(self.tokens[node])
            node = previous[node]
        return path[::-1]

    def count_tier(self, tier: str = TOP_TIER) -> int:
        """Number of vertices on ``tier``."""
        return sum(t == tier for t in self.tiers)

    def to_networkx(self, tiers: Mapping[str, float]) -> nx.DiGraph:
        """A ``networkx.DiGraph`` with node weights and target weights on edges."""
        weights = self.weights(tiers)
        graph = nx.DiGraph()
        for v, token in enumerate(self.tokens):
            graph.add_node(v, token=token, text=self.texts[v], label=self.labels[v],
                           tier=self.tiers[v], weight=weights[v])
        for source, target, kind in self.edges:
            graph.add_edge(source, target, kind=kind, weight=weights[target])
        return graph

    def _longest(self, tiers: Mapping[str, float]) -> tuple[list[float], list[int | None]]:
        """Dynamic programme over the topological order."""
        weights = self.weights(tiers)
        predecessors = _predecessors(len(self.tokens), self.edges)
        best = [0.0] * len(weights)
        previous: list[int | None] = [None] * len(weights)
        for v in self.order:
            incoming = 0.0
            for u in predecessors[v]:
                if previous[v] is None or best[u] > incoming:
                    incoming, previous[v] = best[u], u
            best[v] = weights[v] + incoming
        return best, previous


def _predecessors(n: int, edges) -> list[list[int]]:
    preds: list[list[int]] = [[] for _ in range(n)]
    for source, target, _kind in edges:
        preds[target].append(source)
    return preds


def build_wscg(doc: ParsedDoc, lexicon: Lexicon | None = None,
               labels: list[str | None] | None = None) -> WSCG:
    """Build the WSCG of one parse.

    Parameters
    ----------
    doc : ParsedDoc
        A normalised parse (hand-built or from a backend).
    lexicon : Lexicon, optional
        Defaults to the packaged lexicon.
    labels : list, optional
        Precomputed :func:`match_categories` output for ``doc``.

    Returns
    -------
    WSCG
    """
    lexicon = lexicon or load_lexicon()
    labels = match_categories(doc, lexicon) if labels is None else labels
    tokens = tuple(i for i, label in enumerate(labels) if label is not None)
    vertex_of = {token: v for v, token in enumerate(tokens)}
    edges = _dependency_edges(doc, tokens, vertex_of) + _state_edges(doc, tokens, labels)
    return WSCG(
        tokens=tokens, texts=tuple(doc.tokens[i] for i in tokens),
        labels=tuple(labels[i] for i in tokens),
        tiers=tuple(lexicon.tier_of(labels[i]) for i in tokens),
        edges=tuple(edges), order=_topological_order(len(tokens), edges),
    )


def _dependency_edges(doc: ParsedDoc, tokens, vertex_of) -> list[tuple[int, int, str]]:
    """Link each operational token from its nearest operational ancestor.

    A non-operational head is represented by its first operational function-word
    dependent (:data:`FUNCTION_RELATIONS`: ``if`` as ``mark``, ``not`` as ``advmod``,
    ``would`` as ``aux`` …), so a clause introduced by an operator hangs below that
    operator; that representative itself continues the search above its head.
    """
    representative = _clause_representatives(doc, tokens, vertex_of)
    edges = []
    for v, token in enumerate(tokens):
        node, head = token, doc.heads[token]
        if head != token and representative.get(head, token) != token and head not in vertex_of:
            edges.append((vertex_of[representative[head]], v, "dependency"))
            continue
        if representative.get(head) == token and head not in vertex_of:
            node = head  # the token stands in for its head clause
        while doc.heads[node] != node:
            node = doc.heads[node]
            proxy = node if node in vertex_of else representative.get(node)
            if proxy is not None:
                edges.append((vertex_of[proxy], v, "dependency"))
                break
    return edges


def _clause_representatives(doc: ParsedDoc, tokens, vertex_of) -> dict[int, int]:
    """Map each non-operational head to its first operational function-word dependent."""
    representative: dict[int, int] = {}
    for token in tokens:  # ascending, so the first dependent wins
        head = doc.heads[token]
        if (head != token and head not in vertex_of and head not in representative
                and doc.deprels[token].lower().split(":")[0] in FUNCTION_RELATIONS):
            representative[head] = token
    return representative


def _state_edges(doc: ParsedDoc, tokens, labels) -> list[tuple[int, int, str]]:
    """Link each re-mention from the latest mention of its lemma in an earlier sentence."""
    in_entity = set()
    for start, end, _label in doc.entities:
        in_entity.update(range(start, end))
    last_seen: dict[str, int] = {}
    current: dict[str, int] = {}
    edges = []
    sentence = 0
    for v, token in enumerate(tokens):
        if doc.sentence_ids[token] != sentence:
            last_seen.update(current)
            current, sentence = {}, doc.sentence_ids[token]
        if not _is_mention(doc, token, labels[token], in_entity):
            continue
        key = doc.lemmas[token].lower()
        if key in last_seen:
            edges.append((last_seen[key], v, "state"))
        current[key] = v
    return edges


def _is_mention(doc: ParsedDoc, token: int, label: str, in_entity: set[int]) -> bool:
    return (not label.startswith("symbolic_operator")
            and (doc.upos[token] in MENTION_UPOS or token in in_entity))


def _topological_order(n: int, edges) -> tuple[int, ...]:
    """Kahn's algorithm (smallest vertex first); raises if a cycle slipped in."""
    indegree = [0] * n
    children: list[list[int]] = [[] for _ in range(n)]
    for source, target, _kind in edges:
        indegree[target] += 1
        children[source].append(target)
    ready = [v for v in range(n) if indegree[v] == 0]
    order = []
    while ready:
        v = ready.pop()
        order.append(v)
        for child in children[v]:
            indegree[child] -= 1
            if indegree[child] == 0:
                ready.append(child)
    if len(order) != n:
        raise RuntimeError("WSCG construction produced a cycle; the parse is malformed")
    return tuple(order)


def depths(graphs: Sequence[WSCG], tiers: Mapping[str, float]) -> np.ndarray:
    """WSCG Depth of many prebuilt graphs under one tier table (robustness re-scoring).

    Building graphs is the expensive step; re-scoring 14,042 graphs under a
    perturbed tier table takes about a second.
    """
    return np.array([graph.depth(tiers) for graph in graphs], dtype=float)


class GraphBatch:
    """Many prebuilt graphs as one flat DAG, re-scored under many tier tables at once.

    All vertices are concatenated, each edge is renumbered, and every vertex gets a
    level: 0 for a source, otherwise one more than its deepest predecessor. A vertex's
    best path weight needs only those of lower levels, so the longest-path dynamic
    programme of :meth:`WSCG.depth` runs level by level, vectorised over vertices and
    over tier tables: ``best[v] = w[v] + max(best[u] for u → v)`` (0 without
    predecessors), and an item's depth is the maximum of ``best`` over its vertices.

    Parameters
    ----------
    graphs : sequence of WSCG
    tier_names : sequence of str
        The tiers, in the column order of the weight matrices passed to :meth:`depths`.
    """

    def __init__(self, graphs: Sequence[WSCG], tier_names: Sequence[str]):
        self.tier_names = tuple(tier_names)
        column = {t: j for j, t in enumerate(self.tier_names)}
        sizes = np.array([g.n_nodes for g in graphs], dtype=np.int64)
        self.offsets = np.concatenate([[0], np.cumsum(sizes)])
        self.n_items = len(graphs)
        self.tier_index = np.array([column[t] for g in graphs for t in g.tiers], dtype=np.int64)
        sources, targets = [], []
        for g, start in zip(graphs, self.offsets[:-1], strict=True):
            for source, target, _kind in g.edges:
                sources.append(start + source)
                targets.append(start + target)
        self._levels = [(level_sources, *_first_of_each_target(level_targets))
                        for level_sources, level_targets in _edge_levels(
                            len(self.tier_index), np.array(sources, dtype=np.int64),
                            np.array(targets, dtype=np.int64))]

    def depths(self, weights) -> np.ndarray:
        """WSCG Depth of every graph under every row of ``weights``.

        Parameters
        ----------
        weights : array-like, shape (n_tables, n_tiers)
            One tier table per row, columns in ``tier_names`` order.

        Returns
        -------
        ndarray, shape (n_tables, n_items)
        """
        weights = np.atleast_2d(np.asarray(weights, dtype=float))
        if weights.shape[1] != len(self.tier_names):
            raise ValueError(f"weights need {len(self.tier_names)} columns (one per tier), "
                             f"got {weights.shape[1]}")
        out = np.zeros((weights.shape[0], self.n_items))
        nonempty = self.offsets[1:] > self.offsets[:-1]
        if not nonempty.any():  # no vertex at all: every depth is 0
            return out
        starts = self.offsets[:-1][nonempty]
        # one table at a time: its vectors (one float a vertex) stay in cache across the levels;
        # all tables at once, (vertices × tables) arrays of ~1.7 GB for MMLU's 309,359 vertices
        # and 701 tables were gathered level by level, 17× slower (50.6 s against 2.9 s)
        for k, table in enumerate(weights):
            node_weight = table[self.tier_index]
            best = node_weight.copy()
            for sources, first, targets in self._levels:
                best[targets] = node_weight[targets] + np.maximum.reduceat(best[sources], first)
            out[k, nonempty] = np.maximum.reduceat(best, starts)
        return out


def _first_of_each_target(targets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For edges sorted by target: where each target's run starts, and that target."""
    _, first = np.unique(targets, return_index=True)
    return first, targets[first]


def _edge_levels(n_vertices: int, sources: np.ndarray, targets: np.ndarray):
    """Edges grouped by their target's level, each group sorted by target."""
    level = np.zeros(n_vertices, dtype=np.int64)
    changed = True
    while changed:  # longest-path levels by relaxation; at most (longest path) sweeps
        proposed = np.zeros(n_vertices, dtype=np.int64)
        np.maximum.at(proposed, targets, level[sources] + 1)
        changed = bool(np.any(proposed > level))
        level = np.maximum(level, proposed)
    edge_level = level[targets]
    groups = []
    for value in np.unique(edge_level):
        chosen = np.flatnonzero(edge_level == value)
        chosen = chosen[np.argsort(targets[chosen], kind="stable")]
        groups.append((sources[chosen], targets[chosen]))
    return groups


def wscg_depth(doc: ParsedDoc, tiers: Mapping[str, float] | TierTable | None = None,
               lexicon: Lexicon | None = None) -> float:
    """Convenience: build the graph of ``doc`` and return its depth under ``tiers``."""
    lexicon = lexicon or load_lexicon()
    return build_wscg(doc, lexicon).depth(tiers or lexicon.tiers)
