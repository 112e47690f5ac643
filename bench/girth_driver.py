"""Fit girth's 2PL by marginal maximum likelihood on a saved matrix; run inside bench/.venv-girth.

Invoked by ``bench_irt.py`` as a subprocess, one fit per call. ``girth.twopl_mml``
(its defaults: Gauss–Hermite-like fixed quadrature on 41 points over [−4.5, 4.5] under a
N(0, 1) ability distribution, EM-style item-by-item updates with the discrimination
bounded to ``mmlu_audit.book.peers.GIRTH_A_BOUNDS``, at most ``--max-iteration`` outer
iterations, stopping early when no discrimination moves by 1e-3). Missing cells (−1) become
girth's invalid response. Writes the item estimates to ``estimates`` (npz: ``b``, ``a``) and
prints one JSON line; ``bench_irt.py``, which can import the package (this venv cannot),
counts the estimates at the bound from them.
"""

from __future__ import annotations

import argparse
import json
import time
from importlib.metadata import version

import numpy as np
from girth import twopl_mml
from girth.utilities import INVALID_RESPONSE

from _memory import peak_rss_mb


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("matrix", help="npz with Y (int8, -1 missing), models × items")
    parser.add_argument("estimates", help="npz to write b and a to")
    parser.add_argument("--max-iteration", type=int, default=25,
                        help="girth's outer iterations (its default 25)")
    args = parser.parse_args()
    start = time.perf_counter()
    with np.load(args.matrix) as npz:
        responses = npz["Y"]
    dataset = responses.T.astype(np.int64)  # girth wants items × participants
    dataset[dataset == -1] = INVALID_RESPONSE
    setup_s = time.perf_counter() - start
    tick = time.perf_counter()
    result = twopl_mml(dataset, {"max_iteration": args.max_iteration})
    fit_s = time.perf_counter() - tick
    b, a = np.asarray(result["Difficulty"], float), np.asarray(result["Discrimination"], float)
    np.savez(args.estimates, b=b, a=a)
    print(json.dumps({"setup_s": setup_s, "fit_s": fit_s, "wall_s": setup_s + fit_s,
                      "max_iteration": args.max_iteration, "peak_rss_mb": peak_rss_mb(),
                      "n_items": int(b.size), "n_models": int(responses.shape[0]),
                      "versions": {p: version(p) for p in ("girth", "numpy", "scipy")}}))


if __name__ == "__main__":
    main()
