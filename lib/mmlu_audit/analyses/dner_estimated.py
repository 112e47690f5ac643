"""The D_ner contrast's coverage with the estimated difficulties the chapters use.

The seed study (:mod:`mmlu_audit.analyses.seed_study`) runs §4.2's STEM × D_ner contrast on the
planted b, leaving out b̂'s estimation error: its coverage bounds what the chapters' b̂ can do from
above. Here each seed simulates a whole world at a design
(:mod:`mmlu_audit.analyses.study_designs`), calibrates it with the chapters' 2PL
(:func:`~mmlu_audit.analyses.pipeline.calibration_spec`) on the answered items, and runs the
contrast's CR2 interval on b̂ (:func:`cr2_contrast`), and, beside it,
on the same world's planted b (the paired upper bound).

The estimand, per SD of difficulty. b̂ is a 2PL calibration of 3PL responses under a N(0, 1) prior,
so it lies on another scale than the planted b (its slope on b is not 1, see the validity
appendix), and a contrast in b̂ logits cannot be compared with one in planted logits. Both are
therefore divided by the SD (population) of the difficulties they were regressed on, over the
same items: the planted contrast (STEM − non-STEM slope of ``d_ner``, as planted) / SD(b), and
the estimated contrast and both ends of its CR2 interval / SD(b̂). It is the scale a chapter can
compute on real data (the issue's "CR2 standard error per SD of b̂"), and it needs no link
between b̂ and b: a linear one (b̂ ≈ α + β·b) cancels exactly, and what is left is b̂'s noise
and nonlinearity, the estimation error the study is about. Dividing the interval by the
estimated SD(b̂) treats that SD as known; with thousands of items its own error is negligible
beside the contrast's.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from mmlu_audit.analyses.lambda_coverage import coverage_record
from mmlu_audit.analyses.replication import per_difficulty_sd
from mmlu_audit.analyses.study_schema import StudySchema, check_study
from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.core.seeds import check_seed, seeded

__all__ = ["DNER_COLUMNS", "DNER_OUTCOMES", "DNER_SCHEMA", "DNER_WORLDS", "cr2_contrast",
           "dner_coverage_table", "dner_replicate", "dner_summary", "load_dner_estimated", "planted_bound",
           "scale_free_contrast"]

#: The worlds: name → :class:`~mmlu_audit.worlds.simulated.WorldSpec` changes (the seed study's two).
DNER_WORLDS = {"planted": {}, "null": {"null_world": True}}
#: The two outcomes each seed regresses: column prefix → what it is.
DNER_OUTCOMES = {"est": "b̂ (the chapters' 2PL calibration)", "true": "planted b (no estimation error)"}
_PARTS = ("estimate", "low", "high")
#: The columns of a recorded study (``bench/results/dner_estimated.csv``).
DNER_COLUMNS = ("design", "world", "seed", "d_ner_planted", "planted_sd",
                *(f"{outcome}_{part}" for outcome in DNER_OUTCOMES for part in (*_PARTS, "sd")),
                "n_items", "fit_steps")


def scale_free_contrast(contrast: dict, outcome) -> dict:
    """A contrast's estimate and CR2 interval divided by the SD (population) of its outcome.

    Parameters
    ----------
    contrast : dict
        :func:`~mmlu_audit.analyses.central.d_ner_tests`' ``d_ner_estimate``, ``d_ner_low`` and
        ``d_ner_high``.
    outcome : array
        The difficulties the contrast was estimated on.

    Returns
    -------
    dict
        ``estimate``, ``low``, ``high`` (per SD of the outcome) and ``sd``.

    Raises
    ------
    DataError
        If the outcome does not vary.
    """
    values = per_difficulty_sd(*(contrast[f"d_ner_{part}"] for part in _PARTS), outcome)
    return dict(zip(_PARTS, values, strict=True)) | {"sd": float(np.std(np.asarray(outcome, float)))}


def cr2_contrast(y, X: pd.DataFrame, stem, subjects) -> dict:
    """§4.2's STEM × D_ner contrast and its CR2 95 % interval (Bell–McCaffrey t), as the chapters compute it.

    :func:`~mmlu_audit.analyses.central.d_ner_tests` without its bootstrap, which the interval does
    not use.

    Returns
    -------
    dict
        ``d_ner_estimate``, ``d_ner_low`` and ``d_ner_high``.
    """
    from scipy import stats

    from mmlu_audit.analyses.regression import contrast_terms, contrast_tests, interaction_fit

    fit = interaction_fit(y, X, stem)
    row = contrast_tests(fit, subjects, contrast_terms(X.columns), kinds=("CR2",)).loc["STEM:d_ner"]
    half = float(stats.t.ppf(0.975, row["df_CR2"]) * row["se_CR2"])
    return {"d_ner_estimate": float(row["estimate"]), "d_ner_low": float(row["estimate"] - half),
            "d_ner_high": float(row["estimate"] + half)}


@seeded
def dner_replicate(design, world: str, seed: int, max_steps: int | None = None) -> dict:
    """One world of ``design``: the D_ner contrast per SD of difficulty, on b̂ and on the planted b.

    Parameters
    ----------
    design : StudyDesign
        Where the world is simulated (:func:`mmlu_audit.analyses.study_designs.study_design`).
    world : {"planted", "null"}
        The paper's slopes, or identical slopes in both partitions (planted contrast 0).
    seed : int
        Seed of the world and of the 2PL calibration.
    max_steps : int, optional
        An SVI step cap (smoke runs); None keeps the calibration's stopping rule.

    Returns
    -------
    dict
        ``d_ner_planted`` (in planted logits), ``planted_sd`` (the planted contrast per SD of b),
        and for each outcome of :data:`DNER_OUTCOMES` (``est_``, ``true_``) the contrast's
        estimate, CR2 95 % interval and the outcome's SD; the items regressed and the fit's steps.
    """
    from mmlu_audit.analyses.pipeline import answered_columns, calibration_spec
    from mmlu_audit.analyses.power import world_frame
    from mmlu_audit.analyses.regression import design_arrays
    from mmlu_audit.analyses.regression.designs import estimated_items
    from mmlu_audit.irt import fit_irt

    if world not in DNER_WORLDS:
        raise ParameterError("world", f"unknown world {world!r}; choose one of {list(DNER_WORLDS)}")
    seed, design = check_seed(seed), design.with_spec(**DNER_WORLDS[world])
    simulated, answered = design.simulate(seed), design.answered
    steps = {} if max_steps is None else {"max_steps": max_steps}
    fit = fit_irt(answered_columns(simulated.matrix, answered), calibration_spec(False, seed, **steps),
                  progress=False)
    frame = world_frame(design.items, design.features.set_index(design.items["item_id"]), fit, answered)
    frame = estimated_items(frame.assign(b_true=simulated.truth["b"]))
    X, _, stem, subjects = design_arrays(frame)
    slopes = design.spec.planted_slopes().loc["d_ner"]
    planted = float(slopes.iloc[0] - slopes.iloc[1])
    row = {"d_ner_planted": planted, "planted_sd": planted / float(np.std(frame["b_true"].to_numpy(float)))}
    for outcome, column in (("est", "b_hat"), ("true", "b_true")):
        y = frame[column].to_numpy(float)
        contrast = scale_free_contrast(cr2_contrast(y, X, stem, subjects), y)
        row |= {f"{outcome}_{part}": value for part, value in contrast.items()}
    return row | {"n_items": int(len(frame)), "fit_steps": int(fit.meta["steps"])}


#: The rules of a recorded study: one row per design, world and seed, every field finite.
DNER_SCHEMA = StudySchema(
    what="D_ner coverage study with estimated b", key=("design", "world", "seed"), required=DNER_COLUMNS,
    numeric=DNER_COLUMNS[2:], integer=("seed", "n_items", "fit_steps"),
    bounds={"seed": (0, np.inf), "est_sd": (0.0, np.inf), "true_sd": (0.0, np.inf)})


def load_dner_estimated(folder) -> pd.DataFrame:
    """The recorded study in ``folder`` (``dner_estimated.csv``), checked against :data:`DNER_SCHEMA`.

    Raises
    ------
    DataError
        If the file is missing (run ``bench/bench_dner_estimated.py``) or breaks the schema.
    """
    path = Path(folder) / "dner_estimated.csv"
    if not path.is_file():
        raise DataError(str(path),
                        "no recorded D_ner study with estimated b: run bench/bench_dner_estimated.py")
    table = pd.read_csv(path, keep_default_na=False, na_values=[""])  # "null" names a world, not NaN
    return check_study(table, DNER_SCHEMA, path)


def dner_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Coverage of the planted contrast per SD of b, on b̂ and on the planted b, per design and world.

    Parameters
    ----------
    table : DataFrame
        A recorded study (:func:`load_dner_estimated`) or :func:`dner_replicate` rows with ``design``,
        ``world`` and ``seed``.

    Returns
    -------
    DataFrame
        One row per design, world and outcome (``"est"``: b̂, ``"true"``: planted b): ``outcome``
        (what it is) and :func:`~mmlu_audit.analyses.lambda_coverage.coverage_record`'s fields
        (bias, SD and width per SD of difficulty).
    """
    rows = []
    for (design, world), part in table.groupby(["design", "world"], sort=False):
        for outcome, label in DNER_OUTCOMES.items():
            ends = (part[f"{outcome}_{name}"] for name in _PARTS)
            rows.append({"design": design, "world": world, "outcome": label}
                        | coverage_record(part["planted_sd"], *ends))
    return pd.DataFrame(rows)


def planted_bound(folder) -> pd.DataFrame:
    """The seed study's coverage of the planted contrast (planted b, no estimation error), per world.

    Parameters
    ----------
    folder : str or Path
        The results folder holding ``seed_study.csv``
        (:func:`~mmlu_audit.analyses.seed_study.load_seed_study`).

    Returns
    -------
    DataFrame
        :func:`dner_summary`'s columns for the seed study's worlds (design ``"seed study"``, every
        item, the planted contrast in logits); ``bias`` and ``mean_width`` in logits of b.
    """
    from mmlu_audit.analyses.seed_study import load_seed_study

    table = load_seed_study(folder)
    rows = []
    for world, part in table.groupby("world", sort=False):
        ends = (part[f"d_ner_{name}"] for name in ("planted", "estimate", "low", "high"))
        rows.append({"design": "seed study", "world": world,
                     "outcome": "planted b, in logits (no estimation error)"} | coverage_record(*ends))
    return pd.DataFrame(rows)


def dner_coverage_table(folder) -> pd.DataFrame:
    """The recorded study's coverage (:func:`dner_summary`) above the seed study's planted-b bound.

    Parameters
    ----------
    folder : str or Path
        The results folder (``dner_estimated.csv`` and ``seed_study.csv``).

    Raises
    ------
    DataError
        If either study is not recorded or breaks its schema.
    """
    return pd.concat([dner_summary(load_dner_estimated(folder)), planted_bound(folder)], ignore_index=True)
