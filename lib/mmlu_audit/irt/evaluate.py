"""Scoring fits: held-out log-likelihood, paired model comparison, split-cohort
reliability, parameter recovery against a simulated truth, the observed
share correct behind a fitted item characteristic curve, and the items a signed fit says
discriminate the wrong way."""

from __future__ import annotations

import numpy as np
import jax.numpy as jnp
import pandas as pd

from mmlu_audit.data.responses import ResponseMatrix
from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.core.seeds import rng_from, seeded
from mmlu_audit.irt.data import _as_response_array, to_signs
from mmlu_audit.irt.engine import fit_irt
from mmlu_audit.irt.models import cell_loglik, linear_predictor
from mmlu_audit.irt.result import IRTFit
from mmlu_audit.irt.spec import IRTSpec

__all__ = ["ability_correlation", "heldout_cells", "heldout_loglik", "icc_bins", "items_at_quantiles",
           "oracle_difficulties",
           "paired_z", "paired_z_two_way",
           "parameter_ranges", "recovery_slope", "recovery_stats", "recovery_table",
           "signed_discrimination", "split_cohort_reliability"]


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
        variance, out["n_clusters"] = _clustered_variance(diff, clusters)
        se = float(np.sqrt(variance))
    out["z"] = float(diff.sum() / se) if se > 0 else float("nan")
    return out


def _clustered_variance(diff: np.ndarray, clusters) -> tuple[float, int]:
    """Cluster-robust variance of Σ ``diff`` (G/(G − 1) Σ_g e_g²) and the number of clusters G."""
    labels = np.asarray(clusters)
    if labels.shape != diff.shape:
        raise DataError("paired_z", f"clusters needs one label per cell ({diff.size}), got {labels.shape}")
    _, index = np.unique(labels, return_inverse=True)
    residual_sums = np.bincount(index, weights=diff - diff.mean())
    n_clusters = residual_sums.size
    scale = n_clusters / (n_clusters - 1) if n_clusters > 1 else 0.0
    return float(scale * np.sum(residual_sums**2)), int(n_clusters)


def paired_z_two_way(loglik_a: np.ndarray, loglik_b: np.ndarray, rows, columns) -> dict:
    """:func:`paired_z` with the cells clustered two ways at once (models and items).

    A held-out cell shares its model's estimation error with the model's other cells and its
    item's with the item's other cells, so neither one-way z is enough. The variance of Σ d is
    Cameron, Gelbach and Miller's (2011): V_rows + V_columns − V_both, each one-way
    :func:`paired_z` variance (``both``: clusters of cells sharing row and column label, e.g. one
    checkpoint listed twice). When that difference is not positive (possible in small samples)
    the larger one-way variance is used, and ``fallback`` says so.

    Parameters
    ----------
    loglik_a, loglik_b : array, shape (n,)
    rows, columns : array, shape (n,)
        Each cell's row cluster (its model's checkpoint) and column cluster (its item).

    Returns
    -------
    dict
        ``n``, ``total_nats``, ``mean_nats``, ``sd``, ``z`` (two-way), ``z_rows``, ``z_columns``,
        ``n_row_clusters``, ``n_column_clusters``, ``fallback``.
    """
    out = paired_z(loglik_a, loglik_b)
    diff = np.asarray(loglik_a, float) - np.asarray(loglik_b, float)
    v_rows, g_rows = _clustered_variance(diff, rows)
    v_columns, g_columns = _clustered_variance(diff, columns)
    pairs = np.stack([np.asarray(rows), np.asarray(columns)], axis=1)
    v_both, _ = _clustered_variance(diff, np.unique(pairs, axis=0, return_inverse=True)[1].ravel())
    variance = v_rows + v_columns - v_both
    fallback = not variance > 0
    variance = max(v_rows, v_columns) if fallback else variance
    total = out["total_nats"]

    def z_of(v: float) -> float:
        return float(total / np.sqrt(v)) if v > 0 else float("nan")

    return out | {"z": z_of(variance), "z_rows": z_of(v_rows), "z_columns": z_of(v_columns),
                  "n_row_clusters": g_rows, "n_column_clusters": g_columns, "fallback": bool(fallback)}


def heldout_cells(data, holdout: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(model index, item index) of each cell :func:`heldout_loglik` scores, in its order."""
    responses, _, _ = _as_response_array(data)
    return np.nonzero(np.asarray(holdout, bool) & (responses != -1))


def _cohort(data, rows: np.ndarray, columns: np.ndarray):
    """The sub-matrix of ``rows`` × ``columns`` (keeping ids when ``data`` is a ResponseMatrix)."""
    if isinstance(data, ResponseMatrix):
        return data.take(rows, columns)
    responses, _, _ = _as_response_array(data)
    return responses[np.ix_(rows, columns)]


def _cohort_rows(n_rows: int, seed: int, groups=None, strata=None) -> list[np.ndarray]:
    """Two disjoint cohorts: random halves of the rows, or of the ``groups`` (whole groups each).

    With ``strata`` the groups (each row its own group when ``groups`` is None) are halved
    within each stratum, so each cohort holds about half of every stratum's rows.
    """
    rng = rng_from(seed)
    if groups is None and strata is None:
        order = rng.permutation(n_rows)
        half = n_rows // 2
        return [np.sort(order[:half]), np.sort(order[half:2 * half])]
    labels = np.arange(n_rows) if groups is None else np.asarray(groups)
    if labels.shape != (n_rows,):
        raise DataError("groups", f"needs one label per model ({n_rows}), got shape {labels.shape}")
    _, index, sizes = np.unique(labels, return_inverse=True, return_counts=True)
    if sizes.size < 2:
        raise DataError("groups", "needs at least two distinct groups to split")
    if strata is None:
        members, totals = ([], []), [0, 0]
        for group in rng.permutation(sizes.size):  # each group joins the smaller cohort so far
            side = int(totals[1] < totals[0])
            members[side].append(group)
            totals[side] += sizes[group]
        return [np.sort(np.flatnonzero(np.isin(index, chosen))) for chosen in members]
    return _stratified_cohorts(index, sizes, strata, rng)


def _stratified_cohorts(index: np.ndarray, sizes: np.ndarray, strata, rng) -> list[np.ndarray]:
    """Halve the groups (row → group ``index``, ``sizes`` rows each) within each stratum.

    Inside a stratum each group, in random order, joins the cohort with fewer of the
    stratum's rows so far; a tie goes to the cohort with fewer rows overall (a coin when
    those tie too), so odd strata do not all favour one cohort.
    """
    layers = np.asarray(strata)
    if layers.shape != index.shape:
        raise DataError("strata", f"needs one label per model ({index.size}), got shape {layers.shape}")
    _, layer_index = np.unique(layers, return_inverse=True)
    group_layer = np.full(sizes.size, -1)
    group_layer[index] = layer_index
    if not np.array_equal(group_layer[index], layer_index):
        raise DataError("strata", "a group spans two strata; every group must lie inside one stratum")
    members, totals = ([], []), [0, 0]
    for layer in range(layer_index.max() + 1):
        local = [0, 0]
        for group in rng.permutation(np.flatnonzero(group_layer == layer)):
            if local[0] != local[1]:
                side = int(local[1] < local[0])
            elif totals[0] != totals[1]:
                side = int(totals[1] < totals[0])
            else:
                side = int(rng.integers(2))
            members[side].append(group)
            local[side] += sizes[group]
            totals[side] += sizes[group]
    if not (members[0] and members[1]):
        raise DataError("strata", "leaves one cohort empty; it needs at least two groups in all")
    return [np.sort(np.flatnonzero(np.isin(index, chosen))) for chosen in members]


@seeded
def split_cohort_reliability(data, spec: IRTSpec | None = None, seed: int = 0,
                             progress: bool = False, groups=None, strata=None, **fit_kwargs) -> dict:
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
    strata : array, shape (J,), optional
        A label per model (its population, e.g. HELM or OpenCompass): the groups (the rows
        when ``groups`` is None) are halved within each stratum, so each cohort holds about
        half of every stratum and a difference between strata cannot masquerade as (or hide)
        unreliability. Every group must lie inside one stratum.
    **fit_kwargs
        Passed to :func:`fit_irt` (``item_stem``, ``item_covariate``).

    Returns
    -------
    dict
        ``r`` (Pearson of the two difficulty vectors over the items both cohorts
        observed), ``spearman_brown`` (2r / (1 + r)), ``cohort_size`` (the smaller cohort's
        rows), ``second_size``, ``split`` (``"groups"`` or ``"rows"``), ``n_groups`` (None for
        a split by rows), ``n_strata`` (None without ``strata``), ``items_used`` (boolean mask;
        all True on a complete matrix), ``b_first``, ``b_second``.

    Raises
    ------
    DataError
        If ``groups`` or ``strata`` is not one label per model, a group spans two strata, or
        there are fewer than two groups.
    """
    responses, _, _ = _as_response_array(data)
    cohorts = _cohort_rows(responses.shape[0], seed, groups, strata)
    # an item no model of a cohort answered has no difficulty in that cohort
    used = np.logical_and(*[(responses[rows] != -1).any(axis=0) for rows in cohorts])
    item_kwargs = {k: (None if v is None else np.asarray(v)[used]) for k, v in fit_kwargs.items()}
    fits = [fit_irt(_cohort(data, rows, np.flatnonzero(used)), spec, progress=progress, **item_kwargs)
            for rows in cohorts]
    r = float(np.corrcoef(fits[0].b, fits[1].b)[0, 1])
    return {"r": r, "spearman_brown": 2 * r / (1 + r), "cohort_size": len(cohorts[0]),
            "second_size": len(cohorts[1]),
            "split": "rows" if groups is None else "groups",
            "n_groups": None if groups is None else len(np.unique(groups)),
            "n_strata": None if strata is None else len(np.unique(strata)), "items_used": used,
            "b_first": fits[0].b, "b_second": fits[1].b}


def _paired(estimate, truth, caller: str) -> tuple[np.ndarray, np.ndarray]:
    est, true = np.asarray(estimate, float).ravel(), np.asarray(truth, float).ravel()
    if est.shape != true.shape:
        raise DataError(caller, f"shape mismatch: {est.shape} vs {true.shape}")
    if not (np.isfinite(est).all() and np.isfinite(true).all()):
        raise DataError(caller, "estimate or truth contains NaN or infinite values")
    return est, true


def _line(est: np.ndarray, true: np.ndarray) -> tuple[float, float]:
    """Slope and intercept of the OLS line est ~ true; NaN where the truth does not vary."""
    if true.size < 2 or np.ptp(true) == 0:
        return float("nan"), float("nan")
    slope, intercept = np.polyfit(true, est, 1)
    return float(slope), float(intercept)


def recovery_slope(estimate, truth) -> float:
    """OLS slope of an estimate on the planted truth (NaN without a truth, or one that does not vary).

    The paper's N(0, 1) prior on b shrinks the estimates toward zero, so slopes of
    ``b_hat`` on the indicators estimate the planted slope × this factor.

    Parameters
    ----------
    estimate : array-like, shape (n,)
    truth : array-like, shape (n,), or None
        None for a real source (nothing planted).

    Raises
    ------
    DataError
        If the shapes differ or a value is not finite.
    """
    if truth is None:
        return float("nan")
    return _line(*_paired(estimate, truth, "recovery_slope"))[0]


def recovery_stats(estimate, truth) -> dict:
    """How well an estimate recovers a planted parameter vector.

    Returns
    -------
    dict
        ``r`` (Pearson), ``slope`` and ``intercept`` of the OLS line estimate ~ truth
        (:func:`recovery_slope`; slope < 1 means a compressed scale), ``rmse``.
    """
    est, true = _paired(estimate, truth, "recovery_stats")
    slope, intercept = _line(est, true)
    return {"r": float(np.corrcoef(est, true)[0, 1]), "slope": slope,
            "intercept": intercept, "rmse": float(np.sqrt(np.mean((est - true) ** 2)))}


def recovery_table(fits, truth: dict, models=None) -> pd.DataFrame:
    """Recovery of the planted b and θ by each of several fits.

    Parameters
    ----------
    fits : mapping of str to IRTFit
        Label → fit of the same simulated matrix.
    truth : dict
        The world's planted ``b`` (items) and ``theta`` (models × dimensions or models).
    models : array of bool, optional
        The models (rows) over which θ recovery is measured, e.g. the working models of a
        world with near-chance ones (:func:`mmlu_audit.worlds.simulated.working_models`),
        whose planted θ no fit can recover; every model when omitted. The fits themselves
        are whatever was passed (typically over all models).

    Returns
    -------
    DataFrame
        Index ``fit`` (the labels); columns ``r(b̂, b)`` and ``slope`` from
        :func:`recovery_stats` of b, and ``r(θ̂, θ)``, the correlation of θ̂ with the
        models' planted ability (averaged over dimensions when there are several) over
        ``models``.

    Raises
    ------
    DataError
        If ``models`` is not one flag per model, or selects fewer than three.
    """
    theta = np.asarray(truth["theta"], float)
    theta = theta.mean(axis=1) if theta.ndim == 2 else theta
    keep = np.ones(len(theta), bool) if models is None else np.asarray(models)
    if keep.dtype != bool or keep.shape != theta.shape:
        raise DataError("models", f"needs one bool per model ({len(theta)}), got {keep.dtype} {keep.shape}")
    if keep.sum() < 3:
        raise DataError("models", f"selects {int(keep.sum())} models; θ recovery needs at least three")
    rows = []
    for label, fit in fits.items():
        stats = recovery_stats(fit.b, truth["b"])
        rows.append({"fit": label, "r(b̂, b)": stats["r"], "slope": stats["slope"],
                     "r(θ̂, θ)": np.corrcoef(np.asarray(fit.theta)[keep], theta[keep])[0, 1]})
    return pd.DataFrame(rows).set_index("fit")


@seeded
def ability_correlation(fit: IRTFit, rows, *, seed: int, n_draws: int = 2000, level: float = 0.95,
                        resample_rows: bool = False) -> dict:
    """The correlation of a two-dimensional fit's abilities over chosen rows, with its posterior interval.

    The correlation is of these rows' own abilities (a realised quantity, such as a simulated
    world's planted ρ among its working checkpoints), not of a population they were drawn
    from, so its uncertainty is the abilities' estimation error, not the sampling of models:
    the interval is the central ``level`` range of the correlation over ``n_draws`` joint
    draws of the rows' abilities from the fitted guide (mean-field normals at ``theta_mean``,
    ``theta_sd``). Being mean-field, the draws leave out each model's posterior dependence
    between its two abilities.

    Parameters
    ----------
    fit : IRTFit
        A ``"2d"`` fit (``theta`` of shape (J, 2)).
    rows : array of bool, shape (J,)
        The rows to correlate (e.g. one per distinct working checkpoint).
    resample_rows : bool
        Also resample the rows with replacement in every draw (a bootstrap over models), for
        rows read as a sample of models rather than the population itself.
    seed : int
    n_draws : int
    level : float

    Returns
    -------
    dict
        ``median``, ``low`` and ``high`` of the draws' correlations (the median is the estimate
        of the rows' correlation), ``r`` (the correlation of the posterior-mean abilities, which
        the prior's shrinkage pulls towards the prior's own correlation, so it is shown, not used
        as the estimate), ``n`` (rows used).

    Raises
    ------
    DataError
        If the fit is not two-dimensional, or ``rows`` is not one flag per model selecting
        at least three.
    ParameterError
        If ``n_draws`` < 2 or ``level`` is outside (0, 1).
    """
    mean = np.asarray(fit.theta, float)
    sd = np.asarray(fit.dataset["theta_sd"], float)
    if mean.ndim != 2 or mean.shape[1] != 2:
        raise DataError("fit", f"needs a two-dimensional fit, got abilities of shape {mean.shape}")
    keep = np.asarray(rows)
    if keep.dtype != bool or keep.shape != (mean.shape[0],) or keep.sum() < 3:
        raise DataError("rows", f"needs one bool per model ({mean.shape[0]}) selecting at least three")
    if n_draws < 2 or not 0 < level < 1:
        raise ParameterError("n_draws", f"needs n_draws ≥ 2 and level in (0, 1), got {n_draws}, {level}")
    mean, sd = mean[keep], sd[keep]
    rng = rng_from(seed)
    if resample_rows:
        pick = rng.integers(0, mean.shape[0], (n_draws, mean.shape[0]))
        mean_draws, sd_draws = mean[pick], sd[pick]
    else:
        mean_draws, sd_draws = mean, sd
    draws = mean_draws + sd_draws * rng.standard_normal((n_draws, *mean.shape))
    centred = draws - draws.mean(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):  # a resample of one repeated row has no r
        r = (centred[..., 0] * centred[..., 1]).sum(axis=1) / np.sqrt(
            (centred[..., 0] ** 2).sum(axis=1) * (centred[..., 1] ** 2).sum(axis=1))
    r = r[np.isfinite(r)]
    tail = (1 - level) / 2
    return {"r": float(np.corrcoef(mean.T)[0, 1]), "median": float(np.median(r)),
            "low": float(np.quantile(r, tail)), "high": float(np.quantile(r, 1 - tail)), "n": int(keep.sum())}


def parameter_ranges(b_hat, theta) -> dict[str, float]:
    """Range and SD of the calibrated difficulties (NaN ignored) and abilities.

    Returns ``b_min``, ``b_max``, ``b_sd``, ``theta_min``, ``theta_max``, ``theta_sd``
    (population SDs, ddof 0).
    """
    b_hat, theta = np.asarray(b_hat, float), np.asarray(theta, float)
    return {"b_min": np.nanmin(b_hat), "b_max": np.nanmax(b_hat), "b_sd": np.nanstd(b_hat),
            "theta_min": theta.min(), "theta_max": theta.max(), "theta_sd": theta.std()}


def items_at_quantiles(b_hat, quantiles=(0.05, 0.35, 0.65, 0.95)) -> np.ndarray:
    """Column indices of the items at the given quantiles of the finite ``b_hat``.

    The item at quantile q is the ``int(q (n − 1))``-th smallest of the ``n`` finite
    estimates (an order statistic, so always a real item).
    """
    b_hat = np.asarray(b_hat, float)
    quantiles = np.asarray(quantiles, float)
    if not np.all((quantiles >= 0) & (quantiles <= 1)):
        raise ParameterError("quantiles", f"must lie in [0, 1], got {quantiles.tolist()}")
    finite = np.flatnonzero(np.isfinite(b_hat))
    if finite.size == 0:
        raise DataError("b_hat", "has no finite estimate")
    order = finite[np.argsort(b_hat[finite])]
    return order[(quantiles * (len(order) - 1)).astype(int)]


def icc_bins(theta, correct, observed, n_bins: int = 10) -> pd.DataFrame:
    """Observed share correct of one item among models binned by ability.

    Bins are the ``n_bins`` quantile bins of ``theta`` over all models; only the models
    that answered the item (``observed``) are counted.

    Parameters
    ----------
    theta : array-like, shape (J,)
        Ability estimates of all models.
    correct : array-like, shape (J,)
        The item's responses (1 correct; other values are read only where observed).
    observed : array-like of bool, shape (J,)

    Returns
    -------
    DataFrame
        Index: bin (0 … n_bins − 1, empty bins left out); columns ``centre`` (mean θ of
        the counted models), ``share`` (share correct) and ``n`` (models counted).
    """
    theta, correct = np.asarray(theta, float), np.asarray(correct)
    observed = np.asarray(observed, bool)
    if not theta.shape == correct.shape == observed.shape:
        raise DataError("icc_bins", f"shapes differ: {theta.shape}, {correct.shape}, {observed.shape}")
    if n_bins < 1:
        raise ParameterError("n_bins", f"must be at least 1, got {n_bins}")
    edges = np.quantile(theta, np.linspace(0, 1, n_bins + 1))
    which = np.clip(np.digitize(theta[observed], edges) - 1, 0, n_bins - 1)
    groups = pd.DataFrame({"centre": theta[observed], "share": correct[observed]}).groupby(which)
    return groups.mean().assign(n=groups.size()).rename_axis("bin")


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


def signed_discrimination(fit: IRTFit, z: float = 2.0) -> pd.DataFrame:
    """Each item's signed a, its posterior SD, the probability that a < 0, and the wrong-way flag.

    Parameters
    ----------
    fit : IRTFit
        Fitted with :class:`IRTSpec` ``a_prior="normal"`` (the guide of a is then normal).
    z : float
        Flag when the posterior mean is below −``z`` posterior SDs, i.e. when
        ``p_negative`` > Φ(z) (0.977 for z = 2).

    Returns
    -------
    DataFrame
        One row per item in column order: ``a_signed``, ``a_sd``, ``p_negative``
        (Φ(−a / SD) under the mean-field guide, which understates the spread: a probability
        conditional on everything else the fit estimated) and ``flagged``.

    Raises
    ------
    DataError
        If ``fit`` was not fitted with signed discriminations (every a > 0 by construction).
    """
    from scipy.stats import norm  # scipy on first use, as in the engine

    if fit.meta["spec"].get("a_prior", "halfnormal") != "normal":
        raise DataError("fit", "a positive-discrimination fit cannot flag wrong-way items; "
                        "fit with IRTSpec(a_prior='normal')")
    a, a_sd = np.asarray(fit.a, float), fit.dataset["a_sd"].to_numpy().astype(float)
    return pd.DataFrame({"a_signed": a, "a_sd": a_sd, "p_negative": norm.cdf(-a / a_sd),
                         "flagged": a < -z * a_sd})
