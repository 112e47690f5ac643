"""IRT calibration by stochastic variational inference in JAX.

The default engine writes the mean-field guide, ELBO and Adam by hand (NumPyro supplies the
distributions); ``fit_irt(..., engine="numpyro")`` runs the same model through NumPyro's
``SVI`` with ``AutoNormal`` and ``Trace_ELBO``, the reference the hand-written engine is tested against.

Public API
----------
- :class:`IRTSpec` — model (``2pl``, ``rasch``, ``3pl``, ``2d``, ``interaction``),
  difficulty prior (``paper``, ``wide``, ``hierarchical``), seed and optimiser settings.
- :func:`fit_irt` — calibrate; returns an :class:`IRTFit` (xarray Dataset with dims
  ``model`` / ``item``, ELBO trace, metadata).
- :func:`fit_cached` — the same, cached on disk by a hash of the inputs.
- :func:`holdout_mask`, :func:`heldout_loglik`, :func:`paired_z` (optionally
  cluster-robust), :func:`heldout_cells` — held-out comparison.
- :func:`split_cohort_reliability` — r between two half-cohort calibrations, Spearman–Brown.
- :func:`recovery_stats` — r, slope, intercept, RMSE of an estimate against a truth;
  :func:`recovery_slope` — the slope alone (NaN without a truth).
- :func:`oracle_difficulties` — b given the true θ and a: the recovery ceiling.
- :func:`signed_discrimination` — each item's signed a and whether it discriminates the wrong
  way (a fit with ``a_prior="normal"``).

:mod:`mmlu_audit.irt.posterior` (imported on its own: it loads ArviZ) carries a fit's guide
draws as ArviZ ``InferenceData`` (:func:`~mmlu_audit.irt.posterior.to_inference_data`, with the
fit's provenance in its attrs), summarises them through ``arviz.summary`` / ``arviz.hdi``
(:func:`~mmlu_audit.irt.posterior.posterior_table`) and writes them as netCDF.
"""

from mmlu_audit.irt.cache import fit_cached, fit_key
from mmlu_audit.irt.data import holdout_mask
from mmlu_audit.irt.backend import backend_name
from mmlu_audit.irt.engine import fit_irt
from mmlu_audit.irt.evaluate import (ability_correlation, heldout_cells, heldout_loglik, icc_bins,
                                     items_at_quantiles,
                                     oracle_difficulties, paired_z, paired_z_two_way,
                                     parameter_ranges, recovery_slope,
                                     recovery_stats, recovery_table, signed_discrimination,
                                     split_cohort_reliability)
from mmlu_audit.irt.result import IRTFit
from mmlu_audit.irt.spec import B_PRIORS, MODELS, IRTSpec

__all__ = [
    "B_PRIORS",
    "IRTFit",
    "IRTSpec",
    "MODELS",
    "ability_correlation",
    "backend_name",
    "fit_cached",
    "fit_irt",
    "fit_key",
    "heldout_cells",
    "heldout_loglik",
    "holdout_mask",
    "icc_bins",
    "items_at_quantiles",
    "oracle_difficulties",
    "paired_z",
    "paired_z_two_way",
    "recovery_slope",
    "parameter_ranges",
    "recovery_stats",
    "recovery_table",
    "signed_discrimination",
    "split_cohort_reliability",
]
