"""Values the paper reports, for side-by-side display with ours.

These are the published numbers (Section named in each entry), kept in one place
so every chapter can show the paper's value beside its own without typing a number into prose.
They are references to compare against, never inputs to any computation.
"""

from __future__ import annotations

import pandas as pd

__all__ = ["BLOG_POST", "CONSENSUS_BLOG_POST", "MMLU_PRO_LEADERBOARD", "MMLU_PRO_PAPER", "MMLU_PRO_SOURCES",
           "PAPER", "RECOVERS", "REPRODUCES", "SOURCE_KINDS", "paper_table", "paper_value", "reproduces",
           "source_kind", "source_table"]

#: The two kinds of agreement the summaries (landing page, Scorecard, Discussion) report, worded once.
#: ``REPRODUCES``: our value is within tolerance of a number a paper reports (on real or simulated
#: responses; :func:`reproduces` words it for the blog post's numbers). ``RECOVERS``: an estimate on
#: the simulated world matches what the simulator itself planted, whatever the paper reports.
REPRODUCES = "reproduces the paper's value"
RECOVERS = "recovers the planted truth"
#: Where a reported number comes from: a paper (the audit or MMLU-Pro) or the consensus blog post.
SOURCE_KINDS = ("paper", "blog post")
#: The blog post the consensus-audit numbers come from (``book/references.bib``: mv2consensus2026).
BLOG_POST = "the MV2 / Munim model-consensus audit of MMLU-Pro (a DEV Community blog post, 2026)"

PAPER: dict[str, tuple[float, str]] = {
    # §2 data
    "n_items": (14_042, "§2"),
    "n_models": (1_000, "§2"),
    "n_distinct_checkpoints": (869, "§2"),
    "n_family_size_groups": (50, "§2"),
    "n_stem_items": (3_153, "§2"),
    "n_nonstem_items": (10_889, "§2"),
    "n_stem_subjects": (19, "§2"),
    "n_nonstem_subjects": (38, "§2"),
    "share_nonstem_items": (0.7755, "§4.1"),
    # §3 calibration
    "b_min": (-5.00, "§3"),
    "b_max": (7.12, "§3"),
    "b_sd": (2.24, "§3"),
    "theta_min": (-2.02, "§3"),
    "theta_max": (3.14, "§3"),
    "theta_sd": (1.03, "§3"),
    "split_cohort_r": (0.9921, "§3"),
    "spearman_brown": (0.9960, "§3"),
    # complexity instrument
    "r_nodes_tokens": (0.985, "§3, sensitivity to prompt length"),
    "r_depth_tokens": (0.580, "§3, sensitivity to prompt length"),
    "vif_min": (1.025, "§4.1"),
    "vif_max": (2.379, "§4.1"),
    "w9_residualised_dim1": (134.79, "§3, sensitivity to prompt length"),
    # §4.1 pooled
    "pooled_r2": (0.0357, "§4.1"),
    "pooled_F": (51.15, "§4.1"),
    "pooled_F_incremental": (51.15, "§4.1, F(9, 14029): the nine indicators over a three-regressor baseline"),
    "ratio_framework_vs_length_global": (3.8, "§4.1"),
    "ratio_framework_vs_length_stem": (2.5, "§4.1"),
    "encoder_ceiling_pooled": (0.1269, "§4.1"),
    "encoder_ceiling_stem": (0.1330, "§4.1"),
    "share_of_ceiling_stem": (0.565, "§4.1"),
    "share_of_ceiling_nonstem": (0.326, "§4.1"),
    "share_of_ceiling_stem_with_options": (0.899, "§4.1"),
    "subject_identity_pooled": (0.1354, "§4.1"),
    # §4.2 stratified
    "cv_r2_stem": (0.0732, "§4.2"),
    "cv_r2_nonstem": (0.0361, "§4.2"),
    "logit2_ratio": (2.46, "§4.2"),
    "logit2_ratio_ci_low": (1.80, "§4.2"),
    "logit2_ratio_ci_high": (3.36, "§4.2"),
    "cohens_q": (0.0918, "§4.2"),
    "r2_gap_block_perm_p": (0.08, "§4.2, Appendix A"),
    "holm_survivors_hc3": (5, "§4.2"),
    "holm_survivors_cr1": (2, "§4.2"),
    "holm_survivors_boot": (1, "§4.2"),
    "t_cr2_d_ner": (3.41, "§4.2"),
    "d_ner_beta_stem": (0.140, "§4.2"),
    "d_ner_b_nonstem": (0.0002, "§4.2"),
    "d_mdd_b_stem": (0.3694, "§4.2"),
    "d_mdd_b_nonstem": (0.0146, "§4.2"),
    "holm_p_cr2_d_ner": (0.011, "§4.2"),
    "boot_p_d_ner": (0.014, "§4.2"),
    "t_cr2_d_mdd": (2.68, "§4.2"),
    "boot_p_d_mdd": (0.015, "§4.2"),
    "z_hc3_c_bry": (-4.94, "§4.2"),
    "t_cr2_c_bry": (-1.93, "§4.2"),
    # §4.3 homogeneity
    "w9_hc3": (138.36, "§4.3"),
    "w10_hc3": (375.76, "§4.3"),
    "w9_cr2": (28.21, "§4.3"),
    "w9_cr1": (33.13, "§4.3"),
    "se_inflation_cr2_hc3": (1.65, "§4.3"),
    "wcb_q95": (34.7, "§4.3"),
    "wcb_p": (0.060, "§4.3"),
    "lr_11": (454.86, "§4.3"),
    "resid_skew": (1.37, "§4.3"),
    "breusch_pagan": (130.70, "§4.3"),
    "item_perm_max_gap": (0.0315, "§4.3"),
    "observed_r2_gap": (0.0412, "§4.3"),
    "block_perm_widening": (3.2, "§4.3"),
    "lr_block_perm_p": (0.049, "§4.3"),
    # Appendix C
    "rho_2d": (0.965, "§4.3, Appendix C"),
    "heldout_gain_nats": (243.6, "§4.3, Appendix C"),
    "heldout_paired_z": (8.2, "§4.3, Appendix C"),
    # Appendix A (robustness; issue 10a)
    "n_perturbation_schemes": (123, "§3, Appendix A"),
    "share_schemes_homogeneity_rejected": (1.0, "§3, Appendix A (all conclusions intact)"),
    "share_schemes_d_ner_survives_holm": (1.0, "§3, Appendix A (all conclusions intact)"),
    "share_schemes_stem_r2_exceeds": (1.0, "§3, Appendix A (all conclusions intact)"),
    "rasch_conclusions_intact": (True, "§4.3, Appendix A"),
    # Appendix B (option set and non-linearity; issue 10a)
    "contrast_survives_options": (True, "§3, Appendix B"),
    "c_bry_nonlinear_nonstem": (True, "§4.2, Appendix B"),
    "homogeneity_rejected_common_support": (True, "§4.3, Appendix B"),
    # Appendix C (issue 10): ρ posterior mass and the matched-length subscale correlation
    "rho_2d_mass_above_0_99": (0.0, "§4.3, Appendix C (\"no posterior mass above 0.99\")"),
    "subscale_r": (0.977, "§4.3, Appendix C"),
    "subscale_r_ci_low": (0.974, "§4.3, Appendix C"),
    "subscale_r_ci_high": (0.980, "§4.3, Appendix C"),
    "subscale_share_at_least_one": (0.0, "§4.3, Appendix C (\"no replicate reaching unity\")"),
    # §5.1 reasoning sensitivity (chap-reasoning-sensitivity)
    "rs_r_all": (-0.772, "§5.1"),
    "rs_r_excl_bottom_quartile": (-0.512, "§5.1"),
    "rs_r_excl_bottom_half": (-0.397, "§5.1"),
    "null_r_all": (-0.899, "§5.1"),
    "null_r_excl_bottom_quartile": (-0.355, "§5.1"),
    "null_r_excl_bottom_half": (-0.119, "§5.1"),
    "null_share_all": (1.16, "§5.1"),
    "null_share_excl_bottom_quartile": (0.69, "§5.1"),
    "null_share_excl_bottom_half": (0.30, "§5.1"),
    "null_theta_r_2pl": (0.907, "§5.1"),
    "null_b_r_2pl": (0.892, "§5.1"),
    "gamma0": (-0.300, "§5.1"),
    "gamma0_low": (-0.326, "§5.1"),
    "gamma0_high": (-0.272, "§5.1"),
    "gamma1": (-0.086, "§5.1"),
    "gamma1_low": (-0.093, "§5.1"),
    "gamma1_high": (-0.079, "§5.1"),
    # §5.2 rank stability (chap-rank-stability)
    "tau_stem": (0.9634, "§5.2"),
    "tau_nonstem": (0.9887, "§5.2"),
    "tau_matched": (0.9756, "§5.2"),
    "tau_matched_low": (0.9633, "§5.2"),
    "tau_matched_high": (0.9827, "§5.2"),
    "tau_matched_p": (0.035, "§5.2"),
    "retention_top50_nonstem": (0.92, "§5.2"),
    "retention_top50_stem": (0.78, "§5.2"),
    "retention_top10_nonstem": (1.00, "§5.2"),
    "retention_top10_stem": (0.80, "§5.2"),
    "displacement": (0.22, "§5.2"),
    "displacement_low": (0.16, "§5.2"),
    "displacement_high": (0.28, "§5.2"),
    "null_random_items": (0.144, "§5.2"),
    "null_random_items_p": (0.086, "§5.2"),
    "null_subject_blocks": (0.224, "§5.2"),
    "null_subject_blocks_p": (0.61, "§5.2"),
    "displacement_distinct": (0.288, "§5.2"),
    "n_duplicate_pairs": (7, "§5.2"),
    "dup_shift_aggregate_median": (1, "§5.2"),
    "dup_shift_stem_median": (3, "§5.2"),
    "dup_shift_aggregate_max": (11, "§5.2"),
    "dup_shift_stem_max": (23, "§5.2"),
    "gap_sd": (0.19, "§5.2, Appendix C"),
    "gap_share_within": (0.835, "§5.2, Appendix C"),
    "gap_top": (0.88, "§5.2 (Qwen2-72B)"),
}


def paper_value(key: str) -> float:
    """The paper's reported value for ``key``."""
    return PAPER[key][0]


def paper_table(ours: dict[str, float], labels: dict[str, str] | None = None, *,
                column: str = "computed here") -> pd.DataFrame:
    """A "quantity | paper | <what our values were computed on>" table for the keys of ``ours``.

    Parameters
    ----------
    ours : dict
        Key (from :data:`PAPER`) → our value.
    labels : dict, optional
        Key → human-readable quantity name.
    column : str
        The header of our values, saying what they were computed on (a chapter passes
        :func:`mmlu_audit.book.report.value_label` of its response matrix, so the header is
        right whichever source the chapter ran on).
    """
    labels = labels or {}
    rows = [{"quantity": labels.get(k, k), "paper": PAPER[k][0], column: v, "where": PAPER[k][1]}
            for k, v in ours.items()]
    return pd.DataFrame(rows).set_index("quantity")


# Numbers reported by the MMLU-Pro sources, NOT by the MMLU audit paper: the model-consensus
# audit of MMLU-Pro's answer key (`mmlu_pro_consensus_audit.txt`, MV2 / Munim, panel = the 10
# best of 45 archives, 91.1 % down to 70.3 %) — a blog post, not a paper, so its numbers are
# counted apart from the papers' — and MMLU-Pro itself (Wang et al., 2024), a paper. Keys
# match the glue names of our matching values in the MMLU-Pro chapters (chap-mmlu-pro,
# chap-answer-key-audit).
#: The consensus audit's numbers (:data:`BLOG_POST`).
CONSENSUS_BLOG_POST: dict[str, tuple[float, str]] = {
    # consensus audit: flag rates by group (k = 10, m = 6)
    "flag_rate_wrong_key": (36 / 55, "consensus audit: Redux wrong key, 36 of 55"),
    "flag_rate_other_error": (29 / 117, "consensus audit: Redux other error, 29 of 117"),
    "flag_rate_fine": (294 / 2_553, "consensus audit: Redux fine, 294 of 2,553"),
    "flag_rate_unreviewed": (501 / 3_928, "consensus audit: MMLU-derived, never reviewed, 501 of 3,928"),
    "flag_rate_stemez": (271 / 4_083, "consensus audit: STEM-website source, 271 of 4,083"),
    "flag_rate_all": (1_210 / 12_032, "consensus audit: all of MMLU-Pro, 1,210 of 12,032"),
    "n_flagged": (1_210, "consensus audit"),
    "rate_ratio_wrong_key_vs_fine": (5.7, "consensus audit"),
    "share_flagged_any_error": (65 / 359, "consensus audit: flagged expert-reviewed with an error label"),
    "precision_wrong_key": (36 / 359, "consensus audit: flagged expert-reviewed that are wrong keys"),
    "n_flagged_unanimous": (201, "consensus audit: all 10 agree (m = 10)"),
    "recall_unanimous": (21 / 55, "consensus audit: m = 10"),
    "share_flagged_error_unanimous": (0.364, "consensus audit: m = 10"),
    "panel_size": (10, "consensus audit"),
    "n_archives": (45, "consensus audit: usable TIGER-Lab archives"),
    "panel_best_accuracy": (0.911, "consensus audit: Gemini 3.1 Pro"),
    "panel_worst_accuracy": (0.703, "consensus audit: Gemini 1.5 Pro"),
    # consensus audit follow-up: original vs added options (questions keeping all 4 MMLU options)
    "added_share_fine_flags": (185 / 290, "consensus follow-up: Redux fine, flagged"),
    "added_share_scattered": (0.567, "consensus follow-up: wrong answers elsewhere"),
    "added_share_of_distractors": (0.641, "consensus follow-up: added among non-key options"),
    "original_share_wrong_key_flags": (36 / 36, "consensus follow-up: Redux wrong key, flagged"),
}
#: MMLU-Pro's own numbers (Wang et al., 2024), a paper.
MMLU_PRO_PAPER: dict[str, tuple[float, str]] = {
    "n_pro_items": (12_032, "MMLU-Pro §3"),
    "mean_options": (9.47, "MMLU-Pro §3"),
    "share_ten_options": (0.83, "MMLU-Pro §3"),
}
#: Every number the MMLU-Pro sources report (the blog post's and the MMLU-Pro paper's).
MMLU_PRO_SOURCES: dict[str, tuple[float, str]] = {**CONSENSUS_BLOG_POST, **MMLU_PRO_PAPER}


def source_kind(key: str) -> str:
    """Whether the reported value of ``key`` comes from a paper or the blog post (:data:`SOURCE_KINDS`).

    Raises
    ------
    KeyError
        For a key no source reports.
    """
    if key in PAPER or key in MMLU_PRO_PAPER:
        return SOURCE_KINDS[0]
    if key in CONSENSUS_BLOG_POST:
        return SOURCE_KINDS[1]
    raise KeyError(f"{key!r} is reported by no registered source")


def reproduces(kind: str = SOURCE_KINDS[0]) -> str:
    """:data:`REPRODUCES`, worded for the kind of source (``"paper"`` or ``"blog post"``)."""
    if kind not in SOURCE_KINDS:
        raise KeyError(f"source kind must be one of {SOURCE_KINDS}, got {kind!r}")
    return REPRODUCES if kind == SOURCE_KINDS[0] else REPRODUCES.replace("the paper's", "the blog post's")

#: The repository README's mini-leaderboard rows that name a staged model exactly
#: (``responses/mmlu_pro_tiger29/README.md``, Verification), and the two Gemini rows that
#: predate the staged ``-002`` files (orientation only).
MMLU_PRO_LEADERBOARD: dict[str, tuple[float, str]] = {
    "Meta-Llama-3-70B": (52.78, "Llama-3-70B"),
    "Qwen1.5-72B-Chat": (52.64, "Qwen1.5-72B-Chat"),
    "gemini-1.5-flash-002": (59.12, "Gemini-1.5-Flash (older version)"),
    "gemini-1.5-pro-002": (69.03, "Gemini-1.5-Pro (older version)"),
}


def source_table(ours: dict[str, float], labels: dict[str, str] | None = None, *,
                 column: str = "computed here") -> pd.DataFrame:
    """A "quantity | source | <what our values were computed on>" table against :data:`MMLU_PRO_SOURCES`.

    ``column`` heads our values, as in :func:`paper_table`.
    """
    labels = labels or {}
    rows = [{"quantity": labels.get(k, k), "source": MMLU_PRO_SOURCES[k][0], column: v,
             "where": MMLU_PRO_SOURCES[k][1]} for k, v in ours.items()]
    return pd.DataFrame(rows).set_index("quantity")
