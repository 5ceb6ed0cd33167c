"""FTS5 query building: safe quoting and pruning of terms that match almost everything."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence

import snowballstemmer

_WORD = re.compile(r"\w+", re.UNICODE)
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "do",
        "does",
        "did",
        "for",
        "from",
        "has",
        "have",
        "how",
        "i",
        "in",
        "is",
        "it",
        "of",
        "on",
        "or",
        "the",
        "to",
        "was",
        "what",
        "when",
        "where",
        "which",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "you",
        "your",
        "my",
        "me",
    ]
)


def query_words(text: str) -> list[str]:
    """Distinct lowercase content words of a query, in order."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.lower()):
        if word not in _STOPWORDS:
            seen.setdefault(word, None)
    return list(seen)


def match_expression(words: Sequence[str]) -> str:
    """An FTS5 OR-query; each word quoted so no query syntax leaks through."""
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in words)


class DocFrequencies:
    """Per-term document counts from the fts5vocab table, cached while the store is stable.

    The memories_fts table uses the porter tokenizer, so vocabulary terms are
    stems; query words are stemmed with the same (Porter) algorithm to look them
    up. A word whose stem is not found counts as rare and stays in the query.
    """

    def __init__(self, refresh_share: float, min_docs: int) -> None:
        self._stemmer = snowballstemmer.stemmer("porter")
        self._refresh_share = refresh_share
        self._min_docs = min_docs
        self._cache: dict[str, int] = {}
        self._total_at_fill = 0
        self._lock = threading.Lock()

    def prune(
        self,
        words: Sequence[str],
        *,
        total_docs: int,
        max_share: float,
        lookup: Callable[[Sequence[str]], dict[str, int]],
    ) -> list[str]:
        """The words worth searching for: those in at most ``max_share`` of all docs."""
        if not words or total_docs < max(self._min_docs, 1):
            return list(words)
        stems = dict(zip(words, self._stemmer.stemWords(list(words)), strict=True))
        with self._lock:
            grown = abs(total_docs - self._total_at_fill) > self._refresh_share * max(
                self._total_at_fill, 1
            )
            if grown:
                self._cache.clear()
                self._total_at_fill = total_docs
            missing = [s for s in set(stems.values()) if s not in self._cache]
            if missing:
                found = lookup(missing)
                for stem in missing:
                    self._cache[stem] = found.get(stem, 0)
            counts = {w: self._cache[stems[w]] for w in words}
        limit = max_share * total_docs
        return [w for w in words if counts[w] <= limit]
