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
# nothing is recomputed here — and a verdict:
#
# - **supported**: every test of the claim computed on **real** responses supports it;
# - **not supported**: at least one real-data test does not, and the test had power of at least
#   {glue:text}`power_floor` at the paper's effect on the real design;
# - **inconclusive**: a real-data test does not support it, but its power at the paper's effect
#   was below {glue:text}`power_floor` (a true effect of the paper's size would often give that
#   result too);
# - **not testable with the data here**: no chapter computed a test on real responses in this
#   build; the reason says what each test lacked (a chapter not executed, a value missing, or
#   only simulated responses).
#
# The real tests of the four item- and model-side claims run on the real MMLU pool (HELM's and
# OpenCompass's models, every item) in {ref}`chap-real-verdicts`, which also measures their power
# and repeats them on each model population alone.
#
# A test on the simulated world never supports a claim about MMLU: the simulated world was planted
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

from mmlu_audit.analyses.verdicts import CLAIM_TITLES
from mmlu_audit.book.discussion import (CLAIMS, OUTCOMES, POWER_FLOOR, SIMULATED, VERDICTS, claim_chapters,
                                        claims_table, evidence_summary, evidence_table)
from mmlu_audit.book.findings import forest_from_build, missing_chapters, read_build, replication_from_build
from mmlu_audit.book.plots import claims_forest, note_figure, use_style
from mmlu_audit.book.report import glue_figure, glue_values
from mmlu_audit.book.scorecard import chapters_read
from mmlu_audit.core.paper import RECOVERS, REPRODUCES

use_style()

expect = {"data_source": data_source, "seed": seed, "fast": fast}
collection = read_build(executed_dir, expect)
missing = missing_chapters(collection, claim_chapters(), expect)
evidence = evidence_table(collection)
claims = claims_table(collection)
counts = claims["verdict"].value_counts().reindex(list(VERDICTS), fill_value=0)
glue_values({"n_claims": len(claims), "n_supported": int(counts[VERDICTS[0]]),
             "n_not_supported": int(counts[VERDICTS[1]]), "n_not_testable": int(counts[VERDICTS[2]]),
             "n_inconclusive": int(counts[VERDICTS[3]]), "power_floor": POWER_FLOOR,
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
# Of {glue:text}`n_claims` claims, {glue:text}`n_supported` are supported on real data,
# {glue:text}`n_not_supported` not supported, {glue:text}`n_inconclusive` inconclusive, and
# {glue:text}`n_not_testable` not testable with the data here. On the simulated world, the pipeline
# *{glue:text}`term_recovers`* for {glue:text}`n_recovered` of them. Values were read from {glue:text}`n_chapters_read` executed
# chapters (`data_source` {glue:text}`build_data_source`, seed {glue:text}`build_seed`, fast mode
# {glue:text}`build_fast`). {glue:text}`missing_note`

# %% tags=["hide-input"]
with pd.option_context("display.max_colwidth", None):
    display(claims[["section", "claim", "verdict", "power", "why", "simulated", "simulated_why"]])

# %% [markdown]
# ## The claims at a glance, and across model populations
#
# ```{glue:figure} fig_discussion_forest
# :name: fig-discussion-forest
#
# The forest plot of {ref}`chap-real-verdicts`, redrawn from its saved values: each claim on its
# own test's scale, the paper's value (hollow diamond), each real population (filled circles, 95 %
# intervals where the test has one) and the simulated world (hollow square, not MMLU).
# ```
#
# Each real population's decision on each claim (a "yes" is the claim's decision rule holding):

# %% tags=["hide-input"]
forest = forest_from_build(collection)
replication = replication_from_build(collection)
glue_figure("fig_discussion_forest", note_figure("The real-verdicts chapter is not in this build.")
            if forest is None else claims_forest(forest, titles=CLAIM_TITLES))
if replication is not None:
    display(replication.rename(index=CLAIM_TITLES))

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
assert set(claims["simulated"]) <= set(SIMULATED) and set(evidence["outcome"]) <= set(OUTCOMES)
decided = claims.index[claims["verdict"] != VERDICTS[2]]
assert (claims.loc[decided, "real_evidence"] > 0).all(), "a verdict without real-data evidence"
supported = evidence[(evidence["kind"] == "test") & (evidence["outcome"] == OUTCOMES[0])
                     & (evidence["provenance"] == "real responses")]
assert set(claims.index[claims["verdict"] == VERDICTS[0]]) <= set(supported["claim"])
assert evidence.loc[evidence["outcome"] != "missing", "chapter"].notna().all()
inconclusive = claims.index[claims["verdict"] == VERDICTS[3]]
assert (claims.loc[inconclusive, "power"] < POWER_FLOOR).all(), "inconclusive only below the power floor"
