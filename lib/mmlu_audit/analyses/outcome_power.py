"""How often each replication outcome arises at the real populations' designs, over many seeds.

The real-verdicts chapter reads each claim by the outcome of an interval
(:func:`~mmlu_audit.analyses.replication.classify`): "replicated", "inconclusive", "not
replicated" and the rest. Whether "inconclusive" on a few dozen models says anything depends on
how often a population of that design reports a *signal* (an interval that excludes no effect)
when the paper's estimate is true. This module measures it by simulation, on every disjoint real
population and on their random-effects combination, as the chapter computes them:

- :func:`seed_outcomes` draws one world's items (:data:`OUTCOME_WORLDS`: the paper's own
  estimates where it reports them, or no contrast at all), has every population of the chapter
  answer them with its own models, missing cells and accuracies
  (:func:`~mmlu_audit.worlds.real_design.simulate_at_design`, one response stream each: the
  populations share the items, as the real ones share MMLU's, and nothing else), fits the
  chapters' 2PL to each, computes every estimand of
  :data:`~mmlu_audit.analyses.replication.ESTIMANDS` with its interval (the chapter's
  estimators; r(β, θ̂) without the 3PL null, which no outcome reads), combines the populations
  (:func:`~mmlu_audit.analyses.replication.combined_rows`) and classifies every interval;
- :func:`outcome_rates` gives, per world, population and estimand, the rate of a signal (its
  **power** where the paper's estimate is planted, its **size** where no effect is) and of
  "replicated", with Monte Carlo SEs; :func:`outcome_shares` the share of every outcome;
- :func:`load_outcome_power` reads the committed ``bench/results/outcome_power.json`` (written by
  ``bench/bench_outcome_power.py``) and :func:`claim_power` gives the chapter one row per
  claim and population; :func:`observed_outcome_rate` how often a real row's own outcome arose
  in either world.

Simulated worlds, not findings about MMLU.
"""

from __future__ import annotations

from dataclasses import replace
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from mmlu_audit.analyses.power import mc_se, rates
from mmlu_audit.analyses.replication import CLAIM_ESTIMAND, OUTCOMES, combined_rows, outcome_rows
from mmlu_audit.analyses.study_schema import StudySchema, check_study, read_study_json
from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.core.paths import project_root
from mmlu_audit.core.seeds import seeded
from mmlu_audit.worlds.simulated import PAPER_ESTIMATE_SLOPES

__all__ = ["GROUPS", "OUTCOME_COLUMNS", "OUTCOME_DECISIONS", "OUTCOME_WORLDS", "PLANTED", "SIGNAL_OUTCOMES",
           "claim_power", "claim_power_rows", "load_outcome_power", "observed_outcome_rate",
           "outcome_power_path", "outcome_rates", "outcome_shares", "planted_rows", "planted_spec",
           "population_estimands", "population_extremes", "seed_outcomes", "simulated_power"]

#: The worlds: name → :class:`~mmlu_audit.worlds.simulated.WorldSpec` changes. ``"paper_estimates"``
#: plants the paper's own estimates where it reports them
#: (:data:`~mmlu_audit.worlds.simulated.PAPER_ESTIMATE_SLOPES`); ``"null"`` identical slopes in
#: both partitions (no item-side effect). Neither plants an ability × depth interaction.
OUTCOME_WORLDS = {"paper_estimates": {"slopes": PAPER_ESTIMATE_SLOPES}, "null": {"null_world": True}}
#: The outcomes that report a signal: the interval excludes no effect.
SIGNAL_OUTCOMES = OUTCOMES[:4]
#: The yes/no columns a row records: a signal, and the outcome "replicated".
OUTCOME_DECISIONS = ("signal", "replicated")
#: The columns of one row (one world, population and estimand of one seed).
OUTCOME_COLUMNS = ("world", "population", "estimand", "estimate", "low", "high", "se", "outcome",
                   *OUTCOME_DECISIONS, "n_models")


@seeded
def population_estimands(design, items: pd.DataFrame, features: pd.DataFrame, seed: int, spec, *,
                         n_boot: int, fast: bool = False, calibration=None, response_stream: int = 0) -> dict:
    """One simulated population's estimands, in :func:`~mmlu_audit.analyses.central.population_tests`' shape.

    Parameters
    ----------
    design : ResponseMatrix
        The real population whose models, missing cells and accuracies the world keeps.
    items, features : DataFrame
        As for :func:`~mmlu_audit.analyses.power.one_seed_at_design`.
    seed : int
        Seed of the items, of the 2PL calibration, the bootstraps and the folds.
    spec : WorldSpec
        The world's item side.
    n_boot : int
        Draws of each bootstrap.
    fast : bool
        The calibration's smoke-run step cap.
    calibration : DesignCalibration, optional
        The item side calibrated to the real pool.
    response_stream : int
        The population's response stream (:func:`~mmlu_audit.worlds.real_design.simulate_at_design`).

    Returns
    -------
    dict
        ``homogeneity``, ``d_ner``, ``stem_r2`` (:func:`~mmlu_audit.analyses.central.central_tests`),
        ``guessing_floor`` (:func:`~mmlu_audit.analyses.modelside.rs_r_interval`), ``population``
        (``n_models``) and ``true_b`` (the planted difficulties of every item).
    """
    from mmlu_audit.analyses.central import central_tests
    from mmlu_audit.analyses.modelside import rs_r_interval
    from mmlu_audit.analyses.pipeline import answered_columns, calibration_spec
    from mmlu_audit.analyses.power import world_frame
    from mmlu_audit.irt import fit_irt
    from mmlu_audit.worlds.real_design import simulate_at_design

    covariates = features.loc[items["item_id"].to_numpy(), list(spec.slopes)].reset_index(drop=True)
    world = simulate_at_design(design, spec, items, covariates, seed=seed, calibration=calibration,
                               response_stream=response_stream)
    matrix = world.matrix
    answered = matrix.observed.any(axis=0)
    fit = fit_irt(answered_columns(matrix, answered), calibration_spec(fast, seed), progress=False)
    frame = world_frame(items, features, fit, answered)
    result = central_tests(frame, seed=seed, n_boot=n_boot)
    result["guessing_floor"] = rs_r_interval(matrix, frame, fit.theta)
    return result | {"population": {"n_models": int(matrix.shape[0])}, "true_b": world.truth["b"]}


def planted_spec(world: str, calibration=None):
    """The world's :class:`~mmlu_audit.worlds.simulated.WorldSpec`, slopes on its difficulty scale.

    The slopes of :data:`OUTCOME_WORLDS` are in logits of the paper's difficulties (SD
    ``WorldSpec().b_sd``, the paper's 2.24); a calibrated world draws its difficulties with another
    SD, so every slope is multiplied by the ratio and each contrast stays the paper's per SD of
    difficulty.

    Raises
    ------
    ParameterError
        For an unknown world.
    """
    from mmlu_audit.worlds.simulated import WorldSpec

    if world not in OUTCOME_WORLDS:
        raise ParameterError("world", f"unknown world {world!r}; choose one of {list(OUTCOME_WORLDS)}")
    spec = WorldSpec(**OUTCOME_WORLDS[world])
    if calibration is None or calibration.b_sd is None:
        return spec
    ratio = calibration.b_sd / spec.b_sd
    scaled = {key: (stem * ratio, other * ratio) for key, (stem, other) in spec.slopes.items()}
    return replace(spec, slopes=scaled)


#: The population name of the rows computed on the planted difficulties themselves.
PLANTED = "planted difficulties"


@seeded
def planted_rows(items: pd.DataFrame, features: pd.DataFrame, true_b, seed: int,
                 n_boot: int = 99) -> pd.DataFrame:
    """The item-side estimands on the planted difficulties of every item: what the estimates aim at.

    The bootstraps, whose intervals no rate reads here, run ``n_boot`` draws; r(β, θ̂) has no
    planted counterpart on the items and is "not estimable".
    """
    from mmlu_audit.analyses.central import central_tests

    if true_b is None:
        return outcome_rows(PLANTED, None, "no population was simulated")
    frame = items[["item_id", "subject", "partition", "stem"]].assign(b_hat=np.asarray(true_b, float))
    frame = frame.join(features, on="item_id").set_index("item_id")
    result = central_tests(frame, seed=seed, n_boot=n_boot)
    result["guessing_floor"] = {"rs_r_all": np.nan, "rs_r_low": np.nan, "rs_r_high": np.nan}
    return outcome_rows(PLANTED, result | {"population": {"n_models": np.nan}}, "planted truth")


@seeded
def seed_outcomes(designs: Mapping, items: pd.DataFrame, features: pd.DataFrame, seed: int, world: str, *,
                  n_boot: int, fast: bool = False, calibration=None) -> list[dict]:
    """Every estimand's outcome in every population, and in their combination, for one world.

    Parameters
    ----------
    designs : mapping of str to ResponseMatrix
        The disjoint real populations, in the chapter's order; one with fewer than
        :data:`~mmlu_audit.analyses.central.MIN_POPULATION_MODELS` models is "not estimable", as
        on the real page.
    items, features : DataFrame
        The items and their feature table.
    seed : int
        Seed of the world's items (shared by the populations), of each calibration, bootstrap and
        fold split.
    world : {"paper_estimates", "null"}
        :data:`OUTCOME_WORLDS`.
    n_boot : int
    fast : bool
    calibration : DesignCalibration, optional

    Returns
    -------
    list of dict
        One row per population (then :data:`~mmlu_audit.analyses.replication.COMBINED`, then
        :data:`PLANTED`: :func:`planted_rows`) and estimand, with :data:`OUTCOME_COLUMNS`.
    """
    from mmlu_audit.analyses.central import MIN_POPULATION_MODELS

    spec = planted_spec(world, calibration)
    tables, true_b = [], None
    for stream, (name, design) in enumerate(designs.items()):
        if design.shape[0] < MIN_POPULATION_MODELS:
            tables.append(outcome_rows(name, None, f"{design.shape[0]} models"))
            continue
        result = population_estimands(design, items, features, seed, spec, n_boot=n_boot, fast=fast,
                                      calibration=calibration, response_stream=stream)
        true_b = result.pop("true_b")
        tables.append(outcome_rows(name, result))
    outcomes = pd.concat(tables, ignore_index=True)
    table = pd.concat([outcomes, combined_rows(outcomes, list(designs)),
                       planted_rows(items, features, true_b, seed)], ignore_index=True)
    table["world"] = world
    table["signal"] = table["outcome"].isin(SIGNAL_OUTCOMES)
    table["replicated"] = table["outcome"] == OUTCOMES[0]
    table = table[list(OUTCOME_COLUMNS)].astype(object)
    return table.where(table.notna(), None).to_dict(orient="records")  # a missing value: an empty field


#: How the rates are grouped.
GROUPS = ("world", "population", "estimand")


def outcome_rates(rows: pd.DataFrame, by: Sequence[str] = GROUPS) -> pd.DataFrame:
    """The rate of a signal and of "replicated" per group, with Monte Carlo SEs (:func:`~.power.rates`)."""
    return rates(rows, OUTCOME_DECISIONS, by)


def outcome_shares(rows: pd.DataFrame, by: Sequence[str] = GROUPS) -> pd.DataFrame:
    """The share of each outcome of :data:`~mmlu_audit.analyses.replication.OUTCOMES` per group.

    Returns
    -------
    DataFrame
        Columns ``by``, ``outcome``, ``rate``, ``mc_se`` and ``n_seeds``; every outcome of every
        group appears (a share of 0 included), in the order of ``OUTCOMES``.
    """
    unknown = set(rows["outcome"]) - set(OUTCOMES)
    if unknown:
        raise DataError("outcome", f"values that are not replication outcomes: {sorted(unknown)}")
    out = []
    for keys, group in rows.groupby(list(by), sort=False):
        n = len(group)
        for outcome in OUTCOMES:
            rate = float((group["outcome"] == outcome).mean())
            out.append({**dict(zip(by, keys, strict=True)), "outcome": outcome, "rate": rate,
                        "mc_se": float(mc_se(rate, n)), "n_seeds": n})
    return pd.DataFrame(out, columns=[*by, "outcome", "rate", "mc_se", "n_seeds"])


def outcome_power_path() -> Path:
    """Where ``bench/bench_outcome_power.py`` writes the study's summary."""
    return project_root() / "bench" / "results" / "outcome_power.json"


def _schema(target_se: float) -> StudySchema:
    return StudySchema(
        what="outcome power study", key=("world", "population", "estimand", "test"),
        required=("world", "population", "estimand", "test", "rate", "mc_se", "n_seeds", "target_reached"),
        numeric=("rate", "mc_se", "n_seeds"), integer=("n_seeds",),
        bounds={"rate": (0.0, 1.0), "n_seeds": (1, np.inf)},
        derived={"mc_se": lambda t: mc_se(t["rate"], t["n_seeds"]),
                 "target_reached": lambda t: mc_se(t["rate"], t["n_seeds"]) <= target_se + 1e-9})


def load_outcome_power(path: str | Path | None = None) -> pd.DataFrame:
    """The committed outcome power study's rates, checked.

    Returns
    -------
    DataFrame
        One row per world, population, estimand and test (``signal`` or ``replicated``):
        ``rate``, ``mc_se`` and ``target_reached`` recomputed from ``n_seeds``; ``attrs`` holds
        the file's ``settings``, ``target_se``, ``planted``, ``git_commit``, ``n_seeds``, ``shares``
        (the outcome shares) and ``means`` (each estimate's mean and SD over the seeds, beside the
        paper's), the last two as DataFrames.

    Raises
    ------
    DataError
        If the file is missing, not JSON, lacks a section, or its rates break the schema.
    """
    path = Path(path) if path is not None else outcome_power_path()
    result = read_study_json(path, "outcome power study", "bench/bench_outcome_power.py")
    sections = ("rates", "shares", "mean_estimates", "settings", "target_se", "planted", "git_commit")
    missing = [k for k in sections if not isinstance(result, dict) or k not in result]
    if missing:
        raise DataError(path, f"not an outcome power result: no {missing}")
    table = check_study(pd.DataFrame(result["rates"]), _schema(result["target_se"]), path)
    table.attrs.update(settings=result["settings"], target_se=result["target_se"], planted=result["planted"],
                       git_commit=result["git_commit"], shares=pd.DataFrame(result["shares"]),
                       means=pd.DataFrame(result["mean_estimates"]), n_seeds=result.get("n_seeds"))
    return table


def claim_power(table: pd.DataFrame, true_world: str = "paper_estimates",
                null_world: str = "null") -> pd.DataFrame:
    """Each claim's estimand per population: power, "replicated" rate and size (:func:`load_outcome_power`).

    Returns
    -------
    DataFrame
        Indexed by (claim, population): ``estimand``, ``power`` and ``power_se`` (signal rate where
        the paper's estimates are planted), ``replicated`` and ``replicated_se`` (there),
        ``size`` and ``size_se`` (signal rate under no effect) and ``n_seeds`` (the smaller count).

    Raises
    ------
    DataError
        If either world is missing from ``table``.
    """
    worlds = set(table["world"])
    if not {true_world, null_world} <= worlds:
        raise DataError("outcome power",
                        f"needs worlds {true_world!r} and {null_world!r}, has {sorted(worlds)}")
    wide = table.set_index(["world", "population", "estimand", "test"])
    rows = []
    for claim, key in CLAIM_ESTIMAND.items():
        for population in dict.fromkeys(table["population"]):
            picks = {name: wide.loc[(world, population, key, test)] for name, (world, test) in
                     {"power": (true_world, "signal"), "replicated": (true_world, "replicated"),
                      "size": (null_world, "signal")}.items()}
            rows.append({"claim": claim, "population": population, "estimand": key,
                         **{k: v for name, pick in picks.items()
                            for k, v in ((name, pick["rate"]), (f"{name}_se", pick["mc_se"]))},
                         "n_seeds": int(min(pick["n_seeds"] for pick in picks.values()))})
    return pd.DataFrame(rows).set_index(["claim", "population"])



def simulated_power(table: pd.DataFrame, rates: pd.DataFrame, world: str = "paper_estimates") -> pd.Series:
    """Each row's simulated power: its population's signal rate for its estimand where ``world`` is planted.

    Parameters
    ----------
    table : DataFrame
        Rows with ``population`` and ``estimand`` (the real-verdicts table).
    rates : DataFrame
        :func:`load_outcome_power`.
    world : str
        The world whose signal rate is power.

    Returns
    -------
    Series
        Aligned with ``table``; NaN for a population or estimand the study did not simulate.
    """
    signal = rates[(rates["world"] == world) & (rates["test"] == "signal")]
    lookup = signal.set_index(["population", "estimand"])["rate"]
    keys = pd.MultiIndex.from_arrays([table["population"], table["estimand"]])
    return pd.Series(lookup.reindex(keys).to_numpy(), index=table.index, name="simulated power")


def observed_outcome_rate(table: pd.DataFrame, study: pd.DataFrame, world: str) -> pd.Series:
    """How often each row's own outcome arose in the simulated worlds where ``world`` is planted.

    Read beside a real outcome, it says how usual that outcome is at this population's design
    when ``world`` is true: e.g. "not replicated" in the worlds with the paper's estimates is a
    false contradiction, "replicated" in the null world a false replication.

    Parameters
    ----------
    table : DataFrame
        Rows with ``population``, ``estimand`` and ``outcome`` (the real-verdicts table).
    study : DataFrame
        :func:`load_outcome_power` (its ``attrs["shares"]``).
    world : str
        One of the study's worlds.

    Returns
    -------
    Series
        Aligned with ``table``; NaN for a population or estimand the study did not simulate.

    Raises
    ------
    DataError
        If ``world`` is not in the study.
    """
    shares = study.attrs["shares"]
    if world not in set(shares["world"]):
        raise DataError("world", f"{world!r} is not a world of the outcome power study")
    lookup = shares[shares["world"] == world].set_index(["population", "estimand", "outcome"])["rate"]
    keys = pd.MultiIndex.from_arrays([table["population"], table["estimand"], table["outcome"]])
    return pd.Series(lookup.reindex(keys).to_numpy(), index=table.index, name=f"outcome rate, {world}")


def claim_power_rows(table: pd.DataFrame, true_world: str = "paper_estimates") -> pd.DataFrame:
    """:func:`claim_power` per row, with each estimate's mean where ``true_world`` is planted and the paper's.

    A population and estimand that was "not estimable" in every seed of every world (a population
    of too few models; r(β, θ̂) on the planted difficulties) is left out.

    Returns
    -------
    DataFrame
        :func:`claim_power` reset to columns, plus ``mean_estimate`` (over the seeds; the
        :data:`PLANTED` row's is the planted value the others aim at) and ``paper``.
    """
    from mmlu_audit.analyses.replication import ESTIMANDS

    rows = claim_power(table, true_world).reset_index()
    shares = table.attrs["shares"]
    unestimable = shares[shares["outcome"] == OUTCOMES[6]].groupby(["population", "estimand"])["rate"].min()
    never = set(unestimable[unestimable == 1.0].index)  # in every seed of every world
    rows = rows[[key not in never for key in zip(rows["population"], rows["estimand"], strict=True)]]
    means = table.attrs["means"]
    means = means[means["world"] == true_world].set_index(["population", "estimand"])["mean"]
    keys = pd.MultiIndex.from_frame(rows[["population", "estimand"]])
    return rows.assign(mean_estimate=means.reindex(keys).to_numpy(),
                       paper=rows["estimand"].map({key: e.paper for key, e in ESTIMANDS.items()}))


def population_extremes(rows: pd.DataFrame, claim: str, column: str) -> dict:
    """One claim's ``column`` rate (``power``, ``replicated`` or ``size``): its largest over the single
    populations and its value combined.

    Parameters
    ----------
    rows : DataFrame
        :func:`claim_power_rows`.
    claim : str
        A claim of :data:`~mmlu_audit.analyses.replication.CLAIM_ESTIMAND`.
    column : str

    Returns
    -------
    dict
        ``max``, ``max_se`` and ``max_population`` (over the populations, not the combination or
        the planted difficulties), ``combined`` and ``combined_se``.

    Raises
    ------
    DataError
        If ``rows`` has no single population or no combined row for the claim.
    """
    from mmlu_audit.analyses.replication import COMBINED

    part = rows[rows["claim"] == claim]
    single = part[~part["population"].isin([COMBINED, PLANTED])]
    combined = part[part["population"] == COMBINED]
    if single.empty or combined.empty:
        raise DataError(claim, "the outcome power rows lack a population or the combination for this claim")
    top = single.loc[single[column].idxmax()]
    first = combined.iloc[0]
    return {"max": float(top[column]), "max_se": float(top[f"{column}_se"]),
            "max_population": top["population"], "combined": float(first[column]),
            "combined_se": float(first[f"{column}_se"])}
