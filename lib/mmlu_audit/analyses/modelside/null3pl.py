"""The 3PL generative null of the β–θ correlation (paper §5.1, Figure 1).

With a guessing floor c = 0.25 the empirical log-odds of a weak model are
compressed towards logit(c) whatever the item, so its slope on any item covariate
flattens, and β correlates negatively with ability even when no ability × depth
interaction exists. To measure that artefact, fit a 3PL (c = 0.25, no interaction)
to the STEM submatrix, simulate R replicate matrices from the fitted parameters
(missing cells stay missing), and pass each through the identical β procedure.
The replicate correlations are what geometry alone produces.

β of a replicate is correlated with the 3PL abilities that generated it, not
with a refitted 2PL θ̂ (a refit per replicate would cost R calibrations); the
two abilities correlate at ≈ 0.99 (see :func:`construct_consistency`).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits
from tqdm.auto import tqdm

from mmlu_audit.core.errors import DataError
from mmlu_audit.core.machine import available_cores
from mmlu_audit.analyses.modelside.sensitivity import (EXCLUSIONS, beta_theta_correlations, column_submatrix,
                                                       reasoning_sensitivity)
from mmlu_audit.core.seeds import check_seed, seeded

__all__ = ["TwoStageNull", "null_spec", "simulate_3pl", "null_betas", "null_correlations",
           "null_correlations_of", "null_summary", "construct_consistency", "predictive_band",
           "rs_r_interval", "two_stage_headline", "two_stage_null"]


@seeded
def null_spec(fast: bool = False, seed: int = 0):
    """The 3PL (c = 0.25, N(0, 1) prior on b) fitted to the STEM submatrix."""
    from mmlu_audit.analyses.pipeline import calibration_spec

    return calibration_spec(fast, seed, model="3pl", guessing=0.25)


def simulate_3pl(theta, a, b, guessing: float, observed, rng: np.random.Generator) -> np.ndarray:
    """One response matrix drawn from c + (1 − c)σ(a(θ − b)), -1 where ``observed`` is False.

    Parameters
    ----------
    theta : array, shape (J,)
    a, b : array, shape (I,)
    guessing : float
    observed : array of bool, shape (J, I)
    rng : numpy.random.Generator
    """
    theta, a, b = (np.asarray(v, dtype=np.float64) for v in (theta, a, b))
    if observed.shape != (len(theta), len(b)) or a.shape != b.shape:
        raise DataError("3PL parameters", f"θ {theta.shape}, a {a.shape}, b {b.shape} do not "
                        f"match the observed mask {observed.shape}")
    p = guessing + (1 - guessing) / (1 + np.exp(-a[None, :] * (theta[:, None] - b[None, :])))
    y = (rng.random(p.shape) < p).astype(np.int8)
    y[~observed] = -1
    return y


@seeded
def null_betas(theta, a, b, covariate, observed, *, replicates: int, seed: int, guessing: float = 0.25,
               progress: bool = False) -> np.ndarray:
    """β of every model in each of ``replicates`` matrices simulated from a fitted 3PL.

    The one simulation of the null: :func:`null_correlations` summarises these β by their
    correlation with θ, and :func:`~mmlu_audit.analyses.modelside.null_band.beta_band` by each
    model's band.

    Parameters
    ----------
    theta, a, b : arrays
        The fitted 3PL's abilities (J,) and item parameters (I,).
    covariate : array, shape (I,)
        WSCG Depth of the items (standardised inside the β procedure).
    observed : array of bool, shape (J, I)
        Cells of the real matrix that were observed; the rest stay missing.
    replicates : int
        R, the number of simulated matrices.
    seed : int
        Replicate r uses the r-th child of ``SeedSequence(seed)``.
    guessing : float
        The 3PL's fixed c.
    progress : bool
        tqdm bar over replicates.

    Returns
    -------
    ndarray, shape (R, J)
        NaN where a model's β has no finite maximum in that replicate.

    Raises
    ------
    DataError
        If ``replicates`` is below one.
    """
    check_seed(seed)
    if replicates < 1:
        raise DataError("replicates", f"need at least one replicate, got {replicates}")
    children = np.random.SeedSequence(seed).spawn(replicates)

    def one(child):
        y = simulate_3pl(theta, a, b, guessing, observed, np.random.default_rng(child))
        return reasoning_sensitivity(y, covariate)["beta"].to_numpy(float)

    # Replicates are independent and numpy releases the GIL in its array loops, so one thread per
    # core runs them side by side (each keeps its own seed and its row). BLAS is held to one thread
    # meanwhile: its own threads on top of these made the pool barely faster (5.4 → 4.4 s for 20
    # replicates on 2 cores, against 3.0 s).
    with threadpool_limits(limits=1, user_api="blas"), ThreadPoolExecutor(available_cores()) as pool:
        rows = list(tqdm(pool.map(one, children), total=replicates, desc="3PL null", disable=not progress))
    return np.stack(rows)


@seeded
def null_correlations(theta, a, b, covariate, observed, *, replicates: int, seed: int,
                      guessing: float = 0.25, progress: bool = True) -> pd.DataFrame:
    """β–θ correlations of ``replicates`` matrices simulated from a fitted 3PL.

    Parameters are those of :func:`null_betas`, whose β each row correlates with ``theta``.

    Returns
    -------
    DataFrame
        One row per replicate, one column per key of :data:`EXCLUSIONS`.
    """
    draws = null_betas(theta, a, b, covariate, observed, replicates=replicates, seed=seed, guessing=guessing,
                       progress=progress)
    return null_correlations_of(draws, theta)


def null_correlations_of(draws: np.ndarray, theta) -> pd.DataFrame:
    """:func:`null_correlations` of β already drawn (:func:`null_betas`, shape (R, J))."""
    rows = [beta_theta_correlations(row, theta) for row in np.asarray(draws, float)]
    return pd.DataFrame(rows, columns=list(EXCLUSIONS)).rename_axis("replicate")


def null_summary(observed: dict, null: pd.DataFrame) -> pd.DataFrame:
    """Observed r, the null's mean r with a 95 % range, and the share of the observed it accounts for."""
    table = pd.DataFrame({
        "observed": pd.Series(observed),
        "null mean": null.mean(),
        "null 2.5 %": null.quantile(0.025),
        "null 97.5 %": null.quantile(0.975),
    })
    table["share of observed"] = table["null mean"] / table["observed"]
    return table.rename_axis("models")


def construct_consistency(theta_null, theta_2pl, b_null, b_2pl) -> dict[str, float]:
    """r of the 3PL null's θ and b with the 2PL baseline (paper 0.907 / 0.892)."""
    def r(u, v):
        u, v = np.asarray(u, float), np.asarray(v, float)
        keep = np.isfinite(u) & np.isfinite(v)
        return float(np.corrcoef(u[keep], v[keep])[0, 1])

    return {"theta": r(theta_null, theta_2pl), "b": r(b_null, b_2pl)}


def predictive_band(observed: float, replicates: np.ndarray, level: float = 0.95) -> dict:
    """Where the null puts r at this design: its ``level`` band and the observed r's tail probability.

    Parameters
    ----------
    observed : float
        The observed r(β, θ̂).
    replicates : array, shape (R,)
        r of each null replicate (NaN ones are left out).
    level : float
        Coverage of the equal-tailed band.

    Returns
    -------
    dict
        ``null_low_all``, ``null_high_all`` and ``null_tail_p_all``: two-sided, ``2 · min`` of the
        two tails with the observed value counted among the replicates (so never 0).
    """
    draws = replicates[np.isfinite(replicates)]
    if draws.size == 0:
        return {"null_low_all": np.nan, "null_high_all": np.nan, "null_tail_p_all": np.nan}
    tail = (1 - level) / 2
    low, high = np.quantile(draws, [tail, 1 - tail])
    below, above = ((1 + np.sum(draws <= observed)) / (draws.size + 1),
                    (1 + np.sum(draws >= observed)) / (draws.size + 1))
    return {"null_low_all": float(low), "null_high_all": float(high),
            "null_tail_p_all": float(min(1.0, 2 * min(below, above)))}


@dataclass(frozen=True)
class TwoStageNull:
    """§5.1's two-stage analysis of one matrix with its 3PL null, as :func:`two_stage_null` returns it.

    Attributes
    ----------
    headline : dict
        :func:`two_stage_headline`'s figures.
    beta : ndarray, shape (J,)
        Each model's observed β (NaN where it has no finite maximum).
    theta_hat : ndarray, shape (J,)
        The 2PL abilities β is read against.
    draws : ndarray, shape (R, J)
        β of every model in each null replicate (:func:`null_betas`).
    theta_3pl : ndarray, shape (J,)
        The fitted 3PL's abilities, which generated the replicates.
    models : DataFrame or None
        The matrix's model table.
    """

    headline: dict
    beta: np.ndarray
    theta_hat: np.ndarray
    draws: np.ndarray
    theta_3pl: np.ndarray
    models: pd.DataFrame | None


def _observed_side(matrix, frame: pd.DataFrame, theta_hat) -> dict:
    """§5.1's observed side on one matrix: the STEM columns, β per model and r(β, θ̂) per exclusion."""
    from mmlu_audit.inference import fisher_interval

    theta_hat = np.asarray(theta_hat, dtype=float)
    if theta_hat.shape != (matrix.shape[0],):
        raise DataError("theta_hat", f"has shape {theta_hat.shape}, the matrix {matrix.shape[0]} models")
    is_stem = frame["stem"].to_numpy(bool)
    stem = is_stem & matrix.observed.any(axis=0)
    depth = frame.loc[stem, "wscg_depth"].to_numpy(float)
    sub = column_submatrix(matrix, stem)
    betas = reasoning_sensitivity(sub.responses, depth)["beta"].to_numpy()
    kept = np.isfinite(betas) & np.isfinite(theta_hat)
    if kept.sum() < 4:
        raise DataError(matrix.source, f"only {int(kept.sum())} models have a finite β; r needs at least 4")
    observed = beta_theta_correlations(betas, theta_hat)
    # the cuts of beta_theta_correlations: θ̂ quantiles over the models with a finite β
    sizes = {name: int((theta_hat[kept] > np.quantile(theta_hat[kept], share)).sum()) if share
             else int(kept.sum()) for name, share in EXCLUSIONS.items()}
    low, high = fisher_interval(observed["all"], sizes["all"])
    return {"theta_hat": theta_hat, "is_stem": is_stem, "stem": stem, "depth": depth, "sub": sub,
            "betas": betas, "observed": observed, "sizes": sizes, "rs_r_low": low, "rs_r_high": high}


def rs_r_interval(matrix, frame: pd.DataFrame, theta_hat) -> dict:
    """r(β, θ̂) over all models with its Fisher 95 % interval, without the 3PL null.

    The values :func:`two_stage_null` reports as ``rs_r_all``, ``rs_r_low``, ``rs_r_high`` and
    ``n_all``, for studies that need the estimand and its interval only (the 3PL fit and its
    replicates are most of the cost).

    Raises
    ------
    DataError
        As :func:`two_stage_null`.
    """
    side = _observed_side(matrix, frame, theta_hat)
    return {"rs_r_all": float(side["observed"]["all"]), "rs_r_low": float(side["rs_r_low"]),
            "rs_r_high": float(side["rs_r_high"]), "n_all": side["sizes"]["all"]}


@seeded
def two_stage_headline(matrix, frame: pd.DataFrame, theta_hat, *, seed: int, fast: bool = False,
                       replicates: int = 100) -> dict:
    """§5.1's headline figures on one response matrix (:func:`two_stage_null`'s ``headline``)."""
    return two_stage_null(matrix, frame, theta_hat, seed=seed, fast=fast, replicates=replicates).headline


@seeded
def two_stage_null(matrix, frame: pd.DataFrame, theta_hat, *, seed: int, fast: bool = False,
                   replicates: int = 100) -> TwoStageNull:
    """§5.1's headline figures on one response matrix: r(β, θ̂), its exclusions and the 3PL null.

    STEM items that no model answered are left out before the β procedure and the 3PL fit (they
    carry no response, and the fit refuses an empty column), as in
    :func:`mmlu_audit.analyses.central.guessing_floor_test`, whose ``rs_r_*`` and ``null_*_all``
    values this reproduces; here the null is summarised under every exclusion of
    :data:`EXCLUSIONS`, and the construct consistency of the null is added.

    Parameters
    ----------
    matrix : ResponseMatrix
        Responses, columns in ``frame`` order.
    frame : DataFrame
        The items, with ``stem``, ``wscg_depth`` and ``b_hat`` (the 2PL difficulties).
    theta_hat : array-like, shape (J,)
        The 2PL abilities of the calibration, one per model of ``matrix``.
    seed : int
        Seed of the 3PL fit and of the null replicates.
    fast : bool
        The 3PL fit's smoke-run step cap.
    replicates : int
        Matrices simulated from the fitted 3PL.

    Returns
    -------
    TwoStageNull
        Its ``headline`` is keyed by the glue names of §5.1's chapter
        (chap-reasoning-sensitivity): ``rs_r_<k>``
        (observed r), ``null_r_<k>`` (the null's mean r) and ``null_share_<k>`` (null mean /
        observed) for each key ``k`` of :data:`EXCLUSIONS`; ``rs_r_low``, ``rs_r_high`` (Fisher 95 %
        interval of ``rs_r_all``, treating the models as independent pairs); ``n_<k>``, the models
        each correlation rests on (``n_all``: those with a finite β); ``n_stem_items`` (STEM items
        answered by at least one model) and ``n_stem_unanswered``; ``null_theta_r_2pl`` and
        ``null_b_r_2pl`` (:func:`construct_consistency`).

    Raises
    ------
    DataError
        If ``theta_hat`` does not have one value per model, or fewer than four models have a
        finite β.
    """
    from mmlu_audit.irt import fit_cached

    side = _observed_side(matrix, frame, theta_hat)
    stem, is_stem, depth, sub, observed, sizes = (side[k] for k in ("stem", "is_stem", "depth", "sub",
                                                                     "observed", "sizes"))
    theta_hat, betas, low, high = side["theta_hat"], side["betas"], side["rs_r_low"], side["rs_r_high"]
    fit_3pl = fit_cached(sub, null_spec(fast, seed), progress=False)
    draws = null_betas(fit_3pl.theta, fit_3pl.a, fit_3pl.b, depth, sub.responses >= 0, replicates=replicates,
                       seed=seed, guessing=fit_3pl.spec.guessing)
    null = null_correlations_of(draws, fit_3pl.theta)
    summary = null_summary(observed, null)
    consistency = construct_consistency(fit_3pl.theta, theta_hat, fit_3pl.b, frame.loc[stem, "b_hat"])
    out = {f"rs_r_{k}": float(observed[k]) for k in EXCLUSIONS}
    out |= {f"null_r_{k}": float(summary.loc[k, "null mean"]) for k in EXCLUSIONS}
    out |= {f"null_share_{k}": float(summary.loc[k, "share of observed"]) for k in EXCLUSIONS}
    out |= predictive_band(observed["all"], null["all"].to_numpy(float))
    headline = out | {"rs_r_low": low, "rs_r_high": high, **{f"n_{k}": v for k, v in sizes.items()},
                      "n_stem_items": int(stem.sum()), "n_stem_unanswered": int((is_stem & ~stem).sum()),
                      "null_theta_r_2pl": consistency["theta"], "null_b_r_2pl": consistency["b"]}
    return TwoStageNull(headline, betas, theta_hat, draws, np.asarray(fit_3pl.theta, float), matrix.models)
