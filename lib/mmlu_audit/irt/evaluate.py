"""Scoring fits: held-out log-likelihood, paired model comparison, split-cohort
reliability, and parameter recovery against a simulated truth."""

from __future__ import annotations

import numpy as np
import jax.numpy as jnp

from mmlu_audit.data.responses import ResponseMatrix
from mmlu_audit.core.errors import DataError
from mmlu_audit.core.seeds import rng_from
from mmlu_audit.irt.data import _as_response_array, to_signs
from mmlu_audit.irt.engine import fit_irt
from mmlu_audit.irt.models import cell_loglik, linear_predictor
from mmlu_audit.irt.result import IRTFit
from mmlu_audit.irt.spec import IRTSpec

__all__ = ["heldout_cells", "heldout_loglik", "oracle_difficulties", "paired_z", "recovery_stats",
           "split_cohort_reliability"]


def _plugin_eta(fit: IRTFit):
    """η (J, I) at the posterior means of every parameter (plug-in prediction)."""
    ds = fit.dataset
    gammas = {name: float(ds[f"{name}_mean"]) for name in ("gamma0", "gamma1")
              if f"{name}_mean" in ds}
    stem = jnp.asarray(ds["item_stem"].to_numpy().astype(bool)) if "item_stem" in ds else None
    covariate = jnp.asarray(ds["covariate"].to_numpy()) if "covariate" in ds else None
    return linear_predictor(jnp.asarray(fit.theta), jnp.asarray(fit.b), jnp.asarray(fit.a),
                            item_stem=stem, covariate=covariate, **gammas)


def _stored_holdout(fit: IRTFit, shape: tuple[int, int]) -> np.ndarray:
    """The held-out mask recorded in a fit."""
    if "holdout_cells" not in fit.dataset:
        raise DataError("heldout_loglik", "the fit has no held-out cells; pass holdout=")
    mask = np.zeros(shape[0] * shape[1], dtype=bool)
    mask[fit.dataset["holdout_cells"].to_numpy()] = True
    return mask.reshape(shape)


def heldout_loglik(fit: IRTFit, data, holdout: np.ndarray | None = None) -> np.ndarray:
    """Per-cell log-likelihood (nats) of held-out responses under the fit.

    The prediction plugs in posterior means of θ, a, b (and γ), i.e. it scores
    log P(y | E[θ], E[a], E[b]) rather than the posterior predictive; mean-field
    posteriors are tight enough at this size for the difference to be small, and
    both models being compared are scored the same way.

    Parameters
    ----------
    fit : IRTFit
        Fitted with ``holdout=`` so the scored cells were not seen.
    data : ResponseMatrix or ndarray of int8
        The full matrix, including the held-out values.
    holdout : ndarray of bool, optional
        Cells to score; defaults to those stored in ``fit``.

    Returns
    -------
    ndarray of float64, shape (n_cells,)
        In row-major order of the held-out cells; ``.mean()`` is nats per cell.
    """
    responses, _, _ = _as_response_array(data)
    if responses.shape != (fit.dataset.sizes["model"], fit.dataset.sizes["item"]):
        raise DataError("heldout_loglik", f"shape mismatch: data {responses.shape} vs fit "
                        f"{(fit.dataset.sizes['model'], fit.dataset.sizes['item'])}")
    mask = _stored_holdout(fit, responses.shape) if holdout is None else np.asarray(holdout, bool)
    signs = to_signs(responses, exclude=~mask)
    guessing = fit.spec.guessing if fit.spec.has_guessing else 0.0
    cells = np.asarray(cell_loglik(_plugin_eta(fit), jnp.asarray(signs), guessing))
    return cells[signs != 0].astype(np.float64)


def paired_z(loglik_a: np.ndarray, loglik_b: np.ndarray, clusters=None) -> dict:
    """Compare two models on the same held-out cells.

    z = Σ d / (sd(d) √n) with d = loglik_a − loglik_b per cell; positive favours A. With
    ``clusters`` the cells are not taken as independent: the SE of Σ d is the cluster-robust
    √(G/(G − 1) Σ_g e_g²), e_g the sum of (d − d̄) over cluster g (statsmodels' clustered OLS of
    d on a constant). Cells of one model (or one subject) share its estimation error and its
    fit, so the independent-cells z overstates the evidence.

    Parameters
    ----------
    loglik_a, loglik_b : array, shape (n,)
    clusters : array, shape (n,), optional
        A cluster label per cell (its model, or its item's subject).

    Returns
    -------
    dict
        ``n``, ``total_nats`` (Σ d), ``mean_nats`` (per cell), ``sd``, ``z``; with ``clusters``
        also ``n_clusters``.
    """
    a, b = np.asarray(loglik_a, float), np.asarray(loglik_b, float)
    if a.shape != b.shape or a.ndim != 1:
        raise DataError("paired_z", f"need two 1-D arrays over the same cells, got "
                        f"{a.shape} and {b.shape}")
    diff = a - b
    sd = float(diff.std(ddof=1))
    out = {"n": int(diff.size), "total_nats": float(diff.sum()), "mean_nats": float(diff.mean()), "sd": sd}
    if clusters is None:
        se = sd * np.sqrt(diff.size)
    else:
        labels = np.asarray(clusters)
        if labels.shape != diff.shape:
            raise DataError("paired_z",
                            f"clusters needs one label per cell ({diff.size}), got {labels.shape}")
        _, index = np.unique(labels, return_inverse=True)
        residual_sums = np.bincount(index, weights=diff - diff.mean())
        n_clusters = residual_sums.size
        scale = n_clusters / (n_clusters - 1) if n_clusters > 1 else 0.0
        se = float(np.sqrt(scale * np.sum(residual_sums**2)))
        out["n_clusters"] = int(n_clusters)
    out["z"] = float(diff.sum() / se) if se > 0 else float("nan")
    return out


def heldout_cells(data, holdout: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(model index, item index) of each cell :func:`heldout_loglik` scores, in its order."""
    responses, _, _ = _as_response_array(data)
    return np.nonzero(np.asarray(holdout, bool) & (responses != -1))


def _cohort(data, rows: np.ndarray, columns: np.ndarray):
    """The sub-matrix of ``rows`` × ``columns`` (keeping ids when ``data`` is a ResponseMatrix)."""
    if isinstance(data, ResponseMatrix):
        return ResponseMatrix(data.responses[np.ix_(rows, columns)],
                              data.models.iloc[rows].reset_index(drop=True),
                              data.item_ids[columns], data.source, data.simulated, data.description)
    responses, _, _ = _as_response_array(data)
    return responses[np.ix_(rows, columns)]


def _cohort_rows(n_rows: int, seed: int, groups=None) -> list[np.ndarray]:
    """Two disjoint cohorts: random halves of the rows, or of the ``groups`` (whole groups each)."""
    rng = rng_from(seed)
    if groups is None:
        order = rng.permutation(n_rows)
        half = n_rows // 2
        return [np.sort(order[:half]), np.sort(order[half:2 * half])]
    labels = np.asarray(groups)
    if labels.shape != (n_rows,):
        raise DataError("groups", f"needs one label per model ({n_rows}), got shape {labels.shape}")
    _, index, sizes = np.unique(labels, return_inverse=True, return_counts=True)
    if sizes.size < 2:
        raise DataError("groups", "needs at least two distinct groups to split")
    members, totals = ([], []), [0, 0]
    for group in rng.permutation(sizes.size):  # each group joins the smaller cohort so far
        side = int(totals[1] < totals[0])
        members[side].append(group)
        totals[side] += sizes[group]
    return [np.sort(np.flatnonzero(np.isin(index, chosen))) for chosen in members]


def split_cohort_reliability(data, spec: IRTSpec | None = None, seed: int = 0,
                             progress: bool = False, groups=None, **fit_kwargs) -> dict:
    """Calibrate two disjoint halves of the models and correlate their b.

    Parameters
    ----------
    data : ResponseMatrix or ndarray of int8
    spec : IRTSpec, optional
        Used for both cohorts (same SVI seed).
    seed : int
        Seed of the model split.
    groups : array, shape (J,), optional
        A label per model (its distinct checkpoint, or its family): whole groups are split,
        so copies of one checkpoint never sit in both cohorts. Without it the rows are split
        at random, and duplicated checkpoints make the cohorts dependent (r is then inflated).
    **fit_kwargs
        Passed to :func:`fit_irt` (``item_stem``, ``item_covariate``).

    Returns
    -------
    dict
        ``r`` (Pearson of the two difficulty vectors over the items both cohorts
        observed), ``spearman_brown`` (2r / (1 + r)), ``cohort_size`` (the smaller cohort's
        rows), ``split`` (``"groups"`` or ``"rows"``), ``items_used`` (boolean mask; all True
        on a complete matrix), ``b_first``, ``b_second``.
    """
    responses, _, _ = _as_response_array(data)
    cohorts = _cohort_rows(responses.shape[0], seed, groups)
    # an item no model of a cohort answered has no difficulty in that cohort
    used = np.logical_and(*[(responses[rows] != -1).any(axis=0) for rows in cohorts])
    item_kwargs = {k: (None if v is None else np.asarray(v)[used]) for k, v in fit_kwargs.items()}
    fits = [fit_irt(_cohort(data, rows, np.flatnonzero(used)), spec, progress=progress, **item_kwargs)
            for rows in cohorts]
    r = float(np.corrcoef(fits[0].b, fits[1].b)[0, 1])
    return {"r": r, "spearman_brown": 2 * r / (1 + r), "cohort_size": min(len(c) for c in cohorts),
            "split": "rows" if groups is None else "groups", "items_used": used,
            "b_first": fits[0].b, "b_second": fits[1].b}


def recovery_stats(estimate, truth) -> dict:
    """How well an estimate recovers a planted parameter vector.

    Returns
    -------
    dict
        ``r`` (Pearson), ``slope`` and ``intercept`` of the OLS line estimate ~ truth
        (slope < 1 means a compressed scale), ``rmse``.
    """
    est, true = np.asarray(estimate, float).ravel(), np.asarray(truth, float).ravel()
    if est.shape != true.shape:
        raise DataError("recovery_stats", f"shape mismatch: {est.shape} vs {true.shape}")
    slope, intercept = np.polyfit(true, est, 1)
    return {"r": float(np.corrcoef(est, true)[0, 1]), "slope": float(slope),
            "intercept": float(intercept), "rmse": float(np.sqrt(np.mean((est - true) ** 2)))}


def oracle_difficulties(data, theta, a, guessing: float = 0.0, prior_sd: float = 1.0,
                        item_stem=None, iterations: int = 30) -> np.ndarray:
    """Posterior-mode b given the *true* θ and a: the best a calibration can do.

    Fisher scoring per item (vectorised over items) under b ~ N(0, ``prior_sd``²).
    Its correlation with the true b is the ceiling for r(b̂, b) at this matrix size,
    used to set recovery bounds honestly.

    Parameters
    ----------
    data : ResponseMatrix or ndarray of int8
    theta : ndarray, shape (J,) or (J, 2)
        True abilities; with two columns ``item_stem`` picks the one each item loads on.
    a : ndarray, shape (I,)
        True discriminations.
    guessing : float
        Lower asymptote c used to generate the data.
    prior_sd : float
        SD of the (true) difficulty distribution.
    """
    responses, _, _ = _as_response_array(data)
    theta = np.asarray(theta, float)
    ability = (np.where(np.asarray(item_stem, bool)[None, :], theta[:, :1], theta[:, 1:])
               if theta.ndim == 2 else theta[:, None])
    seen = responses != -1
    right = (responses == 1).astype(float)
    a = np.asarray(a, float)
    b = np.zeros(responses.shape[1])
    for _ in range(iterations):
        sig = 1.0 / (1.0 + np.exp(-a * (ability - b)))
        p = np.clip(guessing + (1 - guessing) * sig, 1e-9, 1 - 1e-9)
        slope = (1 - guessing) * sig * (1 - sig)
        weight = np.where(seen, slope / (p * (1 - p)), 0.0)
        score = -a * (weight * (right - p)).sum(0) - b / prior_sd**2
        information = a**2 * (weight * slope).sum(0) + 1 / prior_sd**2
        b = b + score / information
    return b
