"""The paper's central item-side tests, run on any item frame in one call.

The same three tests the §4 chapters compute at length, in the form the real-data verdicts,
the replication across model populations and the power study share:

- **homogeneity** (§4.3): W(9) of the nine STEM × indicator interactions under CR2 with the
  HTZ small-sample test, and its null-imposed wild cluster bootstrap (subjects as clusters);
- **d_ner** (§4.2): the STEM × D_ner contrast, CR2 t with Holm over the nine contrasts, and
  the wild cluster bootstrap's Holm p;
- **stem_r2** (§4.2): cross-validated R² in each partition and the logit² ratio (STEM over
  non-STEM) with its subject-cluster bootstrap interval;

and the model-side one, :func:`guessing_floor_test` (§5.1): the two-stage r(β, θ̂) over all
models, with its Fisher interval, judged against the 95 % predictive band of a 3PL null with no
ability × depth term (the null's two-sided tail probability of the observed r, a test of stated
size); the share of r the null's mean reproduces is reported beside it.

Each test returns its statistic, its own p (never another test's) and the decision rule the
verdict reads (:data:`DECISIONS`), so a chapter, a replication table and a many-seed power study
apply one rule.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mmlu_audit.analyses.regression import (Design, contrast_terms, contrast_tests, cv_table, design_arrays,
                                            estimated_items, interaction_fit)
from mmlu_audit.analyses.regression.joint import joint_wald_tests, wald_statistics
from mmlu_audit.analyses.regression.stratified import effect_statistics
from mmlu_audit.analyses.replication import per_difficulty_sd
from mmlu_audit.core.errors import ParameterError
from mmlu_audit.core.seeds import seeded
from mmlu_audit.inference import interaction_share, partition_effects, wild_cluster_bootstrap

__all__ = ["ALPHA", "DECISIONS", "CENTRAL_TESTS", "CLAIM_TESTS", "MIN_POPULATION_MODELS", "central_tests",
           "decide",
           "d_ner_tests", "floor_min_replicates", "guessing_floor_test", "homogeneity_tests",
           "population_tests", "stem_r2_tests"]

ALPHA = 0.05
#: The item-side tests, in the order of the paper.
CENTRAL_TESTS = ("homogeneity", "d_ner", "stem_r2")
#: Every test a real-data verdict reads: the item-side ones, then the guessing floor.
CLAIM_TESTS = CENTRAL_TESTS + ("guessing_floor",)
#: The fewest models a population needs for the tests: item difficulties need several models, and
#: r(β, θ̂) needs four with a finite β.
MIN_POPULATION_MODELS = 4
#: What each test's decision reads: test → (description, rule on its result dict).
DECISIONS = {
    "homogeneity": "W(9) rejected by both size-holding tests: CR2-HTZ p < 0.05 and wild cluster "
                   "bootstrap p < 0.05",
    "d_ner": "STEM × D_ner survives Holm over the nine contrasts under CR2 and under the wild cluster "
             "bootstrap",
    "stem_r2": "cross-validated R² higher in STEM and the logit² ratio's 95 % interval above 1",
    "guessing_floor": "r(β, θ̂) over all models inside the 3PL null's 95 % predictive band: the null's "
                      "two-sided tail probability of it at least 0.05 (the null has no ability × depth "
                      "term; with R replicates that probability is at least 2 / (R + 1))",
}


def floor_min_replicates(alpha: float = ALPHA) -> int:
    """The fewest 3PL-null replicates R whose smallest tail probability, 2 / (R + 1), is below ``alpha``.

    With fewer, the guessing-floor rule of :data:`DECISIONS` supports the claim whatever the data.

    Raises
    ------
    ParameterError
        If ``alpha`` is not inside (0, 1).
    """
    if not 0 < alpha < 1:
        raise ParameterError("alpha", f"must lie inside (0, 1), got {alpha}")
    return int(np.floor(2 / alpha))  # 2 / (R + 1) < alpha  ⇔  R > 2 / alpha − 1


@seeded
def homogeneity_tests(y, X: pd.DataFrame, stem, subjects, *, seed, n_boot: int) -> dict:
    """W(9) under CR2 (χ² and HTZ) and its null-imposed wild cluster bootstrap."""
    tests = joint_wald_tests(y, X, stem, subjects, kinds=["CR2"], forms={"CR2": ["chi2", "HTZ"]})
    wald = wald_statistics(tests)
    fit = interaction_fit(y, X, stem)
    boot = wild_cluster_bootstrap(fit, contrast_terms(X.columns), clusters=subjects, seed=seed, kind="CR2",
                                  n_draws=n_boot)
    share = interaction_share(y, X, stem, subjects, seed=seed, n_boot=n_boot)
    return {"w9_cr2": wald["w9_cr2"], "w9_htz_F": wald["w9_htz_F"], "w9_htz_p": wald["w9_htz_p"],
            "wcb_stat": float(boot.stat), "wcb_q95": float(boot.quantile(0.95)), "wcb_p": float(boot.p),
            "interaction_share": share["estimate"], "interaction_share_low": share["low"],
            "interaction_share_high": share["high"]}


@seeded
def d_ner_tests(y, X: pd.DataFrame, stem, subjects, *, seed, n_boot: int) -> dict:
    """The STEM × D_ner contrast: estimate, CR2 t, Holm p (CR2 and wild bootstrap); D_mdd's beside it.

    ``<name>_per_sd`` (with ``_low`` and ``_high``) are both contrasts per SD of ``y``
    (:func:`~mmlu_audit.analyses.replication.per_difficulty_sd`): the replication estimands.
    """
    fit = interaction_fit(y, X, stem)
    contrasts = contrast_tests(fit, subjects, contrast_terms(X.columns), kinds=("CR2",), seed=seed,
                               n_boot=n_boot)
    table = contrasts.loc["STEM:d_ner"]
    crit = _t_crit(table["df_CR2"])
    mdd = contrasts.loc["STEM:d_mdd"]
    mdd_crit = _t_crit(mdd["df_CR2"])
    out = {"d_ner_estimate": float(table["estimate"]), "t_cr2_d_ner": float(table["t_CR2"]),
           "d_ner_low": float(table["estimate"] - crit * table["se_CR2"]),
           "d_ner_high": float(table["estimate"] + crit * table["se_CR2"]),
           "holm_p_cr2_d_ner": float(table["holm_CR2"]), "boot_holm_p_d_ner": float(table["holm_boot"]),
           "d_mdd_estimate": float(mdd["estimate"]),
           "d_mdd_low": float(mdd["estimate"] - mdd_crit * mdd["se_CR2"]),
           "d_mdd_high": float(mdd["estimate"] + mdd_crit * mdd["se_CR2"])}
    for name in ("d_ner", "d_mdd"):  # the replication estimands: per SD of the regressed b̂
        values = per_difficulty_sd(*(out[f"{name}_{part}"] for part in ("estimate", "low", "high")), y)
        out |= dict(zip((f"{name}_per_sd", f"{name}_per_sd_low", f"{name}_per_sd_high"), values, strict=True))
    return out


def _t_crit(df: float) -> float:
    from scipy import stats

    return float(stats.t.ppf(0.975, df))


@seeded
def stem_r2_tests(y, X: pd.DataFrame, stem, subjects, *, seed, n_boot: int, cv_folds: int) -> dict:
    """Cross-validated R² per partition and the logit² ratio with its cluster-bootstrap interval."""
    cv = cv_table(y, stem, subjects, [Design("nine indicators", X.to_numpy())], n_folds=cv_folds, seed=seed)
    effects = partition_effects(y, X, stem, subjects, seed=seed, n_boot=n_boot).set_index("effect")
    out = effect_statistics(cv, effects)
    return {key: float(out[key]) for key in ("cv_r2_stem", "cv_r2_nonstem", "logit2_ratio",
                                             "logit2_ratio_ci_low", "logit2_ratio_ci_high")}


def decide(test: str, result: dict, alpha: float = ALPHA) -> bool:
    """Whether ``result`` (from :func:`central_tests`) supports the paper's claim by :data:`DECISIONS`.

    Raises
    ------
    ParameterError
        For a test not in :data:`CENTRAL_TESTS`.
    """
    if test == "homogeneity":
        return bool(result["w9_htz_p"] < alpha and result["wcb_p"] < alpha)
    if test == "d_ner":
        return bool(result["holm_p_cr2_d_ner"] < alpha and result["boot_holm_p_d_ner"] < alpha)
    if test == "stem_r2":
        return bool(result["cv_r2_stem"] > result["cv_r2_nonstem"] and result["logit2_ratio_ci_low"] > 1.0)
    if test == "guessing_floor":
        return bool(result["null_tail_p_all"] >= alpha)  # NaN (no finite null r) does not support
    raise ParameterError("test", f"unknown test {test!r}; choose one of {CLAIM_TESTS}")


@seeded
def central_tests(frame: pd.DataFrame, *, seed, n_boot: int = 999, cv_folds: int = 10) -> dict:
    """Run the three item-side tests on an item frame.

    Parameters
    ----------
    frame : DataFrame
        One row per item with ``b_hat``, ``stem``, ``subject`` and the nine indicators
        (:attr:`mmlu_audit.analyses.pipeline.AnalysisInputs.frame`); items without ``b_hat``
        are dropped.
    seed : int
        Seed of the bootstraps and the CV folds.
    n_boot : int
        Draws of each bootstrap.
    cv_folds : int
        K of the item-fold cross-validation.

    Returns
    -------
    dict
        ``test → {statistic: value}`` for :data:`CENTRAL_TESTS`, each with ``supports`` (the
        decision of :func:`decide`) and ``n_items``.
    """
    X, y, stem, subjects = design_arrays(estimated_items(frame))
    if np.unique(subjects[stem]).size < 2 or np.unique(subjects[~stem]).size < 2:
        raise ParameterError("frame", "needs at least two subjects in each partition")
    results = {
        "homogeneity": homogeneity_tests(y, X, stem, subjects, seed=seed, n_boot=n_boot),
        "d_ner": d_ner_tests(y, X, stem, subjects, seed=seed, n_boot=n_boot),
        "stem_r2": stem_r2_tests(y, X, stem, subjects, seed=seed, n_boot=n_boot, cv_folds=cv_folds),
    }
    for test, result in results.items():
        result |= {"supports": decide(test, result), "n_items": int(len(y))}
    return results


@seeded
def guessing_floor_test(matrix, frame: pd.DataFrame, theta_hat, *, seed, fast: bool = False,
                        replicates: int = 100) -> dict:
    """§5.1's two-stage coefficient and its 3PL guessing-floor null, on one response matrix.

    Parameters
    ----------
    matrix : ResponseMatrix
        Responses, columns in ``frame`` order.
    frame : DataFrame
        The items with ``stem``, ``wscg_depth`` and ``b_hat``; STEM items no model answered are
        left out (the computation is
        :func:`~mmlu_audit.analyses.modelside.null3pl.two_stage_headline`'s).
    theta_hat : array-like, shape (J,)
        The 2PL abilities of the calibration.
    seed : int
        Seed of the 3PL fit and of the null replicates.
    fast : bool
        The 3PL fit's smoke-run step cap.
    replicates : int
        Matrices simulated from the fitted 3PL.

    Returns
    -------
    dict
        ``rs_r_all`` with its Fisher 95 % interval (``rs_r_low``, ``rs_r_high``), ``null_r_all``
        (the null's mean r) with its 95 % predictive band (``null_low_all``, ``null_high_all``) and
        the two-sided tail probability of the observed r under it (``null_tail_p_all``),
        ``null_share_all`` (null mean / observed: reported, not decided on), ``null_replicates``,
        ``n_models`` (with a finite β), ``supports`` (``null_tail_p_all`` ≥ 0.05,
        :data:`DECISIONS`; it can fail only with :func:`floor_min_replicates` replicates or more).
    """
    from mmlu_audit.analyses.modelside import two_stage_headline

    values = two_stage_headline(matrix, frame, theta_hat, seed=seed, fast=fast, replicates=replicates)
    keys = ("rs_r_all", "rs_r_low", "rs_r_high", "null_r_all", "null_share_all", "null_low_all",
            "null_high_all", "null_tail_p_all")
    result = {key: values[key] for key in keys}
    result["n_models"], result["null_replicates"] = values["n_all"], int(replicates)
    return result | {"supports": decide("guessing_floor", result)}


@seeded
def population_tests(source: str, *, seed: int, fast: bool, n_boot: int, cv_folds: int,
                     replicates: int) -> dict:
    """Every test of :data:`CLAIM_TESTS` on one response source, through the chapters' pipeline.

    Parameters
    ----------
    source : str
        A response source (:data:`mmlu_audit.worlds.sources.SOURCES`).
    seed : int
        Seed of the calibration, the bootstraps, the folds and the 3PL null.
    fast : bool
        The calibration's smoke-run step cap.
    n_boot, cv_folds, replicates : int
        As for :func:`central_tests` and :func:`guessing_floor_test`.

    Returns
    -------
    dict
        ``test → result`` (each with ``supports``), plus ``"population"``: ``source``,
        ``n_models``, ``simulated`` and ``description``.
    """
    from mmlu_audit.analyses.pipeline import analysis_inputs

    inputs = analysis_inputs(source, seed, fast)
    results = central_tests(inputs.frame, seed=seed, n_boot=n_boot, cv_folds=cv_folds)
    results["guessing_floor"] = guessing_floor_test(inputs.matrix, inputs.frame, inputs.fit.theta, seed=seed,
                                                    fast=fast, replicates=replicates)
    matrix = inputs.matrix
    return results | {"population": {"source": source, "n_models": int(matrix.shape[0]),
                                     "simulated": bool(matrix.simulated), "description": matrix.description}}
