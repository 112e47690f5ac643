"""The joint Wald tests of structural homogeneity (§4.3), W(9) and W(10), under chosen covariances.

Which covariance kinds and which reference distributions are computed is the caller's
choice (a chapter parameter), so a robustness check is one edited list:
:func:`joint_wald_tests` validates the choice and builds the table,
:func:`wald_statistics` flattens it into the values a chapter glues, and
:func:`se_inflation` compares two covariances' slope standard errors.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from scipy import stats

from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.core.seeds import seeded
from mmlu_audit.inference import (breusch_pagan, fit_ols, homogeneity_test, lr_interaction, permutation_test,
                                  residual_skew, vcov, wald_test)
from mmlu_audit.inference.covariance import CLUSTER_KINDS, HC_KINDS, KINDS
from mmlu_audit.inference.hypothesis import FORMS

__all__ = ["DEFAULT_FORM", "HOMOGENEITY_HEADLINE", "JOINT_HOMOGENEITY", "PERMUTATIONS",
           "bootstrap_statistics", "homogeneity_headline", "joint_homogeneity", "joint_wald_tests",
           "partition_joint_tests", "permutation_statistics", "permutation_tests", "residual_diagnostics",
           "se_inflation", "wald_statistics"]

#: The reference distribution of a kind that ``forms`` does not list.
DEFAULT_FORM = "chi2"


def joint_wald_tests(y, X: pd.DataFrame, stem, subjects, *, kinds: Sequence[str],
                     forms: Mapping[str, Sequence[str]] | None = None,
                     w10_kinds: Sequence[str] = ()) -> pd.DataFrame:
    """W(9) (the slope interactions) under each covariance kind, and W(10) (with the intercept shift).

    Parameters
    ----------
    y, X, stem, subjects
        As for :func:`mmlu_audit.inference.homogeneity_test`; ``subjects`` are the clusters.
    kinds : sequence of str
        Covariance kinds, in table order; each from :data:`mmlu_audit.inference.covariance.KINDS`.
    forms : mapping, optional
        Kind → reference distributions (``"chi2"``, ``"F"``, ``"HTZ"``); a kind it does not
        list gets ``["chi2"]``. ``"HTZ"`` is the small-sample test of the CR2 covariance
        and needs ``"CR2"``.
    w10_kinds : sequence of str
        Kinds (each among ``kinds``) that also test W(10), with the same forms.

    Returns
    -------
    DataFrame
        The rows of :func:`mmlu_audit.inference.wald_test`, per kind W(9) then W(10).

    Raises
    ------
    ParameterError
        For an unknown or repeated kind, an unknown form, HTZ under another kind than
        CR2, or a W(10) kind not among ``kinds``.
    """
    kinds, forms, w10_kinds = _checked(kinds, forms, w10_kinds)
    tables = [homogeneity_test(y, X, stem, subjects, kind=kind, include_intercept=w10, forms=forms[kind])
              for kind in kinds for w10 in (False, True) if not w10 or kind in w10_kinds]
    return pd.concat(tables, ignore_index=True)


def _checked(kinds, forms, w10_kinds) -> tuple[list[str], dict[str, list[str]], list[str]]:
    kinds, w10_kinds, forms = list(kinds), list(w10_kinds), dict(forms or {})
    unknown = [k for k in [*kinds, *forms, *w10_kinds] if k not in KINDS]
    if unknown:
        raise ParameterError("kinds", f"unknown covariance kind {unknown[0]!r}; choose from {list(KINDS)}")
    if not kinds or len(set(kinds)) < len(kinds):
        raise ParameterError("kinds", f"must name at least one kind, each once, got {kinds}")
    for kind, chosen in forms.items():
        bad = [f for f in chosen if f not in FORMS]
        if bad or not chosen:
            raise ParameterError("forms", f"{kind}: forms must be a non-empty list from {list(FORMS)}, "
                                          f"got {chosen}")
        if "HTZ" in chosen and kind != "CR2":
            raise ParameterError("forms", f"HTZ is the small-sample test of the CR2 covariance, "
                                          f"not of {kind}")
    missing = [k for k in w10_kinds if k not in kinds]
    if missing:
        raise ParameterError("w10_kinds", f"{missing} are not among kinds {kinds}")
    return kinds, {k: list(forms.get(k, [DEFAULT_FORM])) for k in kinds}, w10_kinds


def partition_joint_tests(y, X: pd.DataFrame, stem, *, kind: str = "HC3") -> dict[str, float]:
    """The joint F test that all of ``X``'s slopes are zero, in each partition's own fit.

    Returns ``F_stem``, ``F_stem_p``, ``F_nonstem`` and ``F_nonstem_p`` (Wald / q against
    F(q, n − k) under the item-level covariance ``kind``).
    """
    if kind not in KINDS or kind in CLUSTER_KINDS:
        raise ParameterError("kind", f"must be an item-level kind from {list(HC_KINDS)}, got {kind!r}")
    stem = np.asarray(stem, bool)
    y = np.asarray(y, float)
    out = {}
    for label, mask in (("stem", stem), ("nonstem", ~stem)):
        fit = fit_ols(y[mask], X[mask], intercept=True)
        test = wald_test(fit, list(X.columns), kind=kind, form="F").iloc[0]
        out |= {f"F_{label}": test["stat"], f"F_{label}_p": test["p"]}
    return out


def wald_statistics(wald: pd.DataFrame) -> dict[str, float]:
    """The glue values of a :func:`joint_wald_tests` table, keyed by test and kind.

    For test ``W(q)`` under kind ``K`` (lower case ``k``): ``wq_k`` is the raw Wald
    quadratic form and ``wq_k_p`` its χ² p (with the chi2 form); ``wq_k_F`` and
    ``wq_k_F_p`` the F form (G − 1 denominator df under a clustered kind);
    ``wq_htz_F``, ``wq_htz_df1``, ``wq_htz_df`` and ``wq_htz_p`` the HTZ form (CR2 only).
    """
    out: dict[str, float] = {}
    for row in wald.itertuples(index=False):
        prefix = row.test.replace("(", "").replace(")", "").lower()
        key = f"{prefix}_{row.kind.lower()}"
        out[key] = float(row.wald)
        if row.form == "chi2":
            out[f"{key}_p"] = float(row.p)
        elif row.form == "F":
            out |= {f"{key}_F": float(row.stat), f"{key}_F_p": float(row.p)}
        else:
            out |= {f"{prefix}_htz_F": float(row.stat), f"{prefix}_htz_df1": int(row.df_num),
                    f"{prefix}_htz_df": float(row.df_den), f"{prefix}_htz_p": float(row.p)}
    return out


def se_inflation(fit, subjects, kind: str = "CR2", reference: str = "HC3") -> dict[str, float]:
    """Median ratio of ``kind`` to ``reference`` standard errors over the slope terms of ``fit``.

    The slopes are every coefficient but ``Intercept`` and ``STEM`` (main effects and
    interactions). Returns ``n_slopes`` and ``se_inflation_<kind>_<reference>``.
    """
    for name, value in (("kind", kind), ("reference", reference)):
        if value not in KINDS:
            raise ParameterError(name, f"unknown covariance kind {value!r}; choose from {list(KINDS)}")
    slopes = [i for i, n in enumerate(fit.names) if n not in ("Intercept", "STEM")]
    se = {k: pd.Series(np.sqrt(np.diag(vcov(fit, k, subjects))))[slopes] for k in (kind, reference)}
    return {"n_slopes": len(slopes),
            f"se_inflation_{kind.lower()}_{reference.lower()}": float((se[kind] / se[reference]).median())}


def bootstrap_statistics(joint) -> dict[str, float]:
    """Glue values of a joint wild cluster bootstrap of W(q) (a ``BootstrapResult``).

    ``wcb_q95`` (its 95th percentile), ``chi2_q95`` (the nominal χ²(q) one), ``wcb_stat``
    (the observed statistic), ``wcb_p``, ``boot_kind`` and ``n_boot`` (draws).
    """
    return {"boot_kind": joint.kind, "n_boot": int(joint.draws.size), "wcb_q95": joint.quantile(0.95),
            "chi2_q95": stats.chi2.ppf(0.95, joint.q), "wcb_stat": joint.stat, "wcb_p": joint.p}


def residual_diagnostics(y, X: pd.DataFrame, stem, fit) -> dict[str, float]:
    """The LR statistic of separate partition fits and the interaction model's residual checks.

    Returns ``lr_11`` (Λ, named for its 11 df with nine indicators), ``lr_df``,
    ``resid_skew``, ``breusch_pagan`` and ``bp_p``.
    """
    lr_stat, lr_df = lr_interaction(y, X, stem)
    bp = breusch_pagan(fit).iloc[0]
    return {"lr_11": lr_stat, "lr_df": lr_df, "resid_skew": residual_skew(fit),
            "breusch_pagan": bp["stat"], "bp_p": bp["p"]}


#: The permutation schemes and statistics of §4.3, in table order.
PERMUTATIONS = (("item", "r2_gap"), ("item", "lr"), ("block", "r2_gap"), ("block", "lr"))


def permutation_tests(y, X: pd.DataFrame, stem, subjects, *, seed, n_perm: int) -> dict:
    """Item-level and subject-block permutation tests of the R² gap and the LR statistic.

    Returns a dict keyed by ``(scheme, statistic)`` in the order of :data:`PERMUTATIONS`,
    each a :class:`~mmlu_audit.inference.permutation.PermutationResult` with the same seed.
    """
    return {(scheme, statistic): permutation_test(y, X, stem, subjects, seed=seed, scheme=scheme,
                                                  statistic=statistic, n_perm=n_perm)
            for scheme, statistic in PERMUTATIONS}


def permutation_statistics(perm: Mapping, stem, subjects) -> dict[str, float]:
    """Glue values of :func:`permutation_tests`.

    ``observed_r2_gap`` (STEM − non-STEM in-sample R²), ``item_perm_max_gap`` and
    ``item_gap_p`` (item permutation), ``block_perm_widening`` (SD of the block null over
    the item null), ``r2_gap_block_perm_p``, ``lr_block_perm_p``, ``lr_item_p``, ``n_perm``
    and ``n_stem_subjects`` (the subjects a block permutation relabels as STEM).
    """
    missing = [key for key in PERMUTATIONS if key not in perm]
    if missing:
        raise DataError("perm", f"missing permutation tests {missing}")
    gap_item, gap_block = perm[("item", "r2_gap")], perm[("block", "r2_gap")]
    stem_subjects = np.unique(np.asarray(subjects)[np.asarray(stem, bool)])
    spread = {"item": gap_item.draws.std(), "block": gap_block.draws.std()}  # a ratio of SDs, no z-score
    return {
        "n_perm": int(gap_item.draws.size), "n_stem_subjects": len(stem_subjects),
        "observed_r2_gap": gap_item.stat, "item_perm_max_gap": float(gap_item.draws.max()),
        "item_gap_p": gap_item.p,
        "block_perm_widening": float(spread["block"] / spread["item"]),
        "r2_gap_block_perm_p": gap_block.p, "lr_block_perm_p": perm[("block", "lr")].p,
        "lr_item_p": perm[("item", "lr")].p,
    }


#: §4.3's headline figures, by their glue names in the homogeneity chapter.
HOMOGENEITY_HEADLINE = ("w9_hc3", "w9_cr1", "w9_cr2", "w9_htz_F", "w9_htz_p", "wcb_q95", "wcb_p",
                        "observed_r2_gap", "r2_gap_block_perm_p")


#: The figures of :func:`joint_homogeneity`: W(9) under HC3, CR1 and CR2 with their χ² p, CR2's
#: HTZ form (F, its two df, p), and the null-imposed wild cluster bootstrap's 95th percentile and p.
JOINT_HOMOGENEITY = ("w9_hc3", "w9_hc3_p", "w9_cr1", "w9_cr1_p", "w9_cr2", "w9_cr2_p", "w9_htz_F",
                     "w9_htz_df1", "w9_htz_df", "w9_htz_p", "wcb_q95", "wcb_p")


@seeded
def joint_homogeneity(frame: pd.DataFrame, *, seed, n_boot: int, boot_kind: str = "CR2") -> dict:
    """The joint test of structural homogeneity, W(9), on an item frame, clustered by subject.

    W(9) tests the nine indicator × partition interactions of the pooled interaction model.
    Coding the other level of the partition as 1 flips the nine contrasts' signs and leaves every
    figure unchanged. §4.3 reads the HTZ p and the bootstrap p, which held their size on the
    simulated null worlds; the χ² p under CR1 / CR2 over-reject with few clusters.

    Parameters
    ----------
    frame : DataFrame
        Items with ``b_hat``, ``stem`` (bool: the partition), ``subject`` (the clusters) and the
        nine indicators; items without a finite ``b_hat`` are dropped.
    seed : int
        Seed of the bootstrap's Rademacher draws.
    n_boot : int
        Bootstrap draws.
    boot_kind : str
        Covariance inside the bootstrapped statistic.

    Returns
    -------
    dict
        :data:`JOINT_HOMOGENEITY` → value.
    """
    from mmlu_audit.analyses.regression import (contrast_terms, design_arrays, estimated_items,
                                                interaction_fit)
    from mmlu_audit.inference import wild_cluster_bootstrap

    X, y, stem, subjects = design_arrays(estimated_items(frame))
    wald = wald_statistics(joint_wald_tests(y, X, stem, subjects, kinds=["HC3", "CR1", "CR2"],
                                            forms={"CR2": ["chi2", "HTZ"]}))
    boot = wild_cluster_bootstrap(interaction_fit(y, X, stem), contrast_terms(X.columns), clusters=subjects,
                                  seed=seed, kind=boot_kind, n_draws=n_boot)
    out = wald | {"wcb_q95": boot.quantile(0.95), "wcb_p": boot.p}
    return {key: float(out[key]) for key in JOINT_HOMOGENEITY}


@seeded
def homogeneity_headline(frame: pd.DataFrame, *, seed, n_boot: int, n_perm: int,
                         boot_kind: str = "CR2") -> dict:
    """§4.3's headline figures (:data:`HOMOGENEITY_HEADLINE`) on an item frame, as the chapter has them.

    :func:`joint_homogeneity` (W(9) under HC3, CR1 and CR2, CR2's HTZ test, the null-imposed wild
    cluster bootstrap with ``n_boot`` Rademacher draws over subjects) and the subject-block
    permutation test of the R² gap (``n_perm`` relabellings).

    Parameters
    ----------
    frame : DataFrame
        Items with ``b_hat``, ``stem``, ``subject`` and the nine indicators; items without
        ``b_hat`` are dropped.
    seed : int
        Seed of the bootstrap and the permutations.
    n_boot, n_perm : int
        Bootstrap draws and permutations.
    boot_kind : str
        Covariance inside the bootstrapped statistic.
    """
    from mmlu_audit.analyses.regression import design_arrays, estimated_items

    joint = joint_homogeneity(frame, seed=seed, n_boot=n_boot, boot_kind=boot_kind)
    X, y, stem, subjects = design_arrays(estimated_items(frame))
    block = permutation_test(y, X, stem, subjects, seed=seed, scheme="block", statistic="r2_gap",
                             n_perm=n_perm)
    out = joint | {"observed_r2_gap": block.stat, "r2_gap_block_perm_p": block.p}
    return {key: float(out[key]) for key in HOMOGENEITY_HEADLINE}
