"""Model-free check of dimensionality: correlating STEM and non-STEM subscale scores.

If one ability drove every item, two subscales built from different partitions
would correlate as highly as their reliabilities allow: their disattenuated
correlation would be 1. Each replicate draws subscales of the same length from
both partitions (so neither is more reliable by having more items), scores every
model on each by its share correct, and corrects the raw correlation for the
subscales' split-half reliabilities (Spearman–Brown).

On a pool of a few dozen real models the replicates' spread (over item draws) is not the
uncertainty that matters: :func:`subscale_model_bootstrap` resamples the models, and
:func:`ability_correlation_bootstrap` does the same for the 2D model's ability correlation.
:func:`two_dimension_headline` computes Appendix C's headline figures (2D ρ, the held-out
gain of 2D over 1D, the subscale correlation) on one population.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mmlu_audit.core.scaling import pearson
from mmlu_audit.core.seeds import check_seed, child_seed, rng_from, seeded
from mmlu_audit.data.responses import ResponseMatrix
from mmlu_audit.core.errors import DataError, ParameterError

__all__ = ["HEADLINE_KEYS", "ability_correlation_bootstrap", "disattenuated", "matched_subscale_correlation",
           "share_correct", "split_half_reliability", "subscale_model_bootstrap", "summarise_replicates",
           "two_dimension_headline"]


def share_correct(responses: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """Each model's share correct over the observed cells of ``columns`` (NaN if none)."""
    block = responses[:, columns]
    seen = (block != -1).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(seen > 0, (block == 1).sum(axis=1) / seen, np.nan)


def split_half_reliability(responses: np.ndarray, columns: np.ndarray, rng: np.random.Generator) -> float:
    """Spearman–Brown reliability 2r / (1 + r) of a random half-split of ``columns``."""
    shuffled = rng.permutation(columns)
    half = shuffled.size // 2
    r = pearson(share_correct(responses, shuffled[:half]), share_correct(responses, shuffled[half:]))
    return 2 * r / (1 + r)


def disattenuated(r: float, reliability_x: float, reliability_y: float) -> float:
    """r / √(ρ_xx ρ_yy): the correlation of the true scores (Spearman 1904)."""
    if reliability_x <= 0 or reliability_y <= 0:
        return float("nan")
    return r / np.sqrt(reliability_x * reliability_y)


def _checked_pools(responses: np.ndarray, item_stem, length: int | None, caller: str):
    """The STEM and non-STEM column pools and the subscale length, validated."""
    stem = np.asarray(item_stem)
    if stem.dtype != bool or stem.shape != (responses.shape[1],):
        raise DataError(caller, f"item_stem must be a boolean vector of length {responses.shape[1]}")
    pools = [np.flatnonzero(stem), np.flatnonzero(~stem)]
    smaller = min(p.size for p in pools)
    length = smaller // 2 if length is None else length
    if not 4 <= length <= smaller:
        raise DataError(caller,
                        f"length must lie in [4, {smaller}] (items of the smaller partition), got {length}")
    return pools, length


def _replicate_scores(responses: np.ndarray, pools, length: int, n_splits: int,
                      rng: np.random.Generator) -> np.ndarray:
    """Per replicate and model: share correct on the STEM and non-STEM subscales and their halves.

    Returns an array of shape (n_splits, 6, J): STEM subscale, non-STEM subscale, then the
    two halves of the STEM subscale and the two of the non-STEM one. The draws are made in
    the order :func:`matched_subscale_correlation` has always made them (both subscales,
    then each one's half-split permutation), so one seed gives the same replicates in both.
    """
    scores = np.empty((n_splits, 6, responses.shape[0]))
    for k in range(n_splits):
        chosen = [rng.choice(pool, length, replace=False) for pool in pools]
        halves = [rng.permutation(c) for c in chosen]
        scores[k, 0], scores[k, 1] = (share_correct(responses, c) for c in chosen)
        for offset, shuffled in zip((2, 4), halves, strict=True):
            half = shuffled.size // 2
            scores[k, offset] = share_correct(responses, shuffled[:half])
            scores[k, offset + 1] = share_correct(responses, shuffled[half:])
    return scores


@seeded
def matched_subscale_correlation(data, item_stem, *, n_splits: int = 200, length: int | None = None,
                                 seed: int) -> pd.DataFrame:
    """Raw and disattenuated STEM / non-STEM subscale correlations over random draws.

    Parameters
    ----------
    data : ResponseMatrix or ndarray of int8, shape (J, I)
    item_stem : array of bool, shape (I,)
    n_splits : int
        Number of replicates.
    length : int, optional
        Items per subscale; defaults to half the smaller partition, so both subscales
        are random samples in every replicate.
    seed : int
        Seed of the item draws and half-splits (required).

    Returns
    -------
    DataFrame, one row per replicate
        ``r`` (raw Pearson over models), ``rel_stem``, ``rel_nonstem`` (split-half,
        Spearman–Brown), ``r_disattenuated``.
    """
    seed = check_seed(seed)
    responses = data.responses if isinstance(data, ResponseMatrix) else np.asarray(data)
    pools, length = _checked_pools(responses, item_stem, length, "matched_subscale_correlation")
    if n_splits < 1:
        raise DataError("matched_subscale_correlation", f"n_splits must be positive, got {n_splits}")
    scores = _replicate_scores(responses, pools, length, n_splits, np.random.default_rng(seed))
    rows = []
    for block in scores:
        r = pearson(block[0], block[1])
        halves = (pearson(block[2], block[3]), pearson(block[4], block[5]))
        rel_stem, rel_non = (2 * h / (1 + h) for h in halves)
        rows.append({"r": r, "rel_stem": rel_stem, "rel_nonstem": rel_non,
                     "r_disattenuated": disattenuated(r, rel_stem, rel_non)})
    return pd.DataFrame(rows)


def _pearson_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """:func:`~mmlu_audit.core.scaling.pearson` along the last axis, for many pairs of rows at once."""
    both = np.isfinite(x) & np.isfinite(y)
    n = both.sum(axis=-1)
    x, y = np.where(both, x, 0.0), np.where(both, y, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mx, my = x.sum(-1, keepdims=True) / n[..., None], y.sum(-1, keepdims=True) / n[..., None]
        dx, dy = np.where(both, x - mx, 0.0), np.where(both, y - my, 0.0)
        sxx, syy = (dx**2).sum(-1), (dy**2).sum(-1)
        r = (dx * dy).sum(-1) / np.sqrt(sxx * syy)
    return np.where((n >= 3) & (sxx > 0) & (syy > 0), r, np.nan)


def _mean_disattenuated(scores: np.ndarray) -> np.ndarray:
    """Mean over replicates (finite ones) of the disattenuated r, for scores of shape (..., S, 6, J)."""
    r = _pearson_rows(scores[..., 0, :], scores[..., 1, :])
    rel = [2 * h / (1 + h) for h in (_pearson_rows(scores[..., 2, :], scores[..., 3, :]),
                                     _pearson_rows(scores[..., 4, :], scores[..., 5, :]))]
    with np.errstate(invalid="ignore", divide="ignore"):
        value = np.where((rel[0] > 0) & (rel[1] > 0), r / np.sqrt(rel[0] * rel[1]), np.nan)
    finite = np.isfinite(value)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(finite, value, 0.0).sum(-1) / finite.sum(-1)


@seeded
def subscale_model_bootstrap(data, item_stem, *, n_splits: int = 200, n_boot: int = 999,
                             groups=None, length: int | None = None, level: float = 0.95,
                             seed: int) -> dict:
    """The mean disattenuated subscale correlation with a bootstrap interval over models.

    The replicates of :func:`matched_subscale_correlation` (same seed, same draws) describe
    how the correlation varies with the choice of items; they say nothing about the models,
    which are few on a real pool and are the unit every score is computed over. This
    resamples the models (or whole ``groups`` of them, e.g. copies of one checkpoint) with
    replacement, keeps each replicate's items fixed, and recomputes the mean over replicates
    of the disattenuated correlation: a percentile interval for that mean under the sampling
    of models.

    Parameters
    ----------
    data : ResponseMatrix or ndarray of int8, shape (J, I)
    item_stem : array of bool, shape (I,)
    n_splits : int
        Replicates (item draws), as in :func:`matched_subscale_correlation`.
    n_boot : int
        Bootstrap resamples of the models.
    groups : array, shape (J,), optional
        A label per model; whole groups are resampled. Default: each model its own group.
    length : int, optional
        Items per subscale (default half the smaller partition).
    level : float
        Coverage of the percentile interval.
    seed : int
        Seed of the item draws (as in :func:`matched_subscale_correlation`); the resamples
        use the stream :func:`~mmlu_audit.core.seeds.child_seed` (seed, 1).

    Returns
    -------
    dict
        ``mean`` (equal to the mean of the finite ``r_disattenuated`` of
        :func:`matched_subscale_correlation` with the same arguments), ``low``, ``high``
        (percentile interval of the resampled means), ``n_boot`` (finite resamples) and
        ``n_groups``.

    Raises
    ------
    DataError
        For a bad ``item_stem``, ``length`` or ``groups``, or fewer than three groups.
    ParameterError
        If ``n_splits`` or ``n_boot`` is below 1 or ``level`` is outside (0, 1).
    """
    seed = check_seed(seed)
    responses = data.responses if isinstance(data, ResponseMatrix) else np.asarray(data)
    pools, length = _checked_pools(responses, item_stem, length, "subscale_model_bootstrap")
    if n_splits < 1 or n_boot < 1 or not 0 < level < 1:
        raise ParameterError("n_boot", f"needs n_splits, n_boot ≥ 1 and level in (0, 1), got {n_splits}, "
                             f"{n_boot}, {level}")
    labels = np.arange(responses.shape[0]) if groups is None else np.asarray(groups)
    if labels.shape != (responses.shape[0],):
        raise DataError("groups", f"needs one label per model ({responses.shape[0]}), got {labels.shape}")
    _, index = np.unique(labels, return_inverse=True)
    members = [np.flatnonzero(index == g) for g in range(index.max() + 1)]
    if len(members) < 3:
        raise DataError("groups", f"needs at least three groups to resample, got {len(members)}")
    scores = _replicate_scores(responses, pools, length, n_splits, np.random.default_rng(seed))
    rng = rng_from(child_seed(seed, 1))
    means = np.empty(n_boot)
    for k in range(n_boot):
        rows = np.concatenate([members[g] for g in rng.integers(0, len(members), len(members))])
        means[k] = _mean_disattenuated(scores[:, :, rows])
    means = means[np.isfinite(means)]
    tail = (1 - level) / 2
    return {"mean": float(_mean_disattenuated(scores)), "low": float(np.quantile(means, tail)),
            "high": float(np.quantile(means, 1 - tail)), "n_boot": int(means.size), "n_groups": len(members)}


def summarise_replicates(values, level: float = 0.95) -> dict:
    """Mean, percentile interval and the share of replicates at or above 1."""
    v = np.asarray(values, float)
    v = v[np.isfinite(v)]
    if v.size == 0:
        raise DataError("summarise_replicates", "no finite replicate")
    tail = (1 - level) / 2
    return {"mean": float(v.mean()), "low": float(np.quantile(v, tail)),
            "high": float(np.quantile(v, 1 - tail)), "share_at_least_one": float((v >= 1).mean()),
            "n": int(v.size)}


@seeded
def ability_correlation_bootstrap(fit, rows, *, seed: int, n_draws: int = 2000, level: float = 0.95) -> dict:
    """The correlation of a 2D fit's abilities over ``rows``, with the models resampled in every draw.

    :func:`~mmlu_audit.irt.ability_correlation` draws the chosen rows' abilities from the fitted
    guide, so its interval is their estimation error: it treats these models as the population.
    On a pool of a few dozen models the models are better read as a sample, and the honest
    unit of resampling is the model: each of ``n_draws`` draws here takes the abilities from
    the guide (mean-field normals at ``theta_mean``, ``theta_sd``) *and* resamples the rows
    with replacement, so the interval carries both the estimation error and the sampling of
    models. Pass one row per distinct checkpoint, so that copies are not resampled apart.

    Parameters
    ----------
    fit : IRTFit
        A ``"2d"`` fit (``theta`` of shape (J, 2), ``theta_sd`` in its dataset).
    rows : array of bool, shape (J,)
        The rows to correlate (e.g. one per distinct working checkpoint).
    seed : int
    n_draws : int
    level : float

    Returns
    -------
    dict
        ``median``, ``low``, ``high`` of the draws' correlations and ``n`` (rows used).

    Raises
    ------
    DataError
        If the fit is not two-dimensional, or ``rows`` is not one flag per model selecting
        at least three.
    ParameterError
        If ``n_draws`` < 2 or ``level`` is outside (0, 1).
    """
    from mmlu_audit.irt import ability_correlation

    out = ability_correlation(fit, rows, seed=seed, n_draws=n_draws, level=level, resample_rows=True)
    return {key: out[key] for key in ("median", "low", "high", "n")}


#: The keys :func:`two_dimension_headline` returns, named as Appendix C (chap-appendix-c) glues them.
HEADLINE_KEYS = ("rho_2d", "rho_2d_low", "rho_2d_high", "rho_2d_mass_above_0_99", "n_distinct_models",
                 "rho_2d_working", "rho_working_low", "rho_working_high", "rho_working_boot_low",
                 "rho_working_boot_high", "n_working_distinct",
                 "n_heldout", "heldout_gain_nats", "heldout_gain_per_cell", "heldout_paired_z",
                 "heldout_z_by_model", "heldout_n_models", "heldout_z_by_subject", "heldout_n_subjects",
                 "subscale_r", "subscale_r_ci_low", "subscale_r_ci_high", "subscale_share_at_least_one",
                 "subscale_r_boot_low", "subscale_r_boot_high")


@seeded
def two_dimension_headline(matrix: ResponseMatrix, item_stem, item_subject, spec, *, seed: int,
                           holdout_fraction: float = 0.05, n_splits: int = 200, n_boot: int = 999,
                           n_draws: int = 2000) -> dict:
    """Appendix C's headline figures on one population, computed as its chapter (chap-appendix-c) does.

    Three checks of one ability against two (STEM, non-STEM):

    * the latent correlation ρ of the between-item 2D 2PL (posterior mean), with the Fisher
      interval and exceedance of 0.99 over the distinct checkpoints (one unit per model, not
      per cell); and the correlation of the working checkpoints' own abilities (accuracy at
      least :data:`~mmlu_audit.worlds.calibration.CHANCE_CUTOFF`), with its posterior interval
      (:func:`~mmlu_audit.irt.ability_correlation`: these models as the population) and its
      posterior × model-bootstrap interval (:func:`ability_correlation_bootstrap`: the models
      as a sample);
    * the held-out log-likelihood gain of the 2D over the 1D model on a random
      ``holdout_fraction`` of the observed cells, with the paired z over cells taken as
      independent and the cluster-robust z by model and by the item's subject
      (:func:`~mmlu_audit.irt.paired_z`);
    * the matched-length subscale correlation (:func:`matched_subscale_correlation`): mean,
      the 2.5–97.5 % range of its replicates (item draws), the share of replicates at or above
      1, and a bootstrap interval of the mean over distinct checkpoints
      (:func:`subscale_model_bootstrap`).

    The fits go through :func:`~mmlu_audit.irt.fit_cached`, so a rerun reads them from disk.

    Parameters
    ----------
    matrix : ResponseMatrix
        The population (missing cells allowed; items nobody answered are left out, as in
        :func:`~mmlu_audit.analyses.pipeline.analysis_inputs`).
    item_stem : array of bool, shape (I,)
    item_subject : array, shape (I,)
        Each item's subject (the item-side clusters of the held-out z).
    spec : IRTSpec
        The 1D calibration; the 2D fits use ``spec.with_(model="2d")``.
    seed : int
        Seed of the held-out cells, the subscale draws and every resample.
    holdout_fraction : float
        Share of the observed cells held out.
    n_splits : int
        Subscale replicates.
    n_boot : int
        Model resamples of the subscale correlation.
    n_draws : int
        Draws of the working checkpoints' ability correlation (both intervals).

    Returns
    -------
    dict
        Keyed by :data:`HEADLINE_KEYS`.

    Raises
    ------
    DataError
        If ``item_stem`` or ``item_subject`` is not one value per item.
    """
    from mmlu_audit.core.checkpoints import distinct_checkpoints, first_of_each_checkpoint
    from mmlu_audit.inference import fisher_exceedance, fisher_interval
    from mmlu_audit.irt import (ability_correlation, fit_cached, heldout_cells, heldout_loglik, holdout_mask,
                                paired_z)
    from mmlu_audit.worlds.calibration import above_floor

    stem = np.asarray(item_stem)
    subjects = np.asarray(item_subject)
    if subjects.shape != (matrix.shape[1],) or stem.shape != (matrix.shape[1],) or stem.dtype != bool:
        raise DataError("item_subject", f"needs one subject and one bool STEM flag per item "
                        f"({matrix.shape[1]}), got {subjects.shape} and {stem.shape} ({stem.dtype})")
    answered = matrix.observed.any(axis=0)
    if not answered.all():
        matrix, stem, subjects = matrix.take(columns=answered), stem[answered], subjects[answered]
    spec_2d = spec.with_(model="2d")
    checkpoint = (matrix.models["checkpoint"].to_numpy() if "checkpoint" in matrix.models
                  else distinct_checkpoints(matrix.responses, matrix.models["model_id"]))
    n_distinct = int(np.unique(checkpoint).size)

    fit_2d = fit_cached(matrix, spec_2d, item_stem=stem, progress=False)
    rho = fit_2d.scalar("rho")["mean"]
    low, high = fisher_interval(rho, n_distinct)
    working = first_of_each_checkpoint(checkpoint) & above_floor(matrix.responses, matrix.observed)
    posterior = ability_correlation(fit_2d, working, seed=seed, n_draws=n_draws)
    resampled = ability_correlation_bootstrap(fit_2d, working, seed=seed, n_draws=n_draws)

    mask = holdout_mask(matrix, holdout_fraction, seed=seed)
    held = {"1D": fit_cached(matrix, spec, holdout=mask, progress=False),
            "2D": fit_cached(matrix, spec_2d, item_stem=stem, holdout=mask, progress=False)}
    loglik = {name: heldout_loglik(fit, matrix) for name, fit in held.items()}
    cell_model, cell_item = heldout_cells(matrix, mask)
    plain = paired_z(loglik["2D"], loglik["1D"])
    by_model = paired_z(loglik["2D"], loglik["1D"], clusters=cell_model)
    by_subject = paired_z(loglik["2D"], loglik["1D"], clusters=subjects[cell_item])

    replicates = matched_subscale_correlation(matrix, stem, n_splits=n_splits, seed=seed)
    summary = summarise_replicates(replicates["r_disattenuated"])
    boot = subscale_model_bootstrap(matrix, stem, n_splits=n_splits, n_boot=n_boot, groups=checkpoint,
                                    seed=seed)
    return {"rho_2d": rho, "rho_2d_low": low, "rho_2d_high": high,
            "rho_2d_mass_above_0_99": fisher_exceedance(rho, n_distinct, 0.99),
            "n_distinct_models": n_distinct,
            "rho_2d_working": posterior["median"], "rho_working_low": posterior["low"],
            "rho_working_high": posterior["high"], "rho_working_boot_low": resampled["low"],
            "rho_working_boot_high": resampled["high"], "n_working_distinct": posterior["n"],
            "n_heldout": plain["n"], "heldout_gain_nats": plain["total_nats"],
            "heldout_gain_per_cell": plain["mean_nats"], "heldout_paired_z": plain["z"],
            "heldout_z_by_model": by_model["z"], "heldout_n_models": by_model["n_clusters"],
            "heldout_z_by_subject": by_subject["z"], "heldout_n_subjects": by_subject["n_clusters"],
            "subscale_r": summary["mean"], "subscale_r_ci_low": summary["low"],
            "subscale_r_ci_high": summary["high"],
            "subscale_share_at_least_one": summary["share_at_least_one"],
            "subscale_r_boot_low": boot["low"], "subscale_r_boot_high": boot["high"]}
