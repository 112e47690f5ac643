"""Baselines (readability, subject identity, encoder) and option-set covariates."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mmlu_audit.features import (
    ENCODER_RUNTIMES,
    OPTION_COVARIATES,
    encode_items,
    item_texts,
    mean_pool,
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
    from mmlu_audit.book.prepare import prepare_embeddings
    from mmlu_audit.features import baselines

    items = _items(3)
    prepare_embeddings(items, cache_dir=tmp_path)

    def no_encoder(*args, **kwargs):
        raise AssertionError("the encoder was loaded although make data had cached the vectors")

    monkeypatch.setattr(baselines, "_encode", no_encoder)  # either runtime
    read = encode_items(items, cache_dir=tmp_path, progress=False)
    assert read.shape == (3, 384)
    with pytest.raises(AssertionError, match="encoder was loaded"):
        encode_items(_items(4), cache_dir=tmp_path, progress=False)  # other items: not cached


def test_a_subsample_is_sliced_from_the_whole_cache_else_encoded_alone(tmp_path, monkeypatch):
    from mmlu_audit.features import baselines

    items, rows = _items(5), np.array([3, 0])
    alone = encode_items(items, cache_dir=tmp_path, progress=False, rows=rows)
    assert alone.shape == (2, 384) and len(list(tmp_path.glob("minilm-*.npy"))) == 1  # the 2 rows' entry
    whole = encode_items(items, cache_dir=tmp_path, progress=False)
    np.testing.assert_allclose(alone, whole[rows], atol=1e-5)  # same vectors, other batches

    def no_encoder(*args, **kwargs):
        raise AssertionError("the encoder was loaded although all items were cached")

    monkeypatch.setattr(baselines, "_encode", no_encoder)
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
    baselines.encode_items(items, cache=False, progress=False, threads=1, runtime="torch")
    baselines.encode_items(items, cache=False, progress=False, runtime="torch")
    assert seen == [1, encoder_threads()] and torch.get_num_threads() == before


def test_onnx_sessions_get_the_encoder_threads(monkeypatch):
    from mmlu_audit.features import baselines, encoder_threads

    seen = []
    real_session = baselines._onnx_session

    def spy(model, threads):
        seen.append(threads)
        return real_session(model, threads)

    monkeypatch.setattr(baselines, "_onnx_session", spy)
    items = _items(2)
    baselines.encode_items(items, cache=False, progress=False, threads=1, runtime="onnx")
    baselines.encode_items(items, cache=False, progress=False, runtime="onnx")
    assert seen == [1, encoder_threads()]


def test_openvino_runs_one_stream_per_encoder_thread(monkeypatch):
    from mmlu_audit.features import baselines, encoder_threads

    seen = []
    real_model = baselines._openvino_model

    def spy(model, threads):
        compiled = real_model(model, threads)
        settings = ("NUM_STREAMS", "INFERENCE_NUM_THREADS")
        seen.append((threads, *(compiled.get_property(name) for name in settings)))
        return compiled

    monkeypatch.setattr(baselines, "_openvino_model", spy)
    items = _items(5)
    one = baselines.encode_items(items, cache=False, progress=False, threads=1, batch_size=2)
    both = baselines.encode_items(items, cache=False, progress=False, batch_size=2)
    n = encoder_threads()
    assert seen == [(1, 1, 1), (n, n, n)]
    # a batch runs on one thread, whichever stream takes it: the streams change no vector
    np.testing.assert_array_equal(one, both)


def test_openvino_precision_is_openvinos_default_and_keys_the_cache():
    from mmlu_audit.features import baselines, openvino_precision

    default = baselines._openvino_core().get_property("CPU", "INFERENCE_PRECISION_HINT").get_type_name()
    assert default in ("bf16", "f32", "f16")
    assert openvino_precision() == ("bf16" if default == "bf16" else "f32")
    compiled = baselines._openvino_model(baselines._onnx_model(baselines._encoder_path()), 1)
    assert compiled.get_property("INFERENCE_PRECISION_HINT").get_type_name() == openvino_precision()
    texts = item_texts(_items(2))
    assert baselines._encoder_key(texts, "openvino") != baselines._encoder_key(texts, "onnx")


def _real_sample(items: pd.DataFrame, n_random: int = 45, n_longest: int = 5) -> pd.DataFrame:
    """A seeded sample of real items plus the longest ones (past the 256-word-piece limit)."""
    lengths = pd.Series([len(text) for text in item_texts(items)], index=items.index)
    longest = items.loc[lengths.nlargest(n_longest).index]
    rest = items.drop(index=longest.index).sample(n_random, random_state=20261207)
    return pd.concat([rest, longest])


@pytest.fixture(scope="module")
def torch_sample_vectors(items):
    """sentence-transformers' float32 vectors of :func:`_real_sample`, the reference of every runtime."""
    sample = _real_sample(items)
    return sample, encode_items(sample, cache=False, progress=False, runtime="torch")


@pytest.mark.parametrize("runtime", ["onnx", "openvino"])
def test_runtime_embeddings_agree_with_torch_on_real_items(runtime, torch_sample_vectors):
    """The ONNX export, its tokenisation and mean pooling give sentence-transformers' vectors.

    Measured, smallest cosine over such samples: 0.9999999 with onnxruntime (float32 rounding;
    the largest absolute difference ~2e-7), 0.99997 with OpenVINO where it computes in bfloat16
    (1,500 random items; 0.9999998 in float32); 0.9999 is the issue's bar. The five longest
    items are truncated at 256 word pieces by every runtime.
    """
    sample, torch = torch_sample_vectors
    vectors = encode_items(sample, cache=False, progress=False, runtime=runtime)
    assert vectors.shape == torch.shape == (50, 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    cosines = (vectors * torch).sum(axis=1) / np.linalg.norm(vectors, axis=1) / np.linalg.norm(torch, axis=1)
    assert cosines.min() >= 0.9999, f"smallest cosine {cosines.min():.6f} (item {cosines.argmin()})"


def test_the_onnx_export_is_cached_and_reused(monkeypatch):
    from mmlu_audit.features import baselines

    path = baselines._encoder_path()
    first = baselines._onnx_model(path)  # exported here unless an earlier test did
    monkeypatch.setattr(baselines, "_export_onnx", lambda _p: pytest.fail("exported twice"))
    assert baselines._onnx_model(path) == first
    (entry,) = (baselines.cache_root() / "encoder").glob("minilm-*.onnx")
    assert entry.with_suffix(".json").exists() and not list(entry.parent.glob(".*.tmp"))


def test_the_runtime_is_in_the_embeddings_key(tmp_path, monkeypatch):
    from mmlu_audit.features import baselines

    items = _items(3)
    texts = item_texts(items)
    assert baselines._encoder_key(texts, "onnx") != baselines._encoder_key(texts, "torch")
    made = []

    def fake(texts, model_path, batch_size, progress, threads, runtime):  # one constant per runtime
        made.append(runtime)
        return np.full((len(texts), 384), ENCODER_RUNTIMES.index(runtime) + 1.0, dtype=np.float32)

    monkeypatch.setattr(baselines, "_encode", fake)
    for _ in range(2):
        for runtime in ENCODER_RUNTIMES:
            vectors = encode_items(items, cache_dir=tmp_path, progress=False, runtime=runtime)
            assert np.all(vectors == ENCODER_RUNTIMES.index(runtime) + 1.0)
    assert made == list(ENCODER_RUNTIMES)
    assert len(list(tmp_path.glob("minilm-*.npy"))) == len(ENCODER_RUNTIMES)


@pytest.mark.parametrize("runtime", ["tensorflow", "ONNX", None, ["onnx"]])
def test_a_bad_runtime_is_one_clear_error_before_any_work(runtime, tmp_path, monkeypatch):
    from mmlu_audit.core.errors import ParameterError
    from mmlu_audit.features import baselines

    monkeypatch.setattr(baselines, "_encode", lambda *_a: pytest.fail("encoded"))
    with pytest.raises(ParameterError,
                       match=r"^runtime: unknown encoder runtime .*one of 'openvino', 'onnx', 'torch'"):
        encode_items(_items(2), cache_dir=tmp_path, progress=False, runtime=runtime)
    assert not list(tmp_path.iterdir())


def test_mean_pool_ignores_padding_and_normalises():
    hidden = np.array([[[1.0, 0.0], [3.0, 4.0], [100.0, 100.0]],
                       [[0.0, 2.0], [0.0, 0.0], [0.0, 0.0]]], dtype=np.float32)
    mask = np.array([[1, 1, 0], [0, 0, 0]])
    pooled = mean_pool(hidden, mask)
    np.testing.assert_allclose(pooled[0], np.array([2.0, 2.0]) / np.sqrt(8.0), rtol=1e-6)
    np.testing.assert_array_equal(pooled[1], [0.0, 0.0])  # no tokens: zeros, not NaN
    assert pooled.dtype == np.float32


def test_the_onnx_runtime_refuses_a_model_it_does_not_reproduce(tmp_path):
    import json
    import shutil

    from mmlu_audit.core.errors import DataError
    from mmlu_audit.features import baselines

    bundled = baselines._encoder_path()
    assert baselines._max_seq_length(bundled) == 256
    for name in ("modules.json", "sentence_bert_config.json", "1_Pooling/config.json"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        shutil.copy(bundled / name, tmp_path / name)
    pooling = json.loads((tmp_path / "1_Pooling/config.json").read_text())
    pooling.update(pooling_mode_mean_tokens=False, pooling_mode_cls_token=True)
    (tmp_path / "1_Pooling/config.json").write_text(json.dumps(pooling))
    with pytest.raises(DataError, match="pooling_mode_cls_token.*use runtime='torch'"):
        baselines._max_seq_length(tmp_path)


@pytest.mark.parametrize("runtime", ENCODER_RUNTIMES)
def test_no_items_give_no_vectors_and_load_no_model(runtime, monkeypatch):
    from mmlu_audit.features import baselines

    monkeypatch.setattr(baselines, "_onnx_model", lambda _p: pytest.fail("exported or loaded the model"))
    monkeypatch.setattr(baselines, "_encode_torch", lambda *_a: pytest.fail("loaded torch's model"))
    vectors = encode_items(_items(0), cache=False, progress=False, runtime=runtime)
    assert vectors.shape == (0, 384) and vectors.dtype == np.float32
