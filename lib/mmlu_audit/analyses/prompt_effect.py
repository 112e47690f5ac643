"""How much the prompt moves item outcomes: one model, two prompts, the same items.

gpt-4-1106-preview answered MMLU twice: under HELM's 5-shot generation prompt and under
RouteLLM's 5-shot prompt with one generated letter. On the items both observed, every
difference between the two response rows is the prompt's (and the scorer's), not the model's:
:func:`prompt_effect` reports both accuracies, how often the outcomes agree, Cohen's κ, the
items right under one prompt and wrong under the other (each direction) and the accuracy
difference per subject, with a subject-cluster bootstrap interval for the overall difference.
:func:`compare_outcomes` is the same comparison of any two binary rows.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.core.seeds import check_seed, seeded
from mmlu_audit.data.real_pool import SAME_MODEL

__all__ = ["PROMPT_PAIR", "compare_outcomes", "prompt_effect"]

#: The model answered under both prompts: ``(population label, model id)`` of each row.
PROMPT_PAIR = tuple(key for key, name in SAME_MODEL.items() if name == "openai/gpt-4-1106-preview")


@seeded
def prompt_effect(root: str | Path | None = None, *, seed: int, n_boot: int = 2000,
                  level: float = 0.95) -> dict:
    """gpt-4-1106-preview under HELM's prompt and under RouteLLM's, on the items both observed.

    Parameters
    ----------
    root : str or Path, optional
        Data root.
    seed : int
        Seed of the subject-cluster bootstrap (same seed, same output).
    n_boot : int
        Bootstrap replicates.
    level : float
        Coverage of the percentile interval.

    Returns
    -------
    dict
        :func:`compare_outcomes` with ``labels=("helm", "routellm")``: ``n_items``,
        ``accuracy_helm``, ``accuracy_routellm``, ``difference`` (HELM − RouteLLM),
        ``difference_low`` / ``difference_high``, ``agreement``, ``kappa``,
        ``helm_right_routellm_wrong``, ``helm_wrong_routellm_right``, ``n_subjects`` and
        ``subject_difference`` ({subject: HELM − RouteLLM accuracy}).
    """
    from mmlu_audit.data.helm import load_helm20
    from mmlu_audit.data.router import load_routellm2

    helm, routellm = load_helm20(root), load_routellm2(root)
    first = _row(helm, PROMPT_PAIR[0][1])
    second = _row(routellm, PROMPT_PAIR[1][1])[pd.Index(routellm.item_ids).get_indexer(helm.item_ids)]
    both = (first >= 0) & (second >= 0)
    subjects = np.array([item.split("/", 1)[0] for item in helm.item_ids])[both]
    return compare_outcomes(first[both], second[both], subjects, seed=seed, n_boot=n_boot, level=level,
                            labels=("helm", "routellm"))


def _row(matrix, model_id: str) -> np.ndarray:
    where = np.flatnonzero(matrix.models["model_id"].to_numpy() == model_id)
    if where.size != 1:
        raise DataError(matrix.source, f"no single row for model {model_id!r}")
    return matrix.responses[where[0]]


@seeded
def compare_outcomes(first, second, subjects, *, seed: int, n_boot: int = 2000, level: float = 0.95,
                     labels: tuple[str, str] = ("first", "second")) -> dict:
    """Agreement and accuracy difference of two binary response rows over the same items.

    Parameters
    ----------
    first, second : array-like of {0, 1}
        One outcome per item, in the same item order.
    subjects : array-like of str
        Each item's subject: the bootstrap resamples whole subjects.
    seed : int
        Bootstrap seed.
    n_boot : int
        Bootstrap replicates (at least 100).
    level : float
        Interval coverage, in (0, 1).
    labels : (str, str)
        Names of the two rows in the keys.

    Returns
    -------
    dict
        Plain ints and floats, keyed as in :func:`prompt_effect` with ``labels`` for the names;
        ``kappa`` is NaN when both rows are constant and equal.

    Raises
    ------
    DataError
        If the rows are not 0/1, differ in length from each other or from ``subjects``, or are empty.
    ParameterError
        On a bad seed, ``n_boot`` or ``level``.
    """
    a, b, subjects = _checked_rows(first, second, subjects)
    seed = check_seed(seed)
    if not isinstance(n_boot, int) or n_boot < 100:
        raise ParameterError("n_boot", f"must be an integer ≥ 100, got {n_boot!r}")
    if not 0 < level < 1:
        raise ParameterError("level", f"must lie in (0, 1), got {level!r}")
    x, y = labels
    low, high = _cluster_interval(a, b, subjects, seed, n_boot, level)
    per_subject = pd.Series(a - b).groupby(subjects).mean()
    return {"n_items": int(a.size), f"accuracy_{x}": float(a.mean()), f"accuracy_{y}": float(b.mean()),
            "difference": float(a.mean() - b.mean()), "difference_low": low, "difference_high": high,
            "agreement": float((a == b).mean()), "kappa": _kappa(a, b),
            f"{x}_right_{y}_wrong": int(((a == 1) & (b == 0)).sum()),
            f"{x}_wrong_{y}_right": int(((a == 0) & (b == 1)).sum()),
            "n_subjects": int(per_subject.size),
            "subject_difference": {str(s): float(v) for s, v in per_subject.items()}}


def _checked_rows(first, second, subjects) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a, b = np.asarray(first), np.asarray(second)
    subjects = np.asarray(subjects, dtype=str)
    if a.ndim != 1 or a.shape != b.shape or a.shape != subjects.shape or a.size == 0:
        raise DataError("outcomes", f"two non-empty rows and their subjects of one length expected, got "
                        f"{a.shape}, {b.shape} and {subjects.shape}")
    if not (np.isin(a, (0, 1)).all() and np.isin(b, (0, 1)).all()):
        raise DataError("outcomes", "outcomes other than 0 and 1 (drop unobserved items first)")
    return a.astype(np.int64), b.astype(np.int64), subjects


def _kappa(a: np.ndarray, b: np.ndarray) -> float:
    """Cohen's κ of two binary rows: (observed − chance agreement) / (1 − chance agreement)."""
    observed = float((a == b).mean())
    pa, pb = a.mean(), b.mean()
    chance = float(pa * pb + (1 - pa) * (1 - pb))
    return float("nan") if chance == 1 else (observed - chance) / (1 - chance)


def _cluster_interval(a, b, subjects, seed: int, n_boot: int, level: float) -> tuple[float, float]:
    """Percentile interval of the accuracy difference, whole subjects resampled with replacement."""
    codes, _ = pd.factorize(subjects, sort=True)
    gaps = np.bincount(codes, weights=a - b)
    sizes = np.bincount(codes).astype(float)
    k = gaps.size
    draws = np.random.default_rng(seed).multinomial(k, np.full(k, 1 / k), size=n_boot)
    replicates = (draws @ gaps) / (draws @ sizes)
    tail = (1 - level) / 2
    low, high = np.quantile(replicates, [tail, 1 - tail])
    return float(low), float(high)
