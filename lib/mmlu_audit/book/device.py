"""Which accelerator the chapters compute on, and a check that a requested one exists.

JAX chooses its backend from the ``JAX_PLATFORMS`` environment variable, read when a
process first imports it. ``bookbuild --device gpu`` therefore checks, before any
chapter runs, that JAX in this environment sees a GPU, and then pins the kernels it
starts to that platform: a GPU run that silently fell back to the CPU would look
like a slow GPU. ``--device auto`` instead picks the GPU when JAX sees one and otherwise
computes on the CPU, saying so in one line. Every page's banner names the backend it was computed on
(:func:`mmlu_audit.irt.backend.backend_name`).
"""

from __future__ import annotations

import sys

from mmlu_audit.core.errors import DeviceUnavailableError

__all__ = ["CHOICES", "DEVICES", "jax_platforms", "require_device", "resolve_device"]

#: The devices and the ``JAX_PLATFORMS`` value each pins the chapters to.
DEVICES = {"cpu": "cpu", "gpu": "cuda"}

#: ``--device`` choices: a device, or ``auto`` (the GPU where JAX sees one, else the CPU).
CHOICES = (*DEVICES, "auto")


def jax_platforms(device: str) -> str:
    """The ``JAX_PLATFORMS`` value for a ``--device`` choice.

    Raises
    ------
    ValueError
        For a device name other than those in :data:`DEVICES`.
    """
    if device not in DEVICES:
        raise ValueError(f"device must be one of {sorted(DEVICES)}, not {device!r}")
    return DEVICES[device]


def _gpu_devices() -> list:
    """The GPU devices JAX sees in this process (empty when there are none)."""
    import jax

    try:
        return list(jax.devices("gpu"))
    except RuntimeError:  # JAX's way of saying no GPU backend is installed or visible
        return []


def require_device(device: str) -> None:
    """Fail at once, with one clear message, when the requested device is absent.

    Parameters
    ----------
    device : {"cpu", "gpu"}
        What the book should compute on. ``"cpu"`` is always available.

    Raises
    ------
    DeviceUnavailableError
        ``"gpu"`` was asked for and JAX sees no GPU (no CUDA wheels, no driver, or
        no device).
    """
    jax_platforms(device)
    if device == "gpu" and not _gpu_devices():
        import jax

        raise DeviceUnavailableError(
            f"--device gpu: JAX {jax.__version__} sees no GPU here (its backend is "
            f"{jax.default_backend()!r}). On a CUDA machine install the GPU wheels with "
            "`.venv/bin/pip install -r requirements-gpu.txt` (or run `make book DEVICE=gpu`, "
            "which does), check `nvidia-smi`, or build on the CPU without DEVICE=gpu.")


def resolve_device(device: str, *, report=None) -> str:
    """The device a ``--device`` choice computes on, checked.

    Parameters
    ----------
    device : {"cpu", "gpu", "auto"}
        ``"auto"`` picks ``"gpu"`` when JAX sees a GPU, else ``"cpu"``, and then calls
        ``report`` with one line saying so.
    report : callable, optional
        Receives the fallback line (default: printed to stderr).

    Returns
    -------
    str
        ``"cpu"`` or ``"gpu"``.

    Raises
    ------
    ValueError
        For a choice not in :data:`CHOICES`.
    DeviceUnavailableError
        ``"gpu"`` was asked for and JAX sees no GPU (as :func:`require_device`).
    """
    if device != "auto":
        require_device(device)
        return device
    if _gpu_devices():
        return "gpu"
    import jax

    line = (f"--device auto: JAX {jax.__version__} sees no GPU, so the chapters compute on the CPU "
            "(for CUDA: `make book DEVICE=gpu`)")
    (report or (lambda text: print(text, file=sys.stderr)))(line)
    return "cpu"
