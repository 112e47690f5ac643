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

from mmlu_audit.analyses.replication import ESTIMANDS, judge, meta_analysis
from mmlu_audit.core.errors import DataError
from mmlu_audit.core.seeds import rng_from, seeded

__all__ = ["CHOICES", "DEFAULT", "SPEC_ESTIMANDS", "combined_specifications", "disattenuate",
           "empirical_difficulty", "fragility", "specification_forest", "specifications",
           "split_half_reliability"]

#: The choices and their values; the first value of each is the book's default path.
CHOICES = {"outcome": ("2PL b̂", "empirical logit"), "models": ("all", "near-chance out"),
           "indicators": ("nine", "ten, with length")}
DEFAULT = {name: values[0] for name, values in CHOICES.items()}
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
def _estimands(frame: pd.DataFrame, outcome: np.ndarray, columns, *, seed, n_boot: int) -> dict:
    """interaction_share, d_ner_contrast and logit2_ratio of ``outcome`` on ``columns``."""
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
            "d_ner_contrast": (table["estimate"], table["estimate"] - crit * table["se_CR2"],
                               table["estimate"] + crit * table["se_CR2"]),
            "logit2_ratio": (ratio["estimate"], ratio["ci_low"], ratio["ci_high"])}


@seeded
def specifications(population: str, frame: pd.DataFrame, matrix, *, seed, n_boot: int = 499) -> pd.DataFrame:
    """Every specification of :data:`CHOICES` in one population, judged.

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
        One row per (outcome, models, indicators, estimand): ``population``, the three choices,
        ``estimand``, ``estimate``, ``low``, ``high`` and the :func:`~mmlu_audit.analyses.replication.judge`
        fields; a cell that cannot be computed without a refit is left out.
    """
    from mmlu_audit.features import INDICATORS
    from mmlu_audit.worlds.calibration import above_floor

    if len(frame) != matrix.shape[1]:
        raise DataError(population, f"{len(frame)} items but {matrix.shape[1]} response columns")
    working = above_floor(matrix.responses, matrix.observed)
    rows = []
    for outcome, models, indicators in itertools.product(*CHOICES.values()):
        dropping = models == CHOICES["models"][1]
        if outcome == CHOICES["outcome"][0]:
            if dropping and not working.all():
                continue  # b̂ without them needs a refit
            y = frame["b_hat"].to_numpy(float)
        else:
            y = empirical_difficulty(matrix.responses[working] if dropping else matrix.responses)
        columns = list(INDICATORS) + ([_LENGTH] if indicators == CHOICES["indicators"][1] else [])
        values = _estimands(frame, y, columns, seed=seed, n_boot=n_boot)
        for key, (estimate, low, high) in values.items():
            rows.append({"population": population, "outcome": outcome, "models": models,
                         "indicators": indicators, "estimand": key, "estimate": float(estimate),
                         "low": float(low), "high": float(high), **judge(key, estimate, low, high)})
    return pd.DataFrame(rows)


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
    cells = specs.groupby(["outcome", "models", "indicators", "estimand"], sort=False)
    for (outcome, models, indicators, key), cell in cells:
        for name, members in groups:
            part = cell[cell["population"].isin(members) & np.isfinite(cell["se"])]
            if len(part) < 2:
                continue
            meta = meta_analysis(part["estimate"], part["se"], scale=ESTIMANDS[key].scale)
            values = (meta["random"], meta["hksj_low"], meta["hksj_high"])
            rows.append({"population": name, "outcome": outcome, "models": models, "indicators": indicators,
                         "estimand": key, "estimate": values[0], "low": values[1], "high": values[2],
                         **judge(key, *values)})
    return pd.DataFrame(rows)


def fragility(specs: pd.DataFrame, default_population: str) -> dict[str, str]:
    """Per estimand, one sentence naming the choices under which its outcome differs from the default path.

    The default path is :data:`DEFAULT` in ``default_population``.
    """
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
            where = [] if row.population == default_population else [row.population]
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
    factor = reliability["nonstem"] / reliability["stem"]
    if not math.isfinite(factor) or factor <= 0:
        return {"factor": math.nan, "ratio": math.nan, "low": math.nan, "high": math.nan}
    return {"factor": factor, "ratio": ratio * factor, "low": low * factor, "high": high * factor}


def specification_forest(specs: pd.DataFrame, names: dict) -> pd.DataFrame:
    """:func:`~mmlu_audit.analyses.replication.forest_table`-shaped rows of every specification, sorted.

    Per estimand the paper's row first, then the specifications by estimate, each labelled
    "population — outcome; models; indicators" (``names`` maps populations to words).
    """
    from mmlu_audit.analyses.replication import forest_table

    rows = []
    for key in SPEC_ESTIMANDS:
        e = ESTIMANDS[key]
        part = specs[specs["estimand"] == key].sort_values("estimate")
        if part.empty:
            continue
        rows.append(forest_table(part.iloc[:0].assign(population=[]), {}, [key]))
        who = (part["population"].map(lambda p: names.get(p, p)) + " — " + part["outcome"] + "; "
               + part["models"] + "; " + part["indicators"])
        rows.append(pd.DataFrame({"claim": e.claim, "estimand": key, "label": e.label, "null": e.null,
                                  "scale": e.scale, "who": who, "kind": "population",
                                  "estimate": part["estimate"], "low": part["low"], "high": part["high"]}))
    return pd.concat(rows, ignore_index=True)
