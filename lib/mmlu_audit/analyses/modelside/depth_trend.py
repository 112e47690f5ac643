"""What §5.1's interaction γ1 is identified by: the depth trends of the items' own parameters.

The native interaction model identifies γ1 only through its item prior, which says that log a
and b do not depend on the depth W. Written as the explanatory item model that assumption leaves
out,

    log a_i = ν + λ·W_i + u_subject + e_i,        b_i = μ + κ·W_i + v_subject + ε_i,

the question γ1 answers is λ: does discrimination fall with depth? This module estimates λ and κ
by a two-stage regression of a calibration's item estimates on the standardised depth, clustered
by subject (CR2 with Bell–McCaffrey degrees of freedom, and the null-imposed wild cluster
bootstrap, whose size held with few clusters in the book's size study).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mmlu_audit.core.errors import DataError
from mmlu_audit.core.scaling import standardise
from mmlu_audit.core.seeds import seeded
from mmlu_audit.inference import coef_table, fit_ols, wild_cluster_bootstrap

__all__ = ["DEPTH_TRENDS", "depth_trends"]

#: The two trends: key → (outcome, what it estimates).
DEPTH_TRENDS = {"lambda": ("log â", "discrimination's depth trend λ"),
                "kappa": ("b̂", "difficulty's depth trend κ")}


@seeded
def depth_trends(a_hat, b_hat, depth, subjects, *, seed, n_boot: int = 9999) -> pd.DataFrame:
    """λ and κ: the slopes of log â and b̂ on the standardised depth, with subject-clustered inference.

    Parameters
    ----------
    a_hat, b_hat : array, shape (I,)
        A calibration's item estimates (a > 0).
    depth : array, shape (I,)
        WSCG Depth of the same items; standardised here (population SD), as the interaction
        model's W.
    subjects : array, shape (I,)
        Each item's subject: the clusters.
    seed : int
        Seed of the bootstrap's Rademacher draws.
    n_boot : int
        Bootstrap draws.

    Returns
    -------
    DataFrame
        Indexed by ``trend`` ("lambda", "kappa"): ``outcome``, ``estimate`` (per SD of depth),
        ``se_cr2``, ``df`` (Bell–McCaffrey), ``low`` and ``high`` (95 %, t on that df),
        ``p_cr2``, ``p_wcb`` (wild cluster bootstrap, null imposed) and ``n_clusters``.

    Raises
    ------
    DataError
        If the arrays differ in length, an a is not positive, or a value is not finite.
    """
    a, b, w = (np.asarray(v, float) for v in (a_hat, b_hat, depth))
    clusters = np.asarray(subjects)
    if not (a.shape == b.shape == w.shape == clusters.shape) or a.ndim != 1:
        raise DataError("depth_trends", "a_hat, b_hat, depth and subjects need one value per item")
    if not (np.isfinite(a).all() and np.isfinite(b).all() and np.isfinite(w).all()) or (a <= 0).any():
        raise DataError("depth_trends", "a_hat must be positive and every value finite")
    design = standardise(w)[:, None]
    rows = []
    for trend, outcome in (("lambda", np.log(a)), ("kappa", b)):
        fit = fit_ols(outcome, design, ["depth"], intercept=True)
        row = coef_table(fit, "CR2", clusters).set_index("term").loc["depth"]
        boot = wild_cluster_bootstrap(fit, "depth", clusters=clusters, seed=seed, kind="CR2", n_draws=n_boot)
        rows.append({"trend": trend, "outcome": DEPTH_TRENDS[trend][0], "estimate": float(row["estimate"]),
                     "se_cr2": float(row["se"]), "df": float(row["df"]), "low": float(row["ci_low"]),
                     "high": float(row["ci_high"]), "p_cr2": float(row["p"]), "p_wcb": float(boot.p),
                     "n_clusters": int(np.unique(clusters).size)})
    return pd.DataFrame(rows).set_index("trend")
