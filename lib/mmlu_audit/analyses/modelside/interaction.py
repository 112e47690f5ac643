"""The native ability × depth interaction model (paper §5.1) and an honest interval for it.

P(y_ji = 1) = c + (1 − c) σ(a_i(θ_j − b_i) + γ0 W_i + γ1 θ_j W_i), c = 0.25, W =
standardised WSCG Depth, fitted to the STEM submatrix by the SVI engine
(``IRTSpec(model="interaction")``). γ1 is the interaction as a native parameter,
so the guessing floor no longer manufactures a slope–ability relation.

The engine's mean-field posterior understates spread (the paper says so), so next
to its interval we give a nonparametric bootstrap over models: resample the J
rows with replacement, refit, and take percentiles of γ0 and γ1 across refits.
Models, not items, are the sampling units whose population the claim is about.
A resample is fitted as its distinct rows with their counts as frequency weights
(``fit_irt(row_weight=...)``), the same ELBO as the duplicated matrix at ~63 % of
the cells.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from mmlu_audit.core.errors import DataError
from mmlu_audit.core.seeds import check_seed, child_seed, seeded

__all__ = ["interaction_spec", "gamma_summary", "bootstrap_gammas", "interval_table"]

GAMMAS = ("gamma0", "gamma1")


@seeded
def interaction_spec(fast: bool = False, seed: int = 0):
    """The paper's interaction model: c = 0.25, N(0, 1) prior on b, γ ~ N(0, 1)."""
    from mmlu_audit.analyses.pipeline import calibration_spec

    return calibration_spec(fast, seed, model="interaction", guessing=0.25)


def gamma_summary(fit, level: float = 0.95) -> pd.DataFrame:
    """Posterior mean and equal-tailed mean-field interval of γ0 and γ1 from one fit."""
    tail = (1 - level) / 2
    rows = {}
    for name in GAMMAS:
        draws = fit.scalar(name)["draws"]
        rows[name] = {"estimate": fit.scalar(name)["mean"], "low": float(np.quantile(draws, tail)),
                      "high": float(np.quantile(draws, 1 - tail))}
    return pd.DataFrame(rows).T


@seeded
def bootstrap_gammas(responses, covariate, spec, *, replicates: int, seed: int,
                     progress: bool = True) -> pd.DataFrame:
    """γ0, γ1 refitted on ``replicates`` bootstrap resamples of the models (rows).

    Parameters
    ----------
    responses : ndarray of int8, shape (J, I)
        The STEM submatrix (-1 missing).
    covariate : array, shape (I,)
        WSCG Depth (standardised by the engine).
    spec : IRTSpec
        An ``"interaction"`` specification; refit r uses SVI seed ``spec.seed + r``.
    replicates : int
    seed : int
        Seed of the row resampling.
    progress : bool

    Returns
    -------
    DataFrame
        One row per refit: ``gamma0``, ``gamma1``, ``converged``.
    """
    from mmlu_audit.irt import fit_irt

    check_seed(seed)
    if spec.model != "interaction":
        raise DataError("IRTSpec", f"the bootstrap refits the interaction model, not {spec.model!r}")
    if replicates < 1:
        raise DataError("replicates", f"need at least one replicate, got {replicates}")
    responses = np.asarray(responses)
    rng = np.random.default_rng(seed)
    rows = []
    for r in tqdm(range(replicates), desc="bootstrap over models", disable=not progress):
        counts = np.bincount(rng.integers(0, len(responses), len(responses)), minlength=len(responses))
        drawn = np.flatnonzero(counts)
        fit = fit_irt(responses[drawn], spec.with_(seed=child_seed(spec.seed, r)), item_covariate=covariate,
                      row_weight=counts[drawn], progress=False)
        rows.append({name: fit.scalar(name)["mean"] for name in GAMMAS}
                    | {"converged": bool(fit.meta["converged"])})
    return pd.DataFrame(rows).rename_axis("replicate")


def interval_table(fit, boot: pd.DataFrame, level: float = 0.95) -> pd.DataFrame:
    """Mean-field and bootstrap intervals side by side, with their width ratio."""
    tail = (1 - level) / 2
    mean_field = gamma_summary(fit, level)
    table = mean_field.rename(columns={"low": "mean-field low", "high": "mean-field high"})
    table["bootstrap low"] = [float(boot[g].quantile(tail)) for g in GAMMAS]
    table["bootstrap high"] = [float(boot[g].quantile(1 - tail)) for g in GAMMAS]
    table["bootstrap SD"] = [float(boot[g].std(ddof=1)) if len(boot) > 1 else float("nan") for g in GAMMAS]
    table["width ratio"] = ((table["bootstrap high"] - table["bootstrap low"])
                            / (table["mean-field high"] - table["mean-field low"]))
    return table.rename_axis("parameter")
