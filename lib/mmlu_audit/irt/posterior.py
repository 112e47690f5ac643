"""Posterior draws of an SVI fit as ArviZ ``InferenceData``, and their summaries through ArviZ.

An :class:`~mmlu_audit.irt.result.IRTFit` keeps the mean-field guide's moments of θ, b and a
and ``posterior_draws`` guide draws of each scalar (ρ, γ, hyperparameters). This module turns
those into draws in ArviZ's layout (one chain, ``draw`` draws), so summaries, highest-density
intervals and posterior plots come from ArviZ instead of hand-written quantiles, and a fit can
be shipped as one netCDF file that ``arviz.from_netcdf`` reads back.

Draws of a vector site (θ, b, a, σ_θ) are drawn afresh from its mean-field factor, seeded:
normal at the stored mean and SD, or log-normal (a > 0, σ_θ) with the log-scale moments that
reproduce the stored mean and SD exactly. Draws of a scalar are the fit's own stored draws,
thinned evenly when fewer are asked for. The guide is mean-field, so the draws carry no
posterior dependence between sites; read spreads as lower bounds.

Public API
----------
- :func:`to_inference_data` — an ``InferenceData`` with the fit's provenance in its ``attrs``.
- :func:`posterior_table` — mean, SD and a central (equal-tailed) or highest-density interval
  per variable, from ``arviz.summary`` and ``arviz.hdi``.
- :func:`fit_summary` — the two in one call, for a fit's scalar sites.
- :func:`save_inference_data` — write one as a small netCDF file (float32, compressed).
"""

from __future__ import annotations

import json
from pathlib import Path

import arviz as az
import numpy as np
import pandas as pd
import xarray as xr

from mmlu_audit.core.errors import ParameterError
from mmlu_audit.core.machine import package_versions
from mmlu_audit.core.seeds import child_seed, seeded
from mmlu_audit.core.store import atomic_write
from mmlu_audit.irt.result import IRTFit

__all__ = ["GUIDE", "INTERVALS", "fit_summary", "posterior_table", "save_inference_data", "to_inference_data"]

#: How the draws were made (stored in every ``InferenceData``'s attrs).
GUIDE = "mean-field normal guide (SVI); vector sites drawn from its factors, scalars its stored draws"
#: Interval kinds of :func:`posterior_table`: equal-tailed (central quantiles) or highest-density.
INTERVALS = ("eti", "hdi")
#: Packages whose versions travel with every ``InferenceData``.
_VERSIONED = ("arviz", "jax", "numpyro", "numpy", "xarray", "mmlu-audit")
#: Vector sites and the dims of their mean/SD variables in the fit.
_VECTOR_SITES = ("theta", "b", "a", "sigma_theta")


def _is_positive(fit: IRTFit, site: str) -> bool:
    """Whether ``site``'s guide factor is log-normal (a > 0 under the half-normal prior, σ_θ)."""
    if site == "sigma_theta":
        return True
    return site == "a" and fit.spec.a_prior == "halfnormal" and fit.spec.model != "rasch"


def _vector_draws(fit: IRTFit, site: str, n_draws: int, rng: np.random.Generator) -> xr.DataArray:
    """``n_draws`` draws of a vector site from its mean-field factor, dims ``(draw, *site dims)``."""
    mean = fit.dataset[f"{site}_mean"]
    sd = fit.dataset[f"{site}_sd"]
    loc, scale = mean.to_numpy(), sd.to_numpy()
    if _is_positive(fit, site):  # invert the log-normal moments: E = exp(μ + σ²/2), Var = E²(exp σ² − 1)
        scale = np.sqrt(np.log1p((scale / loc) ** 2))
        loc = np.log(loc) - scale**2 / 2
    noise = rng.standard_normal((n_draws, *loc.shape))
    values = loc + scale * noise
    if _is_positive(fit, site):
        values = np.exp(values)
    return xr.DataArray(values, dims=("draw", *mean.dims), coords=mean.coords)


def _scalar_names(fit: IRTFit) -> list[str]:
    """The scalar sites with stored draws (``rho``, ``gamma1``…), in the dataset's order."""
    names = [str(name) for name in fit.dataset.data_vars]
    return [name.removesuffix("_draws") for name in names if name.endswith("_draws")]


def _thinned(draws: np.ndarray, n_draws: int) -> np.ndarray:
    """``n_draws`` of ``draws`` taken at evenly spaced positions (all of them when as many)."""
    if n_draws > draws.size:
        raise ParameterError("n_draws", f"the fit stores {draws.size} draws, {n_draws} asked for")
    return draws[np.linspace(0, draws.size - 1, n_draws).round().astype(int)]


def _chosen_sites(fit: IRTFit, var_names) -> list[str]:
    """``var_names`` checked against the fit's sites (default: every site the fit has)."""
    present = [s for s in _VECTOR_SITES if f"{s}_mean" in fit.dataset] + _scalar_names(fit)
    if fit.spec.model == "rasch":
        present.remove("a")  # a ≡ 1 is not a parameter of the Rasch model
    chosen = present if var_names is None else list(var_names)
    unknown = sorted(set(chosen) - set(present))
    if unknown:
        raise ParameterError("var_names", f"{unknown} are not parameters of this fit; it has {present}")
    return chosen


def _provenance(fit: IRTFit, data_source: str, seed: int, n_draws: int) -> dict:
    """The netCDF-safe attrs (strings and numbers) that say where the draws came from."""
    meta = fit.meta
    return {"data_source": str(data_source), "model": meta["spec"]["model"],
            "fit_seed": int(meta["spec"]["seed"]),
            "draw_seed": int(seed), "n_draws": int(n_draws), "steps": int(meta["steps"]),
            "converged": str(bool(meta["converged"])).lower(),
            "engine": str(meta.get("engine", "handwritten")),
            "guide": GUIDE, "n_models": int(meta["n_models"]), "n_items": int(meta["n_items"]),
            "spec": json.dumps(meta["spec"], sort_keys=True),
            "versions": json.dumps(package_versions(_VERSIONED, absent="not installed"), sort_keys=True),
            "inference_library": "arviz"}


@seeded
def to_inference_data(fit: IRTFit, *, data_source: str, seed: int, var_names=None, n_draws: int | None = None,
                      dtype=np.float64) -> az.InferenceData:
    """The fit's posterior draws as an ArviZ ``InferenceData`` (one chain).

    Parameters
    ----------
    fit : IRTFit
    data_source : str
        The responses the fit was made on (``"simulated"``, ``"mmlu_real"``…); kept in ``attrs``.
    seed : int
        Seed of the fresh draws of the vector sites (θ, b, a, σ_θ); scalars reuse the fit's
        stored draws, so a scalar-only ``InferenceData`` does not depend on it.
    var_names : sequence of str, optional
        Sites to include (default: all, ``theta``, ``b``, ``a``, ``sigma_theta`` where present,
        then the scalars). Drawing the item sites costs ``n_draws`` × items numbers each.
    n_draws : int, optional
        Draws per site (default: all the fit's stored scalar draws, ``posterior_draws``); fewer
        thin the scalar draws at evenly spaced positions.
    dtype : numpy dtype
        Float type of the draws (``np.float32`` halves an exported file).

    Returns
    -------
    arviz.InferenceData
        A ``posterior`` group with dims ``(chain, draw, …)``, its ``attrs`` holding the data
        source, the fit's seed, the draw seed, SVI steps and convergence, the guide, the spec
        (JSON) and the package versions (JSON).

    Raises
    ------
    ParameterError
        An unknown site, or more draws than the fit stores.
    """
    chosen = _chosen_sites(fit, var_names)
    n_draws = int(fit.spec.posterior_draws if n_draws is None else n_draws)
    if n_draws < 1:
        raise ParameterError("n_draws", f"must be at least 1, got {n_draws}")
    rng = np.random.default_rng(child_seed(seed, 7))
    posterior = {}
    for site in chosen:
        if site in _VECTOR_SITES:
            posterior[site] = _vector_draws(fit, site, n_draws, rng)
        else:
            stored = fit.dataset[f"{site}_draws"].to_numpy()
            posterior[site] = xr.DataArray(_thinned(stored, n_draws), dims=("draw",))
    dataset = xr.Dataset({name: values.astype(dtype).expand_dims(chain=[0])
                          for name, values in posterior.items()})
    dataset = dataset.assign_coords(draw=np.arange(n_draws))
    dataset.attrs = _provenance(fit, data_source, seed, n_draws)
    return az.InferenceData(posterior=dataset)


def posterior_table(idata: az.InferenceData, var_names=None, *, prob: float = 0.95,
                    interval: str = "eti") -> pd.DataFrame:
    """Posterior mean, SD and a ``prob`` interval of each variable, computed by ArviZ.

    Parameters
    ----------
    idata : arviz.InferenceData
        With a ``posterior`` group (e.g. from :func:`to_inference_data`).
    var_names : sequence of str, optional
        Variables to summarise (default: all).
    prob : float
        Interval probability in (0, 1).
    interval : {"eti", "hdi"}
        ``"eti"``: the equal-tailed interval, the (1 − prob)/2 and (1 + prob)/2 quantiles of the
        draws (``arviz.summary(stat_focus="median")``, linear interpolation as
        ``numpy.quantile``). ``"hdi"``: the highest-density interval (``arviz.hdi``), the
        narrowest interval holding ``prob`` of the draws.

    Returns
    -------
    DataFrame
        One row per scalar element (``arviz.summary``'s labels, e.g. ``rho``,
        ``sigma_theta[STEM]``), columns ``mean``, ``sd`` (ddof 1), ``low``, ``high``.

    Raises
    ------
    ParameterError
        ``prob`` outside (0, 1) or an unknown ``interval``.
    """
    if not 0 < prob < 1:
        raise ParameterError("prob", f"must lie in (0, 1), got {prob}")
    if interval not in INTERVALS:
        raise ParameterError("interval", f"must be one of {INTERVALS}, got {interval!r}")
    moments = az.summary(idata, var_names=var_names, kind="stats", hdi_prob=prob, round_to="none")
    table = moments[["mean", "sd"]].copy()
    if interval == "eti":
        bounds = az.summary(idata, var_names=var_names, kind="stats", hdi_prob=prob, round_to="none",
                            stat_focus="median")
    else:
        bounds = moments  # summary's hdi columns are arviz.hdi of each element
    low, high = (f"{interval}_{100 * share:g}%" for share in ((1 - prob) / 2, (1 + prob) / 2))
    table["low"], table["high"] = bounds[low].to_numpy(), bounds[high].to_numpy()
    return table.astype(float)


def fit_summary(fit: IRTFit, var_names, *, data_source: str, seed: int, prob: float = 0.95,
                interval: str = "eti") -> pd.DataFrame:
    """:func:`posterior_table` of ``var_names`` from :func:`to_inference_data` of ``fit``.

    With scalar sites only (ρ, γ0, γ1…) the summary is of the fit's stored guide draws and does
    not depend on ``seed``; vector sites are drawn afresh with it.

    Returns
    -------
    DataFrame
        Columns ``mean``, ``sd``, ``low``, ``high``, one row per element.
    """
    idata = to_inference_data(fit, data_source=data_source, seed=seed, var_names=var_names)
    return posterior_table(idata, var_names, prob=prob, interval=interval)


def save_inference_data(idata: az.InferenceData, path: str | Path) -> Path:
    """Write ``idata`` as one compressed netCDF file (atomic rename); read back by ``arviz.from_netcdf``.

    The draws are stored as they are (pass ``dtype=np.float32`` to :func:`to_inference_data` for
    a file half the size), zlib-compressed; the file appears under its name only once complete.

    Returns
    -------
    Path
        ``path``.
    """
    return atomic_write(path, lambda tmp: idata.to_netcdf(str(tmp), compress=True, engine="h5netcdf"))
