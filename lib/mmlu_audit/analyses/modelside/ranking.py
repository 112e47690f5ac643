"""Rank stability of subscore leaderboards against the aggregate (paper §5.2).

Every statistic here works on *blocks*: ``correct`` and ``seen`` counts per model
and block, with a STEM flag per block. A block is one item for item-level data
(``seen`` is 0 for a missing cell) or one subject for HELM's per-subject scores,
so the same code computes subscores, resamples items or subjects, and builds the
nulls at either level. A subscore is item-weighted: Σ correct / Σ seen over the
blocks of the partition.

Agreement is Vigna's weighted Kendall τ with hyperbolic weights 1/(r + 1)
(``scipy.stats.weightedtau``), where r is the position on the **aggregate**
leaderboard (0 = best): the aggregate is the reference ranking, so disagreements
near its top weigh most. Top-k retention is the share of the aggregate's top k
that stay in the subscore's top k; the displacement rate is one minus the STEM
retention.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats
from tqdm.auto import tqdm

from mmlu_audit.core.checkpoints import first_of_each_checkpoint
from mmlu_audit.core.errors import DataError
from mmlu_audit.core.scaling import standardise
from mmlu_audit.core.seeds import check_seed, seeded

__all__ = [
    "null_p_at_least",
    "shift_summary",
    "Blocks", "item_blocks", "subject_blocks", "subscores", "leaderboard_rank", "weighted_tau",
    "rank_agreement", "top_k_retention", "retention_table", "matched_subsample_tau",
    "displacement_bootstrap", "random_item_sets", "subject_block_sets", "displacement_null",
    "one_per_checkpoint", "duplicate_pairs", "near_tie_pairs", "rank_shifts", "ability_gap",
    "gap_recovery",
]


@dataclass(frozen=True)
class Blocks:
    """Correct and seen counts per model and block.

    Attributes
    ----------
    correct, seen : ndarray of float, shape (J, B)
    stem : ndarray of bool, shape (B,)
    subject : ndarray of str, shape (B,)
    models : ndarray of str, shape (J,)
    """

    correct: np.ndarray
    seen: np.ndarray
    stem: np.ndarray
    subject: np.ndarray
    models: np.ndarray

    def __post_init__(self):
        j, b = self.correct.shape
        if self.seen.shape != (j, b) or self.stem.shape != (b,) or self.subject.shape != (b,) \
                or self.models.shape != (j,):
            raise DataError("blocks", "correct, seen, stem, subject and models have inconsistent shapes")
        if (self.correct < 0).any() or (self.correct > self.seen).any():
            raise DataError("blocks", "correct counts must lie between 0 and the seen counts")
        if not self.stem.any() or self.stem.all():
            raise DataError("blocks", "need blocks in both partitions")

    @property
    def n_items(self) -> np.ndarray:
        """Items per block (the most any model saw)."""
        return self.seen.max(axis=0)

    def subset(self, models=None, blocks=None) -> Blocks:
        """The same counts restricted to some models (rows) and blocks (columns)."""
        rows = slice(None) if models is None else np.asarray(models)
        cols = slice(None) if blocks is None else np.asarray(blocks)
        return Blocks(self.correct[rows][:, cols], self.seen[rows][:, cols], self.stem[cols],
                      self.subject[cols], self.models[rows])


def item_blocks(responses, stem, subject, models) -> Blocks:
    """One block per item from a (J, I) response matrix (-1 missing → seen 0)."""
    responses = np.asarray(responses)
    return Blocks((responses == 1).astype(np.float32), (responses >= 0).astype(np.float32),
                  np.asarray(stem, bool), np.asarray(subject, str), np.asarray(models, str))


def subject_blocks(scores: pd.DataFrame, stem_of) -> Blocks:
    """One block per subject from a long (model_id, subject, n_items, n_correct) table.

    Parameters
    ----------
    scores : DataFrame
        Columns ``model_id``, ``subject``, ``n_items``, ``n_correct``; one row per pair.
    stem_of : callable
        Subject names → bool array (e.g. :func:`mmlu_audit.core.taxonomy.is_stem`).
    """
    correct = scores.pivot(index="model_id", columns="subject", values="n_correct")
    seen = scores.pivot(index="model_id", columns="subject", values="n_items")
    if correct.isna().any().any():
        raise DataError("subject scores", "some (model, subject) pairs are missing")
    subjects = correct.columns.to_numpy(str)
    return Blocks(correct.to_numpy(float), seen.loc[correct.index, correct.columns].to_numpy(float),
                  np.asarray(stem_of(subjects), bool), subjects, correct.index.to_numpy(str))


def subscores(blocks: Blocks, columns=None) -> pd.DataFrame:
    """Item-weighted aggregate, STEM and non-STEM accuracy per model.

    ``columns`` optionally weights the blocks (a bootstrap count per block).
    """
    weight = np.ones(blocks.stem.shape) if columns is None else np.asarray(columns, float)
    stem = blocks.stem.astype(float)
    out = {}
    with np.errstate(invalid="ignore", divide="ignore"):
        for name, w in (("aggregate", weight), ("STEM", weight * stem), ("non-STEM", weight * (1 - stem))):
            out[name] = (blocks.correct @ w) / (blocks.seen @ w)
    return pd.DataFrame(out, index=pd.Index(blocks.models, name="model_id"))


def leaderboard_rank(scores) -> np.ndarray:
    """Position on a leaderboard, 0 = best; ties share the better position ("min")."""
    return stats.rankdata(-np.asarray(scores, float), method="min").astype(int) - 1


def weighted_tau(reference, other) -> float:
    """Weighted Kendall τ of ``other`` against the ``reference`` ranking (hyperbolic weights).

    Weights follow the position on the reference leaderboard (higher score = better).
    """
    reference, other = np.asarray(reference, float), np.asarray(other, float)
    if reference.shape != other.shape or reference.ndim != 1 or len(reference) < 2:
        raise DataError("rankings", "need two score vectors of the same length ≥ 2")
    if not (np.isfinite(reference).all() and np.isfinite(other).all()):
        raise DataError("rankings", "scores contain NaN or infinite values")
    return float(stats.weightedtau(reference, other, rank=leaderboard_rank(reference)).statistic)


def rank_agreement(scores: pd.DataFrame) -> dict[str, float]:
    """τ_w of the STEM and non-STEM rankings against the aggregate."""
    return {part: weighted_tau(scores["aggregate"], scores[part]) for part in ("STEM", "non-STEM")}


def top_k_retention(reference, other, k: int) -> float:
    """Share of the reference's top ``k`` that are also in ``other``'s top ``k``.

    Ties at the cut are broken by position in the input (a stable sort).
    """
    reference, other = np.asarray(reference, float), np.asarray(other, float)
    if not 1 <= k <= len(reference):
        raise DataError("k", f"top-k needs 1 ≤ k ≤ {len(reference)}, got {k}")
    top_ref = np.argsort(-reference, kind="stable")[:k]
    top_other = np.argsort(-other, kind="stable")[:k]
    return len(np.intersect1d(top_ref, top_other)) / k


def retention_table(scores: pd.DataFrame, ks) -> pd.DataFrame:
    """Top-k retention of the aggregate's top k on each subscore, for every k."""
    return pd.DataFrame({part: {k: top_k_retention(scores["aggregate"], scores[part], k) for k in ks}
                         for part in ("STEM", "non-STEM")}).rename_axis("k")


def _draws(n_draws: int, seed: int) -> list:
    check_seed(seed)
    if n_draws < 1:
        raise DataError("draws", f"need at least one draw, got {n_draws}")
    return [np.random.default_rng(c) for c in np.random.SeedSequence(seed).spawn(n_draws)]


def _count_weights(n_blocks: int, chosen: np.ndarray) -> np.ndarray:
    return np.bincount(chosen, minlength=n_blocks).astype(float)


@seeded
def matched_subsample_tau(blocks: Blocks, *, n_draws: int, seed: int, progress: bool = False) -> dict:
    """τ_w of non-STEM subsampled (without replacement) to the STEM block count.

    The aggregate reference stays the full aggregate. One-sided p of the STEM value:
    (1 + #{draws with τ ≤ τ_STEM}) / (1 + n_draws).

    Returns
    -------
    dict
        ``draws`` (array), ``mean``, ``low`` / ``high`` (2.5 / 97.5 %), ``stem``, ``p``,
        ``n_matched`` (blocks per draw).
    """
    scores = subscores(blocks)
    stem_tau = weighted_tau(scores["aggregate"], scores["STEM"])
    nonstem = np.flatnonzero(~blocks.stem)
    n_matched = int(blocks.stem.sum())
    if n_matched > len(nonstem):
        raise DataError("blocks", "STEM has more blocks than non-STEM; nothing to subsample")
    draws = tqdm(_draws(n_draws, seed), desc="matched non-STEM", disable=not progress)
    chosen = [rng.choice(nonstem, n_matched, replace=False) for rng in draws]
    taus = np.array([weighted_tau(scores["aggregate"], part) for part in _set_accuracies(blocks, chosen)])
    return {"draws": taus, "mean": float(taus.mean()), "low": float(np.quantile(taus, 0.025)),
            "high": float(np.quantile(taus, 0.975)), "stem": stem_tau,
            "p": float((1 + np.sum(taus <= stem_tau)) / (1 + n_draws)), "n_matched": n_matched}


#: Resamples whose sums are taken in one matrix product (a 1,000 × 14,042 block matrix times
#: this many weight columns): one product per resample re-read the matrix each time.
_SUMS_CHUNK = 64


def _weighted_sums(matrix: np.ndarray, weights) -> np.ndarray:
    """``matrix @ w`` for every weight vector in ``weights``, shape (models, len(weights)), float64.

    The counts and the weights are whole numbers, so every sum is exact in float64 and equals
    the one a per-resample product or column sum gives, whatever order the product adds in.
    """
    weights = list(weights)
    out = np.empty((matrix.shape[0], len(weights)))
    for start in range(0, len(weights), _SUMS_CHUNK):
        columns = np.stack(weights[start:start + _SUMS_CHUNK], axis=1)
        out[:, start:start + columns.shape[1]] = matrix @ columns
    return out


def _set_accuracies(blocks: Blocks, sets) -> np.ndarray:
    """Each model's accuracy on each block set (rows: sets), in the blocks' own float type.

    What ``correct[:, chosen].sum(1) / seen[:, chosen].sum(1)`` gives per set: the exact counts,
    divided in the counts' dtype.
    """
    indicators = [_count_weights(len(blocks.stem), np.asarray(chosen)) for chosen in sets]
    correct = _weighted_sums(blocks.correct, indicators).astype(blocks.correct.dtype)
    seen = _weighted_sums(blocks.seen, indicators).astype(blocks.seen.dtype)
    return (correct / seen).T


def _displacements(blocks: Blocks, k: int, weights) -> np.ndarray:
    """STEM top-k displacement under each block-weight vector (a weight of 1 everywhere: the
    observed one), the sums of all taken by matrix products."""
    stem = blocks.stem.astype(float)
    weights = list(weights)
    stem_weights = [w * stem for w in weights]
    with np.errstate(invalid="ignore", divide="ignore"):  # as in subscores
        aggregate = _weighted_sums(blocks.correct, weights) / _weighted_sums(blocks.seen, weights)
        in_stem = _weighted_sums(blocks.correct, stem_weights) / _weighted_sums(blocks.seen, stem_weights)
    return np.array([1.0 - top_k_retention(aggregate[:, r], in_stem[:, r], k) for r in range(len(weights))])


@seeded
def displacement_bootstrap(blocks: Blocks, k: int, *, replicates: int, seed: int,
                           progress: bool = False) -> dict:
    """STEM top-k displacement with a percentile bootstrap over blocks within partition.

    Returns ``estimate``, ``low``, ``high`` (2.5 / 97.5 %) and the ``draws``.
    """
    stem_idx, non_idx = np.flatnonzero(blocks.stem), np.flatnonzero(~blocks.stem)
    weights = [np.ones(len(blocks.stem))]  # the observed blocks, then the resamples
    for rng in tqdm(_draws(replicates, seed), desc="displacement bootstrap", disable=not progress):
        chosen = np.concatenate([rng.choice(stem_idx, len(stem_idx)), rng.choice(non_idx, len(non_idx))])
        weights.append(_count_weights(len(blocks.stem), chosen))
    estimate, *values = _displacements(blocks, k, weights)
    values = np.array(values)
    return {"estimate": float(estimate), "low": float(np.quantile(values, 0.025)),
            "high": float(np.quantile(values, 0.975)), "draws": values}


#: How :func:`displacement_interval` names its interval.
DISPLACEMENT_INTERVAL = "hull of the exact Clopper–Pearson and subject-block bootstrap 95 % intervals"


def displacement_interval(displacement: float, k: int, bootstrap: dict) -> tuple[float, float]:
    """The interval to read for a top-k displacement: the hull of two that each miss something.

    The exact interval (:func:`displacement_exact_interval`) is honest about the 1/k resolution
    but treats the k models as independent trials; the subject-block bootstrap
    (:func:`displacement_bootstrap`) resamples the subjects, the sampling unit of a subscore, but
    is a few atoms. Their hull keeps both sources of uncertainty.

    Parameters
    ----------
    displacement : float
        The estimate, a multiple of 1/k.
    k : int
    bootstrap : dict
        :func:`displacement_bootstrap`'s result (``low``, ``high``).
    """
    low, high = displacement_exact_interval(displacement, k)
    return min(low, float(bootstrap["low"])), max(high, float(bootstrap["high"]))


def displacement_exact_interval(displacement: float, k: int, level: float = 0.95) -> tuple[float, float]:
    """Clopper–Pearson interval for a top-k displacement share, read as D displaced of k.

    A displacement moves in steps of 1/k, so a percentile bootstrap of it is a handful of
    atoms and, with a statistic biased under resampling (a resample breaks near ties in
    both directions), can put the estimate at an end of its own interval. The exact
    binomial interval for D of k takes each top-k model as displaced or not; it is
    conservative, and its width is honest about the 1/k resolution.
    """
    from scipy import stats

    displaced = int(round(displacement * k))
    if not 0 <= displaced <= k or abs(displaced - displacement * k) > 1e-6:
        raise DataError("displacement",
                        f"a share of {k} models (a multiple of 1/{k}) is needed, got {displacement}")
    interval = stats.binomtest(displaced, k).proportion_ci(confidence_level=level, method="exact")
    return float(interval.low), float(interval.high)


@seeded
def random_item_sets(n_blocks: int, size: int, *, n_draws: int, seed: int) -> list[np.ndarray]:
    """``n_draws`` random sets of exactly ``size`` blocks from all ``n_blocks`` (no replacement)."""
    if not 1 <= size < n_blocks:
        raise DataError("size", f"need 1 ≤ size < {n_blocks}, got {size}")
    return [np.sort(rng.choice(n_blocks, size, replace=False)) for rng in _draws(n_draws, seed)]


@seeded
def subject_block_sets(subject, target_items: int, *, n_draws: int, seed: int,
                       items_per_block=None) -> list[np.ndarray]:
    """Random sets of whole subjects whose item count first reaches ``target_items``.

    Subjects are taken in a random order until their items total at least
    ``target_items``, so every set has between ``target_items`` and ``target_items``
    plus the largest subject's size − 1 items, and never splits a subject.

    Parameters
    ----------
    subject : array of str, shape (B,)
        Subject of every block.
    target_items : int
        Items to match (the STEM count).
    items_per_block : array, shape (B,), optional
        Items in each block (1 for item-level blocks, the default).
    """
    subject = np.asarray(subject, str)
    weights = np.ones(len(subject)) if items_per_block is None else np.asarray(items_per_block, float)
    names, codes = np.unique(subject, return_inverse=True)
    sizes = np.bincount(codes, weights=weights)
    if not 0 < target_items < sizes.sum():
        raise DataError("target_items", f"need 0 < target < {int(sizes.sum())}, got {target_items}")
    sets = []
    for rng in _draws(n_draws, seed):
        order = rng.permutation(len(names))
        n_take = int(np.searchsorted(np.cumsum(sizes[order]), target_items) + 1)
        sets.append(np.flatnonzero(np.isin(codes, order[:n_take])))
    return sets


def displacement_null(blocks: Blocks, sets, k: int, *, progress: bool = False) -> np.ndarray:
    """Top-k displacement when each block set in ``sets`` plays the role of STEM.

    The reference is always the full aggregate; the "subscore" is the item-weighted
    accuracy on the set.
    """
    scores = subscores(blocks)
    parts = _set_accuracies(blocks, tqdm(sets, desc="displacement null", disable=not progress))
    return np.array([1.0 - top_k_retention(scores["aggregate"], part, k) for part in parts])


def one_per_checkpoint(checkpoint) -> np.ndarray:
    """Row indices, ascending, of the first model of every distinct checkpoint label
    (:func:`mmlu_audit.core.checkpoints.first_of_each_checkpoint` as indices)."""
    return np.flatnonzero(first_of_each_checkpoint(checkpoint))


def duplicate_pairs(checkpoint, aggregate, tol: float = 0.001) -> np.ndarray:
    """Pairs (i, j), i < j, of models with the same checkpoint label within ``tol`` aggregate accuracy."""
    checkpoint, aggregate = np.asarray(checkpoint), np.asarray(aggregate, float)
    pairs = []
    for label in np.unique(checkpoint):
        rows = np.flatnonzero(checkpoint == label)
        pairs += [(i, j) for n, i in enumerate(rows) for j in rows[n + 1:]
                  if abs(aggregate[i] - aggregate[j]) <= tol]
    return np.array(pairs, dtype=int).reshape(-1, 2)


def near_tie_pairs(aggregate, checkpoint, tol: float = 0.001) -> np.ndarray:
    """Neighbours on the aggregate leaderboard from different checkpoints within ``tol`` accuracy.

    A noise floor where duplicates are exact copies (as in the simulated world):
    each model is paired with the next one down if they are different checkpoints
    and their aggregate accuracies differ by at most ``tol``.
    """
    aggregate, checkpoint = np.asarray(aggregate, float), np.asarray(checkpoint)
    order = np.argsort(-aggregate, kind="stable")
    first, second = order[:-1], order[1:]
    keep = (checkpoint[first] != checkpoint[second]) & (aggregate[first] - aggregate[second] <= tol)
    return np.stack([first[keep], second[keep]], axis=1).reshape(-1, 2)


def rank_shifts(scores: pd.DataFrame, pairs) -> pd.DataFrame:
    """Absolute aggregate and STEM leaderboard-position differences within each pair."""
    pairs = np.asarray(pairs, int).reshape(-1, 2)
    out = {}
    for part in ("aggregate", "STEM"):
        rank = leaderboard_rank(scores[part])
        out[f"{part} shift"] = np.abs(rank[pairs[:, 0]] - rank[pairs[:, 1]])
    return pd.DataFrame(out | {"first": scores.index[pairs[:, 0]], "second": scores.index[pairs[:, 1]]})


def ability_gap(theta_2d, models, band: float = 0.25) -> dict:
    """Standardised θ_STEM − θ_nonSTEM gap of a two-dimensional IRT fit.

    Parameters
    ----------
    theta_2d : array, shape (J, 2)
        [θ_STEM, θ_nonSTEM] posterior means.
    models : array of str, shape (J,)
    band : float
        "Near the identity line" means |gap| ≤ ``band`` (in SD units of each ability).

    Returns
    -------
    dict
        ``gap`` (Series by model, sorted descending), ``sd``, ``share_within``.
    """
    theta = np.asarray(theta_2d, float)
    if theta.ndim != 2 or theta.shape[1] != 2 or len(models) != len(theta):
        raise DataError("theta_2d", f"needs shape (J, 2) matching {len(models)} models, got {theta.shape}")
    z = standardise(theta)
    gap = pd.Series(z[:, 0] - z[:, 1], index=pd.Index(models, name="model_id"), name="gap")
    return {"gap": gap.sort_values(ascending=False), "sd": float(gap.std(ddof=0)),
            "share_within": float((gap.abs() <= band).mean())}


def gap_recovery(theta_2d, planted_theta, models, among=None) -> dict:
    """The estimated and the planted ability gap, standardised over the same models.

    :func:`ability_gap` standardises each ability over the models it is given, so a gap is
    comparable with its planted value only when both are standardised over the same set. On
    a simulated world that set is the working models
    (:func:`mmlu_audit.worlds.simulated.working_models`): near-chance models sit at one
    arbitrary point far below the rest, which inflates both planted SDs and shrinks the
    planted gap of everyone else, while the fit places them wherever its prior lets it.

    Parameters
    ----------
    theta_2d, planted_theta : array, shape (J, 2)
        Estimated and planted [θ_STEM, θ_nonSTEM] of the same models.
    models : array of str, shape (J,)
    among : array of bool, shape (J,), optional
        The models to compare over; all when omitted.

    Returns
    -------
    dict
        ``sd`` (estimated gap SD), ``planted_sd``, ``r`` (correlation of the estimated and
        planted gaps across models) and ``n`` (models compared).

    Raises
    ------
    DataError
        For mismatched shapes, or fewer than three models selected.
    """
    estimate, planted = np.asarray(theta_2d, float), np.asarray(planted_theta, float)
    keep = np.ones(len(estimate), bool) if among is None else np.asarray(among)
    if planted.shape != estimate.shape or keep.dtype != bool or keep.shape != (len(estimate),):
        raise DataError("planted_theta", f"needs the estimate's shape {estimate.shape} and one bool per "
                                         f"model; got {planted.shape} and {keep.dtype} {keep.shape}")
    if keep.sum() < 3:
        raise DataError("among", f"selects {int(keep.sum())} models; a gap SD needs at least three")
    names = np.asarray(models)[keep]
    fitted, true = ability_gap(estimate[keep], names), ability_gap(planted[keep], names)
    paired = pd.concat([fitted["gap"], true["gap"]], axis=1, keys=["fitted", "true"])
    return {"sd": fitted["sd"], "planted_sd": true["sd"],
            "r": float(np.corrcoef(paired["fitted"], paired["true"])[0, 1]), "n": int(keep.sum())}


def null_p_at_least(null, observed: float) -> float:
    """One-sided Monte Carlo p-value: share of null draws at least ``observed``, (1 + k) / (1 + R)."""
    null = np.asarray(null, dtype=float)
    return float((1 + np.sum(null >= observed - 1e-12)) / (1 + len(null)))


def shift_summary(shifts: pd.DataFrame, prefix: str) -> dict[str, float]:
    """Median and max of the aggregate and STEM rank shifts of a pair table (NaN when empty).

    Keys are ``{prefix}_shift_{aggregate|stem}_{median|max}``.
    """
    columns = {"aggregate": "aggregate shift", "stem": "STEM shift"}
    return {f"{prefix}_shift_{part}_{stat}": (float(getattr(shifts[column], stat)()) if len(shifts)
                                               else float("nan"))
            for part, column in columns.items() for stat in ("median", "max")}
