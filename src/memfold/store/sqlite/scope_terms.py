"""A memory's scope terms: each distinct stem of its text as a term of its scope only,
the ``fts_terms`` column of the FTS5 index (schemas 12 and 13).

The FTS5 triggers and the content view ``memories_fts_content`` compute them through
the SQL function ``memfold_scope_terms`` on every insert, on every change of a text or
scope and on every delete, so this runs once per row written: ``Memory.add_many``
spends most of its extra CPU since schema 12 here. Hence the word-level cache, the
tokenizer without a regular expression for ASCII text, and no stemmer call for a
number (a new number in almost every text made the cache miss, ~50 us a stem).

The index deletes a row's terms by computing them again from the old text: what
``scope_terms`` returns for a text must never change (a change needs a migration that
rebuilds the index, under a new function name). The stems are those BM25 scores with
(``memfold.index.bm25.Stemmer``; tests/core/test_scope_terms_compute.py holds both
to the same output).
"""

from __future__ import annotations

import functools
import hashlib
import re
import threading
import unicodedata

import snowballstemmer

SCOPE_TERMS_SQL_FUNCTION = "memfold_scope_terms"

# Word-to-stem memo size: as memfold.index.bm25's (a few tens of MB when full, then
# emptied); numbers are never stored, so unique numbers cannot flush the words.
_STEM_CACHE_MAX = 200_000
# Scope prefixes kept; a miss costs one blake2b of the scope key (~1 us).
_PREFIX_CACHE_MAX = 4096

# An ASCII text's tokens are its runs of letters and digits: every other byte becomes
# a space and str.split() cuts there (4-5x faster than the regular expression below,
# which gives the same tokens for ASCII text).
_ASCII_WORD_BYTES = bytes(c if c < 128 and chr(c).isalnum() else 0x20 for c in range(256))
# Any other text: as bm25's tokens (letters and digits of any script, '_' excluded).
_UNICODE_WORD = re.compile(r"[^\W_]+", re.UNICODE)


@functools.lru_cache(maxsize=_PREFIX_CACHE_MAX)
def scope_prefix(scope_key: str) -> str:
    """'t' + 16 hex digits of the scope key's blake2b hash: each of the scope's terms is
    the prefix + a stem + '0' (ending in a digit, so the porter tokenizer leaves it
    whole; ``memfold.store.sqlite.fts.scope_term``). Two scopes sharing a hash would
    share terms; searches still check the scope key."""
    return "t" + hashlib.blake2b(scope_key.encode("utf-8"), digest_size=8).hexdigest()


class _StemCache(dict[str, str]):
    """Porter stems of lowercase words, computed on a miss (thread-safe: a dict read or
    write is atomic; each thread has its own snowball stemmer)."""

    def __init__(self) -> None:
        super().__init__()
        self._local = threading.local()

    def __missing__(self, word: str) -> str:
        if word.isdigit():
            # Porter rewrites letters only: a string without any is its own stem
            # (checked for every Unicode digit), and is not kept.
            return word
        stemmer = getattr(self._local, "stemmer", None)
        if stemmer is None:
            stemmer = self._local.stemmer = snowballstemmer.stemmer("porter")
        stem: str = stemmer.stemWord(word)
        if len(self) >= _STEM_CACHE_MAX:
            self.clear()
        self[word] = stem
        return stem


_STEMS = _StemCache()


def text_words(text: str) -> list[str]:
    """A text's lowercase word tokens, diacritics removed (as FTS5's unicode61 and
    ``memfold.index.bm25.Stemmer.terms``)."""
    lowered = text.lower()
    if lowered.isascii():
        return lowered.encode("ascii").translate(_ASCII_WORD_BYTES).decode("ascii").split()
    decomposed = unicodedata.normalize("NFKD", lowered)
    return _UNICODE_WORD.findall("".join(c for c in decomposed if not unicodedata.combining(c)))


def scope_terms(scope_key: str | None, text: str | None) -> str:
    """The ``fts_terms`` of a memory: each distinct stem of its text, in order, as a
    term of its scope only (``scope_prefix``), separated by spaces. A scope's search then
    reads doclists holding that scope's memories alone, whatever the rest of the file
    holds: in a file shared by many tenants, a doclist of the text column spans every
    tenant and FTS5 steps through it for each of the tenant's rows."""
    if not scope_key or not text:
        return ""
    stems = dict.fromkeys(map(_STEMS.__getitem__, text_words(text)))
    if not stems:
        return ""
    prefix = scope_prefix(scope_key)
    return prefix + ("0 " + prefix).join(stems) + "0"
