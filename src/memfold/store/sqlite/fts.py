"""FTS5 query building: a scope's token, the scope's own terms, safe quoting, and pruning
of terms that match almost every memory of the scope."""

from __future__ import annotations

import re
from collections.abc import Sequence

from memfold.store.sqlite.scope_terms import scope_prefix

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


def scope_token(scope_key: str) -> str:
    """The token the ``fts_scope`` column holds for a scope (schema migration 7 computes
    it in SQL as 'k' || hex(scope_key) || '0'; FTS5 folds case, so hex case is moot)."""
    return "k" + scope_key.encode("utf-8").hex() + "0"


def scope_term(scope_key: str, stem: str) -> str:
    """One stem as the scope's own FTS5 term, as ``scope_terms`` indexes it
    (store/sqlite/scope_terms.py)."""
    return f"{scope_prefix(scope_key)}{stem}0"


def scope_terms_match(scope_key: str, stems: Sequence[str], exclude: Sequence[str] = ()) -> str:
    """An FTS5 query for the memories of one scope holding any of ``stems`` (and none of
    ``exclude``), by the scope's own terms (store/sqlite/scope_terms.py)."""
    expr = " OR ".join(_quoted(scope_term(scope_key, s)) for s in stems)
    if exclude:
        expr = f"({expr}) NOT ({' OR '.join(_quoted(scope_term(scope_key, s)) for s in exclude)})"
    return expr


def _quoted(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'


def scoped_match(scope_key: str, words: Sequence[str], exclude: Sequence[str] = ()) -> str:
    """An FTS5 query for the memories of one scope holding any of ``words`` (and none of
    ``exclude``); each word quoted so no query syntax leaks through. The scope's token
    comes first, so FTS5 intersects with the scope's rows instead of the file's. The
    words carry no column filter (checking one reads every position list: about a
    fifth slower); the only other column holds the scope's own token."""
    terms = " OR ".join(_quoted(w) for w in words)
    expr = f"fts_scope : {_quoted(scope_token(scope_key))} AND ({terms})"
    if exclude:
        expr = f"({expr}) NOT ({' OR '.join(_quoted(w) for w in exclude)})"
    return expr


def prune_common(
    words: Sequence[str],
    doc_counts: Sequence[int],
    *,
    total_docs: int,
    max_share: float,
    min_docs: int,
) -> list[str]:
    """The words worth searching for: in a scope of at least ``min_docs`` memories,
    those in at most ``max_share`` of them (``doc_counts``: each word's memories in the
    scope). A word in almost every memory makes the search touch every row for almost
    no information."""
    if total_docs < max(min_docs, 1):
        return list(words)
    limit = max_share * total_docs
    return [w for w, n in zip(words, doc_counts, strict=True) if n <= limit]
