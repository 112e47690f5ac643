"""Every bad input raises one DataError naming the file and the problem, and writes nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mmlu_audit import DataError, ResponseMatrix, data_root, load_items
from mmlu_audit.core.errors import ParameterError
from mmlu_audit.core.store import file_sha256
from mmlu_audit.data.items import read_parquet, validate_items
from mmlu_audit.data.responses import load_matrix, save_matrix


@pytest.fixture
def root_copy(tmp_path):
    """A writable copy of the data root's item file."""
    (tmp_path / "mmlu").mkdir()
    shutil.copy(data_root() / "mmlu" / "test.parquet", tmp_path / "mmlu" / "test.parquet")
    return tmp_path


def _items(n=6):
    return pd.DataFrame({
        "item_id": [f"anatomy/{k}" for k in range(n)], "subject": "anatomy",
        "row_index": range(n), "question": "What is it?", "choice_a": "a", "choice_b": "b",
        "choice_c": "c", "choice_d": "d", "answer": "A",
    })


def test_missing_file(tmp_path):
    (tmp_path / "mmlu").mkdir()
    with pytest.raises(DataError, match=r"test\.parquet: file not found"):
        load_items(tmp_path)


def test_checksum_mismatch(root_copy):
    target = root_copy / "mmlu" / "test.parquet"
    frame = pd.read_parquet(target)
    frame.loc[0, "question"] = "tampered"
    frame.to_parquet(target)
    with pytest.raises(DataError, match=r"test\.parquet: checksum mismatch"):
        load_items(root_copy)


def test_corrupt_parquet(tmp_path):
    path = tmp_path / "broken.parquet"
    path.write_bytes(b"PAR1 this is not parquet")
    with pytest.raises(DataError, match=r"broken\.parquet: not a readable Parquet file"):
        read_parquet(path, file_sha256(path))


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d.drop(columns="answer"), r"missing column\(s\) \['answer'\]"),
    (lambda d: d.assign(item_id="anatomy/0"), "duplicate item_id"),
    (lambda d: d.assign(subject=["anatomy"] * 5 + ["astrology"]), "unknown subject.*'astrology'"),
    (lambda d: d.assign(answer=["A"] * 5 + ["E"]), "answer.*outside A–D"),
    (lambda d: d.assign(question=["Q?"] * 5 + ["   "]), "empty question stem"),
    (lambda d: d.assign(question=["Q?"] * 5 + ["\u200b\u00a0\ufeff"]), "empty question stem.*anatomy/5"),
    (lambda d: d.assign(question=["Q?"] * 5 + [""]), "empty question stem"),
    (lambda d: d.assign(row_index=[0, 1, 2, 3, 4, 4],
                        item_id=[f"anatomy/{k}" for k in (0, 1, 2, 3, 4, "4b")]),
     "duplicate row_index.*anatomy row 4"),
    (lambda d: d.assign(subject=["anatomy"] * 5 + ["astronomy"]),
     "filed under the wrong subject.*'anatomy/5'"),
    (lambda d: d.assign(row_index=[0, 1, 2, 3, 4, 9]), "do not match.*'anatomy/5'.*row 9"),
])
def test_item_table_problems(mutate, message):
    with pytest.raises(DataError, match=f"items.csv: .*{message}"):
        validate_items(mutate(_items()), "items.csv", require_all_subjects=False)


def test_all_subjects_required():
    with pytest.raises(DataError, match="subject.*have no items"):
        validate_items(_items(), "items.csv")


def _matrix(values):
    values = np.asarray(values)
    models = pd.DataFrame({"model_id": [f"m{k}" for k in range(values.shape[0])]})
    ids = np.array([f"anatomy/{k}" for k in range(values.shape[1])])
    return ResponseMatrix(values, models, ids, "test", True)


@pytest.mark.parametrize("values, message", [
    (np.array([[1, 0], [2, 1]], dtype=np.int8), "non-binary response.*values \\[2\\]"),
    (np.array([[1.0, np.nan], [0.0, 1.0]]), "NaN; encode missing cells explicitly as -1"),
    (np.array([[0.0, 1.0], [0.5, 1.0]]), "must be an integer array"),
])
def test_response_values(values, message):
    with pytest.raises(DataError, match=f"test: .*{message}"):
        _matrix(values)


def test_response_shape_mismatch():
    models = pd.DataFrame({"model_id": ["m0", "m1", "m2"]})
    with pytest.raises(DataError, match=r"shape mismatch: responses \(2, 2\) but 3 models"):
        ResponseMatrix(np.zeros((2, 2), np.int8), models, np.array(["a/0", "a/1"]), "test", True)


def test_missing_cells_are_kept():
    matrix = _matrix(np.array([[1, -1], [0, 1]], dtype=np.int8))
    assert matrix.observed.tolist() == [[True, False], [True, True]]
    assert np.isnan(matrix.as_float()[0, 1])
    assert matrix.accuracy().tolist() == [1.0, 0.5]


def _provenanced(values):
    values = np.asarray(values, np.int8)
    models = pd.DataFrame({"model_id": [f"m{k}" for k in range(values.shape[0])],
                           "size": np.arange(values.shape[0]) * 1.5}, index=np.arange(values.shape[0]) + 10)
    ids = np.array([f"anatomy/{k}" for k in range(values.shape[1])])
    return ResponseMatrix(values, models, ids, "helm20", False, "a described matrix",
                          {"seed": 3, "spec": {"x": 1}})


def test_take_keeps_ids_provenance_and_meta_aligned():
    """Hand-written subsets used to drop ``meta`` (and one hard-coded ``simulated=False``)."""
    values = np.arange(12).reshape(3, 4) % 3 - 1
    matrix = _provenanced(values)
    sub = matrix.take(rows=[2, 0], columns=np.array([False, True, False, True]))
    assert sub.responses.tolist() == values[np.ix_([2, 0], [1, 3])].tolist()
    assert sub.models["model_id"].tolist() == ["m2", "m0"] and sub.models["size"].tolist() == [3.0, 0.0]
    assert sub.models.index.tolist() == [0, 1]
    assert sub.item_ids.tolist() == ["anatomy/1", "anatomy/3"]
    assert (sub.source, sub.simulated, sub.description) == ("helm20", False, "a described matrix")
    assert sub.meta == matrix.meta and sub.meta is not matrix.meta
    expected = (values[2, [1, 3]] == 1).sum() / (values[2, [1, 3]] != -1).sum()
    assert sub.accuracy()["m2"] == pytest.approx(expected)
    columns_only = matrix.take(columns=[3, 1])
    assert columns_only.models is matrix.models
    assert columns_only.item_ids.tolist() == ["anatomy/3", "anatomy/1"]
    assert matrix.take().responses.tolist() == values.tolist()


@pytest.mark.parametrize("rows, columns, message", [
    (np.array([True, False]), None, "rows: boolean mask of length 2 for 3 rows"),
    (None, [0, 4], r"columns: position\(s\) \[4\] outside 0..3"),
    ([-1], None, r"rows: position\(s\) \[-1\] outside"),
    (None, [1, 1], "columns: repeats a position"),
    ([0.5], None, "rows: positions must be integers"),
    (np.zeros((1, 1), int), None, "rows: must be one-dimensional"),
])
def test_take_refuses_bad_positions(rows, columns, message):
    with pytest.raises(ParameterError, match=message):
        _provenanced(np.zeros((3, 4))).take(rows, columns)


def test_saved_matrix_round_trip_and_tamper(tmp_path):
    matrix = _matrix(np.array([[1, -1, 0], [0, 1, 1]], dtype=np.int8))
    folder = save_matrix(matrix, tmp_path / "m", {"extra": np.arange(3)})
    loaded, extra = load_matrix(folder)
    assert np.array_equal(loaded.responses, matrix.responses)
    assert extra["extra"].tolist() == [0, 1, 2]
    with open(folder / "models.csv", "a") as handle:
        handle.write("m9\n")
    with pytest.raises(DataError, match=r"models\.csv: checksum mismatch"):
        load_matrix(folder)


def test_failed_save_writes_nothing(tmp_path, monkeypatch):
    matrix = _matrix(np.array([[1, 0]], dtype=np.int8))

    def explode(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(pd.DataFrame, "to_csv", explode)
    with pytest.raises(OSError, match="disk full"):
        save_matrix(matrix, tmp_path / "out")
    assert list(tmp_path.iterdir()) == []


def test_unknown_source():
    from mmlu_audit import load_responses

    with pytest.raises(ParameterError, match="unknown response source 'hf'"):
        load_responses("hf")


def test_data_root_env(monkeypatch, tmp_path):
    monkeypatch.setenv("MMLU_AUDIT_DATA", str(tmp_path / "nope"))
    with pytest.raises(DataError, match="MMLU_AUDIT_DATA points at a folder that does not exist"):
        data_root()
    monkeypatch.setenv("MMLU_AUDIT_DATA", str(Path(tmp_path)))
    assert data_root() == tmp_path


def test_project_root_is_the_checkout_whatever_the_working_folder(monkeypatch, tmp_path):
    """Chapters run with cwd = chapters/; the root must still be the folder holding _toc.yml."""
    from mmlu_audit.core.paths import project_root

    monkeypatch.chdir(tmp_path)
    assert (project_root() / "_toc.yml").is_file() and (project_root() / "bench" / "results").is_dir()


def test_model_ids_survive_the_csv_round_trip(tmp_path):
    """'007' and '7' used to collapse into the integer 7 (a duplicate) and 'NA' into NaN."""
    ids = ["007", "7", "NA", "1e3", "True", "null"]
    models = pd.DataFrame({"model_id": ids, "family": ["NA"] * 6})
    columns = np.array(["anatomy/0", "anatomy/1"])
    matrix = ResponseMatrix(np.zeros((6, 2), np.int8), models, columns, "test", True)
    loaded, _ = load_matrix(save_matrix(matrix, tmp_path / "m"))
    assert loaded.models["model_id"].tolist() == ids
    assert loaded.models["family"].tolist() == ["NA"] * 6


# ----------------------------------------------------------------------------- issue 8, point 1


def test_save_matrix_refuses_a_folder_that_is_not_a_matrix(tmp_path):
    """save_matrix used to rmtree whatever folder it was pointed at."""
    precious = tmp_path / "thesis"
    precious.mkdir()
    (precious / "chapter1.tex").write_text("years of work")
    with pytest.raises(DataError, match=r"thesis: refusing to replace a non-empty folder that is not a "
                                        r"response matrix"):
        save_matrix(_matrix(np.array([[1, 0]], dtype=np.int8)), precious)
    assert (precious / "chapter1.tex").read_text() == "years of work"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["thesis"]


def test_save_matrix_refuses_a_matrix_folder_holding_foreign_files(tmp_path):
    folder = save_matrix(_matrix(np.array([[1, 0]], dtype=np.int8)), tmp_path / "m")
    (folder / "notes.txt").write_text("mine")
    with pytest.raises(DataError, match=r"notes\.txt"):
        save_matrix(_matrix(np.array([[0, 0]], dtype=np.int8)), folder)
    assert (folder / "notes.txt").exists()


def test_save_matrix_replaces_a_previous_matrix_and_an_empty_folder(tmp_path):
    folder = save_matrix(_matrix(np.array([[1, 0]], dtype=np.int8)), tmp_path / "m")
    save_matrix(_matrix(np.array([[0, 1]], dtype=np.int8)), folder)
    assert load_matrix(folder)[0].responses.tolist() == [[0, 1]]
    (tmp_path / "empty").mkdir()
    save_matrix(_matrix(np.array([[1, 1]], dtype=np.int8)), tmp_path / "empty")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty", "m"]  # no temporary or backup left


def test_save_matrix_never_removes_the_old_matrix_before_the_new_one_is_complete(tmp_path, monkeypatch):
    folder = save_matrix(_matrix(np.array([[1, 0]], dtype=np.int8)), tmp_path / "m")
    monkeypatch.setattr("mmlu_audit.data.responses.write_manifest",
                        lambda *a, **k: (_ for _ in ()).throw(OSError("disk full")))
    with pytest.raises(OSError, match="disk full"):
        save_matrix(_matrix(np.array([[0, 1]], dtype=np.int8)), folder)
    monkeypatch.undo()
    assert load_matrix(folder)[0].responses.tolist() == [[1, 0]]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m"]


# ----------------------------------------------------------------------------- issue 8, point 6


def test_nan_subject_labels_are_one_data_error():
    """A NaN among unknown subjects used to raise TypeError from sorting str against float."""
    from mmlu_audit import is_stem

    with pytest.raises(DataError, match="missing subject label"):
        is_stem(np.array(["anatomy", "astrology", np.nan], dtype=object))
    with pytest.raises(DataError, match="missing subject label"):
        validate_items(_items().assign(subject=["anatomy"] * 5 + [None]), "items.csv",
                       require_all_subjects=False)


def test_mixed_int_and_str_cluster_labels_are_one_data_error():
    """np.unique on [1, 'a', ...] used to raise TypeError."""
    from mmlu_audit.inference import fit_ols, vcov

    rng = np.random.default_rng(0)
    fit = fit_ols(rng.normal(size=40), rng.normal(size=(40, 2)), intercept=True)
    with pytest.raises(DataError, match=r"clusters: mixes label types \(number, str\)"):
        vcov(fit, "CR1", np.array([7, "7"] * 20, dtype=object))


def test_unwritable_cache_folder_is_one_data_error(tmp_path, monkeypatch):
    """An uncreatable or unwritable cache folder used to raise a raw PermissionError."""
    from mmlu_audit.core.paths import cache_root

    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("MMLU_AUDIT_CACHE", str(blocker / "cache"))
    with pytest.raises(DataError, match=r"cannot create the cache folder.*MMLU_AUDIT_CACHE"):
        cache_root()
    monkeypatch.setenv("MMLU_AUDIT_CACHE", str(tmp_path / "ro"))
    monkeypatch.setattr("mmlu_audit.core.paths.os.access", lambda path, mode: False)
    with pytest.raises(DataError, match="cache folder.*is not writable"):
        cache_root()


def test_unwritable_explicit_cache_dir_is_one_data_error(tmp_path):
    from mmlu_audit.features import parse_texts
    from helpers import WhitespaceBackend

    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(DataError, match="cannot create the parse cache folder"):
        parse_texts(["One."], WhitespaceBackend(), cache_dir=blocker / "parses", progress=False)
