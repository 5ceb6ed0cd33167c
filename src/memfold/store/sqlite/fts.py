"""FTS5 query building: a scope's token, the scope's own terms, safe quoting, and pruning
of terms that match almost every memory of the scope."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

from memfold.index.bm25 import Stemmer

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


# The SQL function schema migration 12 computes the ``fts_terms`` column with (registered
# on every connection, store/sqlite/connection.py). The index deletes a row's terms by
# computing them again from the old text: what it returns for a text must never change
# (a change needs a migration that rebuilds the index, under a new name).
SCOPE_TERMS_SQL_FUNCTION = "memfold_scope_terms"
_SCOPE_TERMS_STEMMER = Stemmer()


def _scope_prefix(scope_key: str) -> str:
    return "t" + hashlib.blake2b(scope_key.encode("utf-8"), digest_size=8).hexdigest()


def scope_term(scope_key: str, stem: str) -> str:
    """One stem as the scope's own FTS5 term: 't' + 16 hex digits of the scope key's hash
    + the stem + '0' (ending in a digit, so the porter tokenizer leaves it whole). Two
    scopes sharing a hash would share terms; searches still check the scope key."""
    return f"{_scope_prefix(scope_key)}{stem}0"


def scope_terms(scope_key: str | None, text: str | None) -> str:
    """The ``fts_terms`` of a memory: each distinct stem of its text (the stems BM25
    scoring uses, ``memfold.index.bm25.Stemmer``) as a term of its scope only. A scope's
    search then reads doclists holding that scope's memories alone, whatever the rest
    of the file holds: in a file shared by many tenants, a doclist of the text column
    spans every tenant and FTS5 steps through it for each of the tenant's rows."""
    if not scope_key or not text:
        return ""
    prefix = _scope_prefix(scope_key)
    return " ".join(f"{prefix}{stem}0" for stem in dict.fromkeys(_SCOPE_TERMS_STEMMER.terms(text)))


def scope_terms_match(scope_key: str, stems: Sequence[str], exclude: Sequence[str] = ()) -> str:
    """An FTS5 query for the memories of one scope holding any of ``stems`` (and none of
    ``exclude``), by the scope's own terms (``scope_terms``)."""
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
