"""One schema check for the committed many-seed results the chapters read.

The power study (:func:`mmlu_audit.analyses.power.load_power`), the seed study
(:func:`mmlu_audit.analyses.seed_study.load_seed_study`) and the fit study
(:func:`mmlu_audit.analyses.seed_study_fits.load_fit_study`) are files a chapter believes, so
each is checked at load by :func:`check_study` against its :class:`StudySchema`, the same rules
for all three:

1. every required column is present;
2. every required field is present (a truncated row leaves one empty) and, where numeric,
   finite and inside its bounds; an integer field holds whole numbers;
3. rows are unique on the key (a repeated seed would count twice);
4. every derived field is recomputed from the others, and a file that states it must agree;
   the table returned carries the recomputed value, never the one written.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from mmlu_audit.core.errors import DataError

__all__ = ["StudySchema", "check_study", "read_study_json"]


@dataclass(frozen=True)
class StudySchema:
    """What a recorded study's table must satisfy.

    Parameters
    ----------
    what : str
        The study's name in errors ("seed study").
    key : tuple of str
        The columns each row is unique on.
    required : tuple of str
        Columns that must be present with a value in every row.
    numeric : tuple of str
        Required columns that must be finite numbers.
    integer : tuple of str
        Numeric columns that must hold whole numbers.
    bounds : dict of str to (float, float)
        Numeric columns that must lie in a closed interval (a p-value in [0, 1]).
    derived : dict of str to callable
        Column → ``f(table)`` that recomputes it from the other columns (a Series).
    tolerance : float
        How far a stated numeric derived value may be from the recomputed one.
    """

    what: str
    key: tuple
    required: tuple
    numeric: tuple = ()
    integer: tuple = ()
    bounds: dict = field(default_factory=dict)
    derived: dict[str, Callable[[pd.DataFrame], pd.Series]] = field(default_factory=dict)
    tolerance: float = 1e-6


def _missing_problem(table: pd.DataFrame, schema: StudySchema) -> str | None:
    absent = [c for c in schema.required if c not in table.columns]
    if absent:
        return f"columns missing {absent}"
    empty = table[list(schema.required)].isna()
    if empty.any().any():
        row = int(np.flatnonzero(empty.any(axis=1).to_numpy())[0])
        columns = list(empty.columns[empty.iloc[row].to_numpy()])
        return f"row {row + 1} has no value for {columns} (a truncated or damaged row)"
    return None


def _numeric_problem(table: pd.DataFrame, schema: StudySchema) -> str | None:
    for column in schema.numeric:
        values = pd.to_numeric(table[column], errors="coerce").to_numpy(float)
        if not np.isfinite(values).all():
            return f"{column!r} holds a value that is not a finite number"
        if column in schema.integer and not (values == np.round(values)).all():
            return f"{column!r} holds a value that is not a whole number"
        low, high = schema.bounds.get(column, (-np.inf, np.inf))
        if not ((values >= low) & (values <= high)).all():
            return f"{column!r} holds a value outside [{low}, {high}]"
    return None


def _key_problem(table: pd.DataFrame, schema: StudySchema) -> str | None:
    repeated = table.duplicated(list(schema.key), keep=False)
    if repeated.any():
        first = table.loc[repeated, list(schema.key)].iloc[0].to_dict()
        return f"rows are not unique on {list(schema.key)}: {first} appears more than once"
    return None


def _agrees(stated: pd.Series, recomputed: pd.Series, tolerance: float) -> bool:
    if recomputed.dtype == bool:
        return bool(stated.map(lambda v: isinstance(v, (bool, np.bool_))).all()
                    and (stated.astype(bool).to_numpy() == recomputed.to_numpy()).all())
    values = pd.to_numeric(stated, errors="coerce").to_numpy(float)
    return bool(np.allclose(values, recomputed.to_numpy(float), atol=tolerance, rtol=0))


def _derive(table: pd.DataFrame, schema: StudySchema) -> tuple[pd.DataFrame, str | None]:
    table = table.copy()
    for column, recompute in schema.derived.items():
        recomputed = pd.Series(recompute(table), index=table.index)
        if column in table.columns and not _agrees(table[column], recomputed, schema.tolerance):
            return table, f"{column!r} as written disagrees with its value recomputed from the other columns"
        table[column] = recomputed
    return table, None


def check_study(table: pd.DataFrame, schema: StudySchema, path) -> pd.DataFrame:
    """Check a recorded study's table against ``schema``; return it with derived fields recomputed.

    Parameters
    ----------
    table : DataFrame
        As read from the file.
    schema : StudySchema
    path : str or Path
        The file, named in the error.

    Returns
    -------
    DataFrame
        ``table`` with every column of ``schema.derived`` recomputed.

    Raises
    ------
    DataError
        Naming ``path`` and the first rule the table breaks.
    """
    if table.empty:
        raise DataError(str(path), f"not a valid {schema.what}: no rows")
    for rule in (_missing_problem, _numeric_problem, _key_problem):
        problem = rule(table, schema)
        if problem:
            raise DataError(str(path), f"not a valid {schema.what}: {problem}")
    table, problem = _derive(table, schema)
    if problem:
        raise DataError(str(path), f"not a valid {schema.what}: {problem}")
    return table


def read_study_json(path, what: str, runner: str):
    """The parsed JSON of a recorded study's summary.

    Raises
    ------
    DataError
        Naming ``path``: the file is missing (run ``runner``) or is not JSON.
    """
    import json
    from pathlib import Path

    path = Path(path)
    if not path.exists():
        raise DataError(path, f"the {what} is not recorded: run {runner}")
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise DataError(path, f"not a readable {what} result ({exc})") from exc
