"""Model identity: normalised repo ids, distinct checkpoints, base family and size.

A leaderboard is not a designed sample: the same weights appear under several
names (mirrors, re-uploads, quantised copies) and many models are fine-tunes
of a few bases. This module gives the three labels the audit deduplicates by:

* :func:`normalise_repo_id` — one spelling per Hub repository;
* :func:`distinct_checkpoints` — models with identical response vectors or the
  same normalised id share a checkpoint label (union–find over both relations);
  :func:`first_of_each_checkpoint` keeps one row of each label;
* :func:`parse_family_size` / :func:`family_size_table` — base family and
  parameter count read from the model name.

Family keyword table
--------------------
The model part of the id (after the last ``/``, lower-cased) is searched for
the patterns of :data:`FAMILY_PATTERNS` **in order**; the first hit names the
family, so specific names precede general ones (``mixtral`` before
``mistral``, ``codellama``/``tinyllama``/``open-llama`` before ``llama-2``/
``llama-3`` before ``llama``; ``qwen1.5`` and ``qwen2`` before ``qwen``). A
fine-tune that carries its base in its name (``Nous-Hermes-Llama2-13b``,
``OpenHermes-2.5-Mistral-7B``) thereby gets the base family. Names without any
base keyword are looked up in :data:`KNOWN_BASES`, a short table of
fine-tune lines whose base is documented by their authors (``WizardLM-70B`` →
``llama-2``, ``zephyr-7b`` → ``mistral``…). Anything else is ``"unknown"``.

Sizes
-----
The first size token in the model part gives the size in billions:
``7b``/``13B``/``10.7B`` (billions), ``70m``/``3M`` (millions, so
``pythia-70m`` → 0.07 and ``TinyStories-3M`` → 0.003), BLOOM's ``7b1`` (7.1)
and Qwen's ``1_8B`` (1.8). Mixture-of-experts labels ``<n>x<m>b`` keep the
label (``8x7b``) and report *total* parameters: the published total for the
models in :data:`KNOWN_MOE` (Mixtral-8x7B 46.7B, Mixtral-8x22B 140.6B), else
the approximation ``m·(1 + (n−1)·0.78)``, where 0.78 is the expert-MLP share of
a Mistral-7B block (5.64B of 7.24B parameters are MLP); for merges such as
``Beyonder-4x7B`` it gives 23.4B against a true 24.2B. Names without a size token but with a
well-known fixed size (``gpt2-medium``, ``phi-2``) use :data:`KNOWN_SIZES`. Otherwise the size is
NaN. Nothing here raises on an unrecognised name.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from mmlu_audit.core.errors import DataError

__all__ = [
    "checkpoint_labels",
    "family_labels",
    "FAMILY_PATTERNS",
    "KNOWN_BASES",
    "KNOWN_MOE",
    "KNOWN_SIZES",
    "UNKNOWN",
    "distinct_checkpoints",
    "family_size_table",
    "first_of_each_checkpoint",
    "normalise_repo_id",
    "parse_family_size",
]

UNKNOWN = "unknown"
_MOE_MLP_SHARE = 0.78
# Excludes "llama-2.8b", "qwen-2b", "llama-20…" from the versioned families.
_NOT_A_SIZE = r"(?![0-9]|\.[0-9]|[bm](?![a-z]))"

FAMILY_PATTERNS: tuple[tuple[str, str], ...] = (
    (r"mixtral", "mixtral"),
    (r"mistral", "mistral"),
    (r"code[-_ ]?llama", "codellama"),
    (r"tiny[-_ ]?llama", "tinyllama"),
    (r"open[-_ ]?llama", "open-llama"),
    (rf"llama[-_ ]?3{_NOT_A_SIZE}", "llama-3"),
    (rf"llama[-_ ]?2{_NOT_A_SIZE}", "llama-2"),
    (r"llama", "llama"),
    (r"qwen[-_ ]?1[._]5", "qwen1.5"),
    (rf"qwen[-_ ]?2{_NOT_A_SIZE}", "qwen2"),
    (r"qwen", "qwen"),
    (r"(?<![a-z])yi(?![a-z])", "yi"),
    (r"solar", "solar"),
    (r"deepseek", "deepseek"),
    (r"falcon", "falcon"),
    (r"pythia", "pythia"),
    (r"tinystories", "tinystories"),
    (r"cerebras[-_ ]?gpt", "cerebras-gpt"),
    (r"gpt[-_ ]?neox", "gpt-neox"),
    (r"gpt[-_ ]?neo", "gpt-neo"),
    (r"gpt[-_ ]?j(?![a-z])", "gpt-j"),
    (r"(?<![a-z])distilgpt2", "distilgpt2"),
    (r"(?<![a-z])gpt[-_ ]?2", "gpt2"),
    (r"(?<![a-z])opt(?![a-z])", "opt"),
    (r"bloom", "bloom"),
    (r"(?<![a-z])mpt(?![a-z])", "mpt"),
    (r"(?<![a-z])phi(?![a-z])", "phi"),
    (r"gemma", "gemma"),
    (r"gemini", "gemini"),
    (r"stablelm", "stablelm"),
    (r"(?<![a-z])olmo(?![a-z])", "olmo"),
    (r"redpajama", "redpajama"),
    (r"internlm", "internlm"),
    (r"baichuan", "baichuan"),
    (r"starcoder", "starcoder"),
    (r"galactica", "galactica"),
    (r"(?<![a-z])rwkv", "rwkv"),
    (r"(?<![a-z])xglm", "xglm"),
)

KNOWN_BASES: tuple[tuple[str, str], ...] = (
    (r"wizardlm-(?:13b-v1\.2|70b)", "llama-2"),
    (r"wizardmath-\d+b-v1\.0", "llama-2"),
    (r"wizardlm-(?:7|13|30)b", "llama"),
    (r"vicuna-\d+b-v1\.5", "llama-2"),
    (r"vicuna", "llama"),
    (r"platypus2", "llama-2"),
    (r"orca_mini_v3", "llama-2"),
    (r"tulu-2", "llama-2"),
    (r"xwin-lm", "llama-2"),
    (r"zephyr-7b", "mistral"),
    (r"mathstral", "mistral"),
    (r"openhermes-2", "mistral"),
    (r"neural-chat-7b-v3", "mistral"),
    (r"openchat[-_]3\.5", "mistral"),
    (r"starling-lm-7b", "mistral"),
    (r"nous-capybara-34b", "yi"),
    (r"guanaco-\d+b", "llama"),
    (r"koala|alpaca", "llama"),
)

KNOWN_SIZES: tuple[tuple[str, str, float], ...] = (
    (r"distilgpt2", "82m", 0.082),
    (r"gpt[-_ ]?2[-_]xl", "1.5b", 1.5),
    (r"gpt[-_ ]?2[-_]large", "774m", 0.774),
    (r"gpt[-_ ]?2[-_]medium", "355m", 0.355),
    (r"(?<![a-z])gpt[-_ ]?2", "124m", 0.124),
    (r"(?<![a-z])phi[-_ ]?2(?![0-9.])", "2.7b", 2.7),
    (r"(?<![a-z])phi[-_ ]?1[._]5", "1.4b", 1.4),
    (r"(?<![a-z])phi[-_ ]?1(?![0-9._])", "1.3b", 1.3),
)

KNOWN_MOE: dict[tuple[str, str], float] = {
    ("mixtral", "8x7b"): 46.7,
    ("mixtral", "8x22b"): 140.6,
}

_MOE = re.compile(r"(?<![a-z0-9.])(\d+)x(\d+(?:\.\d+)?)([bm])(?![a-z0-9])")
_SIZE = re.compile(r"(?<![a-z0-9.])(\d+(?:[._]\d+)?)([bm])(\d?)(?![a-z0-9])")
_HUB_PREFIX = re.compile(r"^(?:https?://)?(?:www\.)?(?:huggingface\.co/)?(?:datasets/)?")


# ----------------------------------------------------------------------------- ids


def normalise_repo_id(model_id: str) -> str:
    """Return one canonical spelling of a Hub model id.

    Lower-cases, strips whitespace, a Hub URL prefix and a trailing ``/``, drops
    a revision suffix (``"@main"``, ``"@<sha>"``), and collapses a details repo
    (``"[org/]details_<owner>__<name>"``) or raw-cache folder name
    (``"<owner>__<name>"``, no ``/``) into ``"<owner>/<name>"``.

    Examples
    --------
    >>> normalise_repo_id(" Meta-Llama/Llama-2-7b-hf@main ")
    'meta-llama/llama-2-7b-hf'
    >>> normalise_repo_id("open-llm-leaderboard-old/details_tiiuae__falcon-7b")
    'tiiuae/falcon-7b'
    """
    text = _HUB_PREFIX.sub("", str(model_id).strip().lower()).split("@", 1)[0].strip().rstrip("/")
    last = text.rsplit("/", 1)[-1]
    if last.startswith("details_") and "__" in last:
        return last[len("details_"):].replace("__", "/", 1)
    if "/" not in text and "__" in text:
        return text.replace("__", "/", 1)
    return text


class _UnionFind:
    """Disjoint sets over 0..n-1 with path halving."""

    def __init__(self, n: int):
        self.parent = list(range(n))

    def find(self, k: int) -> int:
        while self.parent[k] != k:
            self.parent[k] = self.parent[self.parent[k]]
            k = self.parent[k]
        return k

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def _union_by_key(sets: _UnionFind, keys: Iterable) -> None:
    first: dict = {}
    for k, key in enumerate(keys):
        if key is not None:
            sets.union(first.setdefault(key, k), k)


def distinct_checkpoints(responses: np.ndarray, model_ids: Sequence[str], *,
                         min_observed: int = 1) -> np.ndarray:
    """Label models that are the same checkpoint.

    Two models share a label when their response vectors are identical
    (including which cells are missing) or their :func:`normalise_repo_id`
    spellings are equal; the relation is closed transitively (union–find).

    Parameters
    ----------
    responses : ndarray, shape (J, I)
        Responses with an explicit missing code (e.g. int8 with ``-1``).
    model_ids : sequence of str
        J model ids, in row order.
    min_observed : int
        Rows with fewer observed (non ``-1``) cells are never merged by response
        identity (an all-missing row says nothing about the weights).

    Returns
    -------
    ndarray of int, shape (J,)
        Labels ``0..G-1`` numbered in order of first appearance.

    Raises
    ------
    DataError
        If ``responses`` is not 2-D or its row count differs from ``len(model_ids)``.
    """
    responses = np.asarray(responses)
    if responses.ndim != 2 or responses.shape[0] != len(model_ids):
        raise DataError("responses", f"shape {responses.shape} does not match "
                        f"{len(model_ids)} model ids (expected J × I)")
    sets = _UnionFind(len(model_ids))
    observed = (responses != -1).sum(axis=1) if responses.size else np.zeros(len(model_ids))
    rows = np.ascontiguousarray(responses)
    _union_by_key(sets, (row.tobytes() if seen >= min_observed else None
                         for row, seen in zip(rows, observed, strict=True)))
    _union_by_key(sets, (normalise_repo_id(m) for m in model_ids))
    roots = [sets.find(k) for k in range(len(model_ids))]
    order = {root: label for label, root in enumerate(dict.fromkeys(roots))}
    return np.array([order[r] for r in roots], dtype=np.int64)


def checkpoint_labels(responses: np.ndarray, models: pd.DataFrame) -> np.ndarray:
    """Each model row's distinct-checkpoint label, from the source where it knows them.

    A simulated world records its checkpoints (``models["checkpoint"]``); for a real source
    they are inferred by :func:`distinct_checkpoints` (identical responses or one repository
    spelled twice). Used to split models into cohorts that share no checkpoint.

    Parameters
    ----------
    responses : ndarray, shape (J, I)
    models : DataFrame
        J rows with ``model_id`` (and ``checkpoint`` where the source records it).

    Returns
    -------
    ndarray of int, shape (J,)
    """
    if "checkpoint" in models.columns:
        return pd.factorize(models["checkpoint"])[0].astype(np.int64)
    if "model_id" not in models.columns:
        raise DataError("models", "needs a checkpoint or a model_id column to tell checkpoints apart")
    return distinct_checkpoints(responses, models["model_id"].astype(str).tolist())


def first_of_each_checkpoint(checkpoint) -> np.ndarray:
    """Mark the first row of every distinct checkpoint label, so each checkpoint counts once.

    Parameters
    ----------
    checkpoint : array-like, shape (J,)
        One checkpoint label per model row (:func:`checkpoint_labels`, a world's
        ``truth["checkpoint"]``); any labels ``np.unique`` can sort.

    Returns
    -------
    ndarray of bool, shape (J,)
        True at the lowest row index of each label, False at its later copies.

    Examples
    --------
    >>> first_of_each_checkpoint([3, 3, 1, 2, 1]).tolist()
    [True, False, True, True, False]
    """
    checkpoint = np.asarray(checkpoint)
    first = np.zeros(checkpoint.shape[0], dtype=bool)
    first[np.unique(checkpoint, return_index=True)[1]] = True
    return first


# ----------------------------------------------------------------------------- family and size


def _model_part(name: str) -> str:
    return normalise_repo_id(name).rsplit("/", 1)[-1]


def _family(part: str) -> str:
    for table in (FAMILY_PATTERNS, KNOWN_BASES):
        for pattern, family in table:
            if re.search(pattern, part):
                return family
    return UNKNOWN


def _label(value: float, unit: str) -> str:
    return f"{value:g}{unit}"


def _size(part: str, family: str) -> tuple[float, str]:
    """Return ``(size in billions, label)`` or ``(nan, "")``."""
    moe = _MOE.search(part)
    if moe:
        n, m = int(moe[1]), float(moe[2]) / (1000.0 if moe[3] == "m" else 1.0)
        label = f"{n}x{moe[2]}{moe[3]}"
        approx = round(m * (1 + (n - 1) * _MOE_MLP_SHARE), 1)
        return KNOWN_MOE.get((family, label), approx), label
    hit = _SIZE.search(part)
    if hit:
        value = float(hit[1].replace("_", ".") + (f".{hit[3]}" if hit[3] else ""))
        billions = value / 1000.0 if hit[2] == "m" else value
        return billions, _label(value, hit[2])
    for pattern, label, billions in KNOWN_SIZES:
        if re.search(pattern, part):
            return billions, label
    return math.nan, ""


def _family_size(name: str) -> tuple[str, float, str]:
    part = _model_part(name)
    family = _family(part)
    size_b, label = _size(part, family)
    return family, size_b, label


def parse_family_size(name: str) -> tuple[str, float]:
    """Return ``(base family, size in billions)`` read from a model name.

    See the module docstring for the keyword table and size rules. Never
    raises: an unrecognised family is ``"unknown"``, an unreadable size NaN.

    Examples
    --------
    >>> parse_family_size("meta-llama/Llama-2-7b-hf")
    ('llama-2', 7.0)
    >>> parse_family_size("EleutherAI/pythia-70m-deduped")
    ('pythia', 0.07)
    >>> parse_family_size("mistralai/Mixtral-8x7B-v0.1")
    ('mixtral', 46.7)
    """
    family, size_b, _ = _family_size(name)
    return family, size_b


def family_size_table(model_ids: Iterable[str]) -> pd.DataFrame:
    """Family and size of each model, one row per id in input order.

    Returns
    -------
    DataFrame
        ``model_id``, ``family``, ``size_b`` (float, NaN if unknown),
        ``size_label`` (``"7b"``, ``"70m"``, ``"8x7b"`` or ``""``) and ``group``:
        ``"<family>-<size_label>"`` when both are known, else ``"unknown"``.
    """
    rows = []
    for model_id in model_ids:
        family, size_b, label = _family_size(model_id)
        group = f"{family}-{label}" if family != UNKNOWN and label else UNKNOWN
        rows.append((model_id, family, size_b, label, group))
    table = pd.DataFrame(rows, columns=["model_id", "family", "size_b", "size_label", "group"])
    table["size_b"] = table["size_b"].astype(float)
    return table


def family_labels(responses: np.ndarray, models: pd.DataFrame) -> np.ndarray:
    """Each model row's base-family label: whole families, for cohorts that share no family.

    Two models share a label when their names give the same known family
    (:func:`family_size_table`) or they are one checkpoint (:func:`checkpoint_labels`); a model
    whose family is unknown is its own family unless it is a copy of another checkpoint. The
    family is read from the name only, so a fine-tune whose name hides its base stays apart.

    Parameters
    ----------
    responses : ndarray, shape (J, I)
    models : DataFrame
        J rows with ``model_id`` (and ``checkpoint`` where the source records it).

    Returns
    -------
    ndarray of int, shape (J,)
        Labels 0, 1, … in order of first appearance.
    """
    checkpoints = checkpoint_labels(responses, models)
    families = family_size_table(models["model_id"].astype(str))["family"].to_numpy()
    sets = _UnionFind(len(models))
    _union_by_key(sets, checkpoints)
    _union_by_key(sets, [f if f != UNKNOWN else None for f in families])
    roots = [sets.find(i) for i in range(len(models))]
    return pd.factorize(np.asarray(roots))[0].astype(np.int64)
