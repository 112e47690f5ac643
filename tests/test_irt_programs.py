"""Shared compiled programs: a second fit of one model and shape compiles nothing.

Sizes: 300 models × 400 items, ≤ 600 SVI steps; the cache test 120 × 90, 50 steps, in 3 processes.
"""

from __future__ import annotations

import numpy as np
import pytest

from mmlu_audit.core.scaling import standardise
from mmlu_audit.irt import IRTSpec, fit_irt
from mmlu_audit.irt import engine


@pytest.fixture(scope="module")
def world():
    rng = np.random.default_rng(11)
    theta = rng.normal(size=300)
    b, a = rng.normal(0, 1, 400), np.exp(rng.normal(0, 0.2, 400))
    w = standardise(rng.gamma(2.0, 1.0, 400))
    eta = a * (theta[:, None] - b) + w * (-0.4 - 0.3 * theta[:, None])
    y = (rng.random(eta.shape) < 0.25 + 0.75 / (1 + np.exp(-eta))).astype(np.int8)
    return y, w


@pytest.fixture(scope="module")
def spec():
    return IRTSpec(model="interaction", b_prior="hierarchical", guessing=0.25, seed=0, max_steps=600)


def test_a_second_fit_of_the_same_shape_compiles_nothing(world, spec):
    y, w = world
    first = fit_irt(y, spec.with_(seed=3, max_steps=50), item_covariate=w, progress=False)
    programs = engine._run_chunk._cache_size(), engine._scalar_curvatures._cache_size()
    again = fit_irt(y, spec.with_(seed=4, max_steps=50), item_covariate=w, progress=False)
    assert (engine._run_chunk._cache_size(), engine._scalar_curvatures._cache_size()) == programs
    assert again.scalar("gamma1")["mean"] != first.scalar("gamma1")["mean"]  # the seed still acts
    fit_irt(y[:, :200], spec.with_(seed=4, max_steps=50), item_covariate=w[:200], progress=False)
    assert engine._run_chunk._cache_size() == programs[0] + 1  # another shape is another program


def test_bootstrap_refits_share_a_few_programs(world, spec):
    """Each resample is fitted on its drawn rows and columns, padded to the largest drawn row count
    and one of eight column counts: at most eight compiled programs serve every refit."""
    from mmlu_audit.analyses.modelside import bootstrap_gammas

    y, w = world
    quick = spec.with_(max_steps=50)
    programs = engine._run_chunk._cache_size()
    subjects = np.repeat(np.arange(20), 20)
    boot = bootstrap_gammas(y, w, quick, replicates=12, seed=1, item_clusters=subjects, progress=False)
    assert 1 <= engine._run_chunk._cache_size() - programs <= 8
    assert boot["gamma1"].nunique() == 12


_CACHED_FIT = """
import numpy as np
from mmlu_audit.irt import IRTSpec, fit_irt
rng = np.random.default_rng(2)
y = (rng.random((120, 90)) < 0.6).astype(np.int8)
spec = IRTSpec(model="interaction", b_prior="hierarchical", max_steps=50)
fit = fit_irt(y, spec, item_covariate=rng.normal(size=90), progress=False)
print(repr(fit.scalar("gamma1")["mean"]), repr(np.asarray(fit.b).tolist()))
"""


def test_a_fit_from_the_persistent_compilation_cache_is_bit_identical(tmp_path):
    """The book turns on JAX's persistent compilation cache (bookbuild.compilation_cache_env): a
    kernel that loads a compiled program from it gives the same bits as one that compiled it."""
    import os
    import subprocess
    import sys

    from mmlu_audit.book.build import compilation_cache_env

    cached = compilation_cache_env(tmp_path / "jax")

    def run(env):
        base = {k: v for k, v in os.environ.items() if k not in cached}
        done = subprocess.run([sys.executable, "-c", _CACHED_FIT], env={**base, **env},
                              capture_output=True, text=True, check=True)
        return done.stdout

    plain = run({})
    first = run(cached)
    assert any((tmp_path / "jax").iterdir())
    assert run(cached) == first == plain
