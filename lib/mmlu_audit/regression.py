"""Regression pieces shared by the §4 chapters (pooled, stratified, homogeneity).

* Designs: the nine standardised indicators and the Table 2 comparison designs
  (length, length + readability, nine indicators, encoder ceiling, subject
  identity, nine + option set), each with the learner that fits it.
* Cross-validation: :func:`cv_predict` / :func:`cv_table` give K-fold
  cross-validated R² globally and within each partition, over item folds or
  subject-grouped folds; :func:`table2_ratios` computes the ratios §4.1 reports.
* Contrasts: :func:`interaction_fit` fits ``b ~ [1, X, S, S*X]`` and
  :func:`contrast_tests` tests the nine slope contrasts (STEM − non-STEM) under
  several covariances and the wild cluster bootstrap, each with Holm.
* Planted truth (simulated sources): :func:`recovery_slope`,
  :func:`planted_slopes` and :func:`planted_vs_estimated`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from .errors import DataError
from .features import INDICATORS, OPTION_COVARIATES
from .inference import coef_table, fit_ols, fold_ids, interaction_design, wild_bootstrap_table
from .inference.covariance import CLUSTER_KINDS, cluster_algebra
from .pipeline import standardised_indicators

__all__ = [
    "LEARNERS",
    "PARTS",
    "RIDGE_ALPHAS",
    "Design",
    "design_arrays",
    "contrast_terms",
    "contrast_tests",
    "cv_predict",
    "cv_table",
    "difficulty_reliability",
    "estimated_items",
    "holm_count",
    "indicator_design",
    "interaction_fit",
    "partition_fits",
    "planted_slopes",
    "planted_vs_estimated",
    "population_note",
    "realised_contrasts",
    "recovery_slope",
    "table2_designs",
    "table2_ratios",
]

LEARNERS = ("ols", "ridge", "group_mean")
PARTS = ("global", "STEM", "non-STEM")
#: Ridge penalties searched by efficient leave-one-out inside each training fold.
RIDGE_ALPHAS = tuple(np.logspace(-2, 4, 13))


@dataclass(frozen=True)
class Design:
    """A named predictor matrix and the learner that fits it.

    Attributes
    ----------
    name : str
    X : ndarray, shape (n, k)
        Predictors without an intercept (one-hot columns for ``"group_mean"``).
    learner : {"ols", "ridge", "group_mean"}
        ``"ols"``: OLS with intercept; ``"ridge"``: ridge with intercept, penalty
        chosen from :data:`RIDGE_ALPHAS` by leave-one-out within the training fold;
        ``"group_mean"``: training mean of the row's group (its one-hot column),
        the training grand mean for a group absent from training.
    """

    name: str
    X: np.ndarray
    learner: str = "ols"

    def __post_init__(self):
        if self.learner not in LEARNERS:
            raise DataError("learner", f"unknown learner {self.learner!r}; choose from {LEARNERS}")

    def rows(self, mask: np.ndarray) -> "Design":
        """The same design restricted to the rows in ``mask``."""
        return replace(self, X=self.X[mask])


def indicator_design(frame: pd.DataFrame, columns=INDICATORS) -> pd.DataFrame:
    """The indicators z-scored over all items (population SD), as the simulator plants them."""
    return standardised_indicators(frame, columns)


def design_arrays(frame: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray, np.ndarray, np.ndarray]:
    """The standardised indicators, b̂, the STEM flag and the subject of every item in ``frame``."""
    return (indicator_design(frame), frame["b_hat"].to_numpy(), frame["stem"].to_numpy(),
            frame["subject"].to_numpy())


def table2_designs(frame: pd.DataFrame, embeddings: np.ndarray | None = None) -> list[Design]:
    """The predictor sets of Table 2, in the paper's order.

    Parameters
    ----------
    frame : DataFrame
        The item frame of :func:`mmlu_audit.pipeline.analysis_inputs` (or a row subset).
    embeddings : ndarray, shape (n, d), optional
        Sentence embeddings of the same rows; without them the encoder row is omitted.
    """
    nine = indicator_design(frame).to_numpy()
    options = standardised_indicators(frame, OPTION_COVARIATES).fillna(0.0).to_numpy()
    subjects = pd.get_dummies(frame["subject"], dtype=float).to_numpy()
    designs = [
        Design("length", frame[["n_tokens"]].to_numpy(float)),
        Design("length + readability", frame[["n_tokens", "readability_fk"]].to_numpy(float)),
        Design("nine indicators", nine),
    ]
    if embeddings is not None:
        if len(embeddings) != len(frame):
            raise DataError("embeddings", f"{len(embeddings)} rows for {len(frame)} items")
        designs.append(Design("encoder ceiling", np.asarray(embeddings, float), "ridge"))
    designs += [
        Design("subject identity", subjects, "group_mean"),
        Design("nine + option set", np.column_stack([nine, options])),
    ]
    return designs


def _fit_predict(y_train, X_train, X_test, learner: str) -> np.ndarray:
    if learner == "ols":
        varying = np.ptp(X_train, axis=0) > 0  # a rare option flag can be constant within a fold
        design = np.column_stack([np.ones(len(y_train)), X_train[:, varying]])
        beta = np.linalg.lstsq(design, y_train, rcond=None)[0]
        return beta[0] + X_test[:, varying] @ beta[1:]
    if learner == "ridge":
        return _ridge_loo_fit_predict(y_train, X_train, X_test)
    counts = X_train.sum(axis=0)
    means = np.where(counts > 0, (X_train.T @ y_train) / np.maximum(counts, 1), y_train.mean())
    known = X_test @ (counts > 0)
    return np.where(known > 0, X_test @ means, y_train.mean())


def _ridge_loo_fit_predict(y_train, X_train, X_test, alphas=RIDGE_ALPHAS) -> np.ndarray:
    """Ridge with unpenalised intercept; penalty chosen by exact leave-one-out error.

    Uses the eigendecomposition of the centred Gram matrix ``X'X = V diag(lam) V'``:
    with ``P = X V``, the ridge hat matrix has diagonal
    ``1/n + sum_j P_ij^2 / (lam_j + alpha)``, so every penalty costs O(n k).
    """
    x_mean, y_mean = X_train.mean(axis=0), y_train.mean()
    Xc, yc = X_train - x_mean, y_train - y_mean
    lam, V = np.linalg.eigh(Xc.T @ Xc)
    lam = np.clip(lam, 0.0, None)
    P = Xc @ V
    Py = P.T @ yc
    best = (np.inf, None)
    for alpha in alphas:
        shrink = 1.0 / (lam + alpha)
        fitted = P @ (shrink * Py)
        leverage = 1.0 / len(yc) + (P**2) @ shrink
        loo = np.sum(((yc - fitted) / (1.0 - leverage)) ** 2)
        if loo < best[0]:
            best = (loo, V @ (shrink * Py))
    return y_mean + (X_test - x_mean) @ best[1]


def cv_predict(y, design: Design, folds) -> np.ndarray:
    """Out-of-fold predictions of ``y`` from ``design`` for the given fold labels."""
    y = np.asarray(y, float)
    folds = np.asarray(folds)
    if len(y) != len(design.X) or len(folds) != len(y):
        raise DataError("folds", "y, design rows and folds must have the same length")
    predicted = np.empty_like(y)
    for fold in np.unique(folds):
        test = folds == fold
        predicted[test] = _fit_predict(y[~test], design.X[~test], design.X[test], design.learner)
    return predicted


def _r2(y: np.ndarray, predicted: np.ndarray) -> float:
    centred = y - y.mean()
    return float(1.0 - np.sum((y - predicted) ** 2) / (centred @ centred))


def cv_table(y, stem, subjects, designs: list[Design], *, n_folds: int, seed) -> pd.DataFrame:
    """Cross-validated R² of each design, globally and within each partition.

    Within a partition the model is fitted and scored on that partition's items
    only. Item folds are drawn at random; subject folds keep each subject whole,
    so a model is always scored on subjects it never saw.

    Parameters
    ----------
    y : array-like, shape (n,)
    stem : array-like of bool, shape (n,)
    subjects : array-like, shape (n,)
    designs : list of Design
    n_folds : int
    seed : int
        Seeds the fold draws (the same folds for every design).

    Returns
    -------
    DataFrame
        Index: design names; columns: MultiIndex ``(folds, part)`` with folds in
        ``("item", "subject")`` and part in :data:`PARTS`.
    """
    y, stem, subjects = np.asarray(y, float), np.asarray(stem, bool), np.asarray(subjects)
    masks = {"global": np.ones(y.size, bool), "STEM": stem, "non-STEM": ~stem}
    columns = {}
    for scheme in ("item", "subject"):
        for part, mask in masks.items():
            groups = subjects[mask] if scheme == "subject" else None
            folds = fold_ids(int(mask.sum()), n_folds, seed=seed, groups=groups)
            columns[(scheme, part)] = [_r2(y[mask], cv_predict(y[mask], d.rows(mask), folds)) for d in designs]
    table = pd.DataFrame(columns, index=pd.Index([d.name for d in designs], name="predictors"))
    table.columns = pd.MultiIndex.from_tuples(table.columns, names=["folds", "part"])
    return table


def table2_ratios(table: pd.DataFrame, scheme: str = "item",
                  baseline: str = "length + readability") -> dict[str, float]:
    """The §4.1 ratios, keyed as in :data:`mmlu_audit.paper.PAPER`.

    Framework vs the length baseline (global, STEM; the paper's "that baseline"
    is length plus readability, ``baseline="length"`` gives length alone), the
    nine indicators' share of the encoder
    ceiling (STEM, non-STEM) and the STEM share with the option set. A ratio is
    NaN when its denominator is not a positive R² (or the encoder row is absent):
    a share of a ceiling that predicts nothing has no meaning.
    """
    t = table[scheme]
    nine, length = t.loc["nine indicators"], t.loc[baseline]
    ceiling = t.loc["encoder ceiling"] if "encoder ceiling" in t.index else pd.Series(np.nan, index=t.columns)
    return {
        "ratio_framework_vs_length_global": _ratio(nine["global"], length["global"]),
        "ratio_framework_vs_length_stem": _ratio(nine["STEM"], length["STEM"]),
        "share_of_ceiling_stem": _ratio(nine["STEM"], ceiling["STEM"]),
        "share_of_ceiling_nonstem": _ratio(nine["non-STEM"], ceiling["non-STEM"]),
        "share_of_ceiling_stem_with_options": _ratio(t.loc["nine + option set", "STEM"], ceiling["STEM"]),
    }


def _ratio(numerator: float, denominator: float) -> float:
    """``numerator / denominator``, NaN unless the denominator is a positive R²."""
    return float(numerator / denominator) if denominator > 0 else float("nan")


def contrast_terms(names=INDICATORS) -> list[str]:
    """Names of the slope-contrast terms of :func:`interaction_fit`."""
    return [f"STEM:{n}" for n in names]


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
            raise DataError("seed", "the wild cluster bootstrap needs a seed")
        boot = wild_bootstrap_table(fit, terms, clusters=clusters, seed=seed, kind=boot_kind,
                                    n_draws=n_boot).set_index("term")
        out["p_boot"], out["holm_boot"] = boot["p"], boot["p_holm"]
    return out


def holm_count(table: pd.DataFrame, alpha: float = 0.05) -> dict[str, int]:
    """Number of contrasts with Holm-adjusted p below ``alpha``, per ``holm_*`` column."""
    return {c.removeprefix("holm_"): int((table[c] < alpha).sum()) for c in table.columns
            if c.startswith("holm_")}


def recovery_slope(frame: pd.DataFrame) -> float | None:
    """OLS slope of ``b_hat`` on ``b_true`` (None without a planted truth).

    The paper's N(0, 1) prior on b shrinks the estimates toward zero, so slopes
    of ``b_hat`` on the indicators estimate planted slope × this factor.
    """
    if "b_true" not in frame:
        return None
    return float(fit_ols(frame["b_hat"], frame[["b_true"]], intercept=True).beta[1])


def planted_slopes(matrix) -> pd.DataFrame | None:
    """Planted (STEM, non-STEM) slopes of a simulated matrix, from its recorded spec.

    Returns None for real sources.
    """
    if not matrix.simulated:
        return None
    from .simulate import WorldSpec

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
        :func:`recovery_slope`; the expected estimate is planted × recovery.
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


def estimated_items(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``frame`` with a finite difficulty estimate ``b_hat``.

    On a real source some items may have no observed response (HELM-20 has a
    few); they carry no difficulty and leave every regression.
    """
    return frame[np.isfinite(frame["b_hat"].to_numpy(float))]


def difficulty_reliability(frame: pd.DataFrame) -> float:
    """Reliability of b̂: ``1 - mean(b_sd²) / var(b_hat)``.

    Optimistic, because mean-field posterior SDs understate uncertainty; no
    predictor can explain a larger share of b̂'s variance than this.
    """
    return float(1.0 - np.mean(frame["b_sd"] ** 2) / np.var(frame["b_hat"]))


#: Below this many models a chapter says the source cannot test the paper's claims.
FEW_MODELS = 200


def population_note(matrix) -> str:
    """One plain sentence on what the model population of ``matrix`` can support."""
    n_models = matrix.shape[0]
    observed = matrix.observed
    correct = (matrix.responses == 1) & observed
    n_obs = observed.sum(axis=0)
    seen = n_obs > 0
    hits = correct.sum(axis=0)[seen]
    extreme = np.mean((hits == n_obs[seen]) | (hits == 0))
    unseen = "" if seen.all() else (f" {int((~seen).sum())} items have no observed response at all "
                                    "and are left out.")
    if matrix.simulated:
        return (f"Simulated source with {n_models:,} models, sized like the paper's leaderboard; "
                "every estimate below describes the simulated world and is checked against its "
                "planted truth.")
    if n_models >= FEW_MODELS:
        return (f"Real responses from {n_models:,} models; {extreme:.1%} of items are answered "
                f"correctly by all of them or by none.{unseen}")
    return (f"Real responses from only {n_models:,} models (at most {int(n_obs.max())} per item). "
            f"{extreme:.1%} of items are answered correctly by every model or by none, so their "
            "difficulty is pinned only by the prior, and every b̂ rests on a handful of binary "
            f"responses.{unseen} The regressions below run and their tests are valid for this noisy "
            "outcome, but they describe these models' difficulty ordering, not MMLU's: effects "
            "of the size the paper reports are mostly below what this population can detect, "
            "so a null result here is not evidence against the paper.")
