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
# (chap-data)=
# # The data: items, annotations and responses
#
# This chapter loads every input the audit uses, checks it, and says where the responses
# come from. Item texts, the subject taxonomy and the MMLU-Redux annotations are the real,
# checksum-verified files; the response matrix is whichever `data_source` the parameters
# cell selects.

# %% tags=["parameters"]
data_source = "simulated"  # simulated | simulated-null | helm20 | leaderboard
seed = 20240601  # seed of the simulated world
fast = False  # smoke-run settings (nothing heavy here; kept for a uniform interface)

# %%
import matplotlib.pyplot as plt
from IPython.display import display
import numpy as np
import pandas as pd
import seaborn as sns

from mmlu_audit import distinct_checkpoints, family_size_table, load_items, load_redux, load_responses
from mmlu_audit.core.paper import paper_table
from mmlu_audit.book.plots import PARTITION_COLORS, partition_legend, stamp_source, use_style
from mmlu_audit.book.report import ITEMS_LABEL, glue_figure, glue_values, source_banner, value_label

use_style()
items = load_items()
redux = load_redux(items)
responses = load_responses(data_source, items=items, seed=seed)
source_banner(responses)

# %% [markdown]
# ## Items and the STEM partition
#
# The MMLU test split {cite}`hendrycks2021mmlu` has {glue:text}`n_items:,` items in {glue:text}`n_subjects` subjects.
# The partition is fixed before any model is fitted: the official taxonomy's STEM group
# (lm-evaluation-harness `mmlu_stem`) holds {glue:text}`n_stem_subjects` subjects and
# {glue:text}`n_stem_items:,` items, and the other {glue:text}`n_nonstem_subjects` subjects hold
# {glue:text}`n_nonstem_items:,` items ({glue:text}`share_nonstem:.2%` of all items).

# %%
by_partition = items.groupby("partition").agg(items=("item_id", "size"), subjects=("subject", "nunique"))
counts = {
    "n_items": len(items),
    "n_subjects": items["subject"].nunique(),
    "n_stem_items": int(by_partition.loc["STEM", "items"]),
    "n_nonstem_items": int(by_partition.loc["non-STEM", "items"]),
    "n_stem_subjects": int(by_partition.loc["STEM", "subjects"]),
    "n_nonstem_subjects": int(by_partition.loc["non-STEM", "subjects"]),
    "share_nonstem": by_partition.loc["non-STEM", "items"] / len(items),
}
glue_values(counts)
paper_table(
    {k: counts[k] for k in ["n_items", "n_stem_items", "n_nonstem_items", "n_stem_subjects", "n_nonstem_subjects"]}
    | {"share_nonstem_items": round(counts["share_nonstem"], 4)}, column=ITEMS_LABEL
)

# %%
per_subject = items.groupby(["subject", "partition"]).size().rename("items").reset_index()
per_subject = per_subject.sort_values("items")
fig, ax = plt.subplots(figsize=(7.5, 10.5))
ax.barh(per_subject["subject"], per_subject["items"],
        color=per_subject["partition"].map(PARTITION_COLORS))
ax.set_xscale("log")
ax.set_xlabel("items (log scale)")
ax.tick_params(axis="y", labelsize=8.5)
partition_legend(ax)
ax.set_title("Items per subject")
glue_figure("fig_items_per_subject", fig)

# %% [markdown]
# {numref}`fig-items-per-subject` shows how unevenly the items are spread over subjects.
#
# ```{glue:figure} fig_items_per_subject
# :name: fig-items-per-subject
#
# Items per subject (log scale), coloured by partition (STEM blue, non-STEM red). Real item
# texts.
# ```

# %% [markdown]
# ## MMLU-Redux error annotations
#
# MMLU-Redux {cite}`gema2024redux` re-annotated {glue:text}`redux_per_subject` items in each subject.
# {glue:text}`redux_n:,` annotations join one-to-one to the items;
# {glue:text}`redux_error_rate:.2%` are labelled as something other than "ok"
# ({glue:text}`redux_error_stem:.2%` in STEM, {glue:text}`redux_error_nonstem:.2%` outside it).
# The subject with the highest flagged share is {glue:text}`redux_worst_subject`.

# %%
error_by_subject = (redux.groupby(["subject", "partition"])["is_error"].mean()
                    .rename("error_rate").reset_index().sort_values("error_rate"))
redux_stats = {
    "redux_n": len(redux),
    "redux_per_subject": int(redux.groupby("subject").size().median()),
    "redux_error_rate": redux["is_error"].mean(),
    "redux_error_stem": redux.loc[redux.partition == "STEM", "is_error"].mean(),
    "redux_error_nonstem": redux.loc[redux.partition == "non-STEM", "is_error"].mean(),
    "redux_worst_subject": error_by_subject.iloc[-1]["subject"],
}
glue_values(redux_stats)

fig, ax = plt.subplots(figsize=(7.5, 10.5))
ax.barh(error_by_subject["subject"], error_by_subject["error_rate"],
        color=error_by_subject["partition"].map(PARTITION_COLORS))
ax.set_xlabel("share of annotated items flagged by MMLU-Redux")
ax.tick_params(axis="y", labelsize=8.5)
partition_legend(ax)
ax.set_title("MMLU-Redux error rate by subject")
glue_figure("fig_redux_error_rate", fig)
redux["error_type"].value_counts().rename("items").to_frame()

# %% [markdown]
# {numref}`fig-redux-error-rate` ranks the subjects by the share of annotated items MMLU-Redux
# flags.
#
# ```{glue:figure} fig_redux_error_rate
# :name: fig-redux-error-rate
#
# Share of MMLU-Redux-annotated items flagged as erroneous, by subject (real annotations).
# ```

# %% [markdown]
# ## The response matrix
#
# The responses come from source {glue:text}`source`: {glue:text}`n_models:,` models ×
# {glue:text}`n_response_items:,` items, with {glue:text}`missing_share:.2%` of cells not
# observed (kept missing, never scored as wrong). Mean accuracy over observed cells is
# {glue:text}`mean_accuracy:.3f` (range {glue:text}`min_accuracy:.3f`–{glue:text}`max_accuracy:.3f`).

# %%
accuracy = responses.accuracy()
shape_stats = {
    "source": responses.source,
    "n_models": responses.shape[0],
    "n_response_items": responses.shape[1],
    "missing_share": 1 - responses.observed.mean(),
    "mean_accuracy": accuracy.mean(),
    "min_accuracy": accuracy.min(),
    "max_accuracy": accuracy.max(),
}
glue_values(shape_stats)

stem_mask = items["stem"].to_numpy()
correct = responses.responses == 1
observed = responses.observed
acc_by_part = pd.DataFrame({
    part: (correct[:, mask].sum(axis=1) / np.maximum(observed[:, mask].sum(axis=1), 1))
    for part, mask in [("STEM", stem_mask), ("non-STEM", ~stem_mask)]
})
fig, (left, right) = plt.subplots(1, 2, figsize=(8, 3.4))
sns.histplot(x=accuracy, bins=30, kde=True, color="#555", ax=left)
left.axvline(0.25, ls="--", color="k", lw=1)
left.set(xlabel="accuracy over observed items", ylabel="models", title="Accuracy distribution")
sns.scatterplot(data=acc_by_part, x="non-STEM", y="STEM", s=6, alpha=0.5, linewidth=0, ax=right)
lims = [0.2, 1.0]
right.plot(lims, lims, color="k", lw=0.8)
right.set(xlim=lims, ylim=lims, xlabel="non-STEM accuracy", ylabel="STEM accuracy",
          title="Partition accuracies per model")
stamp_source(fig, responses)
glue_figure("fig_accuracy", fig)

# %% [markdown]
# {numref}`fig-accuracy` shows the models' accuracies, overall and by partition.
#
# ```{glue:figure} fig_accuracy
# :name: fig-accuracy
#
# Left: accuracy of each model over its observed items, a histogram with its kernel density
# (dashed: chance, 0.25). Right: STEM
# against non-STEM accuracy per model. The source is named under the figure.
# ```

# %% [markdown]
# ## Model population
#
# The paper's leaderboard population is redundant: identical checkpoints uploaded under
# several names, and many fine-tunes of one base model. Two models are one checkpoint when
# their response vectors are identical or their normalised repository ids agree; the base
# family × size is parsed from the model name. The population in use has
# {glue:text}`n_distinct_checkpoints:,` distinct checkpoints in
# {glue:text}`n_family_size_groups` family × size groups.

# %%
checkpoint = distinct_checkpoints(responses.responses, responses.models["model_id"])
families = family_size_table(responses.models["model_id"])
population = {
    "n_models": responses.shape[0],
    "n_distinct_checkpoints": len(np.unique(checkpoint)),
    "n_family_size_groups": families.loc[families["group"] != "unknown", "group"].nunique(),
}
glue_values({k: v for k, v in population.items() if k != "n_models"})
display(paper_table(population, column=value_label(responses)))
families.groupby("family").size().rename("models").sort_values(ascending=False).head(10).to_frame()

# %% [markdown]
# ## Checks
#
# The assertions below fail the build if the inputs drift from what the chapters assume.

# %%
assert counts["n_items"] == 14_042
assert (counts["n_stem_items"], counts["n_nonstem_items"]) == (3_153, 10_889)
assert (counts["n_stem_subjects"], counts["n_nonstem_subjects"]) == (19, 38)
assert redux_stats["redux_n"] == 5_700
assert list(responses.item_ids) == list(items["item_id"])
assert set(np.unique(responses.responses)) <= {-1, 0, 1}
