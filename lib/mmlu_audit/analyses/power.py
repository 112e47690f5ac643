"""Power and size of the central tests at a real population's design, over many seeds.

A real test that fails to reject on a few dozen models says little unless we know how often
it rejects there when the paper's effect is true. This module answers that by simulation:

- :func:`one_seed_at_design` draws one world at a real design
  (:func:`~mmlu_audit.worlds.real_design.simulate_at_design`: the real models, their missing
  cells and their accuracies), calibrates it with the chapters' 2PL and runs the four tests a
  real-data verdict reads (:data:`~mmlu_audit.analyses.central.CLAIM_TESTS`), under the paper's
  slopes (world ``"paper"``: the rate at which a test supports the claim is its **power**), under
  identical slopes in both partitions (world ``"null"``: for the item-side tests the rate is their
  **size**), or under the paper's slopes plus a real ability × depth interaction of the size §5.1's
  two-stage estimate implies (world ``"floor_false"``,
  :func:`~mmlu_audit.worlds.real_design.two_stage_interaction`: there the guessing-floor claim
  is false, and its support rate is its **false-support rate**);
- :func:`run_seeds` is a generic, resumable many-seed runner: one CSV row per finished seed
  (appended as it finishes, so a partial run is usable and an interrupted one resumes), seeds
  already in the file skipped, a foreign file refused, and an optional stopping rule
  (:class:`StopRule`: every rate's Monte Carlo SE at or below a target after a minimum number
  of seeds);
- :func:`rates` turns the rows into rejection (support) rates with their Monte Carlo SE
  √(p(1 − p)/n) and the number of seeds;
- :func:`load_power` reads the committed ``bench/results/real_power.json``
  (written by ``bench/bench_real_power.py``) for the book.

The guessing-floor claim (§5.1: r(β, θ̂) is the floor's artefact, so it lies inside the 3PL
null's predictive band) is true in the ``"paper"`` and ``"null"`` worlds, which plant no ability
× depth interaction: there its support rate is one minus its size. In ``"floor_false"`` the
interaction is real and the claim false (:data:`CLAIM_FALSE`); :func:`power_table` shows that
rate as ``false_support``.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from mmlu_audit.analyses.study_schema import StudySchema, check_study, read_study_json
from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.core.paths import CACHE_ENV, project_root
from mmlu_audit.core.seeds import check_seed, seeded
from mmlu_audit.worlds.real_design import two_stage_interaction

__all__ = ["CLAIM_FALSE", "POWER_SETTINGS", "POWER_TESTS", "RATE_COLUMNS", "SIZE_POWER_COLUMNS", "WORLDS",
           "RunResult", "StopRule", "load_power", "load_size_power", "mc_se", "one_seed_at_design",
           "power_path", "power_schema", "power_table", "rates", "read_rows", "run_seeds", "world_frame"]

#: The worlds of the study: name → :class:`~mmlu_audit.worlds.simulated.WorldSpec` changes.
#: ``"floor_false"`` keeps the paper's slopes and adds the ability × depth interaction that §5.1's
#: two-stage estimate implies (:func:`~mmlu_audit.worlds.real_design.two_stage_interaction`).
WORLDS = {"paper": {}, "null": {"null_world": True},
          "floor_false": {"ability_depth": two_stage_interaction()}}
#: World → the claim (a test of :data:`POWER_TESTS`) that is false in it, so that test's support
#: rate there is a false-support rate.
CLAIM_FALSE = {"floor_false": "guessing_floor"}
#: The decisions a row records: each claim's verdict (:data:`~mmlu_audit.analyses.central.DECISIONS`),
#: then each of the two size-holding tests the homogeneity and D_ner verdicts combine, alone.
POWER_TESTS = ("homogeneity", "d_ner", "stem_r2", "guessing_floor",
               "homogeneity_htz", "homogeneity_wcb", "d_ner_cr2", "d_ner_boot")
#: The columns of the rates table (:func:`rates`) and of the ``rates`` records of the results file.
RATE_COLUMNS = ("design", "world", "test", "rate", "mc_se", "n_seeds")
#: Columns the runner writes before a task's own: the seed and its wall time in seconds.
_RUNNER_COLUMNS = ("seed", "seconds")


def mc_se(rate, n):
    """Monte Carlo standard error √(p(1 − p)/n) of a rate ``p`` estimated from ``n`` seeds."""
    rate, n = np.asarray(rate, float), np.asarray(n, float)
    return np.sqrt(rate * (1 - rate) / n)


def rates(rows: pd.DataFrame | Sequence[Mapping], tests: Sequence[str] = POWER_TESTS,
          by: Sequence[str] = ("design", "world")) -> pd.DataFrame:
    """Rejection (support) rate of each test per group, with its Monte Carlo SE and seed count.

    Parameters
    ----------
    rows : DataFrame or sequence of dict
        One row per seed and group (:func:`run_seeds`' rows), with the columns ``by`` and one
        boolean column per test; a missing decision (NaN) does not count.
    tests : sequence of str
        The boolean columns to rate; those absent from ``rows`` are skipped.
    by : sequence of str
        The grouping columns (those absent are skipped).

    Returns
    -------
    DataFrame
        Columns ``by``, ``test``, ``rate``, ``mc_se`` (√(p(1 − p)/n)) and ``n_seeds``, one row per
        group and test, groups in order of appearance and tests in the order given.

    Raises
    ------
    DataError
        If a test column holds anything but booleans (or 0/1).
    """
    frame = pd.DataFrame(list(rows)) if not isinstance(rows, pd.DataFrame) else rows
    by = [column for column in by if column in frame.columns]
    tests = [test for test in tests if test in frame.columns]
    out = []
    groups = frame.groupby(by, sort=False, dropna=False) if by else [((), frame)]
    for keys, group in groups:
        keys = keys if isinstance(keys, tuple) else (keys,)
        for test in tests:
            values = _decisions(group[test], test)
            n = int(values.size)
            rate = float(values.mean()) if n else np.nan
            out.append({**dict(zip(by, keys, strict=True)), "test": test, "rate": rate,
                        "mc_se": float(mc_se(rate, n)) if n else np.nan, "n_seeds": n})
    return pd.DataFrame(out, columns=[*by, "test", "rate", "mc_se", "n_seeds"])


def _decisions(column: pd.Series, name: str) -> np.ndarray:
    """The non-missing decisions of one column as 0/1 floats."""
    values = column.dropna()
    if values.dtype == object:
        mapping = {"True": 1.0, "False": 0.0, True: 1.0, False: 0.0}
        if not values.isin(list(mapping)).all():
            raise DataError(name, "a decision column holds values other than True/False")
        return values.map(mapping).to_numpy(float)
    values = values.to_numpy(float)
    if not np.isin(values, (0.0, 1.0)).all():
        raise DataError(name, "a decision column holds values other than True/False")
    return values


@dataclass(frozen=True)
class StopRule:
    """Stop a many-seed run once every rate is precise enough.

    Parameters
    ----------
    target_se : float
        The Monte Carlo SE √(p(1 − p)/n) every rate must reach (at or below).
    min_seeds : int
        Seeds to finish before the rule may stop the run (a rate of 0 or 1 has SE 0 at any n,
        so a small ``n`` alone must not end it).
    tests : sequence of str
        The decision columns whose rates must reach the target.
    by : sequence of str
        The grouping columns: the rule holds for every group.
    """

    target_se: float = 0.03
    min_seeds: int = 20
    tests: tuple = POWER_TESTS
    by: tuple = ("world",)

    def __post_init__(self):
        if not 0 < self.target_se < 0.5:
            raise ParameterError("target_se", f"must lie in (0, 0.5), got {self.target_se}")
        if self.min_seeds < 1:
            raise ParameterError("min_seeds", f"must be at least 1, got {self.min_seeds}")

    def reached(self, rows: pd.DataFrame) -> bool:
        """Whether ``rows`` have at least ``min_seeds`` seeds and every rate's SE ≤ ``target_se``."""
        if rows.empty or rows["seed"].nunique() < self.min_seeds:
            return False
        table = rates(rows, self.tests, self.by)
        return bool(len(table)) and bool((table["mc_se"] <= self.target_se + 1e-12).all())


@dataclass(frozen=True)
class RunResult:
    """What :func:`run_seeds` did.

    Attributes
    ----------
    rows : DataFrame
        Every row of the file for this run's ``key`` (earlier runs' and this one's).
    ran : list of int
        The seeds computed in this call.
    stopped : bool
        Whether the stopping rule ended the run before the seed list did.
    """

    rows: pd.DataFrame
    ran: list
    stopped: bool


def run_seeds(task: Callable[[int], Mapping | Sequence[Mapping]], seeds: Iterable[int], path: str | Path, *,
              config: Mapping | None = None, key: Mapping | None = None, stop: StopRule | None = None,
              progress: bool = True) -> RunResult:
    """Run ``task`` seed by seed, appending each finished seed's rows to a CSV file.

    Parameters
    ----------
    task : callable
        ``task(seed)`` → one dict of scalar values (one row) or a list of them (several rows
        for the seed, say one per world), with the same keys for every seed.
    seeds : iterable of int
        The seeds, in the order to run them.
    path : str or Path
        The CSV file. Created with a header when absent; otherwise its header and its config
        columns must match this run (a file of another study or other settings is refused),
        and seeds it already holds for ``key`` are skipped.
    config : dict, optional
        Settings every row of the file shares (say ``n_boot``): written as columns, and checked
        against every row already in the file.
    key : dict, optional
        Columns naming this run within the file (say ``{"design": "mmlu_real"}``): rows of other
        keys are left alone and do not count as done or towards the stopping rule.
    stop : StopRule, optional
        Checked on this key's rows before each seed; the run ends once it is reached.
    progress : bool
        Show a progress bar.

    Returns
    -------
    RunResult

    Raises
    ------
    DataError
        If the file's header or config does not match this run, or a task's row changes its
        columns.

    Notes
    -----
    A seed's rows are written in one ``write`` and flushed to disk before the next seed starts,
    so an interrupted run loses at most the seed in progress. The runner adds ``seed`` and
    ``seconds`` (the seed's wall time) as the first columns.
    """
    from tqdm.auto import tqdm

    path, config, key = Path(path), dict(config or {}), dict(key or {})
    fixed = {**key, **config}
    clash = set(fixed) & set(_RUNNER_COLUMNS)
    if clash or set(key) & set(config):
        raise ParameterError("config", f"key and config columns must be distinct and not {_RUNNER_COLUMNS}")
    existing = read_rows(path)
    header = list(existing.columns) if existing is not None else None
    if existing is not None:
        _check_config(existing, config, path)
    mine = _select(existing, key) if existing is not None else pd.DataFrame()
    done = set(mine["seed"].astype(int)) if len(mine) else set()
    todo = [check_seed(seed) for seed in seeds if check_seed(seed) not in done]
    ran, stopped = [], False
    for seed in tqdm(todo, desc="seeds", disable=not progress):
        if stop is not None and stop.reached(mine):
            stopped = True
            break
        start = time.perf_counter()
        result = task(seed)
        seconds = time.perf_counter() - start
        new = [{"seed": seed, "seconds": round(seconds, 3), **fixed, **row}
               for row in ([result] if isinstance(result, Mapping) else list(result))]
        columns = list(new[0])
        if any(list(row) != columns for row in new):
            raise DataError(path, f"seed {seed}'s rows do not share their columns")
        if header is None:
            header = columns
            _append(path, new, header, write_header=True)
        else:
            if columns != header:
                raise DataError(path, f"seed {seed}'s columns {columns} differ from the file's header "
                                      f"{header}: another study's file")
            _append(path, new, header, write_header=False)
        mine = pd.concat([mine, pd.DataFrame(new)], ignore_index=True) if len(mine) else pd.DataFrame(new)
        ran.append(seed)
    return RunResult(mine.reset_index(drop=True), ran, stopped)


def read_rows(path: str | Path) -> pd.DataFrame | None:
    """The rows of a :func:`run_seeds` CSV file, None when it does not exist or is empty.

    Only an empty field is missing (a world named ``"null"`` stays a string).

    Raises
    ------
    DataError
        If the file is unreadable or does not start with the runner's columns.
    """
    path = Path(path)
    if not path.exists() or path.stat().st_size == 0:
        return None
    try:
        rows = pd.read_csv(path, keep_default_na=False, na_values=[""])
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise DataError(path, f"not a readable many-seed results file ({exc})") from exc
    missing = [column for column in _RUNNER_COLUMNS if column not in rows.columns]
    if missing or list(rows.columns[:2]) != list(_RUNNER_COLUMNS):
        raise DataError(path, f"not a many-seed results file: its first columns are not {_RUNNER_COLUMNS}")
    return rows


def _same(value, wanted) -> bool:
    """Whether a value read back from CSV equals the one a run would write."""
    if isinstance(wanted, bool) or isinstance(value, (bool, np.bool_)):
        return str(value) == str(wanted)
    if isinstance(wanted, (int, float)) and not isinstance(wanted, bool):
        try:
            return math.isclose(float(value), float(wanted), rel_tol=1e-12, abs_tol=0.0)
        except (TypeError, ValueError):
            return False
    return str(value) == str(wanted)


def _check_config(rows: pd.DataFrame, config: Mapping, path: Path) -> None:
    """Refuse a file whose rows were run under other settings."""
    for name, wanted in config.items():
        if name not in rows.columns:
            raise DataError(path, f"has no config column {name!r}: another study's file")
        bad = [value for value in rows[name].unique() if not _same(value, wanted)]
        if bad:
            raise DataError(path, f"was run with {name} = {bad[0]!r}, not {wanted!r}: "
                                  "write to another file or delete it")


def _select(rows: pd.DataFrame, key: Mapping) -> pd.DataFrame:
    """The rows of ``key``; a key column the file lacks makes it another study's file."""
    mask = np.ones(len(rows), bool)
    for name, wanted in key.items():
        if name not in rows.columns:
            raise DataError(name, "the file has no such key column: another study's file")
        mask &= np.array([_same(value, wanted) for value in rows[name]], bool)
    return rows[mask].reset_index(drop=True)


def _append(path: Path, rows: list[dict], header: list[str], *, write_header: bool) -> None:
    """Append ``rows`` (and the header, for a new file) in one write, then fsync."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=header, lineterminator="\n")
    if write_header:
        writer.writeheader()
    writer.writerows(rows)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(buffer.getvalue())
        handle.flush()
        os.fsync(handle.fileno())


@contextmanager
def _scratch_cache():
    """Send cache writes to a temporary folder (removed on exit) for the duration of the block.

    :func:`~mmlu_audit.analyses.central.guessing_floor_test` caches its 3PL fit; a power
    study's hundreds of one-off fits must not fill the project's cache.
    """
    before = os.environ.get(CACHE_ENV)
    with tempfile.TemporaryDirectory(prefix="mmlu-power-cache-") as folder:
        os.environ[CACHE_ENV] = folder
        try:
            yield
        finally:
            if before is None:
                os.environ.pop(CACHE_ENV, None)
            else:
                os.environ[CACHE_ENV] = before


def world_frame(items: pd.DataFrame, features: pd.DataFrame, fit, answered: np.ndarray) -> pd.DataFrame:
    """The item frame of :func:`~mmlu_audit.analyses.pipeline.analysis_inputs` for one fit.

    ``b_hat``, ``a_hat`` and ``b_sd`` on the ``answered`` columns (NaN elsewhere), joined with
    the feature table, indexed by ``item_id``.
    """
    frame = items[["item_id", "subject", "partition", "stem"]].copy()
    for column, values in (("b_hat", fit.b), ("a_hat", fit.a), ("b_sd", fit.dataset["b_sd"].to_numpy())):
        frame[column] = np.nan
        frame.loc[answered, column] = values
    return frame.join(features, on="item_id").set_index("item_id")


@seeded
def one_seed_at_design(design, items: pd.DataFrame, features: pd.DataFrame, seed: int, world: str = "paper",
                       n_boot: int = 999, replicates: int = 20, fast: bool = False, calibration=None) -> dict:
    """The four central tests on one simulated world at a real design.

    Parameters
    ----------
    design : ResponseMatrix
        The real matrix whose models, missing cells and accuracies the world keeps (columns in
        ``items`` order).
    items : DataFrame
        The items.
    features : DataFrame
        The feature table indexed by ``item_id``, with the nine indicators (the world's
        covariates and the regressions' predictors) and ``wscg_depth``.
    seed : int
        Seed of the world, of the 2PL calibration (``calibration_spec(fast, seed)``, the
        chapters' spec), of the bootstraps and CV folds, and of the 3PL null.
    world : {"paper", "null", "floor_false"}
        ``"paper"``: :class:`~mmlu_audit.worlds.simulated.WorldSpec` with the paper's slopes
        (rates are power); ``"null"``: identical slopes in both partitions (rates of the
        item-side tests are their size); ``"floor_false"``: the paper's slopes and an ability ×
        depth interaction (:data:`WORLDS`), where the guessing-floor claim is false.
    n_boot : int
        Draws of each bootstrap of the item-side tests.
    replicates : int
        Matrices simulated from the fitted 3PL for the guessing-floor null; at least
        :func:`~mmlu_audit.analyses.central.floor_min_replicates`, or its rule could not fail.
    fast : bool
        The smoke runs' SVI step cap for both calibrations (tests and ``--quick`` only).
    calibration : DesignCalibration, optional
        The item side calibrated to the real pool
        (:func:`~mmlu_audit.worlds.design_calibration.calibrate_design`); None (the committed
        study's world) draws the uncalibrated world. With it the row gains ``world_calibration``
        (its fields as JSON), so rows of the two worlds are never mixed.

    Returns
    -------
    dict
        ``world``; each test's decision (``homogeneity``, ``d_ner``, ``stem_r2``,
        ``guessing_floor``: True when the result supports the paper's claim by
        :data:`~mmlu_audit.analyses.central.DECISIONS`); the two halves of the homogeneity and
        D_ner rules alone (``homogeneity_htz``, ``homogeneity_wcb``, ``d_ner_cr2``,
        ``d_ner_boot``: p < 0.05); the statistics behind them (``w9_htz_p``, ``wcb_p``,
        ``d_ner_estimate``, ``holm_p_cr2_d_ner``, ``boot_holm_p_d_ner``, ``cv_r2_stem``,
        ``cv_r2_nonstem``, ``logit2_ratio``, ``logit2_ratio_ci_low``, ``rs_r_all``,
        ``null_r_all``, ``null_low_all``, ``null_high_all``, ``null_tail_p_all``,
        ``null_share_all``), the planted γ (``ability_depth``), the items in the regressions and
        the 2PL fit's step count.

    Raises
    ------
    ParameterError
        For an unknown world, or too few replicates for the guessing-floor rule to fail.

    Notes
    -----
    The guessing-floor claim is true in ``"paper"`` and ``"null"`` (no ability × depth term) and
    false in ``"floor_false"``. Its 3PL fit goes to a temporary cache folder, removed after the
    call.
    """
    from mmlu_audit.analyses.central import ALPHA, central_tests, floor_min_replicates, guessing_floor_test
    from mmlu_audit.analyses.pipeline import answered_columns, calibration_spec
    from mmlu_audit.irt import fit_irt
    from mmlu_audit.worlds.real_design import simulate_at_design
    from mmlu_audit.worlds.simulated import WorldSpec

    if world not in WORLDS:
        raise ParameterError("world", f"unknown world {world!r}; choose one of {list(WORLDS)}")
    if replicates < floor_min_replicates():
        raise ParameterError("replicates", f"the guessing-floor rule needs at least {floor_min_replicates()} "
                                           f"3PL-null replicates to be able to fail, got {replicates}")
    spec = WorldSpec(**WORLDS[world])
    covariates = features.loc[items["item_id"].to_numpy(), list(spec.slopes)].reset_index(drop=True)
    simulated = simulate_at_design(design, spec, items, covariates, seed=seed, calibration=calibration)
    matrix = simulated.matrix
    answered = matrix.observed.any(axis=0)
    fit = fit_irt(answered_columns(matrix, answered), calibration_spec(fast, seed), progress=False)
    frame = world_frame(items, features, fit, answered)
    central = central_tests(frame, seed=seed, n_boot=n_boot)
    with _scratch_cache():
        floor = guessing_floor_test(matrix, frame, fit.theta, seed=seed, fast=fast, replicates=replicates)
    homogeneity, d_ner, stem_r2 = central["homogeneity"], central["d_ner"], central["stem_r2"]
    return {
        "world": world,
        "homogeneity": homogeneity["supports"], "d_ner": d_ner["supports"], "stem_r2": stem_r2["supports"],
        "guessing_floor": floor["supports"],
        "homogeneity_htz": bool(homogeneity["w9_htz_p"] < ALPHA),
        "homogeneity_wcb": bool(homogeneity["wcb_p"] < ALPHA),
        "d_ner_cr2": bool(d_ner["holm_p_cr2_d_ner"] < ALPHA),
        "d_ner_boot": bool(d_ner["boot_holm_p_d_ner"] < ALPHA),
        "w9_htz_p": homogeneity["w9_htz_p"], "wcb_p": homogeneity["wcb_p"],
        "d_ner_estimate": d_ner["d_ner_estimate"], "holm_p_cr2_d_ner": d_ner["holm_p_cr2_d_ner"],
        "boot_holm_p_d_ner": d_ner["boot_holm_p_d_ner"],
        "cv_r2_stem": stem_r2["cv_r2_stem"], "cv_r2_nonstem": stem_r2["cv_r2_nonstem"],
        "logit2_ratio": stem_r2["logit2_ratio"], "logit2_ratio_ci_low": stem_r2["logit2_ratio_ci_low"],
        **{key: floor[key] for key in ("rs_r_all", "null_r_all", "null_low_all", "null_high_all",
                                       "null_tail_p_all", "null_share_all")},
        "ability_depth": spec.ability_depth,
        "n_items": int(homogeneity["n_items"]), "fit_steps": int(fit.meta["steps"]),
    } | ({} if calibration is None
         else {"world_calibration": json.dumps(calibration.to_dict(), default=float)})


def power_table(table: pd.DataFrame, design: str = "mmlu_real") -> pd.DataFrame:
    """One design's rates side by side: power, the rate under the null, false support.

    Parameters
    ----------
    table : DataFrame
        A rates table (:func:`rates` or :func:`load_power`) with worlds ``"paper"`` and ``"null"``,
        and possibly the worlds of :data:`CLAIM_FALSE`.
    design : str
        The design to show.

    Returns
    -------
    DataFrame
        Indexed by test (in :data:`POWER_TESTS` order): ``power`` and ``power_se`` (world
        ``"paper"``; for ``guessing_floor``, whose claim is true there, one minus its size),
        ``null_rate`` and ``null_se`` (world ``"null"``: the size of the item-side tests; for
        ``guessing_floor`` again one minus its size), ``false_support`` and ``false_support_se``
        (the support rate of a claim in the world where it is false, :data:`CLAIM_FALSE`; NaN
        for the other tests and when that world was not run), and ``n_seeds`` (the smallest
        count of the worlds shown).

    Raises
    ------
    DataError
        If the table has no rows for ``design`` in both the paper and the null world.
    """
    rows = table[table["design"] == design]
    if set(rows["world"]) < {"paper", "null"}:
        raise DataError(design, "the rates table lacks the paper or the null world for this design")
    paper, null = (rows[rows["world"] == w].set_index("test") for w in ("paper", "null"))
    tests = [t for t in POWER_TESTS if t in paper.index and t in null.index]
    out = pd.DataFrame({"power": paper.loc[tests, "rate"], "power_se": paper.loc[tests, "mc_se"],
                        "null_rate": null.loc[tests, "rate"], "null_se": null.loc[tests, "mc_se"],
                        "false_support": np.nan, "false_support_se": np.nan,
                        "n_seeds": np.minimum(paper.loc[tests, "n_seeds"], null.loc[tests, "n_seeds"])})
    for world, test in CLAIM_FALSE.items():
        false = rows[(rows["world"] == world) & (rows["test"] == test)]
        if test in out.index and len(false):
            out.loc[test, ["false_support", "false_support_se"]] = false[["rate", "mc_se"]].to_numpy()[0]
            out.loc[test, "n_seeds"] = min(out.loc[test, "n_seeds"], int(false["n_seeds"].iloc[0]))
    return out


def power_path() -> Path:
    """Where ``bench/bench_real_power.py`` writes the study's summary."""
    return project_root() / "bench" / "results" / "real_power.json"


def load_power(path: str | Path | None = None) -> pd.DataFrame:
    """The committed power study's rates table, validated.

    Parameters
    ----------
    path : str or Path, optional
        The summary JSON; defaults to :func:`power_path`.

    Returns
    -------
    DataFrame
        Columns :data:`RATE_COLUMNS` plus ``target_reached``, one row per design, world and
        test (a world of :data:`CLAIM_FALSE` included when the study ran it: its rate for the
        claim false there is a false-support rate, which :func:`power_table` shows as such);
        ``attrs`` holds the file's ``settings``, ``target_se``, ``designs`` and ``worlds`` (those
        the rates hold).

    Raises
    ------
    DataError
        If the file is missing, not JSON, lacks a setting of :data:`POWER_SETTINGS`, or its rates
        break :func:`power_schema` (a missing or non-finite field, a rate outside [0, 1], a seed
        count below 1, a repeated design, world and test, an SE that is not √(p(1 − p)/n), a
        ``target_reached`` that is not ``mc_se`` ≤ ``target_se``). ``mc_se`` and
        ``target_reached`` are returned as recomputed.
    """
    path = Path(path) if path is not None else power_path()
    result = read_study_json(path, "power study", "bench/bench_real_power.py")
    problem = _power_problem(result)
    if problem:
        raise DataError(path, f"not a valid power-study result: {problem}")
    table = check_study(pd.DataFrame(result["rates"]), power_schema(result["target_se"]), path)
    table = table[[*RATE_COLUMNS, "target_reached"]]
    table.attrs.update(settings=result["settings"], target_se=result["target_se"], designs=result["designs"],
                       worlds=list(dict.fromkeys(table["world"])))
    return table


#: The columns of the inference engine's size and power study (``bench/results/size_power.csv``).
SIZE_POWER_COLUMNS = ("world", "method", "rejection_rate", "mc_se", "n_reps", "n_draws", "alpha", "planted")


def load_size_power(folder) -> pd.DataFrame:
    """The recorded size and power study in ``folder`` (``size_power.csv``), checked at load.

    Parameters
    ----------
    folder : str or Path
        The results folder a chapter reads (its ``results_dir`` parameter).

    Returns
    -------
    DataFrame
        One row per world and method (:func:`mmlu_audit.worlds.homogeneity.size_power_table`),
        ``mc_se`` recomputed as √(r(1 − r)/n) over the replicates the test was defined in.

    Raises
    ------
    DataError
        If the file is missing (run ``make bench``) or breaks the shared schema check
        (:func:`~mmlu_audit.analyses.study_schema.check_study`).
    """
    path = Path(folder) / "size_power.csv"
    if not path.is_file():
        raise DataError(path, "no recorded size and power study: run `make bench` (bench/bench_inference.py)")
    table = pd.read_csv(path, keep_default_na=False, na_values=[""])  # "null" names a world, not NaN
    counted = "n_defined" if "n_defined" in table.columns else "n_reps"
    schema = StudySchema(
        what="size and power study", key=("world", "method"), required=(*SIZE_POWER_COLUMNS, counted),
        numeric=(*SIZE_POWER_COLUMNS[2:], counted), integer=("n_reps", "n_draws", counted),
        bounds={"rejection_rate": (0.0, 1.0), "alpha": (0.0, 1.0), "n_reps": (1, np.inf),
                counted: (1, np.inf)},
        derived={"mc_se": lambda t: mc_se(t["rejection_rate"], t[counted])})
    return check_study(table, schema, path)


#: The settings a power-study result must record (the chapter reports them), each a count ≥ 1.
POWER_SETTINGS = ("n_boot", "replicates")


def power_schema(target_se: float) -> StudySchema:
    """The rules of the power study's ``rates`` records, for :func:`~.study_schema.check_study`.

    Unique on design, world and test; rate in [0, 1], ``n_seeds`` a count ≥ 1; ``mc_se`` and
    ``target_reached`` (``mc_se`` ≤ ``target_se``) recomputed, never believed.
    """
    return StudySchema(
        what="power-study result", key=("design", "world", "test"),
        required=(*RATE_COLUMNS, "target_reached"),
        numeric=("rate", "mc_se", "n_seeds"), integer=("n_seeds",),
        bounds={"rate": (0.0, 1.0), "n_seeds": (1, np.inf)},
        derived={"mc_se": lambda t: mc_se(t["rate"], t["n_seeds"]),
                 "target_reached": lambda t: mc_se(t["rate"], t["n_seeds"]) <= target_se + 1e-9})


def _power_problem(result) -> str | None:
    """What is wrong with a parsed results file's structure and settings, or None."""
    if not isinstance(result, dict):
        return "not a JSON object"
    for name in ("rates", "settings", "target_se", "designs"):
        if name not in result:
            return f"no {name!r}"
    if not isinstance(result["rates"], list) or not result["rates"] \
            or not all(isinstance(r, dict) for r in result["rates"]):
        return "'rates' is not a non-empty list of records"
    target = result["target_se"]
    if isinstance(target, bool) or not isinstance(target, (int, float)) or not 0 < target < 0.5:
        return f"'target_se' is not a number in (0, 0.5): {target!r}"
    settings = result["settings"]
    if not isinstance(settings, dict):
        return "'settings' is not an object"
    for name in POWER_SETTINGS:
        value = settings.get(name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            return f"settings[{name!r}] is not a count ≥ 1: {value!r}"
    designs = {r.get("design") for r in result["rates"]}
    if not isinstance(result["designs"], dict) or not designs <= set(result["designs"]):
        return "'designs' does not describe every design of the rates"
    return None
