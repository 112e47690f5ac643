"""Coefficient t tests, Wald tests and the structural-homogeneity test.

Degrees of freedom follow clubSandwich: for CR2 each coefficient's t test uses
the Bell–McCaffrey / Satterthwaite approximation, and a multi-restriction test
can use the Hotelling-T² approximation "HTZ" (Tipton & Pustejovsky 2015).
Both are computed from ``G x G`` Gram matrices of cluster-level pieces, so they
cost nothing next to the fit. Under a working model of independent,
homoskedastic errors the CR estimate of ``c'V c`` is a quadratic form
``sum_g (q_g' eps)^2``; its mean and variance give the Satterthwaite df.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy import stats

from mmlu_audit.core.errors import DataError, ParameterError
from mmlu_audit.core.validate import probability
from mmlu_audit.inference._validate import as_matrix, as_vector, check_rows
from mmlu_audit.inference.covariance import (CLUSTER_KINDS, KINDS, PINV_TOL, ClusterAlgebra, cluster_algebra,
                                             vcov)
from mmlu_audit.inference.ols import OLSFit, fit_ols


class HTZUndefinedError(DataError):
    """The HTZ test is undefined here: its denominator degrees of freedom are not positive."""


__all__ = [
    "HTZUndefinedError",
    "FORMS",
    "coef_table",
    "holm",
    "homogeneity_test",
    "htz_df",
    "interaction_design",
    "restriction_matrix",
    "satterthwaite_df",
    "wald_test",
]

FORMS = ("chi2", "F", "HTZ")

#: Smallest eigenvalue of ``R V R'``, relative to its largest, for the Wald
#: quadratic form to be trusted; below it the statistic is numerical noise.
RESTRICTION_TOL = 1e-10


def satterthwaite_df(fit: OLSFit, algebra: ClusterAlgebra, contrasts) -> np.ndarray:
    """Bell–McCaffrey (Satterthwaite) degrees of freedom for each contrast row.

    Parameters
    ----------
    fit : OLSFit
    algebra : ClusterAlgebra
        From :func:`cluster_algebra` (CR2 gives the Bell–McCaffrey df).
    contrasts : array-like, shape (m, K)

    Returns
    -------
    ndarray, shape (m,)
        ``tr(Q)^2 / ||Q||_F^2`` with ``Q`` the ``G x G`` Gram matrix of the
        contrast's cluster pieces (clubSandwich's ``df_Satt``).
    """
    contrasts = np.atleast_2d(as_matrix(contrasts, "contrasts"))
    m_c = fit.bread @ contrasts.T
    gram = _gram_blocks(fit, algebra, m_c[:, :, None])[..., 0, 0].transpose(2, 0, 1)
    trace = np.einsum("mgg->m", gram)
    return trace**2 / np.einsum("mgh,mgh->m", gram, gram)


def htz_df(fit: OLSFit, algebra: ClusterAlgebra, R) -> float:
    """Hotelling-T² degrees of freedom ``eta`` of clubSandwich's HTZ Wald test.

    Parameters
    ----------
    fit : OLSFit
    algebra : ClusterAlgebra
    R : array-like, shape (q, K)

    Returns
    -------
    float
        ``q (q + 1) / sum_{s,t} Var(D_st)`` where ``D`` is the restricted
        covariance estimate standardised by its working-model expectation.
    """
    R = np.atleast_2d(as_matrix(R, "R"))
    q = R.shape[0]
    blocks = _gram_blocks(fit, algebra, (fit.bread @ R.T)[:, None, :])[:, :, 0]
    omega = np.einsum("ggst->st", blocks)
    w = _sym_power(omega, -0.5)
    std = np.einsum("su,ghuv,vt->ghst", w, blocks, w, optimize=True)
    trace_sq = np.einsum("ghss->gh", std) ** 2
    trace_prod = np.einsum("ghst,ghts->gh", std, std)
    return q * (q + 1) / float(trace_sq.sum() + trace_prod.sum())


def _gram_blocks(fit: OLSFit, algebra: ClusterAlgebra, m_c: np.ndarray) -> np.ndarray:
    """Blocks ``B[g, h, :, s, t] = delta_gh U_g - Z_g' M Z_h`` for contrast sets.

    ``m_c`` has shape (K, a, b): ``a`` independent contrast sets of ``b`` rows
    (``a = m, b = 1`` for per-coefficient df; ``a = 1, b = q`` for HTZ).
    Returns shape (G, G, a, b, b).
    """
    z = np.einsum("gkl,lab->gkab", algebra.xax, m_c)
    u = np.einsum("kas,gkl,lat->gast", m_c, algebra.xa2x, m_c, optimize=True)
    mz = np.einsum("kl,hlat->hkat", fit.bread, z)
    zmz = np.einsum("gkas,hkat->ghast", z, mz, optimize=True)
    blocks = -zmz
    idx = np.arange(algebra.n_clusters)
    blocks[idx, idx] += u
    return blocks


def _sym_power(mat: np.ndarray, power: float) -> np.ndarray:
    lam, vec = np.linalg.eigh(mat)
    safe = np.where(lam > PINV_TOL, lam, 1.0)
    return (vec * np.where(lam > PINV_TOL, safe**power, 0.0)) @ vec.T


def holm(pvals) -> np.ndarray:
    """Holm (1979) step-down adjusted p-values.

    Parameters
    ----------
    pvals : array-like of float in [0, 1]

    Returns
    -------
    ndarray
        Adjusted p-values in the input order.
    """
    p = np.asarray(pvals, dtype=float)
    if p.ndim != 1 or np.isnan(p).any() or (p < 0).any() or (p > 1).any():
        raise DataError("pvals", "expected a 1-D array of p-values in [0, 1] without NaN")
    order = np.argsort(p, kind="stable")
    m = p.size
    stepped = np.maximum.accumulate((m - np.arange(m)) * p[order])
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(stepped, 1.0)
    return adjusted


def coef_table(
    fit: OLSFit,
    kind: str = "CR2",
    clusters=None,
    *,
    df: str = "auto",
    level: float = 0.95,
    terms=None,
    algebra: ClusterAlgebra | None = None,
) -> pd.DataFrame:
    """Per-coefficient t tests as a tidy table.

    Parameters
    ----------
    fit : OLSFit
    kind : str
        Covariance kind (see :func:`vcov`).
    clusters : array-like, optional
        Required for ``CR*`` kinds.
    df : {"auto", "satterthwaite", "clusters", "residual", "normal"}
        ``"auto"``: Satterthwaite (Bell–McCaffrey) for CR2, ``G - 1`` for
        CR0/CR1 (Stata), ``N - K`` for HC/classical. ``"normal"`` gives z tests.
    level : float
        Confidence level of ``ci_low``/``ci_high``.
    terms : list of str, optional
        Terms whose p-values enter the Holm adjustment (default: all but
        ``"Intercept"``); other rows get ``p_holm = NaN``.
    algebra : ClusterAlgebra, optional
        Precomputed cluster pieces.

    Returns
    -------
    DataFrame
        Columns ``term, estimate, se, stat, df, p, p_holm, ci_low, ci_high, kind``.
    """
    level = probability(level, "level")
    if kind in CLUSTER_KINDS and algebra is None:
        algebra = cluster_algebra(fit, clusters, kind)
    se = np.sqrt(np.diag(vcov(fit, kind, clusters, algebra=algebra)))
    dof = _coef_df(fit, kind, algebra, df)
    stat = fit.beta / se
    dist = stats.norm() if np.all(np.isinf(dof)) else stats.t(dof)
    crit = dist.ppf(0.5 + level / 2)
    table = pd.DataFrame({
        "term": fit.names, "estimate": fit.beta, "se": se, "stat": stat, "df": dof,
        "p": 2 * dist.sf(np.abs(stat)),
    })
    table["p_holm"] = _holm_subset(table, terms)
    table["ci_low"], table["ci_high"] = fit.beta - crit * se, fit.beta + crit * se
    table["kind"] = kind
    return table


def _coef_df(fit: OLSFit, kind: str, algebra, df: str) -> np.ndarray:
    k = fit.n_params
    if df == "auto":
        df = {"CR2": "satterthwaite", "CR1": "clusters", "CR0": "clusters"}.get(kind, "residual")
    if df == "normal":
        return np.full(k, np.inf)
    if df == "residual":
        return np.full(k, float(fit.n_obs - k))
    if algebra is None:
        raise ParameterError("df", f"{df!r} degrees of freedom need a cluster-robust kind, got {kind!r}")
    if df == "clusters":
        return np.full(k, float(algebra.n_clusters - 1))
    if df == "satterthwaite":
        return satterthwaite_df(fit, algebra, np.eye(k))
    raise ParameterError("df", f"unknown df rule {df!r}")


def _holm_subset(table: pd.DataFrame, terms) -> np.ndarray:
    mask = table["term"].isin(terms) if terms is not None else table["term"] != "Intercept"
    out = np.full(len(table), np.nan)
    if mask.any():
        out[mask.to_numpy()] = holm(table.loc[mask, "p"].to_numpy())
    return out


def restriction_matrix(fit_or_names, terms) -> np.ndarray:
    """Rows selecting ``terms`` (one restriction ``beta_term = 0`` per term).

    Parameters
    ----------
    fit_or_names : OLSFit or list of str
    terms : list of str

    Returns
    -------
    ndarray, shape (len(terms), K)
    """
    names = list(getattr(fit_or_names, "names", fit_or_names))
    missing = [t for t in terms if t not in names]
    if missing:
        raise DataError("terms", f"not in the model: {', '.join(missing)}")
    R = np.zeros((len(terms), len(names)))
    R[np.arange(len(terms)), [names.index(t) for t in terms]] = 1.0
    return R


def wald_test(
    fit: OLSFit,
    R,
    r=None,
    *,
    kind: str = "CR2",
    clusters=None,
    form: str = "chi2",
    label: str = "wald",
    algebra: ClusterAlgebra | None = None,
) -> pd.DataFrame:
    """Wald test of ``R beta = r`` under any covariance kind.

    Parameters
    ----------
    fit : OLSFit
    R : array-like, shape (q, K), a term name, or list of term names
    r : array-like, shape (q,), optional
        Default zeros.
    kind : str
        Covariance kind.
    clusters : array-like, optional
    form : {"chi2", "F", "HTZ"}
        ``"chi2"``: ``W ~ chi2(q)``. ``"F"``: ``W/q ~ F(q, G-1)`` for cluster
        kinds (clubSandwich "Naive-F"), ``F(q, N-K)`` otherwise. ``"HTZ"``:
        Hotelling-T² approximation, ``(eta-q+1)/(eta q) W ~ F(q, eta-q+1)``
        (cluster kinds only).
    label : str
        Name of the test in the output.
    algebra : ClusterAlgebra, optional

    Returns
    -------
    DataFrame
        One row: ``test, kind, form, wald, stat, df_num, df_den, p``; ``wald``
        is the raw quadratic form, ``stat`` the statistic referred to the
        distribution.
    """
    R, r = _restriction(fit, R, r)
    if form not in FORMS:
        raise ParameterError("form", f"unknown form {form!r}; choose from {FORMS}")
    if kind in CLUSTER_KINDS and algebra is None:
        algebra = cluster_algebra(fit, clusters, kind)
    V = vcov(fit, kind, clusters, algebra=algebra)
    gap = R @ fit.beta - r
    restricted = R @ V @ R.T
    _check_invertible(restricted, algebra)
    wald = float(gap @ np.linalg.solve(restricted, gap))
    q = R.shape[0]
    stat, df_den, p = _refer(fit, wald, q, kind, form, algebra, R)
    return pd.DataFrame([{
        "test": label, "kind": kind, "form": form, "wald": wald, "stat": stat,
        "df_num": q, "df_den": df_den, "p": p,
    }])


def _restriction(fit: OLSFit, R, r) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(R, str):
        R = [R]
    if len(R) and isinstance(R[0], str):
        R = restriction_matrix(fit, R)
    R = np.atleast_2d(as_matrix(R, "R"))
    if R.shape[1] != fit.n_params:
        raise DataError("R", f"has {R.shape[1]} columns, the model has {fit.n_params} coefficients")
    if np.linalg.matrix_rank(R) < R.shape[0]:
        raise DataError("R", "restriction rows are linearly dependent")
    r = np.zeros(R.shape[0]) if r is None else np.atleast_1d(as_vector(r, "r"))
    check_rows(R.shape[0], r=r)
    return R, r


def _check_invertible(restricted: np.ndarray, algebra: ClusterAlgebra | None) -> None:
    """Raise unless ``R V R'`` has full rank and a condition number below ``1 / RESTRICTION_TOL``."""
    lam = np.linalg.eigvalsh((restricted + restricted.T) / 2)
    q, top = lam.size, max(lam.max(), 0.0)
    rank = int(np.sum(lam > RESTRICTION_TOL * top))
    if rank == q:
        return
    cond = top / lam.min() if lam.min() > 0 else np.inf
    problem = (f"R V R' is not safely invertible (numerical rank {rank} < {q} restrictions, "
               f"condition number {cond:.1e})")
    if algebra is not None:
        g = algebra.n_clusters
        problem += f"; with {g} clusters a cluster-robust covariance supports at most {g - 1} restrictions"
    raise DataError("R", problem)


def _refer(fit, wald, q, kind, form, algebra, R) -> tuple[float, float, float]:
    if form == "chi2":
        return wald, np.inf, float(stats.chi2.sf(wald, q))
    if form == "F":
        df_den = algebra.n_clusters - 1.0 if algebra is not None else float(fit.n_obs - fit.n_params)
        return wald / q, df_den, float(stats.f.sf(wald / q, q, df_den))
    if algebra is None:
        raise ParameterError("form", f"HTZ needs a cluster-robust kind, got {kind!r}")
    eta = htz_df(fit, algebra, R)
    df_den = eta - q + 1
    if not df_den > 0:
        raise HTZUndefinedError(
            "form", f"HTZ denominator degrees of freedom eta - q + 1 = {df_den:.3g} <= 0: "
            f"the clusters carry too little information for {q} restrictions "
            "(test fewer restrictions, or use form='chi2' or 'F' knowingly)")
    stat = df_den / eta * wald / q
    return stat, df_den, float(stats.f.sf(stat, q, df_den))


def interaction_design(X, stem, names=None) -> tuple[np.ndarray, list[str]]:
    """Design ``[1, X, S, S*X]`` of the structural-homogeneity model.

    Parameters
    ----------
    X : array-like or DataFrame, shape (n, k)
        Predictors without an intercept.
    stem : array-like of bool/0-1, shape (n,)
        Partition indicator ``S``.
    names : list of str, optional

    Returns
    -------
    Z : ndarray, shape (n, 2k + 2)
    names : list of str
        ``Intercept, x..., STEM, STEM:x...``.
    """
    if names is None:
        names = (list(X.columns) if isinstance(X, pd.DataFrame)
                 else [f"x{j + 1}" for j in range(np.shape(X)[1])])
    X = as_matrix(X)
    s = as_vector(np.asarray(stem, dtype=float), "stem")
    check_rows(X.shape[0], stem=s)
    if not np.isin(s, (0.0, 1.0)).all():
        raise DataError("stem", "must be boolean or 0/1")
    Z = np.column_stack([np.ones(X.shape[0]), X, s, s[:, None] * X])
    return Z, ["Intercept", *map(str, names), "STEM", *(f"STEM:{n}" for n in names)]


def _check_partition_clusters(algebra: ClusterAlgebra, s: np.ndarray, q: int) -> None:
    """Refuse a partition in one cluster; warn when its clusters cannot span the restrictions.

    A partition's own coefficients are fitted on its clusters alone, so the raw scores of its
    clusters sum to zero: one cluster contributes nothing to the covariance (CR2's
    adjustment does not restore it; a null test rejects ~80 % of the time at 5 %) and
    ``G_s`` clusters contribute rank at most ``G_s - 1``.
    """
    counts = {name: np.unique(algebra.codes[s == flag]).size for name, flag in (("STEM", 1), ("non-STEM", 0))}
    shown = f"{counts['STEM']} STEM and {counts['non-STEM']} non-STEM clusters"
    if min(counts.values()) < 2:
        raise DataError("clusters", f"{shown}: a partition in a single cluster has cluster scores that are "
                        "identically zero, so a cluster-robust homogeneity test over-rejects; "
                        "use more clusters or an HC kind")
    if min(counts.values()) - 1 < q:
        warnings.warn(f"homogeneity_test: {shown} for {q} restrictions: a partition's clusters span "
                      f"at most {min(counts.values()) - 1} of them, so the test over-rejects",
                      RuntimeWarning, stacklevel=3)


def homogeneity_test(
    y,
    X,
    stem,
    clusters=None,
    *,
    kind: str = "CR2",
    include_intercept: bool = False,
    forms=("chi2",),
    names=None,
) -> pd.DataFrame:
    """Wald test that all STEM interactions are zero: ``W(k)`` or ``W(k + 1)``.

    Fits ``y ~ [1, X, S, S*X]`` and tests the ``k`` slope interactions
    (``W(9)`` for nine predictors); with ``include_intercept=True`` the STEM
    dummy joins the restriction (``W(10)``).

    Parameters
    ----------
    y : array-like, shape (n,)
    X : array-like or DataFrame, shape (n, k)
    stem : array-like of bool, shape (n,)
    clusters : array-like, optional
        Needed for ``CR*`` kinds.
    kind : str
    include_intercept : bool
    forms : sequence of {"chi2", "F", "HTZ"}
    names : list of str, optional

    Returns
    -------
    DataFrame
        One row per form (columns of :func:`wald_test`).

    Raises
    ------
    DataError
        With a cluster-robust ``kind``, when a partition lies in a single cluster.

    Warns
    -----
    RuntimeWarning
        With a cluster-robust ``kind``, when a partition has fewer clusters than the
        test has restrictions plus one (the test over-rejects there).
    """
    if kind not in KINDS:
        raise ParameterError("kind", f"unknown covariance kind {kind!r}")
    Z, znames = interaction_design(X, stem, names)
    fit = fit_ols(y, Z, znames)
    k = (Z.shape[1] - 2) // 2
    tested = znames[k + 1:] if include_intercept else znames[k + 2:]
    algebra = None
    if kind in CLUSTER_KINDS:
        algebra = cluster_algebra(fit, clusters, kind)
        _check_partition_clusters(algebra, Z[:, k + 1], len(tested))
    label = f"W({len(tested)})"
    rows = [wald_test(fit, tested, kind=kind, clusters=clusters, form=f, label=label, algebra=algebra)
            for f in forms]
    return pd.concat(rows, ignore_index=True)
