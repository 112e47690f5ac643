"""The real MMLU pool (HELM + OpenCompass), its sub-populations, and worlds at its design."""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest

from mmlu_audit import DataError, data_root, load_responses
from mmlu_audit.core.errors import ParameterError
from mmlu_audit.data.real_pool import (OPENCOMPASS_DIR, POPULATION_SOURCES, informative_rows,
                                       load_opencompass12, pool_matrices)
from mmlu_audit.data.registry import REAL_SOURCES
from mmlu_audit.data.responses import ResponseMatrix
from mmlu_audit.worlds.real_design import abilities_for_accuracy, simulate_at_design
from mmlu_audit.worlds.simulated import WorldSpec, text_covariates


def _matrix(y, ids=None, source="toy"):
    y = np.asarray(y, np.int8)
    models = pd.DataFrame({"model_id": ids or [f"m{j}" for j in range(y.shape[0])]})
    return ResponseMatrix(y, models, np.array([f"s/{i}" for i in range(y.shape[1])]), source, False)


def test_opencompass_as_documented():
    matrix = load_opencompass12()
    assert matrix.shape == (12, 14_042) and not matrix.simulated
    assert (matrix.responses >= 0).all()
    accuracy = matrix.accuracy()
    assert accuracy["opencompass-03"] == 1.0  # the README's all-correct row
    assert accuracy.drop("opencompass-03").between(0.33, 0.87).all()
    assert list(matrix.models["mmlu_n_correct"]) == list((matrix.responses == 1).sum(axis=1))


def test_populations_registered_with_their_models(items):
    assert set(POPULATION_SOURCES) <= set(REAL_SOURCES)
    sizes = {"helm10": 10, "opencompass11": 11, "mmlu_real": 31}
    for source, n in sizes.items():
        matrix = load_responses(source, items=items)
        assert matrix.shape == (n, 14_042) and matrix.source == source
        assert list(matrix.item_ids) == list(items["item_id"])
        assert matrix.models["model_id"].is_unique and matrix.models["checkpoint"].is_unique
        assert informative_rows(matrix).all()
    pool = load_responses("mmlu_real", items=items)
    assert pool.models["population"].value_counts().to_dict() == {"HELM": 20, "OpenCompass": 11}
    assert pool.observed.any(axis=0).all()  # OpenCompass answered the 14 items no HELM model saw
    assert pool.meta["dropped"] == ["OpenCompass/opencompass-03: answers every observed item the same way "
                                    "(no information on b)"]


def test_uninformative_rows_dropped_by_rule_not_position():
    y = [[1, 1, 1], [1, 0, 1], [0, 0, -1], [-1, 1, 0]]
    assert list(informative_rows(_matrix(y))) == [False, True, False, True]
    pooled = pool_matrices([("A", _matrix(y)), ("B", _matrix(np.array(y)[::-1]))], "pool", "toy pool")
    assert list(pooled.models["model_id"]) == ["A/m1", "A/m3", "B/m0", "B/m2"]
    assert len(pooled.meta["dropped"]) == 4


def test_pool_aligns_columns_and_refuses_other_items():
    a = _matrix([[1, 0, 1], [0, 1, 1]])
    b = ResponseMatrix(np.array([[1, 1, 0]], np.int8), pd.DataFrame({"model_id": ["x"]}),
                       np.array(["s/2", "s/0", "s/1"]), "b", False)
    pooled = pool_matrices([("A", a), ("B", b)], "pool", "toy")
    assert pooled.responses[2].tolist() == [1, 0, 1]  # B's columns put in A's order
    other = _matrix([[1, 0]], source="c")
    with pytest.raises(DataError, match="item ids differ"):
        pool_matrices([("A", a), ("C", other)], "pool", "toy")
    with pytest.raises(ParameterError, match="no population"):
        pool_matrices([], "pool", "toy")


def test_altered_opencompass_file_is_refused(tmp_path):
    folder = tmp_path / OPENCOMPASS_DIR
    folder.mkdir(parents=True)
    for name in ("responses.npz", "models.csv"):
        shutil.copy(data_root() / OPENCOMPASS_DIR / name, folder / name)
    raw = bytearray((folder / "models.csv").read_bytes())
    raw[-2] ^= 1
    (folder / "models.csv").write_bytes(bytes(raw))
    with pytest.raises(DataError, match="sha256"):
        load_opencompass12(tmp_path)
    (folder / "responses.npz").unlink()
    with pytest.raises(DataError):
        load_opencompass12(tmp_path)


def test_source_effect_in_theta_is_absorbed_by_the_pool():
    """The pool's choice: one θ per model, so a protocol that shifts all its models' abilities
    leaves the items' difficulties where a single population would put them."""
    from mmlu_audit.irt import IRTSpec, fit_irt

    rng = np.random.default_rng(3)
    n_items = 400
    b = rng.normal(0, 1.5, n_items)
    theta = rng.normal(0, 1, 60)
    theta[30:] += 1.5  # the second population's protocol makes every item easier
    p = 1 / (1 + np.exp(-(theta[:, None] - b[None, :])))
    y = (rng.random(p.shape) < p).astype(np.int8)
    spec = IRTSpec(model="2pl", b_prior="paper", seed=0, max_steps=1500)
    pooled = fit_irt(_matrix(y), spec, progress=False)
    first = fit_irt(_matrix(y[:30]), spec, progress=False)
    assert np.corrcoef(pooled.b, b)[0, 1] > np.corrcoef(first.b, b)[0, 1] > 0.9
    gap = np.mean(pooled.theta[30:]) - np.mean(pooled.theta[:30])
    assert gap > 0.5  # the shift is carried by θ̂, not by the items


def test_abilities_reproduce_their_accuracy():
    rng = np.random.default_rng(0)
    a, b = np.exp(rng.normal(0, 0.3, 500)), rng.normal(0, 2, 500)
    observed = rng.random((6, 500)) < 0.7
    target = np.array([0.3, 0.45, 0.6, 0.7, 0.8, 0.95])
    theta = abilities_for_accuracy(target, a, b, 0.25, observed)
    p = 0.25 + 0.75 / (1 + np.exp(-a * (theta[:, None] - b)))
    assert np.allclose((p * observed).sum(axis=1) / observed.sum(axis=1), target, atol=1e-5)
    assert np.all(np.diff(theta) > 0)
    with pytest.raises(DataError, match="strictly between"):
        abilities_for_accuracy([0.2], a, b, 0.25, observed[:1])


def test_world_at_design_keeps_its_cells_and_accuracies(items):
    design = load_responses("mmlu_real", items=items)
    spec = WorldSpec(covariates="text")
    world = simulate_at_design(design, spec, items, text_covariates(items), seed=5)
    assert world.matrix.simulated and world.matrix.shape == design.shape
    assert np.array_equal(world.matrix.observed, design.observed)
    gap = world.matrix.accuracy().to_numpy() - design.accuracy().to_numpy()
    assert np.abs(gap).max() < 0.03  # binomial noise over ≥ 5,691 cells per model
    again = simulate_at_design(design, spec, items, text_covariates(items), seed=5)
    assert np.array_equal(again.matrix.responses, world.matrix.responses)
