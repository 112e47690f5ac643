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
# registry `mmlu_audit.book.results.RESULT_KEYS` says each chapter glues them. A chapter that
# failed, or that was executed with other parameters than this page, contributes nothing and is
# listed at the end.
#
# **Verdicts.** *{glue:text}`verdict_reproduced_real`*: within tolerance (counts exactly,
# correlations within 0.01 and p-values within 0.02, absolute; everything else within 5 %) on real
# items or real responses. *{glue:text}`verdict_reproduced_simulated`*: within tolerance on the
# simulated world, which was planted to resemble the paper — never evidence about MMLU; where the
# simulator copies the paper's value outright (see {ref}`page-simulated-world`) the match is by
# construction, and the pipeline *{glue:text}`term_recovers`* there. *{glue:text}`verdict_differs`*:
# outside tolerance. *{glue:text}`verdict_real_other`*: a real-response result on another population;
# its reported column shows the paper's value for the paper's own {glue:text}`paper_n_models:,` models,
# for orientation.
# *Not computable*: with the reason. The MMLU-Pro key audit's reported values come from a blog post,
# not a paper ({glue:text}`blog_post`); their verdicts say "the blog post's value". Every p is the p
# of the test its row names (hover it), and every interval the one its chapter says to read. So
# that a row fits on one line, the tables print short words, listed under the summary table; hover
# a cell for its full words.

# %% tags=["parameters"]
data_source = "simulated"  # the source the other chapters were executed with
seed = 20240601  # the seed they were executed with
fast = False  # whether they ran in fast mode
executed_dir = "../book/_executed"  # where bookbuild wrote the executed chapters

# %% tags=["hide-input"]
import pandas as pd
from IPython.display import HTML, Markdown, display

from mmlu_audit.book.chapters import reader_stems
from mmlu_audit.book.plots import use_style
from mmlu_audit.book.report import glue_values, write_download
from mmlu_audit.book.scorecard import (VERDICTS, chapters_read, collect, headline, scorecard, scorecard_csv,
                                       scorecard_html, short_words_text)
from mmlu_audit.core.paper import BLOG_POST, RECOVERS, paper_value

use_style()
collection = collect(executed_dir, expect={"data_source": data_source, "seed": seed, "fast": fast},
                     exclude=reader_stems())
table = scorecard(collection)
titles = {c.chapter: c.title for c in collection.chapters}
write_download(scorecard_csv(table), "scorecard.csv", executed_dir)
glue_values(headline(table) | {"scorecard_data_source": data_source, "scorecard_seed": seed,
                               "scorecard_fast": fast, "term_recovers": RECOVERS, "blog_post": BLOG_POST,
                               "paper_n_models": paper_value("n_models")}
            | dict(zip(("verdict_reproduced_real", "verdict_reproduced_simulated", "verdict_differs",
                        "verdict_real_other"), VERDICTS[:4], strict=True)))

# %% [markdown]
# ## Summary
#
# Of {glue:text}`scorecard_n_rows` rows: {glue:text}`scorecard_n_reproduced_real` marked
# *{glue:text}`verdict_reproduced_real`*; {glue:text}`scorecard_n_reproduced_simulated` marked
# *{glue:text}`verdict_reproduced_simulated`*; {glue:text}`scorecard_n_differs` differ
# ({glue:text}`scorecard_n_differs_real` of them on real data); {glue:text}`scorecard_n_real_other`
# real-data results on another population than the paper's; {glue:text}`scorecard_n_not_computable`
# not computable, each with its reason.
# Chapters were executed with `data_source` {glue:text}`scorecard_data_source`, seed
# {glue:text}`scorecard_seed`, fast mode {glue:text}`scorecard_fast`.

# %% tags=["hide-input"]
display(pd.crosstab(table["provenance"].fillna("—"), table["verdict"])
        .reindex(columns=list(VERDICTS), fill_value=0))
display(Markdown(f"Short words in the tables below: {short_words_text()}."))

# %% [markdown]
# ## Real data
#
# Rows computed from the real MMLU items or from real responses, grouped by chapter, each with the
# data source it was computed on (hover it for the full name); hover a quantity for the paper
# section it comes from. {download}`Download the whole scorecard (CSV) <scorecard.csv>`.

# %% tags=["hide-input"]
display(HTML(scorecard_html(table, titles, provenances=("real items", "real responses"))))

# %% [markdown]
# ## Simulated world
#
# Rows computed from simulated responses. A match here says the simulated world, planted to
# resemble the paper, gives the paper's value; it is not a finding about MMLU.

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
# Each executed chapter, the responses its banners state (a real chapter with a simulated section
# says so), the `data_source` it ran with, and whether its values were used.

# %% tags=["hide-input"]
display(chapters_read(collection).set_index("chapter"))

# %% tags=["remove-cell"]
assert table.index.is_unique and set(table["verdict"]) <= set(VERDICTS)
assert table.loc[table["verdict"] != VERDICTS[4], "chapter"].notna().all()
assert table.loc[table["verdict"] == VERDICTS[4], "why"].str.len().gt(0).all()
assert collection.chapters, "no executed chapters were read"
