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
# Every number the paper (and the MMLU-Pro sources) report, beside the value this build computed,
# where it comes from — **real items**, **real responses** or **simulated responses**, value by
# value — and the chapter that computes it. Nothing is recomputed here: the values are read back
# from the executed chapters' saved outputs (`book/_executed/*.ipynb`), looked up where the
# registry `mmlu_audit.core.paper.RESULT_KEYS` says each chapter glues them. A chapter that
# failed, or that was executed with other parameters than this page, contributes nothing and is
# listed at the end.
#
# **Verdicts.** *Reproduced on real data*: within tolerance (counts exactly, correlations within
# 0.01 and p-values within 0.02, absolute; everything else within 5 %) on real items or real
# responses. *Recovered as planted (simulation)*: within tolerance on the simulated world, which
# was planted to resemble the paper — the pipeline recovers what was planted; never evidence
# about MMLU (some values are copied into the simulation outright, see {ref}`page-simulated-world`).
# *Differs*: outside tolerance. *Real data, no like-for-like published value*: a real-response
# result on another population than the paper's. *Not computable*: with the reason. So that a
# row fits on one line, the tables print short words, listed under the summary table; hover a
# cell for its full words.

# %% tags=["parameters"]
data_source = "simulated"  # the source the other chapters were executed with
seed = 20240601  # the seed they were executed with
fast = False  # whether they ran in fast mode
executed_dir = "../book/_executed"  # where bookbuild wrote the executed chapters

# %% tags=["hide-input"]
import pandas as pd
from IPython.display import HTML, Markdown, display

from mmlu_audit.book.plots import use_style
from mmlu_audit.book.report import glue_values
from mmlu_audit.book.scorecard import VERDICTS, collect, headline, scorecard, scorecard_html, short_words_text

use_style()
collection = collect(executed_dir, expect={"data_source": data_source, "seed": seed, "fast": fast},
                     exclude=("97_discussion", "98_scorecard"))
table = scorecard(collection)
titles = {c.chapter: c.title for c in collection.chapters}
glue_values(headline(table) | {"scorecard_data_source": data_source, "scorecard_seed": seed,
                               "scorecard_fast": fast})

# %% [markdown]
# ## Summary
#
# Of {glue:text}`scorecard_n_rows` rows: {glue:text}`scorecard_n_reproduced_real` reproduced on
# real data; {glue:text}`scorecard_n_recovered_planted` recovered as planted on the simulated
# world; {glue:text}`scorecard_n_differs` differ ({glue:text}`scorecard_n_differs_real` of them on
# real data); {glue:text}`scorecard_n_real_other` real-data results without a like-for-like
# published value; {glue:text}`scorecard_n_not_computable` not computable, each with its reason.
# Chapters were executed with `data_source` {glue:text}`scorecard_data_source`, seed
# {glue:text}`scorecard_seed`, fast mode {glue:text}`scorecard_fast`.

# %% tags=["hide-input"]
display(pd.crosstab(table["provenance"].fillna("—"), table["verdict"])
        .reindex(columns=list(VERDICTS), fill_value=0))
display(Markdown(f"Short words in the tables below: {short_words_text()}."))

# %% [markdown]
# ## Real data
#
# Rows computed from the real MMLU items or from real responses, grouped by chapter; hover a
# quantity for the paper section it comes from.

# %% tags=["hide-input"]
display(HTML(scorecard_html(table, titles, provenances=("real items", "real responses"))))

# %% [markdown]
# ## Simulated world
#
# Rows computed from simulated responses. A match here is the pipeline recovering the planted
# world, not a reproduction.

# %% tags=["hide-input"]
display(HTML(scorecard_html(table, titles, provenances=("simulated responses", "not stated"),
                            verdicts=VERDICTS[:4])))

# %% [markdown]
# ## Not computable

# %% tags=["hide-input"]
display(HTML(scorecard_html(table, titles, verdicts=(VERDICTS[4],))))

# %% [markdown]
# ## Chapters read
#
# Each executed chapter, the source its first banner states, and whether its values were used.

# %% tags=["hide-input"]
display(pd.DataFrame([{"chapter": c.chapter, "source": c.source, "glued values": len(c.values),
                       "used": "no: " + collection.skipped[c.chapter] if c.chapter in collection.skipped else "yes"}
                      for c in collection.chapters]).set_index("chapter"))

# %% tags=["remove-cell"]
assert table.index.is_unique and set(table["verdict"]) <= set(VERDICTS)
assert table.loc[table["verdict"] != VERDICTS[4], "chapter"].notna().all()
assert table.loc[table["verdict"] == VERDICTS[4], "why"].str.len().gt(0).all()
assert collection.chapters, "no executed chapters were read"
