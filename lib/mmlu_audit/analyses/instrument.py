"""§3: the complexity instrument's descriptive checks (lexicon, tiers, partitions, prompt length).

Everything here reads item texts and their WSCGs only, no responses:
:func:`lexicon_statistics` and :func:`tier_usage` describe the lexicon's tiers and how often
each fires; :func:`partition_summary` compares the nine indicators across partitions;
:func:`example_picks` and :func:`drawn_statistics` choose and describe the drawn example
graphs; :func:`length_correlations` and :func:`clamp_sensitivity` test whether Dimension 1
is prompt length in disguise; :func:`top_tier_coverage` and :func:`flag_counts` report the
inert top tier, lexical coverage and fallbacks.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from mmlu_audit.core.errors import DataError
from mmlu_audit.core.seeds import seeded
from mmlu_audit.features import FLAGS, INDICATORS, TOP_TIER, depths, lexicon_table
from mmlu_audit.features.figures import nearest_depth_item, path_vertices
from mmlu_audit.inference import cluster_bootstrap_correlation

__all__ = ["clamp_sensitivity", "drawn_statistics", "example_picks", "flag_counts", "length_correlations",
           "lexicon_statistics", "partition_summary", "tier_usage", "top_tier_coverage"]

#: Flags that disqualify an item from being drawn as an example.
UNCLEAN = ("flag_non_english", "flag_concreteness_fallback", "flag_zipf_fallback")


def lexicon_statistics(lexicon, tiers: Mapping[str, float]) -> dict:
    """``n_lexical_categories``, ``n_symbol_members``, ``n_tiers``, ``n_active_tiers`` (weight > 0),
    ``w_min`` and ``w_max`` of a lexicon and its tier table."""
    lex = lexicon_table(lexicon)
    return {
        "n_lexical_categories": int((lex["kind"] == "lexical").sum()),
        "n_symbol_members": len(lexicon.symbolic.members),
        "n_tiers": len(tiers),
        "n_active_tiers": sum(w > 0 for w in tiers.values()),
        "w_min": min(tiers.values()), "w_max": max(tiers.values()),
    }


def tier_usage(lexicon, tiers: Mapping[str, float], graphs) -> pd.DataFrame:
    """Per tier: weight, meaning, the categories and symbolic members on it, and how often it fires.

    Returns
    -------
    DataFrame
        Index ``tier`` (the table's order); columns ``weight``, ``meaning``, ``categories and
        members``, ``vertices`` (WSCG vertices on the tier) and ``items with ≥ 1``.
    """
    lex = lexicon_table(lexicon)
    member_tiers = pd.Series(dict(lexicon.symbolic.member_tiers))
    tier_nodes = Counter(t for g in graphs for t in g.tiers)
    tier_items = Counter(t for g in graphs for t in set(g.tiers))
    on_tier = {t: [c for c, ct in zip(lex["category"], lex["tier"], strict=True) if ct == t]
               + [f"symbol {m}" for m in member_tiers.index[member_tiers == t]] for t in tiers}
    return pd.DataFrame({
        "weight": pd.Series(dict(tiers)),
        "meaning": {t: lexicon.spec["tiers"][t]["meaning"] for t in tiers},
        "categories and members": {t: ", ".join(on_tier[t]) for t in tiers},
        "vertices": pd.Series(tier_nodes).reindex(list(tiers), fill_value=0),
        "items with ≥ 1": pd.Series(tier_items).reindex(list(tiers), fill_value=0),
    }).rename_axis("tier")


def partition_summary(frame: pd.DataFrame, names: Mapping[str, str],
                      columns: Sequence[str] = INDICATORS) -> tuple[pd.DataFrame, dict]:
    """Partition means and medians of each indicator and the standardised mean difference.

    The SMD is (STEM mean − non-STEM mean) over the pooled SD (square root of the mean of
    the two partitions' variances).

    Returns
    -------
    (DataFrame, dict)
        The table (index: display names from ``names``; columns ``<partition> mean``,
        ``<partition> median``, ``SMD``) and ``n_stem``, ``n_nonstem``, ``largest_smd_name``,
        ``largest_smd`` (the largest |SMD|, signed).
    """
    columns = list(columns)
    missing = [c for c in [*columns, "partition"] if c not in frame]
    if missing:
        raise DataError("frame", f"missing columns {missing}")
    summary = frame.groupby("partition")[columns].agg(["mean", "median"]).T.unstack()
    summary.columns = [f"{part} {stat}" for part, stat in summary.columns]
    pooled_sd = np.sqrt(frame.groupby("partition")[columns].var().mean())
    summary["SMD"] = (summary["STEM mean"] - summary["non-STEM mean"]) / pooled_sd
    summary.index = [names[c] for c in summary.index]
    largest = summary["SMD"].abs().idxmax()
    return summary, {"n_stem": int((frame.partition == "STEM").sum()),
                     "n_nonstem": int((frame.partition == "non-STEM").sum()),
                     "largest_smd_name": largest, "largest_smd": summary.loc[largest, "SMD"]}


def example_picks(frame: pd.DataFrame) -> tuple[dict, dict]:
    """The three example items: shallow, deep, and the deepest STEM item of the length band.

    The band is the clean items (no flag of :data:`UNCLEAN`) within ±10 % of the median
    token count. The shallow item is the band's nearest to the 10th percentile of Depth over
    all items, the deep one nearest the 99th, the STEM one the STEM band item nearest the 99th
    (ties to more vertices, see :func:`~mmlu_audit.features.figures.nearest_depth_item`).

    Returns
    -------
    (dict, dict)
        Role → item id, and ``median_tokens``, ``depth_p10``, ``depth_p99``.
    """
    median_tokens = frame["n_tokens"].median()
    depth_p10, depth_p99 = frame["wscg_depth"].quantile([0.10, 0.99])
    clean = ~frame[list(UNCLEAN)].any(axis=1)
    band = frame[clean & ((frame["n_tokens"] - median_tokens).abs() <= 0.1 * median_tokens)]
    if not (band["partition"] == "STEM").any():
        raise DataError("frame", "the length band has no STEM item to draw")
    picks = {"shallow": nearest_depth_item(band, depth_p10), "deep": nearest_depth_item(band, depth_p99),
             "stem": nearest_depth_item(band[band.partition == "STEM"], depth_p99)}
    return picks, {"median_tokens": median_tokens, "depth_p10": depth_p10, "depth_p99": depth_p99}


def drawn_statistics(picks: Mapping[str, str], drawn: Mapping, tiers: Mapping[str, float]) -> dict:
    """``<role>_id``, ``<role>_depth``, ``<role>_nodes`` and ``<role>_path`` (the maximum-weight
    path's words) per drawn graph, and ``deep_vs_shallow_depth`` when both roles are drawn."""
    out = {}
    for role, item_id in picks.items():
        graph = drawn[role]
        out |= {f"{role}_id": item_id, f"{role}_depth": graph.depth(tiers), f"{role}_nodes": graph.n_nodes,
                f"{role}_path": " → ".join(graph.texts[v] for v in path_vertices(graph, tiers))}
    if {"deep", "shallow"} <= set(drawn):
        out["deep_vs_shallow_depth"] = drawn["deep"].depth(tiers) / drawn["shallow"].depth(tiers)
    return out


@seeded
def length_correlations(frame: pd.DataFrame, *, n_boot: int, seed) -> dict:
    """r of WSCG Nodes and of WSCG Depth with the token count, with subject-block bootstrap intervals.

    Returns ``r_nodes_tokens``, ``r_depth_tokens`` and each one's ``_lo`` / ``_hi`` 95 %
    percentile bounds; both use the same seed (the same resampled subjects).
    """
    out = {}
    for column in ("wscg_nodes", "wscg_depth"):
        key = f"r_{column.removeprefix('wscg_')}_tokens"
        r, lo, hi = cluster_bootstrap_correlation(frame[column], frame["n_tokens"], frame["subject"],
                                                  n_boot=n_boot, seed=seed)
        out |= {key: r, f"{key}_lo": lo, f"{key}_hi": hi}
    return out


def clamp_sensitivity(graphs, tiers, tokens, tier: str = "T1"):
    """What setting one tier's weight to zero does to Depth and to its correlation with length.

    Parameters
    ----------
    graphs : sequence of WSCG
    tiers : TierTable
        The default table; ``tier`` is clamped with ``tiers.with_weight(tier, 0.0)``.
    tokens : array-like
        Token count per graph.
    tier : str

    Returns
    -------
    (dict, DataFrame, ndarray, ndarray)
        ``<t>_weight``, ``<t>_share`` (share of all vertices on the tier), ``<t>_changed``
        (share of items whose Depth changes), ``r_depth_default``, ``r_depth_<t>zero`` and
        ``<t>_retained`` (their ratio), ``<t>`` the tier in lower case; the comparison table
        (mean Depth, Pearson r and Spearman ρ with tokens, per table); the default and the
        clamped Depths.
    """
    if tier not in tiers:
        raise DataError("tier", f"unknown tier {tier!r}; the table has {list(tiers)}")
    t = tier.lower()
    tokens = np.asarray(tokens)
    default, clamped = depths(graphs, tiers), depths(graphs, tiers.with_weight(tier, 0.0))
    nodes = Counter(x for g in graphs for x in g.tiers)
    stats = {
        f"{t}_weight": tiers[tier],
        f"{t}_share": nodes[tier] / sum(nodes.values()),
        f"{t}_changed": np.mean(default != clamped),
        "r_depth_default": np.corrcoef(default, tokens)[0, 1],
        f"r_depth_{t}zero": np.corrcoef(clamped, tokens)[0, 1],
    }
    stats[f"{t}_retained"] = stats[f"r_depth_{t}zero"] / stats["r_depth_default"]
    table = pd.DataFrame({
        "tier table": ["default", f"{tier} clamped to 0"],
        "mean Depth": [default.mean(), clamped.mean()],
        "r(Depth, tokens)": [stats["r_depth_default"], stats[f"r_depth_{t}zero"]],
        "Spearman ρ(Depth, tokens)": [pd.Series(d).corr(pd.Series(tokens), method="spearman")
                                      for d in (default, clamped)],
    }).set_index("tier table")
    return stats, table, default, clamped


def top_tier_coverage(items: pd.DataFrame, frame: pd.DataFrame, graphs, lexicon, tiers) -> dict:
    """The inert top tier, the next tier down, lexical coverage and fallbacks.

    Returns ``top_tier``, ``top_weight``, ``t7_weight``, ``n_top_tier_items`` and ``n_t7_items``
    (stems whose WSCG has a vertex on the tier), ``n_top_symbol_stems`` and
    ``n_top_symbol_items`` (a raw-text search for the top tier's symbols, in the stem or
    anywhere in the item), the mean coverages ``c_bry_coverage`` and ``zipf_coverage``, and the
    flag counts ``n_conc_fallback``, ``n_zipf_fallback``, ``n_non_english``, ``n_empty``.
    """
    top_symbols = [m for m, t in lexicon.symbolic.member_tiers.items() if t == TOP_TIER]
    top_pattern = re.compile("|".join(re.escape(m) + (r"(?![A-Za-z])" if m.startswith("\\") else "")
                                      for m in top_symbols))
    text_columns = ["question", "choice_a", "choice_b", "choice_c", "choice_d"]
    all_text = items[text_columns].astype(str).agg(" ".join, axis=1)
    return {
        "top_tier": TOP_TIER, "top_weight": tiers[TOP_TIER], "t7_weight": tiers["T7"],
        "n_top_tier_items": sum(g.count_tier(TOP_TIER) > 0 for g in graphs),
        "n_top_symbol_stems": int(items["question"].astype(str).str.contains(top_pattern).sum()),
        "n_top_symbol_items": int(all_text.str.contains(top_pattern).sum()),
        "n_t7_items": sum(g.count_tier("T7") > 0 for g in graphs),
        "c_bry_coverage": frame["c_bry_coverage"].mean(), "zipf_coverage": frame["zipf_coverage"].mean(),
        "n_conc_fallback": int(frame["flag_concreteness_fallback"].sum()),
        "n_zipf_fallback": int(frame["flag_zipf_fallback"].sum()),
        "n_non_english": int(frame["flag_non_english"].sum()),
        "n_empty": int(frame["flag_empty_stem"].sum()),
    }


def flag_counts(frame: pd.DataFrame, flags: Sequence[str] = FLAGS) -> pd.DataFrame:
    """Items carrying each flag, per partition (columns) and in total."""
    counts = frame.groupby("partition")[list(flags)].sum().T
    return counts.assign(total=counts.sum(axis=1))
