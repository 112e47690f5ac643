"""The staged real HELM per-subject scores (79 models × 57 subjects) and their bad inputs."""

import shutil

import numpy as np
import pandas as pd
import pytest

from mmlu_audit import DataError, data_root
from mmlu_audit.data import load_helm_subjects
from mmlu_audit.data.helm import HELM_SUBJECTS_DIR, _check_subject_grid
from mmlu_audit.analyses.modelside import subject_blocks, subscores
from mmlu_audit.core.taxonomy import is_stem


@pytest.fixture(scope="module")
def scores():
    return load_helm_subjects()


def test_complete_grid_that_reproduces_the_staged_item_weighted_subscores(scores):
    assert scores.shape == (79 * 57, 5) and scores["model_id"].nunique() == 79
    assert scores.groupby("model_id")["n_items"].sum().eq(14_042).all()
    ours = subscores(subject_blocks(scores, is_stem))
    staged = pd.read_csv(data_root() / HELM_SUBJECTS_DIR / "helm_mmlu_itemweighted_stem_nonstem.csv",
                         index_col="model_id").loc[ours.index]
    # The staged file rounds to 6 d.p.; correct counts are exact integers.
    np.testing.assert_allclose(ours[["aggregate", "STEM", "non-STEM"]].to_numpy(),
                               staged[["iw_all", "iw_stem", "iw_nonstem"]].to_numpy(), atol=1e-6)


def test_missing_file_and_altered_file_are_named(tmp_path):
    with pytest.raises(DataError, match="helm_mmlu_subject_scores.parquet: file not found"):
        load_helm_subjects(tmp_path)
    folder = tmp_path / HELM_SUBJECTS_DIR
    shutil.copytree(data_root() / HELM_SUBJECTS_DIR, folder)
    table = pd.read_parquet(folder / "helm_mmlu_subject_scores.parquet")
    table.loc[0, "em"] = 0.0
    table.to_parquet(folder / "helm_mmlu_subject_scores.parquet")
    with pytest.raises(DataError, match="checksum mismatch"):
        load_helm_subjects(tmp_path)


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d.iloc[1:], "lack some of the 57 subjects"),
    (lambda d: pd.concat([d, d.iloc[:1]]), "duplicate"),
    (lambda d: d.assign(subject=d["subject"].where(d.index != 0, "astrology")), "unknown subject"),
    (lambda d: d.assign(n_items=d["n_items"] + (d.index == 3)), "item counts differ"),
    (lambda d: d.assign(n_correct=d["n_correct"] + 10_000 * (d.index == 3)), "outside"),
])
def test_inconsistent_grids_are_refused(scores, mutate, message):
    counts = scores.drop_duplicates("subject").set_index("subject")["n_items"]
    with pytest.raises(DataError, match=message):
        _check_subject_grid("scores.parquet", mutate(scores.copy()), counts)


def test_make_data_mirrors_the_subject_scores_with_their_readme(tmp_path):
    from mmlu_audit.data.checksums import staged_manifest
    from mmlu_audit.book.prepare import mirror_staged_data

    copied = mirror_staged_data(data_root(), tmp_path)
    assert f"{HELM_SUBJECTS_DIR}/helm_mmlu_subject_scores.parquet" in copied
    assert sorted(copied) == sorted(staged_manifest())
    assert (tmp_path / HELM_SUBJECTS_DIR / "README.md").exists()
    assert load_helm_subjects(tmp_path).shape == (79 * 57, 5)
    assert mirror_staged_data(data_root(), tmp_path) == []  # verified copies are left alone
