"""Appendix A: the paper's three primary conclusions, and how robust they are.

The three conclusions are computed booleans, defined once here
(:func:`section4_statistics` computes the statistics, :func:`primary_conclusions`
applies the thresholds), so every robustness scheme reports the same three:

1. ``homogeneity_rejected`` — the joint test that the nine STEM × indicator
   interactions of ``b ~ [1, X, STEM, STEM·X]`` are zero rejects at ``alpha``
   under the CR2 covariance with the Hotelling-T² (HTZ) small-sample reference
   (subject clusters). When the null-imposed wild cluster bootstrap is run, its
   p-value is reported beside it as ``homogeneity_rejected_wcr`` (the paper's own
   bootstrap p is 0.060, so that version fails in the paper itself).
2. ``d_ner_survives_holm`` — the Entity Density contrast ``STEM:d_ner`` is
   positive and its CR2 t test (Bell–McCaffrey df), Holm-adjusted over the nine
   contrasts, has p < ``alpha``.
3. ``stem_r2_exceeds`` — the K-fold cross-validated R² of OLS on the nine
   indicators (item folds, fitted and scored within each partition) is larger in
   STEM than outside it.

Schemes: :func:`tier_schemes` draws the WSCG tier perturbations (one tier at a
time, shift ~ Uniform(−width, width), weights floored at 0) plus the scheme that
clamps the lowest tier to 0; :func:`length_residualised` gives the scheme that
replaces both Dimension 1 indicators by their OLS residuals on token count;
:func:`perturbation_study` scores every scheme with a
:class:`~mmlu_audit.features.GraphBatch` and reports the three conclusions.
:func:`refitted_frame` swaps in another difficulty calibration (Rasch, the
hierarchical-prior 2PL) for the estimator sensitivity: :func:`refit_frames` refits the
calibrations named in :data:`REFITS`, :func:`estimator_sensitivity` reruns the §4 pipeline
on each and :func:`estimator_statistics` gives the values the appendix glues.
:func:`robustness_headline` computes the appendix's headline figures on one population in a
single call.
"""

from __future__ import annotations

from numbers import Integral
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from mmlu_audit.core.seeds import check_seed, seeded
from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.core.paper import paper_value
from mmlu_audit.features import INDICATORS, GraphBatch
from mmlu_audit.inference import (cluster_algebra, coef_table, cv_r2, fit_ols, fold_ids, wald_test,
                                  wild_bootstrap_table, wild_cluster_bootstrap)
from mmlu_audit.analyses.regression import (contrast_terms, contrast_tests, design_arrays, estimated_items,
                                            interaction_fit, partition_fits)
from mmlu_audit.irt import recovery_slope

__all__ = [
    "CONCLUSIONS",
    "ENTITY_TERM",
    "OUTCOME_ESTIMANDS",
    "PAPER_CALIBRATION",
    "REFITS",
    "active_tiers",
    "conclusion_shares",
    "scheme_statistics",
    "share_statistics",
    "tier_statistics",
    "estimator_sensitivity",
    "estimator_statistics",
    "length_residualised",
    "perturbation_study",
    "primary_conclusions",
    "refit_frames",
    "refitted_frame",
    "replication_outcomes",
    "robustness_headline",
    "robustness_headline_with_study",
    "section4_statistics",
    "tier_schemes",
]

#: The three primary conclusions, in the order of the module docstring.
CONCLUSIONS = ("homogeneity_rejected", "d_ner_survives_holm", "stem_r2_exceeds")
#: How each conclusion (and the bootstrap version of the first) reads in a sentence.
CONCLUSION_LABELS = {
    "homogeneity_rejected": "homogeneity rejected (CR2-HTZ)",
    "homogeneity_rejected_wcr": "homogeneity rejected (wild cluster bootstrap)",
    "d_ner_survives_holm": "the D_ner contrast surviving Holm",
    "stem_r2_exceeds": "STEM's cross-validated R² above non-STEM's",
}
ENTITY_TERM = "STEM:d_ner"
DIMENSION_1 = ("wscg_nodes", "wscg_depth")

#: The alternative calibrations of the estimator sensitivity: name → (label, changes to the paper's spec).
REFITS = {
    "rasch": ("Rasch", {"model": "rasch"}),
    "hierarchical": ("2PL, hierarchical prior", {"b_prior": "hierarchical"}),
    "wide": ("2PL, wide prior N(0, 3²)", {"b_prior": "wide"}),
}
#: The paper's own calibration (the analysis inputs' fit), first in every comparison.
PAPER_CALIBRATION = ("paper", "2PL, paper prior N(0, 1)")


@seeded
def section4_statistics(frame: pd.DataFrame, *, seed, n_folds: int = 10, n_boot: int = 0,
                        boot_kind: str = "CR2", columns: Sequence[str] = INDICATORS) -> dict[str, float]:
    """The §4 statistics the three conclusions read, for one item frame.

    Parameters
    ----------
    frame : DataFrame
        Item frame with ``b_hat``, ``stem``, ``subject`` and the indicator columns;
        rows without a finite ``b_hat`` are dropped.
    seed : int
        Seeds the CV folds and the bootstrap.
    n_folds : int
        K of the item-fold cross-validation.
    n_boot : int
        Wild cluster bootstrap draws (joint W(9) and per contrast); 0 skips them.
    boot_kind : str
        Covariance inside the bootstrapped statistics.
    columns : sequence of str
        Indicator columns (z-scored over the rows of ``frame``).

    Returns
    -------
    dict
        ``w9_hc3``, ``w9_cr2`` (raw Wald), ``htz_p``, ``wcr_p`` (NaN without
        bootstrap), ``d_ner_contrast``, ``d_ner_t_cr2``, ``d_ner_holm_cr2``,
        ``holm_cr2_count`` (contrasts with Holm CR2 p < 0.05), ``d_ner_holm_boot``,
        ``cv_r2_stem``, ``cv_r2_nonstem``, ``r2_stem``, ``r2_nonstem`` (in sample).
    """
    seed = check_seed(seed)
    frame = estimated_items(frame)
    X, y, stem, subjects = design_arrays(frame)
    X = X[list(columns)]
    fit = interaction_fit(y, X, stem)
    terms = contrast_terms(X.columns)
    hc3 = wald_test(fit, terms, kind="HC3").iloc[0]
    algebra = cluster_algebra(fit, subjects, "CR2")
    cr2 = wald_test(fit, terms, kind="CR2", clusters=subjects, form="HTZ", algebra=algebra).iloc[0]
    contrasts = coef_table(fit, "CR2", subjects, terms=terms, algebra=algebra).set_index("term").loc[terms]
    entity = contrasts.loc[ENTITY_TERM]
    cv = {label: cv_r2(y[mask], X[mask].to_numpy(float), folds=fold_ids(int(mask.sum()), n_folds, seed=seed))
          for label, mask in (("STEM", stem), ("non-STEM", ~stem))}
    stats = {
        "w9_hc3": float(hc3["wald"]), "w9_cr2": float(cr2["wald"]), "htz_p": float(cr2["p"]),
        "wcr_p": float("nan"),
        "d_ner_contrast": float(fit.beta[fit.names.index(ENTITY_TERM)]),
        "d_ner_t_cr2": float(entity["stat"]), "d_ner_holm_cr2": float(entity["p_holm"]),
        "holm_cr2_count": int((contrasts["p_holm"] < 0.05).sum()),
        "d_ner_holm_boot": float("nan"),
        "cv_r2_stem": float(cv["STEM"]), "cv_r2_nonstem": float(cv["non-STEM"]),
        "r2_stem": fit_ols(y[stem], X[stem].to_numpy(float), intercept=True).r2,
        "r2_nonstem": fit_ols(y[~stem], X[~stem].to_numpy(float), intercept=True).r2,
    }
    if n_boot > 0:
        joint = wild_cluster_bootstrap(fit, terms, clusters=subjects, seed=seed, kind=boot_kind,
                                       n_draws=n_boot)
        per_term = wild_bootstrap_table(fit, terms, clusters=subjects, seed=seed, kind=boot_kind,
                                        n_draws=n_boot).set_index("term")
        stats["wcr_p"] = float(joint.p)
        stats["d_ner_holm_boot"] = float(per_term.loc[ENTITY_TERM, "p_holm"])
    return stats


def primary_conclusions(stats: Mapping[str, float], alpha: float = 0.05) -> dict[str, bool]:
    """The three primary conclusions from :func:`section4_statistics` output.

    Thresholds as in the module docstring: HTZ p < ``alpha``; ``STEM:d_ner`` positive
    with Holm CR2 p < ``alpha``; STEM CV R² > non-STEM CV R². With a bootstrap
    (``wcr_p`` finite) ``homogeneity_rejected_wcr`` is added: WCR p < ``alpha``.
    """
    if not 0 < alpha < 1:
        raise ParameterError("alpha", f"must lie in (0, 1), got {alpha}")
    out = {
        "homogeneity_rejected": bool(stats["htz_p"] < alpha),
        "d_ner_survives_holm": bool(stats["d_ner_contrast"] > 0 and stats["d_ner_holm_cr2"] < alpha),
        "stem_r2_exceeds": bool(stats["cv_r2_stem"] > stats["cv_r2_nonstem"]),
    }
    if np.isfinite(stats.get("wcr_p", np.nan)):
        out["homogeneity_rejected_wcr"] = bool(stats["wcr_p"] < alpha)
    return out


def active_tiers(graphs) -> list[str]:
    """Tiers that at least one vertex of ``graphs`` sits on, sorted by name."""
    return sorted({tier for graph in graphs for tier in graph.tiers})


@seeded
def tier_schemes(tiers: Mapping[str, float], active: Sequence[str], n_draws: int, *, seed,
                 width: float = 1.0, clamp_tier: str | None = None) -> pd.DataFrame:
    """The tier-table schemes of the WSCG perturbation study.

    Parameters
    ----------
    tiers : mapping
        The default tier table (tier → weight).
    active : sequence of str
        Tiers to perturb, one at a time.
    n_draws : int
        Monte Carlo draws per tier.
    seed : int
    width : float
        Each draw shifts its tier by ``delta ~ Uniform(−width, width)``; the new
        weight is floored at 0 (weights cannot be negative).
    clamp_tier : str, optional
        Add one scheme setting this tier to 0 (the paper's "clamp 0.5 to 0").

    Returns
    -------
    DataFrame
        One row per scheme: ``scheme`` (label), ``kind`` (``"tier shift"`` or
        ``"clamp"``), ``tier``, ``delta``, then one column of weights per tier.
    """
    seed = check_seed(seed)
    if n_draws < 1:
        raise ParameterError("n_draws", f"must be at least 1, got {n_draws}")
    unknown = [t for t in [*active, *([clamp_tier] if clamp_tier else [])] if t not in tiers]
    if unknown:
        raise DataError("tiers", f"unknown tiers {unknown}; the table has {list(tiers)}")
    rng = np.random.default_rng(seed)
    rows = []
    for tier in active:
        for draw, delta in enumerate(rng.uniform(-width, width, size=n_draws)):
            weights = {**tiers, tier: max(0.0, tiers[tier] + delta)}
            rows.append({"scheme": f"{tier} draw {draw}", "kind": "tier shift", "tier": tier,
                         "delta": float(delta), **weights})
    if clamp_tier is not None:
        rows.append({"scheme": f"clamp {clamp_tier} to 0", "kind": "clamp", "tier": clamp_tier,
                     "delta": -float(tiers[clamp_tier]), **tiers, clamp_tier: 0.0})
    return pd.DataFrame(rows)


def length_residualised(frame: pd.DataFrame, columns: Sequence[str] = DIMENSION_1,
                        length: str = "n_tokens") -> pd.DataFrame:
    """A copy of ``frame`` with ``columns`` replaced by their OLS residuals on ``length``.

    The residuals keep the column's mean (the intercept is added back), so only the
    part linearly predictable from token count is removed.
    """
    missing = [c for c in [*columns, length] if c not in frame]
    if missing:
        raise DataError("frame", f"missing columns {missing}")
    out = frame.copy()
    design = np.column_stack([np.ones(len(frame)), frame[length].to_numpy(float)])
    for column in columns:
        values = frame[column].to_numpy(float)
        beta = np.linalg.lstsq(design, values, rcond=None)[0]
        out[column] = values - (design[:, 1] - design[:, 1].mean()) * beta[1]
    return out


@seeded
def perturbation_study(frame: pd.DataFrame, batch: GraphBatch, item_ids, schemes: pd.DataFrame, *,
                       seed, n_folds: int = 10, alpha: float = 0.05, progress: bool = False,
                       outcomes: bool = False) -> pd.DataFrame:
    """The three conclusions under every tier scheme and under length residualisation.

    Parameters
    ----------
    frame : DataFrame
        Item frame (index ``item_id``) of :func:`mmlu_audit.analyses.pipeline.analysis_inputs`.
    batch : GraphBatch
        The WSCGs of the items ``item_ids`` (from the parse cache).
    item_ids : array-like
        Item id of each graph in ``batch``; must cover ``frame``'s rows.
    schemes : DataFrame
        From :func:`tier_schemes`; its tier columns are read in ``batch.tier_names`` order.
    seed, n_folds, alpha
        As for :func:`section4_statistics` / :func:`primary_conclusions` (no bootstrap).
    progress : bool
        Show a progress bar over schemes.
    outcomes : bool
        Also judge each scheme by §6's replication rule (:func:`replication_outcomes`).

    Returns
    -------
    DataFrame
        One row per scheme (the tier schemes, then ``"length-residualised Dimension 1"``):
        the scheme columns, the statistics and the three conclusions (and the outcomes).
    """
    seed = check_seed(seed)
    item_ids = pd.Index(item_ids)
    if len(item_ids) != batch.n_items:
        raise DataError("item_ids", f"{len(item_ids)} ids for {batch.n_items} graphs")
    if not frame.index.isin(item_ids).all():
        raise DataError("frame", "has items with no graph in the batch")
    depth = pd.DataFrame(batch.depths(schemes[list(batch.tier_names)].to_numpy(float)).T, index=item_ids)
    rows = []
    variants = [(row, depth[i]) for i, row in enumerate(schemes.to_dict("records"))]
    for scheme, values in _progress(variants, progress):
        scored = frame.assign(wscg_depth=values.reindex(frame.index).to_numpy())
        rows.append(_scheme_row(scheme, scored, seed, n_folds, alpha, outcomes))
    residual = {"scheme": "length-residualised Dimension 1", "kind": "length-residualised"}
    rows.append(_scheme_row(residual, length_residualised(frame), seed, n_folds, alpha, outcomes))
    return pd.DataFrame(rows)


def _scheme_row(scheme: dict, frame: pd.DataFrame, seed: int, n_folds: int, alpha: float,
                outcomes: bool = False) -> dict:
    stats = section4_statistics(frame, seed=seed, n_folds=n_folds)
    extra = replication_outcomes(frame, seed=seed) if outcomes else {}
    return {**scheme, **stats, **primary_conclusions(stats, alpha), **extra}


#: The claims :func:`replication_outcomes` judges, with the estimand each is read on.
OUTCOME_ESTIMANDS = {"homogeneity": "interaction_share", "d_ner": "d_ner_contrast", "stem_r2": "logit2_ratio"}


@seeded
def replication_outcomes(frame: pd.DataFrame, *, seed, n_boot: int = 499) -> dict:
    """The §6 replication outcome of the three item-side claims on one item frame.

    The same estimands and rule as the real-verdicts chapter
    (:func:`mmlu_audit.analyses.multiverse.item_estimands`,
    :func:`mmlu_audit.analyses.replication.judge`), so that a perturbation scheme is read as §6
    reads the claims.

    Returns
    -------
    dict
        ``outcome_<claim>`` for each claim of :data:`OUTCOME_ESTIMANDS`, with its ``<estimand>``,
        ``<estimand>_low`` and ``<estimand>_high``.
    """
    from mmlu_audit.analyses.multiverse import item_estimands
    from mmlu_audit.analyses.replication import judge

    frame = estimated_items(frame)
    values = item_estimands(frame, frame["b_hat"].to_numpy(float), list(INDICATORS), seed=seed, n_boot=n_boot)
    out = {}
    for claim, key in OUTCOME_ESTIMANDS.items():
        estimate, low, high = values[key]
        out |= {f"outcome_{claim}": judge(key, estimate, low, high)["outcome"], key: float(estimate),
                f"{key}_low": float(low), f"{key}_high": float(high)}
    return out


def _progress(iterable, show: bool):
    if not show:
        return iterable
    from tqdm.auto import tqdm

    return tqdm(iterable, desc="schemes")


def conclusion_shares(study: pd.DataFrame, by: str | None = None) -> pd.DataFrame:
    """Share of schemes in which each conclusion holds (overall, or per ``by`` group)."""
    present = [c for c in CONCLUSIONS if c in study]
    if len(present) != len(CONCLUSIONS):
        raise DataError("study", f"missing conclusion columns {sorted(set(CONCLUSIONS) - set(present))}")
    if by is None:
        return study[present].mean().to_frame("share holding").T.assign(schemes=len(study))
    grouped = study.groupby(by, sort=False)
    return grouped[present].mean().assign(schemes=grouped.size())


def tier_statistics(graphs, tiers: Mapping[str, float]) -> dict:
    """Which tiers of the table the graphs use: ``n_active``, ``active_names``, ``inert_names``
    ("none" when every tier fires) and ``n_top_tier_vertices`` (vertices on the table's last tier)."""
    active = active_tiers(graphs)
    inert = [t for t in tiers if t not in active]
    return {"n_active": len(active), "active_names": ", ".join(active),
            "inert_names": ", ".join(inert) or "none",
            "n_top_tier_vertices": int(sum(g.count_tier(list(tiers)[-1]) for g in graphs))}


def scheme_statistics(study: pd.DataFrame) -> dict:
    """Scheme counts of a :func:`perturbation_study`: ``n_tier_schemes``, ``n_schemes`` (also
    as ``n_perturbation_schemes``, the paper's key) and ``count_matches_paper``."""
    n = len(study)
    matches = n == paper_value("n_perturbation_schemes")
    return {"n_tier_schemes": int((study["kind"] == "tier shift").sum()), "n_schemes": n,
            "n_perturbation_schemes": n, "count_matches_paper": "matches" if matches else "does not match"}


def share_statistics(study: pd.DataFrame) -> dict:
    """Glue values of a :func:`perturbation_study`: ``share_schemes_<conclusion>`` per conclusion,
    ``share_all_three``, and the HC3 W(9) of the length-residualised (``w9_residualised_dim1``)
    and clamp (``w9_clamped``) schemes."""
    shares = conclusion_shares(study)
    for kind in ("length-residualised", "clamp"):
        if not (study["kind"] == kind).any():
            raise DataError("study", f"has no {kind!r} scheme")
    out = {f"share_schemes_{c}": float(shares[c].iloc[0]) for c in CONCLUSIONS}
    return out | {"share_all_three": float(study[list(CONCLUSIONS)].all(axis=1).mean()),
                  "w9_residualised_dim1": study[study["kind"] == "length-residualised"].iloc[0]["w9_hc3"],
                  "w9_clamped": study[study["kind"] == "clamp"].iloc[0]["w9_hc3"]}


def refitted_frame(inputs, spec) -> tuple[pd.DataFrame, object]:
    """``inputs.frame`` with ``b_hat``, ``a_hat`` and ``b_sd`` from another calibration.

    Parameters
    ----------
    inputs : AnalysisInputs
        From :func:`mmlu_audit.analyses.pipeline.analysis_inputs`.
    spec : IRTSpec
        The alternative calibration (e.g. ``model="rasch"`` or ``b_prior="hierarchical"``);
        fitted through the IRT cache.

    Returns
    -------
    (DataFrame, IRTFit)
    """
    from mmlu_audit.irt import fit_cached
    from mmlu_audit.analyses.pipeline import answered_columns

    matrix = inputs.matrix
    answered = matrix.observed.any(axis=0)
    fit = fit_cached(answered_columns(matrix, answered), spec, progress=False)
    frame = inputs.frame.copy()
    for column, values in (("b_hat", fit.b), ("a_hat", fit.a), ("b_sd", fit.dataset["b_sd"].to_numpy())):
        frame[column] = np.nan
        frame.loc[frame.index[answered], column] = np.asarray(values, float)
    return frame, fit


@seeded
def refit_frames(inputs, refits: Sequence[str], *, fast: bool, seed, max_steps: int = 0) -> dict[str, tuple]:
    """The item frame under the paper's calibration and under each named alternative.

    Parameters
    ----------
    inputs : AnalysisInputs
        From :func:`mmlu_audit.analyses.pipeline.analysis_inputs`; its fit is the paper's.
    refits : sequence of str
        Names from :data:`REFITS`, in the order wanted.
    fast, seed
        As for :func:`mmlu_audit.analyses.pipeline.calibration_spec`.
    max_steps : int
        SVI step cap of the refits; 0 keeps the calibration's default.

    Returns
    -------
    dict
        Name → ``(label, frame)``, the paper's first (``"paper"``); each frame holds only
        the items with an estimate.

    Raises
    ------
    ParameterError
        For a name not in :data:`REFITS`, a repeated one, or a negative ``max_steps``.
    """
    from mmlu_audit.analyses.pipeline import calibration_spec

    refits = list(refits)
    unknown = [r for r in refits if r not in REFITS]
    if unknown or len(set(refits)) < len(refits):
        raise ParameterError("refits", f"each once from {list(REFITS)}, got {refits}")
    if isinstance(max_steps, bool) or not isinstance(max_steps, Integral) or max_steps < 0:
        raise ParameterError("max_steps", f"must be a non-negative integer, got {max_steps!r}")
    seed = check_seed(seed)
    steps = {"max_steps": max_steps} if max_steps else {}
    out = {PAPER_CALIBRATION[0]: (PAPER_CALIBRATION[1], estimated_items(inputs.frame))}
    for name in refits:
        label, changes = REFITS[name]
        refit, _fit = refitted_frame(inputs, calibration_spec(fast, seed, **changes, **steps))
        out[name] = (label, estimated_items(refit))
    return out


@seeded
def estimator_sensitivity(frames: Mapping[str, tuple], *, seed, n_folds: int = 10, n_boot: int = 0,
                          boot_kind: str = "CR2", known: Mapping[str, dict] | None = None) -> dict:
    """The §4 pipeline rerun on each calibration's difficulties.

    Parameters
    ----------
    frames : mapping
        Name → ``(label, frame)`` from :func:`refit_frames`.
    seed, n_folds, n_boot, boot_kind
        As for :func:`section4_statistics`.
    known : mapping, optional
        Name → :func:`section4_statistics` output already computed with these settings
        (the paper calibration's, say), reused instead of recomputed.

    Returns
    -------
    dict
        ``estimators`` (statistics and conclusions, one column per label), ``holm`` (the
        Holm CR2 p of the nine contrasts per label), ``table3`` (each partition's own
        slopes, columns ``(label, partition)``), ``recoveries`` (name → recovery slope of
        b̂ on the planted b, NaN without ``b_true``) and ``labels`` (name → label).
    """
    known = dict(known or {})
    estimators, holm, table3, recoveries = {}, {}, {}, {}
    for name, (label, frame) in frames.items():
        stats = known[name] if name in known else section4_statistics(frame, seed=seed, n_folds=n_folds,
                                                                       n_boot=n_boot, boot_kind=boot_kind)
        estimators[label] = {**stats, **primary_conclusions(stats)}
        X, y, stem, subjects = design_arrays(frame)
        contrasts = contrast_tests(interaction_fit(y, X, stem), subjects, contrast_terms(X.columns),
                                   kinds=("CR2",))
        holm[label] = contrasts["holm_CR2"]
        table3[label] = partition_fits(y, X, stem).xs("estimate", axis=1, level="value")
        recoveries[name] = recovery_slope(frame["b_hat"], frame.get("b_true"))
    return {"estimators": pd.DataFrame(estimators), "holm": pd.DataFrame(holm),
            "table3": pd.concat(table3, axis=1), "recoveries": recoveries,
            "labels": {name: label for name, (label, _) in frames.items()}}


def estimator_statistics(sensitivity: Mapping) -> dict:
    """Glue values of :func:`estimator_sensitivity`.

    ``recovery_<name>`` per calibration; ``estimator_dependent``, the conclusions (and the
    bootstrap version, where run) whose value differs between calibrations, or "none";
    and ``<name>_conclusions_intact`` per alternative: all three conclusions hold under it.
    """
    rows = [*CONCLUSIONS, *(["homogeneity_rejected_wcr"]
                            if "homogeneity_rejected_wcr" in sensitivity["estimators"].index else [])]
    conclusions = sensitivity["estimators"].loc[rows].astype(bool)
    dependent = [c for c in conclusions.index if conclusions.loc[c].nunique() > 1]
    out = {f"recovery_{name}": value for name, value in sensitivity["recoveries"].items()}
    out["estimator_dependent"] = "; ".join(CONCLUSION_LABELS.get(c, c) for c in dependent) or "none"
    for name, label in sensitivity["labels"].items():
        if name != PAPER_CALIBRATION[0]:
            out[f"{name}_conclusions_intact"] = bool(conclusions[label].loc[list(CONCLUSIONS)].all())
    return out


@seeded
def robustness_headline(inputs, batch: GraphBatch, schemes: pd.DataFrame, *, seed, fast: bool,
                        n_folds: int = 10, n_boot: int = 0, boot_kind: str = "CR2", max_steps: int = 0,
                        alpha: float = 0.05, outcomes: bool = False) -> dict:
    """Appendix A's headline figures (:func:`robustness_headline_with_study` without its study)."""
    return robustness_headline_with_study(inputs, batch, schemes, seed=seed, fast=fast, n_folds=n_folds,
                                          n_boot=n_boot, boot_kind=boot_kind, max_steps=max_steps,
                                          alpha=alpha, outcomes=outcomes)[0]


@seeded
def robustness_headline_with_study(inputs, batch: GraphBatch, schemes: pd.DataFrame, *, seed, fast: bool,
                                   n_folds: int = 10, n_boot: int = 0, boot_kind: str = "CR2",
                                   max_steps: int = 0, alpha: float = 0.05, outcomes: bool = False
                                   ) -> tuple[dict, pd.DataFrame]:
    """Appendix A's headline figures on one population, in one call, and the schemes' study they read.

    The three conclusions under the paper calibration, their survival of the given perturbation
    schemes (plus the length-residualised one), and of a Rasch refit of the difficulties.

    Parameters
    ----------
    inputs : AnalysisInputs
        From :func:`mmlu_audit.analyses.pipeline.analysis_inputs` (its fit is the paper's 2PL).
    batch : GraphBatch
        The WSCGs of ``inputs.items``, in that order.
    schemes : DataFrame
        Tier schemes from :func:`tier_schemes`, with one ``"clamp"`` row (a subset of a chapter's
        schemes keeps the study cheap); the length-residualised scheme is added.
    seed : int
        Seeds the CV folds, the bootstrap and the Rasch refit.
    fast : bool
        The Rasch refit's smoke-run step cap (as :func:`refit_frames`).
    n_folds, n_boot, boot_kind
        As for :func:`section4_statistics`; the bootstrap runs on the paper calibration only.
    max_steps : int
        SVI step cap of the Rasch refit; 0 keeps the calibration default.
    alpha : float
        Level of the three conclusions.
    outcomes : bool
        Also read every scheme by §6's replication rule: adds ``base_outcome_<claim>`` and
        ``share_schemes_same_outcome_<claim>`` (the share of schemes whose outcome is the
        default tiers').

    Returns
    -------
    headline : dict
        Keyed by Appendix A's glue names (chap-appendix-a): ``base_<stat>`` for the statistics of
        :func:`section4_statistics` and ``base_<conclusion>`` for the conclusions under the paper
        calibration; ``share_schemes_<conclusion>``, ``share_all_three``, ``w9_residualised_dim1``
        and ``w9_clamped`` (:func:`share_statistics`) with ``n_schemes``, ``n_tier_schemes`` and
        ``n_perturbation_schemes`` (:func:`scheme_statistics`, less its sentence); and
        ``rasch_conclusions_intact`` (all three conclusions hold on the Rasch difficulties).
    study : DataFrame
        :func:`perturbation_study` of ``schemes`` (one row per scheme, the length-residualised one
        last), with the replication outcomes and their estimands' intervals when ``outcomes``:
        what a figure of the schemes draws.
    """
    frame = estimated_items(inputs.frame)
    base = section4_statistics(frame, seed=seed, n_folds=n_folds, n_boot=n_boot, boot_kind=boot_kind)
    base_conclusions = primary_conclusions(base, alpha)
    study = perturbation_study(frame, batch, inputs.items["item_id"], schemes, seed=seed, n_folds=n_folds,
                               alpha=alpha, outcomes=outcomes)
    counts = {k: v for k, v in scheme_statistics(study).items() if k != "count_matches_paper"}
    rasch = refit_frames(inputs, ["rasch"], fast=fast, seed=seed, max_steps=max_steps)["rasch"][1]
    rasch_conclusions = primary_conclusions(section4_statistics(rasch, seed=seed, n_folds=n_folds), alpha)
    same = {}
    if outcomes:
        base_outcomes = replication_outcomes(frame, seed=seed)
        same = {f"base_{k}": v for k, v in base_outcomes.items()} | {
            f"share_schemes_same_outcome_{claim}": float((study[f"outcome_{claim}"]
                                                          == base_outcomes[f"outcome_{claim}"]).mean())
            for claim in OUTCOME_ESTIMANDS}
    intact = {"rasch_conclusions_intact": all(rasch_conclusions[c] for c in CONCLUSIONS)}
    headline = ({f"base_{k}": v for k, v in {**base, **base_conclusions}.items()} | share_statistics(study)
                | counts | intact | same)
    return headline, study
