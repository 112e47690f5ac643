"""Cluster-robust inference for the MMLU audit (OLS with subject clusters).

Public API
----------
Fitting and covariances
    :func:`fit_ols`, :class:`OLSFit`, :func:`add_intercept`, :func:`vcov`
    (classical, HC0–HC3, CR0, CR1 = Stata, CR2 = Bell–McCaffrey),
    :func:`cluster_algebra`.
Tests
    :func:`coef_table` (t tests, Bell–McCaffrey df for CR2, Holm column),
    :func:`wald_test` (chi², F, HTZ), :func:`restriction_matrix`,
    :func:`interaction_design`, :func:`homogeneity_test` (W(9)/W(10)),
    :func:`satterthwaite_df`, :func:`htz_df`, :func:`holm`.
Resampling
    :func:`wild_cluster_bootstrap` (WCR/WCU, Rademacher/Webb, one coefficient
    or a Wald statistic), :func:`wild_bootstrap_table` (per-term, Holm),
    :func:`cluster_bootstrap_correlation` (Pearson r, whole clusters resampled),
    :func:`permutation_test` (item or subject-block),
    :func:`r2_gap`, :func:`lr_interaction`.
Diagnostics and effect sizes
    :func:`vif`, :func:`residual_skew`, :func:`breusch_pagan`,
    :func:`r2_score`, :func:`r2_cluster_interval`, :func:`cv_r2`, :func:`fold_ids`, :func:`partition_effects`,
    :func:`cohens_f2`, :func:`cohens_q`, :func:`standardise_within`, :func:`fisher_interval`,
    :func:`fisher_exceedance`.

The simulated worlds for the size and power of these tests live in
:mod:`mmlu_audit.worlds.homogeneity`.
"""

from mmlu_audit.inference.bootstrap import (BootstrapResult, cluster_bootstrap_correlation, draw_weights,
                                            wild_bootstrap_table, wild_cluster_bootstrap)
from mmlu_audit.inference.correlation import fisher_exceedance, fisher_interval
from mmlu_audit.inference.covariance import (CLUSTER_KINDS, HC_KINDS, KINDS, ClusterAlgebra, cluster_algebra,
                                             vcov)
from mmlu_audit.inference.diagnostics import (breusch_pagan, cv_r2, fold_ids, r2_cluster_interval, r2_score,
                                              residual_skew, vif)
from mmlu_audit.inference.effects import (cohens_f2, cohens_q, interaction_share, partition_effects,
                                          standardise_within)
from mmlu_audit.inference.hypothesis import (
    HTZUndefinedError,
    coef_table,
    holm,
    homogeneity_test,
    htz_df,
    interaction_design,
    restriction_matrix,
    satterthwaite_df,
    wald_test,
)
from mmlu_audit.inference.ols import OLSFit, add_intercept, fit_ols
from mmlu_audit.inference.permutation import PermutationResult, lr_interaction, permutation_test, r2_gap

__all__ = [
    "BootstrapResult",
    "HTZUndefinedError",
    "cluster_bootstrap_correlation",
    "CLUSTER_KINDS",
    "ClusterAlgebra",
    "HC_KINDS",
    "KINDS",
    "OLSFit",
    "PermutationResult",
    "add_intercept",
    "breusch_pagan",
    "cluster_algebra",
    "coef_table",
    "cohens_f2",
    "cohens_q",
    "interaction_share",
    "cv_r2",
    "r2_cluster_interval",
    "r2_score",
    "draw_weights",
    "fisher_exceedance",
    "fisher_interval",
    "fit_ols",
    "fold_ids",
    "holm",
    "homogeneity_test",
    "htz_df",
    "interaction_design",
    "lr_interaction",
    "partition_effects",
    "permutation_test",
    "r2_gap",
    "residual_skew",
    "restriction_matrix",
    "satterthwaite_df",
    "standardise_within",
    "vcov",
    "vif",
    "wald_test",
    "wild_bootstrap_table",
    "wild_cluster_bootstrap",
]
