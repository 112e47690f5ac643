"""The words a reader sees for the library's code names: one registry for axes, legends and tables.

Columns, calibrations and fits have short code names (``d_ner``, ``leaderboard-2026``) that suit
code and CSV headers but not a figure's axis. Chapters put every code name they draw through
:func:`label`, and the site check (:mod:`mmlu_audit.book.sitecheck`) fails a page whose figure
description still contains one (:func:`code_names_in`).
"""

from __future__ import annotations

import re
from functools import cache

__all__ = ["CODE_NAME", "code_names_in", "label", "labels"]

#: A token that reads as code rather than words: lower-case letters joined by underscores.
CODE_NAME = re.compile(r"(?<![\w/.-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w/])")

#: Code names outside the indicator table, with their words.
_OTHER_LABELS = {
    "paper-2024": "simulated world on the paper's scales",
    "leaderboard-2026": "simulated world fitted to the leaderboard",
    "b_hat": "fitted difficulty b̂",
    "theta_hat": "fitted ability θ̂",
    "htz_p": "CR2-HTZ p",
    "wcb_p": "wild cluster bootstrap p",
    "holm_p": "Holm-adjusted p",
    # the contrast tables (chap-stratified, chap-option-set): a Holm-adjusted p names itself a p
    # (mmlu_audit.core.formatting.is_p_label), so a table never prints it as 0
    "estimate": "estimate",
    "t_HC3": "t, HC3",
    "t_CR1": "t, CR1",
    "t_CR2": "t, CR2",
    "df_CR2": "df, CR2",
    "p_boot": "bootstrap p",
    "holm_HC3": "Holm p, HC3",
    "holm_CR1": "Holm p, CR1",
    "holm_CR2": "Holm p, CR2",
    "holm_boot": "Holm p, bootstrap",
    "n_items": "items",
    "n_models": "models",
    # the homogeneity claim's estimand (mmlu_audit.inference.interaction_share), Appendix D's table
    "interaction_share": "share of variance the nine interactions add",
    "interaction_share_low": "share of variance the interactions add: 95 % low",
    "interaction_share_high": "share of variance the interactions add: 95 % high",
    # the replication tables (chap-real-verdicts)
    "in_pi": "within the paper's prediction interval",
    "smaller_than_d33": "smaller than d33 (small telescopes)",
    "power": "power at the paper's estimates (simulated)",
    "power_analytic": "power, normal approximation",
    "outcome_rate_paper": "this outcome's rate at the paper's estimates (simulated)",
    "outcome_rate_null": "this outcome's rate with no effect (simulated)",
    "fixed_low": "fixed effect: 95 % low",
    "fixed_high": "fixed effect: 95 % high",
    "q_p": "Q: p",
    "i2": "I²",
    "tau2": "τ²",
    "rs_r_all": "observed r(β, θ̂)",
    "null_r_all": "3PL null: mean r",
    "null_low_all": "3PL null: 2.5 %",
    "null_high_all": "3PL null: 97.5 %",
    "null_tail_p_all": "tail probability",
    "b_reliability_stem": "b̂ split-half reliability, STEM",
    "b_reliability_nonstem": "b̂ split-half reliability, non-STEM",
    "reliability_stem": "empirical-logit split-half reliability, STEM",
    "reliability_nonstem": "empirical-logit split-half reliability, non-STEM",
    "ratio_disattenuated": "ratio, disattenuated",
    "low_disattenuated": "disattenuated: 95 % low",
    "high_disattenuated": "disattenuated: 95 % high",
    "outcome_disattenuated": "outcome, disattenuated",
    "w9_cr2": "W(9), CR2",
    "w9_hc3": "W(9), HC3",
    "d_ner_holm_cr2": "D_ner contrast: Holm p, CR2",
    "w9_htz_p": "CR2-HTZ p",
    "t_cr2_d_ner": "D_ner contrast: CR2 t",
    "cv_r2_stem": "cross-validated R², STEM",
    "cv_r2_nonstem": "cross-validated R², non-STEM",
    # §4.3's tables (chap-homogeneity; the same keys on chap-mmlu-pro and the side-by-side tables)
    "w9_cr1": "W(9), CR1",
    "w10_hc3": "W(10), HC3",
    "w9_cr2_p": "W(9), CR2: χ² p",
    "w9_hc3_p": "W(9), HC3: χ² p",
    "w9_htz_F": "W(9), CR2-HTZ F",
    "htz_F": "CR2-HTZ F",
    "htz_df": "CR2-HTZ denominator df",
    "wcr_p": "wild cluster bootstrap p",
    "df_num": "numerator df",
    "df_den": "denominator df",
    "se_inflation_cr2_hc3": "SE inflation, CR2 over HC3 (median)",
    "wcb_q95": "wild cluster bootstrap: 95th percentile of W(9)",
    "wcb_stat": "W(9) inside the wild cluster bootstrap",
    "nominal_rate": "nominal rate",
    "lr_11": "likelihood ratio Λ(11)",
    "resid_skew": "residual skew",
    "breusch_pagan": "Breusch–Pagan statistic",
    "observed_r2_gap": "R² gap, STEM − non-STEM",
    "item_perm_max_gap": "item permutation: largest R² gap",
    "block_perm_widening": "null SD, subject blocks ÷ items",
    "r2_gap_block_perm_p": "R² gap: subject-block permutation p",
    "lr_block_perm_p": "likelihood ratio: subject-block permutation p",
    "n_perm": "permutations",
    "null_max": "null: largest draw",
    "null_q95": "null: 95th percentile",
    "n_clusters": "clusters",
    # §5.2's tables (chap-rank-stability)
    "model_id": "model",
    "tau_stem": "τ_w, STEM subscore vs aggregate",
    "tau_nonstem": "τ_w, non-STEM subscore vs aggregate",
    "tau_matched": "τ_w, length-matched non-STEM subsamples (mean)",
    "tau_matched_low": "τ_w, matched subsamples: 2.5 %",
    "tau_matched_high": "τ_w, matched subsamples: 97.5 %",
    "tau_matched_p": "τ_w STEM against matched subsamples: p",
    "displacement_low": "Top-k displacement: 95 % low",
    "displacement_high": "Top-k displacement: 95 % high",
    "displacement_distinct": "Top-k displacement, one model per checkpoint",
    "null_random_items": "random-item null: mean displacement",
    "null_random_items_p": "random-item null: p",
    "null_subject_blocks": "subject-block null: mean displacement",
    "null_subject_blocks_p": "subject-block null: p",
    "retention_top50_stem": "Top-50 retention, STEM",
    "retention_top50_nonstem": "Top-50 retention, non-STEM",
    "retention_top10_stem": "Top-10 retention, STEM",
    "retention_top10_nonstem": "Top-10 retention, non-STEM",
    "n_duplicate_pairs": "duplicate checkpoint pairs",
    "dup_shift_aggregate_median": "duplicates: median aggregate rank shift",
    "dup_shift_stem_median": "duplicates: median STEM rank shift",
    "dup_shift_aggregate_max": "duplicates: largest aggregate rank shift",
    "dup_shift_stem_max": "duplicates: largest STEM rank shift",
    "gap_sd": "SD of the gap θ STEM − θ non-STEM",
    "gap_share_within": "share of models near the identity line",
    "gap_top": "largest positive gap",
    # the answer-key audit's tables (chap-answer-key-audit)
    "n_flagged": "questions flagged",
    "n_hit": "flagged and positive",
    "n_positive": "positives",
    "n_reviewed": "reviewed",
    "rate_ratio": "rate ratio, positives ÷ negatives",
    "recall_low": "recall: 95 % low",
    "recall_high": "recall: 95 % high",
    "precision_low": "precision: 95 % low",
    "precision_high": "precision: 95 % high",
    "odds_ratio": "odds ratio",
    "odds_ratio_low": "odds ratio: 95 % low",
    "odds_ratio_high": "odds ratio: 95 % high",
    "question_id": "question",
    "redux_label": "MMLU-Redux label",
    "panel_choice": "panel's choice",
    "panel_voters": "panel models voting",
    "key_votes": "votes for the key",
    "choice_votes": "votes for the panel's choice",
    "option_origin": "where the panel's choice comes from",
    "choice_origin": "where the panel's choice comes from",
    "original_share_wrong_key_flags": "share of wrong-key flags on an original MMLU option",
    "added_share_fine_flags": "share of cleared-question flags on an added option",
    "added_share_of_distractors": "share of distractors MMLU-Pro added",
    "added_share_scattered": "share of scattered votes on added options",
    "key_letter_test": "key in the 2024 text",
    "key_letter_2026": "key after the maintainers' corrections",
    # the validity appendix's tables (chap-validity)
    "estimated_on_truth": "estimated on the true b",
    "coverage_mc_se": "coverage: Monte Carlo SE",
    "bias_mc_se": "mean error: Monte Carlo SE",
    "mean_width": "mean interval width",
    "size_wcb": "wild bootstrap size",
    "size_wcb_mc_se": "wild bootstrap size: Monte Carlo SE",
    "mc_se": "Monte Carlo SE",
    "rejection_rate": "rejection rate",
    "n_reps": "replicates",
    # MMLU-Pro's item tables (chap-mmlu-pro)
    "n_pro_items": "questions",
    "mean_options": "mean options per question",
    "share_ten_options": "share with ten options",
    "ori_mmlu": "MMLU-derived",
    "n_kept": "questions kept from MMLU",
    "n_added": "questions MMLU-Pro added",
    "n_tokens": "tokens",
    # Appendix C's tables (chap-appendix-c; mmlu_audit.analyses.subscales.HEADLINE_KEYS)
    "rho_2d": "ρ(θ STEM, θ non-STEM), two-dimensional 2PL",
    "rho_2d_low": "ρ: Fisher 95 % low",
    "rho_2d_high": "ρ: Fisher 95 % high",
    "rho_2d_mass_above_0_99": "ρ: share of its interval above 0.99",
    "n_distinct_models": "distinct checkpoints",
    "rho_2d_working": "ρ among the working checkpoints",
    "rho_working_low": "ρ working: posterior 95 % low",
    "rho_working_high": "ρ working: posterior 95 % high",
    "rho_working_boot_low": "ρ working, posterior × model bootstrap, low",
    "rho_working_boot_high": "ρ working, posterior × model bootstrap, high",
    "n_working_distinct": "working distinct checkpoints",
    "n_heldout": "held-out cells",
    "heldout_gain_nats": "held-out gain, two dimensions over one (nats)",
    "heldout_gain_per_cell": "held-out gain per cell (nats)",
    "heldout_paired_z": "held-out gain: z, cells independent",
    "heldout_z_by_model": "held-out gain: z, clustered by model",
    "heldout_n_models": "model clusters",
    "heldout_z_by_subject": "held-out gain: z, clustered by subject",
    "heldout_n_subjects": "subject clusters",
    "subscale_r": "disattenuated subscale r (mean over item draws)",
    "subscale_r_ci_low": "subscale r: 2.5 % of item draws",
    "subscale_r_ci_high": "subscale r: 97.5 % of item draws",
    "subscale_share_at_least_one": "share of item draws with r ≥ 1",
    "subscale_r_boot_low": "subscale r, model bootstrap, low",
    "subscale_r_boot_high": "subscale r, model bootstrap, high",
    # §4.2's tables (chap-stratified; mmlu_audit.analyses.regression.stratified.HEADLINE_KEYS)
    "holm_survivors_hc3": "contrasts surviving Holm, HC3",
    "holm_survivors_cr1": "contrasts surviving Holm, CR1",
    "holm_survivors_boot": "contrasts surviving Holm, bootstrap",
    "holm_survivors_cr2": "contrasts surviving Holm, CR2",
    "ci_low": "95 % low",
    "ci_high": "95 % high",
    "cohens_q": "Cohen's q",
    "r2_stem": "R², STEM",
    "r2_non_stem": "R², non-STEM",
    "f2_stem": "Cohen's f², STEM",
    "f2_non_stem": "Cohen's f², non-STEM",
    "explained_var_stem": "explained variance, STEM",
    "explained_var_non_stem": "explained variance, non-STEM",
    "explained_var_ratio": "explained variance, STEM ÷ non-STEM",
    "logit2_ratio": "logit² ratio, STEM ÷ non-STEM",
    "logit2_ratio_ci_low": "logit² ratio: 95 % low",
    "logit2_ratio_ci_high": "logit² ratio: 95 % high",
    "n_boot": "bootstrap draws",
    # every other key of the paper's values (mmlu_audit.core.paper.PAPER): the rows of paper_table
    "n_distinct_checkpoints": "distinct checkpoints",
    "n_family_size_groups": "family × size groups",
    "n_stem_items": "STEM items",
    "n_nonstem_items": "non-STEM items",
    "n_stem_subjects": "STEM subjects",
    "n_nonstem_subjects": "non-STEM subjects",
    "share_nonstem_items": "share of non-STEM items",
    "b_min": "smallest b̂",
    "b_max": "largest b̂",
    "b_sd": "SD of b̂",
    "theta_min": "smallest θ̂",
    "theta_max": "largest θ̂",
    "theta_sd": "SD of θ̂",
    "split_cohort_r": "split-cohort r of b̂",
    "spearman_brown": "Spearman–Brown reliability of b̂",
    "r_nodes_tokens": "r(WSCG nodes, tokens)",
    "r_depth_tokens": "r(WSCG depth, tokens)",
    "vif_min": "smallest VIF",
    "vif_max": "largest VIF",
    "w9_residualised_dim1": "W(9), HC3, indicators residualised on prompt length",
    "pooled_r2": "R², pooled",
    "pooled_F": "F, pooled",
    "pooled_F_incremental": "F, the nine indicators over the baseline",
    "ratio_framework_vs_length_global": "R² ratio, framework ÷ length, all items",
    "ratio_framework_vs_length_stem": "R² ratio, framework ÷ length, STEM",
    "encoder_ceiling_pooled": "encoder ceiling R², pooled",
    "encoder_ceiling_stem": "encoder ceiling R², STEM",
    "share_of_ceiling_stem": "share of the encoder ceiling, STEM",
    "share_of_ceiling_nonstem": "share of the encoder ceiling, non-STEM",
    "share_of_ceiling_stem_with_options": "share of the encoder ceiling, STEM, with the options",
    "subject_identity_pooled": "R² of subject identity, pooled",
    "d_ner_beta_stem": "D_ner slope, STEM",
    "d_ner_b_nonstem": "D_ner slope, non-STEM",
    "d_mdd_b_stem": "D_mdd slope, STEM",
    "d_mdd_b_nonstem": "D_mdd slope, non-STEM",
    "n_perturbation_schemes": "perturbation schemes",
    "share_schemes_homogeneity_rejected": "share of schemes rejecting homogeneity",
    "share_schemes_d_ner_survives_holm": "share of schemes where the D_ner contrast survives Holm",
    "share_schemes_stem_r2_exceeds": "share of schemes where STEM's R² is the larger",
    "rasch_conclusions_intact": "conclusions intact under the Rasch model",
    "contrast_survives_options": "D_ner contrast survives with the options",
    "c_bry_nonlinear_nonstem": "C_bry non-linear in non-STEM",
    "homogeneity_rejected_common_support": "homogeneity rejected on the common support",
    "rs_r_excl_bottom_quartile": "r(β, θ̂), bottom quartile left out",
    "rs_r_excl_bottom_half": "r(β, θ̂), bottom half left out",
    "null_r_excl_bottom_quartile": "3PL null: mean r, bottom quartile left out",
    "null_r_excl_bottom_half": "3PL null: mean r, bottom half left out",
    "null_share_all": "3PL null r ÷ observed r, all models",
    "null_share_excl_bottom_quartile": "3PL null r ÷ observed r, bottom quartile left out",
    "null_share_excl_bottom_half": "3PL null r ÷ observed r, bottom half left out",
    "null_theta_r_2pl": "3PL null: r(θ̂ of the 2PL, true θ)",
    "null_b_r_2pl": "3PL null: r(b̂ of the 2PL, true b)",
    "gamma0": "γ0",
    "gamma0_low": "γ0: 95 % low",
    "gamma0_high": "γ0: 95 % high",
    "gamma1": "γ1",
    "gamma1_low": "γ1: 95 % low",
    "gamma1_high": "γ1: 95 % high",
    "displacement": "Top-k displacement",
    # the MMLU-Pro sources' values (mmlu_audit.core.paper.MMLU_PRO_SOURCES)
    "flag_rate_wrong_key": "flag rate: Redux wrong key",
    "flag_rate_other_error": "flag rate: Redux other error",
    "flag_rate_fine": "flag rate: Redux fine",
    "flag_rate_unreviewed": "flag rate: MMLU-derived, never reviewed",
    "flag_rate_stemez": "flag rate: STEM-website source",
    "flag_rate_all": "flag rate: all of MMLU-Pro",
    "rate_ratio_wrong_key_vs_fine": "flag rate ratio, wrong key ÷ fine",
    "share_flagged_any_error": "any expert error label among flagged reviewed",
    "precision_wrong_key": "wrong keys among flagged reviewed questions",
    "n_flagged_unanimous": "questions flagged, every panel model agreeing",
    "recall_unanimous": "recall of the wrong keys, every panel model agreeing",
    "share_flagged_error_unanimous": "share with an expert error label, every panel model agreeing",
    "panel_size": "panel models",
    "n_archives": "model archives",
    "panel_best_accuracy": "panel's best accuracy",
    "panel_worst_accuracy": "panel's worst accuracy",
    # the real leaderboard's tables (chap-real-leaderboard; mmlu_audit.analyses.real_leaderboard)
    "heldout_nats": "held-out log score per cell (nats)",
    "gain_vs_first": "held-out gain over the first model (nats)",
    "z_vs_first": "gain over the first: z, cells independent",
    "z_checkpoint": "gain over the first: z, clustered by checkpoint",
    "z_item": "gain over the first: z, clustered by item",
    "z_two_way": "gain over the first: z, clustered both ways",
    "choose_nats": "log score per cell, choosing half (nats)",
    "score_nats": "log score per cell, scoring half (nats)",
    "score_gain": "gain over the first, scoring half (nats)",
    "score_z_two_way": "gain over the first, scoring half: z, both ways",
    "r_a": "r(â, mirt's a)",
    "r_b": "r(b̂, mirt's b)",
    "r_theta": "r(θ̂, mirt's θ)",
    "slope_a": "slope of â on mirt's a",
    "slope_b": "slope of b̂ on mirt's b",
    "slope_theta": "slope of θ̂ on mirt's θ",
    "spearman_a": "Spearman ρ(â, mirt's a)",
    "spearman_b": "Spearman ρ(b̂, mirt's b)",
    "r_theta_score": "r(θ̂, full-MMLU score)",
    "pearson_above": "Pearson r above the chance region",
    "item_id": "item",
    "rank_ours": "rank, fitted here",
    "rank_reference": "rank, mirt",
    "rank_gap": "rank gap",
    "a_signed": "signed â (posterior mean)",
    "a_sd": "signed â: posterior SD",
    "signed_a": "signed â (posterior mean)",
    "signed_a_sd": "signed â: posterior SD",
    "mirt_a": "mirt's a",
    "mmlu_answer": "MMLU's key",
    "p_correct": "share of models correct",
    # the explanatory model's summarised parameters (mmlu_audit.irt.explanatory)
    "beta0": "intercept β0",
    "delta": "partition shift δ",
    "tau": "subject-effect SD τ",
    "sigma_b": "residual SD of b, σ_b",
    "delta_plus_subject_gap": "δ + mean STEM − non-STEM subject effect",
}


@cache
def labels() -> dict[str, str]:
    """Every registered code name with the words a reader sees for it.

    The nine indicators take their names from Table 1
    (:func:`mmlu_audit.features.indicators.indicator_table`), so a renamed indicator is renamed
    on every axis at once.
    """
    from mmlu_audit.features.indicators import indicator_table

    table = indicator_table()
    words = dict(zip(table["column"], table["name"], strict=True))
    # a STEM × indicator contrast as the regression names its term (contrast_terms: "STEM:d_ner")
    contrasts = {f"STEM:{column}": f"STEM × {name}" for column, name in words.items()}
    # one contrast's statistics as §4.2's summaries name them (t_cr2_d_ner, boot_p_d_mdd, …)
    statistics = {f"{prefix}_{column}": f"STEM × {name}: {what}" for column, name in words.items()
                  for prefix, what in (("t_cr2", "CR2 t"), ("z_hc3", "HC3 z"), ("boot_p", "bootstrap p"),
                                       ("holm_p_cr2", "Holm p, CR2"))}
    # the explanatory model's coefficients as it names them (mmlu_audit.irt.explanatory: "gamma[d_ner]")
    explanatory = {f"{site}[{column}]": f"{letter}: {prefix}{name}" for column, name in words.items()
                   for site, letter, prefix in (("beta", "β", ""), ("gamma", "γ", "STEM × "))}
    return words | contrasts | statistics | explanatory | _OTHER_LABELS


def label(name: str) -> str:
    """The reader's words for ``name``; a name that is not a code name is returned unchanged.

    Raises
    ------
    KeyError
        If ``name`` looks like a code name (``snake_case``) but is not registered: a new column
        drawn on an axis must be given words here, not shown as code.
    """
    known = labels()
    if name in known:
        return known[name]
    if CODE_NAME.fullmatch(name):
        raise KeyError(f"no reader's label for the code name {name!r}: add it to mmlu_audit.book.labels")
    return name


def code_names_in(text: str) -> list[str]:
    """The code names in ``text``: registered ones and any other ``snake_case`` token, in order.

    The names of the response sources (``openllm_v1_mmlu102``) are not counted: a figure's source
    stamp names its data as the reader types it after ``--data-source``.
    """
    from mmlu_audit.worlds.sources import SOURCES

    # a registered plain word ("estimate") is a header's words, not code; only names with an
    # underscore, a hyphen or a digit read as code
    code_like = [name for name in labels() if re.search(r"[_\d-]", name)]
    registered = [name for name in code_like if re.search(rf"(?<![\w/.-]){re.escape(name)}(?![\w/])", text)]
    return [name for name in dict.fromkeys(registered + CODE_NAME.findall(text)) if name not in SOURCES]
