"""What a simulated world planted, beside what the regressions estimate (simulated sources only)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy import stats

from mmlu_audit.core.errors import DataError
from mmlu_audit.core.formatting import names_where
from mmlu_audit.analyses.regression.contrasts import contrast_terms, indicator_names, interaction_fit

__all__ = ["planted_slopes", "planted_summary", "planted_truth_table", "planted_vs_estimated",
           "realised_contrasts"]


def planted_slopes(matrix) -> pd.DataFrame | None:
    """Planted (STEM, non-STEM) slopes of a simulated matrix, from its recorded spec.

    Returns None for real sources.
    """
    if not matrix.simulated:
        return None
    from mmlu_audit.worlds.simulated import WorldSpec

    spec = matrix.meta.get("spec")
    if spec is None:
        raise DataError("matrix", "simulated matrix without a recorded WorldSpec")
    return WorldSpec(**spec).planted_slopes()


def realised_contrasts(frame: pd.DataFrame, truth: dict, X: pd.DataFrame) -> pd.DataFrame:
    """Slope contrasts the simulated world actually realised, before any IRT estimation.

    The planted contrasts hold for the systematic part of b; the realised subject
    effects (one draw per subject) can correlate with the indicators' subject
    means and shift the contrasts a regression on the true b sees. Both are
    shown so an estimate on b̂ can be judged against what it could recover.

    Returns
    -------
    DataFrame
        Index: covariates; columns ``true b`` and ``true b − subject effects``.
    """
    stem = frame["stem"].to_numpy()
    outcomes = {"true b": np.asarray(truth["b"], float),
                "true b − subject effects": np.asarray(truth["b"], float) - truth["subject_effect"]}
    out = {}
    for label, b in outcomes.items():
        fit = interaction_fit(b, X, stem)
        out[label] = pd.Series([fit.beta[fit.names.index(t)] for t in contrast_terms(X.columns)],
                               index=list(X.columns))
    return pd.DataFrame(out)


def planted_vs_estimated(planted: pd.DataFrame, estimates: pd.Series, recovery: float,
                         found: pd.Series | None = None) -> pd.DataFrame:
    """Planted contrasts beside the estimated ones.

    Parameters
    ----------
    planted : DataFrame
        From :func:`planted_slopes`: index covariates, columns ``STEM``, ``non-STEM``.
    estimates : Series
        Estimated contrast per covariate (index: covariate names, in the order shown).
    recovery : float
        :func:`~mmlu_audit.irt.recovery_slope`; the expected estimate is planted × recovery.
    found : Series of bool, optional
        Whether a test declared the contrast (index: covariate names).

    Returns
    -------
    DataFrame
        ``planted contrast, expected on b_hat scale, estimate, planted (bool)`` and
        ``found`` when given.
    """
    contrast = (planted["STEM"] - planted["non-STEM"]).reindex(estimates.index)
    out = pd.DataFrame({
        "planted contrast": contrast,
        "expected (× recovery)": contrast * recovery,
        "estimate": estimates.reindex(contrast.index),
        "planted": contrast.abs() > 1e-12,
    })
    if found is not None:
        out["found"] = found.reindex(contrast.index).astype(bool)
    return out


def planted_truth_table(planted: pd.DataFrame, contrasts: pd.DataFrame, recovery: float,
                        frame: pd.DataFrame, truth: dict, X: pd.DataFrame, *,
                        found: Mapping[str, pd.Series], cover_kind: str | None = None) -> pd.DataFrame:
    """The chapters' planted-truth table: planted, realised and estimated contrasts side by side.

    Parameters
    ----------
    planted : DataFrame
        From :func:`planted_slopes`.
    contrasts : DataFrame
        From :func:`~mmlu_audit.analyses.regression.contrast_tests` (index ``STEM:<indicator>``).
    recovery : float
        :func:`~mmlu_audit.irt.recovery_slope`.
    frame, truth, X
        As for :func:`realised_contrasts`.
    found : mapping of str to Series of bool
        One ``found (<label>)`` column per entry (index: indicator names), in order.
    cover_kind : str, optional
        A cluster-robust kind with ``se_<kind>`` (and ``df_<kind>``) in ``contrasts``: adds
        ``<kind> CI covers``, whether the 95 % t interval covers planted × recovery.

    Returns
    -------
    DataFrame
        Index: indicators; columns ``planted, planted contrast, true b − subject effects,
        true b, expected (× recovery), estimate``, then the coverage and found columns.
    """
    estimates = contrasts["estimate"].rename(indicator_names)
    table = planted_vs_estimated(planted, estimates, recovery).join(realised_contrasts(frame, truth, X))
    order = ["planted", "planted contrast", "true b − subject effects", "true b", "expected (× recovery)",
             "estimate"]
    if cover_kind is not None:
        half_width = (stats.t.ppf(0.975, contrasts[f"df_{cover_kind}"]) * contrasts[f"se_{cover_kind}"])
        error = (table["estimate"] - table["expected (× recovery)"]).abs()
        table[f"{cover_kind} CI covers"] = error <= half_width.rename(indicator_names)
        order.append(f"{cover_kind} CI covers")
    for label, flags in found.items():
        table[f"found ({label})"] = flags.reindex(table.index).astype(bool)
        order.append(f"found ({label})")
    return table[order]


def planted_summary(table: pd.DataFrame | None, cover_kind: str | None = None) -> dict:
    """The numbers and name lists the chapters' planted-truth prose quotes.

    Parameters
    ----------
    table : DataFrame or None
        From :func:`planted_truth_table`; ``None`` on a real source.
    cover_kind : str, optional
        The table's coverage column kind, for ``n_covered``.

    Returns
    -------
    dict
        ``n_planted``, ``planted_names``, ``sign_flipped_names`` (planted contrasts whose
        sign in the true b differs from the planted one) and, with ``cover_kind``,
        ``n_covered``. On a real source: 0, "none", "n/a", "n/a".
    """
    if table is None:
        out = {"n_planted": 0, "planted_names": "none", "sign_flipped_names": "n/a"}
        return out | ({"n_covered": "n/a"} if cover_kind else {})
    rows = table[table["planted"]]
    flipped = np.sign(rows["true b"]) != np.sign(rows["planted contrast"])
    out = {"n_planted": len(rows), "planted_names": names_where(table["planted"]),
           "sign_flipped_names": names_where(flipped)}
    if cover_kind:
        out["n_covered"] = int(table[f"{cover_kind} CI covers"].sum())
    return out
