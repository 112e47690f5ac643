"""§4.1's headline figures: the pooled regression, its incremental F, Table 2's ratios and b̂'s precision.

:func:`pooled_headline` computes, on one item frame, what the pooled chapter reports: the R² and
omnibus F of b̂ on the nine standardised indicators, the incremental F of the nine over the
three-regressor baseline the paper's degrees of freedom imply (token count, Flesch–Kincaid grade,
STEM), Table 2's cross-validated ratios (framework vs length, globally and in STEM; the encoder
ceiling and the shares of it when embeddings are given), and the outcome's precision: the
reliability of b̂ from its posterior standard errors and the R² disattenuated by it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from mmlu_audit.analyses.regression.crossval import PARTS, cv_predict, table2_ratios
from mmlu_audit.analyses.regression.designs import (Design, difficulty_reliability, estimated_items,
                                                    indicator_design, table2_designs)
from mmlu_audit.core.errors import DataError
from mmlu_audit.core.seeds import seeded
from mmlu_audit.features import INDICATORS
from mmlu_audit.inference import fit_ols, fold_ids, r2_cluster_interval, r2_score, wald_test

__all__ = ["BASELINE_COLUMNS", "POOLED_KEYS", "disattenuated_r2", "item_fold_predictions", "item_fold_table",
           "pooled_headline", "pooled_headline_with_table"]

#: The three regressors besides the intercept that the paper's F(9, 14029) implies (§4.1).
BASELINE_COLUMNS = ("n_tokens", "readability_fk", "stem")

#: §4.1's headline figures, by their glue names in the pooled chapter (the encoder rows are NaN
#: without embeddings).
POOLED_KEYS = ("pooled_r2", "pooled_F", "pooled_F_incremental", "ratio_framework_vs_length_global",
               "ratio_framework_vs_length_stem", "ceiling_global", "ceiling_stem", "share_of_ceiling_stem",
               "share_of_ceiling_nonstem", "share_of_ceiling_stem_with_options", "subject_global",
               "b_reliability", "disattenuated_r2")


def disattenuated_r2(r2: float, reliability: float) -> float:
    """The R² an error-free outcome would give: ``r2 / reliability`` (Spearman's correction).

    Classical measurement error in the outcome leaves the slopes unbiased but adds to the
    residual variance, so the observed R² understates the share of the true outcome's variance
    explained by the factor ``reliability``. NaN when the reliability is not positive (the
    correction is then undefined). The ratio may exceed 1 when the reliability is
    underestimated.
    """
    return float(r2 / reliability) if reliability > 0 else float("nan")


@seeded
def item_fold_table(y, stem, designs: list[Design], *, n_folds: int, seed: int) -> pd.DataFrame:
    """The item-fold half of :func:`~mmlu_audit.analyses.regression.cv_table`, the half §4.1's ratios read.

    The same seeded folds and learners as ``cv_table(...)["item"]``, without the subject-fold
    half (which would double the cost, most of it the encoder's ridge, for figures the headline
    does not report).

    Returns
    -------
    DataFrame
        Index: design names; columns: MultiIndex ``("item", part)`` for part in :data:`PARTS`.
    """
    y = np.asarray(y, float)
    predictions = item_fold_predictions(y, stem, designs, n_folds=n_folds, seed=seed)
    columns = {("item", part): [r2_score(y[mask], predicted[d.name]) for d in designs]
               for part, (mask, predicted) in predictions.items()}
    table = pd.DataFrame(columns, index=pd.Index([d.name for d in designs], name="predictors"))
    table.columns = pd.MultiIndex.from_tuples(table.columns, names=["folds", "part"])
    return table


@seeded
def item_fold_predictions(y, stem, designs: list[Design], *, n_folds: int, seed) -> dict:
    """The out-of-fold predictions behind :func:`item_fold_table`, per partition and design.

    Returns
    -------
    dict
        ``part → (mask, {design name: out-of-fold predictions of y[mask]})`` for each part of
        :data:`PARTS`, with the seeded folds of :func:`item_fold_table`.
    """
    y, stem = np.asarray(y, float), np.asarray(stem, bool)
    masks = {"global": np.ones(y.size, bool), "STEM": stem, "non-STEM": ~stem}
    out = {}
    for part in PARTS:
        mask = masks[part]
        folds = fold_ids(int(mask.sum()), n_folds, seed=seed)
        out[part] = (mask, {d.name: cv_predict(y[mask], d.rows(mask), folds) for d in designs})
    return out


@seeded
def pooled_headline(frame: pd.DataFrame, *, seed: int, cv_folds: int, cv_items: int = 0,
                    embeddings: np.ndarray | Callable[[np.ndarray], np.ndarray] | None = None) -> dict:
    """§4.1's headline figures (:data:`POOLED_KEYS`) on an item frame, as the pooled chapter computes them.

    Parameters
    ----------
    frame : DataFrame
        Items with ``b_hat``, ``b_sd``, ``stem``, ``subject``, the nine indicators, the baselines
        (``n_tokens``, ``readability_fk``) and the option covariates; items without ``b_hat``
        are dropped.
    seed : int
        Seed of the CV folds (and of the item subsample when ``cv_items`` is set).
        The cross-validation uses item folds only (:func:`item_fold_table`).
    cv_folds : int
        K of the cross-validation.
    cv_items : int
        Items in Table 2 (a seeded random subsample of the estimated items, drawn as the
        chapter draws it); 0 for all.
    embeddings : ndarray of shape (len(frame), d), or callable, optional
        Sentence embeddings of the rows of ``frame`` (in its order, unestimated items
        included), or a function that, called with ``rows=`` positions of ``frame``, returns
        their embeddings (so only the items Table 2 uses are encoded, e.g.
        ``functools.partial(encode_items, items)``); without them the encoder rows and the
        shares of the ceiling are NaN.

    Returns
    -------
    dict
        :data:`POOLED_KEYS`, plus ``n_items``, ``pooled_F_p``, ``pooled_F_inc_p`` and ``cv_items_used``.
        ``pooled_F`` is the classical omnibus F of the nine slopes, ``pooled_F_incremental``
        the classical F of the nine over :data:`BASELINE_COLUMNS`; the ratios and ceilings
        use item folds (:func:`~mmlu_audit.analyses.regression.table2_ratios`);
        ``disattenuated_r2`` is :func:`disattenuated_r2` of ``pooled_r2`` by ``b_reliability``.

    Raises
    ------
    DataError
        If ``embeddings`` has not one row per row of ``frame`` (or per requested row).
    """
    return pooled_headline_with_table(frame, seed=seed, cv_folds=cv_folds, cv_items=cv_items,
                                      embeddings=embeddings)[0]


@seeded
def pooled_headline_with_table(frame: pd.DataFrame, *, seed: int, cv_folds: int, cv_items: int = 0,
                               embeddings: np.ndarray | Callable[[np.ndarray], np.ndarray] | None = None,
                               n_boot: int = 0) -> tuple[dict, pd.DataFrame]:
    """:func:`pooled_headline` and the Table 2 it reads, from one cross-validation.

    Parameters are those of :func:`pooled_headline`, and:

    n_boot : int
        Subject resamples of each R²'s interval (:func:`~mmlu_audit.inference.r2_cluster_interval`
        on the cross-validation's own out-of-fold predictions, so no model is refitted); 0 for
        none. ``frame`` then needs ``subject``.

    Returns
    -------
    headline : dict
        :func:`pooled_headline`'s figures.
    table : DataFrame
        Table 2's item-fold cross-validated R² of b̂: predictor sets by the partitions
        ``global``, ``STEM``, ``non-STEM`` (the ``"item"`` level of :func:`item_fold_table`);
        without embeddings it has no encoder row. With ``n_boot``, also ``<part> low`` and
        ``<part> high``: the subject-resampled 95 % interval of each. What a figure of Table 2
        draws.

    Raises
    ------
    DataError
        If ``embeddings`` has not one row per row of ``frame`` (or per requested row).
    """
    if embeddings is not None and not callable(embeddings) and len(embeddings) != len(frame):
        raise DataError("embeddings", f"needs one row per row of frame ({len(frame)}), got {len(embeddings)}")
    estimated = np.isfinite(frame["b_hat"].to_numpy(float))
    items = estimated_items(frame)
    X = indicator_design(items)
    y = items["b_hat"].to_numpy()
    pooled = fit_ols(y, X, intercept=True)
    omnibus = wald_test(pooled, list(INDICATORS), kind="classical", form="F").iloc[0]
    baseline = items[list(BASELINE_COLUMNS)].astype(float).add_prefix("baseline_")
    incremental = wald_test(fit_ols(y, pd.concat([baseline, X], axis=1), intercept=True), list(INDICATORS),
                            kind="classical", form="F").iloc[0]
    rows = np.arange(len(items))
    if cv_items and cv_items < len(items):
        rows = np.sort(np.random.default_rng(seed).choice(len(items), cv_items, replace=False))
    cv_frame = items.iloc[rows]
    vectors = None if embeddings is None else _embeddings_of(embeddings, np.flatnonzero(estimated)[rows])
    designs = table2_designs(cv_frame, vectors)
    y_cv = cv_frame["b_hat"].to_numpy(float)
    predictions = item_fold_predictions(y_cv, cv_frame["stem"], designs, n_folds=cv_folds, seed=seed)
    item_cv = pd.DataFrame({part: [r2_score(y_cv[mask], predicted[d.name]) for d in designs]
                            for part, (mask, predicted) in predictions.items()},
                           index=pd.Index([d.name for d in designs], name="predictors"))
    if n_boot:
        item_cv = item_cv.join(_r2_intervals(y_cv, cv_frame["subject"].to_numpy(), predictions, seed, n_boot))
    item_cv.columns.name = "part"
    table = pd.concat({"item": item_cv[list(PARTS)]}, axis=1, names=["folds"])
    ceiling = (item_cv.loc["encoder ceiling"] if "encoder ceiling" in item_cv.index
               else pd.Series(np.nan, index=item_cv.columns))
    reliability = difficulty_reliability(items)
    return {"pooled_r2": pooled.r2, "pooled_F": omnibus["stat"], "pooled_F_incremental": incremental["stat"],
            **table2_ratios(table, "item"),
            "ceiling_global": ceiling["global"], "ceiling_stem": ceiling["STEM"],
            "subject_global": item_cv.loc["subject identity", "global"],
            "b_reliability": reliability, "disattenuated_r2": disattenuated_r2(pooled.r2, reliability),
            "n_items": pooled.n_obs, "pooled_F_p": omnibus["p"], "pooled_F_inc_p": incremental["p"],
            "cv_items_used": len(rows)}, item_cv


def _r2_intervals(y, subjects, predictions: dict, seed: int, n_boot: int) -> pd.DataFrame:
    """``<part> low`` and ``<part> high`` of every design's R², subjects resampled within the part."""
    rows = {}
    for part, (mask, predicted) in predictions.items():
        for name, values in predicted.items():
            low, high = r2_cluster_interval(y[mask], values, subjects[mask], seed=seed, n_boot=n_boot)
            rows.setdefault(name, {}).update({f"{part} low": low, f"{part} high": high})
    return pd.DataFrame.from_dict(rows, orient="index")


def _embeddings_of(embeddings: np.ndarray | Callable[[np.ndarray], np.ndarray],
                   positions: np.ndarray) -> np.ndarray:
    """The embeddings of the frame rows at ``positions``, from an array or by calling the encoder."""
    if not callable(embeddings):
        return np.asarray(embeddings)[positions]
    vectors = np.asarray(embeddings(rows=positions))
    if len(vectors) != len(positions):
        raise DataError("embeddings",
                        f"the encoder returned {len(vectors)} rows for {len(positions)} requested")
    return vectors
