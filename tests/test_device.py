"""The GPU runner's guard: ``--device gpu`` fails at once, clearly, where JAX sees no GPU."""

from __future__ import annotations

import os
import subprocess
import sys

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
