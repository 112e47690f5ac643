"""The complexity instrument: parsing, cognitive lexicon, WSCG, indicators, baselines.

Public API
----------
- parsing: :class:`ParsedDoc`, :func:`parse_texts`, :func:`get_backend`,
  :class:`SpacyBackend`, :class:`StanzaBackend`
- lexicon: :func:`load_lexicon`, :func:`default_tiers`, :class:`TierTable`,
  :func:`match_categories`, :func:`lexicon_table`
- graph: :class:`WSCG`, :func:`build_wscg`, :func:`wscg_depth`, :func:`depths`,
  :class:`GraphBatch` (batched re-scoring)
- indicators: :data:`INDICATORS`, :func:`indicator_table`, :func:`stem_indicators`
- baselines: :func:`readability_grade`, :func:`option_covariates`,
  :data:`OPTION_COVARIATES`, :func:`option_covariate_table`, :func:`subject_one_hot`,
  :func:`encode_items` (runtimes :data:`ENCODER_RUNTIMES`; threads: :func:`encoder_threads`,
  :func:`torch_threads`; pooling: :func:`mean_pool`; arithmetic: :func:`openvino_precision`),
  :func:`item_texts`
- duplicates (between items): :func:`duplicate_pairs`, :func:`copies_to_fix`, :func:`normalise_text`
- table: :func:`build_feature_table`, :func:`benchmark_features` (any option count),
  :func:`compute_feature_table`, :func:`item_graphs`
"""

from mmlu_audit.features.baselines import (
    ENCODER_BATCH_SIZE,
    ENCODER_RUNTIMES,
    OPTION_COVARIATES,
    encode_items,
    encoder_threads,
    item_texts,
    mean_pool,
    openvino_precision,
    option_covariate_table,
    option_covariates,
    readability_grade,
    subject_one_hot,
    torch_threads,
)
from mmlu_audit.features.duplicates import RELATIONS, copies_to_fix, duplicate_pairs, normalise_text
from mmlu_audit.features.indicators import DIMENSIONS, INDICATORS, indicator_table, stem_indicators
from mmlu_audit.features.lexicon import (TOP_TIER, Lexicon, TierTable, default_tiers, lexicon_table,
                                         load_lexicon, match_categories)
from mmlu_audit.features.parse import ParsedDoc, SpacyBackend, StanzaBackend, get_backend, parse_texts
from mmlu_audit.features.table import (BASELINES, FLAGS, benchmark_features, build_feature_table,
                                       compute_feature_table, item_graphs)
from mmlu_audit.features.wscg import WSCG, GraphBatch, build_wscg, depths, wscg_depth

__all__ = [
    "BASELINES",
    "DIMENSIONS",
    "ENCODER_BATCH_SIZE",
    "ENCODER_RUNTIMES",
    "FLAGS",
    "INDICATORS",
    "OPTION_COVARIATES",
    "RELATIONS",
    "TOP_TIER",
    "Lexicon",
    "ParsedDoc",
    "SpacyBackend",
    "StanzaBackend",
    "TierTable",
    "WSCG",
    "GraphBatch",
    "benchmark_features",
    "build_feature_table",
    "build_wscg",
    "compute_feature_table",
    "copies_to_fix",
    "default_tiers",
    "depths",
    "duplicate_pairs",
    "encode_items",
    "encoder_threads",
    "get_backend",
    "indicator_table",
    "item_graphs",
    "item_texts",
    "lexicon_table",
    "load_lexicon",
    "match_categories",
    "mean_pool",
    "openvino_precision",
    "normalise_text",
    "option_covariate_table",
    "option_covariates",
    "parse_texts",
    "readability_grade",
    "stem_indicators",
    "subject_one_hot",
    "torch_threads",
    "wscg_depth",
]
