"""Predictor designs of the §4 regressions: the nine standardised indicators and Table 2's rows.

Also the outcome side: which items carry a difficulty estimate and how reliable b̂ is.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.features import INDICATORS, OPTION_COVARIATES
from mmlu_audit.core.scaling import standardise

__all__ = ["LEARNERS", "Design", "design_arrays", "difficulty_reliability", "estimated_items",
           "indicator_design", "table2_designs"]

LEARNERS = ("ols", "ridge", "group_mean")




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
            raise ParameterError("learner", f"unknown learner {self.learner!r}; choose from {LEARNERS}")

    def rows(self, mask: np.ndarray) -> Design:
        """The same design restricted to the rows in ``mask``."""
        return replace(self, X=self.X[mask])


def indicator_design(frame: pd.DataFrame, columns=INDICATORS) -> pd.DataFrame:
    """The indicators z-scored over all items (population SD), as the simulator plants them."""
    return standardise(frame[list(columns)].astype(float))


def design_arrays(frame: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray, np.ndarray, np.ndarray]:
    """The standardised indicators, b̂, the STEM flag and the subject of every item in ``frame``."""
    return (indicator_design(frame), frame["b_hat"].to_numpy(), frame["stem"].to_numpy(),
            frame["subject"].to_numpy())


def table2_designs(frame: pd.DataFrame, embeddings: np.ndarray | None = None) -> list[Design]:
    """The predictor sets of Table 2, in the paper's order.

    Parameters
    ----------
    frame : DataFrame
        The item frame of :func:`mmlu_audit.analyses.pipeline.analysis_inputs` (or a row subset).
    embeddings : ndarray, shape (n, d), optional
        Sentence embeddings of the same rows; without them the encoder row is omitted.
    """
    nine = indicator_design(frame).to_numpy()
    options = standardise(frame[list(OPTION_COVARIATES)].astype(float)).fillna(0.0).to_numpy()
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
