"""The JAX backend a fit ran on, as recorded in every fit and named in every page's banner."""

from __future__ import annotations

__all__ = ["backend_name"]


def backend_name() -> str:
    """``jax.default_backend()`` plus the first device's kind, e.g. ``"gpu (NVIDIA H200)"``."""
    import jax

    device = jax.devices()[0]
    return f"{jax.default_backend()} ({getattr(device, 'device_kind', device.platform)})"
