"""The item side of §4's tests judged over many world seeds, not one.

A chapter runs one simulated world. Whether its D_ner contrast survives Holm, or its W(9) test
rejects, at one seed says little when the test's power at the planted effect is near one half.
This module re-plants the difficulties of the book's simulator (the item side of
:func:`mmlu_audit.worlds.simulated.simulate_world`, exactly as that world's seed draws them)
for many seeds, in the planted and in the null world, and runs §4.2's D_ner contrast and §4.3's
joint homogeneity test on each: rejection rates with Monte Carlo standard errors (power in the
planted world, size in the null world) and the coverage of the contrast's CR2 interval.

The outcome is the planted b itself: the study isolates what the item model and the few subject
clusters do to the tests, leaving out the estimation error of b̂ (which only adds noise).
``make bench`` runs it (``bench/bench_seed_study.py``); the validity appendix and the chapters
read the recorded table.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from mmlu_audit.analyses.study_schema import StudySchema, check_study
from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.core.seeds import check_seed, seeded
from mmlu_audit.features import INDICATORS

__all__ = ["SEED_STUDY_COLUMNS", "SEED_STUDY_SCHEMA", "SEED_STUDY_TESTS", "load_seed_study",
           "monte_carlo_share", "placed_in_study", "planted_difficulties", "rejection_rate", "seed_replicate",
           "seed_study", "seed_study_summary", "where_in_study"]

#: The decisions the study records: column of :func:`seed_replicate` → what rejects.
SEED_STUDY_TESTS = {
    "holm_p_cr2_d_ner": "STEM × D_ner survives Holm (CR2)",
    "boot_holm_p_d_ner": "STEM × D_ner survives Holm (wild bootstrap)",
    "w9_htz_p": "W(9) rejects (CR2-HTZ)",
    "wcb_p": "W(9) rejects (wild cluster bootstrap)",
}


#: The columns of a recorded study (``bench/results/seed_study.csv``).
SEED_STUDY_COLUMNS = ("world", "seed", "d_ner_planted", "d_ner_estimate", "d_ner_low", "d_ner_high",
                      *SEED_STUDY_TESTS)


#: The rules of a recorded study (:func:`~mmlu_audit.analyses.study_schema.check_study`): one row per
#: world and seed, every p in [0, 1], the contrast's estimate and interval finite.
SEED_STUDY_SCHEMA = StudySchema(
    what="seed study", key=("world", "seed"), required=SEED_STUDY_COLUMNS,
    numeric=SEED_STUDY_COLUMNS[1:], integer=("seed",),
    bounds={"seed": (0, np.inf), **{key: (0.0, 1.0) for key in SEED_STUDY_TESTS}})


def load_seed_study(folder) -> pd.DataFrame:
    """The recorded study in ``folder`` (``seed_study.csv``), checked to be one this module wrote.

    Raises
    ------
    DataError
        If the file is missing (run ``make bench``), breaks :data:`SEED_STUDY_SCHEMA` (a missing
        column or field, a truncated row, a repeated world and seed, a p outside [0, 1]), or
        does not hold the same seeds in the planted and the null world.
    """
    path = Path(folder) / "seed_study.csv"
    if not path.is_file():
        raise DataError(str(path), "no recorded seed study: run `make bench` (bench/bench_seed_study.py)")
    table = pd.read_csv(path, keep_default_na=False, na_values=[""])  # "null" names a world, not NaN
    table = check_study(table, SEED_STUDY_SCHEMA, path)
    seeds = {world: set(part["seed"]) for world, part in table.groupby("world")}
    if set(seeds) != {"planted", "null"} or seeds["planted"] != seeds["null"]:
        raise DataError(str(path), f"not a valid seed study: worlds {sorted(seeds)} instead of planted and "
                                   "null, each with the same seeds")
    return table


def monte_carlo_share(hits) -> dict:
    """The share of True in ``hits`` with its binomial Monte Carlo SE √(r(1 − r)/n)."""
    hits = np.asarray(hits, bool)
    rate = float(hits.mean())
    return {"rate": rate, "mc_se": float(np.sqrt(rate * (1 - rate) / hits.size)), "n_seeds": int(hits.size)}


def rejection_rate(table: pd.DataFrame, world: str, key: str, alpha: float = 0.05) -> dict:
    """The share of ``world``'s seeds whose test ``key`` rejects at ``alpha``, with its Monte Carlo SE.

    Returns
    -------
    dict
        ``rate``, ``mc_se`` (the binomial √(r(1 − r)/n)) and ``n_seeds``.
    """
    if key not in SEED_STUDY_TESTS:
        raise ParameterError("key", f"{key!r} is not a test of the study ({', '.join(SEED_STUDY_TESTS)})")
    p = table.loc[table["world"] == world, key].to_numpy(float)
    if p.size == 0:
        raise ParameterError("world", f"no seed of world {world!r} in the study")
    return monte_carlo_share(p < alpha)


def placed_in_study(table: pd.DataFrame, world: str, key: str, value: float, alpha: float = 0.05) -> dict:
    """One chapter's p for test ``key`` against the study: :func:`rejection_rate` and its percentile.

    Returns
    -------
    dict
        ``rate``, ``mc_se``, ``n_seeds`` and ``percentile`` (share of seeds with p at most ``value``).
    """
    return rejection_rate(table, world, key, alpha) | {"percentile": where_in_study(table, world, key, value)}


@seeded
def planted_difficulties(spec, items: pd.DataFrame, features: pd.DataFrame, seed: int) -> np.ndarray:
    """The true b of the world ``simulate_world(spec, seed, items)`` would draw, without its models.

    Parameters
    ----------
    spec : WorldSpec
    items : DataFrame
        The items, in the world's order, with ``subject`` and ``stem``.
    features : DataFrame
        Their covariates (at least ``spec.slopes``'s columns), aligned with ``items``.
    seed : int
    """
    from mmlu_audit.core.scaling import standardise
    from mmlu_audit.worlds.simulated import plant_items

    x = standardise(features[list(spec.slopes)].to_numpy(dtype=float))
    item_rng = np.random.default_rng(np.random.SeedSequence(check_seed(seed)).spawn(5)[0])
    return plant_items(spec, items.reset_index(drop=True), x, item_rng)["b"]


@seeded
def seed_replicate(spec, items: pd.DataFrame, features: pd.DataFrame, seed: int, n_boot: int) -> dict:
    """§4.2's D_ner contrast and §4.3's joint test on the planted b of one world seed.

    Returns
    -------
    dict
        ``seed``, the contrast's estimate and CR2 interval (``d_ner_estimate``, ``d_ner_low``,
        ``d_ner_high``), its planted value (``d_ner_planted``) and the p of each test in
        :data:`SEED_STUDY_TESTS`.
    """
    from mmlu_audit.analyses.central import d_ner_tests
    from mmlu_audit.analyses.regression import design_arrays
    from mmlu_audit.analyses.regression.joint import joint_homogeneity

    frame = items[["subject", "stem"]].reset_index(drop=True).assign(
        b_hat=planted_difficulties(spec, items, features, seed))
    frame = frame.join(features[list(INDICATORS)].reset_index(drop=True))
    joint = joint_homogeneity(frame, seed=seed, n_boot=n_boot)
    X, y, stem, subjects = design_arrays(frame)
    contrast = d_ner_tests(y, X, stem, subjects, seed=seed, n_boot=n_boot)
    planted = spec.planted_slopes().loc["d_ner"]
    kept = ("d_ner_estimate", "d_ner_low", "d_ner_high", "holm_p_cr2_d_ner", "boot_holm_p_d_ner")
    return ({"seed": seed, "d_ner_planted": float(planted.iloc[0] - planted.iloc[1])}
            | {key: contrast[key] for key in kept} | {key: joint[key] for key in ("w9_htz_p", "wcb_p")})


def seed_study(items: pd.DataFrame, features: pd.DataFrame, seeds, n_boot: int = 999,
               progress: bool = True) -> pd.DataFrame:
    """:func:`seed_replicate` over ``seeds`` in the planted world and in the null world.

    Parameters
    ----------
    items, features : DataFrame
        As :func:`planted_difficulties`.
    seeds : sequence of int
    n_boot : int
        Wild bootstrap draws per test and seed.
    progress : bool
        A progress bar over the replicates.

    Returns
    -------
    DataFrame
        One row per world and seed: ``world`` ("planted" or "null") and the replicate's values.
    """
    from tqdm.auto import tqdm

    from mmlu_audit.worlds.simulated import WorldSpec

    seeds = [check_seed(s) for s in seeds]
    if not seeds:
        raise ParameterError("seeds", "no seed to run")
    worlds = {"planted": WorldSpec(), "null": WorldSpec(null_world=True)}
    jobs = [(world, seed) for world in worlds for seed in seeds]
    rows = [{"world": world} | seed_replicate(worlds[world], items, features, seed, n_boot)
            for world, seed in tqdm(jobs, desc="seed study", disable=not progress)]
    return pd.DataFrame(rows)


def seed_study_summary(table: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """Rejection rate of each test per world, with its Monte Carlo SE, and the contrast's coverage.

    Returns
    -------
    DataFrame
        One row per world and quantity: ``world``, ``quantity``, ``rate``, ``mc_se`` (the binomial
        √(r(1 − r)/n)), ``n_seeds`` and ``reads_as`` (power in the planted world, size in the null
        world, coverage of the planted contrast by the CR2 95 % interval).
    """
    rows = []
    for world, part in table.groupby("world", sort=False):
        hits = {SEED_STUDY_TESTS[key]: part[key] < alpha for key in SEED_STUDY_TESTS}
        hits["CR2 95 % interval of STEM × D_ner covers the planted contrast"] = (
            (part["d_ner_low"] <= part["d_ner_planted"]) & (part["d_ner_planted"] <= part["d_ner_high"]))
        for quantity, hit in hits.items():
            reads = ("coverage" if "covers" in quantity else "power" if world == "planted" else "size")
            rows.append({"world": world, "quantity": quantity} | monte_carlo_share(hit) | {"reads_as": reads})
    return pd.DataFrame(rows)


def where_in_study(table: pd.DataFrame, world: str, column: str, value: float) -> float:
    """The share of the study's seeds in ``world`` whose ``column`` is at most ``value``.

    A chapter's one seed reads against it: e.g. a Holm p of 0.053 at the 48th percentile of the
    planted world's p values is an ordinary draw from a test with power near one half.
    """
    values = table.loc[table["world"] == world, column].to_numpy(float)
    if values.size == 0:
        raise ParameterError("world", f"no seed of world {world!r} in the study")
    return float(np.mean(values <= value))
