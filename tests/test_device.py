"""The GPU runner's guard: ``--device gpu`` fails at once, clearly, where JAX sees no GPU."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mmlu_audit.book import build as bookbuild, device
from mmlu_audit.irt.backend import backend_name
from mmlu_audit.data.responses import ResponseMatrix
from mmlu_audit.core.errors import DeviceUnavailableError
from mmlu_audit.book.report import banner_html

NO_GPU = not device._gpu_devices()


def test_gpu_request_without_gpu_names_the_fix(monkeypatch):
    monkeypatch.setattr(device, "_gpu_devices", list)  # no GPU
    with pytest.raises(DeviceUnavailableError, match="sees no GPU.*requirements-gpu.txt"):
        device.require_device("gpu")


def test_cpu_is_always_available(monkeypatch):
    monkeypatch.setattr(device, "_gpu_devices", lambda: pytest.fail("cpu needs no GPU probe"))
    device.require_device("cpu")


def test_unknown_device_is_rejected():
    with pytest.raises(ValueError, match="device must be one of"):
        device.jax_platforms("tpu")


def test_bookbuild_stops_before_any_chapter(monkeypatch, capsys):
    monkeypatch.setattr(device, "_gpu_devices", list)  # no GPU
    monkeypatch.setattr(bookbuild, "execute_chapter", lambda *a, **k: pytest.fail("a chapter ran"))
    assert bookbuild.main(["--device", "gpu"]) == 2
    assert "--device gpu: JAX" in capsys.readouterr().err


def test_bookbuild_pins_the_kernels_platform(monkeypatch, tmp_path):
    monkeypatch.setenv("JAX_PLATFORMS", "")
    seen = []
    monkeypatch.setattr(bookbuild, "execute_chapter",
                        lambda *a, **k: seen.append(os.environ["JAX_PLATFORMS"]))
    assert bookbuild.main(["--device", "cpu", "--out", str(tmp_path), "01"]) == 0
    assert seen == ["cpu"]  # set before the chapter's kernel starts


@pytest.mark.skipif(not NO_GPU, reason="this machine has a GPU")
def test_command_line_fails_fast_on_this_machine(tmp_path):
    run = subprocess.run([sys.executable, "-m", "mmlu_audit.book.build", "--device", "gpu",
                          "--out", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert "sees no GPU" in run.stderr
    assert not list(tmp_path.iterdir())  # nothing executed, nothing written


def test_banner_names_the_backend():
    matrix = ResponseMatrix(responses=np.ones((2, 3), dtype=np.int8),
                            models=pd.DataFrame({"model_id": ["m1", "m2"]}),
                            item_ids=np.array(["i1", "i2", "i3"]), source="simulated",
                            simulated=True, description="A test world.")
    page = banner_html(matrix)
    assert f"Computed on JAX backend <code>{backend_name()}</code>" in page
    assert backend_name().split()[0] in {"cpu", "gpu"}


class FakeJax:
    """A stand-in for the ``jax`` module whose ``devices`` reports a given device list."""

    __version__ = "0.0-fake"

    def __init__(self, gpus: list):
        self.gpus = gpus

    def devices(self, backend=None):
        if backend == "gpu" and not self.gpus:
            raise RuntimeError("Unknown backend: 'gpu' requested, but no platforms that are instances of gpu")
        return list(self.gpus) if backend == "gpu" else ["cpu:0"]

    def default_backend(self):
        return "gpu" if self.gpus else "cpu"


@pytest.mark.parametrize("gpus, picked", [(["cuda:0"], "gpu"), (["cuda:0", "cuda:1"], "gpu"), ([], "cpu")])
def test_auto_picks_the_gpu_when_jax_reports_one(monkeypatch, gpus, picked):
    monkeypatch.setitem(sys.modules, "jax", FakeJax(gpus))
    lines = []
    assert device.resolve_device("auto", report=lines.append) == picked
    assert len(lines) == (picked == "cpu")


def test_auto_falls_back_with_one_clear_line(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "jax", FakeJax([]))
    assert device.resolve_device("auto") == "cpu"
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("--device auto: JAX 0.0-fake sees no GPU, so the chapters compute on the CPU")


def test_gpu_and_cpu_are_not_second_guessed(monkeypatch):
    monkeypatch.setitem(sys.modules, "jax", FakeJax(["cuda:0"]))
    assert device.resolve_device("gpu") == "gpu"
    monkeypatch.setitem(sys.modules, "jax", FakeJax([]))
    assert device.resolve_device("cpu") == "cpu"
    with pytest.raises(DeviceUnavailableError, match="JAX 0.0-fake sees no GPU"):
        device.resolve_device("gpu")


@pytest.mark.parametrize("gpus, platform, jobs", [(["cuda:0"], "cuda", 1), ([], "cpu", None)])
def test_bookbuild_auto_pins_what_it_picked(monkeypatch, tmp_path, gpus, platform, jobs):
    monkeypatch.setenv("JAX_PLATFORMS", "")
    monkeypatch.setattr(device, "_gpu_devices", lambda: list(gpus))
    seen = []

    def execute_all(sources, out, parameters, n):
        seen.append((os.environ["JAX_PLATFORMS"], n))
        return {}

    monkeypatch.setattr(bookbuild, "execute_all", execute_all)
    assert bookbuild.main(["--device", "auto", "--out", str(tmp_path), "01"]) == 0
    assert seen == [(platform, jobs or bookbuild.default_jobs("cpu"))]


def _pypi_unreachable() -> str | None:
    """Why PyPI cannot be reached from here, or None when it can."""
    import socket

    try:
        socket.create_connection(("pypi.org", 443), timeout=5).close()
    except OSError as exc:
        return f"PyPI is unreachable from this machine ({exc}); the CUDA wheels cannot be resolved"
    return None


def test_the_cuda_requirements_resolve(tmp_path):
    why = _pypi_unreachable()
    if why:
        pytest.skip(why)
    root = Path(__file__).resolve().parents[1]
    wanted = [line.split("#")[0].strip() for line in (root / "requirements-gpu.txt").read_text().splitlines()]
    wanted = [line for line in wanted if line and not line.startswith("-r")]
    report = tmp_path / "report.json"
    pip = [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
           "--only-binary=:all:", "--report", str(report), "-c", str(root / "requirements.txt")]
    run = subprocess.run([*pip, *wanted], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    resolved = {item["metadata"]["name"].lower().replace("_", "-"): item["metadata"]["version"]
                for item in json.loads(report.read_text())["install"]}
    lines = (root / "requirements.txt").read_text().split()
    pinned = dict(line.split("==") for line in lines if "==" in line)
    assert resolved["jax"] == resolved["jax-cuda12-plugin"] == pinned["jax"]
    assert resolved["jaxlib"] == pinned["jaxlib"]
    assert {"nvidia-cudnn-cu12", "nvidia-cublas-cu12", "nvidia-cuda-runtime-cu12"} <= set(resolved)


def test_an_unreachable_pypi_gives_the_skip_reason(monkeypatch):
    import socket

    def refuse(*args, **kwargs):
        raise OSError("connection refused")

    monkeypatch.setattr(socket, "create_connection", refuse)
    assert _pypi_unreachable() == ("PyPI is unreachable from this machine (connection refused); "
                                   "the CUDA wheels cannot be resolved")
