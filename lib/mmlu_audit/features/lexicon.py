"""The cognitive lexicon: which tokens are operational, and with what weight.

The lexicon ships as ``lexicon.json`` beside this module: 13 lexical
categories plus one symbolic-operator class, each with members, a weight tier
and a one-line grounding. Category membership and tier weights are separate,
so a robustness analysis perturbs a :class:`TierTable` without re-matching any
token. :func:`match_categories` labels each token of a parse with the first
category (in lexicon order) that claims it, or ``None``.

Symbols are found on the raw text, not on tokens, because tokenisers split
LaTeX commands unpredictably; each hit is assigned to the token that covers
its character offset. ASCII ``-`` and ``/`` count as operators only between
operand-like neighbours (digits, one- or two-letter variables, brackets), so
``well-known`` and ``and/or`` stay words.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from types import MappingProxyType
from collections.abc import Mapping, Sequence

import pandas as pd

from mmlu_audit.features.parse import ParsedDoc

__all__ = [
    "Lexicon",
    "TierTable",
    "load_lexicon",
    "default_tiers",
    "match_categories",
    "lexicon_table",
    "TOP_TIER",
]

TOP_TIER = "T8"
_ALWAYS_OPERATORS = {"+", "*", "^", "=", "<", ">", "<=", ">=", "!="}
_OPERAND_OPERATORS = {"-", "/"}
# Two-letter words that read as prose, not variables ("I/me/my", "he-or-she").
_PROSE_PAIRS = frozenset("me my he we us or of to in on it is an as at by be do go no so up "
                         "if am or ok oh".split())


class TierTable(Mapping[str, float]):
    """An immutable mapping tier name → weight (``T1`` … ``T8``).

    Parameters
    ----------
    weights : mapping of str to float
        Weight of each tier; weights must be finite and non-negative.
    """

    def __init__(self, weights: Mapping[str, float]):
        clean = {str(k): float(v) for k, v in weights.items()}
        if any(not (v >= 0.0 and v < float("inf")) for v in clean.values()):
            raise ValueError(f"tier weights must be finite and non-negative: {clean}")
        self._weights = MappingProxyType(dict(sorted(clean.items())))

    def __getitem__(self, tier: str) -> float:
        return self._weights[tier]

    def __iter__(self):
        return iter(self._weights)

    def __len__(self) -> int:
        return len(self._weights)

    def __repr__(self) -> str:
        return f"TierTable({dict(self._weights)})"

    def with_weight(self, tier: str, weight: float) -> TierTable:
        """Return a copy with one tier's weight replaced (for perturbation studies)."""
        if tier not in self._weights:
            raise KeyError(f"unknown tier {tier!r}; tiers are {list(self._weights)}")
        return TierTable({**self._weights, tier: weight})

    def shifted(self, tier: str, delta: float, floor: float = 0.0) -> TierTable:
        """Return a copy with ``tier`` moved by ``delta`` (clipped below at ``floor``)."""
        return self.with_weight(tier, max(floor, self._weights[tier] + delta))

    def digest(self) -> str:
        """Short sha256 of the weights, for cache keys."""
        return hashlib.sha256(json.dumps(dict(self._weights)).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class _Category:
    name: str
    kind: str
    match: str
    tier: str
    logical_scope: bool
    words: Mapping[str, frozenset[str] | None]
    phrases: tuple[tuple[str, ...], ...]
    member_tiers: Mapping[str, str]
    members: frozenset[str]


class Lexicon:
    """The cognitive lexicon (categories, members, default tiers).

    Parameters
    ----------
    spec : dict
        The parsed JSON document (see ``lexicon.json``).
    """

    def __init__(self, spec: dict):
        self.spec = copy.deepcopy(spec)
        self.tiers = TierTable({k: v["weight"] for k, v in spec["tiers"].items()})
        self.categories = tuple(_compile_category(c) for c in spec["categories"])
        self._by_name = {c.name: c for c in self.categories}
        self._symbol_pattern = _symbol_regex(self.symbolic)
        self._word_index = _word_index(self.categories)
        self._phrase_index = _phrase_index(self.categories)
        tier_order = list(self.tiers)
        self._tier_rank = {t: tier_order.index(t) for t in tier_order}

    @property
    def symbolic(self) -> _Category:
        """The symbolic-operator class."""
        return next(c for c in self.categories if c.kind == "symbolic")

    @property
    def hash(self) -> str:
        """sha256 of the canonical JSON (members, tiers, order): the cache key component."""
        canonical = json.dumps(self.spec, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    @property
    def version(self) -> str:
        return str(self.spec.get("version", "unversioned"))

    def category(self, name: str) -> _Category:
        """Return a category by name."""
        return self._by_name[name]

    def tier_of(self, label: str) -> str:
        """Tier of a match label: a category name or ``symbolic_operator:<member>``."""
        name, _, member = label.partition(":")
        category = self._by_name[name]
        return category.member_tiers.get(member, category.tier) if member else category.tier

    def scope_categories(self) -> frozenset[str]:
        """Names of the categories flagged ``logical_scope`` (scope-bearing operators)."""
        return frozenset(c.name for c in self.categories if c.logical_scope)

    def with_members(self, category: str, members: Sequence[str]) -> Lexicon:
        """Return a copy with extra members added to one category (for tests and ablations)."""
        spec = copy.deepcopy(self.spec)
        entry = next(c for c in spec["categories"] if c["name"] == category)
        entry["members"] = list(entry["members"]) + list(members)
        return Lexicon(spec)


def _compile_category(entry: dict) -> _Category:
    """Turn one JSON category into a matcher record."""
    words: dict[str, set[str] | None] = {}
    if entry["match"] == "words":
        for member in entry["members"]:
            word, _, pos = member.lower().partition("|")
            if pos:
                current = words.get(word, set())
                if current is not None:
                    words[word] = current | {pos.upper()}
            else:
                words[word] = None
    return _Category(
        name=entry["name"], kind=entry["kind"], match=entry["match"], tier=entry["tier"],
        logical_scope=bool(entry.get("logical_scope", False)),
        words=MappingProxyType({k: (frozenset(v) if v is not None else None)
                                for k, v in words.items()}),
        phrases=tuple(tuple(p.lower().split()) for p in entry.get("phrases", ())),
        member_tiers=MappingProxyType(dict(entry.get("member_tiers", {}))),
        members=frozenset(entry["members"]),
    )


def _word_index(categories: Sequence[_Category]) -> dict[str, tuple]:
    """word → ((precedence, category name, allowed UPOS or None), ...) in lexicon order."""
    index: dict[str, list] = {}
    for rank, category in enumerate(categories):
        for word, allowed in category.words.items():
            index.setdefault(word, []).append((rank, category.name, allowed))
    return {word: tuple(entries) for word, entries in index.items()}


def _phrase_index(categories: Sequence[_Category]) -> dict[str, tuple]:
    """first word → ((phrase tokens, category name), ...), longest phrase first."""
    index: dict[str, list] = {}
    for category in categories:
        for phrase in category.phrases:
            index.setdefault(phrase[0], []).append((phrase, category.name))
    return {w: tuple(sorted(v, key=lambda item: -len(item[0]))) for w, v in index.items()}


def _symbol_regex(category: _Category) -> re.Pattern:
    """One alternation over LaTeX commands, Unicode operators and ASCII operators."""
    members = sorted(_symbolic_members(category), key=len, reverse=True)
    parts = []
    for m in members:
        escaped = re.escape(m)
        parts.append(escaped + r"(?![A-Za-z])" if m.startswith("\\") else escaped)
    return re.compile("|".join(parts))


def _symbolic_members(category: _Category) -> list[str]:
    return list(category.members | _ALWAYS_OPERATORS | _OPERAND_OPERATORS)


@lru_cache(maxsize=1)
def _packaged_spec() -> str:
    return resources.files(__package__).joinpath("lexicon.json").read_text(encoding="utf-8")


def load_lexicon(path: str | None = None) -> Lexicon:
    """Load the packaged lexicon (or a JSON file at ``path``).

    Returns
    -------
    Lexicon
    """
    text = _packaged_spec() if path is None else open(path, encoding="utf-8").read()
    return Lexicon(json.loads(text))


def default_tiers() -> TierTable:
    """The packaged tier table (T1 = 0.5 … T8 = 5.0)."""
    return load_lexicon().tiers


def lexicon_table(lexicon: Lexicon | None = None) -> pd.DataFrame:
    """One row per category: name, kind, tier, default weight, member count, grounding."""
    lexicon = lexicon or load_lexicon()
    rows = []
    for entry in lexicon.spec["categories"]:
        rows.append({"category": entry["name"], "kind": entry["kind"], "tier": entry["tier"],
                     "weight": lexicon.tiers[entry["tier"]],
                     "n_members": len(entry["members"]) + len(entry.get("phrases", [])),
                     "logical_scope": bool(entry.get("logical_scope", False)),
                     "grounding": entry["grounding"]})
    return pd.DataFrame(rows)


def match_categories(doc: ParsedDoc, lexicon: Lexicon) -> list[str | None]:
    """Label each token with its lexicon category, or ``None`` if not operational.

    Order of precedence: symbolic operators found on the raw text, then the
    lexical categories in lexicon order (multi-word phrases before single
    words within the whole lexical pass). Symbol labels carry the member,
    ``"symbolic_operator:\\int"``, so that member-specific tiers apply; a token
    with several symbols keeps the one on the highest default tier.

    Parameters
    ----------
    doc : ParsedDoc
    lexicon : Lexicon

    Returns
    -------
    list of str or None
        One label per token.
    """
    labels: list[str | None] = [None] * len(doc)
    _label_symbols(doc, lexicon, labels)
    claimed = _label_phrases(doc, lexicon, labels)
    in_entity = _entity_mask(doc)
    for i in range(len(doc)):
        if labels[i] is None and i not in claimed:
            labels[i] = _word_category(doc, i, lexicon, in_entity[i])
    return labels


def _label_symbols(doc: ParsedDoc, lexicon: Lexicon, labels: list[str | None]) -> None:
    """Assign symbol hits on the raw text to the tokens covering them."""
    category = lexicon.symbolic
    for hit in lexicon._symbol_pattern.finditer(doc.text):
        symbol = hit.group()
        if symbol in _OPERAND_OPERATORS and not _between_operands(doc.text, hit.start(), hit.end()):
            continue
        token = bisect_right(doc.offsets, hit.end() - 1) - 1
        if token < 0:
            continue
        label = f"{category.name}:{symbol}"
        current = labels[token]
        if current is None or _rank(lexicon, label) > _rank(lexicon, current):
            labels[token] = label


def _rank(lexicon: Lexicon, label: str) -> int:
    return lexicon._tier_rank[lexicon.tier_of(label)]


_OPERAND_CHAR = re.compile(r"[0-9A-Za-z()\[\]{}.]")
_ASCII_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


def _between_operands(text: str, start: int, end: int) -> bool:
    """True when ``-`` or ``/`` at text[start:end] sits between operand-like neighbours.

    Each neighbour (spaces skipped) must be a digit or bracket, or end a letter run
    of at most two letters that is not a short English word (``x``, ``dx``, but not
    ``me``), so ``well-known``, ``and/or`` and ``I/me/my`` stay words.

    It looks only at the neighbourhood of the hit (no slice or search of the whole text),
    so a stem of N hits costs O(N), not O(N²).
    """
    left, right = start, end
    while left > 0 and text[left - 1].isspace():
        left -= 1
    while right < len(text) and text[right].isspace():
        right += 1
    if left == 0 or right == len(text):
        return False
    if not (_OPERAND_CHAR.match(text[left - 1]) and _OPERAND_CHAR.match(text[right])):
        return False
    return _operand_run(_letter_run(text, left, -1)) and _operand_run(_letter_run(text, right, 1))


def _letter_run(text: str, at: int, step: int) -> str:
    """The ASCII letters running from ``at`` (leftwards before it, or rightwards from it), cut at
    three: a run longer than two letters is never an operand, whatever its length."""
    letters = []
    k = at - 1 if step < 0 else at
    while 0 <= k < len(text) and text[k] in _ASCII_LETTERS and len(letters) < 3:
        letters.append(text[k])
        k += step
    return "".join(reversed(letters)) if step < 0 else "".join(letters)


def _operand_run(letters: str) -> bool:
    """An adjacent letter run that can be a variable: empty (digit/bracket), or 1–2 letters."""
    return len(letters) <= 2 and letters.lower() not in _PROSE_PAIRS


def _label_phrases(doc: ParsedDoc, lexicon: Lexicon, labels: list[str | None]) -> set[int]:
    """Label multi-word phrases (left to right, longest first) on their first token.

    Returns
    -------
    set of int
        Every token a phrase consumed; only the first carries the label.
    """
    lowered = [t.lower() for t in doc.tokens]
    claimed: set[int] = set()
    for i, word in enumerate(lowered):
        if i in claimed or word not in lexicon._phrase_index:
            continue
        for phrase, name in lexicon._phrase_index[word]:
            span = range(i, i + len(phrase))
            if (tuple(lowered[i:i + len(phrase)]) == phrase
                    and all(labels[j] is None for j in span)):
                labels[i] = name
                claimed.update(span)
                break
    return claimed


def _entity_mask(doc: ParsedDoc) -> list[bool]:
    mask = [False] * len(doc)
    for start, end, _label in doc.entities:
        for i in range(start, end):
            mask[i] = True
    return mask


def _word_category(doc: ParsedDoc, i: int, lexicon: Lexicon, in_entity: bool) -> str | None:
    """First category in lexicon order claiming token ``i`` by word list, POS or entity span."""
    upos = doc.upos[i]
    best_rank, best_name = len(lexicon.categories), None
    for key in (doc.tokens[i].lower(), doc.lemmas[i].lower()):
        for rank, name, allowed in lexicon._word_index.get(key, ()):
            if rank < best_rank and (allowed is None or upos in allowed):
                best_rank, best_name = rank, name
    for category in lexicon.categories[:best_rank]:
        if category.match in ("upos", "upos+ner") and (
                upos in category.members
                or (category.match == "upos+ner" and in_entity and upos != "PUNCT")):
            return category.name
    return best_name
