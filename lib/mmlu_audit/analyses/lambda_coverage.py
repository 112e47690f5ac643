"""λ's interval where λ is not zero: coverage, bias and power over many world seeds.

λ is the depth trend of the items' log-discriminations that §5.1's interaction γ1 is identified
by (:func:`mmlu_audit.analyses.modelside.depth_trends`), read from the 3PL (c = 0.25) fit of the
answered STEM items. The default simulator draws a independently of depth, so the fit study
(:mod:`mmlu_audit.analyses.seed_study_fits`) can only judge λ's interval at λ = 0, where its
coverage is one minus its size. Here the world plants

    log a_i = log a_median + e_i + λ·W_i        on the items λ is read on,

with W the depth standardised over exactly those items (population SD), as
:func:`~mmlu_audit.analyses.modelside.depth_trends` standardises it; the other items keep their a.
So the planted λ is the coefficient the regression estimates, and λ = 0 gives today's worlds bit
for bit.

The size the paper reports. The paper's interaction model has η = a_i(θ − b_i) + γ0·W_i + γ1·θ·W_i,
so an item's effective discrimination is a_i + γ1·W_i, and log(a_i + γ1·W_i) = log a_i +
γ1·W_i / a_i to first order in γ1. With e independent of W, the slope of the effective log a on W
is therefore γ1·E[1/a] = γ1·exp(σ²/2) / a_median for the world's log-normal a (σ = ``a_log_sd``).
:func:`paper_lambda` maps the paper's γ1 (§5.1) to λ this way, on the world's own a scale; the
paper reports no item-side λ of its own.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from mmlu_audit.analyses.seed_study import monte_carlo_share
from mmlu_audit.analyses.study_schema import StudySchema, check_study
from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.core.scaling import standardise
from mmlu_audit.core.seeds import check_seed, seeded

__all__ = ["LAMBDA_COLUMNS", "LAMBDA_SCHEMA", "coverage_record", "lambda_replicate", "lambda_setting",
           "lambda_summary", "load_lambda_coverage", "paper_lambda", "planted_log_a_shift"]

#: The columns of a recorded study (``bench/results/lambda_coverage.csv``), after the runner's
#: ``seed``: the design and λ setting, the planted λ, its CR2 interval and the two tests of λ = 0.
LAMBDA_COLUMNS = ("design", "lambda_setting", "seed", "lambda_planted", "lambda_estimate", "lambda_low",
                  "lambda_high", "lambda_se", "lambda_df", "lambda_p_cr2", "lambda_p_wcb", "n_items",
                  "n_clusters", "fit_steps")


def paper_lambda(spec) -> float:
    """The paper's γ1 (§5.1) as a depth trend of log a in a world of ``spec``: γ1·exp(σ²/2) / a_median.

    Parameters
    ----------
    spec : WorldSpec
        Gives the median discrimination ``a_median`` and the SD σ of log a (``a_log_sd``).
    """
    from mmlu_audit.core.paper import paper_value

    return float(paper_value("gamma1") * np.exp(spec.a_log_sd**2 / 2) / spec.a_median)


def lambda_setting(setting: str, spec) -> float:
    """The λ a ``--lambda`` setting names: a number, ``"paper"`` (:func:`paper_lambda`) or ``"paper/K"``.

    Raises
    ------
    ParameterError
        If the setting is none of these, or not finite.
    """
    text = str(setting).strip()
    if text == "paper" or text.startswith("paper/"):
        divisor = 1.0 if text == "paper" else _number(text.removeprefix("paper/"), setting)
        if divisor == 0:
            raise ParameterError("lambda", f"{setting!r} divides by zero")
        return paper_lambda(spec) / divisor
    return _number(text, setting)


def _number(text: str, setting) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ParameterError("lambda", f"{setting!r} is not a number, 'paper' or 'paper/K'") from None
    if not np.isfinite(value):
        raise ParameterError("lambda", f"{setting!r} is not finite")
    return value


def planted_log_a_shift(lam: float, depth, read_on) -> np.ndarray:
    """The log-a shift that plants depth trend ``lam`` on the items ``read_on``: λ·W there, 0 elsewhere.

    Parameters
    ----------
    lam : float
        λ, per SD of depth.
    depth : array, shape (I,)
        WSCG Depth of every item.
    read_on : array of bool, shape (I,)
        The items λ is read on; W is their depth standardised over them (population SD).

    Raises
    ------
    DataError
        If the arrays differ in length, a depth read on is not finite or fewer than two of the
        items read on differ in depth.
    """
    depth, read_on = np.asarray(depth, float), np.asarray(read_on, bool)
    if depth.shape != read_on.shape or depth.ndim != 1:
        raise DataError("depth", "depth and read_on need one value per item")
    w = depth[read_on]
    if not np.isfinite(w).all() or w.size < 2 or np.ptp(w) == 0:
        raise DataError("depth", "the items read on need finite depths that vary")
    shift = np.zeros(depth.size)
    shift[read_on] = float(lam) * standardise(w)
    return shift


@seeded
def lambda_replicate(design, lam: float, seed: int, n_boot: int = 999, max_steps: int | None = None) -> dict:
    """One world of ``design`` with planted λ = ``lam``: the 3PL of the STEM items and λ's interval.

    Parameters
    ----------
    design : StudyDesign
        Where the world is simulated (:func:`mmlu_audit.analyses.study_designs.study_design`).
    lam : float
        The planted λ (per SD of depth over the items read on).
    seed : int
        Seed of the world, the 3PL fit and the wild bootstrap.
    n_boot : int
        Wild cluster bootstrap draws of the test of λ = 0.
    max_steps : int, optional
        An SVI step cap (smoke runs); None keeps the calibration's stopping rule.

    Returns
    -------
    dict
        ``lambda_planted``; λ's estimate, CR2 95 % interval, SE and Bell–McCaffrey df; the CR2 and
        wild-bootstrap p of λ = 0; the items and subjects read and the fit's SVI steps.
    """
    from mmlu_audit.analyses.modelside import column_submatrix, depth_trends, null_spec
    from mmlu_audit.irt import fit_irt

    seed = check_seed(seed)
    depth, read_on = design.features["wscg_depth"].to_numpy(float), design.read_on
    world = design.simulate(seed, planted_log_a_shift(lam, depth, read_on))
    spec = null_spec(False, seed) if max_steps is None else null_spec(False, seed).with_(max_steps=max_steps)
    fit = fit_irt(column_submatrix(world.matrix, read_on), spec, progress=False)
    subjects = design.items["subject"].to_numpy(str)[read_on]
    row = depth_trends(fit.a, fit.b, depth[read_on], subjects, seed=seed, n_boot=n_boot).loc["lambda"]
    fields = {"estimate": "estimate", "low": "low", "high": "high", "se": "se_cr2", "df": "df",
              "p_cr2": "p_cr2", "p_wcb": "p_wcb"}
    return ({"lambda_planted": float(lam)}
            | {f"lambda_{name}": float(row[key]) for name, key in fields.items()}
            | {"n_items": int(read_on.sum()), "n_clusters": int(row["n_clusters"]),
               "fit_steps": int(fit.meta["steps"])})


#: The rules of a recorded study: one row per design, λ setting and seed; p in [0, 1]; finite fields.
LAMBDA_SCHEMA = StudySchema(
    what="λ coverage study", key=("design", "lambda_setting", "seed"), required=LAMBDA_COLUMNS,
    numeric=LAMBDA_COLUMNS[2:], integer=("seed", "n_items", "n_clusters", "fit_steps"),
    bounds={"seed": (0, np.inf), "lambda_p_cr2": (0.0, 1.0), "lambda_p_wcb": (0.0, 1.0),
            "lambda_se": (0.0, np.inf)})


def load_lambda_coverage(folder) -> pd.DataFrame:
    """The recorded study in ``folder`` (``lambda_coverage.csv``), checked against :data:`LAMBDA_SCHEMA`.

    Raises
    ------
    DataError
        If the file is missing (run ``bench/bench_lambda_coverage.py``), breaks the schema, or one
        (design, λ setting) holds more than one planted λ.
    """
    path = Path(folder) / "lambda_coverage.csv"
    if not path.is_file():
        raise DataError(str(path), "no recorded λ coverage study: run bench/bench_lambda_coverage.py")
    table = check_study(pd.read_csv(path, dtype={"lambda_setting": str}), LAMBDA_SCHEMA, path)
    planted = table.groupby(["design", "lambda_setting"])["lambda_planted"].nunique()
    if (planted > 1).any():
        raise DataError(str(path), f"setting(s) {list(planted[planted > 1].index)} hold several planted λ")
    return table


def coverage_record(planted, estimate, low, high) -> dict:
    """How an interval did over seeds: coverage of the planted value, bias, spread and width.

    Parameters
    ----------
    planted, estimate, low, high : array, shape (n,)
        Per seed: the planted value, the estimate and the interval's ends.

    Returns
    -------
    dict
        ``coverage`` with its binomial Monte Carlo SE ``coverage_mc_se``, ``bias`` (mean
        estimate − planted) with ``bias_mc_se`` (SD / √n), ``sd`` of the estimates, ``mean_width``
        and ``n_seeds`` (SEs and SD NaN for a single seed).
    """
    planted, estimate, low, high = (np.asarray(v, float) for v in (planted, estimate, low, high))
    covered, error = monte_carlo_share((low <= planted) & (planted <= high)), estimate - planted
    spread = (error.std(ddof=1), estimate.std(ddof=1)) if error.size > 1 else (np.nan, np.nan)
    return {"coverage": covered["rate"], "coverage_mc_se": covered["mc_se"], "bias": float(error.mean()),
            "bias_mc_se": float(spread[0] / np.sqrt(error.size)), "sd": float(spread[1]),
            "mean_width": float((high - low).mean()), "n_seeds": covered["n_seeds"]}


def lambda_summary(table: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """Coverage, bias, width and the tests' rejection rate of λ = 0, per design and planted λ.

    Parameters
    ----------
    table : DataFrame
        A recorded study (:func:`load_lambda_coverage`) or :func:`lambda_replicate` rows with
        ``design``, ``lambda_setting`` and ``seed``.
    alpha : float
        Level of the tests of λ = 0.

    Returns
    -------
    DataFrame
        One row per design and λ setting (in order of appearance): ``design``, ``lambda_setting``,
        ``lambda_planted``, :func:`coverage_record`'s fields, and ``reject_cr2`` and ``reject_wcb``
        (share of seeds whose CR2 or wild bootstrap p of λ = 0 is below ``alpha``: power where
        λ ≠ 0, size where λ = 0) with their MC SEs.
    """
    rows = []
    for (design, setting), part in table.groupby(["design", "lambda_setting"], sort=False):
        row = {"design": design, "lambda_setting": setting,
               "lambda_planted": float(part["lambda_planted"].iloc[0])}
        row |= coverage_record(*(part[f"lambda_{name}"] for name in ("planted", "estimate", "low", "high")))
        for test in ("cr2", "wcb"):
            rejects = monte_carlo_share(part[f"lambda_p_{test}"].to_numpy(float) < alpha)
            row |= {f"reject_{test}": rejects["rate"], f"reject_{test}_mc_se": rejects["mc_se"]}
        rows.append(row)
    return pd.DataFrame(rows)
