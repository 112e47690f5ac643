"""The tidy result of a calibration: an ``xarray.Dataset`` wrapped in :class:`IRTFit`.

Layout of :attr:`IRTFit.dataset`
--------------------------------
``theta_mean``, ``theta_sd``
    dims ``(model,)``, or ``(model, ability)`` with ``ability = ["STEM", "nonSTEM"]`` for
    the two-dimensional model.
``b_mean``, ``b_sd``, ``a_mean``, ``a_sd``
    dims ``(item,)``; the Rasch model stores a = 1 with SD 0.
``sigma_theta_mean``, ``sigma_theta_sd``
    dim ``(ability,)``: the two-dimensional model's ability SDs (log-normal moments).
``<scalar>_mean``, ``<scalar>_sd``, ``<scalar>_draws``
    for ρ, γ0, γ1 and the hierarchical hyperparameters present in the model;
    ``_draws`` has dim ``(draw,)`` and holds draws from the fitted guide.
``elbo``
    dim ``(step,)``: the single-draw ELBO estimate (nats) after every SVI step, without the
    constant ½ log(2πe) per latent scalar of the guide's entropy (it moves no estimate).
``item_stem``, ``covariate``, ``holdout_cells``
    the inputs needed to predict again (when the model used them).
attributes
    ``meta``: JSON with the spec, steps, converged, wall and compile seconds, backend, engine,
    library versions and covariate standardisation.

Posterior means and SDs are those of the mean-field guide: exact for θ and b (normal
factors), closed-form log-normal moments for a, Monte-Carlo over ``posterior_draws`` guide
draws (seeded) for scalars. A scalar's guide SD is the mean-field optimum given the other
factors (:func:`mmlu_audit.irt.engine.scalar_laplace_scales`), not the optimiser's last
iterate. Mean-field posteriors understate spread; read SDs as lower bounds.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import jax
import numpy as np
import numpyro
import xarray as xr

from mmlu_audit.core.errors import DataError
from mmlu_audit.core.store import atomic_write
from mmlu_audit.core.seeds import child_seed
from mmlu_audit.irt.models import ABILITY_SITES, ITEM_SITES, SCALAR_SITES
from mmlu_audit.irt.spec import IRTSpec
from mmlu_audit.irt.transforms import constrain

__all__ = ["ABILITY_LABELS", "ENTROPY_CONSTANT", "IRTFit", "SVIRun", "summarise_fit"]

ABILITY_LABELS = ("STEM", "nonSTEM")
#: The entropy of a normal factor is log σ + ½ log(2πe); the traces leave out the constant.
ENTROPY_CONSTANT = 0.5 * np.log(2 * np.pi * np.e)


@dataclass
class SVIRun:
    """What the optimiser hands back before summarising.

    Attributes
    ----------
    sites : list of Site
    loc, log_scale : dict of ndarray
        The guide's means and log standard deviations (unconstrained space).
    elbo : ndarray of float
        Single-draw ELBO estimate after every step (nats; higher is better), without the
        guide entropy's constant ½ log(2πe) per latent scalar (see :data:`ENTROPY_CONSTANT`).
    converged : bool
        Whether the stopping rule fired before ``max_steps``.
    wall_s, compile_s : float
        Total seconds, and the seconds until the first chunk returned (set-up and
        compilation included).
    """

    sites: list
    loc: dict
    log_scale: dict
    elbo: np.ndarray
    converged: bool
    wall_s: float
    compile_s: float

    @property
    def steps(self) -> int:
        """Number of SVI steps taken."""
        return int(self.elbo.size)


@dataclass(frozen=True)
class IRTFit:
    """Posterior summaries, ELBO trace and metadata of one fit.

    Attributes
    ----------
    dataset : xarray.Dataset
        See the module docstring for the layout.
    """

    dataset: xr.Dataset

    @property
    def meta(self) -> dict:
        """Fit metadata: spec, steps, converged, wall_s, compile_s, backend, versions."""
        return json.loads(self.dataset.attrs["meta"])

    @property
    def spec(self) -> IRTSpec:
        """The :class:`IRTSpec` that produced this fit."""
        return IRTSpec(**self.meta["spec"])

    @property
    def theta(self) -> np.ndarray:
        """Posterior-mean abilities, shape (J,) or (J, 2)."""
        return self.dataset["theta_mean"].to_numpy()

    @property
    def b(self) -> np.ndarray:
        """Posterior-mean difficulties, shape (I,)."""
        return self.dataset["b_mean"].to_numpy()

    @property
    def a(self) -> np.ndarray:
        """Posterior-mean discriminations, shape (I,)."""
        return self.dataset["a_mean"].to_numpy()

    @property
    def elbo(self) -> np.ndarray:
        """ELBO after every step (nats)."""
        return self.dataset["elbo"].to_numpy()

    def scalar(self, name: str) -> dict:
        """Mean, SD and guide draws of a scalar parameter (``"rho"``, ``"gamma1"``…)."""
        if f"{name}_draws" not in self.dataset:
            raise KeyError(f"{name!r} is not a parameter of this {self.meta['spec']['model']} fit")
        return {"mean": float(self.dataset[f"{name}_mean"]),
                "sd": float(self.dataset[f"{name}_sd"]),
                "draws": self.dataset[f"{name}_draws"].to_numpy()}

    def save(self, path: str | Path) -> Path:
        """Write the fit as one netCDF file (atomic rename)."""
        return atomic_write(path, lambda tmp: self.dataset.to_netcdf(tmp, engine="h5netcdf"))

    @classmethod
    def load(cls, path: str | Path) -> IRTFit:
        """Read a fit written by :meth:`save`."""
        try:
            with xr.open_dataset(path, engine="h5netcdf") as stored:
                return cls(stored.load())
        except (OSError, ValueError) as exc:
            raise DataError(path, f"not a readable IRT fit ({exc})") from exc


def _vector_moments(run, site: str) -> tuple[np.ndarray, np.ndarray]:
    """Mean and SD of a vector site: normal for real sites (θ, b, a signed), log-normal for a > 0."""
    loc = np.asarray(run.loc[site], dtype=np.float64)
    scale = np.exp(np.asarray(run.log_scale[site], dtype=np.float64))
    support = next(s.support for s in run.sites if s.name == site)
    if support != "positive":
        return loc, scale
    mean = np.exp(loc + scale**2 / 2)
    return mean, mean * np.sqrt(np.expm1(scale**2))


def _scalar_draws(run, site, n_draws: int, seed: int) -> np.ndarray:
    """Draws of a scalar site from its normal guide factor, mapped to its support."""
    noise = np.random.default_rng(seed).standard_normal(n_draws)
    latent = run.loc[site.name] + np.exp(run.log_scale[site.name]) * noise
    return np.asarray(constrain(site, latent), dtype=np.float64)


def _absent_as_nan(moments, data, dim: str):
    """NaN for the models (``dim="model"``) or items of frequency weight 0: they were not fitted."""
    weight = data.row_weight if dim == "model" else data.item_weight
    if weight is None or (weight > 0).all():
        return moments
    absent = weight == 0
    return tuple(np.where(absent.reshape((-1,) + (1,) * (m.ndim - 1)), np.nan, m) for m in moments)


def _parameter_variables(spec: IRTSpec, data, run) -> dict:
    """Data variables for θ, b, a and the scalar sites."""
    theta_dims = ("model", "ability") if spec.model == "2d" else ("model",)
    out = {}
    for site, dims in (("theta", theta_dims), ("b", ("item",)), ("a", ("item",))):
        if site == "a" and spec.model == "rasch":
            mean, sd = np.ones(data.shape[1]), np.zeros(data.shape[1])
        else:
            mean, sd = _absent_as_nan(_vector_moments(run, site), data, ITEM_SITES[site])
        out[f"{site}_mean"], out[f"{site}_sd"] = (dims, mean), (dims, sd)
    for site in run.sites:
        if site.name in ABILITY_SITES:
            mean, sd = _vector_moments(run, site.name)
            out[f"{site.name}_mean"], out[f"{site.name}_sd"] = (("ability",), mean), (("ability",), sd)
        if site.name in SCALAR_SITES:
            draws = _scalar_draws(run, site, spec.posterior_draws, child_seed(spec.seed, 1))
            out[f"{site.name}_draws"] = (("draw",), draws)
            out[f"{site.name}_mean"], out[f"{site.name}_sd"] = draws.mean(), draws.std(ddof=1)
    return out


def _input_variables(data) -> dict:
    """Data variables for the item inputs and held-out cells a prediction needs."""
    out = {}
    if data.item_stem is not None:
        out["item_stem"] = (("item",), data.item_stem.astype(np.int8))
    if data.covariate is not None:
        out["covariate"] = (("item",), data.covariate.astype(np.float64))
    if data.holdout is not None:
        out["holdout_cells"] = (("cell",), np.flatnonzero(data.holdout.ravel()).astype(np.int64))
    return out


def _used_cells(data) -> np.ndarray:
    """Cells that entered the likelihood: observed, not held out, in a row and column of weight > 0."""
    used = data.signs != 0
    if data.row_weight is not None:
        used = used & (data.row_weight > 0)[:, None]
    if data.item_weight is not None:
        used = used & (data.item_weight > 0)[None, :]
    return used


def summarise_fit(spec: IRTSpec, data, run, backend: str, engine: str = "handwritten") -> IRTFit:
    """Build the :class:`IRTFit` of an optimiser run (see the module docstring).

    ``backend`` is the JAX device, ``engine`` the optimiser (``"handwritten"`` or ``"numpyro"``).
    """
    variables = _parameter_variables(spec, data, run)
    variables.update(_input_variables(data))
    variables["elbo"] = (("step",), run.elbo.astype(np.float64))
    coords = {"model": data.model_ids.astype(str), "item": data.item_ids.astype(str),
              "step": np.arange(1, run.steps + 1)}
    if spec.model == "2d":
        coords["ability"] = list(ABILITY_LABELS)
    meta = {
        "spec": json.loads(spec.to_json()), "steps": run.steps, "converged": run.converged,
        "wall_s": run.wall_s, "compile_s": run.compile_s, "backend": backend, "engine": engine,
        "n_models": data.shape[0], "n_items": data.shape[1],
        "n_cells_used": int(_used_cells(data).sum()),
        "covariate_mean": data.covariate_mean, "covariate_sd": data.covariate_sd,
        "versions": {"jax": jax.__version__, "numpyro": numpyro.__version__},
    }
    dataset = xr.Dataset(variables, coords=coords,
                         attrs={"meta": json.dumps(meta), "title": f"IRT {spec.model} fit by SVI"})
    return IRTFit(dataset)
