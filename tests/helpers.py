"""Test-side helpers that are not fixtures."""

from __future__ import annotations

import os
import re
import signal
import subprocess
from collections.abc import Iterator, Sequence

from mmlu_audit.features.parse import PARSE_SCHEMA, ParsedDoc, _safe_key

#: Seconds a process gets to print its stacks (faulthandler) before it is killed.
_DUMP_GRACE_S = 10


class Stalled(AssertionError):
    """A command outlived its deadline (an AssertionError, so pytest reports a failed test)."""


def run_bounded(cmd: list[str], timeout_s: float, **kwargs) -> subprocess.CompletedProcess:
    """``subprocess.run`` with a deadline that ends the whole process tree and says where it was.

    The command runs in a process group of its own with Python's faulthandler on. On expiry
    the group is sent SIGABRT, so each Python process in it prints its stacks; the group is
    then killed and :class:`Stalled` is raised with the tail of what was printed. (Jupyter
    kernels and Playwright's browser run in sessions of their own and exit when their parent
    does.) A plain ``subprocess.run(timeout=...)`` would kill only the child.
    """
    env = {**kwargs.pop("env", os.environ), "PYTHONFAULTHANDLER": "1"}
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          stdin=subprocess.DEVNULL, start_new_session=True, env=env, **kwargs) as proc:
        try:
            stdout, stderr = proc.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            _signal_group(proc.pid, signal.SIGABRT)
            try:
                stdout, stderr = proc.communicate(timeout=_DUMP_GRACE_S)
            except subprocess.TimeoutExpired:
                _signal_group(proc.pid, signal.SIGKILL)
                stdout, stderr = proc.communicate()
            _signal_group(proc.pid, signal.SIGKILL)  # anything the command left behind
            raise Stalled(f"{' '.join(map(str, cmd))} did not finish within {timeout_s:g} s.\n"
                          f"--- stdout (tail) ---\n{stdout[-4000:]}\n"
                          f"--- stderr (tail) ---\n{stderr[-8000:]}") from None
    return subprocess.CompletedProcess(cmd, proc.returncode, stdout, stderr)


def _signal_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except ProcessLookupError:  # the group has already gone
        pass


class WhitespaceBackend:
    """A dependency-free toy parser backend for tests (not for analysis).

    Tokens are ``\\w+`` runs and single punctuation marks; sentences end at
    ``.``, ``?`` or ``!``; each token's head is the preceding token (the first
    token of a sentence is its root); POS is ``NUM``, ``PUNCT``, ``PROPN``
    (capitalised, not sentence-initial) or ``NOUN``; lemmas are lower-case
    forms; there are no entities.

    Parameters
    ----------
    version : str
        Reported as the model version (lets tests simulate a model upgrade).
    """

    name = "whitespace"
    _TOKEN = re.compile(r"\w+|[^\w\s]")

    def __init__(self, version: str = "1"):
        self.version = version
        self.calls = 0

    @property
    def cache_key(self) -> str:
        return _safe_key(self.name, self.version, f"schema{PARSE_SCHEMA}")

    @property
    def provenance(self) -> dict:
        return {"backend": self.name, "model": "regex", "model_version": self.version,
                "library_version": "none", "parse_schema": PARSE_SCHEMA}

    def pipe(self, texts: Sequence[str], batch_size: int = 64) -> Iterator[ParsedDoc]:
        for text in texts:
            self.calls += 1
            yield self.parse(text)

    def parse(self, text: str) -> ParsedDoc:
        """Parse one text."""
        sentences: list[list[tuple]] = [[]]
        offsets = []
        for match in self._TOKEN.finditer(text):
            token, sentence = match.group(), sentences[-1]
            sentence.append((token, token.lower(), _toy_upos(token, not sentence),
                             len(sentence), "dep" if sentence else "root"))
            offsets.append(match.start())
            if token in ".?!":
                sentences.append([])
        doc = ParsedDoc.from_sentences([s for s in sentences if s])
        return ParsedDoc(text=text, tokens=doc.tokens, offsets=tuple(offsets),
                         lemmas=doc.lemmas, upos=doc.upos, heads=doc.heads,
                         deprels=doc.deprels, sentence_ids=doc.sentence_ids)


def _toy_upos(token: str, first: bool) -> str:
    if token.isdigit():
        return "NUM"
    if not token[0].isalnum():
        return "PUNCT"
    return "PROPN" if token[0].isupper() and not first else "NOUN"
