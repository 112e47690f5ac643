# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# (chap-complexity)=
# # The complexity instrument: nine indicators and the WSCG
#
# Paper §3. Item complexity is measured by nine indicators on five dimensions, computed
# deterministically from the question stem alone. Dimension 1, sequential reasoning, comes from
# the Weighted Symbolic Complexity Graph (WSCG): a node-weighted DAG over the operational tokens
# of the stem's dependency parse, whose maximum-weight path is WSCG Depth. This chapter shows
# the instrument, draws it for real items, and rechecks the paper's claims about it: the
# correlations of Nodes and Depth with prompt length, the indicators' VIF range, the inert top
# tier, and what clamping the lowest tier does.

# %% tags=["parameters"]
data_source = "simulated"  # unused here: this chapter reads item texts only (uniform interface)
seed = 20240601  # seed of the subject-block bootstrap of the correlations
fast = False  # smoke run: shorter shared fits, plus this chapter's fast-parameters below
n_boot = 2000  # subject-block bootstrap replicates for the correlation intervals

# %% [raw] tags=["fast-parameters"]
# n_boot = 200

# %%


import html
from itertools import pairwise

import matplotlib.pyplot as plt
import networkx as nx
import numpy as np
import pandas as pd
from IPython.display import display

from mmlu_audit import load_items
from mmlu_audit.features import (INDICATORS, build_feature_table, default_tiers, indicator_table, item_graphs,
                                 lexicon_table, load_lexicon)
from mmlu_audit.features.figures import draw_text_panel, draw_wscg, path_vertices
from mmlu_audit.inference import vif
from mmlu_audit.analyses.instrument import (clamp_sensitivity, drawn_statistics, example_picks, flag_counts,
                                            length_correlations, lexicon_statistics, partition_summary, tier_usage,
                                            top_tier_coverage)
from mmlu_audit.core.paper import paper_table
from mmlu_audit.book.plots import PARTITION_COLORS, figure_title, use_style
from mmlu_audit.book.report import ITEMS_LABEL, finding_checks, glue_figure, glue_values, text_banner

use_style()
pd.set_option("display.max_colwidth", None)
items = load_items()
lexicon = load_lexicon()
tiers = default_tiers()
features = build_feature_table(items, progress=False)
prov = features.attrs["provenance"]
frame = features.join(items.set_index("item_id")[["subject", "partition", "question"]])
graphs = item_graphs(items, lexicon=lexicon, progress=False)

versions = ", ".join(f"{k} {v}" for k, v in prov["packages"].items())
text_banner(
    "Real item texts only — no responses",
    f"Everything on this page is computed from the {len(items):,} real MMLU question stems "
    "(options only where stated); no model response or difficulty estimate is used, so the "
    f"<code>data_source</code> parameter (<code>{html.escape(data_source)}</code>) does not affect it. "
    f"Parser: <code>{html.escape(prov['parser_backend'])}</code> {html.escape(prov['parser_library_version'])}, "
    f"model <code>{html.escape(prov['parser_model'])}</code> {html.escape(prov['parser_model_version'])}; "
    f"lexicon {html.escape(prov['lexicon_version'])} (sha256 {prov['lexicon_sha256'][:12]}…); "
    f"norms and readability: {html.escape(versions)}.")

# %% [markdown]
# The paper parses with Stanza; this book's default backend is
# {glue:text}`parser_backend` {glue:text}`parser_version` with the model
# {glue:text}`parser_model` (a Stanza backend is available in the library and changes the cache
# key, never the code path).

# %%
glue_values({"parser_backend": prov["parser_backend"], "parser_version": prov["parser_library_version"],
             "parser_model": f"{prov['parser_model']} {prov['parser_model_version']}"})

# %% [markdown]
# ## Table 1: the nine indicators
#
# The {glue:text}`n_indicators` indicators on {glue:text}`n_dimensions` dimensions, with their
# definitions and the cognitive or linguistic grounding that motivates each. Every one is computed from the stem alone; the
# option set enters only the separate covariates of Appendix B.

# %%
table1 = indicator_table()
glue_values({"n_indicators": len(table1), "n_dimensions": table1["dimension"].nunique()})
table1.set_index("name")

# %% [markdown]
# ## The cognitive lexicon and its tiers
#
# A token is an operational WSCG vertex when the cognitive lexicon claims it: the lexicon has
# {glue:text}`n_lexical_categories` lexical categories plus a symbolic-operator class
# ({glue:text}`n_symbol_members` LaTeX and Unicode members, plus the ASCII operators). Each
# category sits on one of {glue:text}`n_tiers` weight tiers, all {glue:text}`n_active_tiers`
# with a positive weight, from {glue:text}`w_min:.1f` to {glue:text}`w_max:.1f`; within the
# symbolic class, individual members (fractions, sums, integrals) carry their own tier.

# %%
lex = lexicon_table(lexicon)
lexicon_stats = lexicon_statistics(lexicon, tiers)
glue_values(lexicon_stats)
display(lex.set_index("category"))

# %% [markdown]
# The tier table below lists, for each tier, its weight and meaning, which categories (and
# symbolic members) sit on it, and how often it fires in the {glue:text}`n_items_all:,` stems:
# the number of WSCG vertices on the tier and the number of items with at least one.

# %%
tier_table = tier_usage(lexicon, tiers, graphs)
glue_values({"n_items_all": len(items)})
tier_table

# %% [markdown]
# ## The indicators by partition
#
# The distributions of the nine indicators in STEM ({glue:text}`n_stem:,` items) and non-STEM
# ({glue:text}`n_nonstem:,` items), each panel clipped to its 0.5–99.5 % range. The table
# gives partition means and medians and the standardised mean difference
# (STEM − non-STEM, pooled SD). The largest contrast is in
# {glue:text}`largest_smd_name` (SMD = {glue:text}`largest_smd:.2f`).

# %%
names = dict(zip(table1["column"], table1["name"], strict=True))
fig, axes = plt.subplots(3, 3, figsize=(7.5, 7.5))
for ax, column in zip(axes.flat, INDICATORS, strict=True):
    low, high = frame[column].quantile([0.005, 0.995])
    bins = np.linspace(low, high, 40)
    if column == "clause_depth":
        bins = np.arange(low - 0.5, high + 1.5)
    elif column == "wscg_depth":
        bins = np.arange(low - 0.25, high + 0.75, 0.5)  # Depth moves in half-weight steps
    elif column == "wscg_nodes":
        low, bins = 1, np.unique(np.round(np.geomspace(1, high + 1, 30))) - 0.5  # log x; 0 shown at 1
        ax.set_xscale("log")
    for part, colour in PARTITION_COLORS.items():
        ax.hist(frame.loc[frame.partition == part, column].clip(low, high), bins=bins, density=True,
                alpha=0.55, color=colour, label=part)
    ax.set_title(names[column] + (" (log x)" if column == "wscg_nodes" else ""), fontsize=9)
axes[0, 0].legend()
figure_title(fig, "Nine complexity indicators by partition (real item texts)")
fig.tight_layout()
glue_figure("fig_indicators", fig)

# %% [markdown]
# {numref}`fig-indicators` overlays the two partitions' distributions.
#
# ```{glue:figure} fig_indicators
# :name: fig-indicators
#
# The nine complexity indicators by partition (densities, each clipped to its 0.5–99.5 % range).
# Real item texts.
# ```

# %%
summary, summary_stats = partition_summary(frame, names)
glue_values(summary_stats)
summary.round(3)

# %% [markdown]
# ## The WSCG of real items
#
# Two items of median stem length ({glue:text}`median_tokens:.0f` tokens, within ±10 %, no
# lexical fallback, English) are drawn: the one whose Depth is nearest the population's 10th
# percentile ({glue:text}`depth_p10:.1f`; ties go to more vertices) and the one nearest its
# 99th percentile ({glue:text}`depth_p99:.1f`). A third, the STEM item in the same length band
# nearest the 99th percentile, shows the symbolic-operator class. Vertex colour and size give
# the tier weight; dashed edges are state-tracking edges; the highlighted path is the
# maximum-weight path whose node weights sum to Depth.
#
# | item | Depth | Nodes | path |
# |---|---|---|---|
# | {glue:text}`shallow_id` | {glue:text}`shallow_depth:.1f` | {glue:text}`shallow_nodes:.0f` | {glue:text}`shallow_path` |
# | {glue:text}`deep_id` | {glue:text}`deep_depth:.1f` | {glue:text}`deep_nodes:.0f` | {glue:text}`deep_path` |
# | {glue:text}`stem_id` | {glue:text}`stem_depth:.1f` | {glue:text}`stem_nodes:.0f` | {glue:text}`stem_path` |
#
# The shallow item has {glue:text}`shallow_nodes:.0f` vertices and the deep one
# {glue:text}`deep_nodes:.0f`, yet the deep item's Depth is {glue:text}`deep_vs_shallow_depth:.1f`
# times the shallow one's: Depth counts chained operators, not tokens.

# %%
picks, band_stats = example_picks(frame)
position = {item_id: i for i, item_id in enumerate(items["item_id"])}
drawn = {}
for role, item_id in picks.items():
    graph = graphs[position[item_id]]
    drawn[role] = graph
    fig, (text_ax, graph_ax) = plt.subplots(1, 2, figsize=(7.5, 3.6), width_ratios=[1, 2.6])
    draw_text_panel(text_ax, f"{item_id} ({frame.loc[item_id, 'partition']})", frame.loc[item_id, "question"])
    draw_wscg(graph, tiers, ax=graph_ax)
    graph_ax.set_title(f"Depth {graph.depth(tiers):.1f} · Nodes {graph.n_nodes}", fontsize=9)
    glue_figure(f"fig_wscg_{role}", fig)

drawn_stats = band_stats | drawn_statistics(picks, drawn, tiers)
glue_values(drawn_stats)

# %% [markdown]
# {numref}`fig-wscg-shallow`, {numref}`fig-wscg-deep` and {numref}`fig-wscg-stem` draw the three
# graphs.
#
# ```{glue:figure} fig_wscg_shallow
# :name: fig-wscg-shallow
#
# The shallow item ({glue:text}`shallow_id`): stem text and its WSCG.
# ```
#
# ```{glue:figure} fig_wscg_deep
# :name: fig-wscg-deep
#
# The deep item ({glue:text}`deep_id`): stem text and its WSCG; the highlighted path sums to its
# Depth.
# ```
#
# ```{glue:figure} fig_wscg_stem
# :name: fig-wscg-stem
#
# The deepest STEM item of the band ({glue:text}`stem_id`), showing the symbolic-operator class.
# ```

# %% [markdown]
# ## Sensitivity to prompt length
#
# Because nouns and other referents sit on the lowest tier, one might read WSCG Nodes and Depth
# as prompt length in disguise. Across all items WSCG Nodes correlates with the token count at
# r = {glue:text}`r_nodes_tokens:.3f` (subject-block bootstrap 95 % interval
# {glue:text}`r_nodes_tokens_lo:.3f`–{glue:text}`r_nodes_tokens_hi:.3f`), but WSCG Depth only
# at r = {glue:text}`r_depth_tokens:.3f` ({glue:text}`r_depth_tokens_lo:.3f`–{glue:text}`r_depth_tokens_hi:.3f`):
# Nodes is close to a length measure, Depth is not. The intervals resample the
# {glue:text}`n_subjects` subjects ({glue:text}`n_boot_used:,` replicates), because items within
# a subject are not independent.

# %%
length = length_correlations(frame, n_boot=n_boot, seed=seed)
glue_values(length | {"n_subjects": frame["subject"].nunique(), "n_boot_used": n_boot})
paper_table({k: round(length[k], 3) for k in ("r_nodes_tokens", "r_depth_tokens")},
            labels={"r_nodes_tokens": "r(WSCG Nodes, tokens)", "r_depth_tokens": "r(WSCG Depth, tokens)"}, column=ITEMS_LABEL).assign(**{f"{ITEMS_LABEL}: 95 % CI": [f"{length[f'{k}_lo']:.3f}–{length[f'{k}_hi']:.3f}"
                                          for k in ("r_nodes_tokens", "r_depth_tokens")]})

# %% [markdown]
# ### Clamping the lowest tier
#
# The mechanism behind the objection is the {glue:text}`t1_weight:.1f` tier (T1, referents):
# {glue:text}`t1_share:.1%` of all WSCG vertices sit on it. Setting its weight to zero
# (`TierTable.with_weight("T1", 0.0)`) and re-scoring every prebuilt graph changes Depth for
# {glue:text}`t1_changed:.1%` of items and moves r(Depth, tokens) from
# {glue:text}`r_depth_default:.3f` to {glue:text}`r_depth_t1zero:.3f`; Nodes does not depend on
# weights at all. Without the lowest tier Depth keeps {glue:text}`t1_retained:.0%` of its
# correlation with length.
# Appendix A perturbs every tier and re-runs the inferences; here we only show the mechanism.

# %%
tokens = frame["n_tokens"].to_numpy()
sensitivity, clamp_table, depth_default, depth_clamped = clamp_sensitivity(graphs, tiers, tokens, "T1")
glue_values(sensitivity)
clamp_table.round(3)

# %%
fig, axes = plt.subplots(1, 3, figsize=(7.5, 3.4), sharex=True)
panels = [("WSCG Nodes", frame["wscg_nodes"].to_numpy()), ("WSCG Depth", depth_default),
          ("WSCG Depth, T1 = 0", depth_clamped)]
shown = tokens <= np.quantile(tokens, 0.995)  # r uses every item; the plot drops the longest 0.5 %
for ax, (label, values) in zip(axes, panels, strict=True):
    ax.hexbin(tokens[shown], values[shown], gridsize=40, bins="log", cmap="Greys", mincnt=1)
    ax.set(xlabel="stem tokens", ylabel=label, title=f"{label}: r = {np.corrcoef(values, tokens)[0, 1]:.3f}")
figure_title(fig, "Dimension 1 against prompt length (all items in r; longest 0.5 % not drawn)")
fig.tight_layout()
glue_figure("fig_length", fig)

# %% [markdown]
# {numref}`fig-length` plots each graph indicator against stem length.
#
# ```{glue:figure} fig_length
# :name: fig-length
#
# WSCG Nodes, Depth and Depth with tier T1 clamped to 0 against stem tokens (hexbin, log counts);
# r over all items, the longest 0.5 % not drawn. Real item texts.
# ```

# %% [markdown]
# ## Collinearity of the nine indicators
#
# Variance inflation factors of the nine indicators over all items lie between
# {glue:text}`vif_min:.3f` ({glue:text}`vif_min_name`) and {glue:text}`vif_max:.3f`
# ({glue:text}`vif_max_name`). VIFs depend on the predictors only, so this is the same range the
# pooled regression (paper §4.1) reports, whatever the responses. Where our values and the
# paper's differ, the parser (spaCy here, Stanza in the paper) and this book's reconstruction of
# the lexicon are the first suspects: the paper publishes neither its lexicon members nor its
# parses, and WSCG Depth, which depends on both, enters r(Depth, tokens) directly and the VIFs
# through its overlap with the other indicators.

# %%
vifs = vif(frame[list(INDICATORS)]).set_index("term")["vif"]
vif_stats = {"vif_min": vifs.min(), "vif_max": vifs.max(),
             "vif_min_name": names[vifs.idxmin()], "vif_max_name": names[vifs.idxmax()]}
glue_values(vif_stats)
display(paper_table({"vif_min": round(vifs.min(), 3), "vif_max": round(vifs.max(), 3)}, column=ITEMS_LABEL))
vifs.rename(index=names).round(3).to_frame()

# %% [markdown]
# ## The inert top tier, coverage and fallbacks
#
# **Top tier.** The highest tier ({glue:text}`top_tier` = {glue:text}`top_weight:.1f`:
# integrals and nabla) fires in {glue:text}`n_top_tier_items:,` stems. The symbols are not
# merely missed by the parser; a raw-text search for them gives — stems containing one:
# {glue:text}`n_top_symbol_stems:,`; items containing one in the stem or the options:
# {glue:text}`n_top_symbol_items:,`. The next tier down (T7, {glue:text}`t7_weight:.1f`: causal conditionals, sums,
# limits) fires in {glue:text}`n_t7_items:,` stems. Dimension 1 is thus blind to the kind of
# notation the top tier was written for, as the paper notes (its §6.2).
#
# **Lexical coverage.** On average {glue:text}`c_bry_coverage:.1%` of an item's content words
# have a Brysbaert concreteness rating {cite}`brysbaert2014concreteness` and {glue:text}`zipf_coverage:.1%` are known to
# wordfreq. Items with no scorable content word get the population mean and a flag:
# {glue:text}`n_conc_fallback:,` items for concreteness and {glue:text}`n_zipf_fallback:,` for
# Zipf rarity; {glue:text}`n_non_english:,` stems are flagged as mostly non-English and
# {glue:text}`n_empty:,` as empty.

# %%
coverage = top_tier_coverage(items, frame, graphs, lexicon, tiers)
glue_values(coverage)
flags = flag_counts(frame)
flags

# %% [markdown]
# Items that fall back to the population mean, with their stems:

# %%
fallback = frame[frame["flag_concreteness_fallback"] | frame["flag_zipf_fallback"]]
fallback[["question", "flag_concreteness_fallback", "flag_zipf_fallback", "flag_non_english"]].head(12)

# %% [markdown]
# ## Checks

# %%
assert len(frame) == 14_042 and frame.index.is_unique
assert list(frame.index) == list(items["item_id"]) and len(graphs) == len(items)
assert np.isfinite(frame[list(INDICATORS)].to_numpy()).all()
assert prov["indicators"] == list(INDICATORS) and prov["n_items"] == len(items)
assert lexicon_stats["n_lexical_categories"] == 13 and (lex["kind"] == "symbolic").sum() == 1
assert lexicon_stats["n_active_tiers"] == 8
assert np.allclose(depth_default, frame["wscg_depth"]), "re-scored Depth must match the cached table"
assert (depth_clamped <= depth_default + 1e-12).all()
assert coverage["n_top_tier_items"] == int(frame["flag_top_tier"].sum())
for role, graph in drawn.items():
    nx_graph = graph.to_networkx(tiers)
    assert nx.is_directed_acyclic_graph(nx_graph), role
    path = path_vertices(graph, tiers)
    assert all(nx_graph.has_edge(u, v) for u, v in pairwise(path)), role
    assert np.isclose(sum(graph.weights(tiers)[v] for v in path), frame.loc[picks[role], "wscg_depth"]), role
# the prose's qualitative readings of the real items: reported, not asserted
display(finding_checks({
    "the deep example is deeper than the shallow one": drawn_stats["deep_depth"] > drawn_stats["shallow_depth"],
    "the shallow example has at least as many vertices": drawn_stats["shallow_nodes"] >= drawn_stats["deep_nodes"],
    "Nodes track length (r > 0.95) and Depth does not (r < 0.8)":
        length["r_nodes_tokens"] > 0.95 and length["r_depth_tokens"] < 0.8,
    "no item reaches the top tier": coverage["n_top_tier_items"] == 0}))
assert vifs.min() >= 1.0
# the same counts two ways
assert tier_table["vertices"].sum() == sum(g.n_nodes for g in graphs), "every vertex sits on one tier"
assert np.isclose(tier_table.loc["T1", "vertices"] / tier_table["vertices"].sum(), sensitivity["t1_share"])
assert tier_table.loc[coverage["top_tier"], "items with ≥ 1"] == coverage["n_top_tier_items"]
assert summary_stats["n_stem"] + summary_stats["n_nonstem"] == len(frame)
assert (flags["total"] == frame[flags.index].sum()).all()
assert flags.loc["flag_concreteness_fallback", "total"] == coverage["n_conc_fallback"]
assert all(length[f"{k}_lo"] <= length[k] <= length[f"{k}_hi"] for k in ("r_nodes_tokens", "r_depth_tokens"))
assert np.isclose(length["r_depth_tokens"], sensitivity["r_depth_default"]), "bootstrap r is the plain r"
