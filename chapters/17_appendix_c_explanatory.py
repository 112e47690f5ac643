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
# then executes within a few minutes, and the parameters below change only these fits.

# %% tags=["parameters"]
data_source = "simulated"  # simulated | simulated-null | helm20 | leaderboard
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
import pandas as pd
from IPython.display import display

from mmlu_audit.features import INDICATORS
from mmlu_audit.irt.explanatory import (REPLICATE_SD_RATIO, ExplanatorySpec, fit_explanatory_restarts,
                                        identification_table, is_identified, step_count_summary)
from mmlu_audit.analyses.pipeline import analysis_inputs
from mmlu_audit.book.plots import stamp_source, use_style
from mmlu_audit.analyses.regression import contrast_terms, design_arrays, estimated_items, interaction_fit, planted_slopes
from mmlu_audit.book.report import glue_figure, glue_values, population_note, source_banner, write_download

use_style()
inputs = analysis_inputs(data_source, seed, fast)
matrix, truth = inputs.matrix, inputs.truth
stem = inputs.items["stem"].to_numpy()
glue_values({"population_note": population_note(matrix)})
source_banner(matrix)

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
X_items = design_arrays(inputs.frame)[0]  # standardised indicators, all items
c_used = float(np.asarray(truth["c"]).mean()) if truth is not None else guessing  # the world's fixed c
explanatory_spec = ExplanatorySpec(guessing=c_used, steps=explanatory_steps)
restarts = fit_explanatory_restarts(matrix.responses[rows], X_items, stem, inputs.items["subject"].to_numpy(),
                                    seeds=[seed + k for k in range(explanatory_restarts)], spec=explanatory_spec,
                                    progress=False)
identification = identification_table(restarts)
gamma_rows = [f"gamma[{name}]" for name in X_items.columns]
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
identification.round(4)

# %% [markdown]
# The table below sets the explanatory contrasts beside the two-stage estimates of §4.3 (OLS of
# b̂ on the same design) and, on a simulated source, the planted contrasts. The explanatory model
# keeps θ ~ N(0, 1) as the only scale anchor, so its γ are in the generating model's units; the
# two-stage estimates inherit the compressed b̂ scale of the paper's prior.

# %%
frame = estimated_items(inputs.frame)
X, y, stem_est, _ = design_arrays(frame)
two_stage = interaction_fit(y, X, stem_est)
contrasts = pd.DataFrame({
    "explanatory γ": identification.loc[gamma_rows, "mean"].to_numpy(),
    "restart SD": identification.loc[gamma_rows, "restart_sd"].to_numpy(),
    "posterior SD": identification.loc[gamma_rows, "posterior_sd"].to_numpy(),
    "two-stage (b̂ units)": pd.Series(two_stage.beta, index=two_stage.names)[contrast_terms(X.columns)].to_numpy(),
}, index=list(X_items.columns))
planted = planted_slopes(matrix)
if planted is not None:
    contrasts.insert(0, "planted γ (simulated)", (planted["STEM"] - planted["non-STEM"]).reindex(contrasts.index))
write_download(contrasts.rename_axis("indicator").reset_index(), "explanatory_contrasts.csv", executed_dir)
display(contrasts.round(3))

fig, (left, right) = plt.subplots(1, 2, figsize=(7.5, 3.4))
for fit in restarts:
    skip = min(20, fit.elbo.size // 10)
    left.plot(np.arange(skip, fit.elbo.size), fit.elbo[skip:], lw=0.7, label=f"seed {fit.seed}")
left.set(xlabel="SVI step", ylabel="ELBO (nats)", title="Explanatory model: ELBO per restart")
left.legend(fontsize=8.5)
right.bar(np.arange(len(identification)), identification["ratio"], color=np.where(identification["identified"], "#4a4", "#c44"))
right.axhline(REPLICATE_SD_RATIO, color="k", ls=":", lw=1)
right.set_xticks(np.arange(len(identification)), identification.index, rotation=90, fontsize=8.5)
right.set(ylabel="restart SD / posterior SD", yscale="log", title="Identification by restarts")
stamp_source(fig, matrix)
glue_figure("fig_explanatory", fig)

# %% [markdown]
# ```{glue:figure} fig_explanatory
# :name: fig-explanatory
#
# The explanatory IRT model: ELBO traces of the restarts (left) and, per parameter, the spread
# of the restarts' posterior means over the posterior SD (right; green: within the rule, red:
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
