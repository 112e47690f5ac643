"""The real Open LLM Leaderboard population (4,278 models × 102 selected MMLU items).

Our IRT engine held against metabench's ``mirt`` 3PL on the same matrix, model choice by
held-out log-likelihood, items that discriminate the wrong way, and the de-duplication of
the real model population. The 102 items were *selected* by metabench for information about
the total score, not sampled, and 1,155 of the 4,278 rows repeat an earlier row exactly;
every result here is about that selected set.
"""

from __future__ import annotations

from collections.abc import Mapping

import warnings

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from mmlu_audit.analyses.redux import item_rest_correlation
from mmlu_audit.analyses.regression import contrast_terms, design_arrays, interaction_fit
from mmlu_audit.core.checkpoints import distinct_checkpoints, family_size_table
from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.core.scaling import pearson
from mmlu_audit.core.seeds import rng_from, seeded
from mmlu_audit.features import INDICATORS
from mmlu_audit.inference import homogeneity_test, permutation_test, wild_cluster_bootstrap
from mmlu_audit.irt import (IRTFit, IRTSpec, fit_cached, heldout_cells, heldout_loglik, holdout_mask,
                            paired_z, paired_z_two_way)
from mmlu_audit.irt.evaluate import recovery_stats, signed_discrimination

__all__ = ["CANDIDATE_SPECS", "agreement_table", "disagreeing_items", "heldout_comparison",
           "recommended", "tracking_gap", "wrong_way_items", "population_counts",
           "near_identical_pairs",
           "score_tracking", "score_band_accuracy", "SIMULATOR_TOLERANCES", "RECALIBRATION_LEVERS",
           "matrix_statistics", "simulator_comparison", "calibration_comparison", "FULL_SCORE_ROWS",
           "recalibration_notes", "item_frame",
           "design_clusters", "item_side_tests"]

#: The candidate calibrations of the chapter: the paper's 2PL, its priors widened or learned,
#: and the 3PL with a fixed guessing floor c (0.25 = chance on four options; lower floors because
#: mirt's fitted c on these items has median 0.11).
CANDIDATE_SPECS: dict[str, IRTSpec] = {
    "2PL, paper priors": IRTSpec(model="2pl"),
    "2PL, a ~ HalfNormal(10)": IRTSpec(model="2pl", a_scale=10.0),
    "2PL, hierarchical": IRTSpec(model="2pl", b_prior="hierarchical"),
    "3PL c = 0.25": IRTSpec(model="3pl", guessing=0.25),
    "3PL c = 0.20": IRTSpec(model="3pl", guessing=0.20),
    "3PL c = 0.10": IRTSpec(model="3pl", guessing=0.10),
}


def agreement_table(fits: Mapping[str, IRTFit], reference_items: pd.DataFrame,
                    reference_theta, score) -> pd.DataFrame:
    """Each fit's a, b, θ against a reference calibration, and θ against an external score.

    Parameters
    ----------
    fits : mapping of name to IRTFit
        Fits on the same matrix, columns in ``reference_items`` order.
    reference_items : DataFrame
        Reference ``a`` and ``b`` per item (e.g. mirt's, converted to the 3PL form).
    reference_theta : array, shape (J,)
        Reference abilities.
    score : array, shape (J,)
        The external criterion (the full-MMLU leaderboard score).

    Returns
    -------
    DataFrame
        One row per fit: Pearson r and OLS slope (ours ~ reference) for a, b and θ,
        Spearman ρ for a and b, r(θ, score), steps and convergence.
    """
    rows = []
    for name, fit in fits.items():
        row = {"fit": name}
        for label, ours, ref in (("a", fit.a, reference_items["a"]), ("b", fit.b, reference_items["b"]),
                                 ("theta", fit.theta, reference_theta)):
            stats = recovery_stats(ours, ref)
            row[f"r_{label}"], row[f"slope_{label}"] = stats["r"], stats["slope"]
            if label != "theta":
                row[f"spearman_{label}"] = float(spearmanr(ours, ref)[0])
        row["r_theta_score"] = pearson(fit.theta, score)
        row["steps"], row["converged"] = fit.meta["steps"], bool(fit.meta["converged"])
        rows.append(row)
    return pd.DataFrame(rows)


def score_tracking(estimates: Mapping[str, np.ndarray], score, below=None) -> pd.DataFrame:
    """Pearson and Spearman of each ability estimate with an external score.

    ``below`` (float, optional) adds the Pearson r among the models whose score is at least
    ``below`` (e.g. above the chance region), to show where an estimate loses the score.
    """
    score = np.asarray(score, float)
    rows = []
    for name, values in estimates.items():
        values = np.asarray(values, float)
        row = {"estimate": name, "pearson": pearson(values, score),
               "spearman": float(spearmanr(values, score)[0])}
        if below is not None:
            keep = score >= below
            row["pearson_above"] = pearson(values[keep], score[keep])
        rows.append(row)
    return pd.DataFrame(rows)


def disagreeing_items(fit: IRTFit, reference_items: pd.DataFrame, n: int = 8,
                      parameter: str = "a") -> pd.DataFrame:
    """The ``n`` items whose rank on ``parameter`` differs most between ``fit`` and the reference.

    Returns
    -------
    DataFrame
        ``item_id``, ours, the reference's, both ranks (1 = largest) and the rank gap.
    """
    if parameter not in ("a", "b"):
        raise ParameterError("parameter", f"compare 'a' or 'b', not {parameter!r}")
    ours = np.asarray(getattr(fit, parameter), float)
    ref = reference_items[parameter].to_numpy(float)
    table = pd.DataFrame({"item_id": reference_items["item_id"].to_numpy(), "ours": ours,
                          "reference": ref,
                          "rank_ours": pd.Series(ours).rank(ascending=False).to_numpy(),
                          "rank_reference": pd.Series(ref).rank(ascending=False).to_numpy()})
    table["rank_gap"] = (table["rank_ours"] - table["rank_reference"]).abs()
    return table.sort_values("rank_gap", ascending=False).head(n).reset_index(drop=True)


@seeded
def heldout_comparison(responses: np.ndarray, specs: Mapping[str, IRTSpec], *,
                       fraction: float = 0.05, seed: int = 0, checkpoints: np.ndarray | None = None,
                       progress: bool = False) -> tuple[pd.DataFrame, dict[str, IRTFit]]:
    """Fit every spec with the same held-out cells and score them (as in Appendix C).

    Parameters
    ----------
    responses : ndarray of int8, shape (J, I)
    specs : mapping of name to IRTSpec
    fraction, seed : float, int
        Share of the observed cells held out, and the seed of that mask.
    checkpoints : ndarray of int, shape (J,), optional
        Each row's checkpoint (:func:`mmlu_audit.core.checkpoints.distinct_checkpoints`): rows of
        one checkpoint form one cluster. Default: every row its own.

    Returns
    -------
    table : DataFrame
        Per spec: ``heldout_nats`` (mean per held-out cell), ``gain_vs_first`` (total nats
        over the first spec), the paired z against the first spec with the cells taken as
        independent (``z_vs_first``), clustered by checkpoint (``z_checkpoint``), by item
        (``z_item``) and both ways at once (``z_two_way``,
        :func:`~mmlu_audit.irt.paired_z_two_way`: the one that respects the data), steps, converged.
        Then the same comparison on two halves of the checkpoints (seeded): ``choose_nats``, the
        mean on the half :func:`recommended` chooses with, and on the other half ``score_nats``,
        ``score_gain`` and ``score_z_two_way``, so the chosen model's advantage is measured on
        cells that played no part in choosing it.
    fits : dict of IRTFit
        The fits on the training cells.
    """
    if not specs:
        raise ParameterError("specs", "no candidate calibration to compare")
    mask = holdout_mask(responses, fraction=fraction, seed=seed)
    fits = {name: fit_cached(responses, spec, holdout=mask, progress=progress)
            for name, spec in specs.items()}
    cells = {name: heldout_loglik(fit, responses) for name, fit in fits.items()}
    first = next(iter(cells.values()))
    row_of, item_of = heldout_cells(responses, mask)
    row_clusters = np.arange(responses.shape[0]) if checkpoints is None else np.asarray(checkpoints)
    checkpoint_of = row_clusters[row_of]
    chooses = _choosing_half(row_clusters, seed)[checkpoint_of]
    rows = []
    for name, values in cells.items():
        versus = paired_z(values, first)
        clustered = paired_z_two_way(values, first, checkpoint_of, item_of)
        scored = paired_z_two_way(values[~chooses], first[~chooses], checkpoint_of[~chooses],
                                  item_of[~chooses])
        rows.append({"fit": name, "heldout_nats": float(values.mean()),
                     "gain_vs_first": versus["total_nats"], "z_vs_first": versus["z"],
                     "z_checkpoint": clustered["z_rows"], "z_item": clustered["z_columns"],
                     "z_two_way": clustered["z"],
                     "choose_nats": float(values[chooses].mean()),
                     "score_nats": float(values[~chooses].mean()),
                     "score_gain": scored["total_nats"], "score_z_two_way": scored["z"],
                     "steps": fits[name].meta["steps"], "converged": bool(fits[name].meta["converged"])})
    return pd.DataFrame(rows), fits


def _choosing_half(row_clusters: np.ndarray, seed: int) -> np.ndarray:
    """Per row, whether its checkpoint is in the half that chooses the model (seeded, whole checkpoints)."""
    labels = np.unique(row_clusters)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(
        np.random.SeedSequence(seed).spawn(2)[1])  # a stream apart from the held-out mask's
    chosen = rng.permutation(labels)[: labels.size // 2]
    return np.isin(row_clusters, chosen)


def recommended(comparison: pd.DataFrame) -> str:
    """The candidate with the highest held-out log-likelihood on the choosing half of the checkpoints.

    A table without that half (``choose_nats``) is judged on all its held-out cells.
    """
    column = "choose_nats" if "choose_nats" in comparison else "heldout_nats"
    return str(comparison.loc[comparison[column].idxmax(), "fit"])


@seeded
def tracking_gap(first, second, score, groups, *, seed: int = 0, n_boot: int = 999) -> dict:
    """How much better ``first`` tracks ``score`` than ``second`` does, over distinct checkpoints.

    Copies of one checkpoint would count one model's agreement several times, so each checkpoint
    enters once (its first row), and the interval resamples checkpoints (a paired percentile
    bootstrap of the difference of the two Pearson correlations).

    Parameters
    ----------
    first, second : array, shape (J,)
        Two ability estimates of the same models.
    score : array, shape (J,)
        The external score they should track.
    groups : array, shape (J,)
        Each model's checkpoint (:func:`mmlu_audit.core.checkpoints.distinct_checkpoints`).
    seed, n_boot : int

    Returns
    -------
    dict
        ``difference`` (r(first, score) − r(second, score)), ``low`` and ``high`` (95 %),
        ``n_distinct``, ``n_boot``.
    """
    if n_boot < 1:
        raise ParameterError("n_boot", f"need at least one bootstrap draw, got {n_boot}")
    keep = np.unique(np.asarray(groups), return_index=True)[1]
    a, b, s = (np.asarray(values, float)[keep] for values in (first, second, score))
    rng = rng_from(seed)
    draws = np.empty(n_boot)
    for k in range(n_boot):
        index = rng.integers(0, keep.size, keep.size)
        draws[k] = pearson(a[index], s[index]) - pearson(b[index], s[index])
    low, high = np.quantile(draws, [0.025, 0.975])
    return {"difference": pearson(a, s) - pearson(b, s), "low": float(low), "high": float(high),
            "n_distinct": int(keep.size), "n_boot": int(n_boot)}


def wrong_way_items(fit: IRTFit, items: pd.DataFrame, redux: pd.DataFrame | None = None,
                    z: float = 2.0) -> pd.DataFrame:
    """Items a signed-discrimination fit (``a_prior="normal"``) puts at a < 0 with confidence.

    Parameters
    ----------
    fit : IRTFit
        Fitted with :class:`IRTSpec` ``a_prior="normal"``.
    items : DataFrame
        ``item_id`` in column order (plus any columns to carry, e.g. mirt's ``a``).
    redux : DataFrame, optional
        MMLU-Redux labels (``item_id``, ``error_type``) to set beside each flagged item.
    z : float
        Flag when the posterior mean is below −``z`` posterior SDs
        (:func:`~mmlu_audit.irt.evaluate.signed_discrimination`).

    Raises
    ------
    DataError
        If ``fit`` was not fitted with signed discriminations (every a > 0 by construction).
    """
    signed = signed_discrimination(fit, z)
    flagged = signed["flagged"].to_numpy()
    table = items.loc[flagged].copy()
    table.insert(1, "a_signed", signed["a_signed"].to_numpy()[flagged])
    table.insert(2, "a_sd", signed["a_sd"].to_numpy()[flagged])
    if redux is not None:
        labels = redux.set_index("item_id")["error_type"]
        table["redux"] = table["item_id"].map(labels).fillna("not reviewed")
    return table.sort_values("a_signed").reset_index(drop=True)


def population_counts(responses: np.ndarray, models: pd.DataFrame) -> dict:
    """The paper's de-duplication on a real model table: checkpoints, family × size, shares.

    Returns
    -------
    dict
        ``n_models``, ``n_repeated_rows`` (rows equal to an earlier row), ``n_distinct``
        (:func:`~mmlu_audit.core.checkpoints.distinct_checkpoints` on responses and ids),
        ``n_groups`` (known family × size groups of the distinct models), ``share_moe`` and,
        where the table has it, ``share_merged_name`` ("merge" in the name; the leaderboard's
        own merged flag carries no information).
    """
    ids = models["model_id"].astype(str).tolist()
    labels = distinct_checkpoints(responses, ids)
    first = ~pd.Series(labels).duplicated().to_numpy()
    groups = family_size_table(np.asarray(ids)[first])
    names = pd.Series(ids).str.lower()
    return {"n_models": len(ids),
            "n_repeated_rows": int(pd.DataFrame(responses).duplicated().sum()),
            "n_distinct": int(labels.max() + 1),
            "n_groups": int(groups.loc[groups["group"] != "unknown", "group"].nunique()),
            "share_unknown_group": float((groups["group"] == "unknown").mean()),
            "share_moe": float(models["moe"].astype(bool).mean()),
            "share_merged_name": float(names.str.contains("merge").mean())}


def near_identical_pairs(score, theta, tolerance: float = 0.1, labels=None) -> pd.DataFrame:
    """Pairs of models within ``tolerance`` points of each other's score, and their θ distance.

    Models are paired with their neighbour in score order, so each model is in at most two
    pairs. With ``labels`` (e.g. :func:`~mmlu_audit.core.checkpoints.distinct_checkpoints`),
    pairs of one checkpoint are dropped: their θ are equal by construction and say nothing
    about the noise between different models of the same score.

    Returns
    -------
    DataFrame
        ``first``, ``second`` (row positions), ``score_gap``, ``theta_gap``.
    """
    score, theta = np.asarray(score, float), np.asarray(theta, float)
    order = np.argsort(score, kind="stable")
    gaps = np.diff(score[order])
    close = np.flatnonzero(gaps <= tolerance)
    first, second = order[close], order[close + 1]
    if labels is not None:
        labels = np.asarray(labels)
        keep = labels[first] != labels[second]
        first, second, close = first[keep], second[keep], close[keep]
    return pd.DataFrame({"first": first, "second": second, "score_gap": gaps[close],
                         "theta_gap": np.abs(theta[first] - theta[second])})


def score_band_accuracy(responses: np.ndarray, score, columns, bands: int = 20) -> pd.DataFrame:
    """Accuracy on chosen items within equal-count bands of an external score.

    A wrong-way item shows falling accuracy across the bands; a non-monotone one (a bump where a
    family of near-identical fine-tunes sits) cannot be fitted by any monotone item model.

    Returns
    -------
    DataFrame
        One row per chosen column, one column per band (1 = lowest scores).
    """
    band = pd.qcut(np.asarray(score, float), bands, labels=False, duplicates="drop") + 1
    picked = np.asarray(responses)[:, list(columns)].astype(float)
    picked[picked < 0] = np.nan
    return pd.DataFrame(picked).groupby(band).mean().T.set_axis(list(columns))


#: Per row of :func:`simulator_comparison`: the largest |simulated − real| still called "within
#: tolerance", in the row's own units (accuracies and correlations as fractions, a and b in
#: logits). Set before seeing the comparison, at about what would move a chapter's conclusion:
#: five points of accuracy, 0.05 of a correlation, a quarter logit of a median a or of b's SD.
SIMULATOR_TOLERANCES: dict[str, float] = {
    "median model accuracy": 0.05,
    "SD of model accuracy": 0.03,
    "5th percentile of model accuracy (guessing floor)": 0.05,
    "95th percentile of model accuracy": 0.05,
    "mean item p-value": 0.05,
    "SD of item p-values": 0.05,
    "median point-biserial (item–rest)": 0.05,
    "median fitted a": 0.25,
    "SD of fitted b": 0.25,
    "r(STEM score, non-STEM score)": 0.05,
}

#: Per row: what a recalibration of :class:`~mmlu_audit.worlds.simulated.WorldSpec` would change
#: when the simulated value is (too high, too low).
RECALIBRATION_LEVERS: dict[str, tuple[str, str]] = {
    "median model accuracy": ("make the items harder for its models (b centred above the models' "
                              "mean θ; WorldSpec centres b at 0)",
                              "make the items easier for its models (b centred below the models' mean θ)"),
    "SD of model accuracy": ("narrow the models' spread (lower discriminations or a smaller "
                             "between-group share group_share)",
                             "widen the models' spread (higher discriminations, a larger spread of θ)"),
    "5th percentile of model accuracy (guessing floor)": (
        "lower the guessing floor (guessing) or add more weak models",
        "raise the guessing floor (guessing) or remove weak models"),
    "95th percentile of model accuracy": ("make the strongest models weaker (fewer models far above "
                                          "the items)", "add stronger models (a longer upper tail of θ)"),
    "mean item p-value": ("make the items harder (shift b up)", "make the items easier (shift b down)"),
    "SD of item p-values": ("narrow the difficulties (lower b_sd)", "widen the difficulties (raise b_sd)"),
    "median point-biserial (item–rest)": ("lower the discriminations (a smaller mean a)",
                                          "raise the discriminations (a larger mean a)"),
    "median fitted a": ("lower the discriminations (a smaller mean a)",
                        "raise the discriminations (a larger mean a; WorldSpec draws log a around 0)"),
    "SD of fitted b": ("narrow the difficulties (lower b_sd)", "widen the difficulties (raise b_sd)"),
    "r(STEM score, non-STEM score)": ("lower the ability correlation rho",
                                      "raise the ability correlation rho"),
}


def matrix_statistics(responses: np.ndarray, stem, fit: IRTFit) -> dict[str, float]:
    """The summaries of one response matrix that :func:`simulator_comparison` sets side by side.

    Parameters
    ----------
    responses : ndarray, shape (J, I)
        0/1 with −1 for an unseen cell.
    stem : array of bool, shape (I,)
        Which items are STEM.
    fit : IRTFit
        A calibration of ``responses`` (its ``a`` and ``b``).

    Returns
    -------
    dict
        One value per key of :data:`SIMULATOR_TOLERANCES`. Accuracies are over seen cells;
        the STEM / non-STEM correlation is Pearson's between the models' proportions correct on
        the two partitions.
    """
    y = np.asarray(responses)
    stem = np.asarray(stem, bool)
    if y.ndim != 2 or stem.shape != (y.shape[1],) or not stem.any() or stem.all():
        raise DataError("stem", "need one STEM flag per item and items in both partitions")
    right = np.where(y >= 0, (y == 1).astype(float), np.nan)
    accuracy = np.nanmean(right, axis=1)
    p_values = np.nanmean(right, axis=0)
    return {
        "median model accuracy": float(np.median(accuracy)),
        "SD of model accuracy": float(np.std(accuracy)),
        "5th percentile of model accuracy (guessing floor)": float(np.quantile(accuracy, 0.05)),
        "95th percentile of model accuracy": float(np.quantile(accuracy, 0.95)),
        "mean item p-value": float(p_values.mean()),
        "SD of item p-values": float(p_values.std()),
        "median point-biserial (item–rest)": float(np.nanmedian(item_rest_correlation(y))),
        "median fitted a": float(np.median(fit.a)),
        "SD of fitted b": float(np.std(fit.b)),
        "r(STEM score, non-STEM score)": pearson(np.nanmean(right[:, stem], axis=1),
                                                  np.nanmean(right[:, ~stem], axis=1)),
    }


def simulator_comparison(simulated: Mapping[str, float], real: Mapping[str, float],
                         tolerances: Mapping[str, float] | None = None) -> pd.DataFrame:
    """Simulated beside real, row by row, with each row's tolerance and verdict.

    Parameters
    ----------
    simulated, real : mapping
        :func:`matrix_statistics` of the simulated and the real matrix.
    tolerances : mapping, optional
        Row → largest |simulated − real| within tolerance; defaults to
        :data:`SIMULATOR_TOLERANCES`.

    Returns
    -------
    DataFrame
        Index: the rows; columns ``simulated``, ``real``, ``difference`` (simulated − real),
        ``tolerance`` and ``verdict`` ("within tolerance" or "off").

    Raises
    ------
    DataError
        If a row has no value on either side or no tolerance.
    """
    tolerances = dict(SIMULATOR_TOLERANCES if tolerances is None else tolerances)
    missing = sorted(set(tolerances) ^ set(simulated) | set(tolerances) ^ set(real))
    if missing:
        raise DataError("tolerances", f"rows without a value or a tolerance: {missing}")
    table = pd.DataFrame({"simulated": pd.Series(simulated, dtype=float),
                          "real": pd.Series(real, dtype=float)}).loc[list(tolerances)]
    table["difference"] = table["simulated"] - table["real"]
    table["tolerance"] = pd.Series(tolerances, dtype=float)
    table["verdict"] = np.where(table["difference"].abs() <= table["tolerance"], "within tolerance", "off")
    return table


#: The rows of :func:`~mmlu_audit.worlds.calibration.accuracy_statistics` compared on the full
#: MMLU (the simulated world's 14,042 items against the real leaderboard scores), each with the
#: row of :data:`SIMULATOR_TOLERANCES` whose tolerance it takes.
FULL_SCORE_ROWS: dict[str, str] = {
    "median": "median model accuracy",
    "SD": "SD of model accuracy",
    "5th percentile": "5th percentile of model accuracy (guessing floor)",
    "95th percentile": "95th percentile of model accuracy",
}


def calibration_comparison(simulated: Mapping[str, Mapping[str, float]], real: Mapping[str, float],
                           tolerances: Mapping[str, float] | None = None) -> pd.DataFrame:
    """:func:`simulator_comparison` for several calibrations of the world, side by side.

    Parameters
    ----------
    simulated : mapping of calibration name to statistics
        One :func:`matrix_statistics` (or any mapping with the rows of ``tolerances``) per
        calibration.
    real : mapping
        The real matrix's statistics.
    tolerances : mapping, optional
        As in :func:`simulator_comparison`.

    Returns
    -------
    DataFrame
        Index: the rows; columns ``real``, ``tolerance``, then per calibration
        ``<name>: simulated`` and ``<name>: verdict``.
    """
    if not simulated:
        raise ParameterError("simulated", "no calibration to compare")
    tables = {name: simulator_comparison(stats, real, tolerances) for name, stats in simulated.items()}
    first = next(iter(tables.values()))
    out = first[["real", "tolerance"]].copy()
    for name, table in tables.items():
        out[f"{name}: simulated"] = table["simulated"]
        out[f"{name}: verdict"] = table["verdict"]
    return out


def recalibration_notes(table: pd.DataFrame,
                        levers: Mapping[str, tuple[str, str]] | None = None) -> list[str]:
    """One sentence per row of a :func:`simulator_comparison` that is off: what recalibrating would change.

    ``levers`` (row → (when simulated is too high, when too low)) defaults to
    :data:`RECALIBRATION_LEVERS`; a row that is off without a lever raises :class:`DataError`.
    """
    levers = RECALIBRATION_LEVERS if levers is None else levers
    notes = []
    for row, values in table.loc[table["verdict"] == "off"].iterrows():
        if row not in levers:
            raise DataError("levers", f"no recalibration lever for the row {row!r}")
        high = values["difference"] > 0
        notes.append(f"{row}: simulated {values['simulated']:.3f} against real {values['real']:.3f} "
                     f"({'higher' if high else 'lower'} by {abs(values['difference']):.3f}, tolerance "
                     f"{values['tolerance']:.2f}); a recalibration would {levers[row][0 if high else 1]}.")
    return notes


def item_frame(items: pd.DataFrame, features: pd.DataFrame, b) -> pd.DataFrame:
    """The item frame of the item-side regression: the items' subject and STEM flag, the nine
    indicators (from a feature table indexed by ``item_id``) and ``b_hat`` (in ``items`` order)."""
    b = np.asarray(b, float)
    if b.shape != (len(items),):
        raise DataError("b", f"{b.shape[0] if b.ndim else 0} difficulties for {len(items)} items")
    missing = items.loc[~items["item_id"].isin(features.index), "item_id"]
    if len(missing):
        raise DataError("features", f"no indicators for {len(missing)} item(s), e.g. {missing.iloc[0]!r}")
    frame = items[["item_id", "subject", "stem"]].reset_index(drop=True)
    frame = frame.join(features.loc[frame["item_id"], list(INDICATORS)].reset_index(drop=True))
    return frame.assign(b_hat=b)


def design_clusters(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The subjects' sizes and STEM flags of an item frame (for the power worlds)."""
    groups = frame.groupby("subject")["stem"]
    if (groups.nunique() > 1).any():
        raise DataError("stem", "a subject has both STEM and non-STEM items")
    return groups.size().to_numpy(), groups.first().to_numpy(bool)


@seeded
def item_side_tests(frame: pd.DataFrame, *, seed: int, n_boot: int, n_perm: int) -> pd.DataFrame:
    """W(9) for STEM vs non-STEM slopes on an item frame, each test reported as what it gave.

    HC3 χ² (ignores the subjects), CR2 χ² and HTZ (subject clusters), the null-imposed wild
    cluster bootstrap with CR2 inside, and the subject-block permutation of the LR statistic.
    A test the design does not allow (:func:`~mmlu_audit.inference.homogeneity_test` refuses a
    partition in one subject; HTZ is undefined with too few clusters) is a row with ``status``
    set to the reason and NaN statistics (the wild bootstrap inherits the CR2 refusal, as its
    statistic is that Wald; a permutation whose relabelled design cannot be fitted is refused
    too); a warning of the cluster-robust test is kept in ``status``.

    Returns
    -------
    DataFrame
        Columns ``test``, ``stat``, ``p``, ``status`` ("ok", "warned: …" or "not testable: …").
    """
    X, y, stem, subjects = design_arrays(frame)
    rows = [_test_row("HC3 chi2", lambda: homogeneity_test(y, X, stem, subjects, kind="HC3").iloc[0])]
    for form in ("chi2", "HTZ"):
        rows.append(_test_row(f"CR2 {form}", lambda form=form: homogeneity_test(
            y, X, stem, subjects, kind="CR2", forms=[form]).iloc[0]))
    fit = interaction_fit(y, X, stem)
    rng = np.random.default_rng(seed)
    if rows[1]["status"].startswith("not testable"):  # the bootstrap's statistic is that CR2 Wald
        rows.append({"test": "WCR(CR2)", "stat": np.nan, "p": np.nan, "status": rows[1]["status"]})
    else:
        rows.append(_test_row("WCR(CR2)", lambda: _as_row(wild_cluster_bootstrap(
            fit, contrast_terms(X.columns), clusters=subjects, seed=rng, kind="CR2", n_draws=n_boot))))
    rows.append(_test_row("block permutation (LR)", lambda: _as_row(permutation_test(
        y, X.to_numpy(), stem, subjects, seed=rng, scheme="block", statistic="lr", n_perm=n_perm))))
    return pd.DataFrame(rows)


def _as_row(result) -> dict:
    return {"stat": float(result.stat), "p": float(result.p)}


def _test_row(name: str, run) -> dict:
    """Run one test; a DataError (the design does not allow it) and warnings become its status."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RuntimeWarning)
        try:
            result = run()
        except DataError as error:
            return {"test": name, "stat": np.nan, "p": np.nan, "status": f"not testable: {error}"}
        except np.linalg.LinAlgError as error:  # a permuted design with a partition too small to fit
            return {"test": name, "stat": np.nan, "p": np.nan,
                    "status": f"not testable: a resampled design is singular ({error})"}
    status = "; ".join(f"warned: {w.message}" for w in caught) or "ok"
    return {"test": name, "stat": float(result["stat"]), "p": float(result["p"]), "status": status}
