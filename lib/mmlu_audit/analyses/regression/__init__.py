"""Regression pieces shared by the §4 chapters (pooled, stratified, homogeneity).

* :mod:`~mmlu_audit.analyses.regression.designs` — the nine standardised indicators and the
  Table 2 comparison designs (length, length + readability, nine indicators, encoder
  ceiling, subject identity, nine + option set), each with the learner that fits it;
  the items with an estimate and the reliability of b̂.
* :mod:`~mmlu_audit.analyses.regression.crossval` — :func:`cv_predict` / :func:`cv_table` give
  K-fold cross-validated R² globally and within each partition, over item folds or
  subject-grouped folds; :func:`table2_ratios` computes the ratios §4.1 reports.
* :mod:`~mmlu_audit.analyses.regression.contrasts` — :func:`partition_fits` (Table 3),
  :func:`interaction_fit` fits ``b ~ [1, X, S, S*X]`` and :func:`contrast_tests` tests
  the nine slope contrasts (STEM − non-STEM) under several covariances and the wild
  cluster bootstrap, each with Holm.
* :mod:`~mmlu_audit.analyses.regression.planted` — planted truth of simulated sources:
  :func:`planted_slopes`, :func:`realised_contrasts` and
  :func:`planted_vs_estimated`, and the chapters' planted-truth table and summary
  (:func:`planted_truth_table`, :func:`planted_summary`).
"""

from mmlu_audit.analyses.regression.contrasts import (contrast_terms, contrast_tests, declared, holm_count,
                                                      holm_survivors, indicator_names, interaction_fit,
                                                      partition_fits)
from mmlu_audit.analyses.regression.crossval import PARTS, RIDGE_ALPHAS, cv_predict, cv_table, table2_ratios
from mmlu_audit.analyses.regression.designs import (LEARNERS, Design, design_arrays, difficulty_reliability,
                                                    estimated_items, indicator_design, table2_designs)
from mmlu_audit.analyses.regression.planted import (planted_slopes, planted_summary, planted_truth_table,
                                                    planted_vs_estimated, realised_contrasts)

__all__ = [
    "LEARNERS",
    "PARTS",
    "RIDGE_ALPHAS",
    "Design",
    "design_arrays",
    "contrast_terms",
    "contrast_tests",
    "cv_predict",
    "cv_table",
    "declared",
    "difficulty_reliability",
    "estimated_items",
    "holm_count",
    "holm_survivors",
    "indicator_names",
    "indicator_design",
    "interaction_fit",
    "partition_fits",
    "planted_slopes",
    "planted_summary",
    "planted_truth_table",
    "planted_vs_estimated",
    "realised_contrasts",
    "table2_designs",
    "table2_ratios",
]
