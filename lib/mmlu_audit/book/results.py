"""Where each published number and each real-data result is computed in this book.

The registries tie a value to the chapter that glues it, by the chapter's MyST label
(:mod:`mmlu_audit.book.chapters`), and to the test its p-value belongs to: the scorecard, the
landing page's summaries and the Discussion read the build through them. The paper's own values
stay in :mod:`mmlu_audit.core.paper`; this module says where ours are.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["BASES", "INTERVAL_SUFFIX", "POPULATION_SHORT", "REAL_RESULTS", "RESULT_KEYS", "TESTS",
           "HypothesisTest", "RealResult", "ResultKey", "interval_to_read", "paired", "registered_test"]


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
        Label of the chapter that glues our value (``"chap-pooled"``); None with ``reason``.
    glue : str or None
        The glue name our value has in that chapter.
    basis : str
        One of :data:`BASES`.
    reason : str, optional
        Why no chapter computes it (then ``chapter`` and ``glue`` are None).
    planted : str, optional
        The :class:`mmlu_audit.worlds.simulated.WorldSpec` field that copies the paper's value
        into the simulated world: on a simulated source a match is by construction.

    A summary shows the value glued as ``glue`` and no other, so it always equals what the
    chapter prints under that name (the planted working-model ρ, ``rho_2d_working``, is the
    chapter's to set beside its planted value, not a substitute for ``rho_2d``).
    """

    chapter: str | None
    glue: str | None
    basis: str = "responses"
    reason: str | None = None
    planted: str | None = None

    def __post_init__(self):
        if self.basis not in BASES:
            raise ValueError(f"basis must be one of {BASES}, got {self.basis!r}")
        if (self.reason is None) == (self.glue is None) or (self.glue is None) != (self.chapter is None):
            raise ValueError("a result key names a chapter and a glue name, or a reason, not both")


def _at(chapter: str, *keys: str, basis: str = "responses", glue: dict | None = None) -> dict:
    """Registry entries for paper keys glued under the same name (or ``glue[key]``) in ``chapter``."""
    glue = glue or {}
    return {key: ResultKey(chapter, glue.get(key, key), basis) for key in keys}


RESULT_KEYS: dict[str, ResultKey] = {
    **_at("chap-data", "n_items", "n_stem_items", "n_nonstem_items", "n_stem_subjects", "n_nonstem_subjects",
          "share_nonstem_items", basis="items", glue={"share_nonstem_items": "share_nonstem"}),
    "n_models": ResultKey("chap-data", "n_models", planted="n_models"),
    "n_distinct_checkpoints": ResultKey("chap-data", "n_distinct_checkpoints", planted="n_distinct"),
    "n_family_size_groups": ResultKey("chap-data", "n_family_size_groups", planted="n_groups"),
    **_at("chap-calibration", "b_min", "b_max", "theta_min", "theta_max", "theta_sd", "split_cohort_r",
          "spearman_brown"),
    "b_sd": ResultKey("chap-calibration", "b_sd", planted="b_sd"),
    **_at("chap-complexity", "r_nodes_tokens", "r_depth_tokens", "vif_min", "vif_max", basis="items"),
    **_at("chap-appendix-a", "w9_residualised_dim1", "n_perturbation_schemes",
          "share_schemes_homogeneity_rejected",
          "share_schemes_d_ner_survives_holm", "share_schemes_stem_r2_exceeds", "rasch_conclusions_intact"),
    **_at("chap-pooled", "pooled_r2", "pooled_F", "pooled_F_incremental", "ratio_framework_vs_length_global",
          "ratio_framework_vs_length_stem",
          "encoder_ceiling_pooled", "encoder_ceiling_stem", "share_of_ceiling_stem",
              "share_of_ceiling_nonstem",
          "share_of_ceiling_stem_with_options", "subject_identity_pooled",
          glue={"encoder_ceiling_pooled": "ceiling_global", "encoder_ceiling_stem": "ceiling_stem",
                "subject_identity_pooled": "subject_global"}),
    **_at("chap-stratified", "cv_r2_stem", "cv_r2_nonstem", "logit2_ratio", "logit2_ratio_ci_low",
          "logit2_ratio_ci_high",
          "cohens_q", "holm_survivors_hc3", "holm_survivors_cr1", "holm_survivors_boot", "t_cr2_d_ner",
          "holm_p_cr2_d_ner", "boot_p_d_ner", "t_cr2_d_mdd", "boot_p_d_mdd", "z_hc3_c_bry", "t_cr2_c_bry"),
    **_at("chap-homogeneity", "r2_gap_block_perm_p", "w9_hc3", "w10_hc3", "w9_cr2", "w9_cr1",
          "se_inflation_cr2_hc3",
          "wcb_q95", "wcb_p", "lr_11", "resid_skew", "breusch_pagan", "item_perm_max_gap", "observed_r2_gap",
          "block_perm_widening", "lr_block_perm_p"),
    "rho_2d": ResultKey("chap-appendix-c", "rho_2d", planted="rho"),
    **_at("chap-appendix-c", "heldout_gain_nats", "heldout_paired_z", "rho_2d_mass_above_0_99", "subscale_r",
          "subscale_r_ci_low", "subscale_r_ci_high", "subscale_share_at_least_one"),
    **_at("chap-appendix-b", "contrast_survives_options", "c_bry_nonlinear_nonstem",
          "homogeneity_rejected_common_support"),
    **_at("chap-reasoning-sensitivity", *(f"{stat}_{subset}" for stat in ("rs_r", "null_r", "null_share")
                  for subset in ("all", "excl_bottom_quartile", "excl_bottom_half")),
          "null_theta_r_2pl", "null_b_r_2pl"),
    **_at("chap-native-interaction", "gamma0", "gamma0_low", "gamma0_high", "gamma1", "gamma1_low",
          "gamma1_high"),
    **_at("chap-rank-stability", "tau_stem", "tau_nonstem", "tau_matched", "tau_matched_low",
          "tau_matched_high",
          "tau_matched_p",
          "retention_top50_nonstem", "retention_top50_stem", "retention_top10_nonstem",
              "retention_top10_stem",
          "displacement", "displacement_low", "displacement_high", "null_random_items", "null_random_items_p",
          "null_subject_blocks", "null_subject_blocks_p", "displacement_distinct", "n_duplicate_pairs",
          "dup_shift_aggregate_median", "dup_shift_stem_median", "dup_shift_aggregate_max",
              "dup_shift_stem_max",
          "gap_sd", "gap_share_within", "gap_top"),
    # MMLU-Pro sources: always the real TIGER-Lab responses
    **_at("chap-answer-key-audit", "flag_rate_wrong_key", "flag_rate_other_error", "flag_rate_fine",
          "flag_rate_unreviewed",
          "flag_rate_stemez", "flag_rate_all", "n_flagged", "rate_ratio_wrong_key_vs_fine",
          "share_flagged_any_error", "precision_wrong_key", "n_flagged_unanimous", "recall_unanimous",
          "share_flagged_error_unanimous", "panel_size", "panel_best_accuracy", "panel_worst_accuracy",
          "added_share_fine_flags", "added_share_scattered", "added_share_of_distractors",
          "original_share_wrong_key_flags", basis="real responses",
          glue={"panel_size": "k", "panel_best_accuracy": "panel_best",
                "panel_worst_accuracy": "panel_worst"}),
    **{key: ResultKey(None, None, "items", reason=(
        "a partition slope the paper quotes to define the STEM × indicator contrast that "
        "chap-real-verdicts compares on real populations; this build fits the contrast, not each slope"))
       for key in ("d_ner_beta_stem", "d_ner_b_nonstem", "d_mdd_b_stem", "d_mdd_b_nonstem")},
    "n_archives": ResultKey(None, None, "real responses", reason=(
        "the source's 45 TIGER-Lab archives are not all staged here: 34 models are (29 published "
        "runs + 5 recovered, responses/mmlu_pro_tiger34)")),
    **_at("chap-mmlu-pro", "n_pro_items", "mean_options", "share_ten_options", basis="items"),
}


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
        Label of the chapter (:mod:`mmlu_audit.book.chapters`).
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
    HypothesisTest("chap-real-verdicts", _W_HTZ, "pool_w9_htz_p", ("pool_w9_htz_F",)),
    HypothesisTest("chap-real-verdicts", _W_WCB, "pool_wcb_p", ("pool_wcb_stat",)),
    HypothesisTest("chap-real-verdicts", "STEM × D_ner, CR2 t, Holm over nine", "pool_holm_p_cr2_d_ner",
                   ("pool_t_cr2_d_ner", "pool_d_ner_estimate", "pool_d_ner_per_sd")),
    HypothesisTest("chap-real-verdicts", "STEM × D_ner, wild cluster bootstrap, Holm over nine",
                   "pool_boot_holm_p_d_ner", ("pool_d_ner_estimate", "pool_d_ner_per_sd")),
    HypothesisTest("chap-homogeneity", _W_CHI2, "w9_cr2_p", ("w9_cr2",)),
    HypothesisTest("chap-homogeneity", _W_HTZ, "w9_htz_p", ("w9_htz_F",)),
    HypothesisTest("chap-homogeneity", _W_WCB, "wcb_p", ("wcb_stat",)),
    HypothesisTest("chap-stratified", "STEM × D_ner, CR2 t, Holm over nine", "holm_p_cr2_d_ner",
                   ("t_cr2_d_ner",)),
    HypothesisTest("chap-stratified", "STEM × D_ner, wild cluster bootstrap", "boot_p_d_ner",
                   ("t_cr2_d_ner",)),
    HypothesisTest("chap-rank-stability", "τ_w STEM against length-matched non-STEM subsamples",
                   "tau_matched_p",
             ("tau_stem", "tau_matched")),
    HypothesisTest("chap-rank-stability", "Top-k displacement against the subject-block null",
                   "helm_null_blocks_p",
             ("helm_displacement", "helm_null_blocks")),
    HypothesisTest("chap-rank-stability", "τ_w STEM against length-matched non-STEM subsamples, HELM-20",
                   "h20_tau_matched_p",
             ("h20_tau_stem", "h20_tau_matched")),
    HypothesisTest("chap-appendix-d", "Mann–Whitney, accuracy flagged vs clean", "acc_p", ("acc_flagged",
                                                                                           "acc_clean")),
    HypothesisTest("chap-appendix-d", "Mann–Whitney, item–rest r flagged vs clean", "irc_p", ("irc_flagged",
                                                                                              "irc_clean")),
    HypothesisTest("chap-mmlu-pro", _W_CHI2, "pro_w9_cr2_p", ("pro_w9_cr2",)),
    HypothesisTest("chap-mmlu-pro", _W_HTZ, "pro_htz_p", ("pro_htz_F",)),
    HypothesisTest("chap-mmlu-pro", _W_WCB + " (WCR)", "pro_wcr_p", ("pro_wcr_stat",)),
    HypothesisTest("chap-answer-key-audit", "Fisher exact, odds ratio of a corrected key on health",
                   "fix_health_p", ("fix_health_or",)),
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
_MMLU_REAL = "real MMLU pool, 31 models (HELM's 20 + OpenCompass's 11)"
_POOL = "pooled matrix of the four disjoint real populations (HELM, OpenCompass, lm-eval, RouteLLM's Mixtral)"
#: A short name of each real population, for a table cell (the full one is in its tooltip).
POPULATION_SHORT = {_HELM79: "HELM-79", _HELM20: "HELM-20", _PRO34: "MMLU-Pro 34", _MMLU_REAL: "MMLU real 31",
                    _OPENLLM: "Open LLM LB 4,278 × 102", _POOL: "pool of four"}
#: Every real-response result the chapters compute that no published value matches like for like.
REAL_RESULTS: tuple[RealResult, ...] = (
    RealResult("chap-real-verdicts", "pool_w9_htz_F", "W(9) homogeneity, CR2 Wald in its HTZ F form (HTZ p)",
               _POOL,
               p="pool_w9_htz_p"),
    RealResult("chap-real-verdicts", "pool_wcb_stat",
               "W(9) homogeneity, CR2 Wald (wild cluster bootstrap p)", _POOL,
               p="pool_wcb_p", compare="w9_cr2"),
    RealResult("chap-real-verdicts", "pool_interaction_share",
               "share of variance the nine interactions add, bias-corrected (subject bootstrap)", _POOL,
               low="pool_interaction_share_low", high="pool_interaction_share_high"),
    RealResult("chap-real-verdicts", "pool_d_ner_per_sd",
               "STEM × D_ner contrast per SD of b̂, CR2 interval and Holm p", _POOL,
               low="pool_d_ner_per_sd_low", high="pool_d_ner_per_sd_high", p="pool_holm_p_cr2_d_ner"),
    RealResult("chap-real-verdicts", "pool_t_cr2_d_ner", "STEM × D_ner contrast, CR2 t (Holm p)", _POOL,
               p="pool_holm_p_cr2_d_ner"),
    RealResult("chap-real-verdicts", "pool_cv_r2_stem", "cross-validated R², STEM", _POOL,
               compare="cv_r2_stem"),
    RealResult("chap-real-verdicts", "pool_cv_r2_nonstem", "cross-validated R², non-STEM", _POOL,
               compare="cv_r2_nonstem"),
    RealResult("chap-real-verdicts", "pool_logit2_ratio",
               "logit² ratio, STEM ÷ non-STEM (subject bootstrap)", _POOL,
               low="pool_logit2_ratio_ci_low", high="pool_logit2_ratio_ci_high", compare="logit2_ratio"),
    RealResult("chap-real-verdicts", "pool_rs_r_all", "r(β, θ̂), all models (Fisher interval)", _POOL,
               low="pool_rs_r_low",
               high="pool_rs_r_high", compare="rs_r_all"),
    RealResult("chap-real-verdicts", "pool_null_r_all",
               "mean r(β, θ̂) of the 3PL guessing-floor null at the pool's design (95 % predictive band)",
               _POOL,
               low="pool_null_low_all", high="pool_null_high_all", compare="null_r_all"),
    # not the paper's r(β, θ̂): a model's STEM accuracy logit stands in for its ability, so no
    # published value is set beside it (compare left unset)
    RealResult("chap-reasoning-sensitivity", "helm_r_beta_acc", "r(β, STEM accuracy logit), Fisher interval",
               _HELM20,
               low="helm_r_low", high="helm_r_high"),
    RealResult("chap-appendix-c", "real_rho_2d",
               "ρ(θ STEM, θ non-STEM) of the two-dimensional 2PL, Fisher interval", _MMLU_REAL,
               low="real_rho_2d_low", high="real_rho_2d_high", compare="rho_2d"),
    RealResult("chap-rank-stability", "helm_tau_stem", "τ_w STEM subscore vs aggregate", _HELM79,
               compare="tau_stem"),
    RealResult("chap-rank-stability", "helm_tau_nonstem", "τ_w non-STEM subscore vs aggregate", _HELM79,
               compare="tau_nonstem"),
    RealResult("chap-rank-stability", "helm_displacement",
               "Top-k displacement (STEM vs non-STEM; subject-block null p)",
               _HELM79, p="helm_null_blocks_p", compare="displacement"),
    RealResult("chap-rank-stability", "helm_null_blocks", "subject-block null displacement", _HELM79,
               compare="null_subject_blocks"),
    RealResult("chap-rank-stability", "h20_tau_stem", "τ_w STEM subscore vs aggregate", _HELM20,
               compare="tau_stem"),
    RealResult("chap-rank-stability", "h20_tau_nonstem", "τ_w non-STEM subscore vs aggregate", _HELM20,
               compare="tau_nonstem"),
    RealResult("chap-rank-stability", "h20_tau_matched", "τ_w, length-matched non-STEM subsample", _HELM20,
               p="h20_tau_matched_p",
               compare="tau_matched"),
    RealResult("chap-appendix-d", "acc_flagged", "accuracy on Redux-flagged items", _HELM20),
    RealResult("chap-appendix-d", "acc_clean", "accuracy on Redux-clean items", _HELM20, p="acc_p"),
    RealResult("chap-appendix-d", "irc_flagged", "item–rest correlation, flagged items", _HELM20),
    RealResult("chap-appendix-d", "irc_clean", "item–rest correlation, clean items", _HELM20, p="irc_p"),
    RealResult("chap-appendix-d", "acc_wrong_gt", "accuracy on wrong-ground-truth items", _HELM20),
    RealResult("chap-mmlu-pro", "pro_b_sd", "SD of 2PL difficulty b̂", _PRO34, compare="b_sd"),
    RealResult("chap-mmlu-pro", "pro_split_r", "split-cohort r of b̂", _PRO34, compare="split_cohort_r"),
    RealResult("chap-mmlu-pro", "pro_split_sb", "Spearman–Brown reliability of b̂", _PRO34,
               compare="spearman_brown"),
    RealResult("chap-mmlu-pro", "r_pro_mmlu_b", "r(b̂ on MMLU-Pro, b̂ on MMLU) for shared questions", _PRO34),
    RealResult("chap-mmlu-pro", "pro_w9_cr2", "W(9) homogeneity, CR2 Wald (χ² p)", _PRO34, p="pro_w9_cr2_p",
               compare="w9_cr2"),
    RealResult("chap-mmlu-pro", "pro_htz_F", "W(9) homogeneity, CR2 Wald in its HTZ F form (HTZ p)", _PRO34,
               p="pro_htz_p"),
    RealResult("chap-mmlu-pro", "pro_wcr_stat", "W(9) homogeneity, CR2 Wald (wild cluster bootstrap p)",
               _PRO34,
               p="pro_wcr_p", compare="w9_cr2"),
    RealResult("chap-answer-key-audit", "recall_wrong_key", "recall of the experts' wrong-key label (m = 6)",
               _PRO34, low="recall_wrong_key_low", high="recall_wrong_key_high"),
    RealResult("chap-answer-key-audit", "fix_recall",
               "consensus rule: recall of the 22 keys corrected since 2024", _PRO34,
               low="fix_recall_low", high="fix_recall_high"),
    RealResult("chap-answer-key-audit", "fix_health_precision",
               "consensus rule: precision on health (corrected keys)", _PRO34,
               low="fix_health_precision_low", high="fix_health_precision_high"),
    # Fisher's exact test is a test of the odds ratio: its p travels with that row, not the precision's
    RealResult("chap-answer-key-audit", "fix_health_or",
               "consensus rule: odds ratio for a corrected key, health (Fisher p)", _PRO34,
               low="fix_health_or_low", high="fix_health_or_high", p="fix_health_p"),
    RealResult("chap-answer-key-audit", "ww_recall", "wrong-way a: recall of the 22 corrected keys", _PRO34,
               low="ww_recall_low", high="ww_recall_high"),
    RealResult("chap-answer-key-audit", "ww_health_precision",
               "wrong-way a: precision on health (corrected keys)", _PRO34,
               low="ww_health_precision_low", high="ww_health_precision_high"),
    RealResult("chap-real-leaderboard", "best_r_theta", "r(θ̂ of the recommended model, mirt's θ)", _OPENLLM),
    RealResult("chap-real-leaderboard", "best_r_score", "r(θ̂ of the recommended model, full-MMLU score)",
               _OPENLLM),
    RealResult("chap-real-leaderboard", "mirt_r_score", "r(mirt's θ, full-MMLU score)", _OPENLLM),
    RealResult("chap-real-leaderboard", "paper_r_score", "r(θ̂ of the paper's 2PL, full-MMLU score)",
               _OPENLLM),
    RealResult("chap-real-leaderboard", "split_distinct_sb",
               "Spearman–Brown reliability of b̂, checkpoint split", _OPENLLM,
               compare="spearman_brown"),
    RealResult("chap-real-leaderboard", "n_wrong_way", "items discriminating the wrong way (signed a)",
               _OPENLLM),
    RealResult("chap-real-leaderboard", "pop_n_distinct", "distinct checkpoints among the 4,278 models",
               _OPENLLM,
               compare="n_distinct_checkpoints"),
    RealResult("chap-real-leaderboard", "pop_n_groups", "family × size groups among the 4,278 models",
               _OPENLLM,
               compare="n_family_size_groups"),
    RealResult("chap-real-leaderboard", "close_theta_gap_median",
               "median θ̂ gap of models within 0.1 points of full-MMLU score",
               _OPENLLM),
    RealResult("chap-real-leaderboard", "wcr_p",
               "item side: homogeneity on the 102 items, wild cluster bootstrap p", _OPENLLM),
)
