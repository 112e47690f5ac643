"""The rows of the real-pool figures that open Appendices A and B.

* :func:`claim_forest_rows`: the estimands of the three primary conclusions on one population, as
  Appendix A's robustness headline returns them, each judged by the replication rule of the
  real-verdicts chapter and laid out as the rows
  :func:`mmlu_audit.book.plots.estimand_forest` draws (the paper first).
* :func:`entity_contrast_rows`: the STEM − non-STEM slope contrast of Entity Density (D_ner) with
  its CR2 interval on all items, on all items with the option set controlled, and on the common
  support, after the paper's own value; the same row layout.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd
from scipy import stats

from mmlu_audit.analyses.option_set import common_support, controlled_contrasts, option_controls
from mmlu_audit.analyses.regression import estimated_items
from mmlu_audit.analyses.replication import ESTIMANDS, forest_table, judge, per_difficulty_sd
from mmlu_audit.analyses.robustness import ENTITY_TERM, OUTCOME_ESTIMANDS
from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.core.seeds import seeded
from mmlu_audit.features import INDICATORS, OPTION_COVARIATES

__all__ = ["claim_forest_rows", "entity_contrast_rows"]


def claim_forest_rows(values: Mapping[str, float], who: str, prefix: str = "base_") -> pd.DataFrame:
    """The three conclusions' estimands of one population, judged, as forest-plot rows.

    Parameters
    ----------
    values : mapping
        Holds ``<prefix><estimand>`` with ``<prefix><estimand>_low`` and ``<prefix><estimand>_high``
        for each estimand of :data:`mmlu_audit.analyses.robustness.OUTCOME_ESTIMANDS`, as
        :func:`mmlu_audit.analyses.robustness.robustness_headline` returns them with ``outcomes=True``.
    who : str
        The population in words; it must contain "pool" to be drawn as a pool (green square).
    prefix : str
        The prefix of the keys in ``values``.

    Returns
    -------
    DataFrame
        :func:`mmlu_audit.analyses.replication.forest_table` rows (per estimand the paper, then the
        population) with an ``outcome`` column: the replication outcome of the population's row
        (:func:`mmlu_audit.analyses.replication.judge`), empty on the paper's. The population's
        ``who`` names its outcome on a second line, so that the figure reads the rule.
    """
    keys = list(OUTCOME_ESTIMANDS.values())
    needed = [f"{prefix}{k}{end}" for k in keys for end in ("", "_low", "_high")]
    missing = [k for k in needed if k not in values]
    if missing:
        raise DataError("values", f"missing {missing}")
    table = pd.DataFrame([{"population": who, "estimand": key, "estimate": float(values[f"{prefix}{key}"]),
                           "low": float(values[f"{prefix}{key}_low"]),
                           "high": float(values[f"{prefix}{key}_high"])} for key in keys])
    rows = forest_table(table, {who: who}, estimands=keys)
    judged = rows["kind"] != "paper"
    rows["outcome"] = ""
    rows.loc[judged, "outcome"] = [judge(r.estimand, r.estimate, r.low, r.high)["outcome"]
                                   for r in rows[judged].itertuples()]
    rows.loc[judged, "who"] = rows.loc[judged, "who"] + "\n" + rows.loc[judged, "outcome"]
    return rows


@seeded
def entity_contrast_rows(frame: pd.DataFrame, *, seed, support_trim: float = 0.01,
                         option_columns: Sequence[str] = OPTION_COVARIATES, who: str = "",
                         level: float = 0.95) -> pd.DataFrame:
    """The D_ner slope contrast with its CR2 interval in Appendix B's three fits, after the paper's.

    Parameters
    ----------
    frame : DataFrame
        Item frame with ``b_hat``, ``stem``, ``subject``, the nine indicators and ``option_columns``;
        rows without a finite ``b_hat`` are dropped.
    seed : int
        Passed to :func:`mmlu_audit.analyses.option_set.controlled_contrasts` (no bootstrap runs).
    support_trim : float
        As ``trim`` of :func:`mmlu_audit.analyses.option_set.common_support`.
    option_columns : sequence of str
        The option-set covariates (:func:`mmlu_audit.analyses.option_set.option_controls`).
    who : str
        Put before each fit's words on the axis ("real pool (31 models), ").
    level : float
        Coverage of each interval: t with the CR2 (Bell–McCaffrey) degrees of freedom.

    Returns
    -------
    DataFrame
        The rows :func:`mmlu_audit.book.plots.estimand_forest` draws: ``claim``, ``estimand``,
        ``label``, ``who``, ``kind`` (``"paper"``, then ``"pool"`` for each fit: ``"all items"``,
        ``"all items + option set"``, ``"common support"``), ``estimate``, ``low``, ``high`` (per SD
        of the fit's b̂, the replication estimand), ``null``, ``scale``; with ``fit`` (the fit's
        name, empty on the paper's row), ``n_items``, ``t_CR2`` and ``holm_CR2`` (Holm over the
        nine contrasts; NaN on the paper's row).
    """
    if not 0 < level < 1:
        raise ParameterError("level", f"must lie in (0, 1), got {level}")
    frame = estimated_items(frame)
    _, inside = common_support(frame, INDICATORS, trim=support_trim)
    e = ESTIMANDS["d_ner_contrast"]
    common = {"claim": e.claim, "estimand": e.key, "label": e.label, "null": e.null, "scale": e.scale}
    low, high = e.paper_interval
    rows = [common | {"who": "paper (1,000 leaderboard models)", "kind": "paper", "estimate": e.paper,
                      "low": low, "high": high, "fit": "", "n_items": None,
                      "t_CR2": float("nan"), "holm_CR2": float("nan")}]
    fits = {"all items": (frame, None),
            "all items + option set": (frame, option_controls(frame, option_columns)),
            "common support": (frame[inside], None)}
    for fit, (part, controls) in fits.items():
        table, _ = controlled_contrasts(part, controls, seed=seed)
        row = table.loc[ENTITY_TERM]
        half = float(stats.t.ppf(0.5 + level / 2, row["df_CR2"]) * row["se_CR2"])
        centre = float(row["estimate"])
        estimate, low, high = per_difficulty_sd(centre, centre - half, centre + half, part["b_hat"])
        rows.append(common | {"who": f"{who}{fit}", "kind": "pool", "estimate": estimate, "low": low,
                              "high": high, "fit": fit, "n_items": len(part), "t_CR2": float(row["t_CR2"]),
                              "holm_CR2": float(row["holm_CR2"])})
    return pd.DataFrame(rows).astype({"n_items": "Int64"})
