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
# (chap-reasoning-sensitivity)=
# # Reasoning sensitivity, the 3PL null and the native interaction (§5.1)
#
# Section 5.1 of the paper asks whether stronger models lose more accuracy as items demand
# deeper reasoning. It first fits, for every model, a logistic regression of its accuracy on
# standardised WSCG Depth over the STEM items (the Reasoning Sensitivity Coefficient β) and
# correlates β with ability. It then shows that this two-stage correlation is mostly an
# artefact of the guessing floor of a four-option test {cite}`birnbaum1968`, using a 3PL
# generative null, and replaces it by an interaction estimated inside the response model.
# This chapter recomputes all three on the source selected below, and adds an honest
# interval for the interaction: a bootstrap over models and subjects beside the mean-field one,
# on the models whose responses rise above the guessing floor.

# %% tags=["parameters"]
data_source = "simulated"  # simulated | simulated-null | helm20 | leaderboard
seed = 20240601  # seed of the simulated world, the IRT fits, the null and the bootstrap
fast = False  # smoke run: shorter shared fits, plus this chapter's fast-parameters below
null_replicates = 100  # R, matrices simulated from the fitted 3PL
boot_replicates = 50  # refits of the interaction model on models and subjects resampled with replacement
planted_gamma1 = -0.1  # γ1 planted in the second (interaction) world, near the paper's −0.086
boot_max_steps = 0  # SVI step cap of each bootstrap refit; 0 keeps the full stopping rule

# %% [raw] tags=["fast-parameters"]
# null_replicates = 3
# boot_replicates = 2
# boot_max_steps = 40

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import display

from mmlu_audit import load_responses
from mmlu_audit.irt import fit_cached
from mmlu_audit.analyses.modelside import (EXCLUSIONS, REFIT_CHECK, beta_theta_correlations, bootstrap_gammas, bootstrap_note,
                                  bootstrap_spec, column_submatrix, construct_consistency, gamma_summary,
                                  interaction_spec, interval_table, null_correlations, null_spec, null_summary,
                                  null_world_note, planted_gamma_target, planted_interaction_note,
                                  reasoning_sensitivity, simulate_3pl, simulate_interaction)
from mmlu_audit.inference import fisher_interval
from mmlu_audit.core.paper import PAPER, paper_table
from mmlu_audit.analyses.pipeline import analysis_inputs
from mmlu_audit.book.plots import SOURCE_COLORS, stamp_source, use_style
from mmlu_audit.book.report import glue_figure, glue_values, source_banner
from mmlu_audit.worlds.calibration import CHANCE_CUTOFF, above_floor

use_style()
inputs = analysis_inputs(data_source, seed, fast)
source_banner(inputs.matrix)
stem = inputs.frame["stem"].to_numpy(bool)
stem_matrix = column_submatrix(inputs.matrix, stem)
depth = inputs.frame.loc[stem, "wscg_depth"].to_numpy(float)
theta_hat = np.asarray(inputs.fit.theta)
simulated = inputs.truth is not None
LABELS = {"all": "all models", "excl_bottom_quartile": "excluding bottom quartile of θ̂",
          "excl_bottom_half": "excluding bottom half of θ̂"}

# %% [markdown]
# ## The two-stage coefficient
#
# For each of the {glue:text}`n_models:,` models, β is the slope of a logistic regression of
# its right/wrong answers on WSCG Depth (z-scored over the {glue:text}`n_stem_items:,` STEM
# items), in log-odds per standard deviation; cells a model did not answer are skipped, and a
# model with no finite maximum (all right or all wrong) is left out
# ({glue:text}`n_beta_missing` here). All models are fitted in one batched Newton iteration
# (tested against statsmodels to 10⁻⁶). The median β is {glue:text}`beta_median:.3f`.
# Correlated with the 2PL abilities θ̂ of the calibration chapter, β gives
# r = {glue:text}`rs_r_all:.3f` over all models, {glue:text}`rs_r_excl_bottom_quartile:.3f`
# without the bottom quartile of θ̂ and {glue:text}`rs_r_excl_bottom_half:.3f` without the bottom
# half: read naively, stronger models degrade more steeply with depth.

# %%
betas = reasoning_sensitivity(stem_matrix.responses, depth)
observed_r = beta_theta_correlations(betas["beta"], theta_hat)
rs_values = {f"rs_r_{k}": v for k, v in observed_r.items()}
glue_values(rs_values | {"n_models": len(betas), "n_stem_items": int(stem.sum()),
                         "n_beta_missing": int(betas["beta"].isna().sum()),
                         "beta_median": betas["beta"].median()})
paper_table(rs_values, {f"rs_r_{k}": f"r(β, θ̂), {v}" for k, v in LABELS.items()}).round(3)

# %% [markdown]
# ## The 3PL generative null
#
# A success probability bounded below by c = 0.25 compresses a weak model's empirical log-odds
# towards logit(0.25) on every item, so its slope on depth flattens whatever the item demands.
# To see how much of the correlation that geometry alone produces, a 3PL with c = 0.25 and no
# interaction is fitted to the STEM submatrix; {glue:text}`null_replicates` response matrices
# are simulated from its fitted parameters (seeded; cells missing in the data stay missing) and
# each is passed through the identical β procedure. The replicate β are correlated with the 3PL
# abilities that generated them. The null's mean correlations, and the share of the observed
# value each accounts for, are in the table; the null's abilities and difficulties correlate
# with the 2PL baseline at {glue:text}`null_theta_r_2pl:.3f` and {glue:text}`null_b_r_2pl:.3f`
# (construct consistency: the null is a model of the same test).

# %%
fit_3pl = fit_cached(stem_matrix, null_spec(fast, seed), progress=False)
observed_cells = stem_matrix.responses >= 0
null = null_correlations(fit_3pl.theta, fit_3pl.a, fit_3pl.b, depth, observed_cells,
                         replicates=null_replicates, seed=seed, progress=False)
summary = null_summary(observed_r, null)
consistency = construct_consistency(fit_3pl.theta, theta_hat, fit_3pl.b,
                                    inputs.frame.loc[stem, "b_hat"].to_numpy())
null_values = ({f"null_r_{k}": summary.loc[k, "null mean"] for k in EXCLUSIONS}
               | {f"null_share_{k}": summary.loc[k, "share of observed"] for k in EXCLUSIONS}
               | {"null_theta_r_2pl": consistency["theta"], "null_b_r_2pl": consistency["b"],
                  "null_replicates": null_replicates})
glue_values(null_values)
null_table = paper_table({k: v for k, v in null_values.items() if k != "null_replicates"},
                         {**{f"null_r_{k}": f"null r(β, θ), {v}" for k, v in LABELS.items()},
                          **{f"null_share_{k}": f"null / observed, {v}" for k, v in LABELS.items()},
                          "null_theta_r_2pl": "r(θ 3PL, θ̂ 2PL)", "null_b_r_2pl": "r(b 3PL, b̂ 2PL), STEM"})
null_table.round(3)

# %%
example = simulate_3pl(fit_3pl.theta, fit_3pl.a, fit_3pl.b, 0.25, observed_cells,
                       np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0]))
example_beta = reasoning_sensitivity(example, depth)["beta"]
fig, axes = plt.subplots(1, 2, figsize=(9, 3.8), sharey=True)
panels = [(theta_hat, betas["beta"], f"observed: r = {observed_r['all']:.3f}\n(paper: {PAPER['rs_r_all'][0]:.3f})",
           SOURCE_COLORS["ours"]),
          (fit_3pl.theta, example_beta, f"3PL null replicate: r = {null['all'].iloc[0]:.3f}\n"
           f"(paper's null mean: {PAPER['null_r_all'][0]:.3f})", "#888")]
for ax, (x, y, title, color) in zip(axes, panels, strict=True):
    ax.scatter(x, y, s=6, alpha=0.5, color=color)
    for share in (0.25, 0.5):
        ax.axvline(np.nanquantile(x, share), color="k", lw=0.6, ls=":")
    ax.axhline(0, color="k", lw=0.8)
    ax.set(xlabel="ability θ", title=title)
axes[0].set_ylabel("β (log-odds per SD of WSCG Depth)")
stamp_source(fig, inputs.matrix)
glue_figure("fig_rs_beta_theta", fig)

# %% [markdown]
# ```{glue:figure} fig_rs_beta_theta
# :name: fig-rs-beta-theta
#
# The Figure-1 analogue: β against ability for the observed matrix (left) and for one matrix
# simulated from the fitted 3PL with no interaction (right). Dotted lines mark the bottom
# quartile and bottom half of ability; each panel's title gives the paper's value beside ours. The
# negative relation appears in both.
# ```
#
# {numref}`fig-rs-beta-theta` puts one null replicate beside the observed relation: the
# downward trend of β with ability is already there when the generating model has no
# ability × depth term at all.

# %% [markdown]
# ## The native interaction model
#
# The paper therefore moves the interaction inside the response model,
# P = c + (1 − c) σ(a(θ − b) + γ0 W + γ1 θ W) with c = 0.25 and W the standardised depth, fitted to
# the STEM submatrix. As printed (free a_i and b_i per item under fixed N(0, 1) and HalfNormal(1)
# priors) the model does not identify γ: the likelihood sees only each item's slope a_i + γ1 W_i and
# intercept γ0 W_i − a_i b_i, so the items absorb any γ and the estimate follows the priors and the
# optimiser's path. Here the items are exchangeable draws from a learned distribution that does not
# depend on W (log a ~ N(μ, σ_a²), b ~ N(μ_b, σ_b²)), so γ1 is the linear depth trend of the
# discrimination and γ0 that of the item intercept, as in a random-effects regression; the scalar
# SDs are the mean-field optimum (a Laplace step at the fitted means), not the optimiser's last
# iterate. The means are converged, not the last iterate either: a single-draw gradient keeps every
# iterate jittering (fresh fits with different seeds spread γ1 over several of its SDs), so the
# fit runs at least {glue:text}`int_min_steps:,` steps and reports the mean of
# {glue:text}`int_average_steps:,` further iterates (Polyak–Ruppert averaging), then sets the two directions the likelihood cannot see at their optimum: θ's location
# and scale (θ → kθ + c with a → a / k, b → kb + c, γ1 → γ1 / k leaves every η unchanged; only
# θ's prior decides them) and the ridge that moves γ into the items. Seeds then agree within a
# fraction of the reported SD (tested). γ0 = {glue:text}`gamma0:.3f` (mean-field 95 % interval
# [{glue:text}`gamma0_low:.3f`, {glue:text}`gamma0_high:.3f`]) is the effect of depth at mean
# ability and γ1 = {glue:text}`gamma1:.3f` ([{glue:text}`gamma1_low:.3f`,
# {glue:text}`gamma1_high:.3f`]) the interaction, fitted as the paper does, over every model.
#
# **Models at the guessing floor.** {glue:text}`n_floor_models:,` of the
# {glue:text}`n_models_total:,` models answer below {glue:text}`chance_cutoff:.2f` of all items, at
# or near the floor of a four-option test. Their responses are flat in depth and in ability alike,
# so their abilities are not identified; the prior holds them at finite values where the model still
# has to predict floor responses, and γ1 can absorb part of that. This is the paper's warning that
# reasoning sensitivity is confounded by the guessing floor, here inside the response model. The
# same model fitted on the {glue:text}`n_working_models:,` models above the floor (a rule that needs
# only the responses) gives γ1 = {glue:text}`gamma1_working:.3f` (mean-field
# [{glue:text}`gamma1_working_low:.3f`, {glue:text}`gamma1_working_high:.3f`]).
#
# Mean-field intervals hold every other parameter at its fit and the items fixed, so the table
# also refits the working-model fit on
# {glue:text}`boot_replicates` bootstrap resamples of the models and of the subjects jointly
# (rows, and whole subjects with all their items, drawn with replacement; each refit averages
# {glue:text}`boot_average_steps:,` iterates after the ELBO rule; on
# {glue:text}`refit_check_resamples` test resamples of the {glue:text}`refit_check_world` world it landed
# {glue:text}`refit_check_mean_sd:.2f` bootstrap SDs from the converged estimator on average, at most
# {glue:text}`refit_check_max_sd:.2f`): γ1's bootstrap interval
# is [{glue:text}`gamma1_boot_low:.3f`, {glue:text}`gamma1_boot_high:.3f`],
# {glue:text}`gamma1_boot_ratio:.1f` times as wide as the mean-field one
# (γ0: {glue:text}`gamma0_boot_ratio:.1f`), which puts a number on the paper's remark that
# mean-field understates the spread. {glue:text}`boot_note`

# %%
int_spec = interaction_spec(fast, seed)
fit_int = fit_cached(stem_matrix, int_spec, item_covariate=depth, progress=False)
all_models = gamma_summary(fit_int)
# the observable rule (accuracy over all items), so a real source gets the same working fit
working = above_floor(inputs.matrix.responses, inputs.matrix.observed)
working_stem = stem_matrix.take(rows=np.flatnonzero(working))
fit_working = fit_cached(working_stem, int_spec, item_covariate=depth, progress=False)
boot_spec = bootstrap_spec(fast, seed)
if boot_max_steps:
    boot_spec = boot_spec.with_(max_steps=boot_max_steps, min_steps=min(boot_spec.min_steps, boot_max_steps))
stem_subjects = inputs.frame.loc[stem, "subject"].to_numpy()
boot = bootstrap_gammas(working_stem.responses, depth, boot_spec, replicates=boot_replicates, seed=seed,
                        item_clusters=stem_subjects, progress=not fast)
intervals = interval_table(fit_working, boot)
gamma_values = {"n_models_total": int(working.size), "n_working_models": int(working.sum()),
                "n_floor_models": int((~working).sum()), "chance_cutoff": CHANCE_CUTOFF}
for name in ("gamma0", "gamma1"):
    gamma_values |= {name: all_models.loc[name, "estimate"], f"{name}_low": all_models.loc[name, "low"],
                     f"{name}_high": all_models.loc[name, "high"],
                     f"{name}_working": intervals.loc[name, "estimate"],
                     f"{name}_working_low": intervals.loc[name, "mean-field low"],
                     f"{name}_working_high": intervals.loc[name, "mean-field high"],
                     f"{name}_boot_low": intervals.loc[name, "bootstrap low"],
                     f"{name}_boot_high": intervals.loc[name, "bootstrap high"],
                     f"{name}_boot_ratio": intervals.loc[name, "width ratio"]}
glue_values(gamma_values | {"boot_replicates": boot_replicates, "boot_note": bootstrap_note(boot, boot_max_steps),
                            "int_min_steps": int_spec.min_steps, "int_average_steps": int_spec.average_steps,
                            "boot_average_steps": boot_spec.average_steps,
                            "refit_check_resamples": REFIT_CHECK["resamples"], "refit_check_world": REFIT_CHECK["world"],
                            "refit_check_mean_sd": REFIT_CHECK["mean_offset_sd"],
                            "refit_check_max_sd": REFIT_CHECK["max_offset_sd"]})
gamma_table = paper_table({k: gamma_values[k] for k in ("gamma0", "gamma0_low", "gamma0_high",
                                                       "gamma1", "gamma1_low", "gamma1_high")})
display(gamma_table.round(3))
pd.concat({"all models (mean-field)": all_models.rename(columns={"low": "mean-field low", "high": "mean-field high"}),
           "above the floor": intervals}, names=["fitted on", "parameter"]).round(3)

# %% [markdown]
# ## The planted worlds (simulated sources only)
#
# {glue:text}`planted_note`
#
# {glue:text}`planted_interaction_note`

# %%
planted = {"planted_note": "On a real source there is no planted truth to compare with.",
           "planted_interaction_note": ""}
gamma1_intervals = {"estimate": gamma_values["gamma1_working"], "low": gamma_values["gamma1_working_low"],
                    "high": gamma_values["gamma1_working_high"], "boot_low": gamma_values["gamma1_boot_low"],
                    "boot_high": gamma_values["gamma1_boot_high"]}
if simulated:
    true_stem = inputs.truth["theta"][:, 0]
    tail = inputs.truth["tail"].astype(bool)
    true_r = beta_theta_correlations(betas["beta"], true_stem)
    world_target = planted_gamma_target(inputs.truth["a"][stem], inputs.truth["b"][stem], depth, 0.0, 0.0)
    planted["planted_note"] = null_world_note(
        true_r=true_r["all"], null_share=summary.loc["all", "share of observed"], n_tail=int(tail.sum()),
        gamma1=gamma1_intervals, item_target=world_target["gamma1"], tail_beta=betas["beta"][tail].mean(),
        rest_beta=betas["beta"][~tail].mean(),
        all_models={"estimate": gamma_values["gamma1"], "low": gamma_values["gamma1_low"],
                    "high": gamma_values["gamma1_high"], "n_floor": gamma_values["n_floor_models"],
                    "n_planted_chance": int(inputs.truth["chance"].sum()),
                    "rule_matches": bool(np.array_equal(working, ~inputs.truth["chance"].astype(bool)))})
    # a second world: the fitted interaction model's own parameters with a planted γ1 ≠ 0
    # (the working fit's: the floor models' abilities are not identified, so not a truth to plant)
    int_theta, int_a, int_b = fit_working.theta, fit_working.a, fit_working.b
    planted_y = simulate_interaction(int_theta, int_a, int_b, depth, gamma_values["gamma0_working"], planted_gamma1,
                                     0.25, observed_cells[working], seed=seed + 1)
    planted_fit = fit_cached(planted_y, int_spec, item_covariate=depth, progress=False)
    target = planted_gamma_target(int_a, int_b, depth, gamma_values["gamma0_working"], planted_gamma1)
    recovered = gamma_summary(planted_fit)
    planted_interaction = {"planted_gamma1": planted_gamma1, "planted_gamma1_target": target["gamma1"],
                           "planted_gamma1_hat": recovered.loc["gamma1", "estimate"],
                           "planted_gamma1_low": recovered.loc["gamma1", "low"],
                           "planted_gamma1_high": recovered.loc["gamma1", "high"]}
    planted["planted_interaction_note"] = planted_interaction_note(
        planted=planted_gamma1, target=target["gamma1"], estimate=planted_interaction["planted_gamma1_hat"],
        low=planted_interaction["planted_gamma1_low"], high=planted_interaction["planted_gamma1_high"])
    display(pd.DataFrame({"planted": [0.0, target["gamma1"], np.nan],
                          "item-sample target": [world_target["gamma1"], target["gamma1"], np.nan],
                          "estimate": [gamma_values["gamma1_working"], planted_interaction["planted_gamma1_hat"],
                                       observed_r["all"]],
                          "interval": [f"[{gamma_values['gamma1_boot_low']:.3f}, {gamma_values['gamma1_boot_high']:.3f}]"
                                       " bootstrap",
                                       f"[{planted_interaction['planted_gamma1_low']:.3f}, "
                                       f"{planted_interaction['planted_gamma1_high']:.3f}] mean-field", ""],
                          "3PL null": [np.nan, np.nan, summary.loc["all", "null mean"]]},
                         index=["γ1, simulated world (above the floor)", "γ1, planted-interaction world",
                                "r(β, θ̂), all models"]).round(3))
    glue_values(planted_interaction)
glue_values(planted)

# %% [markdown]
# ## Real responses: HELM, 20 models, item level
#
# The staged HELM matrix {cite}`liang2023helm` (the {cite}`hendrycks2021mmlu` items, HELM's 5-shot
# generation prompt) is the
# only real item-level source here. β can be computed for each of its 20 models (10 answered all
# STEM items, 10 only the Redux subset: {glue:text}`helm_stem_min:,` to
# {glue:text}`helm_stem_max:,` STEM items per model), and it is correlated below with each
# model's STEM accuracy logit rather than an IRT θ̂, which 20 models cannot calibrate well:
# r = {glue:text}`helm_r_beta_acc:.3f` (n = 20; Fisher 95 % interval [{glue:text}`helm_r_low:.2f`,
# {glue:text}`helm_r_high:.2f`]; the models' β rest on different numbers of STEM items, so their
# precision differs and the interval, which treats the 20 pairs alike, is if anything too narrow).
# What it cannot support: the quartile and half
# exclusions (15 and 10 frontier models, all far above the guessing floor, so the artefact the 3PL
# null measures barely acts), and a population-level interaction model or bootstrap over models.
# The 79-model HELM subject table has no items, so no β at all. These are frontier models on a
# different harness from the paper's 1,000 leaderboard models; nothing here replicates the
# paper's correlations.

# %%
helm = load_responses("helm20", items=inputs.items)
source_banner(helm)
helm_stem = column_submatrix(helm, stem)
helm_beta = reasoning_sensitivity(helm_stem.responses, depth)
acc = helm_beta["accuracy"].clip(0.26, 0.999)
helm_logit = np.log((acc - 0.25) / (1 - acc))
helm_beta.index = helm.models["model_id"]
helm_r = float(np.corrcoef(helm_beta["beta"], helm_logit)[0, 1])
helm_r_low, helm_r_high = fisher_interval(helm_r, len(helm_beta))
glue_values({"helm_stem_min": int(helm_beta["n_items"].min()), "helm_stem_max": int(helm_beta["n_items"].max()),
             "helm_r_beta_acc": helm_r, "helm_r_low": helm_r_low, "helm_r_high": helm_r_high})
helm_beta.sort_values("accuracy", ascending=False)[["beta", "accuracy", "n_items"]].round(3)

# %% [markdown]
# ## Checks

# %%
assert betas["converged"].mean() > 0.95 and np.isfinite(list(observed_r.values())).all()
assert null.shape == (null_replicates, 3) and np.isfinite(null.to_numpy()).all()
assert consistency["theta"] > 0.8 and consistency["b"] > 0.8
assert intervals.loc["gamma1", "mean-field low"] <= intervals.loc["gamma1", "estimate"] <= intervals.loc["gamma1", "mean-field high"]
assert helm_beta["beta"].notna().all() and len(helm_beta) == 20
assert helm_r_low < helm_r < helm_r_high
if simulated:
    # the population γ1 is 0 among the working models. Whether the 95 % bootstrap interval (over them
    # and the subjects) covers it is reported above, not asserted: a 95 % interval misses on 1 seed in
    # 20 by design, so the build stops only where the estimate lies more than 3 bootstrap SDs from 0
    # (0.3 % of seeds). A fast run's two capped refits make no interval, and the mean-field one is
    # conditional on the items (it covers this item sample's γ1, checked next).
    if not fast:
        boot_sd = intervals.loc["gamma1", "bootstrap SD"]
        assert abs(gamma1_intervals["estimate"]) <= 3 * boot_sd, ("planted γ1 = 0 not recovered",
                                                                  gamma1_intervals, boot_sd)
    # the mean-field interval is conditional on the items: it must cover this item sample's γ1
    assert gamma_values["gamma1_working_low"] <= world_target["gamma1"] <= gamma_values["gamma1_working_high"], (
        world_target, gamma_values)
    # the planted-interaction world keeps its items, so the mean-field interval must cover its target
    assert planted_interaction["planted_gamma1_low"] <= target["gamma1"] <= planted_interaction["planted_gamma1_high"], (
        "planted γ1 target not covered", target, planted_interaction)
if simulated and not fast:
    assert summary.loc["all", "null mean"] < 0  # the guessing floor alone produces a negative r
    if (~working).any():  # the floor models pull the all-model γ1 off the planted 0, as the prose says
        assert not gamma_values["gamma1_low"] <= 0 <= gamma_values["gamma1_high"], gamma_values
