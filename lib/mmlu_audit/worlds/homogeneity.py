"""Simulated worlds for the size and power of homogeneity tests.

Items are nested in subjects. Predictors carry a subject-level component, and
the outcome has subject random intercepts and random slopes, so item-level
scores are correlated within subjects — the situation in which HC3 is
anti-conservative and cluster-robust inference is needed. The *null* world has
identical mean slopes in both partitions; the *planted* world adds
``planted`` to the STEM slopes of the first ``n_planted`` predictors.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.core.seeds import rng_from, seeded
from mmlu_audit.inference.bootstrap import wild_cluster_bootstrap
from mmlu_audit.inference.covariance import cluster_algebra
from mmlu_audit.inference.hypothesis import (HTZUndefinedError, interaction_design, restriction_matrix,
                                             wald_test)
from mmlu_audit.inference.ols import fit_ols
from mmlu_audit.inference.permutation import permutation_test

__all__ = ["simulate_homogeneity_world", "homogeneity_rejections", "power_curve", "size_power_rates",
           "size_power_summary", "size_power_table", "smallest_detectable"]


@seeded
def simulate_homogeneity_world(
    subject_sizes,
    stem_subjects,
    *,
    seed,
    n_predictors: int = 9,
    slope: float = 0.1,
    planted: float = 0.0,
    n_planted: int = 2,
    predictor_subject_sd: float = 0.4,
    intercept_sd: float = 0.4,
    slope_sd: float = 0.05,
    noise_sd: float = 1.0,
) -> dict:
    """Draw one dataset of the homogeneity design.

    ``x_ij = m_j + z_ij`` with ``m_j ~ N(0, predictor_subject_sd^2)`` per
    predictor and subject; ``y_ij = u_j + x_ij'(slope + g_j + d S_j) + e_ij``
    with ``u_j ~ N(0, intercept_sd^2)``, ``g_j ~ N(0, slope_sd^2)`` per
    predictor, ``e_ij ~ N(0, noise_sd^2)`` and ``d`` the planted STEM shift.

    Parameters
    ----------
    subject_sizes : array-like of int, shape (G,)
        Items per subject (e.g. the 57 MMLU subject sizes).
    stem_subjects : array-like of bool, shape (G,)
        Which subjects are STEM.
    seed : int or numpy.random.Generator
    n_predictors : int
    slope : float
        Common slope of every predictor.
    planted : float
        STEM-only slope shift on the first ``n_planted`` predictors (0 = null world).
    n_planted : int
    predictor_subject_sd, intercept_sd, slope_sd, noise_sd : float

    Returns
    -------
    dict
        ``y`` (n,), ``X`` (n, k), ``stem`` (n,) bool, ``clusters`` (n,) int.
    """
    sizes = np.asarray(subject_sizes, dtype=int)
    stem_subjects = np.asarray(stem_subjects, dtype=bool)
    if sizes.ndim != 1 or sizes.shape != stem_subjects.shape or sizes.size < 2 or (sizes < 1).any():
        raise DataError("subject_sizes", "need >= 2 positive sizes and one STEM flag per subject")
    rng = rng_from(seed)
    n_subjects, k = sizes.size, n_predictors
    clusters = np.repeat(np.arange(n_subjects), sizes)
    X = rng.normal(0.0, predictor_subject_sd, (n_subjects, k))[clusters] + rng.normal(size=(clusters.size, k))
    shift = np.zeros(k)
    shift[:n_planted] = planted
    slopes = slope + rng.normal(0.0, slope_sd, (n_subjects, k)) + np.outer(stem_subjects, shift)
    y = (rng.normal(0.0, intercept_sd, n_subjects)[clusters] + np.einsum("ik,ik->i", X, slopes[clusters])
         + rng.normal(0.0, noise_sd, clusters.size))
    return {"y": y, "X": X, "stem": stem_subjects[clusters], "clusters": clusters}


@seeded
def homogeneity_rejections(world: dict, *, seed, n_draws: int = 999, alpha: float = 0.05) -> dict:
    """Which tests of ``W(9)`` reject at ``alpha`` on one simulated world.

    Methods: HC3 chi², CR1 chi² and F(q, G-1), CR2 chi² and HTZ, the
    null-imposed wild cluster bootstrap (Rademacher) with CR1 or CR2 inside, and
    the subject-block permutation of the likelihood-ratio statistic for separate
    partition slopes (``n_draws`` permutations; STEM is constant within subjects, so
    whole subjects are relabelled).

    Returns
    -------
    dict
        Method name -> bool; ``"CR2 HTZ"`` is NaN on a world whose clusters leave the HTZ
        denominator degrees of freedom undefined (few clusters for nine restrictions): the
        test does not exist there, which is neither a rejection nor an acceptance.
    """
    Z, names = interaction_design(world["X"], world["stem"])
    fit = fit_ols(world["y"], Z, names)
    k = world["X"].shape[1]
    R = restriction_matrix(fit, names[k + 2:])
    rng = rng_from(seed)
    out = {"HC3 chi2": wald_test(fit, R, kind="HC3")["p"].item() < alpha}
    for kind in ("CR1", "CR2"):
        algebra = cluster_algebra(fit, world["clusters"], kind)
        forms = ("chi2", "F") if kind == "CR1" else ("chi2", "HTZ")
        for form in forms:
            try:
                res = wald_test(fit, R, kind=kind, form=form, algebra=algebra)
            except HTZUndefinedError:
                out[f"{kind} {form}"] = float("nan")
                continue
            out[f"{kind} {form}"] = res["p"].item() < alpha
        boot = wild_cluster_bootstrap(fit, R, clusters=world["clusters"], seed=rng, kind=kind,
                                      n_draws=n_draws, algebra=algebra)
        out[f"WCR({kind})"] = boot.p < alpha
    permuted = permutation_test(world["y"], world["X"], world["stem"], world["clusters"], seed=rng,
                                scheme="block", statistic="lr", n_perm=n_draws)
    out["block permutation (LR)"] = permuted.p < alpha
    return out


@seeded
def size_power_table(subject_sizes, stem_subjects, *, seed, n_reps: int = 200, planted: float = 0.2,
                     n_draws: int = 999, alpha: float = 0.05, **world_kwargs) -> pd.DataFrame:
    """Rejection rates of the ``W(9)`` tests in a null and a planted world.

    Parameters
    ----------
    subject_sizes, stem_subjects : array-like
        See :func:`simulate_homogeneity_world`.
    seed : int or numpy.random.Generator
    n_reps : int
        Replicates per world.
    planted : float
        STEM slope shift of the planted world.
    n_draws : int
        Wild bootstrap draws per replicate.
    alpha : float
    **world_kwargs
        Passed to :func:`simulate_homogeneity_world`.

    Returns
    -------
    DataFrame
        Columns ``world, method, rejection_rate, mc_se, n_reps, n_defined, n_draws, alpha,
        planted``: ``n_defined`` replicates had the test defined (HTZ can be undefined, see
        :func:`homogeneity_rejections`); the rate and its SE are over those, NaN when none.
    """
    rng = rng_from(seed)
    rows = []
    for world_name, shift in (("null", 0.0), ("planted", planted)):
        hits = [
            homogeneity_rejections(
                simulate_homogeneity_world(subject_sizes, stem_subjects, seed=rng, planted=shift,
                                           **world_kwargs),
                seed=rng, n_draws=n_draws, alpha=alpha,
            )
            for _ in range(n_reps)
        ]
        for method in hits[0]:
            defined = np.array([h[method] for h in hits], dtype=float)
            defined = defined[~np.isnan(defined)]
            rate = float(defined.mean()) if defined.size else float("nan")
            rows.append({"world": world_name, "method": method, "rejection_rate": rate,
                         "mc_se": float(np.sqrt(rate * (1 - rate) / defined.size)) if defined.size
                         else float("nan"), "n_reps": n_reps, "n_defined": int(defined.size),
                         "n_draws": n_draws, "alpha": alpha, "planted": shift})
    return pd.DataFrame(rows)


def size_power_rates(table: pd.DataFrame) -> pd.DataFrame:
    """Rejection rate per method (rows) and world (columns) of a :func:`size_power_table`."""
    return table.pivot(index="method", columns="world", values="rejection_rate")


def size_power_summary(table: pd.DataFrame, boot_kind: str = "CR2") -> dict[str, float]:
    """The size and power a chapter glues from a :func:`size_power_table`.

    ``sp_reps`` (replicates per world); the null world's rejection rates ``sp_hc3``,
    ``sp_cr1``, ``sp_cr2`` (χ² references), ``sp_htz`` (CR2 HTZ) and ``sp_wcr`` (the wild
    bootstrap with ``boot_kind`` inside); ``sp_mcse`` (median Monte Carlo SE in the null
    world); and the planted world's ``sp_htz_power`` and ``sp_wcr_power``. Each rate's own Monte
    Carlo SE is under its name with ``_se`` appended (``sp_htz_se``, ``sp_wcr_power_se``), so a
    page prints a rate with its SE (:func:`mmlu_audit.book.report.rate_texts`).

    Raises
    ------
    ParameterError
        If the table has no wild bootstrap with ``boot_kind``.
    """
    rates = size_power_rates(table)
    booted = sorted(m.removeprefix("WCR(").removesuffix(")") for m in rates.index if m.startswith("WCR("))
    if boot_kind not in booted:
        raise ParameterError("boot_kind", f"the size study bootstrapped {booted}, not {boot_kind!r}")
    wcr = f"WCR({boot_kind})"
    where = {"sp_hc3": ("HC3 chi2", "null"), "sp_cr1": ("CR1 chi2", "null"), "sp_cr2": ("CR2 chi2", "null"),
             "sp_htz": ("CR2 HTZ", "null"), "sp_wcr": (wcr, "null"),
             "sp_htz_power": ("CR2 HTZ", "planted"), "sp_wcr_power": (wcr, "planted")}
    se = table.pivot(index="method", columns="world", values="mc_se")
    return {"sp_reps": int(table["n_reps"].iloc[0]),
            "sp_mcse": table.loc[table["world"] == "null", "mc_se"].median(),
            **{key: rates.loc[cell] for key, cell in where.items()},
            **{f"{key}_se": se.loc[cell] for key, cell in where.items()}}


@seeded
def power_curve(subject_sizes, stem_subjects, planted_grid, *, seed, n_reps: int = 40, n_draws: int = 199,
                alpha: float = 0.05, **world_kwargs) -> pd.DataFrame:
    """Rejection rate of every ``W(9)`` test at each planted STEM slope shift (0 = the null world).

    Parameters
    ----------
    subject_sizes, stem_subjects : array-like
        The design (see :func:`simulate_homogeneity_world`).
    planted_grid : sequence of float
        STEM slope shifts, each ≥ 0, in units of the world's noise SD per predictor unit.
    seed : int or numpy.random.Generator
    n_reps, n_draws, alpha
        Replicates per shift, bootstrap / permutation draws per replicate, the test level.
    **world_kwargs
        Passed to :func:`simulate_homogeneity_world`.

    Returns
    -------
    DataFrame
        Index: method; columns: the shifts; values: the rejection rate over the replicates in
        which the test is defined (NaN where it never is, as HTZ with few clusters).
    """
    grid = [float(d) for d in planted_grid]
    if not grid or min(grid) < 0:
        raise ParameterError("planted_grid", f"need shifts ≥ 0, got {list(planted_grid)}")
    if int(n_reps) < 1:
        raise ParameterError("n_reps", f"must be a positive count, got {n_reps!r}")
    rng = rng_from(seed)
    rates = {}
    for shift in grid:
        hits = pd.DataFrame([homogeneity_rejections(
            simulate_homogeneity_world(subject_sizes, stem_subjects, seed=rng, planted=shift, **world_kwargs),
            seed=rng, n_draws=n_draws, alpha=alpha) for _ in range(int(n_reps))], dtype=float)
        rates[shift] = hits.mean(skipna=True)
    table = pd.DataFrame(rates)
    table.columns.name, table.index.name = "planted", "method"
    return table


def smallest_detectable(curve: pd.DataFrame, method: str, power: float = 0.8) -> float:
    """The smallest shift of a :func:`power_curve` at which ``method`` rejects at least ``power``
    of the time; NaN when no shift on the grid reaches it (or the test is never defined)."""
    if method not in curve.index:
        raise ParameterError("method", f"the power curve has {list(curve.index)}, not {method!r}")
    reached = [shift for shift, rate in curve.loc[method].items() if shift > 0 and rate >= power]
    return float(min(reached)) if reached else float("nan")
