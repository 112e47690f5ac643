"""Verdicts on the paper's central claims: one real test, its power at the real design, and replication.

A real test that does not reject says little unless it would have rejected, at this design, when
the paper's effect is true. :func:`claim_verdict` therefore reads a test's decision together with
its power (the rejection rate of the same test on worlds with the real population's design and
the paper's effect sizes, :mod:`mmlu_audit.analyses.power`):

- **supported**: the test's decision rule (:data:`mmlu_audit.analyses.central.DECISIONS`) holds;
- **not supported**: it does not, and the test had power of at least :data:`POWER_FLOOR`;
- **inconclusive**: it does not, but the power is below :data:`POWER_FLOOR` (or unknown);
- **not testable**: no real matrix could carry the test.

:func:`replication_table` puts each population's decision side by side, and :func:`forest_rows`
the estimates a forest plot of the claims draws, each on the scale of its own test.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from mmlu_audit.analyses.central import CLAIM_TESTS
from mmlu_audit.core.errors import ParameterError
from mmlu_audit.core.paper import PAPER

__all__ = ["CLAIM_TITLES", "FOREST_SCALES", "PAPER_FIGURES", "PAPER_INTERVALS", "POWER_FLOOR", "VERDICTS",
           "agreement", "claim_verdict", "forest_rows", "power_at", "replication_table"]

#: Short titles of the claims, for tables and figure panels.
CLAIM_TITLES = {"homogeneity": "Structural homogeneity rejected (§4.3)",
                "d_ner": "STEM × D_ner contrast survives (§4.2)",
                "stem_r2": "Indicators explain more in STEM (§4.2)",
                "guessing_floor": "Reasoning sensitivity is the guessing floor (§5.1)"}
#: The paper's own figures for each claim: (label, :data:`~mmlu_audit.core.paper.PAPER` key).
PAPER_FIGURES = {"homogeneity": (("W(9), CR2", "w9_cr2"), ("wild bootstrap p", "wcb_p")),
                 "d_ner": (("CR2 t", "t_cr2_d_ner"), ("Holm p", "holm_p_cr2_d_ner")),
                 "stem_r2": (("logit² ratio", "logit2_ratio"),),
                 "guessing_floor": (("r(β, θ̂)", "rs_r_all"), ("null share", "null_share_all"))}
#: The paper's interval around its first figure, where it reports one: (low key, high key).
PAPER_INTERVALS = {"stem_r2": ("logit2_ratio_ci_low", "logit2_ratio_ci_high")}
#: A claim's verdict on real data.
VERDICTS = ("supported", "not supported", "inconclusive", "not testable")
#: Below this power at the paper's effect a non-rejection is inconclusive.
POWER_FLOOR = 0.5
#: Per claim: the scale its forest panel draws (label, estimate key, interval keys, paper value,
#: reference line). Homogeneity is a joint test with no interval: its scale is W(9) over the wild
#: cluster bootstrap's 95th percentile, above 1 where the bootstrap rejects.
FOREST_SCALES = {
    "homogeneity": ("W(9), CR2 ÷ wild-bootstrap 95th percentile", "w9_over_q95", None,
                    PAPER["w9_cr2"][0] / PAPER["wcb_q95"][0], 1.0),
    "d_ner": ("STEM × D_ner contrast, CR2 t (95 % interval in SE units)", "t_cr2_d_ner",
              ("t_low", "t_high"), PAPER["t_cr2_d_ner"][0], 0.0),
    "stem_r2": ("logit² ratio, STEM ÷ non-STEM (95 % subject-bootstrap interval)", "logit2_ratio",
                ("logit2_ratio_ci_low", "logit2_ratio_ci_high"), PAPER["logit2_ratio"][0], 1.0),
    "guessing_floor": ("r(β, θ̂), all models (Fisher 95 % interval)", "rs_r_all", ("rs_r_low", "rs_r_high"),
                       PAPER["rs_r_all"][0], 0.0),
}


def claim_verdict(supports: bool | None, power: float | None) -> str:
    """One of :data:`VERDICTS` from a real test's decision and its power at the paper's effect.

    Parameters
    ----------
    supports : bool or None
        The test's decision on the real population; None when no real matrix carried it.
    power : float or None
        Its rejection rate at the real design under the paper's effect sizes; None or NaN when
        not measured (a non-rejection is then inconclusive).
    """
    if supports is None:
        return VERDICTS[3]
    if supports:
        return VERDICTS[0]
    if power is None or (isinstance(power, float) and math.isnan(power)):
        return VERDICTS[2]
    if not 0 <= power <= 1:
        raise ParameterError("power", f"a rejection rate lies in [0, 1], got {power}")
    return VERDICTS[1] if power >= POWER_FLOOR else VERDICTS[2]


def replication_table(results: Mapping[str, Mapping]) -> pd.DataFrame:
    """Each population's decision on each claim.

    Parameters
    ----------
    results : mapping
        Population label → :func:`mmlu_audit.analyses.central.population_tests` output.

    Returns
    -------
    DataFrame
        Indexed by claim (:data:`~mmlu_audit.analyses.central.CLAIM_TESTS`), one column per
        population, ``"yes"`` where its test supports the claim and ``"no"`` where not.
    """
    if not results:
        raise ParameterError("results", "no population")
    table = {label: {test: "yes" if result[test]["supports"] else "no" for test in CLAIM_TESTS}
             for label, result in results.items()}
    return pd.DataFrame(table).rename_axis("claim")


def agreement(table: pd.DataFrame, claim: str, populations=None) -> dict:
    """Which of ``populations`` (default: every column) support ``claim`` in a replication table.

    Returns
    -------
    dict
        ``agree`` (bool: all the same decision), ``supporting`` and ``not_supporting`` (lists of
        population labels, in column order).
    """
    row = table.loc[claim, list(populations) if populations is not None else list(table.columns)]
    supporting = [label for label, value in row.items() if value == "yes"]
    return {"agree": row.nunique() == 1, "supporting": supporting,
            "not_supporting": [label for label in row.index if label not in supporting]}


def _scale_values(test: str, result: Mapping) -> dict:
    """The estimate and interval of ``test`` on its forest scale."""
    if test == "homogeneity":
        return {"estimate": result["w9_cr2"] / result["wcb_q95"], "low": np.nan, "high": np.nan}
    if test == "d_ner":
        half = (result["d_ner_high"] - result["d_ner_low"]) / 2
        se = result["d_ner_estimate"] / result["t_cr2_d_ner"] if result["t_cr2_d_ner"] else np.nan
        return {"estimate": result["t_cr2_d_ner"], "low": result["t_cr2_d_ner"] - half / se,
                "high": result["t_cr2_d_ner"] + half / se}
    _, key, (low, high), _, _ = FOREST_SCALES[test]
    return {"estimate": result[key], "low": result[low], "high": result[high]}


def forest_rows(results: Mapping[str, Mapping]) -> pd.DataFrame:
    """The rows a forest plot of the claims draws: the paper's value, then each population's.

    Parameters
    ----------
    results : mapping
        Population label → :func:`~mmlu_audit.analyses.central.population_tests` output; a
        simulated population is marked as such.

    Returns
    -------
    DataFrame
        Columns ``claim``, ``scale`` (the axis label), ``who`` (``"paper"`` or a population
        label), ``kind`` (``"paper"``, ``"real"`` or ``"simulated"``), ``estimate``, ``low``,
        ``high`` (NaN where the test has no interval) and ``reference`` (the no-effect line).
    """
    rows = []
    for test in CLAIM_TESTS:
        scale, _, _, paper, reference = FOREST_SCALES[test]
        low, high = (PAPER.get(f"{key}_ci_{end}", (np.nan,))[0] for key in [FOREST_SCALES[test][1]]
                     for end in ("low", "high"))
        rows.append({"claim": test, "scale": scale, "who": "paper", "kind": "paper", "estimate": paper,
                     "low": low, "high": high, "reference": reference})
        for label, result in results.items():
            kind = "simulated" if result["population"]["simulated"] else "real"
            rows.append({"claim": test, "scale": scale, "who": label, "kind": kind,
                         **_scale_values(test, result[test]), "reference": reference})
    return pd.DataFrame(rows)


def power_at(rates: pd.DataFrame, design: str, test: str) -> dict:
    """A test's power and size at one real design, from the power study's rates.

    Parameters
    ----------
    rates : DataFrame
        :func:`mmlu_audit.analyses.power.load_power` (columns ``design``, ``world``, ``test``,
        ``rate``, ``mc_se``, ``n_seeds``).
    design, test : str
        The real source the worlds copied, and the test.

    Returns
    -------
    dict
        ``power`` and ``power_se`` (world ``"paper"``), ``size`` and ``size_se`` (world
        ``"null"``), ``n_seeds`` (the fewer of the two); NaN where the study has no row.
    """
    out = {}
    for world, name in (("paper", "power"), ("null", "size")):
        row = rates[(rates["design"] == design) & (rates["world"] == world) & (rates["test"] == test)]
        if len(row) > 1:
            raise ParameterError("rates", f"{len(row)} rows for {design}, {world}, {test}")
        found = len(row) == 1
        out |= {name: float(row["rate"].iloc[0]) if found else np.nan,
                f"{name}_se": float(row["mc_se"].iloc[0]) if found else np.nan,
                f"{name}_seeds": int(row["n_seeds"].iloc[0]) if found else 0}
    out["n_seeds"] = min(out.pop("power_seeds"), out.pop("size_seeds"))
    return out
