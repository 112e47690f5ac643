"""Appendix C's explanatory model read against the two-stage estimates: one table of the nine contrasts."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
from scipy import stats

from mmlu_audit.analyses.regression import contrast_terms, estimated_items, indicator_design, interaction_fit
from mmlu_audit.core.errors import ParameterError
from mmlu_audit.irt.explanatory import identification_table

__all__ = ["explanatory_contrasts"]


def explanatory_contrasts(fits: list, frame: pd.DataFrame, indicators: Sequence[str], planted=None,
                          level: float = 0.95) -> pd.DataFrame:
    """The explanatory model's STEM − non-STEM contrasts γ beside the two-stage OLS contrasts.

    Parameters
    ----------
    fits : list of ExplanatoryFit
        The restarts (:func:`~mmlu_audit.irt.explanatory.fit_explanatory_restarts`).
    frame : DataFrame
        The item frame of the same responses (``b_hat``, ``stem``, ``subject``, the indicators);
        the two-stage fit uses its estimated items.
    indicators : sequence of str
        The indicators, in the order of the model's γ.
    planted : DataFrame, optional
        :func:`~mmlu_audit.analyses.regression.planted_slopes` of a simulated source: adds the
        planted contrast as the first column.
    level : float
        Coverage of the posterior interval (normal: mean ± z · posterior SD).

    Returns
    -------
    DataFrame
        Indexed by indicator: (``planted γ (simulated)``), ``explanatory γ``, ``posterior SD``,
        ``restart SD``, ``identified`` (:func:`~mmlu_audit.irt.explanatory.identification_table`),
        ``posterior 95 % low`` and ``high`` (at ``level``), ``two-stage (b̂ units)``.

    Raises
    ------
    ParameterError
        If ``level`` is not inside (0, 1).
    """
    if not 0 < level < 1:
        raise ParameterError("level", f"must lie in (0, 1), got {level}")
    rows = [f"gamma[{name}]" for name in indicators]
    table = identification_table(fits).loc[rows]
    estimated = estimated_items(frame)
    X = indicator_design(estimated, columns=list(indicators))
    two_stage = interaction_fit(estimated["b_hat"].to_numpy(), X, estimated["stem"].to_numpy())
    half = float(stats.norm.ppf(0.5 + level / 2)) * table["posterior_sd"].to_numpy()
    mean = table["mean"].to_numpy()
    out = pd.DataFrame({"explanatory γ": mean, "posterior SD": table["posterior_sd"].to_numpy(),
                        "restart SD": table["restart_sd"].to_numpy(),
                        "identified": table["identified"].to_numpy(),
                        "posterior 95 % low": mean - half, "posterior 95 % high": mean + half,
                        "two-stage (b̂ units)": pd.Series(two_stage.beta, index=two_stage.names)[
                            contrast_terms(list(indicators))].to_numpy()}, index=list(indicators))
    if planted is not None:
        out.insert(0, "planted γ (simulated)", (planted["STEM"] - planted["non-STEM"]).reindex(out.index))
    return out
