"""Baselines (readability, subject identity, encoder) and option-set covariates."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mmlu_audit.features import (
    OPTION_COVARIATES,
    encode_items,
    item_texts,
    option_covariate_table,
    option_covariates,
    readability_grade,
    subject_one_hot,
)
from mmlu_audit.core.taxonomy import SUBJECTS


def test_eight_documented_option_covariates():
    table = option_covariate_table()
    assert len(OPTION_COVARIATES) == 8 and tuple(table["column"]) == OPTION_COVARIATES
    assert table["grounding"].str.len().gt(20).all()


def test_option_covariates_on_known_options():
    values = option_covariates(["red apple", "green apple", "4", "None of the above"],
                               stem="Which apple is red?")
    assert values["opt_len_mean"] == pytest.approx((2 + 2 + 1 + 4) / 4)
    lengths = np.array([2, 2, 1, 4])
    assert values["opt_len_cv"] == pytest.approx(lengths.std() / lengths.mean())
    assert values["opt_max_overlap"] == pytest.approx(1 / 3)  # {red, apple} vs {green, apple}
    assert values["opt_numeric_share"] == pytest.approx(0.25)
    assert values["opt_meta_option"] == 1.0
    assert values["opt_truth_pairs"] == 0.0
    # content words: {red, apple}: 2/2 in stem, {green, apple}: 1/2, {4}: 0, {} skipped
    assert values["opt_stem_overlap"] == pytest.approx((1 + 0.5 + 0) / 3)


def test_truth_pair_and_roman_combination_formats():
    truth = option_covariates(["True, True", "False, False", "True, False", "False, True"], "")
    assert truth["opt_truth_pairs"] == 1.0
    roman = option_covariates(["I only", "II and III only", "I, II, and III", "None"], "")
    assert roman["opt_combination_share"] == pytest.approx(0.75)


def test_option_covariates_never_see_the_answer_key():
    import inspect

    from mmlu_audit.features import baselines

    assert "answer" not in inspect.getsource(baselines.option_covariates)
    assert "answer" not in inspect.getsource(baselines._option_frame)


def test_empty_options_do_not_crash():
    values = option_covariates(["", "", "", ""], "")
    assert all(np.isfinite(v) for v in values.values())


def test_readability_runs_offline_and_orders_texts():
    easy = readability_grade("The cat sat on the mat. The dog ran.")
    hard = readability_grade("Notwithstanding institutional heterogeneity, macroeconomic "
                             "stabilization necessitates countercyclical intervention.")
    assert hard > easy
    assert readability_grade("") == 0.0


def test_subject_one_hot_has_all_57_subjects_in_fixed_order():
    items = pd.DataFrame({"item_id": ["a/0", "b/0"], "subject": ["virology", "anatomy"]})
    dummies = subject_one_hot(items)
    assert dummies.shape == (2, 57)
    assert list(dummies.columns) == [f"subject={s}" for s in SUBJECTS]
    assert dummies.sum(axis=1).tolist() == [1, 1]
    assert dummies.loc["a/0", "subject=virology"] == 1


def _items(n: int) -> pd.DataFrame:
    return pd.DataFrame({"question": [f"What is {i} plus {i}?" for i in range(n)],
                         "choice_a": ["1"] * n, "choice_b": ["2"] * n,
                         "choice_c": ["3"] * n, "choice_d": [str(2 * i) for i in range(n)]})


def test_item_texts_join_question_and_lettered_options():
    assert item_texts(_items(1))[0] == "What is 0 plus 0?\nA. 1\nB. 2\nC. 3\nD. 0"


def test_encoder_embeds_offline_and_caches(tmp_path):
    items = _items(4)
    first = encode_items(items, cache_dir=tmp_path, progress=False)
    assert first.shape == (4, 384) and first.dtype == np.float32
    assert np.allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-5)
    cached = list(tmp_path.glob("minilm-*.npy"))
    assert len(cached) == 1
    assert np.array_equal(encode_items(items, cache_dir=tmp_path, progress=False), first)


def test_make_data_embeddings_are_the_ones_the_chapter_reads(tmp_path, monkeypatch):
    import sentence_transformers

    from mmlu_audit.book.prepare import prepare_embeddings

    items = _items(3)
    prepare_embeddings(items, cache_dir=tmp_path)

    def no_encoder(*args, **kwargs):
        raise AssertionError("the encoder was loaded although make data had cached the vectors")

    monkeypatch.setattr(sentence_transformers, "SentenceTransformer", no_encoder)
    read = encode_items(items, cache_dir=tmp_path, progress=False)
    assert read.shape == (3, 384)
    with pytest.raises(AssertionError, match="encoder was loaded"):
        encode_items(_items(4), cache_dir=tmp_path, progress=False)  # other items: not cached


def test_a_subsample_is_sliced_from_the_whole_cache_else_encoded_alone(tmp_path, monkeypatch):
    import sentence_transformers

    items, rows = _items(5), np.array([3, 0])
    alone = encode_items(items, cache_dir=tmp_path, progress=False, rows=rows)
    assert alone.shape == (2, 384) and len(list(tmp_path.glob("minilm-*.npy"))) == 1  # the 2 rows' entry
    whole = encode_items(items, cache_dir=tmp_path, progress=False)
    np.testing.assert_allclose(alone, whole[rows], atol=1e-5)  # same vectors, other batches

    def no_encoder(*args, **kwargs):
        raise AssertionError("the encoder was loaded although all items were cached")

    monkeypatch.setattr(sentence_transformers, "SentenceTransformer", no_encoder)
    assert np.array_equal(encode_items(items, cache_dir=tmp_path, progress=False, rows=[4, 1]),
                          whole[[4, 1]])


def test_an_altered_or_truncated_embedding_cache_is_recomputed_with_a_warning(tmp_path):
    from mmlu_audit.core.errors import CacheWarning

    items = _items(3)
    first = encode_items(items, cache_dir=tmp_path, progress=False)
    (cached,) = tmp_path.glob("minilm-*.npy")
    assert cached.with_suffix(".json").exists() and not list(tmp_path.glob(".*.tmp"))
    cached.write_bytes(cached.read_bytes()[:200])  # a write cut short
    with pytest.warns(CacheWarning, match="content hash mismatch"):
        again = encode_items(items, cache_dir=tmp_path, progress=False)
    np.testing.assert_allclose(again, first, atol=1e-6)
    assert np.array_equal(encode_items(items, cache_dir=tmp_path, progress=False), again)  # rewritten
    other = _items(4)
    assert encode_items(other, cache_dir=tmp_path, progress=False).shape == (4, 384)
    assert len(list(tmp_path.glob("minilm-*.npy"))) == 2  # other texts, another key


def test_torch_threads_are_pinned_while_encoding_and_restored(tmp_path, monkeypatch):
    import os

    import sentence_transformers
    import torch

    from mmlu_audit.core.errors import ParameterError
    from mmlu_audit.features import baselines, encoder_threads, torch_threads

    before = torch.get_num_threads()
    with torch_threads(1):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before
    with pytest.raises(ParameterError, match="threads"):
        with torch_threads(0):
            pass
    assert torch.get_num_threads() == before and 1 <= encoder_threads() <= (os.cpu_count() or 1)
    seen = []
    real_encode = sentence_transformers.SentenceTransformer.encode

    def spy(self, *args, **kwargs):  # records the thread count the encoder actually ran with
        seen.append(torch.get_num_threads())
        return real_encode(self, *args, **kwargs)

    monkeypatch.setattr("sentence_transformers.SentenceTransformer.encode", spy)
    items = _items(2)
    baselines.encode_items(items, cache=False, progress=False, threads=1)
    baselines.encode_items(items, cache=False, progress=False)
    assert seen == [1, encoder_threads()] and torch.get_num_threads() == before
