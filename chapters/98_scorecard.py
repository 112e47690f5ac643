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
# (chap-scorecard)=
# # Scorecard: the paper beside this run
#
# Every number the paper reports, beside the value this build computed under the same name,
# the data source it was computed on, and the chapter it comes from. Nothing is recomputed
# here: the values are read back from the executed chapters' saved outputs (the glued values
# in `book/_executed/*.ipynb`), so this page always describes the build it is part of. It runs
# last; a chapter that failed, or that was executed with other parameters than this page
# (a stale notebook from an earlier build), contributes nothing and is listed below.
#
# **How to read the verdicts.** *Reproduced* means within the stated tolerance: counts
# exactly, correlations within 0.01 and p-values within 0.02 (absolute), everything else within
# 5 % of the paper's value. On a **simulated** world agreement says only that the simulation
# was planted to resemble the paper and that the pipeline recovers what was planted — it is
# never evidence about MMLU. *Not computable here* gives the reason.

# %% tags=["parameters"]
data_source = "simulated"  # the source the other chapters were executed with
seed = 20240601  # the seed they were executed with
fast = False  # whether they ran in fast mode
executed_dir = "../book/_executed"  # where bookbuild wrote the executed chapters

# %% tags=["hide-input"]
import pandas as pd
from IPython.display import HTML, display

from mmlu_audit.book.report import glue_values
from mmlu_audit.book.scorecard import VERDICTS, collect, scorecard, scorecard_html

collection = collect(executed_dir, expect={"data_source": data_source, "seed": seed, "fast": fast},
                     exclude=("98_scorecard",))
table = scorecard(collection)
titles = {c.chapter: c.title for c in collection.chapters}

# %% [markdown]
# ## Summary
#
# Of the {glue:text}`scorecard_n_keys` numbers the paper reports, this build computed
# {glue:text}`scorecard_n_computed`: {glue:text}`scorecard_n_reproduced` reproduced within
# tolerance ({glue:text}`scorecard_n_reproduced_real` of them on real data) and
# {glue:text}`scorecard_n_differs` differ; {glue:text}`scorecard_n_not_computable` are not
# computable here. Chapters were executed with `data_source` {glue:text}`scorecard_data_source`,
# seed {glue:text}`scorecard_seed` and fast mode {glue:text}`scorecard_fast`.

# %% tags=["hide-input"]
counts = table["verdict"].value_counts().reindex(list(VERDICTS), fill_value=0)
summary = {
    "scorecard_n_keys": len(table),
    "scorecard_n_computed": int(counts["reproduced"] + counts["differs"]),
    "scorecard_n_reproduced": int(counts["reproduced"]),
    "scorecard_n_reproduced_real": int(((table["verdict"] == "reproduced") & (table["source"] == "real")).sum()),
    "scorecard_n_differs": int(counts["differs"]),
    "scorecard_n_not_computable": int(counts["not computable here"]),
    "scorecard_data_source": data_source, "scorecard_seed": seed, "scorecard_fast": fast,
}
glue_values(summary)
display(pd.crosstab(table["source"].fillna("—"), table["verdict"]).reindex(columns=list(VERDICTS), fill_value=0))

# %% [markdown]
# ## Every reported number
#
# *paper* is the published value (`mmlu_audit.core.paper`), *ours* the value glued under the
# same key by the linked chapter, *source* that chapter's provenance banner.

# %% tags=["hide-input"]
display(HTML(scorecard_html(table, titles)))

# %% [markdown]
# ## Chapters read
#
# Each executed chapter, the source its banner states, and whether its values were used.

# %% tags=["hide-input"]
display(pd.DataFrame([{"chapter": c.chapter, "title": c.title, "source": c.source,
                       "glued values": len(c.values),
                       "used": "no: " + collection.skipped[c.chapter] if c.chapter in collection.skipped else "yes"}
                      for c in collection.chapters]).set_index("chapter"))

# %% tags=["remove-cell"]
assert len(table) == len(set(table.index)) and set(table["verdict"]) <= set(VERDICTS)
assert table.loc[table["verdict"] != "not computable here", "chapter"].notna().all()
assert table.loc[table["verdict"] == "not computable here", "why"].str.len().gt(0).all()
assert collection.chapters, "no executed chapters were read"
