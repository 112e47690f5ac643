"""The framework on MMLU-Pro: shared inputs and item-level summaries of its two chapters.

The chapters are the framework on MMLU-Pro (chap-mmlu-pro) and the answer-key audit
(chap-answer-key-audit).

``pro_inputs(seed, fast)`` loads the 12,032 questions, a staged panel (29 or 34 models) and the MMLU
crosswalk, calibrates the paper's 2PL on the graded matrix (cached), and computes the
nine indicators on the stems (through the shared parse cache; fast mode uses a seeded
subsample so a cold smoke build stays cheap). Everything here is real data.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from mmlu_audit.core.seeds import seeded
from mmlu_audit.data.mmlu_pro import ORIGINS, ProPanel, load_crosswalk, load_pro_items, load_pro_panel
from mmlu_audit.data.responses import ResponseMatrix
from mmlu_audit.core.paper import MMLU_PRO_LEADERBOARD as PUBLISHED_ACCURACY
from mmlu_audit.irt.evaluate import signed_discrimination

__all__ = ["ProInputs", "pro_inputs", "pair_members", "sample_rows", "homogeneity_variants",
           "helm_mmlu_difficulty", "depth_within_category",
           "origin_profile", "mmlu_difficulty_comparison", "redux_group", "REDUX_GROUPS",
           "accuracy_table", "PUBLISHED_ACCURACY", "consensus_frame", "flagged_questions",
           "added_option_baselines", "homogeneity_summary", "FIX_LIST_TARGETS", "fix_list_detectors",
           "fix_list_validation", "wrong_way_frame"]

#: Stems parsed in fast mode (seeded subsample).
REDUX_GROUPS = ("Redux: wrong key", "Redux: other error", "Redux: fine",
                "MMLU-derived, never reviewed", "STEM-website source")


@dataclass(frozen=True)
class ProInputs:
    """Everything the MMLU-Pro chapters start from.

    Attributes
    ----------
    items : DataFrame
        The 12,032 questions (:func:`mmlu_audit.data.mmlu_pro.load_pro_items`).
    panel : ProPanel
        Graded matrix, chosen options and item status.
    crosswalk : DataFrame
        MMLU-derived questions → MMLU items and Redux labels.
    fit : IRTFit
        The paper's 2PL on the 29 × 12,032 matrix.
    frame : DataFrame
        One row per question, indexed by ``item_id``: category, partition, origin, b̂, â,
        b_sd, the pair / text-version flags, and (where parsed) the nine indicators.
    feature_rows : ndarray of bool
        Questions whose stem features were computed (all in full mode).
    """

    items: pd.DataFrame
    panel: ProPanel
    crosswalk: pd.DataFrame
    fit: object
    frame: pd.DataFrame
    feature_rows: np.ndarray

    @property
    def matrix(self) -> ResponseMatrix:
        return self.panel.matrix


@seeded
def sample_rows(n: int, size: int, seed: int) -> np.ndarray:
    """Sorted boolean mask of a seeded random subset of ``size`` of ``n`` rows (all if size ≥ n)."""
    mask = np.zeros(n, dtype=bool)
    if size >= n:
        mask[:] = True
    else:
        mask[np.random.default_rng(seed).choice(n, size, replace=False)] = True
    return mask


def pair_members(items: pd.DataFrame, crosswalk: pd.DataFrame) -> pd.DataFrame:
    """MMLU-Pro's duplicated-question pairs: two questions built from one MMLU item.

    Returns
    -------
    DataFrame
        Indexed like ``items``: ``in_pair`` (bool) and ``pair_second`` (True on the member
        with the larger ``question_id``, the one a sensitivity run drops).
    """
    walk = crosswalk.set_index("pro_item_id")
    in_pair = items["item_id"].map(walk["n_pro_items_same_mmlu"]).fillna(1).gt(1).to_numpy()
    mmlu_item = items["item_id"].map(walk["item_id"])
    first = items.loc[in_pair].groupby(mmlu_item[in_pair])["question_id"].transform("min")
    second = np.zeros(len(items), dtype=bool)
    second[np.flatnonzero(in_pair)] = (items.loc[in_pair, "question_id"] != first).to_numpy()
    return pd.DataFrame({"in_pair": in_pair, "pair_second": second}, index=items.index)


@lru_cache(maxsize=4)
def pro_inputs(seed: int = 20240601, fast: bool = False, feature_items: int = 0,
               panel: str = "tiger29") -> ProInputs:
    """Load (or compute and cache) the MMLU-Pro inputs.

    Parameters
    ----------
    seed : int
        Seed of the SVI fit and of the stem subsample.
    fast : bool
        Fewer SVI steps.
    feature_items : int
        Stem features on this many seeded questions only; 0 (the default) for all of them.
    panel : {"tiger29", "tiger34"}
        The staged panel (:func:`mmlu_audit.data.mmlu_pro.load_pro_panel`).
    """
    from mmlu_audit.features import benchmark_features
    from mmlu_audit.features import INDICATORS
    from mmlu_audit.irt import fit_cached
    from mmlu_audit.analyses.pipeline import calibration_spec

    items = load_pro_items()
    panel = load_pro_panel(items, panel=panel)
    crosswalk = load_crosswalk(items)
    fit = fit_cached(panel.matrix, calibration_spec(fast, seed), progress=False)
    frame = items[["item_id", "question_id", "category", "partition", "stem", "origin",
                   "mmlu_subject", "mmlu_partition", "n_options", "n_text_versions"]].copy()
    frame["b_hat"], frame["a_hat"] = fit.b, fit.a
    frame["b_sd"] = fit.dataset["b_sd"].to_numpy()
    frame = frame.join(pair_members(items, crosswalk))
    frame["redux"] = redux_group(items, crosswalk)
    rows = sample_rows(len(items), feature_items or len(items), seed)
    features = benchmark_features(items.loc[rows], progress=False)
    frame = frame.set_index("item_id").join(features[[*INDICATORS, "n_tokens", "flag_top_tier",
                                                      "top_tier_nodes"]])
    return ProInputs(items, panel, crosswalk, fit, frame, rows)


def redux_group(items: pd.DataFrame, crosswalk: pd.DataFrame) -> np.ndarray:
    """Each question's group in the consensus audit's table (:data:`REDUX_GROUPS`).

    MMLU-derived questions take the MMLU-Redux label of their MMLU item (wrong key /
    another error / fine / never reviewed); the rest are labelled by their source.
    """
    label = items["item_id"].map(crosswalk.set_index("pro_item_id")["redux_error_type"])
    out = np.full(len(items), "", dtype=object)
    from_mmlu = items["origin"].eq("ori_mmlu").to_numpy()
    out[from_mmlu & label.isna().to_numpy()] = REDUX_GROUPS[3]
    out[(label == "ok").to_numpy()] = REDUX_GROUPS[2]
    out[(label == "wrong_groundtruth").to_numpy()] = REDUX_GROUPS[0]
    other = label.notna() & ~label.isin(["ok", "wrong_groundtruth"])
    out[other.to_numpy()] = REDUX_GROUPS[1]
    out[items["origin"].eq("stemez").to_numpy()] = REDUX_GROUPS[4]
    out[items["origin"].isin(["theoremQA", "scibench"]).to_numpy()] = "TheoremQA / SciBench source"
    return out


def origin_profile(frame: pd.DataFrame, columns) -> pd.DataFrame:
    """Mean of each column per MMLU-Pro origin (rows with features only), plus counts."""
    rows = frame.dropna(subset=list(columns))
    table = rows.groupby("origin")[list(columns)].mean()
    table.insert(0, "n", rows.groupby("origin").size())
    return table.rename(index=ORIGINS).loc[[ORIGINS[o] for o in ORIGINS if ORIGINS[o] in
                                            table.rename(index=ORIGINS).index]]


def mmlu_difficulty_comparison(frame: pd.DataFrame, crosswalk: pd.DataFrame,
                               mmlu_b: pd.Series) -> pd.DataFrame:
    """b̂ on MMLU-Pro beside b̂ of the same MMLU item, for crosswalked questions.

    Parameters
    ----------
    mmlu_b : Series
        MMLU ``item_id`` → b̂ from an MMLU calibration (NaN where unobserved).

    Returns
    -------
    DataFrame
        ``pro_b``, ``mmlu_b``, ``category``, ``partition`` per crosswalked question with both.
    """
    walk = crosswalk.set_index("pro_item_id")
    joined = frame.loc[frame.index.intersection(walk.index), ["b_hat", "category", "partition"]]
    joined = joined.rename(columns={"b_hat": "pro_b"})
    joined["mmlu_b"] = walk.loc[joined.index, "item_id"].map(mmlu_b).to_numpy()
    return joined.dropna(subset=["pro_b", "mmlu_b"])


def accuracy_table(panel: ProPanel) -> pd.DataFrame:
    """Per-model accuracy (ours, no answer wrong) beside the staged verification figures."""
    models = panel.matrix.models.set_index("model_id")
    ours = panel.matrix.accuracy() * 100
    table = pd.DataFrame({
        "ours (%)": ours,
        "repo-style (%)": models.loc[ours.index, "accuracy_repo_style"] * 100,
        "no answer": models.loc[ours.index, "n_no_answer"],
    })
    table["published (%)"] = [PUBLISHED_ACCURACY.get(m, (np.nan, ""))[0] for m in table.index]
    table["published row"] = [PUBLISHED_ACCURACY.get(m, (np.nan, ""))[1] for m in table.index]
    return table.sort_values("ours (%)", ascending=False)


def consensus_frame(items: pd.DataFrame, panel: ProPanel, crosswalk: pd.DataFrame,
                    k: int = 10, m: int = 6) -> pd.DataFrame:
    """The consensus rule on MMLU-Pro, one row per question with everything the audit reports.

    A model that saw another text of a question (``item_status`` 3) casts no vote on it, nor
    does a letter past the question's last option (graded wrong, as the staged ``Y`` does).

    Returns
    -------
    DataFrame
        Indexed by ``item_id``: the columns of :func:`mmlu_audit.analyses.consensus.consensus_flags`
        plus ``question_id``, ``category``, ``origin``, ``group`` (:func:`redux_group`),
        ``redux_label``, ``all_mmlu_options`` (the question keeps all four MMLU options) and
        ``choice_origin`` (``original`` / ``added`` / ``""``, MMLU-derived questions only).
    """
    from mmlu_audit.analyses.consensus import consensus_flags, option_origin

    flags = consensus_flags(panel.comparable_pred(), items["key"].to_numpy(),
                            panel.matrix.accuracy().to_numpy(), k=k, m=m,
                            n_options=items["n_options"].to_numpy())
    flags.index = items["item_id"].to_numpy()
    walk = crosswalk.set_index("pro_item_id").reindex(flags.index)
    flags.insert(0, "question_id", items["question_id"].to_numpy())
    flags["category"] = items["category"].to_numpy()
    flags["origin"] = items["origin"].to_numpy()
    flags["group"] = redux_group(items, crosswalk)
    flags["redux_label"] = walk["redux_error_type"].fillna("").to_numpy()
    flags["all_mmlu_options"] = walk["n_mmlu_choices_in_pro"].fillna(0).eq(4).to_numpy()
    originals = [c if isinstance(c, list) else [] for c in walk["mmlu_choices_in_pro"]]
    origin = option_origin(flags["panel_choice"].to_numpy(), originals)
    origin[~items["origin"].eq("ori_mmlu").to_numpy()] = ""
    flags["choice_origin"] = origin
    return flags


def flagged_questions(flags: pd.DataFrame, panel_models: list[str]) -> pd.DataFrame:
    """The downloadable list of flagged questions: ids, letters and vote counts only."""
    letters = np.array(list("ABCDEFGHIJ"))
    out = flags.loc[flags["flagged"]].copy()
    table = pd.DataFrame({
        "question_id": out["question_id"].to_numpy(),
        "category": out["category"].to_numpy(),
        "source": out["origin"].map(ORIGINS).to_numpy(),
        "key": letters[out["key"].to_numpy()],
        "panel_choice": letters[out["panel_choice"].to_numpy()],
        "choice_votes": out["choice_votes"].to_numpy(),
        "key_votes": out["key_votes"].to_numpy(),
        "panel_voters": out["n_voters"].to_numpy(),
        "redux_label": out["redux_label"].replace("", "not reviewed").where(
            out["origin"].eq("ori_mmlu"), "not from MMLU").to_numpy(),
        "option_origin": out["choice_origin"].replace("", "n/a").to_numpy(),
    })
    table.attrs["panel"] = list(panel_models)
    return table


def added_option_baselines(flags: pd.DataFrame, items: pd.DataFrame, panel: ProPanel,
                           crosswalk: pd.DataFrame, k: int = 10) -> dict[str, float]:
    """What share of wrong answers the added options would get without any consensus.

    On MMLU-derived questions that keep all four MMLU options:

    - ``added_share_scattered``: of the panel's votes for a non-key option on questions that
      are *not* flagged, the share that land on an option MMLU-Pro added;
    - ``added_share_of_distractors``: on flagged questions the experts cleared, the share of
      all non-key options that MMLU-Pro added (the rate a choice by count alone would give).
    """
    from mmlu_audit.analyses.consensus import panel_models

    walk = crosswalk.set_index("pro_item_id").reindex(flags.index)
    keep = flags["all_mmlu_options"].to_numpy()
    key = items["key"].to_numpy()
    n_options = items["n_options"].to_numpy().astype(int)
    originals = walk["mmlu_choices_in_pro"]
    rows = panel_models(panel.matrix.accuracy().to_numpy(), k)
    pred = panel.comparable_pred()[rows]
    added_votes = wrong_votes = 0
    for i in np.flatnonzero(keep & ~flags["flagged"].to_numpy()):
        votes = pred[:, i][(pred[:, i] >= 0) & (pred[:, i] < n_options[i]) & (pred[:, i] != key[i])]
        wrong_votes += len(votes)
        added_votes += int((~np.isin(votes, originals.iloc[i])).sum())
    cleared = keep & flags["flagged"].to_numpy() & (flags["group"] == REDUX_GROUPS[2]).to_numpy()
    added = sum(n_options[i] - 4 for i in np.flatnonzero(cleared))
    distractors = sum(n_options[i] - 1 for i in np.flatnonzero(cleared))
    return {"added_share_scattered": added_votes / wrong_votes if wrong_votes else np.nan,
            "added_share_of_distractors": added / distractors if distractors else np.nan}


@seeded
def homogeneity_summary(frame: pd.DataFrame, cluster: str, *, seed: int, n_boot: int,
                        boot_kind: str = "CR2") -> dict[str, float]:
    """W(9) of the paper's homogeneity test on MMLU-Pro rows, clustered by ``cluster``.

    The indicators are z-scored within ``frame``; the outcome is ``b_hat``; the partition
    is ``stem``. Returns the CR2 χ² statistic, its HTZ F form with p, and the p-value of
    the null-imposed wild cluster bootstrap (WCR) with ``boot_kind`` covariance inside.
    """
    from mmlu_audit.features import INDICATORS
    from mmlu_audit.inference import HTZUndefinedError, homogeneity_test, wild_cluster_bootstrap
    from mmlu_audit.analyses.regression import contrast_terms, indicator_design, interaction_fit

    rows = frame.dropna(subset=[*INDICATORS, "b_hat"])
    X, y = indicator_design(rows), rows["b_hat"].to_numpy()
    stem, clusters = rows["stem"].to_numpy(bool), rows[cluster].to_numpy()
    wald = homogeneity_test(y, X, stem, clusters, kind="CR2", forms=("chi2",)).set_index("form")
    try:
        htz = homogeneity_test(y, X, stem, clusters, kind="CR2", forms=("HTZ",)).iloc[0]
    except HTZUndefinedError:  # too few clusters for 9 restrictions: reported as undefined (NaN)
        htz = pd.Series({"stat": np.nan, "df_den": np.nan, "p": np.nan})
    joint = wild_cluster_bootstrap(interaction_fit(y, X, stem), contrast_terms(X.columns),
                                   clusters=clusters, seed=seed, kind=boot_kind, n_draws=n_boot)
    return {"n_items": len(rows), "n_clusters": int(pd.unique(clusters).size),
            "w9_cr2": float(wald.loc["chi2", "wald"]), "w9_cr2_p": float(wald.loc["chi2", "p"]),
            "htz_F": float(htz["stat"]), "htz_df": float(htz["df_den"]),
            "htz_p": float(htz["p"]), "wcr_p": float(joint.p)}


@seeded
def homogeneity_variants(frame: pd.DataFrame, *, seed: int, n_boot: int) -> pd.DataFrame:
    """The homogeneity test on MMLU-Pro and its sensitivity runs, one row per variant.

    The variants: all questions (category clusters); without the second member of each
    duplicated pair; without the questions whose text differs between model files; the
    MMLU-derived questions with MMLU subject clusters, by the category partition and by MMLU's
    own; the added sources only. Columns are those of :func:`homogeneity_summary`.
    """
    from_mmlu = frame["origin"].eq("ori_mmlu")
    n_two = int(frame["n_text_versions"].gt(1).sum())
    variants = {
        "all questions, category clusters": (frame, "category"),
        "without the second member of each duplicated pair": (frame[~frame["pair_second"]], "category"),
        f"without the {n_two} two-version questions": (frame[frame["n_text_versions"].eq(1)], "category"),
        "MMLU-derived only, MMLU subject clusters": (frame[from_mmlu], "mmlu_subject"),
        "MMLU-derived only, MMLU's own partition": (
            frame[from_mmlu].assign(stem=frame.loc[from_mmlu, "mmlu_partition"].eq("STEM")), "mmlu_subject"),
        "added sources only, category clusters": (frame[~from_mmlu], "category"),
    }
    return pd.DataFrame({name: homogeneity_summary(rows, cluster, seed=seed, n_boot=n_boot)
                         for name, (rows, cluster) in variants.items()}).T


def helm_mmlu_difficulty(spec, crosswalk: pd.DataFrame, helm_items: str = "all") -> tuple[pd.Series, int]:
    """b̂ of MMLU items from the paper's calibration on the HELM-20 matrix (cached fit).

    Parameters
    ----------
    spec : IRTSpec
        The calibration (the paper's 2PL of :func:`mmlu_audit.analyses.pipeline.calibration_spec`).
    crosswalk : DataFrame
        From :func:`mmlu_audit.data.mmlu_pro.load_crosswalk`.
    helm_items : {"all", "crosswalk"}
        Calibrate on all MMLU items, or only on those MMLU-Pro kept (cheaper).

    Returns
    -------
    b : Series
        b̂ indexed by MMLU ``item_id`` (items no HELM model answered are left out).
    n_models : int
        HELM models behind the calibration.

    Raises
    ------
    ParameterError
        On another ``helm_items``.
    """
    from mmlu_audit.core.errors import ParameterError
    from mmlu_audit.data import load_helm20, load_items
    from mmlu_audit.irt import fit_cached
    from mmlu_audit.analyses.pipeline import answered_columns

    if helm_items not in ("all", "crosswalk"):
        raise ParameterError("helm_items", f"must be 'all' or 'crosswalk', not {helm_items!r}")
    helm = load_helm20()
    mmlu_items = load_items()
    matrix = helm.aligned_to(mmlu_items)
    if helm_items == "crosswalk":
        keep = mmlu_items["item_id"].isin(crosswalk["item_id"]).to_numpy()
        matrix = ResponseMatrix(matrix.responses[:, keep], matrix.models, matrix.item_ids[keep],
                                matrix.source, False, matrix.description)
    answered = matrix.observed.any(axis=0)
    fit = fit_cached(answered_columns(matrix, answered), spec, progress=False)
    return pd.Series(fit.b, index=matrix.item_ids[answered]), helm.shape[0]


def depth_within_category(frame: pd.DataFrame, column: str = "wscg_depth") -> tuple[pd.DataFrame, float]:
    """An indicator of the questions MMLU-Pro added against those it kept, within each category.

    Categories differ in both their share of added questions and their depth, so an
    unadjusted comparison of means across categories confounds the two. Here the difference
    (added − kept) is taken inside each category that has both kinds and pooled with weights
    n_added · n_kept / (n_added + n_kept), the weights of a fixed-effects contrast.

    Returns
    -------
    table : DataFrame
        Per category: ``n_kept``, ``n_added``, ``kept``, ``added`` (means), ``difference``.
    pooled : float
        The weighted mean of the within-category differences (NaN if no category has both).
    """
    rows = frame.dropna(subset=[column])
    added = ~rows["origin"].eq("ori_mmlu")
    grouped = rows.groupby([rows["category"], added])[column].agg(["size", "mean"]).unstack()
    table = pd.DataFrame({"n_kept": grouped[("size", False)], "n_added": grouped[("size", True)],
                          "kept": grouped[("mean", False)], "added": grouped[("mean", True)]})
    table = table.dropna()
    table["difference"] = table["added"] - table["kept"]
    weight = table["n_added"] * table["n_kept"] / (table["n_added"] + table["n_kept"])
    pooled = float((weight * table["difference"]).sum() / weight.sum()) if len(table) else float("nan")
    return table, pooled


#: The maintainers' two October-2025 lists of item problems (``fix_id_lists.csv``) and what
#: each names by its second id: the later copy of a duplicate, the subset of a superset pair.
FIX_LIST_TARGETS = {"duplicate_question_pairs": "listed duplicate copies",
                    "supersets_tuples": "listed redundant option sets"}


def fix_list_detectors(items: pd.DataFrame) -> dict[str, np.ndarray]:
    """The item-problem flags the audit can raise from the text alone, one boolean mask each.

    Two come from the option-set covariates of Appendix B, which look inside one item
    (two options with the same content words, ``opt_max_overlap`` = 1; fewer than ten
    options); two from :func:`mmlu_audit.features.duplicate_pairs`, which compares items
    (the later copy of a same-stem, same-options pair; the smaller set of a same-stem
    pair whose option sets are nested).
    """
    from mmlu_audit.features import copies_to_fix, duplicate_pairs, option_covariates

    overlap = np.array([option_covariates(list(options), question)["opt_max_overlap"]
                        for options, question in zip(items["options"], items["question"], strict=True)])
    pairs = duplicate_pairs(items, "question_id")
    ids = items["question_id"].to_numpy()
    return {"two options with the same content words": overlap >= 1.0,
            "fewer than ten options": items["n_options"].to_numpy() < 10,
            "same stem, same options (later copy)": copies_to_fix(pairs, ids, "same options"),
            "same stem, nested options (smaller set)": copies_to_fix(pairs, ids, "nested options")}


def fix_list_validation(items: pd.DataFrame, fix_lists: pd.DataFrame, detectors: dict,
                        level: float = 0.95) -> pd.DataFrame:
    """Each detector against each of the maintainers' lists, with exact intervals.

    Parameters
    ----------
    items : DataFrame
        ``question_id`` in the detectors' order.
    fix_lists : DataFrame
        From :func:`mmlu_audit.data.pro_revisions.load_pro_fix_lists`.
    detectors : mapping of str → boolean mask
        From :func:`fix_list_detectors`.

    Returns
    -------
    DataFrame
        Indexed by (list, detector): :func:`mmlu_audit.analyses.consensus.validation_table`
        over all questions, the list's second ids being the positives.
    """
    from mmlu_audit.analyses.consensus import validation_table

    ids = items["question_id"].to_numpy()
    everything = np.ones(len(ids), bool)
    tables = {}
    for name, label in FIX_LIST_TARGETS.items():
        listed = fix_lists.loc[fix_lists["list"] == name, "qid_second"].astype(int).to_numpy()
        tables[label] = validation_table(detectors, np.isin(ids, listed), everything, level)
    return pd.concat(tables, names=["list", "detector"])


def wrong_way_frame(fit, responses: np.ndarray, z: float = 2.0, level: float = 0.95) -> pd.DataFrame:
    """The signed-discrimination flags on MMLU-Pro beside a model-free check of their sign.

    Parameters
    ----------
    fit : IRTFit
        Fitted with ``a_prior="normal"`` on ``responses``.
    responses : ndarray of int8, shape (J, I)
        The graded matrix (−1 unobserved).
    z : float
        As for :func:`mmlu_audit.irt.evaluate.signed_discrimination`.
    level : float
        Coverage of the item–rest correlation's Fisher interval.

    Returns
    -------
    DataFrame
        One row per item: the columns of ``signed_discrimination``, ``n_observed``,
        ``n_correct``, ``item_rest`` (:func:`mmlu_audit.analyses.redux.item_rest_correlation`)
        and ``item_rest_high``, the upper end of its Fisher interval over the models that saw
        the item (below 0: the wrong-way sign holds without the IRT model's assumptions).
    """
    from mmlu_audit.analyses.redux import item_rest_correlation
    from mmlu_audit.inference import fisher_interval

    table = signed_discrimination(fit, z)
    responses = np.asarray(responses)
    table["n_observed"] = (responses != -1).sum(axis=0)
    table["n_correct"] = (responses == 1).sum(axis=0)
    table["item_rest"] = item_rest_correlation(responses)
    table["item_rest_high"] = [fisher_interval(r, n, level)[1] if abs(r) < 1 and n >= 4 else np.nan
                               for r, n in zip(table["item_rest"], table["n_observed"], strict=True)]
    return table
