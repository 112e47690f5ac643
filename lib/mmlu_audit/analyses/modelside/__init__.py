"""Model-side analyses of paper §5: what the item-side findings mean for the models.

- :mod:`.sensitivity` — the Reasoning Sensitivity Coefficient β_j (batched logistic
  regression of each model's accuracy on WSCG Depth) and its correlation with θ̂.
- :mod:`.null3pl` — the 3PL generative null of that correlation (the guessing floor
  alone makes β fall with ability).
- :mod:`.interaction` — the native ability × depth interaction model, with mean-field
  and model-bootstrap intervals side by side.
- :mod:`.bootstrap_record` — the refit bootstrap recorded by ``make bench``, read back only for
  the inputs it was made from.
- :mod:`.depth_trend` — what identifies its γ1: the depth trends λ (log a) and κ (b) of the
  items' own estimates, by a two-stage regression clustered by subject.
- :mod:`.ranking` — rank stability of STEM / non-STEM subscores against the aggregate:
  weighted τ, top-k retention, displacement, size-matched nulls, the duplicate-checkpoint
  noise floor and the 2D-IRT ability gap.
"""

from mmlu_audit.analyses.modelside.bootstrap_record import (bootstrap_key, read_bootstrap_record, record_name,
                                                            working_stem_inputs, write_bootstrap_record)
from mmlu_audit.analyses.modelside.depth_trend import DEPTH_TRENDS, depth_trends
from mmlu_audit.analyses.modelside.interaction import (REFIT_CHECK, bootstrap_gammas, bootstrap_spec,
                                                       gamma_summary, interaction_spec, interval_table,
                                                       planted_gamma_target, recovery_check,
                                                       simulate_interaction)
from mmlu_audit.analyses.modelside.null3pl import (construct_consistency, null_correlations, null_spec,
                                                   null_summary, rs_r_interval, simulate_3pl,
                                                   two_stage_headline)
from mmlu_audit.analyses.modelside.ranking import (DISPLACEMENT_INTERVAL, Blocks, ability_gap,
                                                   displacement_bootstrap, displacement_interval,
                                                   displacement_exact_interval,
                                                   displacement_null, duplicate_pairs, gap_recovery,
                                                   item_blocks, leaderboard_rank, matched_subsample_tau,
                                                   near_tie_pairs,
                                                   null_p_at_least, one_per_checkpoint, random_item_sets,
                                                   rank_agreement, rank_shifts, retention_table,
                                                   shift_summary, subject_block_sets, subject_blocks,
                                                   subscores, top_k_retention, weighted_tau)
from mmlu_audit.analyses.modelside.sensitivity import (EXCLUSIONS, beta_theta_correlations, column_submatrix,
                                                       reasoning_sensitivity)

__all__ = [
    "DEPTH_TRENDS", "depth_trends", "bootstrap_key", "read_bootstrap_record", "record_name",
    "working_stem_inputs", "write_bootstrap_record",
    "DISPLACEMENT_INTERVAL", "displacement_interval", "EXCLUSIONS", "REFIT_CHECK", "ability_gap",
    "beta_theta_correlations", "bootstrap_gammas",
    "bootstrap_spec", "column_submatrix",
    "construct_consistency", "displacement_bootstrap", "displacement_exact_interval",
    "displacement_null", "duplicate_pairs", "gamma_summary", "gap_recovery",
    "interaction_spec", "interval_table",
    "item_blocks", "leaderboard_rank", "matched_subsample_tau", "near_tie_pairs",
    "null_correlations", "null_p_at_least", "null_spec", "null_summary", "one_per_checkpoint",
    "planted_gamma_target", "random_item_sets", "recovery_check", "rank_agreement", "rank_shifts",
    "reasoning_sensitivity", "retention_table", "rs_r_interval", "shift_summary", "simulate_3pl",
    "simulate_interaction", "subject_block_sets", "subject_blocks", "subscores", "top_k_retention",
    "two_stage_headline",
    "weighted_tau", "Blocks",
]
