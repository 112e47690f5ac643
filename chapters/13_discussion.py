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
# (chap-discussion)=
# # Discussion: the paper's claims against this build (§6)
#
# The paper's discussion rests on six claims. Each is listed below with the evidence the
# executed chapters computed for it, read back from their saved outputs (`book/_executed`) —
# nothing is recomputed here — and its replication outcome on real data, as {ref}`chap-real-verdicts`
# judged it: each claim's estimate across the disjoint real populations combined, read by its 95 %
# interval against no effect and against the paper's estimate (*replicated*, *inconsistent*,
# *inconclusive*, *not replicated*; {ref}`page-glossary`). A claim with no registered estimand is
# *not estimable*, with the reason. The power beside an outcome (how often the combined populations'
# interval excluded no effect in worlds simulated at their designs with the paper's estimates planted,
# {ref}`chap-validity`) is context, never a verdict.
#
# A test on the simulated world never decides a claim about MMLU: the simulated world was planted
# to resemble the paper. Its column says only whether the pipeline *{glue:text}`term_recovers`*
# (see {ref}`page-simulated-world`); a comparison with a number the paper reports is worded
# *{glue:text}`term_reproduces`*, on the {ref}`chap-scorecard` and the landing page alike. Which glued values test which claim, and the rule that reads
# them, is the registry `mmlu_audit.book.discussion.CLAIMS`.

# %% tags=["parameters"]
data_source = "simulated"  # the source the other chapters were executed with
seed = 20240601  # the seed they were executed with
fast = False  # whether they ran in fast mode
executed_dir = "../book/_executed"  # where the build wrote the other chapters

# %% tags=["hide-input"]
import pandas as pd
from IPython.display import display

from mmlu_audit.analyses.replication import CLAIM_TITLES
from mmlu_audit.book.discussion import (CLAIMS, EVIDENCE_OUTCOMES, SIMULATED, VERDICTS, claim_chapters, claims_table,
                                        evidence_summary, evidence_table)
from mmlu_audit.book.findings import forest_from_build, missing_chapters, read_build
from mmlu_audit.book.plots import estimand_forest, note_figure, use_style
from mmlu_audit.book.report import glue_figure, glue_values
from mmlu_audit.book.scorecard import chapters_read
from mmlu_audit.core.paper import RECOVERS, REPRODUCES

use_style()

expect = {"data_source": data_source, "seed": seed, "fast": fast}
collection = read_build(executed_dir, expect)
missing = missing_chapters(collection, claim_chapters(), expect)
evidence = evidence_table(collection)
claims = claims_table(collection)
counts = claims["verdict"].value_counts()
glue_values({"n_claims": len(claims),
             "outcome_counts": "; ".join(f"{word}: {int(counts.get(word, 0))}" for word in VERDICTS
                                         if counts.get(word, 0)),
             "n_recovered": int((claims["simulated"] == SIMULATED[0]).sum()),
             "n_chapters_read": len(collection.chapters) - len(collection.skipped),
             "missing_note": ("Every chapter the claims read is in this build." if not missing else
                              "Missing from this build (their evidence is absent below, not negative): "
                              + "; ".join(f"chapter {p}: {why}" for p, why in missing.items()) + "."),
             "build_data_source": data_source, "build_seed": seed, "build_fast": fast,
             "term_recovers": RECOVERS, "term_reproduces": REPRODUCES})

# %% [markdown]
# ## The claims
#
# The {glue:text}`n_claims` claims' outcomes on real data, counted: {glue:text}`outcome_counts`. On the
# simulated world, the pipeline
# *{glue:text}`term_recovers`* for {glue:text}`n_recovered` of them. Values were read from {glue:text}`n_chapters_read` executed
# chapters (`data_source` {glue:text}`build_data_source`, seed {glue:text}`build_seed`, fast mode
# {glue:text}`build_fast`). {glue:text}`missing_note`

# %% tags=["hide-input"]
with pd.option_context("display.max_colwidth", None):
    display(claims[["section", "claim", "verdict", "power", "why", "simulated", "simulated_why"]].rename(
        columns={"verdict": "outcome on real data", "power": "power at the paper's estimates (simulated)",
                 "why": "why", "simulated": "simulated world", "simulated_why": "what the simulation shows"}))

# %% [markdown]
# ## The claims at a glance, and across model populations
#
# ```{glue:figure} fig_discussion_forest
# :name: fig-discussion-forest
#
# The forest plot of {ref}`chap-real-verdicts`, redrawn from its saved values: each claim's estimand on
# its own scale, the paper's estimate with its interval (hollow diamond, grey band), each disjoint real
# population, their pooled matrix and their combinations, all with 95 % intervals.
# ```

# %% tags=["hide-input"]
forest = forest_from_build(collection)
glue_figure("fig_discussion_forest", note_figure("The real-verdicts chapter is not in this build.")
            if forest is None else estimand_forest(forest, titles=CLAIM_TITLES))

# %% [markdown]
# ## The evidence, piece by piece
#
# Every glued value a claim reads: a *test* of the claim on the responses its chapter ran with
# (real or simulated, as the provenance column says), a comparison with the *planted* truth of
# the simulated world, or real-data *context* that does not test the claim. Each p is that of the
# test named beside it, and each interval the one its chapter says to read (its method named where
# the chapter declares it). The rule applied, or what is missing, is in the last column.

# %% tags=["hide-input"]
with pd.option_context("display.max_colwidth", None):
    display(evidence_summary(evidence).set_index(["claim", "kind"]))

# %% [markdown]
# ## Chapters read
#
# Each executed chapter, the responses its banners state (a real chapter with a simulated section,
# such as the power worlds of {ref}`chap-real-leaderboard`, says so), the `data_source` it ran
# with, and whether its values were used (a chapter that failed, is still running or ran with
# other parameters than this page is not).

# %% tags=["hide-input"]
display(chapters_read(collection))

# %% tags=["remove-cell"]
assert list(claims.index) == [claim.key for claim in CLAIMS]
assert set(claims["verdict"]) <= set(VERDICTS) and claims["why"].str.len().gt(0).all()
assert set(claims["simulated"]) <= set(SIMULATED) and set(evidence["outcome"]) <= set(EVIDENCE_OUTCOMES)
assert evidence.loc[evidence["outcome"] != "missing", "chapter"].notna().all()
