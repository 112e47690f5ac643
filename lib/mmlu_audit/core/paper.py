"""Values the paper reports, for side-by-side display with ours.

These are the published numbers (Section named in each entry), kept in one place
so every chapter can show "paper | ours" without typing a number into prose.
They are references to compare against, never inputs to any computation.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

__all__ = ["BASES", "BLOG_POST", "CONSENSUS_BLOG_POST", "INTERVAL_SUFFIX", "MMLU_PRO_LEADERBOARD",
           "MMLU_PRO_PAPER", "MMLU_PRO_SOURCES", "PAPER", "POPULATION_SHORT", "REAL_RESULTS", "RECOVERS",
           "REPRODUCES", "RESULT_KEYS", "SOURCE_KINDS", "TESTS", "RealResult", "ResultKey", "HypothesisTest",
           "interval_to_read", "paired", "paper_table", "paper_value", "reproduces", "result_key",
           "source_kind", "source_table", "registered_test"]

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
    # §5.1 reasoning sensitivity (chapter 07)
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
    # §5.2 rank stability (chapter 08)
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


def paper_table(ours: dict[str, float], labels: dict[str, str] | None = None) -> pd.DataFrame:
    """A "quantity | paper | ours" table for the keys of ``ours``.

    Parameters
    ----------
    ours : dict
        Key (from :data:`PAPER`) → our value.
    labels : dict, optional
        Key → human-readable quantity name.
    """
    labels = labels or {}
    rows = [{"quantity": labels.get(k, k), "paper": PAPER[k][0], "ours": v, "where": PAPER[k][1]}
            for k, v in ours.items()]
    return pd.DataFrame(rows).set_index("quantity")


# Numbers reported by the MMLU-Pro sources, NOT by the MMLU audit paper: the model-consensus
# audit of MMLU-Pro's answer key (`mmlu_pro_consensus_audit.txt`, MV2 / Munim, panel = the 10
# best of 45 archives, 91.1 % down to 70.3 %) — a blog post, not a paper, so its numbers are
# counted apart from the papers' — and MMLU-Pro itself (Wang et al., 2024), a paper. Keys
# match the glue names of our matching values in chapters 13 and 14.
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


def source_table(ours: dict[str, float], labels: dict[str, str] | None = None) -> pd.DataFrame:
    """A "quantity | source | ours" table against :data:`MMLU_PRO_SOURCES`."""
    labels = labels or {}
    rows = [{"quantity": labels.get(k, k), "source": MMLU_PRO_SOURCES[k][0], "ours": v,
             "where": MMLU_PRO_SOURCES[k][1]} for k, v in ours.items()]
    return pd.DataFrame(rows).set_index("quantity")


# ---------------------------------------------------------------------------------------------
# The registry of result keys: where this book computes each published number.
# ---------------------------------------------------------------------------------------------

#: How a value's provenance is found. ``"items"``: computed from the real MMLU items alone (real
#: whatever the response source); ``"responses"``: from the response source of the chapter
#: section that glues it (the provenance banner in force at that point of the page);
#: ``"real responses"``: from a real response source whatever the chapter's ``data_source``.
BASES = ("items", "responses", "real responses")


@dataclass(frozen=True)
class ResultKey:
    """Where one published number is computed here, or why it is not.

    Parameters
    ----------
    chapter : str or None
        Two-digit prefix of the chapter that glues our value (``"04"``); None with ``reason``.
    glue : str or None
        The glue name our value has in that chapter.
    basis : str
        One of :data:`BASES`.
    reason : str, optional
        Why no chapter computes it (then ``chapter`` and ``glue`` are None).
    planted : str, optional
        The :class:`mmlu_audit.worlds.simulated.WorldSpec` field that copies the paper's value
        into the simulated world: on a simulated source a match is by construction.
    planted_glue : str, optional
        The glue name (same chapter) read instead of ``glue`` on a simulated source, where the
        planted value holds over a subpopulation the paper's statistic does not isolate (ρ is
        planted among the working models; the fitted ρ spans the models at the floor too).
    """

    chapter: str | None
    glue: str | None
    basis: str = "responses"
    reason: str | None = None
    planted: str | None = None
    planted_glue: str | None = None

    def __post_init__(self):
        if self.basis not in BASES:
            raise ValueError(f"basis must be one of {BASES}, got {self.basis!r}")
        if (self.reason is None) == (self.glue is None) or (self.glue is None) != (self.chapter is None):
            raise ValueError("a result key names a chapter and a glue name, or a reason, not both")


def _at(chapter: str, *keys: str, basis: str = "responses", glue: dict | None = None) -> dict:
    """Registry entries for paper keys glued under the same name (or ``glue[key]``) in ``chapter``."""
    glue = glue or {}
    return {key: ResultKey(chapter, glue.get(key, key), basis) for key in keys}


_SIM = "the simulated world copies the paper's value"
RESULT_KEYS: dict[str, ResultKey] = {
    **_at("01", "n_items", "n_stem_items", "n_nonstem_items", "n_stem_subjects", "n_nonstem_subjects",
          "share_nonstem_items", basis="items", glue={"share_nonstem_items": "share_nonstem"}),
    "n_models": ResultKey("01", "n_models", planted="n_models"),
    "n_distinct_checkpoints": ResultKey("01", "n_distinct_checkpoints", planted="n_distinct"),
    "n_family_size_groups": ResultKey("01", "n_family_size_groups", planted="n_groups"),
    **_at("02", "b_min", "b_max", "theta_min", "theta_max", "theta_sd", "split_cohort_r", "spearman_brown"),
    "b_sd": ResultKey("02", "b_sd", planted="b_sd"),
    **_at("03", "r_nodes_tokens", "r_depth_tokens", "vif_min", "vif_max", basis="items"),
    **_at("09", "w9_residualised_dim1", "n_perturbation_schemes", "share_schemes_homogeneity_rejected",
          "share_schemes_d_ner_survives_holm", "share_schemes_stem_r2_exceeds", "rasch_conclusions_intact"),
    **_at("04", "pooled_r2", "pooled_F", "pooled_F_incremental", "ratio_framework_vs_length_global",
          "ratio_framework_vs_length_stem",
          "encoder_ceiling_pooled", "encoder_ceiling_stem", "share_of_ceiling_stem",
              "share_of_ceiling_nonstem",
          "share_of_ceiling_stem_with_options", "subject_identity_pooled",
          glue={"encoder_ceiling_pooled": "ceiling_global", "encoder_ceiling_stem": "ceiling_stem",
                "subject_identity_pooled": "subject_global"}),
    **_at("05", "cv_r2_stem", "cv_r2_nonstem", "logit2_ratio", "logit2_ratio_ci_low", "logit2_ratio_ci_high",
          "cohens_q", "holm_survivors_hc3", "holm_survivors_cr1", "holm_survivors_boot", "t_cr2_d_ner",
          "holm_p_cr2_d_ner", "boot_p_d_ner", "t_cr2_d_mdd", "boot_p_d_mdd", "z_hc3_c_bry", "t_cr2_c_bry",
          glue={"holm_survivors_hc3": "holm_hc3", "holm_survivors_cr1": "holm_cr1",
                "holm_survivors_boot": "holm_boot"}),
    **_at("06", "r2_gap_block_perm_p", "w9_hc3", "w10_hc3", "w9_cr2", "w9_cr1", "se_inflation_cr2_hc3",
          "wcb_q95", "wcb_p", "lr_11", "resid_skew", "breusch_pagan", "item_perm_max_gap", "observed_r2_gap",
          "block_perm_widening", "lr_block_perm_p"),
    "rho_2d": ResultKey("11", "rho_2d", planted="rho", planted_glue="rho_2d_working"),
    **_at("11", "heldout_gain_nats", "heldout_paired_z", "rho_2d_mass_above_0_99", "subscale_r",
          "subscale_r_ci_low", "subscale_r_ci_high", "subscale_share_at_least_one"),
    **_at("10", "contrast_survives_options", "c_bry_nonlinear_nonstem",
          "homogeneity_rejected_common_support"),
    **_at("07", *(f"{stat}_{subset}" for stat in ("rs_r", "null_r", "null_share")
                  for subset in ("all", "excl_bottom_quartile", "excl_bottom_half")),
          "null_theta_r_2pl", "null_b_r_2pl"),
    **_at("18", "gamma0", "gamma0_low", "gamma0_high", "gamma1", "gamma1_low", "gamma1_high"),
    **_at("08", "tau_stem", "tau_nonstem", "tau_matched", "tau_matched_low", "tau_matched_high",
          "tau_matched_p",
          "retention_top50_nonstem", "retention_top50_stem", "retention_top10_nonstem",
              "retention_top10_stem",
          "displacement", "displacement_low", "displacement_high", "null_random_items", "null_random_items_p",
          "null_subject_blocks", "null_subject_blocks_p", "displacement_distinct", "n_duplicate_pairs",
          "dup_shift_aggregate_median", "dup_shift_stem_median", "dup_shift_aggregate_max",
              "dup_shift_stem_max",
          "gap_sd", "gap_share_within", "gap_top"),
    # MMLU-Pro sources: always the real TIGER-Lab responses
    **_at("14", "flag_rate_wrong_key", "flag_rate_other_error", "flag_rate_fine", "flag_rate_unreviewed",
          "flag_rate_stemez", "flag_rate_all", "n_flagged", "rate_ratio_wrong_key_vs_fine",
          "share_flagged_any_error", "precision_wrong_key", "n_flagged_unanimous", "recall_unanimous",
          "share_flagged_error_unanimous", "panel_size", "panel_best_accuracy", "panel_worst_accuracy",
          "added_share_fine_flags", "added_share_scattered", "added_share_of_distractors",
          "original_share_wrong_key_flags", basis="real responses",
          glue={"panel_size": "k", "panel_best_accuracy": "panel_best",
                "panel_worst_accuracy": "panel_worst"}),
    "n_archives": ResultKey(None, None, "real responses", reason=(
        "only 29 of the source's 45 TIGER-Lab archives are staged here (responses/mmlu_pro_tiger29)")),
    **_at("13", "n_pro_items", "mean_options", "share_ten_options", basis="items"),
}


def result_key(key: str) -> ResultKey:
    """The registry entry of a published key (of :data:`PAPER` or :data:`MMLU_PRO_SOURCES`)."""
    try:
        return RESULT_KEYS[key]
    except KeyError:
        raise KeyError(f"{key!r} is not a registered result key "
                       "(mmlu_audit.core.paper.RESULT_KEYS)") from None


@dataclass(frozen=True)
class RealResult:
    """A result computed on real responses that has no like-for-like published value.

    Parameters
    ----------
    chapter, glue : str
        Where it is glued.
    label : str
        What it is, in a few words; with a p-value, the label names the test the p is from.
    population : str
        The real source and its size.
    low, high : str, optional
        Glue names of its interval's bounds (same chapter). A chapter that declares the interval
        to read (:func:`interval_to_read`) needs none: the summaries read the declared one.
    p : str, optional
        Glue name of its p-value: the p of a test in :data:`TESTS` whose values include ``glue``
        (:func:`paired`), so that a statistic never travels with another test's p.
    compare : str, optional
        The :data:`PAPER` key of the paper's value for the same quantity on its own population.
    """

    chapter: str
    glue: str
    label: str
    population: str
    low: str | None = None
    high: str | None = None
    p: str | None = None
    compare: str | None = None

    def __post_init__(self):
        if self.p is not None and not paired(self.chapter, self.glue, self.p):
            test = registered_test(self.chapter, self.p)
            raise ValueError(f"{self.chapter}:{self.p} is not the p of a test of {self.glue} "
                             f"({'no registered test' if test is None else test.name}); see TESTS")


@dataclass(frozen=True)
class HypothesisTest:
    """One hypothesis test a chapter glues: its p-value and the glued values it is the p-value of.

    Parameters
    ----------
    chapter : str
        Two-digit prefix of the chapter.
    name : str
        The test, as a summary row may name it.
    p : str
        Glue name of its p-value.
    values : tuple of str
        Glue names of its statistic and of the estimate the test concerns. A statistic shared by
        tests of other reference distributions is glued once per test (the wild bootstrap's
        ``wcb_stat`` beside the χ² test's ``w9_cr2``), so each name belongs to the tests it is read with.
    """

    chapter: str
    name: str
    p: str
    values: tuple


_W_CHI2, _W_HTZ, _W_WCB = ("W(9), CR2 Wald, χ² reference", "W(9), CR2 Wald, HTZ F reference",
                           "W(9), CR2 Wald, wild cluster bootstrap")
#: Every test whose p-value a summary row or a discussion claim shows beside a glued value.
TESTS: tuple[HypothesisTest, ...] = (
    HypothesisTest("20", _W_HTZ, "pool_w9_htz_p", ("pool_w9_htz_F",)),
    HypothesisTest("20", _W_WCB, "pool_wcb_p", ("pool_wcb_stat",)),
    HypothesisTest("20", "STEM × D_ner, CR2 t, Holm over nine", "pool_holm_p_cr2_d_ner",
             ("pool_t_cr2_d_ner", "pool_d_ner_estimate")),
    HypothesisTest("20", "STEM × D_ner, wild cluster bootstrap, Holm over nine", "pool_boot_holm_p_d_ner",
             ("pool_d_ner_estimate",)),
    HypothesisTest("06", _W_CHI2, "w9_cr2_p", ("w9_cr2",)),
    HypothesisTest("06", _W_HTZ, "w9_htz_p", ("w9_htz_F",)),
    HypothesisTest("06", _W_WCB, "wcb_p", ("wcb_stat",)),
    HypothesisTest("05", "STEM × D_ner, CR2 t, Holm over nine", "holm_p_cr2_d_ner", ("t_cr2_d_ner",)),
    HypothesisTest("05", "STEM × D_ner, wild cluster bootstrap", "boot_p_d_ner", ("t_cr2_d_ner",)),
    HypothesisTest("08", "τ_w STEM against length-matched non-STEM subsamples", "tau_matched_p",
             ("tau_stem", "tau_matched")),
    HypothesisTest("08", "Top-k displacement against the subject-block null", "helm_null_blocks_p",
             ("helm_displacement", "helm_null_blocks")),
    HypothesisTest("08", "τ_w STEM against length-matched non-STEM subsamples, HELM-20", "h20_tau_matched_p",
             ("h20_tau_stem", "h20_tau_matched")),
    HypothesisTest("12", "Mann–Whitney, accuracy flagged vs clean", "acc_p", ("acc_flagged", "acc_clean")),
    HypothesisTest("12", "Mann–Whitney, item–rest r flagged vs clean", "irc_p", ("irc_flagged", "irc_clean")),
    HypothesisTest("13", _W_CHI2, "pro_w9_cr2_p", ("pro_w9_cr2",)),
    HypothesisTest("13", _W_HTZ, "pro_htz_p", ("pro_htz_F",)),
    HypothesisTest("13", _W_WCB + " (WCR)", "pro_wcr_p", ("pro_wcr_stat",)),
    HypothesisTest("14", "Fisher exact, corrected keys on health", "fix_health_p",
             ("fix_health_precision", "fix_health_or")),
)


def registered_test(chapter: str, p: str) -> HypothesisTest | None:
    """The registered test whose p-value chapter ``chapter`` glues as ``p``; None when none is."""
    return next((test for test in TESTS if test.chapter == chapter and test.p == p), None)


def paired(chapter: str, value: str, p: str) -> bool:
    """Whether ``p`` is the p-value of the test that ``value`` (both glued by ``chapter``) belongs to."""
    test = registered_test(chapter, p)
    return test is not None and value in test.values


#: Suffix of the glue name under which a chapter declares the interval to read for a value.
INTERVAL_SUFFIX = "_interval"


def interval_to_read(name: str, low: float, high: float, method: str) -> dict:
    """The glue entry by which a chapter declares the interval a reader should read for ``name``.

    Parameters
    ----------
    name : str
        Glue name of the estimate.
    low, high : float
        The interval's bounds.
    method : str
        What the interval is, in a few words ("exact Clopper–Pearson 95 %").

    Returns
    -------
    dict
        ``{name + INTERVAL_SUFFIX: {"low": low, "high": high, "method": method}}``, for
        :func:`mmlu_audit.book.report.glue_values`; the summaries show this interval and no other.
    """
    return {f"{name}{INTERVAL_SUFFIX}": {"low": float(low), "high": float(high), "method": str(method)}}


_HELM79 = "HELM per-subject table, 79 models"
_HELM20 = "HELM item level, 20 models"
_PRO34 = "MMLU-Pro, 34 models (29 published + 5 recovered)"
_OPENLLM = "Open LLM Leaderboard v1, 4,278 models × 102 selected MMLU items"
_POOL = "real MMLU pool, 31 models (HELM 20 + OpenCompass 11), all 14,042 items"
#: A short name of each real population, for a table cell (the full one is in its tooltip).
POPULATION_SHORT = {_HELM79: "HELM-79", _HELM20: "HELM-20", _PRO34: "MMLU-Pro 34",
                    _OPENLLM: "Open LLM LB 4,278 × 102", _POOL: "real pool 31"}
#: Every real-response result the chapters compute that no published value matches like for like.
REAL_RESULTS: tuple[RealResult, ...] = (
    RealResult("20", "pool_w9_htz_F", "W(9) homogeneity, CR2 Wald in its HTZ F form (HTZ p)", _POOL,
               p="pool_w9_htz_p"),
    RealResult("20", "pool_wcb_stat", "W(9) homogeneity, CR2 Wald (wild cluster bootstrap p)", _POOL,
               p="pool_wcb_p", compare="w9_cr2"),
    RealResult("20", "pool_d_ner_estimate", "STEM × D_ner contrast, CR2 interval and Holm p", _POOL,
               low="pool_d_ner_low", high="pool_d_ner_high", p="pool_holm_p_cr2_d_ner"),
    RealResult("20", "pool_t_cr2_d_ner", "STEM × D_ner contrast, CR2 t (Holm p)", _POOL,
               p="pool_holm_p_cr2_d_ner", compare="t_cr2_d_ner"),
    RealResult("20", "pool_cv_r2_stem", "cross-validated R², STEM", _POOL, compare="cv_r2_stem"),
    RealResult("20", "pool_cv_r2_nonstem", "cross-validated R², non-STEM", _POOL, compare="cv_r2_nonstem"),
    RealResult("20", "pool_logit2_ratio", "logit² ratio, STEM ÷ non-STEM (subject bootstrap)", _POOL,
               low="pool_logit2_ratio_ci_low", high="pool_logit2_ratio_ci_high", compare="logit2_ratio"),
    RealResult("20", "pool_rs_r_all", "r(β, θ̂), all models (Fisher interval)", _POOL, low="pool_rs_r_low",
               high="pool_rs_r_high", compare="rs_r_all"),
    RealResult("20", "pool_null_share_all", "share of r(β, θ̂) the 3PL guessing-floor null reproduces", _POOL,
               compare="null_share_all"),
    RealResult("07", "helm_r_beta_acc", "r(β, STEM accuracy logit), Fisher interval", _HELM20,
               low="helm_r_low", high="helm_r_high", compare="rs_r_all"),
    RealResult("08", "helm_tau_stem", "τ_w STEM subscore vs aggregate", _HELM79, compare="tau_stem"),
    RealResult("08", "helm_tau_nonstem", "τ_w non-STEM subscore vs aggregate", _HELM79,
               compare="tau_nonstem"),
    RealResult("08", "helm_displacement", "Top-k displacement (STEM vs non-STEM; subject-block null p)",
               _HELM79, p="helm_null_blocks_p", compare="displacement"),
    RealResult("08", "helm_null_blocks", "subject-block null displacement", _HELM79,
               compare="null_subject_blocks"),
    RealResult("08", "h20_tau_stem", "τ_w STEM subscore vs aggregate", _HELM20, compare="tau_stem"),
    RealResult("08", "h20_tau_nonstem", "τ_w non-STEM subscore vs aggregate", _HELM20, compare="tau_nonstem"),
    RealResult("08", "h20_tau_matched", "τ_w, length-matched non-STEM subsample", _HELM20,
               p="h20_tau_matched_p",
               compare="tau_matched"),
    RealResult("12", "acc_flagged", "accuracy on Redux-flagged items", _HELM20),
    RealResult("12", "acc_clean", "accuracy on Redux-clean items", _HELM20, p="acc_p"),
    RealResult("12", "irc_flagged", "item–rest correlation, flagged items", _HELM20),
    RealResult("12", "irc_clean", "item–rest correlation, clean items", _HELM20, p="irc_p"),
    RealResult("12", "acc_wrong_gt", "accuracy on wrong-ground-truth items", _HELM20),
    RealResult("13", "pro_b_sd", "SD of 2PL difficulty b̂", _PRO34, compare="b_sd"),
    RealResult("13", "pro_split_r", "split-cohort r of b̂", _PRO34, compare="split_cohort_r"),
    RealResult("13", "pro_split_sb", "Spearman–Brown reliability of b̂", _PRO34, compare="spearman_brown"),
    RealResult("13", "r_pro_mmlu_b", "r(b̂ on MMLU-Pro, b̂ on MMLU) for shared questions", _PRO34),
    RealResult("13", "pro_w9_cr2", "W(9) homogeneity, CR2 Wald (χ² p)", _PRO34, p="pro_w9_cr2_p",
               compare="w9_cr2"),
    RealResult("13", "pro_htz_F", "W(9) homogeneity, CR2 Wald in its HTZ F form (HTZ p)", _PRO34,
               p="pro_htz_p"),
    RealResult("13", "pro_wcr_stat", "W(9) homogeneity, CR2 Wald (wild cluster bootstrap p)", _PRO34,
               p="pro_wcr_p", compare="w9_cr2"),
    RealResult("14", "recall_wrong_key", "recall of the experts' wrong-key label (m = 6)", _PRO34),
    RealResult("14", "fix_recall", "consensus rule: recall of the 22 keys corrected since 2024", _PRO34,
               low="fix_recall_low", high="fix_recall_high"),
    RealResult("14", "fix_health_precision", "consensus rule: precision on health (corrected keys)", _PRO34,
               low="fix_health_precision_low", high="fix_health_precision_high", p="fix_health_p"),
    RealResult("14", "fix_health_or", "consensus rule: odds ratio for a corrected key, health", _PRO34,
               low="fix_health_or_low", high="fix_health_or_high"),
    RealResult("14", "ww_recall", "wrong-way a: recall of the 22 corrected keys", _PRO34,
               low="ww_recall_low", high="ww_recall_high"),
    RealResult("14", "ww_health_precision", "wrong-way a: precision on health (corrected keys)", _PRO34,
               low="ww_health_precision_low", high="ww_health_precision_high"),
    RealResult("16", "best_r_theta", "r(θ̂ of the recommended model, mirt's θ)", _OPENLLM),
    RealResult("16", "best_r_score", "r(θ̂ of the recommended model, full-MMLU score)", _OPENLLM),
    RealResult("16", "mirt_r_score", "r(mirt's θ, full-MMLU score)", _OPENLLM),
    RealResult("16", "paper_r_score", "r(θ̂ of the paper's 2PL, full-MMLU score)", _OPENLLM),
    RealResult("16", "split_distinct_sb", "Spearman–Brown reliability of b̂, checkpoint split", _OPENLLM,
               compare="spearman_brown"),
    RealResult("16", "n_wrong_way", "items discriminating the wrong way (signed a)", _OPENLLM),
    RealResult("16", "pop_n_distinct", "distinct checkpoints among the 4,278 models", _OPENLLM,
               compare="n_distinct_checkpoints"),
    RealResult("16", "pop_n_groups", "family × size groups among the 4,278 models", _OPENLLM,
               compare="n_family_size_groups"),
    RealResult("16", "close_theta_gap_median", "median θ̂ gap of models within 0.1 points of full-MMLU score",
               _OPENLLM),
    RealResult("16", "wcr_p", "item side: homogeneity on the 102 items, wild cluster bootstrap p", _OPENLLM),
)
