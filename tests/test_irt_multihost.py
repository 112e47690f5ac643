"""Multi-host JAX: two processes on the loopback interface fit one model-sharded IRT model.

Each child calls ``jax.distributed.initialize`` with a coordinator on 127.0.0.1 (process 0
hosts it), so JAX sees one CPU device per process and two in all; CPU collectives go
through gloo (this JAX's default, set explicitly). Both run ``fit_irt(..., devices=2)`` on
the same data: the model axis is split across the two processes, the items' gradients are
reduced across them every step, and the sharded θ is gathered back at the end. Each
process must return the one-process fit's estimates. This is the program a multi-host run
executes, not its speed: both processes share this machine's cores and talk over loopback.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor

import jax
import numpy as np
import pytest

from helpers import run_bounded
from mmlu_audit.irt import IRTSpec, fit_irt

#: Seconds each child may take; a coordinator that never answers fails the test here.
DEADLINE_S = 90
#: Seconds ``jax.distributed.initialize`` waits for the other process before it raises.
CONNECT_S = 30
STEPS = 100

CHILD = textwrap.dedent("""
    import json, sys
    import jax
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    port, path = sys.argv[1], sys.argv[5]
    process_id, connect_s, steps = map(int, sys.argv[2:5])
    jax.distributed.initialize(f"127.0.0.1:{port}", num_processes=2, process_id=process_id,
                               initialization_timeout=connect_s, shutdown_timeout_seconds=connect_s)
    import numpy as np
    from mmlu_audit.irt import IRTSpec, fit_irt

    fit = fit_irt(np.load(path), IRTSpec(model="2pl", max_steps=steps, min_steps=steps, seed=3),
                  progress=False, devices=len(jax.devices()))
    print(json.dumps({"process": jax.process_index(), "processes": jax.process_count(),
                      "devices": [[d.id, d.process_index] for d in jax.devices()],
                      "local": [d.id for d in jax.local_devices()],
                      "b": np.asarray(fit.b).tolist(), "a": np.asarray(fit.a).tolist(),
                      "theta": np.asarray(fit.theta).tolist(), "elbo": float(fit.elbo[-1])}))
    jax.distributed.shutdown()
""")


def responses() -> np.ndarray:
    """A planted 2PL response matrix (32 models × 30 items, a tenth missing)."""
    rng = np.random.default_rng(5)
    theta, b, a = rng.normal(size=32), rng.normal(size=30), rng.uniform(0.5, 2.0, 30)
    y = (rng.random((32, 30)) < 1 / (1 + np.exp(-a * (theta[:, None] - b)))).astype(np.int8)
    y[rng.random(y.shape) < 0.1] = -1
    return y


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.skipif("jax_cpu_collectives_implementation" not in jax.config.values,
                    reason="this JAX has no CPU collectives across processes")
def test_two_processes_on_loopback_fit_the_one_process_estimates(tmp_path):
    y, port = responses(), _free_port()
    np.save(tmp_path / "y.npy", y)
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "XLA_FLAGS": ""}  # one CPU device per process
    commands = [[sys.executable, "-c", CHILD, str(port), str(i), str(CONNECT_S), str(STEPS),
                 str(tmp_path / "y.npy")] for i in range(2)]
    with ThreadPoolExecutor(2) as pool:  # both at once: each waits for the other in initialize
        runs = list(pool.map(lambda cmd: run_bounded(cmd, DEADLINE_S, env=env), commands))
    for run in runs:
        assert run.returncode == 0, run.stderr[-3000:]
    out = [json.loads(run.stdout.strip().splitlines()[-1]) for run in runs]

    assert [o["process"] for o in out] == [0, 1] and all(o["processes"] == 2 for o in out)
    # every process lists both processes' devices, and holds one of them itself
    assert out[0]["devices"] == out[1]["devices"]
    assert sorted(owner for _, owner in out[0]["devices"]) == [0, 1]
    assert out[0]["local"] != out[1]["local"]

    one = fit_irt(y, IRTSpec(model="2pl", max_steps=STEPS, min_steps=STEPS, seed=3), progress=False)
    for o in out:
        # same program and random stream; only the order of float32 sums across shards differs
        # (the two-device test in test_irt_sharding.py holds the same bound)
        for name in ("b", "a", "theta"):
            gap = np.max(np.abs(np.asarray(o[name]) - np.asarray(getattr(one, name))))
            assert gap < 1e-3, (name, gap)
        assert abs(o["elbo"] - one.elbo[-1]) / abs(one.elbo[-1]) < 1e-5
