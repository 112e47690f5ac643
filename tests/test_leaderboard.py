"""Tests for the Open LLM Leaderboard loader, on the tiny fixtures of ``fixtures/leaderboard``."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mmlu_audit.data import leaderboard as lb
from mmlu_audit.data.responses import MISSING
from mmlu_audit.core.errors import DataError, MissingDependencyError

FIXTURES = Path(__file__).parent / "fixtures" / "leaderboard"
RAW = FIXTURES / "raw"
MODELS = ["alpha-org/Alpha-7B", "beta-org/Beta-13B-chat", "gamma/Gamma-1b"]
OLD, NEW = "2023-08-19T16:35:46.942696", "2023-09-15T09-53-02.418861"


@pytest.fixture(scope="module")
def items() -> pd.DataFrame:
    table = pd.read_csv(FIXTURES / "items.csv", dtype=str, keep_default_na=False)
    table["row_index"] = table["row_index"].astype(int)
    return table


@pytest.fixture(scope="module")
def truth() -> pd.DataFrame:
    return pd.read_csv(FIXTURES / "truth.csv")


@pytest.fixture(scope="module")
def built(items, tmp_path_factory):
    out = tmp_path_factory.mktemp("lb") / "matrix"
    return lb.build_leaderboard_matrix(RAW, items, out, allow_unverified=True), out


def _raw_copy(tmp_path: Path) -> Path:
    return Path(shutil.copytree(RAW, tmp_path / "raw"))


def _frame(model: str, subject: str) -> pd.DataFrame:
    return pd.read_parquet(RAW / model.replace("/", "__") / f"{subject}.parquet")


def _truth_of(truth: pd.DataFrame, model: str, subject: str) -> np.ndarray:
    rows = truth[(truth.model_id == model) & truth.item_id.str.startswith(subject + "/")]
    ordered = rows.sort_values("item_id", key=lambda s: s.str.split("/").str[1].astype(int))
    return ordered["correct"].to_numpy()


# ----------------------------------------------------------------------------- names


def test_details_repo_and_timestamps():
    assert lb.details_repo("meta-llama/Llama-2-7b-hf") == \
        "open-llm-leaderboard-old/details_meta-llama__Llama-2-7b-hf"
    assert lb.canonical_timestamp(OLD) == lb.canonical_timestamp("2023_08_19T16_35_46.942696") \
        == "2023-08-19T16-35-46.942696"
    with pytest.raises(DataError, match="owner/name"):
        lb.details_repo("no-slash")


@pytest.mark.parametrize("name, subject, stamp", [
    ("anatomy.parquet", "anatomy", None),
    (f"{NEW}/details_harness|hendrycksTest-virology|5_{NEW}.parquet", "virology", NEW),
    ("harness_hendrycksTest_high_school_biology_5/latest-00000-of-00001.parquet",
     "high_school_biology", "latest"),
])
def test_subject_from_filename(name, subject, stamp):
    assert lb.subject_from_filename(name) == (subject, stamp)


@pytest.mark.parametrize("name", ["astrology.parquet",
                                  f"x/details_harness|hendrycksTest-astrology|5_{NEW}.parquet"])
def test_unknown_subject_in_file_name(name):
    with pytest.raises(DataError, match="unknown MMLU subject 'astrology'"):
        lb.subject_from_filename(name)


def test_select_remote_files_latest_timestamp_and_config_layout():
    paths = [f"{OLD.replace(':', '-')}/details_harness|hendrycksTest-anatomy|5_{OLD}.parquet",
             f"{NEW}/details_harness|hendrycksTest-anatomy|5_{NEW}.parquet",
             f"{NEW}/details_harness|hendrycksTest-anatomy|0_{NEW}.parquet",
             f"{OLD}/details_harness|hendrycksTest-virology|5_{OLD}.parquet",
             "harness_hendrycksTest_5/latest.parquet", "results_2023.json", "README.md"]
    latest = lb.select_remote_files(paths)
    assert latest == {"anatomy": (paths[1], NEW),
                      "virology": (paths[3], lb.canonical_timestamp(OLD))}
    old = lb.select_remote_files(paths, revision="2023_08_19T16_35_46.942696")
    assert old["anatomy"][0] == paths[0] and set(old) == {"anatomy", "virology"}
    assert lb.select_remote_files(paths, revision=NEW) == {"anatomy": (paths[1], NEW)}
    config = ["harness_hendrycksTest_anatomy_5/2023_08_19T16_35_46.942696.parquet",
              "harness_hendrycksTest_anatomy_5/latest.parquet"]
    assert lb.select_remote_files(config)["anatomy"] == (config[1], "latest")
    with pytest.raises(DataError, match="astrology"):
        lb.select_remote_files([f"{NEW}/details_harness|hendrycksTest-astrology|5_{NEW}.parquet"])


# ----------------------------------------------------------------------------- text


def test_extract_last_question_from_few_shot_prompt():
    prompt = _frame("alpha-org/Alpha-7B", "abstract_algebra")["full_prompt"][2]
    question, choices = lb.extract_last_question(prompt)
    assert question.startswith("Statement 1 | Fixture claim one.\nStatement 2")
    assert choices == ("True, True", "False, False", "True, False", "False, True")
    assert lb.extract_last_question("no answer cue") is None
    assert lb.extract_last_question(None) is None
    assert lb.question_key(" a\n b ", ["x ", "y", "z", "w"]) == lb.question_key("a b", "xyzw")


# ----------------------------------------------------------------------------- parsing


@pytest.mark.parametrize("model", ["alpha-org/Alpha-7B", "beta-org/Beta-13B-chat"])
def test_both_schema_variants_parse_to_truth(model, items, truth):
    parsed = lb.parse_details_file(RAW / model.replace("/", "__") / "anatomy.parquet", "anatomy", items)
    assert parsed["row_index"].tolist() == [0, 1, 2, 3]
    assert (parsed["alignment"] == "verified").all()
    assert parsed["correct"].dtype == np.int8
    np.testing.assert_array_equal(parsed["correct"], _truth_of(truth, model, "anatomy"))


def test_metrics_as_text_and_predictions_fallback(truth):
    frame = _frame("beta-org/Beta-13B-chat", "anatomy")
    expected = _truth_of(truth, "beta-org/Beta-13B-chat", "anatomy")
    as_text = frame.assign(metrics=[json.dumps(m) for m in frame["metrics"]])
    np.testing.assert_array_equal(lb.parse_details_file(as_text, "anatomy")["correct"], expected)
    scored = frame.drop(columns=["metrics"])
    np.testing.assert_array_equal(lb.parse_details_file(scored, "anatomy")["correct"], expected)


def test_shuffled_rows_are_realigned_by_text(items, truth):
    parsed = lb.parse_details_file(RAW / "gamma__Gamma-1b" / "anatomy.parquet", "anatomy", items)
    assert parsed["row_index"].tolist() == [2, 0, 3, 1]
    assert (parsed["alignment"] == "realigned").all()
    back = np.empty(4, dtype=int)
    back[parsed["row_index"]] = parsed["correct"]
    np.testing.assert_array_equal(back, _truth_of(truth, "gamma/Gamma-1b", "anatomy"))


def test_rows_without_text_are_positional(items):
    parsed = lb.parse_details_file(RAW / "gamma__Gamma-1b" / "abstract_algebra.parquet",
                                   "abstract_algebra", items, allow_unverified=True)
    assert parsed["row_index"].tolist() == list(range(5))
    assert (parsed["alignment"] == "unverified").all()


def test_unknown_schema_is_refused():
    frame = _frame("alpha-org/Alpha-7B", "anatomy").drop(columns=["acc", "predictions"])
    with pytest.raises(DataError, match="unknown details schema"):
        lb.parse_details_file(frame, "anatomy")
    with pytest.raises(DataError, match="no 'acc' key"):
        lb.parse_details_file(pd.DataFrame({"metrics": [{"acc_norm": 1.0}]}), "anatomy")


def test_non_binary_acc_is_refused():
    frame = _frame("alpha-org/Alpha-7B", "anatomy")
    frame.loc[1, "acc"] = 0.5
    with pytest.raises(DataError, match="1 non-binary acc value"):
        lb.parse_details_file(frame, "anatomy")


def test_wrong_row_count_is_refused(items):
    frame = _frame("alpha-org/Alpha-7B", "anatomy").iloc[:3]
    with pytest.raises(DataError, match="wrong row count for anatomy: 3 rows, expected 4"):
        lb.parse_details_file(frame, "anatomy", items)


def test_duplicate_rows_are_refused(items):
    frame = _frame("alpha-org/Alpha-7B", "anatomy")
    frame = frame.iloc[[0, 0, 2, 3]].reset_index(drop=True)
    with pytest.raises(DataError, match="duplicate rows: row 1"):
        lb.parse_details_file(frame, "anatomy", items)


def test_mismatched_text_is_reported(items):
    frame = _frame("alpha-org/Alpha-7B", "anatomy")
    frame.loc[3, "full_prompt"] = frame.loc[3, "full_prompt"].replace("gland", "organ")
    with pytest.raises(DataError, match="1 of 4 rows match no item.*row 3 reads 'Where is the fixture organ"):
        lb.parse_details_file(frame, "anatomy", items)
    parsed = lb.parse_details_file(frame, "anatomy", items, max_unmatched=0.25)
    assert parsed["row_index"].tolist() == [0, 1, 2, -1]
    assert parsed["alignment"].tolist()[-1] == "unmatched"


def test_within_subject_duplicate_items_stay_positional(items):
    parsed = lb.parse_details_file(RAW / "alpha-org__Alpha-7B" / "abstract_algebra.parquet",
                                   "abstract_algebra", items)
    assert parsed["row_index"].tolist() == [0, 1, 2, 3, 4]


# ----------------------------------------------------------------------------- build


def test_matrix_maps_rows_to_item_ids(built, items, truth):
    matrix, _ = built
    assert matrix.shape == (3, len(items)) and matrix.responses.dtype == np.int8
    assert matrix.source == "leaderboard" and matrix.simulated is False
    assert matrix.models["model_id"].tolist() == MODELS
    assert matrix.item_ids.tolist() == items["item_id"].tolist()
    column = {item: k for k, item in enumerate(matrix.item_ids)}
    row = {m: j for j, m in enumerate(MODELS)}
    got = [matrix.responses[row[m], column[i]] for m, i in zip(truth.model_id, truth.item_id, strict=True)]
    np.testing.assert_array_equal(got, truth["correct"])
    assert (matrix.responses != MISSING).sum() == len(truth)


def test_missing_subject_stays_missing(built):
    matrix, _ = built
    beta = matrix.models.index[matrix.models.model_id == "beta-org/Beta-13B-chat"][0]
    religion = np.char.startswith(matrix.item_ids.astype(str), "world_religions/")
    assert (matrix.responses[beta, religion] == MISSING).all()
    assert (matrix.responses[beta, ~religion] != MISSING).all()


def test_models_table(built, truth):
    models = built[0].models.set_index("model_id")
    assert models.loc["beta-org/Beta-13B-chat", "n_subjects"] == 2
    assert models.loc["gamma/Gamma-1b", "n_realigned"] == 4
    assert models.loc["gamma/Gamma-1b", "n_unverified"] == 5
    assert models.loc["alpha-org/Alpha-7B", "details_repo"] == \
        "open-llm-leaderboard-old/details_alpha-org__Alpha-7B"
    assert models.loc["alpha-org/Alpha-7B", "org"] == "alpha-org"
    expected = truth.groupby("model_id")["correct"].agg(["size", "mean"])
    np.testing.assert_array_equal(models["n_observed"], expected["size"])
    np.testing.assert_allclose(models["accuracy"], expected["mean"])


def test_load_leaderboard_round_trip(built):
    matrix, out = built
    again = lb.load_leaderboard(out.parent)
    np.testing.assert_array_equal(again.responses, matrix.responses)
    np.testing.assert_array_equal(lb.load_leaderboard(out).responses, matrix.responses)
    assert again.models["model_id"].tolist() == MODELS and again.simulated is False
    with pytest.raises(DataError, match="no leaderboard matrix"):
        lb.load_leaderboard(out.parent / "nowhere")


def test_folder_without_model_json_and_original_file_names(tmp_path, items, built):
    raw = _raw_copy(tmp_path)
    (raw / "gamma__Gamma-1b" / "model.json").unlink()
    name = f"details_harness|hendrycksTest-anatomy|5_{NEW}.parquet"
    (raw / "gamma__Gamma-1b" / "anatomy.parquet").rename(raw / "gamma__Gamma-1b" / name)
    matrix = lb.build_leaderboard_matrix(raw, items, tmp_path / "out", allow_unverified=True)
    np.testing.assert_array_equal(matrix.responses, built[0].responses)


@pytest.mark.parametrize("damage, message", [
    ("unknown_subject", "unknown MMLU subject 'astrology'"),
    ("short_file", "wrong row count"),
    ("two_runs", "second file for subject 'anatomy'"),
    ("bad_schema", "unknown details schema"),
])
def test_build_errors_name_the_file_and_write_nothing(tmp_path, items, damage, message):
    raw = _raw_copy(tmp_path)
    folder = raw / "beta-org__Beta-13B-chat"
    anatomy = folder / "anatomy.parquet"
    if damage == "unknown_subject":
        shutil.copy(anatomy, folder / "astrology.parquet")
    elif damage == "short_file":
        pd.read_parquet(anatomy).iloc[:2].to_parquet(anatomy)
    elif damage == "two_runs":
        shutil.copy(anatomy, folder / f"details_harness|hendrycksTest-anatomy|5_{NEW}.parquet")
    else:
        pd.read_parquet(anatomy).drop(columns=["metrics", "predictions"]).to_parquet(anatomy)
    out = tmp_path / "out"
    with pytest.raises(DataError, match=message) as caught:
        lb.build_leaderboard_matrix(raw, items, out, allow_unverified=True)
    assert "beta-org__Beta-13B-chat" in str(caught.value)
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["raw"]


def test_empty_raw_dir_is_refused(tmp_path, items):
    with pytest.raises(DataError, match="no model folders"):
        lb.build_leaderboard_matrix(tmp_path, items, tmp_path / "out")


# ----------------------------------------------------------------------------- download


class FakeHub:
    """In-memory stand-in for the Hub: each details repo lists two runs of each fixture file."""

    def __init__(self):
        self.fetched: list[tuple[str, str]] = []
        self.files: dict[str, dict[str, Path]] = {}
        for folder in sorted(RAW.iterdir()):
            repo = lb.details_repo(folder.name.replace("__", "/"))
            listing = {"README.md": folder / "model.json"}
            for path in folder.glob("*.parquet"):
                for stamp in (OLD, NEW):
                    run = lb.canonical_timestamp(stamp)
                    listing[f"{run}/details_harness|hendrycksTest-{path.stem}|5_{stamp}.parquet"] = path
            self.files[repo] = listing

    def list_files(self, repo_id):
        return sorted(self.files[repo_id])

    def fetch(self, repo_id, path, dest_dir):
        self.fetched.append((repo_id, path))
        local = Path(dest_dir) / "download.parquet"
        shutil.copy(self.files[repo_id][path], local)
        return local


def test_download_then_build_equals_fixture_build(tmp_path, items, built):
    hub = FakeHub()
    report = lb.download_leaderboard(MODELS, tmp_path, hub=hub, progress=False)
    assert len(report) == 3 * 57
    assert (report["status"] == "downloaded").sum() == 8 == len(hub.fetched)
    assert all(NEW in path for _, path in hub.fetched)
    assert report.loc[(report.model_id == "beta-org/Beta-13B-chat")
                      & (report.subject == "world_religions"), "status"].item() == "absent"
    slim = pd.read_parquet(tmp_path / "raw" / "alpha-org__Alpha-7B" / "anatomy.parquet")
    assert list(slim.columns) == ["acc", "example"]
    matrix = lb.build_leaderboard_matrix(tmp_path / "raw", items, tmp_path / "matrix", allow_unverified=True)
    np.testing.assert_array_equal(matrix.responses, built[0].responses)
    assert set(matrix.models["timestamp"]) == {NEW}


def test_download_resumes(tmp_path):
    hub = FakeHub()
    lb.download_leaderboard(MODELS, tmp_path, hub=hub, progress=False)
    hub.fetched.clear()
    again = lb.download_leaderboard(MODELS, tmp_path, hub=hub, progress=False)
    assert hub.fetched == [] and (again["status"] == "cached").sum() == 8
    (tmp_path / "raw" / "gamma__Gamma-1b" / "anatomy.parquet").unlink()
    lb.download_leaderboard(MODELS, tmp_path, hub=hub, progress=False)
    assert [p.split("|")[1] for _, p in hub.fetched] == ["hendrycksTest-anatomy"]
    hub.fetched.clear()
    lb.download_leaderboard(MODELS[:1], tmp_path, hub=hub, resume=False, progress=False)
    assert len(hub.fetched) == 3


def test_download_pinned_revision_replaces_other_runs(tmp_path):
    hub = FakeHub()
    lb.download_leaderboard(MODELS[:1], tmp_path, hub=hub, progress=False)
    hub.fetched.clear()
    lb.download_leaderboard(MODELS[:1], tmp_path, hub=hub, revision={MODELS[0]: OLD}, progress=False)
    assert len(hub.fetched) == 3 and all(OLD in p for _, p in hub.fetched)
    record = json.loads((tmp_path / "raw" / "alpha-org__Alpha-7B" / "model.json").read_text())
    assert record["revision"] == OLD
    assert {f["timestamp"] for f in record["files"].values()} == {lb.canonical_timestamp(OLD)}


def test_failed_fetch_leaves_no_partial_file(tmp_path):
    class BrokenHub(FakeHub):
        def fetch(self, repo_id, path, dest_dir):
            local = Path(dest_dir) / "download.parquet"
            local.write_bytes(b"PAR1 truncated")
            return local

    with pytest.raises(DataError, match="not a readable Parquet file"):
        lb.download_leaderboard(MODELS[:1], tmp_path, hub=BrokenHub(), progress=False)
    folder = tmp_path / "raw" / "alpha-org__Alpha-7B"
    assert sorted(p.name for p in folder.iterdir()) == []


def test_missing_hub_client_dependency(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)
    with pytest.raises(MissingDependencyError, match="huggingface_hub"):
        lb.download_leaderboard(MODELS, tmp_path, progress=False)


def test_module_does_not_import_hub_client():
    source = Path(lb.__file__).read_text()
    top_level = [line for line in source.splitlines() if line.startswith(("import ", "from "))]
    assert not any("huggingface_hub" in line for line in top_level)


def test_command_line_downloads_and_builds(tmp_path, items, built, capsys):
    listing = tmp_path / "models.txt"
    listing.write_text("# fixture models\n" + "\n".join(MODELS) + "\n\n")
    out = tmp_path / "matrix"
    code = lb.main(["--models", str(listing), "--cache", str(tmp_path / "cache"), "--out", str(out),
                    "--allow-unverified"], hub=FakeHub(), items=items)
    assert code == 0 and "3 models" in capsys.readouterr().out
    np.testing.assert_array_equal(lb.load_leaderboard(out).responses, built[0].responses)
    listing.write_text("# nothing\n")
    assert lb.main(["--models", str(listing), "--cache", str(tmp_path / "c2"), "--out", str(out)],
                   hub=FakeHub(), items=items) == 2
    err = capsys.readouterr().err
    assert err.startswith("leaderboard: ") and "model list is empty" in err and len(err.splitlines()) == 1


# ----------------------------------------------------------------------------- issue 8, point 3


def test_unverifiable_alignment_stops_unless_allowed(tmp_path, items):
    """Rows without prompt text used to be mapped by position silently."""
    with pytest.raises(DataError, match=r"gamma__Gamma-1b.*abstract_algebra.*5 of 5 rows have no readable "
                                        r"question text.*allow_unverified"):
        lb.build_leaderboard_matrix(RAW, items, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    with pytest.raises(DataError, match="cannot be verified"):
        lb.parse_details_file(RAW / "gamma__Gamma-1b" / "abstract_algebra.parquet", "abstract_algebra",
                              items, allow_unverified=False)


def test_allowed_positional_rows_are_in_the_banner(built):
    matrix, out = built
    assert "5 rows aligned by position without text check" in matrix.banner
    assert "5 rows aligned by position without text check" in lb.load_leaderboard(out).banner
    assert matrix.meta["n_unverified"] == 5


def test_matrix_holds_exactly_the_requested_models(tmp_path, items):
    """A stale model folder in raw/ used to enter the matrix."""
    raw = _raw_copy(tmp_path)
    shutil.copytree(raw / "alpha-org__Alpha-7B", raw / "stale__Old-1b")
    (raw / "stale__Old-1b" / "model.json").unlink()
    matrix = lb.build_leaderboard_matrix(raw, items, tmp_path / "out", models=MODELS[:2])
    assert matrix.models["model_id"].tolist() == MODELS[:2]
    with pytest.raises(DataError, match="no raw folder for requested model 'delta/Delta-3b'"):
        lb.build_leaderboard_matrix(raw, items, tmp_path / "out2", models=["delta/Delta-3b"])
    assert not (tmp_path / "out2").exists()


def test_empty_model_folder_is_refused(tmp_path, items):
    """An empty folder used to become an all-missing row."""
    raw = _raw_copy(tmp_path)
    (raw / "empty__Nothing-1b").mkdir()
    with pytest.raises(DataError, match=r"empty__Nothing-1b: no MMLU subject files"):
        lb.build_leaderboard_matrix(raw, items, tmp_path / "out", allow_unverified=True)


@pytest.mark.parametrize("damage, message", [
    (lambda f: f.assign(predictions=[[np.nan, -1.0, -2.0, -3.0]] * len(f)),
     "row 0: NaN or infinite log-likelihood"),
    (lambda f: f.assign(gold_index=[4] * len(f)), "row 0: gold_index 4 outside 0..3"),
    (lambda f: f.assign(gold_index=[-1] * len(f)), "row 0: gold_index -1 outside 0..3"),
])
def test_invalid_prediction_scores_stop_with_the_file_named(tmp_path, damage, message):
    """NaN log-likelihoods and out-of-range gold indices used to be scored (argmax == gold)."""
    frame = damage(_frame("beta-org/Beta-13B-chat", "anatomy").drop(columns=["metrics"]))
    path = tmp_path / "anatomy.parquet"
    frame.to_parquet(path)
    with pytest.raises(DataError, match=rf"anatomy\.parquet: {message}"):
        lb.parse_details_file(path, "anatomy")


@pytest.mark.parametrize("content, message", [
    ("[1, 2]", "model.json: expected a JSON object"),
    ('{"model_id": "no-slash"}', "model.json: model_id 'no-slash' must look like 'owner/name'"),
    ('{"model_id": 7}', "model.json: model_id 7 must look like 'owner/name'"),
    ('{"model_id": "a/b", "files": []}', "model.json: 'files' must be an object"),
    ("{not json", "model.json: not valid JSON"),
])
def test_malformed_model_json_is_one_data_error(tmp_path, items, content, message):
    raw = _raw_copy(tmp_path)
    (raw / "beta-org__Beta-13B-chat" / "model.json").write_text(content)
    with pytest.raises(DataError, match=message):
        lb.build_leaderboard_matrix(raw, items, tmp_path / "out", allow_unverified=True)


def test_command_line_builds_only_the_listed_models(tmp_path, items, capsys):
    listing = tmp_path / "models.txt"
    listing.write_text(MODELS[0] + "\n")
    cache = tmp_path / "cache"
    lb.download_leaderboard(MODELS, cache, hub=FakeHub(), progress=False)
    out = tmp_path / "matrix"
    assert lb.main(["--models", str(listing), "--cache", str(cache), "--out", str(out)],
                   hub=FakeHub(), items=items) == 0
    assert lb.load_leaderboard(out).models["model_id"].tolist() == MODELS[:1]


def test_command_line_refuses_an_out_folder_that_is_not_a_matrix(tmp_path, items, capsys):
    """--out used to be deleted whatever it held; now it stops before any download."""
    listing = tmp_path / "models.txt"
    listing.write_text(MODELS[0] + "\n")
    out = tmp_path / "papers"
    out.mkdir()
    (out / "draft.md").write_text("keep me")
    hub = FakeHub()
    assert lb.main(["--models", str(listing), "--cache", str(tmp_path / "cache"), "--out", str(out)],
                   hub=hub, items=items) == 2
    assert "papers: refusing to replace a non-empty folder" in capsys.readouterr().err
    assert hub.fetched == [] and (out / "draft.md").read_text() == "keep me"
