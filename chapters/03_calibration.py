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
# (chap-calibration)=
# # Calibration: a 2PL IRT model by stochastic variational inference
#
# Paper §3. Item difficulty $b_i$ and discrimination $a_i > 0$ are estimated jointly with model
# abilities $\theta_j$ under the two-parameter logistic model {cite}`birnbaum1968`
#
# $$
# P(Y_{ji}=1) = \sigma\big(a_i(\theta_j - b_i)\big),\qquad
# \theta_j\sim\mathcal N(0,1),\; b_i\sim\mathcal N(0,1),\; a_i\sim\text{HalfNormal}(1),
# $$
#
# by stochastic variational inference with a mean-field Gaussian guide, missing cells masked
# out of the likelihood. The guide, the ELBO and the Adam optimiser are written by hand in JAX
# (NumPyro {cite}`bingham2019pyro` supplies the prior distributions), so that the whole optimiser compiles into one
# program; `tests/test_irt_numpyro.py` checks its gradients against JAX autodiff and its
# optimum against NumPyro's own SVI (`AutoNormal`, `Trace_ELBO`), which is also available as
# `fit_irt(..., engine="numpyro")`. The fit is cached by a hash of its inputs, so the later
# chapters reuse it. The page opens with what the real item-level MMLU responses say
# ({ref}`sec-calibration-real`); then it checks the method on the page's own source, by default a
# simulated world whose difficulties and abilities are planted ({ref}`sec-calibration-check`), and
# ends with the paper, the real pool and the simulated world side by side
# ({ref}`sec-calibration-side-by-side`).

# %% tags=["parameters"]
data_source = "simulated"  # simulated | simulated-null | mmlu_real | helm10 | helm20 | opencompass11 | leaderboard
real_source = "mmlu_real"  # real item-level population beside it: mmlu_real | helm10 | helm20 | opencompass11
seed = 20240601  # seed of the simulated world and of the SVI noise
fast = False  # smoke run: shorter shared fits, plus this chapter's fast-parameters below
cohort_seed = 7  # seed of the split into two model cohorts
cohort_split = "checkpoint"  # "checkpoint": whole distinct checkpoints per cohort; "rows": random rows
extra_steps = 2000  # SVI step cap for the split-cohort and alternative-prior fits
export_draws = 20  # posterior draws per parameter in the page's netCDF download of the calibration
executed_dir = "../book/_executed"  # where bookbuild writes this page; the netCDF download goes beside it

# %% [raw] tags=["fast-parameters"]
# extra_steps = 150

# %%
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import Markdown, display

from mmlu_audit.core.checkpoints import checkpoint_labels
from mmlu_audit.irt import (fit_cached, icc_bins, items_at_quantiles, parameter_ranges, recovery_table,
                            split_cohort_reliability)
from mmlu_audit.core.paper import paper_table, paper_value
from mmlu_audit.analyses.calibration import CALIBRATION_KEYS, calibration_headline_with_cohorts
from mmlu_audit.analyses.pipeline import analysis_inputs, calibration_spec
from mmlu_audit.analyses.regression import difficulty_reliability, estimated_items
from mmlu_audit.book.plots import PARTITION_COLORS, SOURCE_COLORS, figure_title, stamp_source, use_style
from mmlu_audit.book.report import (finding_checks, glue_figure, glue_values, source_banner, three_way_table,
                                    value_label, write_download, write_netcdf_download)
from mmlu_audit.irt.posterior import to_inference_data
from mmlu_audit.worlds.simulated import working_models

use_style()
inputs = analysis_inputs(data_source, seed, fast)
matrix, fit, frame, truth = inputs.matrix, inputs.fit, inputs.frame, inputs.truth

# %%
real = analysis_inputs(real_source, seed, fast)
source_banner(real.matrix)

# %% [markdown]
# (sec-calibration-real)=
# ## What the real responses say
#
# The calibration on the real item-level responses of {glue:text}`real_n_models` models
# ({glue:text}`real_source_name`: {glue:text}`real_description`). Their difficulties span
# $\hat b \in$ [{glue:text}`real_b_min:.2f`, {glue:text}`real_b_max:.2f`] with SD
# {glue:text}`real_b_sd:.2f`, their abilities $\hat\theta \in$ [{glue:text}`real_theta_min:.2f`,
# {glue:text}`real_theta_max:.2f`] with SD {glue:text}`real_theta_sd:.2f`; the paper's calibration
# by {glue:text}`paper_n_models:,.0f` models spans $\hat b \in$ [{glue:text}`paper_b_min:.3g`,
# {glue:text}`paper_b_max:.3g`] ({numref}`fig-real-calibration`, left).
#
# Where the pool joins several populations (`mmlu_real` joins HELM and OpenCompass, which answered
# under different prompts and, for HELM's Redux models, on different items), a cohort made mostly
# of one population would differ from the other for a reason that is not unreliability, so each
# cohort takes about half of every population, whole checkpoints together. The two cohorts, of
# {glue:text}`real_cohort_size` and {glue:text}`real_cohort_second_size` models
# ({glue:text}`real_cohort_split_text`), give difficulty vectors that correlate at
# $r_{hh}$ = {glue:text}`real_split_cohort_r:.4f` over the {glue:text}`real_cohort_items:,` items both
# answered ({numref}`fig-real-calibration`, right), a Spearman–Brown reliability of
# {glue:text}`real_spearman_brown:.4f`. The paper reports {glue:text}`paper_split_cohort_r:.4f` and
# {glue:text}`paper_spearman_brown:.4f` for two halves of its {glue:text}`paper_n_models:,.0f`
# leaderboard models. The reliability of the real pool's $\hat b$ from its own posterior standard
# errors, one minus the mean posterior variance over the variance of $\hat b$, is
# {glue:text}`real_b_reliability:.3f` (optimistic, since mean-field posteriors understate spread).
# These reliabilities describe a calibration by a few dozen models, and the split-half figure one by
# half of them; neither stands in for the reliability of the paper's calibration.

# %%
cohort_spec = calibration_spec(fast, seed, max_steps=extra_steps)
real_values, real_cohorts = calibration_headline_with_cohorts(real, cohort_spec, seed=cohort_seed,
                                                              cohort_split=cohort_split)
real_within = (f", halved within each of its {real_values['n_strata']} populations"
               if (real_values["n_strata"] or 0) > 1 else "")  # one population is no stratification
glue_values({f"real_{k}": v for k, v in real_values.items()}
            | {"real_cohort_split_text": (
                f"whole distinct checkpoints, {real_values['cohort_groups']:,} of them{real_within}"
                if real_values["cohort_split"] == "groups" else
                f"random rows{real_within}, copies of a checkpoint may fall in both")}
            | {"real_n_models": real.matrix.shape[0], "real_source_name": real.matrix.source,
               "real_description": real.matrix.description,
               "paper_split_cohort_r": paper_value("split_cohort_r"), "paper_b_min": paper_value("b_min"),
               "paper_b_max": paper_value("b_max"),
               "paper_spearman_brown": paper_value("spearman_brown"), "paper_n_models": paper_value("n_models")})

real_frame = estimated_items(real.frame)
fig, (left, right) = plt.subplots(1, 2, figsize=(6.5, 3.3), gridspec_kw={"wspace": 0.45})
for part, colour in PARTITION_COLORS.items():
    left.hist(real_frame.loc[real_frame.partition == part, "b_hat"], bins=50, alpha=0.6, color=colour,
              label=part, density=True)
for end in ("b_min", "b_max"):
    left.axvline(paper_value(end), color=SOURCE_COLORS["paper"], ls="--", lw=1.2,
                 label="paper's range" if end == "b_min" else None)
left.set(xlabel=r"$\hat b$ (logits)", ylabel="density", title="Difficulty by partition")
left.legend(fontsize=8.5)
right.scatter(real_cohorts["b_first"], real_cohorts["b_second"], s=2, alpha=0.25, color=SOURCE_COLORS["ours"])
ends = [real_cohorts.min().min(), real_cohorts.max().max()]
right.plot(ends, ends, color="k", lw=0.8, ls=":")
right.text(0.04, 0.96, f"r = {real_values['split_cohort_r']:.3f}\npaper: r = {paper_value('split_cohort_r'):.4f}",
           transform=right.transAxes, va="top", fontsize=9)
right.set(xlabel=f"$\\hat b$, cohort of {real_values['cohort_size']} models",
          ylabel=f"$\\hat b$, cohort of {real_values['cohort_second_size']} models", title="Split-cohort agreement")
figure_title(fig, f"Calibration of {real.matrix.shape[0]} real models")
stamp_source(fig, real.matrix)
glue_figure("fig_real_calibration", fig)

# %% [markdown]
# ```{glue:figure} fig_real_calibration
# :name: fig-real-calibration
#
# Left: the real pool's calibrated difficulty $\hat b$ by partition, with the range the paper's
# calibration reports dashed. Right: each item's $\hat b$ from one cohort of real models against the
# other's (dotted: equality); the correlation is the split-cohort reliability, beside the paper's.
# What to see: a cloud far wider than the dotted line is a difficulty that a few dozen models cannot
# pin down, and a histogram narrower than the paper's range is a scale set by the prior more than by
# the responses (the check below measures that compression where the difficulties are planted). The
# source is named under the figure.
# ```

# %% [markdown]
# (sec-calibration-check)=
# ## The method's check on this page's source
#
# From here on every figure is computed on the page's own source, named in the banner below. On
# the default simulated world the difficulties and abilities are planted, so the calibration can be
# checked against the truth; nothing in this part is a finding about MMLU.

# %%
source_banner(matrix)

# %% [markdown]
# ## The fit
#
# The SVI run took {glue:text}`steps:,` steps ({glue:text}`converged`, on {glue:text}`backend`;
# timings are on the {ref}`chap-performance` page). Calibrated difficulty spans
# $b \in$ [{glue:text}`b_min:.2f`, {glue:text}`b_max:.2f`] with SD {glue:text}`b_sd:.2f`; ability
# spans $\theta \in$ [{glue:text}`theta_min:.2f`, {glue:text}`theta_max:.2f`] with SD
# {glue:text}`theta_sd:.2f`.

# %%
meta = fit.meta
theta = np.asarray(fit.theta)
b_hat, a_hat = frame["b_hat"].to_numpy(), frame["a_hat"].to_numpy()  # NaN where nobody answered
calibrated = np.isfinite(b_hat)
ranges = parameter_ranges(b_hat, theta)
glue_values(ranges | {"steps": meta["steps"], "backend": meta["backend"],
                      "converged": "converged by the ELBO rule" if meta["converged"] else "stopped at the step cap"})
paper_table({k: round(v, 3) for k, v in ranges.items()}, column=value_label(matrix))

# %%
fig, (left, mid, right) = plt.subplots(1, 3, figsize=(7.5, 3.4))
skip = min(10, len(fit.elbo) // 10)  # the first steps dwarf the rest of the trace
left.plot(np.arange(skip, len(fit.elbo)), fit.elbo[skip:], lw=0.8, color="#333")
left.set(xlabel="SVI step", ylabel="ELBO (nats)", title="ELBO trace")
for part, colour in PARTITION_COLORS.items():
    mid.hist(frame.loc[frame.partition == part, "b_hat"], bins=60, alpha=0.6, color=colour,
             label=part, density=True)
mid.set(xlabel=r"$\hat b$", title="Difficulty by partition")
mid.legend()
right.hist(theta, bins=40, color="#555")
right.set(xlabel=r"$\hat\theta$", title="Ability")
stamp_source(fig, matrix)
glue_figure("fig_calibration", fig)
# the page's download: the calibration's posterior as ArviZ InferenceData, thinned, float32
export = to_inference_data(fit, data_source=data_source, seed=seed, n_draws=export_draws, dtype=np.float32)
export_path = write_netcdf_download(export, "calibration_2pl_fit.nc", executed_dir)
glue_values({"calibration_export_draws": export_draws, "calibration_export_mb": export_path.stat().st_size / 1e6})

# %% [markdown]
# {numref}`fig-calibration` summarises the fit.
#
# {download}`Download the calibration's posterior draws (ArviZ InferenceData, netCDF) <calibration_2pl_fit.nc>`:
# {glue:text}`calibration_export_draws` draws of every θ, b and a from the fitted mean-field guide (float32,
# {glue:text}`calibration_export_mb:.1f` MB), with the data source, the seeds, the SVI steps, the guide and the
# package versions in its attributes; `arviz.from_netcdf` reads it.
#
# ```{glue:figure} fig_calibration
# :name: fig-calibration
#
# Left: the ELBO trace of the SVI fit. Middle: calibrated difficulty $\hat b$ by partition.
# Right: calibrated ability $\hat\theta$. The source is named under the figure.
# ```

# %% [markdown]
# ## Item characteristic curves
#
# Four items at the 5th, 35th, 65th and 95th percentiles of $\hat b$: the fitted curve
# $\sigma(\hat a(\theta - \hat b))$ against the observed share correct of models binned by
# $\hat\theta$.

# %%
picks = items_at_quantiles(b_hat, [0.05, 0.35, 0.65, 0.95])
grid = np.linspace(theta.min() - 0.5, theta.max() + 0.5, 200)
binned = {i: icc_bins(theta, matrix.responses[:, i], matrix.observed[:, i], n_bins=10) for i in picks}
fig, axes = plt.subplots(2, 2, figsize=(7.5, 5.4), sharey=True)
for ax, i in zip(axes.flat, picks, strict=True):
    ax.plot(grid, 1 / (1 + np.exp(-a_hat[i] * (grid - b_hat[i]))), color=SOURCE_COLORS["ours"])
    ax.scatter(binned[i]["centre"], binned[i]["share"], s=12, color="#333")
    ax.set(title=f"{frame.index[i]}\nb={b_hat[i]:.2f}, a={a_hat[i]:.2f}", xlabel=r"$\theta$")
    ax.title.set_fontsize(9)
for ax in axes[:, 0]:
    ax.set_ylabel("P(correct)")
stamp_source(fig, matrix)
glue_figure("fig_icc", fig)

# %% [markdown]
# {numref}`fig-icc` draws the four items.
#
# ```{glue:figure} fig_icc
# :name: fig-icc
#
# Fitted item characteristic curves (line) against the observed share correct of models binned by
# $\hat\theta$ (dots), for items at the 5th, 35th, 65th and 95th percentiles of $\hat b$.
# ```

# %% [markdown]
# ## Split-cohort reliability
#
# Two disjoint cohorts of {glue:text}`cohort_size` and {glue:text}`cohort_second_size` models
# ({glue:text}`cohort_split_text`) are calibrated separately. The paper split at random;
# a leaderboard repeats checkpoints, and a copy in each cohort would make them agree for a reason
# that is not reliability, so by default every distinct checkpoint goes whole to one cohort.
# Their difficulty vectors correlate at $r_{hh}$ = {glue:text}`r_hh:.4f` across the
# {glue:text}`cohort_items:,` items both cohorts answered, a full-test reliability of
# {glue:text}`spearman_brown:.4f` by Spearman–Brown.

# %%
assert cohort_split in ("checkpoint", "rows"), f"cohort_split is 'checkpoint' or 'rows', not {cohort_split!r}"
cohort_groups = checkpoint_labels(matrix.responses, matrix.models) if cohort_split == "checkpoint" else None
reliability = split_cohort_reliability(matrix, cohort_spec, seed=cohort_seed, groups=cohort_groups)
glue_values({"cohort_second_size": reliability["second_size"],
             "cohort_split_text": (f"whole distinct checkpoints, {reliability['n_groups']:,} of them"
                                   if reliability["split"] == "groups" else
                                   "random rows, copies of a checkpoint may fall in both")})
glue_values({"r_hh": reliability["r"], "split_cohort_r": reliability["r"],  # the paper key, for the scorecard
             "spearman_brown": reliability["spearman_brown"],
             "cohort_size": reliability["cohort_size"], "cohort_items": int(reliability["items_used"].sum())})
paper_table({"split_cohort_r": round(reliability["r"], 4),
             "spearman_brown": round(reliability["spearman_brown"], 4)}, column=value_label(matrix))

# %%
if matrix.shape[0] < 100:
    display(Markdown(
        f"**What {matrix.shape[0]} models can support.** Each difficulty is estimated from at most "
        f"{matrix.observed.sum(axis=0).max()} responses, mostly from strong models, so item "
        f"parameters are noisy (split-half r = {reliability['r']:.2f}) and the ability scale is "
        "anchored only by the prior. These estimates illustrate the pipeline on real data; they "
        "cannot stand in for the paper's 1,000-model calibration."))

# %% [markdown]
# ## Recovery of the planted truth (simulated sources only)
#
# On a simulated world the generating difficulties are known. A mean-field fit under the
# paper's $\mathcal N(0,1)$ prior on $b$ recovers their **order** well but **compresses their
# scale**: with many more items than models, the item prior, not the ability prior, sets the
# scale. The recovery slope of $\hat b$ on $b$ measures this; every downstream coefficient is
# in $\hat b$ units. A documented option, `b_prior="hierarchical"` (learned location and scale of
# $b$), is meant to remove the compression; the paper's specification remains the default.
#
# **Models at the guessing floor.** The world's calibration ({glue:text}`world_calibration`) plants
# {glue:text}`n_chance_models:,` of its {glue:text}`n_world_models:,` models at chance, as the real
# leaderboard has them: they answer every item at the guessing floor whatever their ability, so
# their θ is not identified (any value far enough below the items fits their responses) and the
# planted value is a stand-in. The fits keep them, as the paper's procedure does on a real
# leaderboard, and ability recovery is measured among the {glue:text}`n_working_models:,` working
# models: r(θ̂, θ) = {glue:text}`recovery_theta_r:.3f` under the paper's prior (against the
# stand-ins of all models it would be {glue:text}`recovery_theta_r_all:.3f`).
#
# The item side pays for them. The paper's 2PL has no guessing floor, and these models answer about
# a quarter of even the hardest items correctly, which a 2PL can only read as easier items of
# flatter slope. With them in the fit, $\hat b$ follows $b$ at r = {glue:text}`recovery_r:.3f`,
# with slope {glue:text}`recovery_slope:.3f` under the paper's prior and
# {glue:text}`recovery_slope_hier:.3f` under the hierarchical one: {glue:text}`hierarchical_effect`
# This is a finding about the paper's procedure, not a defect of the fit: on a leaderboard that holds
# broken models, a 2PL without a floor degrades the item side, and {ref}`chap-real-leaderboard`
# finds the same on the real leaderboard models.

# %%
population = {"world_calibration": matrix.meta.get("calibration", "none: the responses are real"),
              "n_world_models": matrix.shape[0], "n_chance_models": 0, "n_working_models": 0,
              "hierarchical_effect": "",
              **dict.fromkeys(("recovery_theta_r", "recovery_theta_r_all", "recovery_r", "recovery_slope",
                               "recovery_slope_hier"), float("nan"))}
if truth is not None:
    alternative = fit_cached(matrix, calibration_spec(fast, seed, b_prior="hierarchical", max_steps=extra_steps),
                             progress=False)
    working = working_models(truth)  # the planted flags: a truth comparison, not a fit
    fits = {"paper prior N(0,1)": fit, "hierarchical prior": alternative}
    recovery = recovery_table(fits, truth, models=working)
    recovery_all = recovery_table(fits, truth)
    gain = recovery.iloc[1, 1] - recovery.iloc[0, 1]
    population |= {"n_chance_models": int((~working).sum()), "n_working_models": int(working.sum()),
                   "recovery_theta_r": recovery.loc["paper prior N(0,1)", "r(θ̂, θ)"],
                   "recovery_theta_r_all": recovery_all.loc["paper prior N(0,1)", "r(θ̂, θ)"],
                   "recovery_r": recovery.iloc[0, 0], "recovery_slope": recovery.iloc[0, 1],
                   "recovery_slope_hier": recovery.iloc[1, 1],
                   "hierarchical_effect": (f"the hierarchical prior lifts the slope by {gain:.2f}, "
                                           "reducing the compression." if gain >= 0.1 else
                                           f"the hierarchical prior changes the slope by {gain:+.3f}, so with "
                                           "models at the floor in the fit it does not undo the compression.")}
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.4), sharex=True)
    for ax, (label, this) in zip(axes, [("paper prior", fit), ("hierarchical prior", alternative)], strict=True):
        ax.scatter(truth["b"], this.b, s=1, alpha=0.2, color="#333")
        lims = [truth["b"].min(), truth["b"].max()]
        ax.plot(lims, lims, color="k", lw=0.8, label="identity")
        ax.set(xlabel="planted b (simulated)", ylabel=r"$\hat b$", title=label)
    figure_title(fig, "Recovery of planted difficulties")
    stamp_source(fig, matrix)
    plt.show()
    display(recovery.join(recovery_all[["r(θ̂, θ)"]], rsuffix=" vs stand-ins").round(4))
else:
    display(Markdown("The responses are real, so there is no planted truth to recover."))
glue_values(population)

# %% [markdown]
# (sec-calibration-side-by-side)=
# ## The paper, the real pool and the simulated world side by side
#
# The headline figures of {ref}`sec-calibration-real` beside the paper's and those of this page's own
# source, with the planted difficulties where the source is simulated: the real column is evidence
# about MMLU; the simulated column is the check of the method. On the chapter's own source the two
# cohorts correlate at {glue:text}`r_hh:.4f` (Spearman–Brown {glue:text}`spearman_brown:.4f`), and the
# reliability of its $\hat b$ from the posterior standard errors is {glue:text}`b_reliability:.3f`.
# {download}`Download the table (CSV) <calibration_side_by_side.csv>`.

# %%
simulated_values = ranges | {"split_cohort_r": reliability["r"], "spearman_brown": reliability["spearman_brown"],
                             "b_reliability": difficulty_reliability(estimated_items(frame))}
glue_values({"b_reliability": simulated_values["b_reliability"]})
planted_b = None if truth is None else {k: v for k, v in parameter_ranges(truth["b"], theta).items()
                                        if k.startswith("b_")}  # the planted b (θ: stand-ins, left out)
side_by_side = three_way_table({k: simulated_values[k] for k in CALIBRATION_KEYS}, real_values,
                               real_matrix=real.matrix, planted=planted_b,
                               labels={"b_reliability": "reliability of b̂ from its SEs"})
write_download(side_by_side.reset_index(), "calibration_side_by_side.csv", executed_dir)
side_by_side.round(4)

# %% [markdown]
# ## Checks

# %%
assert np.isfinite(fit.b).all() and (fit.a > 0).all()
assert calibrated.sum() == len(fit.b) and len(b_hat) == len(inputs.items)
assert np.isclose(reliability["spearman_brown"], 2 * reliability["r"] / (1 + reliability["r"]))  # Spearman–Brown
assert np.isclose(real_values["spearman_brown"], 2 * real_values["split_cohort_r"] / (1 + real_values["split_cohort_r"]))
assert real_values["cohort_size"] + real_values["cohort_second_size"] == real.matrix.shape[0]
assert len(real_cohorts) == real_values["cohort_items"]  # the figure's cohorts are the headline's
assert np.isclose(np.corrcoef(real_cohorts["b_first"], real_cohorts["b_second"])[0, 1],
                  real_values["split_cohort_r"])
if "population" in real.matrix.models:  # the real cohorts were halved within each population
    assert real_values["n_strata"] == real.matrix.models["population"].nunique()
assert real_values["b_reliability"] <= 1 and simulated_values["b_reliability"] <= 1
assert np.all(np.diff(b_hat[picks]) >= 0), "the ICC items are in the order of their percentiles"
for i, table in binned.items():  # the bins hold every model that answered, and their shares average back
    answered = matrix.responses[matrix.observed[:, i], i]
    assert table["n"].sum() == answered.size and np.isclose((table["share"] * table["n"]).sum(), answered.sum())
if truth is not None:  # planted b and θ (θ among the working models): order recovered, scale compressed
    assert population["n_working_models"] + population["n_chance_models"] == matrix.shape[0]
# what this one seed recovered of the planted world is reported, not asserted
if truth is not None:
    slopes = recovery["slope"]
    display(finding_checks({
        "θ̂ and b̂ keep the planted order (r > 0.95 and > 0.9)":
            (recovery["r(θ̂, θ)"] > 0.95).all() and (recovery["r(b̂, b)"] > 0.9).all(),
        "the paper's N(0, 1) prior compresses b (recovery slope < 0.8)": slopes["paper prior N(0,1)"] < 0.8,
        "without floor models the hierarchical prior undoes most of it":
            slopes["hierarchical prior"] > slopes["paper prior N(0,1)"] + 0.1
            if not population["n_chance_models"] else None,
        "the order of b̂ is good (r > 0.95) exactly when there are no floor models":
            (recovery.iloc[0, 0] > 0.95) == (population["n_chance_models"] == 0) if not fast else None}))
