"""Appendix B: the cross-domain contrasts with option-set controls and on common support.

* :func:`controlled_contrasts` adds control covariates (the eight option-set
  covariates) to the interaction model, fully interacted with STEM so that it
  matches separate stratified fits, and tests only the nine indicator contrasts:
  ``b ~ [1, X, C, STEM, STEM·X, STEM·C]``.
* :func:`common_support` finds, for each predictor, the range both partitions
  cover (between the larger of the two lower quantiles and the smaller of the two
  upper quantiles) and the items inside every predictor's range.
* :func:`option_set_headline` gives the appendix's three headline figures on one item
  frame: the contrast with the option set, C_bry's non-linearity, homogeneity on the
  common support.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from mmlu_audit.core.seeds import seeded
from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.features import INDICATORS, OPTION_COVARIATES
from mmlu_audit.inference import wald_test
from mmlu_audit.core.scaling import standardise
from mmlu_audit.analyses.regression import (contrast_terms, contrast_tests, estimated_items, indicator_design,
                                            interaction_fit)
from mmlu_audit.analyses.robustness import ENTITY_TERM, primary_conclusions, section4_statistics
from mmlu_audit.analyses.splines import nonlinearity_statistics, nonlinearity_tests

__all__ = ["option_controls", "controlled_contrasts", "common_support", "option_set_headline"]


def option_controls(frame: pd.DataFrame, columns: Sequence[str] = OPTION_COVARIATES) -> pd.DataFrame:
    """The option-set covariates z-scored over ``frame`` (missing → 0), as in Table 2.

    A covariate that is constant over ``frame`` carries no information and would make
    the design singular; it is dropped (``attrs["dropped"]`` lists it).
    """
    missing = [c for c in columns if c not in frame]
    if missing:
        raise DataError("frame", f"missing option covariates {missing}")
    varying = [c for c in columns if frame[c].nunique(dropna=True) > 1]
    out = standardise(frame[varying].astype(float)).fillna(0.0)
    out.attrs["dropped"] = [c for c in columns if c not in varying]
    return out


@seeded
def controlled_contrasts(frame: pd.DataFrame, controls: pd.DataFrame | None, *, seed, n_boot: int = 0,
                         boot_kind: str = "CR2",
                         columns: Sequence[str] = INDICATORS) -> tuple[pd.DataFrame, dict]:
    """The nine slope contrasts and the joint W(9) with ``controls`` fully interacted.

    Parameters
    ----------
    frame : DataFrame
        Item frame (rows without finite ``b_hat`` are dropped).
    controls : DataFrame or None
        Extra covariates indexed like ``frame`` (None: the plain §4.3 model).
    seed : int
        For the bootstrap.
    n_boot : int
        Wild cluster bootstrap draws per contrast (0 skips it).
    boot_kind : str
    columns : sequence of str
        The indicators whose contrasts are tested.

    Returns
    -------
    (DataFrame, dict)
        :func:`mmlu_audit.analyses.regression.contrast_tests` over the nine indicator
        contrasts (CR2 and HC3), and the CR2 HTZ test of all nine (``wald``,
        ``stat``, ``df_den``, ``p``).
    """
    frame = estimated_items(frame)
    X = indicator_design(frame, list(columns))
    if controls is not None:
        if not frame.index.isin(controls.index).all():
            raise DataError("controls", "must be indexed like frame and cover all its items")
        controls = controls.loc[frame.index]
        clash = set(controls.columns) & set(X.columns)
        if clash:
            raise DataError("controls", f"columns {sorted(clash)} are already indicators")
        X = pd.concat([X, controls], axis=1)
    y, stem = frame["b_hat"].to_numpy(float), frame["stem"].to_numpy(bool)
    subjects = frame["subject"].to_numpy()
    fit = interaction_fit(y, X, stem)
    terms = contrast_terms(columns)
    table = contrast_tests(fit, subjects, terms, kinds=("HC3", "CR2"), seed=seed, n_boot=n_boot,
                           boot_kind=boot_kind)
    joint = wald_test(fit, terms, kind="CR2", clusters=subjects, form="HTZ").iloc[0]
    return table, {k: float(joint[k]) for k in ("wald", "stat", "df_den", "p")}


def common_support(frame: pd.DataFrame, columns: Sequence[str] = INDICATORS,
                   trim: float = 0.01) -> tuple[pd.DataFrame, np.ndarray]:
    """Each predictor's common support across partitions, and the items inside all of them.

    Parameters
    ----------
    frame : DataFrame
        With ``stem`` and ``columns``.
    columns : sequence of str
    trim : float
        Quantile trimmed from each end of each partition's distribution before the
        ranges are intersected (0: the plain min–max overlap).

    Returns
    -------
    (DataFrame, ndarray of bool)
        Per predictor ``lower``, ``upper`` and the share of STEM / non-STEM items
        inside; and the mask of rows inside every predictor's common support.
    """
    if not 0 <= trim < 0.5:
        raise ParameterError("trim", f"must lie in [0, 0.5), got {trim}")
    stem = frame["stem"].to_numpy(bool)
    if stem.all() or not stem.any():
        raise DataError("frame", "needs items of both partitions")
    rows, inside = {}, np.ones(len(frame), bool)
    for column in columns:
        values = frame[column].to_numpy(float)
        lows = [np.quantile(values[m], trim) for m in (stem, ~stem)]
        highs = [np.quantile(values[m], 1 - trim) for m in (stem, ~stem)]
        lower, upper = max(lows), min(highs)
        if lower > upper:
            raise DataError(column, "the two partitions' ranges do not overlap")
        within = (values >= lower) & (values <= upper)
        inside &= within
        rows[column] = {"lower": lower, "upper": upper, "share STEM inside": within[stem].mean(),
                        "share non-STEM inside": within[~stem].mean()}
    return pd.DataFrame(rows).T, inside


@seeded
def option_set_headline(frame: pd.DataFrame, *, seed, n_boot: int = 0, boot_kind: str = "CR2",
                        n_knots: int = 4, support_trim: float = 0.01, n_folds: int = 10,
                        alpha: float = 0.05) -> dict:
    """Appendix B's three headline figures on one item frame, in one call.

    Parameters
    ----------
    frame : DataFrame
        Item frame with ``b_hat``, ``stem``, ``subject``, the nine indicators and the option-set
        covariates; rows without a finite ``b_hat`` are dropped.
    seed : int
        Seeds the wild cluster bootstrap and the CV folds.
    n_boot, boot_kind
        Wild cluster bootstrap of the contrasts with the option set (0 skips it; the plain
        contrasts are not bootstrapped).
    n_knots : int
        Knots of each restricted cubic spline
        (:func:`mmlu_audit.analyses.splines.nonlinearity_tests`).
    support_trim : float
        As ``trim`` of :func:`common_support`.
    n_folds : int
        K of the item-fold cross-validation on the common support.
    alpha : float
        Level of every decision.

    Returns
    -------
    dict
        Keyed by Appendix B's glue names (chap-appendix-b). Contrast: ``plain_d_ner_t``, ``plain_d_ner_holm``,
        ``plain_htz_p`` (= ``full_htz_p``) without the option set; ``option_d_ner_t``,
        ``option_d_ner_holm``, ``option_d_ner_boot`` (NaN without bootstrap), ``option_htz_p``
        with it, and ``contrast_survives_options`` (the D_ner contrast positive with Holm CR2
        p < ``alpha``). The non-linearity: the values of
        :func:`~mmlu_audit.analyses.splines.nonlinearity_statistics`, among them
        ``c_bry_nonlinear_nonstem``. The common support: ``support_share``, ``support_n``,
        ``support_n_stem``, ``support_htz_p``, ``support_d_ner_holm``,
        ``homogeneity_rejected_common_support`` and ``d_ner_survives_common_support`` (the
        conclusions of :func:`~mmlu_audit.analyses.robustness.primary_conclusions`).
    """
    frame = estimated_items(frame)
    plain, plain_joint = controlled_contrasts(frame, None, seed=seed)
    options, option_joint = controlled_contrasts(frame, option_controls(frame), seed=seed, n_boot=n_boot,
                                                 boot_kind=boot_kind)
    entity = options.loc[ENTITY_TERM]
    nonlinear = nonlinearity_statistics(nonlinearity_tests(frame, n_knots=n_knots), alpha)
    _, inside = common_support(frame, INDICATORS, trim=support_trim)
    support = section4_statistics(frame[inside], seed=seed, n_folds=n_folds)
    conclusions = primary_conclusions(support, alpha)
    return {
        "plain_d_ner_t": float(plain.loc[ENTITY_TERM, "t_CR2"]),
        "plain_d_ner_holm": float(plain.loc[ENTITY_TERM, "holm_CR2"]), "plain_htz_p": plain_joint["p"],
        "full_htz_p": plain_joint["p"], "option_d_ner_t": float(entity["t_CR2"]),
        "option_d_ner_holm": float(entity["holm_CR2"]),
        "option_d_ner_boot": float(entity["holm_boot"]) if "holm_boot" in entity else float("nan"),
        "option_htz_p": option_joint["p"],
        "contrast_survives_options": bool(entity["estimate"] > 0 and entity["holm_CR2"] < alpha),
        **nonlinear,
        "support_share": float(inside.mean()), "support_n": int(inside.sum()),
        "support_n_stem": int(frame.loc[inside, "stem"].sum()), "support_htz_p": support["htz_p"],
        "support_d_ner_holm": support["d_ner_holm_cr2"],
        "homogeneity_rejected_common_support": conclusions["homogeneity_rejected"],
        "d_ner_survives_common_support": conclusions["d_ner_survives_holm"],
    }
