"""The model axis sharded over devices (jax.sharding) gives the unsharded fit's estimates.

JAX fixes its device count when it starts, so the two-device runs happen in a child
process started with ``--xla_force_host_platform_device_count=2``; on a CPU this tests the
program, not its speed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from mmlu_audit.core.errors import ParameterError
from mmlu_audit.irt import IRTSpec, fit_irt

CHILD = textwrap.dedent("""
    import json, sys
    import jax
    import numpy as np
    from mmlu_audit.irt import IRTSpec, fit_irt

    rng = np.random.default_rng(5)
    theta, b, a = rng.normal(size=64), rng.normal(size=40), rng.uniform(0.5, 2.0, 40)
    y = (rng.random((64, 40)) < 1 / (1 + np.exp(-a * (theta[:, None] - b)))).astype(np.int8)
    y[rng.random(y.shape) < 0.1] = -1
    out = {"devices": len(jax.devices())}
    for model in ("2pl", "2d"):
        spec = IRTSpec(model=model, max_steps=300, min_steps=300, seed=3)
        stem = np.arange(40) < 15 if model == "2d" else None
        one = fit_irt(y, spec, item_stem=stem, progress=False)
        two = fit_irt(y, spec, item_stem=stem, progress=False, devices=2)
        gap = {name: np.abs(np.asarray(getattr(one, name)) - np.asarray(getattr(two, name)))
               for name in ("b", "a", "theta")}
        out[model] = {name: float(np.max(g)) for name, g in gap.items()}
        out[model]["elbo"] = float(abs(one.elbo[-1] - two.elbo[-1]) / abs(one.elbo[-1]))
    print(json.dumps(out))
""")


def test_two_host_devices_give_the_same_estimates():
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=2", "JAX_PLATFORMS": "cpu"}
    run = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["devices"] == 2
    for model in ("2pl", "2d"):
        # same program and random stream; only the order of float32 sums across shards differs
        assert max(result[model][k] for k in ("b", "a", "theta")) < 1e-3, result[model]
        assert result[model]["elbo"] < 1e-5, result[model]


def test_bad_device_requests_are_refused():
    y = np.zeros((5, 4), np.int8)
    spec = IRTSpec(max_steps=10, min_steps=10)
    with pytest.raises(ParameterError, match="JAX sees"):
        fit_irt(y, spec, progress=False, devices=64)
    with pytest.raises(ParameterError, match="positive number"):
        fit_irt(y, spec, progress=False, devices=0)
    with pytest.raises(ParameterError, match="hand-written engine"):
        fit_irt(y, spec, progress=False, devices=2, engine="numpyro")
