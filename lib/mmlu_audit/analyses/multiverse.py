"""The claims' estimands across defensible analysis choices, and the reliability of the outcome.

A verdict that flips with one defensible choice is fragile (Steegen et al., 2016; Simonsohn,
Simmons and Nelson, 2020). :func:`specifications` computes the item-side estimands of
:mod:`mmlu_audit.analyses.replication` for every combination of

- the difficulty outcome: the 2PL b̂ of the calibration, or the empirical logit of the share
  wrong (no model fit at all);
- the models: all, or without the near-chance ones (accuracy below
  :data:`~mmlu_audit.worlds.calibration.CHANCE_CUTOFF`; the 2PL outcome would need a refit
  without them, so that cell is computed only where no model is near chance);
- the indicators: the nine, or ten with prompt length (``n_tokens``);

in each population, then :func:`combined_specifications` adds their meta-analytic combination and
every leave-one-population-out combination. :func:`fragility` names the choices that change an
outcome. :func:`split_half_reliability` measures how much of the difficulty score's variance is
signal in each partition, from which :func:`disattenuate` corrects the R² ratio.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd

from mmlu_audit.analyses.replication import ESTIMANDS, judge, meta_analysis, per_difficulty_sd
from mmlu_audit.core.errors import DataError
from mmlu_audit.core.seeds import rng_from, seeded

__all__ = ["BENCH_FILES", "SPEC_CHOICES", "DEFAULT", "SPEC_ESTIMANDS", "THREE_PL", "b_split_halves",
           "combined_specifications", "default_path_rows", "disattenuate", "empirical_difficulty",
           "fragility", "item_estimands", "load_bench", "population_words", "specification_forest",
           "specifications", "split_half_reliability", "three_pl_specifications"]

#: The choices and their values; the first value of each is the book's default path.
SPEC_CHOICES = {"difficulty": ("2PL b̂", "empirical logit"), "models": ("all", "near-chance out"),
           "indicators": ("nine", "ten, with length")}
DEFAULT = {name: values[0] for name, values in SPEC_CHOICES.items()}
#: The estimands the multiverse varies (the model-side r needs a 3PL null per cell: not here).
SPEC_ESTIMANDS = ("interaction_share", "d_ner_contrast", "logit2_ratio")
_LENGTH = "n_tokens"


def empirical_difficulty(responses: np.ndarray) -> np.ndarray:
    """Per item, the logit of the share wrong with a half-count correction; NaN where nobody answered.

    ``log((wrong + 0.5) / (right + 0.5))``: higher is harder, like b̂, with no model fitted.
    """
    right = (responses == 1).sum(axis=0)
    wrong = (responses == 0).sum(axis=0)
    out = np.log((wrong + 0.5) / (right + 0.5))
    return np.where(right + wrong > 0, out, np.nan)


@seeded
def item_estimands(frame: pd.DataFrame, outcome: np.ndarray, columns, *, seed, n_boot: int) -> dict:
    """The item-side estimands (:data:`SPEC_ESTIMANDS`) of one difficulty outcome, with 95 % intervals.

    Parameters
    ----------
    frame : DataFrame
        Items with ``stem``, ``subject`` and ``columns``.
    outcome : array, shape (len(frame),)
        The difficulty of each item (NaN rows are left out).
    columns : sequence of str
        The indicators (z-scored over the kept rows).
    seed : int
        Seed of the subject bootstraps.
    n_boot : int
        Their draws.

    Returns
    -------
    dict
        Estimand → (estimate, low, high): the bias-corrected share of variance the interactions
        add (subject bootstrap), the STEM × D_ner contrast per SD of the outcome (CR2 interval,
        Satterthwaite df; :func:`~mmlu_audit.analyses.replication.per_difficulty_sd`), and the
        STEM ÷ non-STEM explained-variance ratio (subject bootstrap).
    """
    from scipy import stats

    from mmlu_audit.analyses.regression import (contrast_terms, contrast_tests, indicator_design,
                                                interaction_fit)
    from mmlu_audit.inference import interaction_share, partition_effects

    keep = np.isfinite(outcome)
    X = indicator_design(frame[keep], columns=list(columns))
    y, stem, subjects = outcome[keep], frame["stem"].to_numpy()[keep], frame["subject"].to_numpy()[keep]
    share = interaction_share(y, X, stem, subjects, seed=seed, n_boot=n_boot)
    table = contrast_tests(interaction_fit(y, X, stem), subjects, contrast_terms(["d_ner"]),
                           kinds=("CR2",)).loc["STEM:d_ner"]
    crit = float(stats.t.ppf(0.975, table["df_CR2"]))
    ratio = partition_effects(y, X, stem, subjects, seed=seed, n_boot=n_boot).set_index("effect")
    ratio = ratio.loc["explained_var_ratio"]
    return {"interaction_share": (share["estimate"], share["low"], share["high"]),
            "d_ner_contrast": per_difficulty_sd(table["estimate"], table["estimate"] - crit * table["se_CR2"],
                                                table["estimate"] + crit * table["se_CR2"], y),
            "logit2_ratio": (ratio["estimate"], ratio["ci_low"], ratio["ci_high"])}


@seeded
def specifications(population: str, frame: pd.DataFrame, matrix, *, seed, n_boot: int = 499) -> pd.DataFrame:
    """Every specification of :data:`SPEC_CHOICES` in one population, judged.

    Parameters
    ----------
    population : str
        Its name in the table.
    frame : DataFrame
        The items in ``matrix``'s column order with ``b_hat``, ``stem``, ``subject``, the nine
        indicators and ``n_tokens``.
    matrix : ResponseMatrix
        The population's responses.
    seed : int
        Seed of every bootstrap.
    n_boot : int
        Draws of each bootstrap interval.

    Returns
    -------
    DataFrame
        One row per (difficulty, models, indicators, estimand): ``population``, the three choices,
        ``estimand``, ``estimate``, ``low``, ``high`` and the :func:`~mmlu_audit.analyses.replication.judge`
        fields; a cell that cannot be computed without a refit is left out.
    """
    from mmlu_audit.features import INDICATORS
    from mmlu_audit.worlds.calibration import above_floor

    if len(frame) != matrix.shape[1]:
        raise DataError(population, f"{len(frame)} items but {matrix.shape[1]} response columns")
    working = above_floor(matrix.responses, matrix.observed)
    rows = []
    for difficulty, models, indicators in itertools.product(*SPEC_CHOICES.values()):
        dropping = models == SPEC_CHOICES["models"][1]
        if difficulty == SPEC_CHOICES["difficulty"][0]:
            if dropping and not working.all():
                continue  # b̂ without them needs a refit
            y = frame["b_hat"].to_numpy(float)
        else:
            y = empirical_difficulty(matrix.responses[working] if dropping else matrix.responses)
        columns = list(INDICATORS) + ([_LENGTH] if indicators == SPEC_CHOICES["indicators"][1] else [])
        values = item_estimands(frame, y, columns, seed=seed, n_boot=n_boot)
        for key, (estimate, low, high) in values.items():
            rows.append({"population": population, "difficulty": difficulty, "models": models,
                         "indicators": indicators, "estimand": key, "estimate": float(estimate),
                         "low": float(low), "high": float(high), **judge(key, estimate, low, high)})
    return pd.DataFrame(rows)


def default_path_rows(outcomes: pd.DataFrame, key: str, populations) -> pd.DataFrame:
    """One estimand's population rows (:func:`~mmlu_audit.analyses.replication.outcome_rows`) as
    specifications on the default path, so that its population choice (each, combined, leave one
    out) enters the multiverse where nothing else of it is varied (the guessing floor's r)."""
    part = outcomes[(outcomes["estimand"] == key) & outcomes["population"].isin(list(populations))]
    return part.assign(**DEFAULT)[["population", *SPEC_CHOICES, "estimand", "estimate", "low", "high",
                                   "outcome", "se", "pi_low", "pi_high", "in_pi", "d33", "telescopes_p",
                                   "smaller_than_d33", "power"]]


def combined_specifications(specs: pd.DataFrame, populations) -> pd.DataFrame:
    """The populations' specifications combined by random-effects meta-analysis (HKSJ interval).

    One combination of all ``populations`` (``"combined"``) and each leave-one-out
    (``"combined without X"``), per specification cell present in at least two populations.
    """
    populations = list(populations)
    groups = [("combined", populations)]
    if len(populations) > 2:
        groups += [(f"combined without {left}", [p for p in populations if p != left])
                   for left in populations]
    rows = []
    cells = specs.groupby([*SPEC_CHOICES, "estimand"], sort=False)
    for (difficulty, models, indicators, key), cell in cells:
        for name, members in groups:
            part = cell[cell["population"].isin(members) & np.isfinite(cell["se"])]
            if len(part) < 2:
                continue
            meta = meta_analysis(part["estimate"], part["se"], scale=ESTIMANDS[key].scale)
            values = (meta["random"], meta["hksj_low"], meta["hksj_high"])
            rows.append({"population": name, "difficulty": difficulty, "models": models,
                         "indicators": indicators, "estimand": key, "estimate": values[0], "low": values[1],
                         "high": values[2], **judge(key, *values)})
    return pd.DataFrame(rows)


def population_words(population: str, names: dict) -> str:
    """A population (or a ``"combined without X"`` row) in the reader's words from ``names``."""
    prefix = "combined without "
    if population.startswith(prefix):
        left = population[len(prefix):]
        return prefix + names.get(left, left)
    return names.get(population, population)


def fragility(specs: pd.DataFrame, default_population: str, names: dict | None = None) -> dict[str, str]:
    """Per estimand, one sentence naming the choices under which its outcome differs from the default path.

    The default path is :data:`DEFAULT` in ``default_population``; ``names`` maps populations to the
    reader's words (:func:`population_words`).
    """
    names = names or {}
    out = {}
    for key, part in specs.groupby("estimand", sort=False):
        base = part[(part["population"] == default_population)
                    & np.logical_and.reduce([part[c] == v for c, v in DEFAULT.items()])]
        if base.empty:
            out[key] = "no default specification to compare with"
            continue
        outcome = base["outcome"].iloc[0]
        differ = part[part["outcome"] != outcome]
        if differ.empty:
            out[key] = f"robust: “{outcome}” in all {len(part)} specifications"
            continue
        changes = []
        for row in differ.itertuples():
            choice = [f"{c} {getattr(row, c)}" for c, v in DEFAULT.items() if getattr(row, c) != v]
            where = [] if row.population == default_population else [population_words(row.population, names)]
            changes.append(", ".join(where + choice) + f" → {row.outcome}")
        out[key] = (f"fragile: “{outcome}” on the default path, but {len(differ)} of {len(part)} "
                    f"specifications differ ({'; '.join(changes[:4])}{'; …' if len(changes) > 4 else ''})")
    return out


@seeded
def split_half_reliability(responses: np.ndarray, stem, *, seed, n_splits: int = 200) -> dict:
    """Split-half reliability of the items' difficulty score in each partition (Spearman–Brown).

    The models are split at random into two halves ``n_splits`` times; in each half every item's
    :func:`empirical_difficulty` is computed, the two halves correlated over the items of each
    partition that both halves observed, and ``2r / (1 + r)`` averaged over the splits.

    Returns
    -------
    dict
        ``stem``, ``nonstem`` (the mean Spearman–Brown reliability), ``stem_sd``, ``nonstem_sd``
        (over the splits) and ``n_splits``.

    Raises
    ------
    DataError
        With fewer than four models (each half needs two).
    """
    n_models = responses.shape[0]
    if n_models < 4:
        raise DataError("responses", f"{n_models} models; a split half needs at least two per half")
    stem = np.asarray(stem, bool)
    rng = rng_from(seed)
    values = {"stem": [], "nonstem": []}
    for _ in range(n_splits):
        order = rng.permutation(n_models)
        halves = (order[: n_models // 2], order[n_models // 2:])
        a, b = (empirical_difficulty(responses[half]) for half in halves)
        for name, part in (("stem", stem), ("nonstem", ~stem)):
            both = part & np.isfinite(a) & np.isfinite(b)
            r = np.corrcoef(a[both], b[both])[0, 1]
            values[name].append(2 * r / (1 + r))
    return {"stem": float(np.mean(values["stem"])), "nonstem": float(np.mean(values["nonstem"])),
            "stem_sd": float(np.std(values["stem"])), "nonstem_sd": float(np.std(values["nonstem"])),
            "n_splits": n_splits}


def disattenuate(ratio: float, low: float, high: float, reliability: dict) -> dict:
    """The STEM ÷ non-STEM variance ratio as an error-free outcome would give it.

    Observed explained variance share ≈ true share × reliability, so the ratio is multiplied by
    ``reliability["nonstem"] / reliability["stem"]``; its interval is scaled the same way (the
    reliabilities' own uncertainty is not propagated).
    """
    factor = reliability["nonstem"] / reliability["stem"] if reliability["stem"] > 0 else math.nan
    if not math.isfinite(factor) or factor <= 0:
        return {"factor": math.nan, "ratio": math.nan, "low": math.nan, "high": math.nan}
    return {"factor": factor, "ratio": ratio * factor, "low": low * factor, "high": high * factor}


def specification_forest(specs: pd.DataFrame, names: dict) -> pd.DataFrame:
    """:func:`~mmlu_audit.analyses.replication.forest_table`-shaped rows of every specification, sorted.

    Per estimand the paper's row first, then the specifications by estimate, each labelled
    "population — difficulty; models; indicators" (``names`` maps populations to words).
    """
    from mmlu_audit.analyses.replication import forest_table

    rows = []
    for key in [k for k in ESTIMANDS if k in set(specs["estimand"])]:
        e = ESTIMANDS[key]
        part = specs[specs["estimand"] == key].sort_values("estimate")
        if part.empty:
            continue
        rows.append(forest_table(part.iloc[:0].assign(population=[]), {}, [key]))
        where = part["population"].map(lambda p: population_words(p, names))
        who = where + " — " + part["difficulty"] + "; " + part["models"] + "; " + part["indicators"]
        rows.append(pd.DataFrame({"claim": e.claim, "estimand": key, "label": e.label, "null": e.null,
                                  "scale": e.scale, "who": who, "kind": "population",
                                  "estimate": part["estimate"], "low": part["low"], "high": part["high"],
                                  "outcome": part["outcome"]}))
    return pd.concat(rows, ignore_index=True)


#: The difficulty outcome the benchmark adds (``bench/bench_multiverse.py``): a 3PL with the §5.1 floor.
THREE_PL = "3PL b̂ (c = 0.25)"
#: The files ``make bench`` writes for this module (the 3PL cells and the b̂ split halves).
BENCH_FILES = ("multiverse_3pl.csv", "reliability_b.csv")


@seeded
def three_pl_specifications(population: str, frame: pd.DataFrame, matrix, *, seed, n_boot: int = 499,
                            fast: bool = False) -> pd.DataFrame:
    """The item-side estimands with the 3PL's difficulties (c = 0.25) as the outcome, all models.

    One 3PL fit of every answered item (the §5.1 null's specification on all items), then
    :func:`item_estimands` for both indicator sets. Columns as :func:`specifications` (without the
    judged fields, which the reader recomputes).
    """
    from mmlu_audit.analyses.modelside import null_spec
    from mmlu_audit.analyses.pipeline import answered_columns
    from mmlu_audit.features import INDICATORS
    from mmlu_audit.irt import fit_cached

    answered = matrix.observed.any(axis=0)
    fit = fit_cached(answered_columns(matrix, answered), null_spec(fast, seed), progress=False)
    b = np.full(matrix.shape[1], np.nan)
    b[answered] = fit.b
    rows = []
    for indicators in SPEC_CHOICES["indicators"]:
        columns = list(INDICATORS) + ([_LENGTH] if indicators == SPEC_CHOICES["indicators"][1] else [])
        for key, (estimate, low, high) in item_estimands(frame, b, columns, seed=seed, n_boot=n_boot).items():
            rows.append({"population": population, "difficulty": THREE_PL,
                         "models": SPEC_CHOICES["models"][0], "indicators": indicators, "estimand": key,
                         "estimate": float(estimate), "low": float(low), "high": float(high)})
    return pd.DataFrame(rows)


@seeded
def b_split_halves(population: str, matrix, stem, *, seed, n_splits: int, fast: bool = False) -> pd.DataFrame:
    """Split-half reliability of the 2PL b̂ itself: each half of the models calibrated on its own.

    Per split the models are halved at random, each half gets the paper's 2PL calibration, and the
    two b̂ vectors are correlated over the items both halves answered, in each partition, with
    Spearman–Brown's ``2r / (1 + r)``.

    Returns
    -------
    DataFrame
        One row per split: ``population``, ``split``, ``r_stem``, ``r_nonstem``, ``reliability_stem``,
        ``reliability_nonstem``.
    """
    from mmlu_audit.analyses.pipeline import answered_columns, calibration_spec
    from mmlu_audit.irt import fit_cached

    n_models = matrix.shape[0]
    if n_models < 4:
        raise DataError(population, f"{n_models} models; a split half needs at least two per half")
    stem = np.asarray(stem, bool)
    rng = rng_from(seed)
    rows = []
    for split in range(n_splits):
        order = rng.permutation(n_models)
        halves = []
        for half in (order[: n_models // 2], order[n_models // 2:]):
            sub = matrix.take(rows=np.sort(half))
            answered = sub.observed.any(axis=0)
            b = np.full(matrix.shape[1], np.nan)
            b[answered] = fit_cached(answered_columns(sub, answered), calibration_spec(fast, seed),
                                     progress=False).b
            halves.append(b)
        row = {"population": population, "split": split}
        for name, part in (("stem", stem), ("nonstem", ~stem)):
            both = part & np.isfinite(halves[0]) & np.isfinite(halves[1])
            r = float(np.corrcoef(halves[0][both], halves[1][both])[0, 1])
            row |= {f"r_{name}": r, f"reliability_{name}": 2 * r / (1 + r)}
        rows.append(row)
    return pd.DataFrame(rows)


def load_bench(folder) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The benchmark's 3PL cells and b̂ split halves in ``folder``, checked, with the cells judged.

    Raises
    ------
    DataError
        If a file is missing (run ``make bench``: ``bench/bench_multiverse.py``) or breaks its
        schema (a missing column or value, a repeated key, an interval that does not hold its
        estimate, a correlation outside [−1, 1]).
    """
    from pathlib import Path

    from mmlu_audit.analyses.study_schema import StudySchema, check_study

    folder = Path(folder)
    for name in BENCH_FILES:
        if not (folder / name).is_file():
            raise DataError(str(folder / name), "no recorded multiverse benchmark: run `make bench` "
                            "(bench/bench_multiverse.py)")
    cells = check_study(pd.read_csv(folder / BENCH_FILES[0]), StudySchema(
        "multiverse 3PL cells", key=("population", *SPEC_CHOICES, "estimand"),
        required=("population", *SPEC_CHOICES, "estimand", "estimate", "low", "high"),
        numeric=("estimate", "low", "high")), folder / BENCH_FILES[0])
    unknown = set(cells["estimand"]) - set(SPEC_ESTIMANDS)
    if unknown or not ((cells["low"] <= cells["estimate"]) & (cells["estimate"] <= cells["high"])).all():
        raise DataError(str(folder / BENCH_FILES[0]), "an unknown estimand or an interval that does not "
                        "hold its estimate")
    halves = check_study(pd.read_csv(folder / BENCH_FILES[1]), StudySchema(
        "b̂ split halves", key=("population", "split"),
        required=("population", "split", "r_stem", "r_nonstem", "reliability_stem", "reliability_nonstem"),
        numeric=("split", "r_stem", "r_nonstem", "reliability_stem", "reliability_nonstem"),
        integer=("split",),
        bounds={"r_stem": (-1.0, 1.0), "r_nonstem": (-1.0, 1.0)},
        derived={f"reliability_{p}": (lambda t, p=p: 2 * t[f"r_{p}"] / (1 + t[f"r_{p}"]))
                 for p in ("stem", "nonstem")}), folder / BENCH_FILES[1])
    judged = [judge(row.estimand, row.estimate, row.low, row.high) for row in cells.itertuples()]
    return pd.concat([cells.reset_index(drop=True), pd.DataFrame(judged)], axis=1), halves
