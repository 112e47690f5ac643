"""Fit py-irt's 2PL (Pyro) on a saved matrix; run inside bench/.venv-pyirt.

Invoked by ``bench_irt.py`` as a subprocess. Reproduces ``IrtModelTrainer.train``
(py-irt's own model "2pl", priors "vague" — its default — or "hierarchical", its
best configuration here; its guide, Adam lr 0.1 with per-step
ExponentialLR decay 0.9999, Trace_ELBO) on long-format tensors built straight from
the matrix, and checks r(b̂, b) every ``--check-every`` steps; the time spent on
those checks and on py-irt's per-step export of "best" parameters is *excluded*,
which favours py-irt. Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import pyro
import torch
from pyro.infer import SVI, Trace_ELBO
from py_irt.models.abstract_model import IrtModel

import py_irt.models  # noqa: F401  (registers "2pl")

from _memory import peak_rss_mb


def long_format(responses: np.ndarray):
    """(subjects, items, obs) tensors of the observed cells."""
    rows, cols = np.nonzero(responses != -1)
    obs = responses[rows, cols].astype(np.float32)
    return (torch.from_numpy(rows.astype(np.int64)), torch.from_numpy(cols.astype(np.int64)),
            torch.from_numpy(obs))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("matrix", help="npz with Y (int8, -1 missing) and b_true")
    parser.add_argument("--target-r", type=float, required=True)
    parser.add_argument("--max-steps", type=int, default=5000)
    parser.add_argument("--max-seconds", type=float, default=600.0)
    parser.add_argument("--check-every", type=int, default=25)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--priors", choices=["vague", "hierarchical"], default="vague")
    parser.add_argument("--estimates", default=None,
                        help="npz to write the final b and a to (a = exp(loc_slope), as py-irt exports)")
    args = parser.parse_args()

    start = time.perf_counter()
    with np.load(args.matrix) as npz:
        responses, b_true = npz["Y"], npz["b_true"]
        a_true = npz["a_true"] if "a_true" in npz else None
    pyro.set_rng_seed(args.seed)
    torch.set_num_threads(torch.get_num_threads())
    subjects, items, obs = long_format(responses)
    model = IrtModel.from_name("2pl")(priors=args.priors, num_items=responses.shape[1],
                                      num_subjects=responses.shape[0], device="cpu")
    pyro.clear_param_store()
    scheduler = pyro.optim.ExponentialLR({"optimizer": torch.optim.Adam,
                                          "optim_args": {"lr": 0.1}, "gamma": 0.9999})
    svi = SVI(model.get_model(), model.get_guide(), scheduler, loss=Trace_ELBO())
    setup_s = time.perf_counter() - start
    train_s, steps, r, trace = 0.0, 0, float("nan"), []
    while steps < args.max_steps and train_s < args.max_seconds:
        tick = time.perf_counter()
        for _ in range(args.check_every):
            svi.step(subjects, items, obs)
            scheduler.step()
        train_s += time.perf_counter() - tick
        steps += args.check_every
        b_hat = pyro.param("loc_diff").detach().numpy()
        r = float(np.corrcoef(b_hat, b_true)[0, 1])
        trace.append({"step": steps, "train_s": train_s, "r": r})
        if r >= args.target_r:
            break
    peak_mb = peak_rss_mb()
    a_hat = pyro.param("loc_slope").detach().exp().numpy()
    if args.estimates:
        np.savez(args.estimates, b=pyro.param("loc_diff").detach().numpy(), a=a_hat)
    r_a = None if a_true is None else float(np.corrcoef(a_hat, a_true)[0, 1])
    print(json.dumps({"steps": steps, "setup_s": setup_s, "train_s": train_s,
                      "wall_s": setup_s + train_s, "per_step_ms": 1000 * train_s / max(steps, 1),
                      "r": r, "r_a": r_a, "reached": bool(r >= args.target_r), "peak_rss_mb": peak_mb,
                      "threads": torch.get_num_threads(), "priors": args.priors, "torch": torch.__version__,
                      "pyro": pyro.__version__, "trace": trace}))


if __name__ == "__main__":
    main()
