"""The `audit` command: reading benchmark files, the capacity indices, outputs and refusals."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from mmlu_audit import DataError
from mmlu_audit.__main__ import main
from mmlu_audit.analyses.capacity import INDEX_DEFINITIONS, capacity_indices
from mmlu_audit.audit import (MANIFEST, canonical_id_key, read_answers, read_benchmark,
                              run_audit, write_benchmark)
from mmlu_audit.features import INDICATORS

FIXTURE = __import__("pathlib").Path(__file__).parent / "fixtures" / "benchmark" / "tiny.jsonl"


@pytest.fixture(scope="module")
def tiny_audit(tmp_path_factory):
    out = tmp_path_factory.mktemp("audit") / "tiny"
    run_audit(FIXTURE, out, progress=False)
    return out, pd.read_csv(out / "items.csv", index_col="item_id")


def test_hand_written_benchmark(tiny_audit):
    out, table = tiny_audit
    assert list(table.index) == ["q1", "q2", "q3", "q4", "q5", "q6"]
    assert set(INDICATORS) <= set(table.columns)
    assert table["key"].tolist() == [0, 1, 1, 1, 2, 1]  # letters and a 0-based index
    assert table["n_options"].tolist() == [4, 4, 4, 3, 5, 4]
    meta = json.loads((out / "audit.json").read_text())
    assert meta["n_items"] == 6 and meta["indices"] == INDEX_DEFINITIONS


def test_indices_on_hand_checked_stems(tiny_audit):
    _, table = tiny_audit
    # q3 chains "if … not … unless … therefore … if": the only stem with nested clauses and the
    # densest logical operators, so the highest reasoning index; "What is the capital of France?"
    # asks for one step and scores lowest.
    assert table["d_logic"].idxmax() == "q3" and table["clause_depth"].idxmax() == "q3"
    assert table["reasoning_index"].idxmax() == "q3"
    assert table["reasoning_index"].idxmin() == "q1"
    # q2 (Napoleon, Notre-Dame, Pius VII) is the stem with named entities and rare words
    assert table.loc["q2", "retrieval_index"] > table.loc["q3", "retrieval_index"]
    assert table.loc["q2", "d_ner"] > 0 and table.loc["q3", "d_ner"] == 0


def test_indices_are_mean_z_scores(tiny_audit):
    _, table = tiny_audit
    expected_retrieval = (stats.zscore(table["d_ner"]) + stats.zscore(table["zipf_rarity"])) / 2
    expected_reasoning = (stats.zscore(table["wscg_depth"]) + stats.zscore(table["d_logic"])) / 2
    assert np.allclose(table["retrieval_index"], expected_retrieval)
    assert np.allclose(table["reasoning_index"], expected_reasoning)
    indices = capacity_indices(table, reference=table.iloc[:3])
    ref = table.iloc[:3]
    z = (table["d_ner"] - ref["d_ner"].mean()) / ref["d_ner"].std(ddof=0)
    z2 = (table["zipf_rarity"] - ref["zipf_rarity"].mean()) / ref["zipf_rarity"].std(ddof=0)
    assert np.allclose(indices["retrieval_index"], (z + z2) / 2)
    with pytest.raises(DataError, match="need at least two items"):
        capacity_indices(table.iloc[:1])


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("name, text, message", [
    ("a.jsonl", '{"question": "Q?", "options": ["a", "b"]}\n{"question": "Q?", "options": "x"\n',
     "line 2: not valid JSON"),
    ("b.jsonl", '{"question": "Q?", "options": ["a", "b"]}\n\n{"question": "", "options": ["a", "b"]}\n',
     "line 3, field 'question': empty"),
    ("c.jsonl", '{"question": "Q?", "options": ["a"]}\n', "line 1, field 'options': 1 options"),
    ("d.jsonl", '{"question": "Q?", "options": ["a", "b"], "answer": "C"}\n',
     "line 1, field 'answer': 'C' is not one of the item's 2 options"),
    ("e.jsonl", '{"question": "Q?", "options": ["a", "b"], "answer": "maybe"}\n',
     "line 1, field 'answer': 'maybe' is neither one letter"),
    ("f.jsonl", '{"id": 1, "question": "Q?", "options": ["a", "b"]}\n'
                '{"id": 1, "question": "R?", "options": ["a", "b"]}\n', "line 2, field 'id'"),
    ("g.csv", 'question,options\n"Q?","[""a"", ""b""]"\n"R?","a, b"\n',
     "line 3, field 'options': not a JSON list"),
    ("h.csv", 'question,answer\nQ?,A\n', "line 2: no 'options'"),
    ("i.txt", "x", "unsupported file type '.txt'"),
])
def test_malformed_rows(tmp_path, name, text, message):
    with pytest.raises(DataError, match=message):
        read_benchmark(_write(tmp_path, name, text))


def test_csv_reads_like_jsonl(tmp_path):
    path = _write(tmp_path, "ok.csv", 'id,question,options,answer\nx,"Q?","[""a"", ""b""]",1\n')
    items = read_benchmark(path)
    assert items.loc[0, "options"] == ["a", "b"] and items.loc[0, "key"] == 1


def test_never_overwrites_a_users_folder(tmp_path, tiny_audit, capsys):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    assert main(["audit", str(FIXTURE), "--out", str(mine), "--no-progress"]) == 2
    assert "not a previous audit output" in capsys.readouterr().err
    assert (mine / "notes.txt").read_text() == "keep me" and len(list(mine.iterdir())) == 1
    # an unchanged previous audit output (its manifest and files) is replaced
    previous = tmp_path / "previous"
    previous.mkdir()
    for name in ("items.csv", "audit.json", MANIFEST):
        (previous / name).write_bytes((tiny_audit[0] / name).read_bytes())
    assert main(["audit", str(FIXTURE), "--out", str(previous), "--no-progress"]) == 0
    assert pd.read_csv(previous / "items.csv").shape[0] == 6
    # ... but not once the user has edited it: it is theirs now
    (previous / "items.csv").write_text("my edits")
    assert main(["audit", str(FIXTURE), "--out", str(previous), "--no-progress"]) == 2
    assert "'items.csv' changed since audit wrote it" in capsys.readouterr().err
    assert (previous / "items.csv").read_text() == "my edits"


def test_with_responses_adds_difficulty_and_flags(tmp_path):
    # 6 models: the two best always agree on option 0 for q4, whose key is B (1)
    items = read_benchmark(FIXTURE)
    key = items["key"].to_numpy()
    rng = np.random.default_rng(3)
    pred = np.where(rng.random((6, 6)) < np.linspace(0.9, 0.4, 6)[:, None], key, (key + 1) % 3)
    pred[:5, 3] = 0
    pred[5, 0] = -2
    answers = pd.DataFrame([{"model": f"m{j}", "id": items.loc[i, "item_id"],
                             "choice": "" if pred[j, i] == -2 else "ABCDE"[pred[j, i]]}
                            for j in range(6) for i in range(6) if not (j == 4 and i == 5)])
    path = tmp_path / "answers.csv"
    answers.to_csv(path, index=False)
    choice, models = read_answers(path, items)
    assert models == [f"m{j}" for j in range(6)] and choice[4, 5] == -1 and choice[5, 0] == -2
    beyond = tmp_path / "beyond.csv"
    answers.assign(choice=["E"] + list(answers["choice"][1:])).to_csv(beyond, index=False)
    assert read_answers(beyond, items)[0][0, 0] == -2  # q1 has four options: E is a wrong answer
    garbage = tmp_path / "garbage.csv"
    answers.assign(choice=["maybe"] + list(answers["choice"][1:])).to_csv(garbage, index=False)
    with pytest.raises(DataError, match="line 2, field 'choice': 'maybe' is neither one letter"):
        read_answers(garbage, items)
    out = run_audit(FIXTURE, tmp_path / "out", path, k=3, m=2, progress=False)
    table = pd.read_csv(out / "items.csv", index_col="item_id")
    assert table["consensus_flagged"].tolist() == [False, False, False, True, False, False]
    assert table.loc["q4", "consensus_panel_choice"] == 0
    assert table["b_hat"].notna().all()
    assert table["b_hat"].idxmax() == "q4"  # nobody gets it right
    bad = tmp_path / "bad.csv"
    answers.assign(id=["nope"] + list(answers["id"][1:])).to_csv(bad, index=False)
    with pytest.raises(DataError, match="line 2, field 'id': 'nope' is not an item"):
        read_answers(bad, items)


def test_on_mmlu_pro(tmp_path):
    from mmlu_audit.data.mmlu_pro import load_pro_items, load_pro_panel

    items = load_pro_items()
    panel = load_pro_panel(items)
    pick = np.sort(np.random.default_rng(0).choice(len(items), 30, replace=False))
    sample = items.iloc[pick].reset_index(drop=True)
    items_path, answers_path = write_benchmark(
        sample, tmp_path / "in", panel.comparable_pred()[:, pick], panel.matrix.models["model_id"])
    out = run_audit(items_path, tmp_path / "out", answers_path, progress=False)
    table = pd.read_csv(out / "items.csv", index_col="item_id")
    order = sorted(range(len(sample)), key=lambda k: canonical_id_key(sample["item_id"].iat[k]))
    sample, pick = sample.iloc[order], pick[order]  # the audit's canonical order (by id)
    assert list(table.index) == list(sample["item_id"])
    assert table["n_options"].tolist() == sample["n_options"].tolist()
    # graded accuracy per item equals the staged Y
    y = panel.matrix.responses[:, pick].astype(float)
    y[y < 0] = np.nan
    assert np.allclose(table["accuracy"], np.nanmean(y, axis=0))
    assert json.loads((out / "audit.json").read_text())["n_models"] == 29


@pytest.mark.slow
def test_full_mmlu_pro_audit_matches_the_chapter(tmp_path):
    from mmlu_audit.data.mmlu_pro import load_crosswalk, load_pro_items, load_pro_panel
    from mmlu_audit.analyses.pro import consensus_frame

    items = load_pro_items()
    panel = load_pro_panel(items)
    items_path, answers_path = write_benchmark(items, tmp_path / "in", panel.comparable_pred(),
                                               panel.matrix.models["model_id"])
    table = pd.read_csv(run_audit(items_path, tmp_path / "out", answers_path, progress=False) / "items.csv",
                        index_col="item_id").loc[items["item_id"]]  # the chapter's item order
    flags = consensus_frame(items, panel, load_crosswalk(items))
    assert (table["consensus_flagged"].to_numpy() == flags["flagged"].to_numpy()).all()
    assert (table["consensus_panel_choice"].to_numpy() == flags["panel_choice"].to_numpy()).all()


def test_the_audit_names_repeated_stems(tmp_path):
    rows = [{"id": "a", "question": "Which is prime?", "options": ["4", "6", "7", "9"], "answer": "C"},
            {"id": "b", "question": "which is  prime?", "options": ["9", "7", "6", "4"], "answer": "B"},
            {"id": "c", "question": "Which is prime?", "options": ["4", "7"], "answer": "B"},
            {"id": "d", "question": "Which is even?", "options": ["3", "4"], "answer": "B"}]
    path = tmp_path / "dups.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = run_audit(path, tmp_path / "out", progress=False)
    table = pd.read_csv(out / "items.csv", index_col="item_id")
    assert table["duplicate_of"].fillna("").tolist() == ["", "a", "", ""]
    assert table["options_nested_in"].fillna("").tolist() == ["", "", "a", ""]
    meta = json.loads((out / "audit.json").read_text())
    assert meta["same_stem_pairs"] == {"same options": 1, "nested options": 2, "other options": 0}
