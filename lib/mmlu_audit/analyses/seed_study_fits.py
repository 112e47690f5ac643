"""The model side of the validity study: quantities that need a calibration per world seed.

:mod:`mmlu_audit.analyses.seed_study` judges §4's item-side tests on the planted difficulties,
without fitting anything. Two of the book's intervals cannot be judged that way, because their
uncertainty *is* the calibration's:

* λ, the depth trend of the items' log-discriminations that §5.1's interaction γ1 is identified
  by (:func:`mmlu_audit.analyses.modelside.depth_trends`), read from the 3PL (c = 0.25) fit of
  the STEM items as the native-interaction chapter reads it, and from the 2PL fit of all items beside it. The
  simulator draws a independently of depth, so the planted λ is 0 in every world.
* ρ among the working checkpoints, read from the two-dimensional fit as Appendix C reads it
  (:func:`mmlu_audit.irt.ability_correlation`); the simulator plants it exactly.

Each replicate simulates a reduced world — fewer models and a fixed subsample of items per
subject, every subject kept so the clusters stay the book's — fits it three times (2PL, 3PL on
the STEM items, 2-D) and records the intervals. ``make bench`` runs it
(``bench/bench_seed_study_fits.py``); the validity appendix reads the recorded table.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mmlu_audit.analyses.seed_study import monte_carlo_share
from mmlu_audit.analyses.study_schema import StudySchema, check_study
from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.core.seeds import check_seed, seeded

__all__ = ["FIT_STUDY_COLUMNS", "FIT_STUDY_INTERVALS", "FIT_STUDY_SCHEMA", "fit_replicate",
           "fit_study_summary", "load_fit_study", "placed_in_fit_study", "reduced_items"]

#: The intervals the study judges: key → (what it estimates, where its planted value is).
FIT_STUDY_INTERVALS = {
    "lambda_3pl": ("λ from the 3PL (c = 0.25) fit of the STEM items, CR2 95 % interval", "lambda_planted"),
    "lambda_2pl": ("λ from the 2PL fit of all items (STEM items read), CR2 95 % interval", "lambda_planted"),
    "rho_working": ("ρ among the working checkpoints, 2-D fit, 95 % posterior interval", "rho_planted"),
}

#: The columns of a recorded study (``bench/results/seed_study_fits.csv``).
FIT_STUDY_COLUMNS = ("seed", "lambda_planted", "rho_planted",
                     *(f"{key}_{part}" for key in FIT_STUDY_INTERVALS for part in ("estimate", "low",
                                                                                   "high")),
                     "lambda_3pl_p_wcb", "lambda_2pl_p_wcb")


@seeded
def reduced_items(items: pd.DataFrame, per_subject: int, seed: int) -> np.ndarray:
    """Positions of ``per_subject`` items drawn from each subject (all of a smaller one), sorted.

    Parameters
    ----------
    items : DataFrame
        With ``subject``.
    per_subject : int
        Items kept per subject.
    seed : int
        Seed of the draw.
    """
    if per_subject < 2:
        raise ParameterError("per_subject", f"{per_subject} items per subject cannot carry a slope")
    rng = np.random.default_rng(check_seed(seed))
    subjects = items["subject"].to_numpy(str)
    kept = [rng.permutation(np.flatnonzero(subjects == s))[:per_subject] for s in np.unique(subjects)]
    return np.sort(np.concatenate(kept))


def _interval(prefix: str, estimate: float, low: float, high: float) -> dict:
    return {f"{prefix}_estimate": float(estimate), f"{prefix}_low": float(low), f"{prefix}_high": float(high)}


def _lambda(fit_a, fit_b, depth, subjects, seed: int, n_boot: int, prefix: str) -> dict:
    from mmlu_audit.analyses.modelside import depth_trends

    row = depth_trends(fit_a, fit_b, depth, subjects, seed=seed, n_boot=n_boot).loc["lambda"]
    return _interval(prefix, row["estimate"], row["low"],
                     row["high"]) | {f"{prefix}_p_wcb": float(row["p_wcb"])}


@seeded
def fit_replicate(spec, items: pd.DataFrame, covariates: pd.DataFrame, depth, seed: int, n_boot: int = 999,
                  max_steps: int | None = None) -> dict:
    """One world seed: simulate, calibrate three ways, and record λ's and ρ's intervals.

    Parameters
    ----------
    spec : WorldSpec
        The (reduced) world to simulate.
    items : DataFrame
        The world's items (``item_id``, ``subject``, ``question``, ``stem``).
    covariates : DataFrame
        Their covariates, one column per key of ``spec.slopes``, aligned with ``items``.
    depth : array, shape (I,)
        WSCG Depth of the items.
    seed : int
        Seed of the world, the fits and the bootstrap.
    n_boot : int
        Wild bootstrap draws of λ's test.
    max_steps : int, optional
        An SVI step cap for every fit (smoke runs); None keeps the calibration's stopping rule.

    Returns
    -------
    dict
        The values of :data:`FIT_STUDY_COLUMNS`.
    """
    from mmlu_audit.analyses.modelside import column_submatrix, null_spec
    from mmlu_audit.analyses.pipeline import calibration_spec
    from mmlu_audit.core.checkpoints import first_of_each_checkpoint
    from mmlu_audit.irt import ability_correlation, fit_irt
    from mmlu_audit.worlds.calibration import above_floor
    from mmlu_audit.worlds.simulated import simulate_world, working_rho

    world = simulate_world(spec, seed, items, covariates)
    steps = {} if max_steps is None else {"max_steps": max_steps}
    stem = world.truth["stem"]
    depth = np.asarray(depth, float)
    subjects = items["subject"].to_numpy(str)
    matrix = world.matrix
    fit_2pl = fit_irt(matrix, calibration_spec(False, seed, **steps), progress=False)
    fit_3pl = fit_irt(column_submatrix(matrix, stem), null_spec(False, seed).with_(**steps), progress=False)
    fit_2d = fit_irt(matrix, calibration_spec(False, seed, model="2d", **steps), item_stem=stem,
                     progress=False)
    rows = first_of_each_checkpoint(world.truth["checkpoint"]) & above_floor(matrix.responses,
                                                                             matrix.observed)
    rho = ability_correlation(fit_2d, rows, seed=seed)
    return ({"seed": seed, "lambda_planted": 0.0, "rho_planted": working_rho(world.truth)}
            | _lambda(fit_3pl.a, fit_3pl.b, depth[stem], subjects[stem], seed, n_boot, "lambda_3pl")
            | _lambda(fit_2pl.a[stem], fit_2pl.b[stem], depth[stem], subjects[stem], seed, n_boot,
                      "lambda_2pl")
            | _interval("rho_working", rho["median"], rho["low"], rho["high"]))


#: The rules of a recorded study (:func:`~mmlu_audit.analyses.study_schema.check_study`): one row per
#: seed, every field finite, the wild bootstrap p in [0, 1].
FIT_STUDY_SCHEMA = StudySchema(
    what="fit study", key=("seed",), required=FIT_STUDY_COLUMNS, numeric=FIT_STUDY_COLUMNS, integer=("seed",),
    bounds={"seed": (0, np.inf), "lambda_3pl_p_wcb": (0.0, 1.0), "lambda_2pl_p_wcb": (0.0, 1.0)})


def load_fit_study(folder) -> pd.DataFrame:
    """The recorded study in ``folder`` (``seed_study_fits.csv``), checked to be one this module wrote.

    Raises
    ------
    DataError
        If the file is missing (run ``make bench``) or breaks :data:`FIT_STUDY_SCHEMA` (a missing
        column or field, a truncated row, a repeated seed, a p outside [0, 1]).
    """
    from pathlib import Path

    path = Path(folder) / "seed_study_fits.csv"
    if not path.is_file():
        raise DataError(str(path),
                        "no recorded fit study: run `make bench` (bench/bench_seed_study_fits.py)")
    return check_study(pd.read_csv(path), FIT_STUDY_SCHEMA, path)


def _interval_columns(table: pd.DataFrame, key: str):
    """Interval ``key``'s estimates, errors (estimate − planted), bounds and coverage share."""
    planted = table[FIT_STUDY_INTERVALS[key][1]].to_numpy(float)
    estimate = table[f"{key}_estimate"].to_numpy(float)
    low, high = table[f"{key}_low"].to_numpy(float), table[f"{key}_high"].to_numpy(float)
    return estimate, estimate - planted, low, high, monte_carlo_share((low <= planted) & (planted <= high))


def fit_study_summary(table: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """Coverage, bias and spread of each interval of :data:`FIT_STUDY_INTERVALS` over the seeds.

    Returns
    -------
    DataFrame
        One row per interval: ``quantity``, ``coverage`` with its binomial Monte Carlo SE
        ``coverage_mc_se``, ``bias`` (mean estimate − planted) with its ``bias_mc_se``, ``sd``
        (of the estimates), ``mean_width`` and ``n_seeds``; for λ also ``size_wcb`` (the wild
        bootstrap test's rejection rate of the true λ = 0 at ``alpha``) with its MC SE.
    """
    rows = []
    for key, (quantity, _) in FIT_STUDY_INTERVALS.items():
        estimate, error, low, high, covered = _interval_columns(table, key)
        row = {"quantity": quantity, "coverage": covered["rate"], "coverage_mc_se": covered["mc_se"],
               "bias": float(error.mean()), "bias_mc_se": float(error.std(ddof=1) / np.sqrt(error.size)),
               "sd": float(estimate.std(ddof=1)), "mean_width": float((high - low).mean()),
               "n_seeds": covered["n_seeds"], "size_wcb": np.nan, "size_wcb_mc_se": np.nan}
        if f"{key}_p_wcb" in table:
            size = monte_carlo_share(table[f"{key}_p_wcb"].to_numpy(float) < alpha)
            row |= {"size_wcb": size["rate"], "size_wcb_mc_se": size["mc_se"]}
        rows.append(row)
    return pd.DataFrame(rows)


def placed_in_fit_study(table: pd.DataFrame, key: str, error: float) -> dict:
    """One chapter's estimate error (estimate − planted) for interval ``key`` against the study.

    Parameters
    ----------
    table : DataFrame
        A recorded study (:func:`load_fit_study`).
    key : str
        One of :data:`FIT_STUDY_INTERVALS`.
    error : float
        The chapter's estimate minus its planted value.

    Returns
    -------
    dict
        ``coverage`` and ``mc_se`` (the study's coverage of the planted value and its binomial
        Monte Carlo SE), ``n_seeds``, and ``percentile``: the share of the study's seeds whose
        error is at most ``error``.
    """
    if key not in FIT_STUDY_INTERVALS:
        raise ParameterError("key",
                             f"{key!r} is not an interval of the study ({', '.join(FIT_STUDY_INTERVALS)})")
    _, errors, _, _, covered = _interval_columns(table, key)
    return {"coverage": covered["rate"], "mc_se": covered["mc_se"], "n_seeds": covered["n_seeds"],
            "percentile": float(np.mean(errors <= error))}
