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
# (chap-real-verdicts)=
# # The central claims on real responses
#
# The paper's central claims rest on a leaderboard matrix of {glue:text}`paper_n_models:,` models that cannot be fetched
# here. What can be fetched are real item-level responses on every MMLU item from two model
# populations that never shared a prompt: HELM's frontier models (5-shot generation) and the
# models of the PSN-IRT release, evaluated with OpenCompass. This page runs each claim's test —
# the same library call the §4 and §5 chapters make — on the real pool and on each population
# alone, reads how often the same test rejects at the same design when the paper's effects are
# true (its power, from the many-seed study in `make bench`), and gives a verdict:
#
# - **supported**: the test's decision rule holds on the real pool;
# - **not supported**: it does not, and the test had power of at least {glue:text}`power_floor` at
#   the paper's effect sizes;
# - **inconclusive**: it does not, but the power was below {glue:text}`power_floor`: a
#   non-rejection that a true effect of the paper's size would often give too;
# - **not testable**: no real matrix here carries the test.
#
# The simulated world is shown beside the real populations for orientation only: it plants the
# paper's effects, so its results describe the simulation, not MMLU.

# %% tags=["parameters"]
data_source = "simulated"  # the simulated world shown beside the real populations
seed = 20240601  # seed of the calibrations, bootstraps, folds and 3PL nulls
fast = False  # smoke run: shorter fits, plus this chapter's fast-parameters below
pool_source = "mmlu_real"  # the real population the verdicts read
populations = ["helm10", "opencompass11", "helm20"]  # real populations tested alone (replication)
n_boot = 9999  # wild cluster and subject-cluster bootstrap draws of every test
cv_folds = 10  # K of the item-fold cross-validation (STEM R²)
null_replicates = 100  # matrices simulated from each fitted 3PL (guessing floor)
power_file = ""  # the power study's summary; "" reads the committed bench/results/real_power.json
executed_dir = "../book/_executed"  # where bookbuild writes this page; the claims table's CSV goes beside it

# %% [raw] tags=["fast-parameters"]
# n_boot = 199
# cv_folds = 5
# null_replicates = 3

# %% tags=["hide-input"]
import pandas as pd
from IPython.display import display

from mmlu_audit.analyses.central import CLAIM_TESTS, DECISIONS, population_tests
from mmlu_audit.analyses.power import load_power
from mmlu_audit.analyses.verdicts import (CLAIM_TITLES, POWER_FLOOR, VERDICTS, agreement, claim_verdict,
                                          forest_rows, power_at, replication_table)
from mmlu_audit.book.plots import claims_forest, stamp_source, use_style
from mmlu_audit.book.report import glue_figure, glue_values, source_banner, write_download
from mmlu_audit.core.paper import PAPER
from mmlu_audit.data.openllm import load_openllm_items
from mmlu_audit.data.registry import REAL_SOURCES
from mmlu_audit.worlds.sources import load_responses

use_style()
CLAIM_NAMES = CLAIM_TITLES
pool = load_responses(pool_source)
source_banner(pool)
glue_values({"power_floor": POWER_FLOOR, "pool_n_models": pool.shape[0], "pool_n_items": pool.shape[1],
             "pool_source": pool_source,
             "pool_description": pool.description,
             "pool_populations": ", ".join(f"{n} {p}" for p, n in pool.models["population"].value_counts(sort=False)
                                           .items()) if "population" in pool.models else pool_source,
             "pool_dropped": "; ".join(pool.meta.get("dropped", [])) or "none"})

# %% [markdown]
# ## The real pool
#
# The pool holds {glue:text}`pool_n_models` models ({glue:text}`pool_populations`). Left out by the
# stated rule (a model with no wrong or no right answer carries no information on any item's
# difficulty): {glue:text}`pool_dropped`. HELM's prompt and scoring differ from OpenCompass's;
# the pool gives every model its own ability θ, so a protocol that makes all items easier for
# its models moves their θ̂, not the items' b̂ (tested in `tests/test_real_pool.py`). An item
# that one protocol makes easier for its models only is not absorbed: that is why each
# population is also tested alone below.

# %%
results = {pool_source: population_tests(pool_source, seed=seed, fast=fast, n_boot=n_boot, cv_folds=cv_folds,
                                         replicates=null_replicates)}
for source in populations:
    results[source] = population_tests(source, seed=seed, fast=fast, n_boot=n_boot, cv_folds=cv_folds,
                                       replicates=null_replicates)
results[data_source] = population_tests(data_source, seed=seed, fast=fast, n_boot=n_boot, cv_folds=cv_folds,
                                        replicates=null_replicates)
real_labels = [pool_source, *populations]
for label in real_labels:
    assert not results[label]["population"]["simulated"], f"{label} is not a real source"
pool_results = results[pool_source]

# %% [markdown]
# ## Power at the real design
#
# Each test's power is the share of {glue:text}`power_seeds` simulated worlds with the pool's design
# (its {glue:text}`pool_n_models` models, each answering the cells it answered with its real
# accuracy, the guessing floor, the same {glue:text}`pool_n_items:,` items and indicators) in which the test's decision
# rule held when the paper's slopes were planted; its size is the same share in the null world
# with identical slopes in both partitions. The study is `bench/bench_real_power.py`
# (`make bench`); its Monte Carlo standard errors are in the table. For the guessing-floor claim
# no simulated world plants an ability × depth interaction, so the claim is true in both worlds
# and both rates are its power.

# %%
power = load_power(power_file or None)
power_rows = {test: power_at(power, pool_source, test) for test in CLAIM_TESTS}
power_table = pd.DataFrame(power_rows).T.rename_axis("claim")
glue_values({"power_seeds": int(power_table["n_seeds"].min()),
             "power_max_se": float(power_table[["power_se", "size_se"]].max().max()),
             "power_target_se": power.attrs["target_se"], "power_n_boot": power.attrs["settings"]["n_boot"],
             "power_replicates": power.attrs["settings"]["replicates"],
             "power_target_met": "met" if bool(power["target_reached"].all()) else "not met for every rate"})
power_table.rename(index=CLAIM_NAMES, columns={
    "power": "power (paper's slopes)", "power_se": "its MC SE",
    "size": "rate in the null world (size; for the guessing floor, power)", "size_se": "its MC SE ",
    "n_seeds": "seeds"})

# %% [markdown]
# The study ran with {glue:text}`power_n_boot:,` bootstrap draws and {glue:text}`power_replicates`
# 3PL-null replicates per world (fewer than this page's, to afford the seeds; a p-value's Monte Carlo
# error at that many draws is small beside the power's). The largest Monte Carlo standard error in the
# table is {glue:text}`power_max_se:.3f`, against a target of {glue:text}`power_target_se`: the target
# is {glue:text}`power_target_met` (rerunning `make bench` resumes the study where it stopped).
#
# ## Verdicts

# %%
verdicts = {}
for test in CLAIM_TESTS:
    result = pool_results[test]
    verdicts[test] = claim_verdict(result["supports"], power_rows[test]["power"])
replication = replication_table({label: results[label] for label in real_labels})
summary = pd.DataFrame({
    "claim": [CLAIM_NAMES[t] for t in CLAIM_TESTS],
    "decision rule": [DECISIONS[t] for t in CLAIM_TESTS],
    "verdict (real pool)": [verdicts[t] for t in CLAIM_TESTS],
    "power at the paper's effect": [power_rows[t]["power"] for t in CLAIM_TESTS],
    "populations supporting": [", ".join(agreement(replication, t)["supporting"]) or "none" for t in CLAIM_TESTS],
}, index=pd.Index(CLAIM_TESTS, name="key"))
glue_values({f"verdict_{t}": verdicts[t] for t in CLAIM_TESTS}
            | {f"power_{t}": power_rows[t]["power"] for t in CLAIM_TESTS}
            | {f"power_se_{t}": power_rows[t]["power_se"] for t in CLAIM_TESTS}
            | {f"size_{t}": power_rows[t]["size"] for t in CLAIM_TESTS}
            | {f"agree_{t}": "yes" if agreement(replication, t)["agree"] else "no" for t in CLAIM_TESTS}
            | {f"supporting_{t}": ", ".join(agreement(replication, t)["supporting"]) or "none" for t in CLAIM_TESTS}
            | {"n_claims_real": len(CLAIM_TESTS),
               **{f"n_{v.replace(' ', '_')}": sum(x == v for x in verdicts.values()) for v in VERDICTS}})
write_download(summary.reset_index(), "real_verdicts_claims.csv", executed_dir)
with pd.option_context("display.max_colwidth", None):
    display(summary)

# %% [markdown]
# {download}`Download the claims table (CSV) <real_verdicts_claims.csv>`.
#
# On the real pool, of {glue:text}`n_claims_real` claims {glue:text}`n_supported` are supported,
# {glue:text}`n_not_supported` not supported and {glue:text}`n_inconclusive` inconclusive.
#
# **Homogeneity.** W(9) under CR2 is {glue:text}`pool_w9_cr2:.2f` (HTZ F = {glue:text}`pool_w9_htz_F:.2f`,
# p = {glue:text}`pool_w9_htz_p:.3g`; wild cluster bootstrap p = {glue:text}`pool_wcb_p:.3g`, its
# 95th percentile {glue:text}`pool_wcb_q95:.1f`). The paper's W(9) was {glue:text}`paper_w9_cr2`
# against a bootstrap 95th percentile of {glue:text}`paper_wcb_q95` (bootstrap
# p = {glue:text}`paper_wcb_p`). Verdict: {glue:text}`verdict_homogeneity` (power
# {glue:text}`power_homogeneity:.2f`, size in the null world {glue:text}`size_homogeneity:.2f`).
#
# **D_ner.** The STEM × D_ner contrast is {glue:text}`pool_d_ner_estimate:.3f` logits per SD (CR2
# 95 % interval {glue:text}`pool_d_ner_low:.3f` to {glue:text}`pool_d_ner_high:.3f`, t =
# {glue:text}`pool_t_cr2_d_ner:.2f`, Holm p = {glue:text}`pool_holm_p_cr2_d_ner:.3g`; bootstrap Holm
# p = {glue:text}`pool_boot_holm_p_d_ner:.3g`), against the paper's t = {glue:text}`paper_t_cr2_d_ner`.
# Verdict: {glue:text}`verdict_d_ner` (power {glue:text}`power_d_ner:.2f`).
#
# **STEM R².** Cross-validated R² is {glue:text}`pool_cv_r2_stem:.4f` in STEM and
# {glue:text}`pool_cv_r2_nonstem:.4f` outside it; the logit² ratio is {glue:text}`pool_logit2_ratio:.2f`
# (95 % subject-bootstrap interval {glue:text}`pool_logit2_ratio_ci_low:.2f`–{glue:text}`pool_logit2_ratio_ci_high:.2f`;
# paper {glue:text}`paper_logit2_ratio`). Verdict: {glue:text}`verdict_stem_r2` (power
# {glue:text}`power_stem_r2:.2f`).
#
# **Guessing floor.** Over the pool's {glue:text}`pool_floor_n_models` models with a finite β,
# r(β, θ̂) = {glue:text}`pool_rs_r_all:.3f` (Fisher 95 % interval {glue:text}`pool_rs_r_low:.2f` to
# {glue:text}`pool_rs_r_high:.2f`; paper {glue:text}`paper_rs_r_all`); the 3PL null with no
# ability × depth term gives a mean r of {glue:text}`pool_null_r_all:.3f`, a share of
# {glue:text}`pool_null_share_all:.2f` of the observed value (paper {glue:text}`paper_null_share_all`).
# Verdict: {glue:text}`verdict_guessing_floor` (power {glue:text}`power_guessing_floor:.2f`).
# The Fisher interval treats the models as independent draws; with a few dozen models from two
# evaluation suites it is a guide, not a population statement.

# %%
flat = {f"pool_{k}": v for test in CLAIM_TESTS for k, v in pool_results[test].items()
        if k not in ("supports", "n_items", "n_models")}
flat["pool_floor_n_models"] = pool_results["guessing_floor"]["n_models"]
glue_values(flat | {f"paper_{k}": PAPER[k][0] for k in ("n_models", "w9_cr2", "wcb_q95", "wcb_p", "t_cr2_d_ner", "logit2_ratio",
                                                         "rs_r_all", "null_share_all")})

# %% [markdown]
# ## Replication across populations
#
# Each test again on each real population alone. HELM's {glue:text}`helm_full_models` full-coverage models and the
# OpenCompass models never shared a prompt or a harness: two such populations agreeing is the
# strongest real evidence this book can give, and their disagreeing is a finding. HELM-20 adds
# HELM's {glue:text}`helm_redux_models` Redux-only models ({glue:text}`helm_redux_items:,` items each) to them. The simulated world is shown last,
# for orientation. A "yes" is the test's decision rule holding in that population.
#
# Do HELM-10 and OpenCompass-11 agree? Homogeneity: {glue:text}`agree2_homogeneity`; D_ner:
# {glue:text}`agree2_d_ner`; STEM R²: {glue:text}`agree2_stem_r2`; guessing floor:
# {glue:text}`agree2_guessing_floor`.

# The Open LLM Leaderboard's own models are staged only on a slice: {glue:text}`slice_models:,`
# models on {glue:text}`slice_items` items ({glue:text}`slice_stem` of them STEM) that metabench
# *selected* for what they say about the total score. A partition contrast on items chosen that way
# is not MMLU's, and {glue:text}`slice_stem` STEM items leave the nine-slope interaction with too
# few STEM items per slope, so the slice carries none of these tests here;
# {ref}`chap-real-leaderboard` reports its item-side homogeneity test for completeness.

# %%
slice_items = load_openllm_items()
glue_values({"slice_models": load_responses("openllm_v1_mmlu102", items=slice_items).shape[0],
             "slice_items": len(slice_items), "slice_stem": int(slice_items["is_stem"].sum())})
helm_full, helm_all = (load_responses(source) for source in ("helm10", "helm20"))
redux_only = helm_all.models["source"].eq("helm_redux2").to_numpy()  # HELM ran these on the Redux items only
glue_values({"helm_full_models": helm_full.shape[0], "helm_redux_models": int(redux_only.sum()),
             "helm_redux_items": int(helm_all.observed[redux_only].sum(axis=1).max())})
independent = [p for p in populations if p in ("helm10", "opencompass11")]
glue_values({f"agree2_{t}": ("yes, both " + ("support it" if agreement(replication, t, independent)["supporting"]
                                             else "do not support it"))
             if agreement(replication, t, independent)["agree"] else
             "no: " + (", ".join(agreement(replication, t, independent)["supporting"]) or "neither")
             + " supports it" for t in CLAIM_TESTS})
shown = replication_table(results).rename(index=CLAIM_NAMES)
shown.columns = [f"{c} ({results[c]['population']['n_models']} models{', simulated' if c == data_source else ''})"
                 for c in shown.columns]
display(shown)
detail = pd.DataFrame({label: {**{f"{t}: {k}": v for t in CLAIM_TESTS for k, v in results[label][t].items()
                                  if k not in ("supports", "n_items")}}
                       for label in results})
detail.round(4)

# %% [markdown]
# ## One figure
#
# ```{glue:figure} fig_claims_forest
# :name: fig-claims-forest
#
# The central claims, each on its own test's scale: the paper's value (hollow diamond), the real
# pool and each real population (filled circles, with 95 % intervals where the test has one), and
# the simulated world that plants the paper's effects (hollow square; not a finding about MMLU).
# Dotted lines mark no effect (for homogeneity: the wild bootstrap's 5 % critical value).
# ```

# %%
rows = forest_rows(results)
glue_values({"forest_rows_json": rows.to_json(orient="records"),
             "replication_json": replication.to_json(orient="split")})  # the real populations only
fig = claims_forest(rows, titles=CLAIM_NAMES)
stamp_source(fig, pool)
glue_figure("fig_claims_forest", fig)
rows.round(4)

# %% [markdown]
# ## Checks

# %%
# the verdict follows from the decision and the power, and the decision from the statistics
for test in CLAIM_TESTS:
    assert verdicts[test] == claim_verdict(pool_results[test]["supports"], power_rows[test]["power"])
    assert verdicts[test] in VERDICTS
assert set(replication.index) == set(CLAIM_TESTS) and replication.isin(["yes", "no"]).all().all()
assert all(0 <= results[p][t][k] <= 1 for p in results for t, k in (("homogeneity", "w9_htz_p"),
                                                                    ("homogeneity", "wcb_p"),
                                                                    ("d_ner", "holm_p_cr2_d_ner")))
assert pool_source in REAL_SOURCES and all(p in REAL_SOURCES for p in populations)
