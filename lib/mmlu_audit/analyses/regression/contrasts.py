"""Partition fits and the STEM − non-STEM slope contrasts with their tests (Tables 3 and 4)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mmlu_audit.core.seeds import seeded
from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.features import INDICATORS
from mmlu_audit.inference import coef_table, fit_ols, interaction_design, wild_bootstrap_table
from mmlu_audit.inference.covariance import CLUSTER_KINDS, cluster_algebra

__all__ = ["contrast_terms", "contrast_tests", "declared", "holm_count", "holm_survivors", "indicator_names",
           "interaction_fit",
           "partition_fits"]


def contrast_terms(names=INDICATORS) -> list[str]:
    """Names of the slope-contrast terms of :func:`interaction_fit`."""
    return [f"STEM:{n}" for n in names]


def indicator_names(term: str) -> str:
    """The indicator a contrast term of :func:`contrast_terms` belongs to (``STEM:x`` → ``x``)."""
    return term.removeprefix("STEM:")


def declared(table: pd.DataFrame, kind: str, alpha: float = 0.05) -> pd.Series:
    """Whether each contrast of a :func:`contrast_tests` table survives Holm under ``kind``.

    ``kind`` names a ``holm_<kind>`` column (``"CR2"``, ``"HC3"``, ``"boot"``, ...); the
    result is indexed by indicator name.
    """
    column = f"holm_{kind}"
    if column not in table:
        raise DataError("kind", f"no column {column!r}; the table has {list(table.columns)}")
    return (table[column] < alpha).rename(indicator_names)


def interaction_fit(y, X: pd.DataFrame, stem):
    """OLS of ``y`` on ``[1, X, STEM, STEM*X]``; ``STEM:x`` is the STEM − non-STEM slope of ``x``."""
    Z, names = interaction_design(X, stem, list(X.columns))
    return fit_ols(y, Z, names)


def partition_fits(y, X: pd.DataFrame, stem, *, kind: str = "HC3") -> pd.DataFrame:
    """Separate OLS fits per partition (Table 3), with ``kind`` standard errors.

    Returns
    -------
    DataFrame
        Index: terms (intercept first); columns MultiIndex ``(partition, estimate|se|p)``
        plus ``("fit", "r2_STEM")``-style R² in ``attrs["r2"]``.
    """
    stem = np.asarray(stem, bool)
    y = np.asarray(y, float)
    parts, r2 = {}, {}
    for label, mask in (("STEM", stem), ("non-STEM", ~stem)):
        fit = fit_ols(y[mask], X[mask], intercept=True)
        table = coef_table(fit, kind).set_index("term")
        parts[label] = table[["estimate", "se", "p"]]
        r2[label] = fit.r2
    out = pd.concat(parts, axis=1, names=["partition", "value"])
    out.attrs["r2"] = r2
    return out


@seeded
def contrast_tests(fit, clusters, terms, *, kinds=("HC3", "CR1", "CR2"), seed=None,
                   n_boot: int = 0, boot_kind: str = "CR2") -> pd.DataFrame:
    """The slope contrasts under several covariances and the wild cluster bootstrap.

    Parameters
    ----------
    fit : OLSFit
        From :func:`interaction_fit`.
    clusters : array-like, shape (n,)
        Subjects.
    terms : list of str
        Contrast terms (Holm adjusts over exactly these).
    kinds : sequence of str
        Covariance kinds; t tests use Bell–McCaffrey df for CR2, G − 1 for CR1,
        N − K for HC kinds.
    seed : int, optional
        Needed when ``n_boot > 0``.
    n_boot : int
        Draws of the null-imposed (WCR) one-coefficient wild cluster bootstrap
        (Rademacher weights); 0 skips it.
    boot_kind : {"CR0", "CR1", "CR2"}
        Covariance inside the bootstrapped t statistic.

    Returns
    -------
    DataFrame
        Index: terms; columns ``estimate``, then ``se_<kind>, t_<kind>, p_<kind>,
        holm_<kind>`` per kind, ``df_CR2`` when CR2 is among the kinds, and
        ``p_boot, holm_boot`` with a bootstrap.
    """
    terms = list(terms)
    out = pd.DataFrame(index=pd.Index(terms, name="term"))
    out["estimate"] = [fit.beta[fit.names.index(t)] for t in terms]
    for kind in kinds:
        algebra = cluster_algebra(fit, clusters, kind) if kind in CLUSTER_KINDS else None
        table = coef_table(fit, kind, clusters, terms=terms, algebra=algebra).set_index("term").loc[terms]
        out[f"se_{kind}"], out[f"t_{kind}"] = table["se"], table["stat"]
        out[f"p_{kind}"], out[f"holm_{kind}"] = table["p"], table["p_holm"]
        if kind == "CR2":
            out["df_CR2"] = table["df"]
    if n_boot > 0:
        if seed is None:
            raise ParameterError("seed", "the wild cluster bootstrap needs a seed")
        boot = wild_bootstrap_table(fit, terms, clusters=clusters, seed=seed, kind=boot_kind,
                                    n_draws=n_boot).set_index("term")
        out["p_boot"], out["holm_boot"] = boot["p"], boot["p_holm"]
    return out


def holm_count(table: pd.DataFrame, alpha: float = 0.05) -> dict[str, int]:
    """Number of contrasts with Holm-adjusted p below ``alpha``, per ``holm_*`` column."""
    return {c.removeprefix("holm_"): int((table[c] < alpha).sum()) for c in table.columns
            if c.startswith("holm_")}


def holm_survivors(table: pd.DataFrame, kind: str, alpha: float = 0.05) -> set[str]:
    """The contrasts whose Holm-adjusted ``kind`` p-value is below ``alpha``."""
    return set(table.index[table[f"holm_{kind}"] < alpha])
