"""Maps between each parameter's support and the unconstrained space the guide lives in.

Positive sites (a, σ) use ``exp``, correlations (ρ) ``tanh``, real sites the identity.
Shared by the engine (which optimises in unconstrained space) and the result summaries
(which draw scalars from the guide and map them back).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from mmlu_audit.irt.models import Site

__all__ = ["constrain", "unconstrain", "log_det_jacobian", "log_det_jacobian_terms"]


def constrain(site: Site, z):
    """Map unconstrained ``z`` onto the site's support."""
    if site.support == "positive":
        return jnp.exp(z)
    if site.support == "correlation":
        return jnp.tanh(z)
    return z


def unconstrain(site: Site, x):
    """Inverse of :func:`constrain`."""
    if site.support == "positive":
        return jnp.log(x)
    if site.support == "correlation":
        return jnp.arctanh(x)
    return x


def log_det_jacobian_terms(site: Site, z):
    """log |dx/dz| of :func:`constrain`, element by element (0 for a real site)."""
    if site.support == "positive":
        return z
    if site.support == "correlation":  # log(1 − tanh²z), written stably
        return 2.0 * (np.log(2.0) - z - jax.nn.softplus(-2.0 * z))
    return jnp.zeros_like(z)


def log_det_jacobian(site: Site, z):
    """log |dx/dz| of :func:`constrain`, summed over the site."""
    if site.support == "real":
        return 0.0
    return log_det_jacobian_terms(site, z).sum()
