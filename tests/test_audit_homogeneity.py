"""`audit --partition`: the paper's homogeneity test on a user's benchmark, and its refusals."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from mmlu_audit import DataError, ParameterError
from mmlu_audit.__main__ import main
from mmlu_audit.analyses.regression.joint import JOINT_HOMOGENEITY, homogeneity_headline, joint_homogeneity
from mmlu_audit.audit import check_partition, run_audit
from mmlu_audit.core.taxonomy import pro_partition_of

DRAWS = 199


@pytest.fixture(scope="module")
def pro_benchmark(tmp_path_factory):
    """240 MMLU-Pro questions, their 29 models' answers and a STEM / non-STEM ``domain`` column."""
    from mmlu_audit.data.mmlu_pro import load_pro_items, load_pro_panel

    items = load_pro_items()
    panel = load_pro_panel(items)
    pick = np.sort(np.random.default_rng(1).choice(len(items), 240, replace=False))
    sample = items.iloc[pick]
    folder = tmp_path_factory.mktemp("pro_partition")
    rows = [{"id": row.item_id, "question": row.question, "options": list(row.options),
             "answer": "ABCDEFGHIJ"[row.key], "category": row.category, "domain": domain}
            for row, domain in zip(sample.itertuples(), pro_partition_of(sample["category"]), strict=True)]
    items_path = folder / "items.jsonl"
    items_path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    pred = panel.comparable_pred()[:, pick]
    models = panel.matrix.models["model_id"].tolist()
    answers = pd.DataFrame([{"model": models[j], "id": sample["item_id"].iat[i],
                             "choice": "ABCDEFGHIJ"[pred[j, i]]}
                            for j in range(len(models)) for i in range(len(pick)) if pred[j, i] >= 0])
    answers_path = folder / "answers.csv"
    answers.to_csv(answers_path, index=False)
    return folder, items_path, answers_path, rows


@pytest.fixture(scope="module")
def pro_audit(pro_benchmark):
    folder, items_path, answers_path, _ = pro_benchmark
    out = run_audit(items_path, folder / "out", answers_path, seed=5, progress=False, max_steps=400,
                    partition="domain", n_boot=DRAWS)
    return (pd.read_csv(out / "items.csv", index_col="item_id", keep_default_na=False, na_values=[""]),
            json.loads((out / "audit.json").read_text())["homogeneity"])


def test_the_audit_runs_the_librarys_homogeneity_test(pro_audit):
    table, block = pro_audit
    assert block["levels"] == ["STEM", "non-STEM"] and block["coded_one"] == "non-STEM"
    assert sum(level["items"] for level in block["counts"].values()) + block["n_items_without_b_hat"] == 240
    frame = table.assign(stem=table["partition"] == "non-STEM", subject=table["subject"].astype(str))
    expected = homogeneity_headline(frame, seed=5, n_boot=DRAWS, n_perm=DRAWS)
    for key in set(JOINT_HOMOGENEITY) & set(expected):
        assert block["statistics"][key] == pytest.approx(expected[key], rel=1e-12), key
    assert block["statistics"]["w9_htz_df1"] == 9
    assert 0 < block["statistics"]["w9_htz_p"] <= 1 and 0 < block["statistics"]["wcb_p"] <= 1


def test_w9_does_not_depend_on_which_level_is_coded_one(pro_audit):
    table, block = pro_audit
    frame = table.assign(subject=table["subject"].astype(str))
    flipped = joint_homogeneity(frame.assign(stem=frame["partition"] == "STEM"), seed=5, n_boot=DRAWS)
    for key in ("w9_hc3", "w9_cr1", "w9_cr2", "w9_htz_F", "w9_htz_df", "w9_htz_p", "wcb_p"):
        assert flipped[key] == pytest.approx(block["statistics"][key], rel=1e-9), key


def _rewrite(pro_benchmark, tmp_path, change):
    rows = [dict(r) for r in pro_benchmark[3]]
    for k, row in enumerate(rows):
        change(k, row)
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.mark.parametrize("change, error, message", [
    (lambda k, row: row.update(domain="all"), ParameterError,
     r"column 'domain' has 1 level\(s\) \('all'\); the homogeneity test compares exactly two"),
    (lambda k, row: row.update(domain=("a", "b", "c")[k % 3]), ParameterError, "has 3 level"),
    (lambda k, row: row.update(category="one subject" if row["domain"] == "STEM" else row["category"]),
     ParameterError, "level 'STEM' of column 'domain' holds items of 1 subject"),
    (lambda k, row: row.pop("domain") if k == 7 else None, DataError,
     "line 8: no value in the partition column 'domain'"),
    (lambda k, row: row.update(domain=None) if k == 3 else None, DataError,
     "line 4: no value in the partition column 'domain'"),
    (lambda k, row: row.pop("category") if k == 2 else None, ParameterError, "has no subject"),
])
def test_bad_partitions_get_one_clear_error_before_any_parsing(pro_benchmark, tmp_path, change, error,
                                                               message):
    path = _rewrite(pro_benchmark, tmp_path, change)
    with pytest.raises(error, match=message):
        run_audit(path, tmp_path / "out", pro_benchmark[2], progress=False, partition="domain", n_boot=DRAWS)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("kwargs, message", [
    ({"partition": "domain", "responses": False}, "needs model answers: add --responses"),
    ({"partition": "subject"}, "one of the audit's own columns"),
    ({"partition": " "}, "must name a column"),
    ({"partition": "domain", "n_boot": 10}, "n_boot: must be an integer of at least 99"),
])
def test_bad_homogeneity_options(pro_benchmark, tmp_path, kwargs, message):
    _, items_path, answers_path, _ = pro_benchmark
    responses = answers_path if kwargs.pop("responses", True) else None
    with pytest.raises(ParameterError, match=message):
        run_audit(items_path, tmp_path / "out", responses, progress=False, **kwargs)


def test_the_command_line_names_a_bad_partition_in_one_line(pro_benchmark, tmp_path, capsys):
    path = _rewrite(pro_benchmark, tmp_path, lambda k, row: row.update(domain="all"))
    status = main(["audit", str(path), "--out", str(tmp_path / "out"), "--responses", str(pro_benchmark[2]),
                   "--partition", "domain", "--no-progress"])
    err = capsys.readouterr().err.strip()
    assert status == 2 and len(err.splitlines()) == 1 and "has 1 level(s)" in err


def test_check_partition_returns_levels_in_code_point_order():
    frame = pd.DataFrame({"item_id": list("abcd"), "subject": ["s1", "s2", "s3", "s4"],
                          "partition": ["b", "a", "b", "a"]})
    assert check_partition(frame, "p") == ("a", "b")
