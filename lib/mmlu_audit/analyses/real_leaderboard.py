"""The real Open LLM Leaderboard population (4,278 models × 102 selected MMLU items).

Our IRT engine held against metabench's ``mirt`` 3PL on the same matrix, model choice by
held-out log-likelihood, items that discriminate the wrong way, and the de-duplication of
the real model population. The 102 items were *selected* by metabench for information about
the total score, not sampled, and 1,155 of the 4,278 rows repeat an earlier row exactly;
every result here is about that selected set.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from mmlu_audit.core.checkpoints import distinct_checkpoints, family_size_table
from mmlu_audit.core.errors import DataError
from mmlu_audit.core.seeds import seeded
from mmlu_audit.irt import IRTFit, IRTSpec, fit_cached, heldout_loglik, holdout_mask, paired_z
from mmlu_audit.irt.evaluate import recovery_stats

__all__ = ["CANDIDATE_SPECS", "agreement_table", "disagreeing_items", "heldout_comparison",
           "recommended", "wrong_way_items", "population_counts", "near_identical_pairs",
           "score_tracking", "score_band_accuracy"]

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


def _pearson(x, y) -> float:
    return float(np.corrcoef(np.asarray(x, float), np.asarray(y, float))[0, 1])


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
        row["r_theta_score"] = _pearson(fit.theta, score)
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
        row = {"estimate": name, "pearson": _pearson(values, score),
               "spearman": float(spearmanr(values, score)[0])}
        if below is not None:
            keep = score >= below
            row["pearson_above"] = _pearson(values[keep], score[keep])
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
        raise DataError("parameter", f"compare 'a' or 'b', not {parameter!r}")
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
                       fraction: float = 0.05, seed: int = 0,
                       progress: bool = False) -> tuple[pd.DataFrame, dict[str, IRTFit]]:
    """Fit every spec with the same held-out cells and score them (as in Appendix C).

    Parameters
    ----------
    responses : ndarray of int8, shape (J, I)
    specs : mapping of name to IRTSpec
    fraction, seed : float, int
        Share of the observed cells held out, and the seed of that mask.

    Returns
    -------
    table : DataFrame
        Per spec: ``heldout_nats`` (mean per held-out cell), ``gain_vs_first`` (total nats
        over the first spec), the paired ``z`` against the first spec, steps, converged.
    fits : dict of IRTFit
        The fits on the training cells.
    """
    if not specs:
        raise DataError("specs", "no candidate calibration to compare")
    mask = holdout_mask(responses, fraction=fraction, seed=seed)
    fits = {name: fit_cached(responses, spec, holdout=mask, progress=progress)
            for name, spec in specs.items()}
    cells = {name: heldout_loglik(fit, responses) for name, fit in fits.items()}
    first = next(iter(cells.values()))
    rows = []
    for name, values in cells.items():
        versus = paired_z(values, first)
        rows.append({"fit": name, "heldout_nats": float(values.mean()),
                     "gain_vs_first": versus["total_nats"], "z_vs_first": versus["z"],
                     "steps": fits[name].meta["steps"], "converged": bool(fits[name].meta["converged"])})
    return pd.DataFrame(rows), fits


def recommended(comparison: pd.DataFrame) -> str:
    """The candidate with the highest held-out log-likelihood."""
    return str(comparison.loc[comparison["heldout_nats"].idxmax(), "fit"])


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
        Flag when the posterior mean is below −``z`` posterior SDs.

    Raises
    ------
    DataError
        If ``fit`` was not fitted with signed discriminations (every a > 0 by construction).
    """
    if fit.meta["spec"].get("a_prior", "halfnormal") != "normal":
        raise DataError("fit", "a positive-discrimination fit cannot flag wrong-way items; "
                        "fit with IRTSpec(a_prior='normal')")
    a_sd = fit.dataset["a_sd"].to_numpy()
    flagged = fit.a < -z * a_sd
    table = items.loc[flagged].copy()
    table.insert(1, "a_signed", fit.a[flagged])
    table.insert(2, "a_sd", a_sd[flagged])
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
