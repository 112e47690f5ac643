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
# # The central claims on real responses: a replication
#
# The paper's claims rest on a leaderboard matrix of {glue:text}`paper_n_models:,` models that cannot be
# fetched here. What can be fetched are real item-level MMLU responses from four model populations
# that share no model: HELM's frontier models, the OpenCompass-evaluated models of the PSN-IRT
# release, seven open models scored by lm-evaluation-harness log-likelihood (the Open LLM
# Leaderboard's own protocol) and RouteLLM's Mixtral. Testing the claims on them is a replication, and
# this page judges it as replication science does (`../shared/docs/replication.md`):
#
# - each claim has an **estimand** whose scale does not grow with the number of models — a
#   slope contrast per SD of the difficulties it is regressed on (a 2PL fitted to a few dozen models
#   shrinks b̂, and a contrast in logits would shrink with it), a share of variance, a ratio of
#   variances, a correlation — and the paper's estimate of it, with the standard error its text gives;
# - each population's 95 % interval is read against no effect and against the paper's estimate
#   (LeBel et al., 2019): *replicated*, *inconsistent* (larger, smaller, opposite sign),
#   *inconclusive* (too little data to tell) or *not replicated* ({ref}`page-glossary`);
# - the disjoint populations are combined by meta-analysis, beside the estimate on their pooled matrix;
# - a power figure is context, never a verdict.
#
# The simulated world is not on this page: it is not MMLU, and the method's behaviour on it is the
# validity chapter's subject.

# %% tags=["parameters"]
seed = 20240601  # seed of the calibrations, bootstraps, folds and 3PL nulls
fast = False  # smoke run: shorter fits, plus this chapter's fast-parameters below
pool_source = "mmlu_real_all"  # the pooled matrix of the disjoint populations
populations = ["helm20", "opencompass11", "lmeval7", "routellm1"]  # disjoint populations (no model in two)
n_boot = 9999  # wild cluster and subject-cluster bootstrap draws of every test
cv_folds = 10  # K of the item-fold cross-validation (STEM R²)
null_replicates = 100  # matrices simulated from each fitted 3PL (guessing floor)
n_splits = 200  # random model splits of the split-half reliability
multiverse_boot = 499  # bootstrap draws of each multiverse cell
results_dir = "../bench/results"  # where `make bench` recorded the 3PL cells, b̂'s split halves and the power study
executed_dir = "../book/_executed"  # where bookbuild writes this page; the claims table's CSV goes beside it

# %% [raw] tags=["fast-parameters"]
# n_boot = 199
# cv_folds = 5
# null_replicates = 3
# n_splits = 20
# multiverse_boot = 99

# %% tags=["hide-input"]
from pathlib import Path

import pandas as pd
from IPython.display import display

from mmlu_audit.analyses.central import MIN_POPULATION_MODELS, population_tests
from mmlu_audit.analyses.outcome_power import load_outcome_power, observed_outcome_rate, simulated_power
from mmlu_audit.analyses.multiverse import (DEFAULT, SPEC_CHOICES, combined_specifications, default_path_rows,
                                            disattenuate, fragility, load_bench, specification_forest, specifications,
                                            split_half_reliability)
from mmlu_audit.analyses.pipeline import analysis_inputs
from mmlu_audit.analyses.prompt_effect import prompt_effect
from mmlu_audit.analyses.replication import (CLAIM_ESTIMAND, CLAIM_TITLES, COMBINED, ESTIMANDS, OUTCOMES,
                                             POWER_CONVENTION, calibration_table, claim_outcomes, claim_sentence,
                                             claims_download, combined_rows, forest_table, judge, outcome_rows,
                                             sources_table)
from mmlu_audit.book.labels import labels as label_registry
from mmlu_audit.book.plots import estimand_forest, specification_curve, stamp_source, use_style
from mmlu_audit.book.report import glue_figure, glue_values, source_banner, write_download
from mmlu_audit.core.paper import PAPER
from mmlu_audit.data.real_pool import POPULATION_LABELS, check_disjoint
from mmlu_audit.worlds.sources import load_responses

use_style()
check_disjoint(populations)  # nested or overlapping samples are not replications
pool = load_responses(pool_source)
source_banner(pool)
glue_values({"paper_n_models": PAPER["n_models"][0], "power_convention": POWER_CONVENTION,
             "pool_n_models": pool.shape[0], "n_populations": len(populations),
             "pool_dropped": "; ".join(pool.meta.get("dropped", [])) or "none"})

# %% [markdown]
# ## The rule, passed through the paper's own numbers
#
# A rule under which the paper's own result would not replicate is a rule about significance. The
# first table is the paper's estimate of each estimand, with the interval its text gives, judged by the
# rule applied below to every real population. Where the paper gives no interval the row is *not
# estimable*: for the share of variance the nine interactions add, the paper reports only the Wald
# statistic it follows from, and its own cluster-robust tests of those nine coefficients are marginal
# (wild cluster bootstrap p = {glue:text}`paper_wcb_p`). The old decision rule of this page (HTZ and
# bootstrap p both below 0.05) failed the paper's own homogeneity result; this one does not judge it.

# %%
labels = label_registry()
calibration = calibration_table()
glue_values({"paper_wcb_p": PAPER["wcb_p"][0],
             "n_paper_replicated": int((calibration["outcome"] == OUTCOMES[0]).sum()),
             "n_paper_estimable": int((calibration["outcome"] != OUTCOMES[6]).sum())})
calibration.assign(estimand=[ESTIMANDS[k].label for k in calibration["estimand"]])[
    ["estimand", "estimate", "low", "high", "outcome"]].rename(columns=labels)

# %% [markdown]
# Of the {glue:text}`n_paper_estimable` estimands the paper gives an interval for, its own numbers are
# *replicated* under the rule for {glue:text}`n_paper_replicated`. Each estimand's source sentence and
# derivation are in `lib/mmlu_audit/analyses/replication.py` (`ESTIMANDS`), and listed at the end of the page.
#
# ## Each population, and their combination

# %%
inputs, results, outcomes = {}, {}, []
for source in [*populations, pool_source]:
    matrix = load_responses(source)
    if matrix.shape[0] < MIN_POPULATION_MODELS:
        outcomes.append(outcome_rows(source, None, f"{matrix.shape[0]} model: cannot estimate item difficulty"))
        continue
    results[source] = population_tests(source, seed=seed, fast=fast, n_boot=n_boot, cv_folds=cv_folds,
                                       replicates=null_replicates)
    inputs[source] = analysis_inputs(source, seed, fast)
    outcomes.append(outcome_rows(source, results[source]))
outcomes = pd.concat(outcomes, ignore_index=True)
combined = combined_rows(outcomes, populations)
table = pd.concat([outcomes, combined], ignore_index=True)
# power from the simulation study at each population's design (validity chapter); the normal
# approximation from this interval's SE stays beside it
power_study = load_outcome_power(Path(results_dir) / "outcome_power.json")
table = table.assign(power_analytic=table["power"], power=simulated_power(table, power_study),
                     outcome_rate_paper=observed_outcome_rate(table, power_study, "paper_estimates"),
                     outcome_rate_null=observed_outcome_rate(table, power_study, "null"))
glue_values({"power_study_seeds": power_study.attrs["n_seeds"],
             "power_study_worst_se": float(power_study["mc_se"].max())})
names = {source: f"{POPULATION_LABELS.get(source, source)} ({load_responses(source).shape[0]} "
                 f"model{'s' if load_responses(source).shape[0] > 1 else ''})" for source in populations}
names[pool_source] = f"pool of all {len(populations)} ({pool.shape[0]} models)"
names[COMBINED] = "combined, random effects (HKSJ)"
claims = claim_outcomes(table, COMBINED)
pool_claims = claim_outcomes(table, pool_source)
glue_values({f"outcome_{c}": claims.loc[c, "outcome"] for c in claims.index}
            | {f"pool_outcome_{c}": pool_claims.loc[c, "outcome"] for c in claims.index}
            | {f"sentence_{c}": claim_sentence(*claims.loc[c, ["outcome", "estimate", "low", "high", "paper"]])
               for c in claims.index}
            | {f"pool_sentence_{c}": claim_sentence(*pool_claims.loc[c, ["outcome", "estimate", "low", "high",
                                                                           "paper"]]) for c in claims.index}
            | {f"estimand_{c}": ESTIMANDS[CLAIM_ESTIMAND[c]].label for c in claims.index}
            | {"claims_json": claims.reset_index().to_json(orient="records"),
               "pool_claims_json": pool_claims.reset_index().to_json(orient="records")})

# %% [markdown]
# Each claim, read on its estimand across the {glue:text}`n_populations` disjoint populations combined
# (random effects, Hartung–Knapp–Sidik–Jonkman interval, which keeps its coverage with few studies):
#
# - **{glue:text}`title_homogeneity`** ({glue:text}`estimand_homogeneity`):
#   {glue:text}`sentence_homogeneity`. On the pooled matrix: {glue:text}`pool_sentence_homogeneity`.
# - **{glue:text}`title_d_ner`** ({glue:text}`estimand_d_ner`): {glue:text}`sentence_d_ner`. On the pooled
#   matrix: {glue:text}`pool_sentence_d_ner`.
# - **{glue:text}`title_stem_r2`** ({glue:text}`estimand_stem_r2`): {glue:text}`sentence_stem_r2`. On the
#   pooled matrix: {glue:text}`pool_sentence_stem_r2`.
# - **{glue:text}`title_guessing_floor`** ({glue:text}`estimand_guessing_floor`):
#   {glue:text}`sentence_guessing_floor`. On the pooled matrix: {glue:text}`pool_sentence_guessing_floor`.
#   The claim itself is about the 3PL null; its check is below.
#
# The pool leaves out: {glue:text}`pool_dropped`.

# %%
glue_values({f"title_{c}": t for c, t in CLAIM_TITLES.items()}
            | {f"power_{c}": claims.loc[c, "power"] for c in claims.index}
            | {f"pool_{k}": v for test in results[pool_source] if test != "population"
               for k, v in results[pool_source][test].items() if k not in ("supports", "n_items", "n_models")})
shown = table.assign(population=table["population"].map(names),
                     estimand=[ESTIMANDS[k].label for k in table["estimand"]])
columns = ["estimand", "population", "estimate", "low", "high", "outcome", "in_pi", "smaller_than_d33", "power",
           "power_analytic", "outcome_rate_paper", "outcome_rate_null"]
checks = ["in_pi", "smaller_than_d33"]  # None where the paper gives no interval to compare with
shown[checks] = shown[checks].astype(object).where(shown[checks].notna(), "not computable")
with pd.option_context("display.max_colwidth", None):
    display(shown[shown["population"].notna()][columns].rename(columns=labels))

# %% [markdown]
# Read down a column: *within the paper's prediction interval* is whether the estimate falls where a
# second study would land if both estimated one value (Patil, Peng and Leek, 2016); *smaller than d33* is
# Simonsohn's small-telescopes test (is the estimate significantly smaller than the effect the paper had
# a third power to detect?); *power* is how often an interval at this population's design excluded no
# effect in {glue:text}`power_study_seeds` worlds simulated with the paper's estimates planted (Monte Carlo
# SE at most {glue:text}`power_study_worst_se:.3f`; {ref}`chap-validity` shows the study, its size and
# its worlds; the pooled matrix was not simulated). A replication is conventionally expected to have
# {glue:text}`power_convention`. *Analytic power* is the same chance from the normal approximation with
# this interval's standard error, which assumes the estimate is centred on the truth. The last two
# columns place the row's own outcome in the same study: how often it arose where the paper's
# estimates are planted and where no effect is. An outcome that is rare in the first and common in
# the second (or the reverse) is evidence between the two; one equally common in both says nothing.
#
# ```{glue:figure} fig_claims_forest
# :name: fig-claims-forest
#
# Each claim's estimand on its own scale. Black hollow diamond: the paper, with the interval its text
# gives (grey band). Blue circles: each disjoint real population; green square: their pooled matrix; orange
# diamonds: their fixed- and random-effects combinations; all with 95 % intervals. A row that clears the
# dotted line (no effect) and reaches into the grey band is *replicated*; one that straddles both is
# *inconclusive*.
# ```

# %%
rows = forest_table(table, names)
fig = estimand_forest(rows, titles=CLAIM_TITLES)
stamp_source(fig, pool)
glue_figure("fig_claims_forest", fig)
glue_values({"forest_rows_json": rows.to_json(orient="records")})

# %% [markdown]
# The meta-analysis behind the combined rows: Cochran's Q and its p, I² (the share of the spread
# between populations beyond chance), and τ² (the between-population variance, on the analysis scale).

# %%
meta = combined.assign(estimand=[ESTIMANDS[k].label for k in combined["estimand"]])
meta[["estimand", "k", "fixed", "fixed_low", "fixed_high", "estimate", "low", "high", "q", "q_p", "i2",
      "tau2"]].rename(columns=labels)

# %% [markdown]
# ## The guessing floor: does the 3PL null account for r(β, θ̂)?
#
# §5.1's claim is that the negative two-stage correlation is mostly the guessing floor's artefact. The
# test with a stated size: simulate matrices from a 3PL with no ability × depth term at the population's
# own design, and ask whether the observed r lies inside the null's 95 % predictive band (two-sided tail
# probability). The paper gives the null's mean ({glue:text}`paper_null_r_all`) but not its spread, so its
# own row cannot be judged this way.

# %%
band = pd.DataFrame({names[s]: {k: results[s]["guessing_floor"][k] for k in
                                ("rs_r_all", "null_r_all", "null_low_all", "null_high_all", "null_tail_p_all")}
                     for s in results}).T
band["null accounts for it"] = (band["null_low_all"] <= band["rs_r_all"]) & (band["rs_r_all"] <= band["null_high_all"])
glue_values({"paper_null_r_all": PAPER["null_r_all"][0],
             "n_band_inside": int(band["null accounts for it"].sum()), "n_band": len(band)})
band.rename(columns=labels)

# %% [markdown]
# In {glue:text}`n_band_inside` of {glue:text}`n_band` real matrices the observed r lies inside the
# null's band: there, the floor alone can produce it.
#
# ## Reliability of the difficulty score
#
# A difficulty estimated from a few models is noisy. Noise in the outcome leaves a slope unbiased but
# shrinks an R² by the outcome's reliability, so a ratio of R²s compares reliabilities as much as
# structure. Two split-half reliabilities, each with Spearman–Brown: of b̂ itself, each half of the
# models calibrated on its own ({glue:text}`n_b_splits` random splits per population, recorded by
# `make bench`, `bench/bench_multiverse.py`), and of the empirical logit of each item's share wrong,
# which needs no fit and so allows {glue:text}`n_splits` splits. The ratio is corrected with b̂'s.

# %%
bench_cells, b_halves = load_bench(results_dir)  # checked at load; "run `make bench`" when not recorded
b_reliability = b_halves.groupby("population")[["reliability_stem", "reliability_nonstem"]].mean()
reliability = {s: split_half_reliability(load_responses(s).responses, inputs[s].frame["stem"].to_numpy(),
                                         seed=seed, n_splits=n_splits) for s in inputs}
ratio_rows = {}
for s, rel in reliability.items():
    row = outcomes[(outcomes["population"] == s) & (outcomes["estimand"] == "logit2_ratio")].iloc[0]
    b_rel = {"stem": b_reliability.loc[s, "reliability_stem"], "nonstem": b_reliability.loc[s, "reliability_nonstem"]}
    dis = disattenuate(row["estimate"], row["low"], row["high"], b_rel)
    ratio_rows[names[s]] = {"b_reliability_stem": b_rel["stem"], "b_reliability_nonstem": b_rel["nonstem"],
                            "reliability_stem": rel["stem"], "reliability_nonstem": rel["nonstem"],
                            "ratio": row["estimate"], "outcome": row["outcome"], "ratio_disattenuated": dis["ratio"],
                            "low_disattenuated": dis["low"], "high_disattenuated": dis["high"],
                            "outcome_disattenuated": judge("logit2_ratio", dis["ratio"], dis["low"],
                                                           dis["high"])["outcome"]}
reliability_table = pd.DataFrame(ratio_rows).T
changed = reliability_table[reliability_table["outcome"] != reliability_table["outcome_disattenuated"]]
glue_values({"n_splits": n_splits, "n_b_splits": int(b_halves.groupby("population").size().min()),
             "disattenuation_changes": ("changes the outcome in " + ", ".join(changed.index)) if len(changed)
             else "changes no population's outcome"})
reliability_table.rename(columns=labels)

# %% [markdown]
# Correcting the ratio for the two partitions' reliabilities {glue:text}`disattenuation_changes`. (The
# reliabilities' own uncertainty is not carried into the corrected interval.)
#
# ## A multiverse: which choices move an outcome?
#
# Each item-side estimand again under every combination of the difficulty outcome (the 2PL b̂, the
# 3PL b̂ with §5.1's guessing floor, or the empirical logit of the share wrong), the models (all, or
# without those below the near-chance cutoff; a fitted outcome then needs a refit, so that cell is
# computed only where no model is near chance), and the indicator set (the nine, or ten with prompt
# length), in each population, their combination and each leave-one-out combination. The 3PL cells
# need a 3PL fit per population and are recorded by `make bench` (`bench/bench_multiverse.py`). For
# the guessing floor's r only the population varies (each, combined, leave one out): its other
# choices would need a 3PL null per cell.

# %%
specs = pd.concat([specifications(s, inputs[s].frame, load_responses(s), seed=seed, n_boot=multiverse_boot)
                   for s in inputs] + [bench_cells[bench_cells["population"].isin(list(inputs))],
                                       default_path_rows(outcomes, "rs_r_all", list(inputs))],
                  ignore_index=True)
estimable = [s for s in populations if s in inputs]
specs = pd.concat([specs, combined_specifications(specs, estimable)], ignore_index=True)
fragile = fragility(specs, pool_source, names)
glue_values({f"fragility_{c}": fragile[CLAIM_ESTIMAND[c]] for c in CLAIM_ESTIMAND} | {"n_specs": len(specs), "default_path": ", ".join(
                 f"{k} {v}" for k, v in DEFAULT.items())})
fig = specification_curve(specification_forest(specs, names), titles=CLAIM_TITLES)
stamp_source(fig, pool)
glue_figure("fig_multiverse", fig)
write_download(specs, "real_verdicts_multiverse.csv", executed_dir)

# %% [markdown]
# {glue:text}`n_specs` specifications (default path: {glue:text}`default_path`, on the pooled matrix).
#
# - Homogeneity: {glue:text}`fragility_homogeneity`.
# - D_ner: {glue:text}`fragility_d_ner`.
# - STEM R²: {glue:text}`fragility_stem_r2`.
# - Guessing floor: {glue:text}`fragility_guessing_floor`.
#
# ```{glue:figure} fig_multiverse
# :name: fig-multiverse
#
# The specification curve: each claim's estimand under every specification (population or combination,
# difficulty outcome, models, indicators), sorted by estimate, with its 95 % interval, coloured by its
# replication outcome; the paper's estimate (dashed) and interval (grey band), and no effect (dotted). A
# panel of one colour is a robust outcome; several colours name a fragile one (the sentences above say
# which choices move it; the CSV lists every specification).
# ```
#
# {download}`Download every specification (CSV) <real_verdicts_multiverse.csv>`.
#
# ## One model, two prompts
#
# RouteLLM's gpt-4-1106-preview is also one of HELM's models, so the RouteLLM population keeps only its
# Mixtral (one model cannot estimate a difficulty alone; it joins the pool). The pair is a direct measure
# of how much the prompt moves item outcomes: on the {glue:text}`prompt_n_items:,` items both runs
# observed, accuracy is {glue:text}`prompt_accuracy_helm:.3f` under HELM's prompt and
# {glue:text}`prompt_accuracy_routellm:.3f` under RouteLLM's (difference {glue:text}`prompt_difference:.3f`,
# subject-bootstrap 95 % interval {glue:text}`prompt_difference_low:.3f` to
# {glue:text}`prompt_difference_high:.3f`); the two runs agree on {glue:text}`prompt_agreement:.1%` of items
# (Cohen's κ = {glue:text}`prompt_kappa:.2f`), and {glue:text}`prompt_flips:,` items flip between right and
# wrong with the prompt alone — a floor under the item × protocol noise every population here carries.

# %%
prompt = prompt_effect(seed=seed)
glue_values({f"prompt_{k}": prompt[k] for k in ("n_items", "accuracy_helm", "accuracy_routellm", "difference",
                                                "difference_low", "difference_high", "agreement", "kappa")}
            | {"prompt_flips": prompt["helm_right_routellm_wrong"] + prompt["helm_wrong_routellm_right"]})

# %% [markdown]
# ## Context: the paper's test statistics
#
# W(9) and the p-values grow with the number of models and items; they are shown for comparison with
# the paper's ({glue:text}`paper_w9_cr2` under CR2, wild cluster bootstrap p = {glue:text}`paper_wcb_p`),
# not as verdicts.

# %%
glue_values({"paper_w9_cr2": PAPER["w9_cr2"][0]})
context = pd.DataFrame({names[s]: {"w9_cr2": r["homogeneity"]["w9_cr2"], "w9_htz_p": r["homogeneity"]["w9_htz_p"],
                                   "wcb_p": r["homogeneity"]["wcb_p"], "t_cr2_d_ner": r["d_ner"]["t_cr2_d_ner"],
                                   "cv_r2_stem": r["stem_r2"]["cv_r2_stem"],
                                   "cv_r2_nonstem": r["stem_r2"]["cv_r2_nonstem"]}
                        for s, r in results.items()}).T
context.rename(columns=labels)

# %% [markdown]
# ## The claims table
#
# {download}`Download the claims table (CSV) <real_verdicts_claims.csv>`: per claim and population, the
# estimand, the paper's estimate and interval, the real estimate and interval, the outcome, the
# prediction-interval check, the power and the fragility sentence, with the paper's own row and the
# meta-analytic row.
#
# ## Where the paper's values come from

# %%
write_download(claims_download(table, names, fragile), "real_verdicts_claims.csv", executed_dir)
with pd.option_context("display.max_colwidth", None):
    display(sources_table())

# %% [markdown]
# ## Checks

# %%
# properties of the method, not of the findings: every outcome is one of the rule's words, nested samples
# were refused above, the combination used only disjoint populations, and the paper's own numbers pass
assert set(table["outcome"]) <= set(OUTCOMES)
assert set(combined["note"].str.split(": ").str[1].str.split(", ").sum()) <= set(populations)
assert (calibration.loc[calibration["se"].notna(), "outcome"] == OUTCOMES[0]).all()
assert set(specs["outcome"]) <= set(OUTCOMES) and set(SPEC_CHOICES) <= set(specs.columns)
