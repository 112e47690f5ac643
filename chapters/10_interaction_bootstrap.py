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
# (chap-interaction-bootstrap)=
# # How uncertain is the interaction? A bootstrap over models and subjects (§5.1, continued)
#
# {ref}`chap-native-interaction` fits the ability × depth interaction γ1 and gives it a mean-field
# interval. That interval holds every other parameter at its fit and the items fixed, so it cannot
# say how γ1 would move with other models or other subjects. This page refits the interaction
# model above the guessing floor on resamples of both, the interval the paper's remark that
# mean-field understates the spread asks for. It is a page of its own so that its refits, the
# longest step of §5.1, run and rerun with their own parameters apart from the single fits. The
# page opens with the refits on the real item-level responses ({ref}`sec-bootstrap-real`), then
# checks the method on the page's own source, by default a simulated world in which the planted γ1
# is 0 ({ref}`sec-bootstrap-check`).

# %% tags=["parameters"]
data_source = "simulated"  # simulated | simulated-null | helm20 | leaderboard
real_source = "mmlu_real"  # real item-level population the page opens with: mmlu_real | helm20 | opencompass11
seed = 20240601  # seed of the simulated world, the IRT fit and the bootstrap
fast = False  # smoke run: shorter shared fits, plus this chapter's fast-parameters below
boot_replicates = 200  # refits on checkpoints and subjects resampled with replacement (about 3 s each)
boot_max_steps = 0  # SVI step cap of each bootstrap refit; 0 keeps the full stopping rule
results_dir = "../bench/results"  # `make bench` records the default inputs' refits here; read only if they match
executed_dir = "../book/_executed"  # where bookbuild writes this page; the real refits' CSV goes beside it

# %% [raw] tags=["fast-parameters"]
# boot_replicates = 2
# boot_max_steps = 40

# %%
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import display

from mmlu_audit.irt import fit_cached
from mmlu_audit.analyses.modelside import (REFIT_CHECK, bootstrap_gammas, bootstrap_key, bootstrap_spec,
                                           interaction_spec, interval_table, read_bootstrap_record, recovery_check,
                                           record_name, working_stem_inputs)
from mmlu_audit.analyses.pipeline import analysis_inputs
from mmlu_audit.analyses.replication import classify, claim_sentence
from mmlu_audit.book.plots import KIND_STYLES, stamp_source, use_style
from mmlu_audit.book.report import finding_checks, glue_figure, glue_values, source_banner, value_label, write_download
from mmlu_audit.core.paper import paper_value

use_style()
inputs = analysis_inputs(data_source, seed, fast)
refitted = working_stem_inputs(inputs)  # the STEM items; the models above the floor (observable rule)
simulated = inputs.truth is not None
boot_spec = bootstrap_spec(fast, seed)
if boot_max_steps:
    boot_spec = boot_spec.with_(max_steps=boot_max_steps, min_steps=min(boot_spec.min_steps, boot_max_steps))

# %%
real = analysis_inputs(real_source, seed, fast)
source_banner(real.matrix)
real_refitted = working_stem_inputs(real)
real_fit = fit_cached(real_refitted["working_stem"], interaction_spec(fast, seed),
                      item_covariate=real_refitted["depth"], progress=False)
real_boot_inputs = {"replicates": boot_replicates, "seed": seed, "item_clusters": real_refitted["item_clusters"],
                    "row_clusters": real_refitted["row_clusters"]}
real_boot, real_record = read_bootstrap_record(
    results_dir, bootstrap_key(real_refitted["working_stem"].responses, real_refitted["depth"], boot_spec,
                               **real_boot_inputs), record_name(real_source))
if real_boot is None:  # no record of these inputs: refit here
    real_boot = bootstrap_gammas(real_refitted["working_stem"].responses, real_refitted["depth"], boot_spec,
                                 progress=not fast, **real_boot_inputs)
real_intervals = interval_table(real_fit, real_boot)
paper_gamma1 = {key: paper_value(f"gamma1{key}") for key in ("", "_low", "_high")}
real_outcome = classify(real_intervals.loc["gamma1", "estimate"], real_intervals.loc["gamma1", "bootstrap low"],
                        real_intervals.loc["gamma1", "bootstrap high"], paper_gamma1[""])
write_download(real_boot.reset_index(), "interaction_bootstrap_real_refits.csv", executed_dir)
glue_values({"real_n_models": real.matrix.shape[0], "real_source_name": real.matrix.source,
             "real_description": real.matrix.description,
             "real_n_working_models": int(real_refitted["working"].sum()),
             "real_n_checkpoints": np.unique(real_refitted["row_clusters"]).size,
             "real_n_stem_items": int(real_refitted["depth"].size),
             "real_n_subjects": np.unique(real_refitted["item_clusters"]).size,
             "real_boot_replicates": len(real_boot),
             "real_boot_converged": int(real_boot["converged"].sum()),
             "real_boot_origin": (f"The {len(real_boot)} refits were recorded by `make bench` on "
                                  f"{real_record['created'][:10]} from exactly these inputs (their SHA-256 key "
                                  "matches) and are read back, not rerun." if "key" in real_record else
                                  f"The refits ran in this build ({real_record['problem']} for these inputs)."),
             "real_outcome": real_outcome,
             "real_outcome_sentence": claim_sentence(real_outcome, real_intervals.loc["gamma1", "estimate"],
                                                     real_intervals.loc["gamma1", "bootstrap low"],
                                                     real_intervals.loc["gamma1", "bootstrap high"], paper_gamma1[""])}
            | {f"paper_gamma1{key}": value for key, value in paper_gamma1.items()}
            | {f"real_{name}_{key}": real_intervals.loc[name, column] for name in ("gamma0", "gamma1")
               for key, column in (("estimate", "estimate"), ("mf_low", "mean-field low"),
                                   ("mf_high", "mean-field high"), ("boot_low", "bootstrap low"),
                                   ("boot_high", "bootstrap high"), ("boot_ratio", "width ratio"))})
real_intervals.round(3)

# %% [markdown]
# (sec-bootstrap-real)=
# ## What the real responses say
#
# The real item-level responses of {glue:text}`real_n_models` models
# ({glue:text}`real_source_name`: {glue:text}`real_description`). The interaction model of
# {ref}`chap-native-interaction` is fitted on the {glue:text}`real_n_stem_items:,` STEM items
# some model answered, in {glue:text}`real_n_subjects` subjects, over the
# {glue:text}`real_n_working_models` models above the guessing floor
# ({glue:text}`real_n_checkpoints` distinct checkpoints), and refitted on
# {glue:text}`real_boot_replicates` resamples of the checkpoints and of the subjects jointly
# ({glue:text}`real_boot_converged` met the convergence rule; the method is described in
# {ref}`sec-bootstrap-check`). {glue:text}`real_boot_origin`
#
# γ1 = {glue:text}`real_gamma1_estimate:.3f`: its mean-field 95 % interval is
# [{glue:text}`real_gamma1_mf_low:.3f`, {glue:text}`real_gamma1_mf_high:.3f`], and the basic
# bootstrap interval over models and subjects is [{glue:text}`real_gamma1_boot_low:.3f`,
# {glue:text}`real_gamma1_boot_high:.3f`], {glue:text}`real_gamma1_boot_ratio:.1f` times as wide.
# Read against the paper's γ1 = {glue:text}`paper_gamma1:.3f`
# ([{glue:text}`paper_gamma1_low:.3f`, {glue:text}`paper_gamma1_high:.3f`]) with the replication
# outcomes of {ref}`chap-real-verdicts`, {glue:text}`real_outcome_sentence`. The paper's models are
# a thousand open leaderboard checkpoints and these are a few dozen; only the bootstrap interval
# lets other models and other subjects move the estimate.
# {download}`Download the real pool's refits (CSV) <interaction_bootstrap_real_refits.csv>`.

# %%
fig, ax = plt.subplots(figsize=(6.5, 3.2))
ax.hist(real_boot["gamma1"], bins=30, color="#999", alpha=0.6, label="γ1 of each refit")
levels = {"bootstrap (basic) 95 %": ("bootstrap low", "bootstrap high", 0.15),
          "mean-field 95 %": ("mean-field low", "mean-field high", 0.3)}
top = ax.get_ylim()[1]
for what, (low, high, height) in levels.items():
    ax.errorbar(real_intervals.loc["gamma1", "estimate"], top * (1 + height),
                xerr=[[real_intervals.loc["gamma1", "estimate"] - real_intervals.loc["gamma1", low]],
                      [real_intervals.loc["gamma1", high] - real_intervals.loc["gamma1", "estimate"]]],
                capsize=4, ms=7, **KIND_STYLES["real"])
    ax.annotate(what, (real_intervals.loc["gamma1", high], top * (1 + height)), xytext=(6, -4),
                textcoords="offset points")
ax.errorbar(paper_gamma1[""], top * 1.45, xerr=[[paper_gamma1[""] - paper_gamma1["_low"]],
                                                [paper_gamma1["_high"] - paper_gamma1[""]]],
            capsize=4, ms=7, label="paper (its leaderboard models)", **KIND_STYLES["paper"])
ax.axvline(0, color="k", lw=0.8, ls=":")
ax.set(xlabel="γ1 (per SD of depth × ability)", ylabel="refits", ylim=(0, top * 1.65),
       title=f"{value_label(real.matrix)}: γ1 above the floor")
ax.margins(x=0.25)
ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=2, frameon=False)
stamp_source(fig, real.matrix)
glue_figure("fig_real_bootstrap", fig)

# %% [markdown]
# ```{glue:figure} fig_real_bootstrap
# :name: fig-real-bootstrap
#
# The γ1 of each refit on the real pool (grey histogram), the estimate with its basic bootstrap and
# mean-field 95 % intervals (filled points), and the paper's γ1 with its interval (open diamond).
# What to see: how much wider the bootstrap interval is than the mean-field one, and whether it
# holds the dotted zero line, the paper's value, both or neither; that is the replication outcome
# in the text. The source is named under the figure.
# ```

# %% [markdown]
# (sec-bootstrap-check)=
# ## The method's check on this page's source
#
# From here on every figure is computed on the page's own source, named in the banner below. On
# the default simulated world no ability × depth term is planted, so the interval can be checked
# against a planted γ1 of 0; nothing in this part is a finding about MMLU.

# %%
source_banner(inputs.matrix)

# %% [markdown]
# ## The bootstrap interval
#
# The fit above the guessing floor ({glue:text}`n_working_models:,` models,
# {glue:text}`n_working_checkpoints:,` distinct checkpoints; the same fit as
# {ref}`chap-native-interaction`'s) is refitted on {glue:text}`boot_replicates` bootstrap
# resamples of the checkpoints and of the subjects jointly (whole checkpoints with all their rows,
# so that a duplicated checkpoint is one model, and whole subjects with all their items, drawn with
# replacement). Each refit runs the ELBO rule and then averages
# {glue:text}`boot_average_steps:,` iterates; on {glue:text}`refit_check_resamples` test
# resamples of the {glue:text}`refit_check_world` world it landed
# {glue:text}`refit_check_mean_sd:.2f` bootstrap SDs from the converged estimator on average, at most
# {glue:text}`refit_check_max_sd:.2f`. {glue:text}`boot_origin`
#
# Refits can be skewed and biased about the estimate (here the mean of γ1's refits sits
# {glue:text}`gamma1_boot_bias:+.4f` from it), so the interval to read is the basic (reflected)
# one, which corrects the percentile interval for both: γ1's is
# [{glue:text}`gamma1_boot_low:.3f`, {glue:text}`gamma1_boot_high:.3f`] (percentile interval
# [{glue:text}`gamma1_pct_low:.3f`, {glue:text}`gamma1_pct_high:.3f`]),
# {glue:text}`gamma1_boot_ratio:.1f` times as wide as the mean-field one
# (γ0: {glue:text}`gamma0_boot_ratio:.1f`; bias {glue:text}`gamma0_boot_bias:+.4f`), which puts a
# number on the paper's remark that mean-field understates the spread. {glue:text}`boot_note`

# %%
working, working_stem, depth = refitted["working"], refitted["working_stem"], refitted["depth"]
fit_working = fit_cached(working_stem, interaction_spec(fast, seed), item_covariate=depth, progress=False)
# whole checkpoints are resampled: duplicated rows of one checkpoint are one model, not several
boot_inputs = {"replicates": boot_replicates, "seed": seed, "item_clusters": refitted["item_clusters"],
               "row_clusters": refitted["row_clusters"]}
boot, boot_record = read_bootstrap_record(results_dir, bootstrap_key(working_stem.responses, depth, boot_spec,
                                                                     **boot_inputs))
if boot is None:  # no record of these inputs: refit here
    boot = bootstrap_gammas(working_stem.responses, depth, boot_spec, progress=not fast, **boot_inputs)
boot_origin = (f"The {len(boot)} refits were recorded by `make bench` on {boot_record['created'][:10]} from "
               "exactly these inputs (their SHA-256 key matches) and are read back, not rerun."
               if "key" in boot_record else f"The refits ran in this build ({boot_record['problem']} for "
               "these inputs).")
intervals = interval_table(fit_working, boot)
boot_note = (f"Fast mode: only {len(boot)} refits of at most {boot_max_steps} SVI steps each, so the bootstrap "
             "interval only shows that the machinery runs." if boot_max_steps else
             f"{int(boot['converged'].sum())} of {len(boot)} refits met the convergence rule.")
# the estimate the interval is around, as the native-interaction chapter glues it too (the same cached fit)
boot_values = {"n_working_models": int(working.sum()), "gamma1_working": intervals.loc["gamma1", "estimate"]}
for name in ("gamma0", "gamma1"):
    boot_values |= {f"{name}_boot_low": intervals.loc[name, "bootstrap low"],
                    f"{name}_boot_high": intervals.loc[name, "bootstrap high"],
                    f"{name}_pct_low": intervals.loc[name, "percentile low"],
                    f"{name}_pct_high": intervals.loc[name, "percentile high"],
                    f"{name}_boot_bias": intervals.loc[name, "bootstrap bias"],
                    f"{name}_boot_ratio": intervals.loc[name, "width ratio"]}
glue_values(boot_values | {"boot_replicates": len(boot), "boot_note": boot_note,
                           "boot_origin": boot_origin, "n_working_checkpoints": np.unique(refitted["row_clusters"]).size,
                           "boot_average_steps": boot_spec.average_steps,
                           "refit_check_resamples": REFIT_CHECK["resamples"], "refit_check_world": REFIT_CHECK["world"],
                           "refit_check_mean_sd": REFIT_CHECK["mean_offset_sd"],
                           "refit_check_max_sd": REFIT_CHECK["max_offset_sd"]})
intervals.round(3)

# %% [markdown]
# ## The planted world (simulated sources only)
#
# {glue:text}`planted_boot_note`

# %%
planted_boot_note = "On a real source there is no planted truth to compare with."
if simulated:
    zero = recovery_check(estimate=boot_values["gamma1_working"], low=boot_values["gamma1_boot_low"],
                          high=boot_values["gamma1_boot_high"], target=0.0)
    planted_boot_note = (
        "The simulator has no ability × depth term, so the planted γ1 is 0 in the population of models and "
        f"items. Above the floor the native model estimates γ1 = {boot_values['gamma1_working']:.3f}; the "
        f"bootstrap interval over models and subjects, [{boot_values['gamma1_boot_low']:.3f}, "
        f"{boot_values['gamma1_boot_high']:.3f}], covers the planted 0: {'yes' if zero['covers'] else 'no'}.")
glue_values({"planted_boot_note": planted_boot_note})

# %% [markdown]
# ## Checks

# %%
assert len(boot) == boot_replicates and np.isfinite(boot[["gamma0", "gamma1"]].to_numpy()).all()
assert len(real_boot) == boot_replicates and np.isfinite(real_boot[["gamma0", "gamma1"]].to_numpy()).all()
assert intervals.loc["gamma1", "mean-field low"] <= intervals.loc["gamma1", "estimate"] <= intervals.loc["gamma1", "mean-field high"]
# the population γ1 is 0 among the working models: whether this seed's estimate lies within 3 bootstrap
# SDs of it is reported, not asserted (a fast run's two capped refits make no interval)
display(finding_checks({"|γ̂1| within 3 bootstrap SDs of the planted 0":
                        abs(intervals.loc["gamma1", "estimate"]) <= 3 * intervals.loc["gamma1", "bootstrap SD"]
                        if simulated and not fast else None}))
