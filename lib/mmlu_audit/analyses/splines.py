"""Restricted cubic splines and the per-partition non-linearity test of Appendix B.

A restricted (natural) cubic spline with knots ``t_1 < … < t_k`` is cubic between
knots, has continuous second derivatives, and is linear below ``t_1`` and above
``t_k``. Harrell's truncated-power basis (Regression Modeling Strategies, §2.4.5)
writes it as ``b0 + b1 x + sum_j g_j f_j(x)`` with, for ``j = 1 … k − 2``,

    f_j(x) = [(x − t_j)_+³ − (x − t_{k−1})_+³ (t_k − t_j)/(t_k − t_{k−1})
              + (x − t_k)_+³ (t_{k−1} − t_j)/(t_k − t_{k−1})] / (t_k − t_1)²,

the last two terms cancelling the cubic and quadratic parts beyond ``t_k``; the
division by ``(t_k − t_1)²`` only rescales (Harrell's ``norm=2``). The relationship
is linear exactly when every ``g_j`` is zero, which is the non-linearity test.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.features import INDICATORS
from mmlu_audit.inference import fit_ols, wald_test
from mmlu_audit.analyses.regression import estimated_items, indicator_design

__all__ = ["HARRELL_QUANTILES", "rcs_knots", "rcs_basis", "nonlinearity_statistics", "nonlinearity_tests",
           "spline_curve"]

#: Harrell's default knot quantiles by number of knots.
HARRELL_QUANTILES = {
    3: (0.10, 0.50, 0.90),
    4: (0.05, 0.35, 0.65, 0.95),
    5: (0.05, 0.275, 0.50, 0.725, 0.95),
}


def rcs_knots(x, n_knots: int = 4) -> np.ndarray:
    """Knots at Harrell's quantiles of ``x``, duplicates (from ties) removed.

    Raises
    ------
    ParameterError
        When ``n_knots`` has no default quantiles.
    DataError
        When ``x`` is empty or has non-finite values.
    """
    if n_knots not in HARRELL_QUANTILES:
        raise ParameterError("n_knots", f"choose one of {sorted(HARRELL_QUANTILES)}, got {n_knots}")
    x = np.asarray(x, float)
    if x.size == 0 or not np.isfinite(x).all():
        raise DataError("x", "needs at least one value and only finite values")
    return np.unique(np.quantile(x, HARRELL_QUANTILES[n_knots]))


def rcs_basis(x, knots) -> np.ndarray:
    """The ``k − 2`` non-linear columns ``f_j(x)`` of a restricted cubic spline.

    Parameters
    ----------
    x : array-like, shape (n,)
    knots : array-like, shape (k,), strictly increasing, k ≥ 3

    Returns
    -------
    ndarray, shape (n, k − 2)
        Together with ``[1, x]`` these span the natural cubic splines with these knots.
    """
    x = np.asarray(x, float)
    t = np.asarray(knots, float)
    if t.ndim != 1 or t.size < 3 or np.any(np.diff(t) <= 0):
        raise DataError("knots", f"need at least 3 strictly increasing knots, got {t.tolist()}")
    cube = lambda u: np.clip(u, 0.0, None) ** 3  # noqa: E731
    last, second_last = t[-1], t[-2]
    span = last - second_last
    columns = [(cube(x - tj) - cube(x - second_last) * (last - tj) / span
                + cube(x - last) * (second_last - tj) / span) / (last - t[0]) ** 2
               for tj in t[:-2]]
    return np.column_stack(columns)


def nonlinearity_tests(frame: pd.DataFrame, columns: Sequence[str] = INDICATORS, *, n_knots: int = 4,
                       kind: str = "CR2", form: str = "HTZ") -> pd.DataFrame:
    """Joint test of the spline's non-linear terms, per indicator and partition.

    Within one partition, ``b_hat`` is regressed on all the indicators (linear,
    z-scored over all items) plus the non-linear spline columns of one of them, with
    knots at that partition's quantiles; the Wald test that the ``k − 2`` spline
    coefficients are all zero uses subject clusters and the ``kind``/``form``
    covariance and reference (default CR2 with HTZ).

    Parameters
    ----------
    frame : DataFrame
        Item frame with ``b_hat``, ``stem``, ``subject`` and ``columns``.
    columns : sequence of str
    n_knots : int
    kind, form : str
        As for :func:`mmlu_audit.inference.wald_test`.

    Returns
    -------
    DataFrame
        One row per (indicator, partition): ``n_knots_used`` (after ties), ``wald``,
        ``stat``, ``df_num``, ``df_den``, ``p``; a row whose knots collapse below 3
        has NaN statistics and ``note`` saying why.
    """
    frame = estimated_items(frame)
    X = indicator_design(frame, list(columns))
    y, stem = frame["b_hat"].to_numpy(float), frame["stem"].to_numpy(bool)
    subjects = frame["subject"].to_numpy()
    rows = []
    for column in columns:
        for label, mask in (("STEM", stem), ("non-STEM", ~stem)):
            rows.append({"indicator": column, "partition": label,
                         **_one_test(y[mask], X[mask], column, subjects[mask], n_knots, kind, form)})
    return pd.DataFrame(rows).set_index(["indicator", "partition"])


def _one_test(y, X: pd.DataFrame, column: str, clusters, n_knots: int, kind: str, form: str) -> dict:
    knots = rcs_knots(X[column].to_numpy(), n_knots)
    empty = {"n_knots_used": int(knots.size), "wald": np.nan, "stat": np.nan, "df_num": np.nan,
             "df_den": np.nan, "p": np.nan}
    if knots.size < 3:
        return {**empty, "note": f"only {knots.size} distinct knot values (ties)"}
    spline = rcs_basis(X[column].to_numpy(), knots)
    names = [*X.columns, *[f"{column}'{j + 1}" for j in range(spline.shape[1])]]
    fit = fit_ols(y, np.column_stack([X.to_numpy(float), spline]), names, intercept=True)
    test = wald_test(fit, names[X.shape[1]:], kind=kind, clusters=clusters, form=form).iloc[0]
    return {**empty, **{k: float(test[k]) for k in ("wald", "stat", "df_num", "df_den", "p")}, "note": ""}


def nonlinearity_statistics(table: pd.DataFrame, alpha: float = 0.05) -> dict:
    """Glue values of a :func:`nonlinearity_tests` table.

    ``c_bry_nonlinear_p_nonstem`` and ``c_bry_nonlinear_p_stem`` (the paper's claim is about
    C_bry outside STEM), ``c_bry_nonlinear_nonstem`` (p < ``alpha``), and over the pairs
    actually tested (p not NaN): ``nonlinear_tested``, ``nonlinear_flagged`` (p < ``alpha``)
    and ``nonlinear_names`` ("indicator (partition)", comma-separated, or "none").
    """
    if ("c_bry", "non-STEM") not in table.index or ("c_bry", "STEM") not in table.index:
        raise DataError("table", "has no c_bry rows; expected a nonlinearity_tests table of the indicators")
    tested = table.dropna(subset=["p"])
    flagged = tested[tested["p"] < alpha]
    return {
        "c_bry_nonlinear_p_nonstem": table.loc[("c_bry", "non-STEM"), "p"],
        "c_bry_nonlinear_p_stem": table.loc[("c_bry", "STEM"), "p"],
        "c_bry_nonlinear_nonstem": bool(table.loc[("c_bry", "non-STEM"), "p"] < alpha),
        "nonlinear_flagged": len(flagged), "nonlinear_tested": len(tested),
        "nonlinear_names": ", ".join(f"{i} ({p})" for i, p in flagged.index) or "none",
    }


def spline_curve(frame: pd.DataFrame, column: str, grid, *, stem: bool, n_knots: int = 4,
                 columns: Sequence[str] = INDICATORS) -> np.ndarray:
    """The fitted spline of ``column`` in one partition, the other indicators held at their mean.

    Same model as :func:`nonlinearity_tests`; the curve is ``b1 x + sum_j g_j f_j(x)``
    centred to 0 at the partition's median of ``column``, with ``grid`` and the knots on
    the z-scored scale of :func:`mmlu_audit.analyses.regression.indicator_design`.

    Returns
    -------
    ndarray, shape (len(grid),)
        Logits of difficulty relative to the partition median.
    """
    frame = estimated_items(frame)
    X = indicator_design(frame, list(columns))
    mask = frame["stem"].to_numpy(bool) == stem
    x = X.loc[mask, column].to_numpy()
    knots = rcs_knots(x, n_knots)
    if knots.size < 3:
        raise DataError(column, f"only {knots.size} distinct knot values in this partition (ties)")
    design = np.column_stack([X[mask].to_numpy(float), rcs_basis(x, knots)])
    beta = fit_ols(frame["b_hat"].to_numpy(float)[mask], design, intercept=True).beta
    slope, spline = beta[1 + list(X.columns).index(column)], beta[1 + X.shape[1]:]

    def curve(values):
        values = np.asarray(values, float)
        return slope * values + rcs_basis(values, knots) @ spline

    return curve(grid) - curve([np.median(x)])[0]
