"""Model-consensus audit of an answer key.

The rule (the pre-registered rule of the MMLU-Pro consensus audit, MV2 / Munim 2026):
take the ``k`` most accurate models of a panel; flag a question when at least ``m`` of
them choose the same option other than the key **and** more of them choose it than
choose the key. A flag is a question for a human to review, not a proven error:
strong models can share a misconception.

Votes are the options the models chose (0-based); a model with no record of the
question, or no extractable answer, casts no vote on it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from mmlu_audit.core.errors import DataError, ParameterError

__all__ = ["NO_VOTE", "panel_models", "vote_counts", "consensus_flags", "threshold_curve",
           "flag_rates", "wilson_interval", "precision_recall", "exact_validation",
           "validation_table", "option_origin"]

NO_VOTE = -1
MAX_OPTIONS = 10


def _check_k_m(k: int, m: int, n_models: int) -> None:
    for name, value in (("k", k), ("m", m)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ParameterError(name, f"must be a positive integer, got {value!r}")
    if k > n_models:
        raise ParameterError("k", f"the panel has only {n_models} models, cannot take the best {k}")
    if m > k:
        raise ParameterError("m", f"m = {m} votes cannot come from k = {k} models")


def _option_indices(values, name: str) -> np.ndarray:
    """``values`` as an integer array; NaN or fractional entries are refused, not cast."""
    values = np.asarray(values)
    if values.dtype.kind in "iu":
        return values
    if values.dtype.kind != "f":
        raise DataError(name, f"must be integer option indices, got dtype {values.dtype}")
    bad = np.flatnonzero(~np.isfinite(values) | (values != np.round(values)))
    if bad.size:
        raise DataError(name, f"{bad.size} entr(ies) are NaN or not whole numbers "
                        f"(first: position {bad[0]}, value {values.flat[bad[0]]!r})")
    return values.astype(np.int64)


def panel_models(accuracy, k: int) -> np.ndarray:
    """Row indices of the ``k`` most accurate models, best first (ties keep model order).

    Parameters
    ----------
    accuracy : array-like of float, shape (J,)
        Each model's accuracy; NaN (a model with no observed item) ranks last.
    k : int
    """
    accuracy = np.asarray(accuracy, dtype=float)
    _check_k_m(k, 1, len(accuracy))
    order = np.argsort(-np.nan_to_num(accuracy, nan=-np.inf), kind="stable")
    return order[:k]


def vote_counts(pred: np.ndarray, n_options: int = MAX_OPTIONS) -> np.ndarray:
    """Votes per option: an (I, n_options) integer array from an (M, I) choice matrix.

    Entries of ``pred`` outside ``0 … n_options-1`` (no record, no answer) are not votes.
    """
    pred = np.asarray(pred)
    if pred.ndim != 2 or pred.dtype.kind not in "iu":
        raise DataError("pred", "choices must be a 2-D integer array (models × questions)")
    counts = np.zeros((pred.shape[1], n_options), dtype=np.int32)
    for option in range(n_options):
        counts[:, option] = (pred == option).sum(axis=0)
    return counts


def consensus_flags(pred: np.ndarray, key, accuracy, k: int = 10, m: int = 6,
                    n_options=None) -> pd.DataFrame:
    """Apply the consensus rule to every question.

    Parameters
    ----------
    pred : ndarray of int, shape (J, I)
        Option chosen by each model on each question (0-based); negative = no vote.
    key : array-like of int, shape (I,)
        The answer key (0-based).
    accuracy : array-like of float, shape (J,)
        Used only to choose the panel (:func:`panel_models`).
    k : int
        Panel size: the ``k`` most accurate models.
    m : int
        Minimum number of panel votes on one non-key option.
    n_options : array-like of int, shape (I,), optional
        Options per question; a choice past the last option (a letter the question does not
        have) is a wrong answer but not a vote.

    Returns
    -------
    DataFrame
        One row per question: ``key``, ``panel_choice`` (the non-key option with most panel
        votes; the lowest index on a tie, -1 when no panel model chose a non-key option),
        ``choice_votes``, ``key_votes``, ``n_voters`` and ``flagged``
        (``choice_votes >= m`` and ``choice_votes > key_votes``).
    """
    pred = np.asarray(pred)
    key = _option_indices(key, "key")
    if pred.ndim != 2 or key.shape != (pred.shape[1],):
        raise DataError("key", f"need one key per question: pred {pred.shape}, key {key.shape}")
    if ((key < 0) | (key >= MAX_OPTIONS)).any():
        raise DataError("key", f"keys must be option indices 0–{MAX_OPTIONS - 1}")
    if np.shape(accuracy) != (pred.shape[0],):
        raise DataError("accuracy", f"need one accuracy per model: pred {pred.shape}, "
                        f"accuracy {np.shape(accuracy)}")
    _check_k_m(k, m, pred.shape[0])
    panel = panel_models(accuracy, k)
    votes = pred[panel]
    if n_options is not None:
        n_options = _option_indices(n_options, "n_options")
        if n_options.shape != key.shape:
            raise DataError("n_options", f"need one option count per question: key {key.shape}, "
                            f"n_options {n_options.shape}")
        short = np.flatnonzero(key >= n_options)
        if short.size:
            raise DataError("n_options", f"{short.size} question(s) have a key past their last option "
                            f"(first: question {short[0]}, key {key[short[0]]}, "
                            f"{n_options[short[0]]} options)")
        votes = np.where(votes < n_options[None, :], votes, NO_VOTE)
    counts = vote_counts(votes)
    rows = np.arange(len(key))
    key_votes = counts[rows, key]
    others = counts.copy()
    others[rows, key] = -1
    choice = others.argmax(axis=1)
    choice_votes = others[rows, choice]
    choice = np.where(choice_votes > 0, choice, NO_VOTE)
    choice_votes = np.maximum(choice_votes, 0)
    return pd.DataFrame({
        "key": key.astype(int),
        "panel_choice": choice.astype(int),
        "choice_votes": choice_votes.astype(int),
        "key_votes": key_votes.astype(int),
        "n_voters": counts.sum(axis=1).astype(int),
        "flagged": (choice_votes >= m) & (choice_votes > key_votes),
    })


def threshold_curve(pred: np.ndarray, key, accuracy, ks: Iterable[int], ms: Iterable[int],
                    groups: Mapping[str, np.ndarray], n_options=None) -> pd.DataFrame:
    """Flag counts for every (k, m) with m ≤ k, overall and within each group.

    Parameters
    ----------
    groups : mapping of str → boolean mask of shape (I,)
        Question groups to count flags in (e.g. ``{"Redux wrong key": …}``).
    n_options : array-like of int, optional
        As for :func:`consensus_flags`.

    Returns
    -------
    DataFrame
        Columns ``k``, ``m``, ``n_flagged`` and ``flagged_<group>`` for each group.
    """
    rows = []
    for k in ks:
        for m in ms:
            if m > k:
                continue
            flags = consensus_flags(pred, key, accuracy, k=k, m=m, n_options=n_options)
            flagged = flags["flagged"].to_numpy()
            row = {"k": k, "m": m, "n_flagged": int(flagged.sum())}
            row.update({f"flagged_{name}": int((flagged & mask).sum()) for name, mask in groups.items()})
            rows.append(row)
    return pd.DataFrame(rows)


def wilson_interval(hits: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (NaN for n = 0)."""
    from scipy.stats import norm

    if n == 0:
        return float("nan"), float("nan")
    z = float(norm.ppf(0.5 + level / 2))
    p = hits / n
    centre = (p + z**2 / (2 * n)) / (1 + z**2 / n)
    half = z * np.sqrt(p * (1 - p) / n + z**2 / (4 * n**2)) / (1 + z**2 / n)
    return float(centre - half), float(centre + half)


def flag_rates(flagged, groups: Mapping[str, np.ndarray], level: float = 0.95) -> pd.DataFrame:
    """Questions and flags per group: ``n``, ``n_flagged``, ``rate`` and its Wilson ``low``, ``high``."""
    flagged = np.asarray(flagged, dtype=bool)
    rows = []
    for name, mask in groups.items():
        mask = np.asarray(mask, dtype=bool)
        n, hits = int(mask.sum()), int((flagged & mask).sum())
        low, high = wilson_interval(hits, n, level)
        rows.append({"group": name, "n": n, "n_flagged": hits, "rate": hits / n if n else np.nan,
                     "low": low, "high": high})
    return pd.DataFrame(rows).set_index("group")


def precision_recall(flagged, truth, reviewed) -> dict[str, float]:
    """Precision and recall of the flags against an expert label, on reviewed questions.

    Parameters
    ----------
    flagged, truth, reviewed : boolean arrays of shape (I,)
        The flags; the experts' positive label (e.g. wrong key); whether the experts
        reviewed the question at all. Only reviewed questions count.

    Returns
    -------
    dict
        ``n_reviewed``, ``n_positive``, ``n_flagged``, ``n_hit``, ``precision``, ``recall``
        with its Wilson 95 % bounds ``recall_low`` and ``recall_high`` (the flag rate on the
        positives, as :func:`flag_rates` gives it for that group), and ``rate_ratio`` (flag rate
        on positives over the rate on reviewed negatives).
    """
    flagged, truth, reviewed = (np.asarray(x, dtype=bool) for x in (flagged, truth, reviewed))
    if (truth & ~reviewed).any():
        raise DataError("truth", "an expert label is set on a question the experts did not review")
    f, t = flagged[reviewed], truth[reviewed]
    hit = int((f & t).sum())
    rate_pos = hit / t.sum() if t.sum() else np.nan
    negatives = ~t
    rate_neg = (f & negatives).sum() / negatives.sum() if negatives.sum() else np.nan
    return {
        "n_reviewed": int(reviewed.sum()), "n_positive": int(t.sum()), "n_flagged": int(f.sum()),
        "n_hit": hit,
        "precision": hit / f.sum() if f.sum() else np.nan,
        "recall": rate_pos,
        **dict(zip(("recall_low", "recall_high"), wilson_interval(hit, int(t.sum())), strict=True)),
        "rate_ratio": rate_pos / rate_neg if rate_neg else np.nan,
    }


def _clopper_pearson(hits: int, n: int, level: float) -> tuple[float, float]:
    """Exact (Clopper–Pearson) interval of a binomial proportion."""
    from scipy.stats import beta

    if n == 0:
        return float("nan"), float("nan")
    tail = (1 - level) / 2
    low = 0.0 if hits == 0 else float(beta.ppf(tail, hits, n - hits + 1))
    high = 1.0 if hits == n else float(beta.ppf(1 - tail, hits + 1, n - hits))
    return low, high


def exact_validation(flagged, truth, within, level: float = 0.95) -> dict:
    """Flags against a small external ground truth, with exact intervals.

    Parameters
    ----------
    flagged, truth : boolean arrays of shape (I,)
        The flags, and the external positives (e.g. keys the maintainers later corrected).
    within : boolean array of shape (I,)
        The questions compared (e.g. one category); the odds ratio sets flags on positives
        against flags on the other questions of this set.
    level : float
        Coverage of the intervals.

    Returns
    -------
    dict
        ``n``, ``n_positive``, ``n_flagged``, ``n_hit``; ``recall`` and ``precision`` with
        Clopper–Pearson bounds (``*_low``, ``*_high``); ``odds_ratio`` (conditional MLE) with
        its exact interval and Fisher's two-sided ``p``.

    Raises
    ------
    DataError
        If the arrays differ in shape, or a positive lies outside ``within``.
    """
    from scipy.stats.contingency import odds_ratio
    from scipy.stats import fisher_exact

    flagged, truth, within = (np.asarray(x, dtype=bool) for x in (flagged, truth, within))
    if not flagged.shape == truth.shape == within.shape:
        raise DataError("truth", f"shapes differ: {flagged.shape}, {truth.shape}, {within.shape}")
    if (truth & ~within).any():
        raise DataError("truth", "a positive lies outside the compared questions")
    f, t = flagged[within], truth[within]
    hit, n_pos, n_flag = int((f & t).sum()), int(t.sum()), int(f.sum())
    table = np.array([[hit, n_pos - hit], [n_flag - hit, int((~f & ~t).sum())]])
    result = odds_ratio(table)
    interval = result.confidence_interval(confidence_level=level)
    out = {"n": int(within.sum()), "n_positive": n_pos, "n_flagged": n_flag, "n_hit": hit,
           "recall": hit / n_pos if n_pos else np.nan,
           "precision": hit / n_flag if n_flag else np.nan,
           "odds_ratio": float(result.statistic), "odds_ratio_low": float(interval.low),
           "odds_ratio_high": float(interval.high), "p": float(fisher_exact(table)[1])}
    for name, (k, n) in {"recall": (hit, n_pos), "precision": (hit, n_flag)}.items():
        out[f"{name}_low"], out[f"{name}_high"] = _clopper_pearson(k, n, level)
    return out


def validation_table(rules: Mapping[str, np.ndarray], truth, within, level: float = 0.95,
                     combine: bool = False) -> pd.DataFrame:
    """:func:`exact_validation` of several flag rules against one ground truth, one row per rule.

    Parameters
    ----------
    rules : mapping of str → boolean array of shape (I,)
        The flags of each rule.
    truth, within : boolean arrays of shape (I,)
        As for :func:`exact_validation`.
    level : float
        Coverage of the intervals.
    combine : bool
        With exactly two rules, add the rows ``"both"`` (flagged by the two) and ``"either"``.

    Returns
    -------
    DataFrame
        Indexed by rule: the entries of :func:`exact_validation`.

    Raises
    ------
    ParameterError
        If ``rules`` is empty, or ``combine`` is asked for with other than two rules.
    """
    if not rules:
        raise ParameterError("rules", "needs at least one flag rule")
    rules = {name: np.asarray(flags, dtype=bool) for name, flags in rules.items()}
    if combine:
        if len(rules) != 2:
            raise ParameterError("combine", f"combines exactly two rules, got {len(rules)}")
        first, second = rules.values()
        rules |= {"both": first & second, "either": first | second}
    table = pd.DataFrame({name: exact_validation(flags, truth, within, level)
                          for name, flags in rules.items()}).T
    counts = ["n", "n_positive", "n_flagged", "n_hit"]
    return table.astype({c: int for c in counts}).astype({c: float for c in table if c not in counts})


def option_origin(choice, original_options) -> np.ndarray:
    """Whether each chosen option is one of the source's original options.

    Parameters
    ----------
    choice : array-like of int, shape (I,)
        Chosen option per question (negative = none).
    original_options : sequence of sequences of int
        Per question, the indices (in the new option list) of the original options;
        negative entries (an original option that was dropped) are ignored.

    Returns
    -------
    ndarray of object
        ``"original"``, ``"added"`` or ``""`` (no choice).
    """
    out = np.full(len(choice), "", dtype=object)
    for i, (c, originals) in enumerate(zip(np.asarray(choice), original_options, strict=True)):
        if c >= 0:
            out[i] = "original" if c in set(int(o) for o in originals if o >= 0) else "added"
    return out
