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
# (chap-appendix-c-explanatory)=
# # Appendix C, continued: the fully explanatory IRT model
#
# The paper names the model that would answer its question in one step, and reports that it would
# not identify. This page fits it and asks whether it identifies here, where the generating model is
# close to it. It continues {ref}`chap-appendix-c` on a page of its own so that its SVI restarts,
# the longest step of that appendix, run and rerun apart from the two-dimensional fits: each page
# then executes within a few minutes, and the parameters below change only these fits. The page
# opens with the model fitted on the real item-level responses ({ref}`sec-explanatory-real`), then
# checks it on the page's own source, by default a simulated world whose difficulties are a planted
# function of the indicators ({ref}`sec-explanatory-check`).

# %% tags=["parameters"]
data_source = "simulated"  # simulated | simulated-null | helm20 | leaderboard
real_source = "mmlu_real"  # real item-level population the page opens with: mmlu_real | helm20 | opencompass11
seed = 20240601  # seed of the simulated world, the model subset and the SVI restarts
fast = False  # smoke run: shorter shared fits, plus this chapter's fast-parameters below
explanatory_restarts = 3  # SVI restarts (different seeds) of the explanatory model
explanatory_steps = 1000  # SVI steps per restart (the page reports where the ELBO rule first held)
explanatory_models = 1000  # models used by the explanatory model (a seeded random subset if fewer)
guessing = 0.25  # lower asymptote of the explanatory model on a real source (four options)
executed_dir = "../book/_executed"  # where bookbuild writes this page; the CSV downloads go beside it

# %% [raw] tags=["fast-parameters"]
# explanatory_restarts = 2
# explanatory_steps = 100
# explanatory_models = 100

# %%
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import display

from mmlu_audit.features import INDICATORS
from mmlu_audit.irt.explanatory import (REPLICATE_SD_RATIO, ExplanatorySpec, fit_explanatory_restarts,
                                        identification_table, is_identified, step_count_summary)
from mmlu_audit.analyses.pipeline import analysis_inputs
from mmlu_audit.book.plots import KIND_STYLES, stamp_source, use_style
from mmlu_audit.analyses.explanatory import explanatory_contrasts
from mmlu_audit.analyses.regression import design_arrays, planted_slopes
from mmlu_audit.book.report import (glue_figure, glue_values, population_note, source_banner, value_label,
                                    write_download)
from mmlu_audit.book.labels import label

use_style()
inputs = analysis_inputs(data_source, seed, fast)
matrix, truth = inputs.matrix, inputs.truth
stem = inputs.items["stem"].to_numpy()
X_items = design_arrays(inputs.frame)[0]  # standardised indicators, all items
gamma_rows = [f"gamma[{name}]" for name in X_items.columns]
contrast_words = {name: label(f"gamma[{name}]") for name in X_items.columns}  # "γ: STEM × Entity density (D_ner)"
# the two identification outcomes in colour-blind-safe colours (seaborn's colorblind blue and orange)
IDENTIFIED_COLORS = {True: "#0173b2", False: "#de8f05"}

# %%
real = analysis_inputs(real_source, seed, fast)
source_banner(real.matrix)
real_spec = ExplanatorySpec(guessing=guessing, steps=explanatory_steps)
real_restarts = fit_explanatory_restarts(real.matrix.responses, X_items, stem, real.items["subject"].to_numpy(),
                                         seeds=[seed + k for k in range(explanatory_restarts)], spec=real_spec,
                                         progress=False)
real_identification = identification_table(real_restarts)
real_contrasts = explanatory_contrasts(real_restarts, real.frame, X_items.columns)
real_identified = is_identified(real_restarts)
write_download(real_identification.rename_axis("parameter").reset_index(), "explanatory_identification_real.csv",
               executed_dir)
glue_values({"real_n_models": real.matrix.shape[0], "real_source_name": real.matrix.source,
             "real_description": real.matrix.description, "real_n_items": real.matrix.shape[1],
             "real_guessing": guessing,
             "real_n_gamma_identified": int(real_identification.loc[gamma_rows, "identified"].sum()),
             "real_n_gamma": len(gamma_rows),
             "real_n_identified": int(real_identification["identified"].sum()),
             "real_n_parameters": len(real_identification),
             "real_delta_ratio": real_identification.loc["delta", "ratio"],
             "real_delta_gap_ratio": real_identification.loc["delta_plus_subject_gap", "ratio"],
             "real_all_converged": "yes" if all(f.converged for f in real_restarts) else "no",
             "real_step_count_reading": step_count_summary(real_restarts, real_spec)["step_count_reading"],
             "real_explanatory_verdict": "identifies" if real_identified else "does not identify",
             "real_d_ner_gamma": real_contrasts.loc["d_ner", "explanatory γ"],
             "real_d_ner_low": real_contrasts.loc["d_ner", "posterior 95 % low"],
             "real_d_ner_high": real_contrasts.loc["d_ner", "posterior 95 % high"],
             "real_d_ner_two_stage": real_contrasts.loc["d_ner", "two-stage (b̂ units)"]})
real_contrasts.rename(index=contrast_words).round(3)

# %% [markdown]
# (sec-explanatory-real)=
# ## What the real responses say
#
# The real item-level responses of {glue:text}`real_n_models` models
# ({glue:text}`real_source_name`: {glue:text}`real_description`) on all
# {glue:text}`real_n_items:,` items, 3PL likelihood with the floor fixed at
# c = {glue:text}`real_guessing` (four options); the model and the identification rule are
# explained with the method in {ref}`sec-explanatory-check`. The paper reports that this model would
# not identify; on the real pool it **{glue:text}`real_explanatory_verdict`** by the rule:
# {glue:text}`real_n_identified` of its {glue:text}`real_n_parameters` summarised parameters
# pass, {glue:text}`real_n_gamma_identified` of the {glue:text}`real_n_gamma` contrasts γ. The
# partition shift δ has a restart-to-posterior ratio of {glue:text}`real_delta_ratio:.1f`, against
# {glue:text}`real_delta_gap_ratio:.1f` for δ plus the mean STEM − non-STEM subject effect. Every
# restart met the ELBO convergence rule: {glue:text}`real_all_converged`;
# {glue:text}`real_step_count_reading`.
#
# The STEM × D_ner contrast, §4.2's most robust one, is γ = {glue:text}`real_d_ner_gamma:.3f`
# (posterior 95 % interval [{glue:text}`real_d_ner_low:.3f`, {glue:text}`real_d_ner_high:.3f`])
# in the explanatory model's units, against {glue:text}`real_d_ner_two_stage:.3f` from the
# two-stage regression on the same pool's b̂. The posterior interval holds the items' subjects as
# random effects, but it is a mean-field interval and can be too narrow; where the restarts
# disagree, the restart SD in the table says by how much.
# {download}`Download the real pool's identification table (CSV) <explanatory_identification_real.csv>`.

# %%
fig, (left, right) = plt.subplots(2, 1, figsize=(7.5, 9.5), gridspec_kw={"height_ratios": [9, 23], "hspace": 0.35})
positions = np.arange(len(real_contrasts))
left.errorbar(real_contrasts["explanatory γ"], positions, ls="none", capsize=3, ms=6,
              xerr=[real_contrasts["explanatory γ"] - real_contrasts["posterior 95 % low"],
                    real_contrasts["posterior 95 % high"] - real_contrasts["explanatory γ"]],
              label=value_label(real.matrix), **KIND_STYLES["real"])
left.axvline(0, color="k", lw=0.8, ls=":")
left.set_yticks(positions, [contrast_words[name] for name in real_contrasts.index])
left.set_ylim(len(positions) - 0.5, -0.5)
left.set(xlabel="γ: STEM − non-STEM slope", title="contrasts, posterior 95 %")
right.barh(np.arange(len(real_identification)), real_identification["ratio"],
           color=[IDENTIFIED_COLORS[bool(flag)] for flag in real_identification["identified"]])
right.axvline(REPLICATE_SD_RATIO, color="k", ls=":", lw=1)
right.set_yticks(np.arange(len(real_identification)), [label(name) for name in real_identification.index])
right.set_ylim(len(real_identification) - 0.5, -0.5)
right.set(xlabel="restart SD / posterior SD", xscale="log", title="identification by restarts")
stamp_source(fig, real.matrix)
glue_figure("fig_real_explanatory", fig)

# %% [markdown]
# ```{glue:figure} fig_real_explanatory
# :name: fig-real-explanatory
#
# The explanatory model on the real pool. Top: the nine STEM − non-STEM contrasts γ with their
# posterior 95 % intervals. Bottom: for every summarised parameter, the spread of the restarts'
# posterior means over the posterior SD (blue: within the rule, orange: not identified by it; dotted:
# the threshold). What to see: which bars cross the dotted line, the directions the restarts
# disagree on, and whether the contrasts whose bars stay left of it have intervals that exclude
# the dotted zero line. The source is named under the figure.
# ```

# %% [markdown]
# (sec-explanatory-check)=
# ## The method's check on this page's source
#
# From here on every figure is computed on the page's own source, named in the banner below. On
# the default simulated world the generating model is close to the explanatory one and its
# contrasts are planted, so identification and the estimates can be checked against the truth;
# nothing in this part is a finding about MMLU.

# %%
source_banner(matrix)
glue_values({"population_note": population_note(matrix)})

# %% [markdown]
# {glue:text}`population_note`
#
# ## Does it identify?
#
# The paper wanted one model that regresses difficulty on the nine indicators × partition inside
# the response model, with subject random effects, so that the calibration's uncertainty and the
# clustering enter the contrast natively {cite}`deboeck2004explanatory`, and reports that it would
# not identify. Here it is fitted by NumPyro SVI ({glue:text}`n_restarts` restarts with different
# seeds, {glue:text}`n_steps:,` steps each, {glue:text}`n_models_explanatory:,` models, all items;
# 3PL likelihood with c = {glue:text}`guessing_used`):
#
# $$
# b_i \sim \mathcal N\big(\beta_0 + \delta\,\mathrm{STEM}_i + X_i\beta + \mathrm{STEM}_i X_i\gamma
#   + u_{s(i)},\ \sigma_b^2\big),\qquad u_s \sim \mathcal N(0, \tau^2).
# $$
#
# A parameter counts as identified when its spread across restarts is at most
# {glue:text}`ratio_rule` times its posterior SD. Of the nine contrasts γ,
# {glue:text}`n_gamma_identified` pass; the partition shift δ has a restart-to-posterior ratio of
# {glue:text}`delta_ratio:.1f` against {glue:text}`delta_gap_ratio:.1f` for δ plus the mean
# STEM − non-STEM subject effect, the combination the data can see (the partition is constant
# within a subject, so only the prior on u separates δ from the subject effects). Every restart met
# the ELBO convergence rule: {glue:text}`all_converged`; read back from the restarts' ELBO traces
# (left of the figure below), {glue:text}`step_count_reading`. Verdict on this
# source: the model **{glue:text}`explanatory_verdict`** by this rule.

# %%
rng = np.random.default_rng(seed)
rows = (np.arange(matrix.shape[0]) if explanatory_models >= matrix.shape[0]
        else np.sort(rng.choice(matrix.shape[0], explanatory_models, replace=False)))
c_used = float(np.asarray(truth["c"]).mean()) if truth is not None else guessing  # the world's fixed c
explanatory_spec = ExplanatorySpec(guessing=c_used, steps=explanatory_steps)
restarts = fit_explanatory_restarts(matrix.responses[rows], X_items, stem, inputs.items["subject"].to_numpy(),
                                    seeds=[seed + k for k in range(explanatory_restarts)], spec=explanatory_spec,
                                    progress=False)
identification = identification_table(restarts)
identified = is_identified(restarts)
glue_values({
    "n_restarts": explanatory_restarts, "n_steps": explanatory_steps, "n_models_explanatory": len(rows),
    "guessing_used": c_used, "ratio_rule": REPLICATE_SD_RATIO,
    "n_gamma_identified": int(identification.loc[gamma_rows, "identified"].sum()),
    "delta_ratio": identification.loc["delta", "ratio"],
    "delta_gap_ratio": identification.loc["delta_plus_subject_gap", "ratio"],
    "all_converged": "yes" if all(f.converged for f in restarts) else "no",
    "step_count_reading": step_count_summary(restarts, explanatory_spec)["step_count_reading"],
    "explanatory_verdict": "identifies" if identified else "does not identify",
})
write_download(identification.rename_axis("parameter").reset_index(), "explanatory_identification.csv", executed_dir)
identification.rename(index=label).round(4)

# %% [markdown]
# The table below sets the explanatory contrasts beside the two-stage estimates of §4.3 (OLS of
# b̂ on the same design) and, on a simulated source, the planted contrasts. The explanatory model
# keeps θ ~ N(0, 1) as the only scale anchor, so its γ are in the generating model's units; the
# two-stage estimates inherit the compressed b̂ scale of the paper's prior.

# %%
contrasts = explanatory_contrasts(restarts, inputs.frame, X_items.columns, planted=planted_slopes(matrix))
write_download(contrasts.rename_axis("indicator").reset_index(), "explanatory_contrasts.csv", executed_dir)
display(contrasts.rename(index=contrast_words).round(3))

fig, (left, right) = plt.subplots(1, 2, figsize=(7.5, 3.4))
for fit in restarts:
    skip = min(20, fit.elbo.size // 10)
    left.plot(np.arange(skip, fit.elbo.size), fit.elbo[skip:], lw=0.7, label=f"seed {fit.seed}")
left.set(xlabel="SVI step", ylabel="ELBO (nats)", title="Explanatory model: ELBO per restart")
left.legend(fontsize=8.5)
right.bar(np.arange(len(identification)), identification["ratio"],
          color=[IDENTIFIED_COLORS[bool(flag)] for flag in identification["identified"]])
right.axhline(REPLICATE_SD_RATIO, color="k", ls=":", lw=1)
right.set_xticks(np.arange(len(identification)), [label(name) for name in identification.index], rotation=90,
                 fontsize=8.5)
right.set(ylabel="restart SD / posterior SD", yscale="log", title="Identification by restarts")
stamp_source(fig, matrix)
glue_figure("fig_explanatory", fig)

# %% [markdown]
# ```{glue:figure} fig_explanatory
# :name: fig-explanatory
#
# The explanatory IRT model: ELBO traces of the restarts (left) and, per parameter, the spread
# of the restarts' posterior means over the posterior SD (right; blue: within the rule, orange:
# not identified by it; dotted: the threshold).
# ```
#
# {numref}`fig-explanatory` shows which directions of the model the restarts disagree on.
# {download}`Download the identification table (CSV) <explanatory_identification.csv>` and
# {download}`the contrasts beside the two-stage estimates (CSV) <explanatory_contrasts.csv>`.
#
# ## Checks

# %%
assert identification.shape[0] == 2 * len(INDICATORS) + 5 and len(restarts) == explanatory_restarts
assert np.isfinite(identification[["mean", "restart_sd", "posterior_sd"]].to_numpy()).all()
assert np.isfinite(real_identification[["mean", "restart_sd", "posterior_sd"]].to_numpy()).all()
