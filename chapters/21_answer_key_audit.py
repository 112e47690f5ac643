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
# (chap-answer-key-audit)=
# # Model consensus against MMLU-Pro's answer key
#
# A model-consensus audit of MMLU-Pro {cite}`wang2024mmlupro` asked whether agreement among the
# strongest models finds wrong answer keys {cite}`mv2consensus2026`. Its rule: take the k most
# accurate models of a panel (k = 10); flag a question when at least m of them (m = 6) choose the
# same option other than the key **and** more of them choose it than the key. MMLU-Redux's
# experts {cite}`gema2024redux` reviewed part of MMLU, and so, through the crosswalk, part of
# MMLU-Pro's MMLU-derived questions: their labels are an independent check the models never saw.
# This chapter applies the same rule (`mmlu_audit.analyses.consensus`) to the staged models, whose
# answers are real.

# %% tags=["parameters"]
pro_panel = "tiger34"  # MMLU-Pro panel: tiger34 (29 published + 5 recovered) or tiger29; not the book-wide source
seed = 20240601  # seed of the signed-discrimination fit (the consensus rule has no random step)
fast = False  # smoke run: shorter shared fits, plus this chapter's fast-parameters below
k = 10  # panel size: the k most accurate models
m = 6  # votes needed on one non-key option
executed_dir = "../book/_executed"  # where bookbuild writes this page; the flagged-question CSV goes beside it
curve_ks = [5, 8, 10, 12, 15, 20, 29]  # panel sizes of the threshold curves
curve_ms = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]  # vote thresholds of the threshold curves
signed_a_scale = 10.0  # the signed fit's a ~ Normal(0, signed_a_scale²), as in the real-leaderboard chapter
wrong_way_z = 2.0  # flag an item when its a lies more than this many posterior SDs below 0

# %% [raw] tags=["fast-parameters"]
# curve_ks = [5, 10, 20]
# curve_ms = [3, 4, 5, 6, 7, 8, 9, 10]

# %%

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown, display

from mmlu_audit.analyses.consensus import (exact_validation, flag_rates, panel_models, precision_recall,
                                           threshold_curve, validation_table)
from mmlu_audit.analyses.pipeline import calibration_spec
from mmlu_audit.inference import fisher_interval
from mmlu_audit.irt import fit_cached
from mmlu_audit.data.mmlu_pro import load_crosswalk, load_pro_items, load_pro_panel
from mmlu_audit.data.pro_revisions import load_pro_fix_lists, load_pro_revisions
from mmlu_audit.core.paper import MMLU_PRO_SOURCES, source_table
from mmlu_audit.book.plots import SOURCE_COLORS, figure_title, stamp_source, use_style
from mmlu_audit.analyses.pro import (REDUX_GROUPS, added_option_baselines, consensus_frame,
                                     fix_list_detectors, fix_list_validation, flagged_questions,
                                     wrong_way_frame)
from mmlu_audit.book.report import (finding_checks, glue_figure, glue_values, source_banner, value_label,
                                    write_download)
from mmlu_audit.features import RELATIONS, duplicate_pairs

use_style()
pro_source = f"mmlu_pro_{pro_panel}"
items = load_pro_items()
panel = load_pro_panel(items, panel=pro_source.removeprefix("mmlu_pro_"))
panel29 = load_pro_panel(items, panel="tiger29")
crosswalk = load_crosswalk(items)
source_banner(panel.matrix)

# %% [markdown]
# ## The panel
#
# The source's panel was the {glue:text}`src_panel_size:.0f` best of {glue:text}`src_n_archives:.0f` archives, from {glue:text}`src_best:.1%` down to
# {glue:text}`src_worst:.1%`. Ours is the {glue:text}`k` best of the {glue:text}`n_models` staged models, from
# {glue:text}`panel_best:.1%` ({glue:text}`panel_best_name`) down to {glue:text}`panel_worst:.1%`
# ({glue:text}`panel_worst_name`); its mean accuracy is {glue:text}`panel_mean:.1%`. A weaker
# panel errs more often, and when several of its models err on a question they can agree on the
# same distractor, while its agreement with a correct answer against the key is rarer. A weaker
# panel should therefore flag more of the questions the experts cleared and catch fewer of their
# wrong keys; {glue:text}`weaker_reading`. {glue:text}`n_shared_families` of our panel
# slots come from one family (Llama 3 / 3.1), so the {glue:text}`k` votes are not independent.

# %%
accuracy = panel.matrix.accuracy()
rows = panel_models(accuracy.to_numpy(), k)
members = accuracy.iloc[rows].rename("accuracy").to_frame()
members["no answer"] = panel.matrix.models.set_index("model_id").loc[members.index, "n_no_answer"]
glue_values({
    "k": k, "m": m, "n_models": panel.matrix.shape[0], "n_questions": panel.matrix.shape[1], "panel_best": members["accuracy"].iloc[0], "panel_best_name": members.index[0],
    "panel_worst": members["accuracy"].iloc[-1], "panel_worst_name": members.index[-1],
    "panel_mean": members["accuracy"].mean(),
    "n_shared_families": int(members.index.str.startswith("Meta-Llama-3").sum()),
    "src_best": MMLU_PRO_SOURCES["panel_best_accuracy"][0],
    "src_worst": MMLU_PRO_SOURCES["panel_worst_accuracy"][0],
})
glue_values({f"src_{name}": value for name, (value, _) in MMLU_PRO_SOURCES.items()})
members.round(4)

# %% [markdown]
# A model that saw another text of a question (the README's item-status 3) casts no vote on
# that question; a record with no extractable answer, or a letter past the question's last
# option, casts none either.
#
# ## Flag rates by group
#
# The groups of the source's table: MMLU-derived questions whose MMLU item the experts labelled
# a wrong key, another error, or fine; MMLU-derived questions they never reviewed; the
# STEM-website questions; and all of MMLU-Pro. With k = {glue:text}`k` and m = {glue:text}`m`
# the rule flags {glue:text}`n_flagged:,` of the {glue:text}`n_questions:,` questions ({glue:text}`flag_rate_all:.1%`).
# On questions the experts call miskeyed it fires {glue:text}`rate_ratio_wrong_key_vs_fine:.1f`
# times as often as on questions they cleared (the source: {glue:text}`src_rate_ratio_wrong_key_vs_fine:.1f`).
# The intervals in the table are Wilson 95 % intervals: on the 61 wrong keys the rate is
# {glue:text}`flag_rate_wrong_key:.1%` [{glue:text}`wrong_key_low:.1%`, {glue:text}`wrong_key_high:.1%`].
#
# **What the stronger panel changes.** The panel is the {glue:text}`k` most accurate of
# {glue:text}`panel_size_models` models. Beside the 29-model panel (the column "rate, 29-model
# panel"), it flags {glue:text}`flag_rate_fine:.1%` of the cleared questions instead of
# {glue:text}`flag_rate_fine_29:.1%`, {glue:text}`flag_rate_wrong_key:.1%` of the wrong keys
# instead of {glue:text}`flag_rate_wrong_key_29:.1%`, and {glue:text}`flag_rate_all:.1%` of all
# questions instead of {glue:text}`flag_rate_all_29:.1%`.

# %%
flags = consensus_frame(items, panel, crosswalk, k=k, m=m)
groups = {name: (flags["group"] == name).to_numpy() for name in REDUX_GROUPS}
groups["TheoremQA / SciBench source"] = (flags["group"] == "TheoremQA / SciBench source").to_numpy()
groups["all of MMLU-Pro"] = np.ones(len(flags), bool)
rates = flag_rates(flags["flagged"], groups)
keys = {"Redux: wrong key": "flag_rate_wrong_key", "Redux: other error": "flag_rate_other_error",
        "Redux: fine": "flag_rate_fine", "MMLU-derived, never reviewed": "flag_rate_unreviewed",
        "STEM-website source": "flag_rate_stemez", "all of MMLU-Pro": "flag_rate_all"}
ours = {key: rates.loc[group, "rate"] for group, key in keys.items()}
ours["rate_ratio_wrong_key_vs_fine"] = ours["flag_rate_wrong_key"] / ours["flag_rate_fine"]
ours["n_flagged"] = int(flags["flagged"].sum())
glue_values(ours)
fine_word = "higher" if ours["flag_rate_fine"] > MMLU_PRO_SOURCES["flag_rate_fine"][0] else "lower"
wrong_word = "higher" if ours["flag_rate_wrong_key"] > MMLU_PRO_SOURCES["flag_rate_wrong_key"][0] else "lower"
glue_values({"weaker_reading": (
    f"on the cleared questions our flag rate is {fine_word} than the source's "
    f"({ours['flag_rate_fine']:.1%} against {MMLU_PRO_SOURCES['flag_rate_fine'][0]:.1%}) and on the wrong keys "
    f"{wrong_word} ({ours['flag_rate_wrong_key']:.1%} against "
    f"{MMLU_PRO_SOURCES['flag_rate_wrong_key'][0]:.1%}), see the table below")})
flags29 = consensus_frame(items, panel29, crosswalk, k=k, m=m)
rates29 = flag_rates(flags29["flagged"], groups)
rates["rate, 29-model panel"] = rates29["rate"]
rates["source rate"] = [MMLU_PRO_SOURCES[keys[g]][0] if g in keys else np.nan for g in rates.index]
glue_values({"panel_size_models": panel.matrix.shape[0],
             "flag_rate_fine_29": rates29.loc["Redux: fine", "rate"],
             "flag_rate_wrong_key_29": rates29.loc["Redux: wrong key", "rate"],
             "flag_rate_all_29": rates29.loc["all of MMLU-Pro", "rate"],
             "wrong_key_low": rates.loc["Redux: wrong key", "low"],
             "wrong_key_high": rates.loc["Redux: wrong key", "high"]})
rates.round(4)

# %%
labels = {v: k for k, v in keys.items()} | {"rate_ratio_wrong_key_vs_fine": "rate ratio, wrong key / fine",
                                             "n_flagged": "questions flagged"}
display(Markdown(f"Source numbers: panel of the {MMLU_PRO_SOURCES['panel_size'][0]:.0f} best of "
                 f"{MMLU_PRO_SOURCES['n_archives'][0]:.0f} archives "
                 f"({MMLU_PRO_SOURCES['panel_best_accuracy'][0]:.1%}–{MMLU_PRO_SOURCES['panel_worst_accuracy'][0]:.1%}); "
                 f"ours: the {k} best of {panel.matrix.shape[0]} ({members['accuracy'].iloc[0]:.1%}–{members['accuracy'].iloc[-1]:.1%})."))
source_table(ours, labels, column=value_label(panel.matrix)).round(4)

# %% [markdown]
# ## Precision and recall against the experts' wrong-key label
#
# Among expert-reviewed MMLU-derived questions the rule flags {glue:text}`pr_n_flagged`;
# {glue:text}`pr_n_hit` of them are wrong keys (precision {glue:text}`precision_wrong_key:.1%`;
# the source: {glue:text}`src_precision_wrong_key:.1%`), and {glue:text}`share_flagged_any_error:.1%` carry any expert error label
# (the source: {glue:text}`src_share_flagged_any_error:.1%`). The flag catches {glue:text}`pr_n_hit` of the {glue:text}`pr_n_positive`
# wrong keys (recall {glue:text}`recall_wrong_key:.1%`, Wilson 95 % interval
# [{glue:text}`recall_wrong_key_low:.1%`, {glue:text}`recall_wrong_key_high:.1%`]; the source:
# {glue:text}`src_flag_rate_wrong_key:.1%`). So most flags land
# on questions the experts cleared, as in the source: model agreement is evidence for review,
# not proof of an error.

# %%
reviewed = flags["redux_label"].ne("").to_numpy()
wrong_key = flags["redux_label"].eq("wrong_groundtruth").to_numpy()
any_error = reviewed & flags["redux_label"].ne("ok").to_numpy()
pr = precision_recall(flags["flagged"], wrong_key, reviewed)
pr_any = precision_recall(flags["flagged"], any_error, reviewed)
glue_values({"pr_n_flagged": pr["n_flagged"], "pr_n_hit": pr["n_hit"], "pr_n_positive": pr["n_positive"],
             "precision_wrong_key": pr["precision"], "recall_wrong_key": pr["recall"],
             "recall_wrong_key_low": pr["recall_low"], "recall_wrong_key_high": pr["recall_high"],
             "share_flagged_any_error": pr_any["precision"]})
display(source_table({"precision_wrong_key": pr["precision"], "share_flagged_any_error": pr_any["precision"]},
                     {"precision_wrong_key": "wrong keys among flagged reviewed questions",
                      "share_flagged_any_error": "any expert error label among flagged reviewed"},
                     column=value_label(panel.matrix)).round(4))
pd.DataFrame({"wrong key": pr, "any expert error label": pr_any}).round(4)

# %% [markdown]
# ## The m × k threshold curve
#
# Requiring more agreement buys precision at the cost of recall ({numref}`fig-consensus-curve`).
# With all {glue:text}`k` panel models agreeing (m = k) the rule flags
# {glue:text}`n_flagged_unanimous:,` questions and catches {glue:text}`hits_unanimous` of the
# wrong keys (the source, with its stronger panel: {glue:text}`src_n_flagged_unanimous:,.0f`
# questions and a recall of {glue:text}`src_recall_unanimous:.1%`).

# %%
curve_groups = {"wrong_key": wrong_key, "reviewed": reviewed, "any_error": any_error}
curve = threshold_curve(panel.comparable_pred(), items["key"].to_numpy(), accuracy.to_numpy(),
                        ks=sorted(set(curve_ks) | {k}), ms=sorted(set(curve_ms) | {m, k}),
                        groups=curve_groups, n_options=items["n_options"].to_numpy())
curve["recall"] = curve["flagged_wrong_key"] / wrong_key.sum()
curve["precision"] = (curve["flagged_wrong_key"] / curve["flagged_reviewed"]).where(curve["flagged_reviewed"] > 0)
unanimous = curve.query("k == @k and m == @k").iloc[0]
glue_values({"n_flagged_unanimous": int(unanimous["n_flagged"]), "hits_unanimous": int(unanimous["flagged_wrong_key"]),
             "recall_unanimous": unanimous["recall"],
             "share_flagged_error_unanimous": unanimous["flagged_any_error"] / unanimous["flagged_reviewed"]})

fig, (left, right) = plt.subplots(1, 2, figsize=(7.5, 3.6))
for panel_k, part in curve.groupby("k"):
    style = dict(lw=2.2, color=SOURCE_COLORS["ours"]) if panel_k == k else dict(lw=1, alpha=0.7)
    left.plot(part["m"], part["n_flagged"], marker=".", label=f"k = {panel_k}", **style)
    right.plot(part["recall"], part["precision"], marker=".", label=f"k = {panel_k}", **style)
left.set(xlabel="m (votes on one non-key option)", ylabel="questions flagged", yscale="log")
right.set(xlabel="recall of Redux wrong keys", ylabel="precision on reviewed questions")
right.scatter([MMLU_PRO_SOURCES["flag_rate_wrong_key"][0]], [MMLU_PRO_SOURCES["precision_wrong_key"][0]],
              color=SOURCE_COLORS["paper"], marker="s", zorder=5, label="source, k = 10, m = 6")
right.legend(fontsize=8.5, ncol=2)
figure_title(fig, f"Consensus flags by threshold · source {panel.matrix.source}")
stamp_source(fig, panel.matrix)
glue_figure("fig_consensus_curve", fig)

# %% [markdown]
# ```{glue:figure} fig_consensus_curve
# :name: fig-consensus-curve
#
# Left: questions flagged as the vote threshold m rises, for panels of the k most accurate
# staged models (ours in bold). Right: precision against recall of the experts'
# wrong-key label along each curve; the grey square is the source's operating point with its
# stronger panel. Real responses of the staged models on MMLU-Pro.
# ```

# %% [markdown]
# ## Original or added option?
#
# MMLU-Redux's experts reviewed MMLU's four options; MMLU-Pro kept them and added up to six. On
# flagged MMLU-derived questions that keep all four MMLU options, does the panel agree on one of
# MMLU's own options or on one MMLU-Pro added? On the experts' wrong keys the panel's choice is
# an original option in {glue:text}`original_wrong_key` of {glue:text}`n_wrong_key_flags` (the
# control: the experts' answer is an MMLU option). On questions they cleared it is an added option
# in {glue:text}`added_share_fine_flags:.1%` of {glue:text}`n_fine_flags` (the source: {glue:text}`src_added_share_fine_flags:.1%`).
# Added options are {glue:text}`added_share_of_distractors:.1%` of the non-key options on those
# questions, and the panel's scattered wrong votes elsewhere land on added options
# {glue:text}`added_share_scattered:.1%` of the time (the source:
# {glue:text}`src_added_share_of_distractors:.1%` and {glue:text}`src_added_share_scattered:.1%`).

# %%
classified = flags[flags["flagged"] & flags["all_mmlu_options"]]
origin = pd.crosstab(classified["group"], classified["choice_origin"])
fine = origin.loc[REDUX_GROUPS[2]] if REDUX_GROUPS[2] in origin.index else pd.Series({"added": 0, "original": 0})
wrong = origin.loc[REDUX_GROUPS[0]] if REDUX_GROUPS[0] in origin.index else pd.Series({"added": 0, "original": 0})
follow_up = {
    "original_wrong_key": int(wrong.get("original", 0)), "n_wrong_key_flags": int(wrong.sum()),
    "added_share_fine_flags": fine.get("added", 0) / fine.sum() if fine.sum() else float("nan"),
    "n_fine_flags": int(fine.sum()),
    **added_option_baselines(flags, items, panel, crosswalk, k=k),
}
follow_up["original_share_wrong_key_flags"] = (follow_up["original_wrong_key"] / follow_up["n_wrong_key_flags"]
                                               if follow_up["n_wrong_key_flags"] else float("nan"))
glue_values(follow_up)
display(origin)
source_table({key: follow_up[key] for key in ("original_share_wrong_key_flags", "added_share_fine_flags",
                                              "added_share_of_distractors", "added_share_scattered")},
             column="MMLU-Pro revisions (real)").round(4)

# %% [markdown]
# ## Every flagged question
#
# {download}`Download the flagged questions (CSV) <mmlu_pro_consensus_flags.csv>`. Its
# {glue:text}`n_flagged:,` rows list MMLU-Pro's question id, the key, the panel's choice, the votes for each, the Redux label
# and whether the panel's choice is one of MMLU's original options or one MMLU-Pro added. Like
# the source's lists, it holds ids, letters and counts only. It is a list to review, not a list
# of errors. The first rows:

# %%
table = flagged_questions(flags, list(members.index))
write_download(table, "mmlu_pro_consensus_flags.csv", executed_dir)
table.head(10)

# %% [markdown]
# ## Checked against what the maintainers fixed
#
# Between the 2024 text that every model here answered and August 2025 the MMLU-Pro
# maintainers corrected {glue:text}`n_corrected` answer keys ({glue:text}`n_corrected_health` in
# health, all from MMLU professional_medicine; `mmlu_pro/revisions/README.md`). No one has set a
# key-error rule against such a record. On the 2024 text the rule flags
# {glue:text}`fix_n_hit` of the {glue:text}`n_corrected` (recall {glue:text}`fix_recall:.1%`,
# exact 95 % interval [{glue:text}`fix_recall_low:.1%`, {glue:text}`fix_recall_high:.1%`]). In
# health it flags {glue:text}`fix_health_n_flagged` of {glue:text}`fix_health_n:,` questions, of
# which {glue:text}`fix_health_n_hit` were corrected (precision {glue:text}`fix_health_precision:.1%`
# [{glue:text}`fix_health_precision_low:.1%`, {glue:text}`fix_health_precision_high:.1%`]); a
# flagged health question is {glue:text}`fix_health_or:.1f` times as likely in odds to have had
# its key corrected as an unflagged one (exact interval [{glue:text}`fix_health_or_low:.1f`,
# {glue:text}`fix_health_or_high:.1f`], Fisher p = {glue:text}`fix_health_p:.1e`). Twenty-two
# positives are a small ground truth, and the maintainers fixed what they looked at, not every
# wrong key: a flag outside the 22 is not thereby a false alarm. The corrected keys the rule
# missed are listed below.

# %%
revisions = load_pro_revisions(items)
corrected = revisions["key_corrected"].to_numpy()
health = items["category"].eq("health").to_numpy()
fix_all = exact_validation(flags["flagged"], corrected, np.ones(len(items), bool))
fix_health = exact_validation(flags["flagged"], corrected & health, health)
glue_values({"n_corrected": int(corrected.sum()), "n_corrected_health": int((corrected & health).sum()),
             "fix_n_hit": fix_all["n_hit"], "fix_recall": fix_all["recall"],
             "fix_recall_low": fix_all["recall_low"], "fix_recall_high": fix_all["recall_high"],
             **{f"fix_health_{key}": fix_health[key] for key in (
                 "n", "n_flagged", "n_hit", "precision", "precision_low", "precision_high", "p")},
             "fix_health_or": fix_health["odds_ratio"], "fix_health_or_low": fix_health["odds_ratio_low"],
             "fix_health_or_high": fix_health["odds_ratio_high"]})
display(pd.DataFrame({"all of MMLU-Pro": fix_all, "health": fix_health}).round(4))
missed = revisions.loc[corrected & ~flags["flagged"].to_numpy(),
                       ["question_id", "category", "src", "key_letter_test", "key_letter_2026"]]
missed.merge(flags[["question_id", "panel_choice", "choice_votes", "key_votes"]], on="question_id")

# %% [markdown]
# ## Items that discriminate the wrong way, checked against the same corrections
#
# The real-leaderboard chapter's second audit rule ({ref}`chap-real-leaderboard`, §2.2) needs no
# panel: refit the 2PL with a signed discrimination, a ~ Normal(0, {glue:text}`signed_a_scale:.0f`²),
# and flag a question whose a lies more than {glue:text}`wrong_way_z:.0f` posterior SDs below zero,
# one that weaker models answer correctly more often than stronger ones. Here it runs on the
# {glue:text}`n_models` models' graded answers to the 2024 text (the matrix and 2PL with
# b ~ N(0, 1) of {ref}`chap-mmlu-pro`; only a's prior changed). It flags {glue:text}`ww_n_flagged:,` questions
# ({glue:text}`ww_share:.1%`); {glue:text}`ww_n_hit` of the {glue:text}`n_corrected` corrected keys
# are among them (recall {glue:text}`ww_recall:.1%` [{glue:text}`ww_recall_low:.1%`,
# {glue:text}`ww_recall_high:.1%`], exact 95 %). In health it flags {glue:text}`ww_health_n_flagged`
# questions, {glue:text}`ww_health_n_hit` of them corrected (precision
# {glue:text}`ww_health_precision:.1%` [{glue:text}`ww_health_precision_low:.1%`,
# {glue:text}`ww_health_precision_high:.1%`]; odds ratio against unflagged health questions
# {glue:text}`ww_health_or:.1f` [{glue:text}`ww_health_or_low:.1f`, {glue:text}`ww_health_or_high:.1f`]).
# The two rules flag {glue:text}`n_both_flagged:,` questions in common; together they catch
# {glue:text}`either_n_hit` of the {glue:text}`n_corrected`, and {glue:text}`n_missed_both`
# corrected keys escape both.
#
# **Why the wrong-way rule misses most corrected keys.** A wrong key among ten options is one
# that few models choose at all: on {glue:text}`n_corrected_key_unchosen` of the
# {glue:text}`n_corrected` corrected questions no model chose the 2024 key, so every model is
# "wrong", the question looks merely very hard, and the responses do not identify its
# discrimination (the prior is symmetric, so its sign is the fit's starting point's). The rule sees a wrong
# key only where weak models hit it by chance and strong models avoid it; on four-option MMLU such
# chance hits are common, on ten-option MMLU-Pro they are rare. The consensus rule reads the
# models' choices rather than their scores, and so sees what the wrong-way rule cannot: strong
# models agreeing on one other option.
#
# **What {glue:text}`n_models` models can support.** Each a rests on at most
# {glue:text}`n_models` binary answers. The posterior SD of a has median
# {glue:text}`ww_a_sd_median:.2f` (against a median |a| of {glue:text}`ww_abs_a_median:.2f`), and
# P(a < 0) under the fitted guide lies between {glue:text}`ww_undecided_low` and
# {glue:text}`ww_undecided_high` for only
# {glue:text}`ww_share_undecided:.1%` of questions. That confidence is the mean-field guide's,
# conditional on every θ and b, and it understates the spread. A model-free check is blunter:
# the item–rest correlation over the models that saw the question, whose Fisher 95 % interval has
# a half-width of about {glue:text}`ww_rest_half_width:.2f` at r = 0 with {glue:text}`n_models` models, lies wholly below zero for
# {glue:text}`ww_n_rest_negative:,` questions, {glue:text}`ww_n_flagged_rest_negative:,` of the
# {glue:text}`ww_n_flagged:,` flagged ones. With so few models a wrong-way flag is a pointer for
# review, not an estimate. The table sets the two rules side by side (source: the
# {glue:text}`n_models` staged models' answers to the 2024 text, and
# `mmlu_pro/revisions/diff_vs_test.parquet` for the corrections).

# %%
signed_spec = calibration_spec(fast, seed).with_(a_prior="normal", a_scale=signed_a_scale)
signed_fit = fit_cached(panel.matrix, signed_spec, progress=False)
ways = wrong_way_frame(signed_fit, panel.matrix.responses, z=wrong_way_z)
undecided = (0.1, 0.9)  # a P(a < 0) between these leaves the sign of a undecided
rules = {"consensus rule": flags["flagged"].to_numpy(), "wrong-way a": ways["flagged"].to_numpy()}
key_table = pd.concat({"all of MMLU-Pro": validation_table(rules, corrected, np.ones(len(items), bool),
                                                           combine=True),
                       "health": validation_table(rules, corrected & health, health, combine=True)},
                      names=["questions", "rule"])
ww_all, ww_health = key_table.loc[("all of MMLU-Pro", "wrong-way a")], key_table.loc[("health", "wrong-way a")]
either = key_table.loc[("all of MMLU-Pro", "either")]
glue_values({"signed_a_scale": signed_a_scale, "wrong_way_z": wrong_way_z,
             "ww_n_flagged": int(ww_all["n_flagged"]), "ww_share": ww_all["n_flagged"] / len(items),
             "ww_n_hit": int(ww_all["n_hit"]), "ww_recall": ww_all["recall"],
             "ww_recall_low": ww_all["recall_low"], "ww_recall_high": ww_all["recall_high"],
             "ww_health_n_flagged": int(ww_health["n_flagged"]), "ww_health_n_hit": int(ww_health["n_hit"]),
             "ww_health_precision": ww_health["precision"],
             "ww_health_precision_low": ww_health["precision_low"],
             "ww_health_precision_high": ww_health["precision_high"], "ww_health_or": ww_health["odds_ratio"],
             "ww_health_or_low": ww_health["odds_ratio_low"], "ww_health_or_high": ww_health["odds_ratio_high"],
             "n_both_flagged": int(key_table.loc[("all of MMLU-Pro", "both"), "n_flagged"]),
             "either_n_hit": int(either["n_hit"]), "n_missed_both": int(either["n_positive"] - either["n_hit"]),
             "n_corrected_key_unchosen": int((ways["n_correct"].to_numpy()[corrected] == 0).sum()),
             "ww_a_sd_median": float(ways["a_sd"].median()),
             "ww_abs_a_median": float(ways["a_signed"].abs().median()),
             "ww_undecided_low": undecided[0], "ww_undecided_high": undecided[1],
             "ww_share_undecided": float(ways["p_negative"].between(*undecided).mean()),
             "ww_rest_half_width": fisher_interval(0.0, panel.matrix.shape[0])[1],
             "ww_n_rest_negative": int((ways["item_rest_high"] < 0).sum()),
             "ww_n_flagged_rest_negative": int((ways["flagged"] & (ways["item_rest_high"] < 0)).sum())})
key_table[["n", "n_positive", "n_flagged", "n_hit", "recall", "recall_low", "recall_high", "precision",
           "precision_low", "precision_high", "odds_ratio", "odds_ratio_low", "odds_ratio_high", "p"]]

# %% [markdown]
# Each corrected key under both rules: how many of the models that saw the question chose the
# 2024 key, the consensus panel's votes, and the signed fit's a with its P(a < 0) and the
# item–rest correlation (source: as above).

# %%
corrected_view = pd.DataFrame({
    "question_id": items["question_id"].to_numpy(), "category": items["category"].to_numpy(),
    "models on the 2024 key": ways["n_correct"].to_numpy(), "models that saw it": ways["n_observed"].to_numpy(),
    "panel votes, one other option": flags["choice_votes"].to_numpy(),
    "panel votes, key": flags["key_votes"].to_numpy(), "consensus flag": flags["flagged"].to_numpy(),
    "signed a": ways["a_signed"].to_numpy(), "a posterior SD": ways["a_sd"].to_numpy(),
    "P(a < 0)": ways["p_negative"].to_numpy(), "item-rest r": ways["item_rest"].to_numpy(),
    "wrong-way flag": ways["flagged"].to_numpy()})[corrected]
corrected_view.reset_index(drop=True)

# %% [markdown]
# ## The option-set features against the maintainers' duplicate and redundant-option lists
#
# The maintainers also listed {glue:text}`n_listed_dup` questions that repeat an earlier one and
# {glue:text}`n_listed_redun` whose options are a strict subset of those of another question with
# the same stem (the second ids of their October-2025 lists, `tiger_fixes_2025-10/fix_id_lists.csv`).
# Both are relations *between* questions. The audit's option-set features (Appendix B's eight
# covariates) look inside one question, and until now the `audit` command had no question-level
# similarity at all. Of the within-question features, two could bear on these lists at
# all: two options with the same content words (`opt_max_overlap` = 1, a near-duplicate option)
# and a cut-down option set (fewer than ten options). The table shows how they fare. A
# near-duplicate option flags {glue:text}`n_overlap_flagged:,` questions, among them
# {glue:text}`overlap_hit_dup` listed duplicates and {glue:text}`overlap_hit_redun` listed redundant
# sets (odds ratios {glue:text}`overlap_or_dup:.2f` [{glue:text}`overlap_or_dup_low:.2f`,
# {glue:text}`overlap_or_dup_high:.2f`] and {glue:text}`overlap_or_redun:.2f`
# [{glue:text}`overlap_or_redun_low:.2f`, {glue:text}`overlap_or_redun_high:.2f`] against the
# unlisted questions). Fewer than ten options catches {glue:text}`short_hit_redun`
# of the {glue:text}`n_listed_redun` redundant sets (a subset has fewer options by construction),
# at a precision of {glue:text}`short_precision_redun:.1%` [{glue:text}`short_precision_redun_low:.1%`,
# {glue:text}`short_precision_redun_high:.1%`].
#
# A question-level detector is cheap, so the library now has one
# (`mmlu_audit.features.duplicate_pairs`, written by the `audit` command as `duplicate_of` and
# `options_nested_in`): pairs of questions with the same stem up to case and
# whitespace, classed by whether their normalised option sets are equal, nested or otherwise
# different. On the 2024 text it finds {glue:text}`n_pairs_same:,` same-option pairs,
# {glue:text}`n_pairs_nested:,` nested pairs and {glue:text}`n_pairs_other:,` pairs with the same
# stem and other options. It recovers {glue:text}`dup_pairs_found` of the
# {glue:text}`n_listed_dup` listed duplicate pairs and {glue:text}`redun_pairs_found` of the
# {glue:text}`n_listed_redun` listed redundant pairs (as pairs, not only as questions), at
# precisions of {glue:text}`same_precision_dup:.1%` [{glue:text}`same_precision_dup_low:.1%`,
# {glue:text}`same_precision_dup_high:.1%`] and {glue:text}`nested_precision_redun:.1%`
# [{glue:text}`nested_precision_redun_low:.1%`, {glue:text}`nested_precision_redun_high:.1%`].
# This agreement is close to circular: the maintainers found their pairs with the same kind of
# rule (their `check_dup.py` and `check_redun.py`: the same stripped question with an equal or a
# nested option set), so it shows only that the audit's detector reproduces theirs. The
# {glue:text}`n_unlisted_same` same-option pairs outside their list are those the revisions README
# names as unlisted, and the {glue:text}`n_pairs_other:,` same-stem pairs with other options are in
# no list (whether they are near-copies is for a reader to judge). Exact comparison of text finds
# verbatim copies only, not paraphrases. Source: the 2024 items (`mmlu_pro/test.parquet`) and the
# maintainers' lists.

# %%
fix_lists = load_pro_fix_lists()
detectors = fix_list_detectors(items)
fix_table = fix_list_validation(items, fix_lists, detectors)
pairs = duplicate_pairs(items, "question_id")
listed_pairs = {name: {frozenset(map(int, pair)) for pair in
                       fix_lists.loc[fix_lists["list"] == name, ["qid_first", "qid_second"]].to_numpy()}
                for name in ("duplicate_question_pairs", "supersets_tuples")}
found_pairs = {relation: {frozenset(map(int, pair)) for pair in
                          pairs.loc[pairs["relation"] == relation, ["first", "second"]].to_numpy()}
               for relation in RELATIONS}
dup_rows, redun_rows = fix_table.loc["listed duplicate copies"], fix_table.loc["listed redundant option sets"]
overlap, short = "two options with the same content words", "fewer than ten options"
same, nested = "same stem, same options (later copy)", "same stem, nested options (smaller set)"
glue_values({"n_listed_dup": int(dup_rows["n_positive"].iloc[0]),
             "n_listed_redun": int(redun_rows["n_positive"].iloc[0]),
             "n_overlap_flagged": int(dup_rows.loc[overlap, "n_flagged"]),
             "overlap_hit_dup": int(dup_rows.loc[overlap, "n_hit"]),
             "overlap_hit_redun": int(redun_rows.loc[overlap, "n_hit"]),
             "short_hit_redun": int(redun_rows.loc[short, "n_hit"]),
             **{f"overlap_or_{name}{end}": rows.loc[overlap, f"odds_ratio{end}"]
                for name, rows in (("dup", dup_rows), ("redun", redun_rows)) for end in ("", "_low", "_high")},
             **{f"short_precision_redun{end}": redun_rows.loc[short, f"precision{end}"] for end in ("", "_low", "_high")},
             **{f"same_precision_dup{end}": dup_rows.loc[same, f"precision{end}"] for end in ("", "_low", "_high")},
             **{f"nested_precision_redun{end}": redun_rows.loc[nested, f"precision{end}"]
                for end in ("", "_low", "_high")},
             "n_pairs_same": len(found_pairs[RELATIONS[0]]), "n_pairs_nested": len(found_pairs[RELATIONS[1]]),
             "n_pairs_other": len(found_pairs[RELATIONS[2]]),
             "dup_pairs_found": len(listed_pairs["duplicate_question_pairs"] & found_pairs[RELATIONS[0]]),
             "redun_pairs_found": len(listed_pairs["supersets_tuples"] & found_pairs[RELATIONS[1]]),
             "n_unlisted_same": len(found_pairs[RELATIONS[0]] - listed_pairs["duplicate_question_pairs"])})
fix_table[["n_positive", "n_flagged", "n_hit", "recall", "recall_low", "recall_high", "precision",
           "precision_low", "precision_high", "odds_ratio", "odds_ratio_low", "odds_ratio_high"]]

# %% [markdown]
# ## Closing note
#
# This run used {glue:text}`run_mode`. How long the page takes at full settings on the build
# machine, and how long it took in this build, is on the {ref}`chap-performance` page.

# %%
glue_values({"run_mode": "fast mode" if fast else "full settings"})

# %% [markdown]
# ## Checks
#
# The assertions below check the method and the data (the downloadable table has one row per flag,
# every interval brackets its estimate); which way the key results came out is reported in the
# first table, not asserted.

# %%
display(finding_checks({
    "the rule flags Redux wrong-key questions more than twice as often as fine ones":
        ours["rate_ratio_wrong_key_vs_fine"] > 2,
    "at least 90 % of the wrong-key flags fall on original MMLU options":
        follow_up["original_share_wrong_key_flags"] >= 0.9,
    "flags are associated with the later key corrections (odds ratio's interval above 1)":
        fix_health["odds_ratio_low"] > 1}))
assert len(table) == ours["n_flagged"] == int(curve.query("k == @k and m == @m")["n_flagged"].iloc[0])
assert (table["choice_votes"] >= m).all() and (table["choice_votes"] > table["key_votes"]).all()
assert not panel.matrix.simulated
assert fix_all["n_positive"] == 22 and fix_all["recall_low"] <= fix_all["recall"] <= fix_all["recall_high"]
assert key_table.loc[("all of MMLU-Pro", "either"), "n_hit"] >= fix_all["n_hit"]
assert (key_table["recall_low"] <= key_table["recall"]).all() and (key_table["recall"] <= key_table["recall_high"]).all()
assert dup_rows.loc[same, "recall"] == redun_rows.loc[nested, "recall"] == 1.0  # the detector reproduces both lists
