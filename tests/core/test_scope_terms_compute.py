"""The scope terms the FTS5 triggers index (store/sqlite/scope_terms.py) are computed
without bm25's tokenizer and stemmer calls since issue 14's add_many regression, but
must stay what schemas 12 and 13 indexed: each distinct BM25 stem of the text under the
scope's hash prefix. The index deletes a row's terms by computing them again, so a
different output for an old text would leave its terms behind."""

from __future__ import annotations

import hashlib

from memfold.index.bm25 import Stemmer
from memfold.model import Scope
from memfold.store.sqlite.fts import scope_term
from memfold.store.sqlite.scope_terms import scope_terms

TEXTS = [
    "Ana drinks green tea every morning",
    "Persona sentence 12345 about cooking pasta and books 96",
    "Ana's cats ran to Café Zoë at 7:30, twice!",
    "naïve résumé of the Straße in İstanbul",
    "ﬁnal x² Ⅳ ٣٤ cats and 123abc 0042",
    "snake_case __init__ e-mail O'Neil's (x+y)/2 = z",
    "tabs\tand\nnew lines\r\x0b\x0c\x1c\x1f between\u3000words\u200bhere",
    "中文 text, emoji 😀 and Ελληνικά λέξεις",
    "s",
    "it's",
    "   ",
    "!!!",
    "",
]
SCOPES = [Scope(user_id="ana").key(), Scope("u", "agent", "session-7").key(), "ü|ß|é"]


def _reference(scope_key: str, text: str) -> str:
    """Schema 12's definition, written out with bm25's own stemmer."""
    prefix = "t" + hashlib.blake2b(scope_key.encode("utf-8"), digest_size=8).hexdigest()
    return " ".join(f"{prefix}{stem}0" for stem in dict.fromkeys(Stemmer().terms(text)))


def test_the_terms_are_each_distinct_bm25_stem_under_the_scope_prefix() -> None:
    for scope_key in SCOPES:
        for text in TEXTS:
            assert scope_terms(scope_key, text) == _reference(scope_key, text), text
            # twice: the second answer comes from the word cache
            assert scope_terms(scope_key, text) == _reference(scope_key, text), text


def test_the_terms_of_a_text_never_change_and_match_the_search_terms() -> None:
    key = "user:ana"
    terms = scope_terms(key, "Ana's cats ran to Café Zoë at 7:30, twice!")
    prefix = "t8145c20c2b2e2313"
    stems = ["ana", "", "cat", "ran", "to", "cafe", "zoe", "at", "7", "30", "twice"]
    assert terms == " ".join(f"{prefix}{stem}0" for stem in stems)
    assert terms.split() == [scope_term(key, stem) for stem in stems]


def test_no_scope_or_no_words_gives_no_terms() -> None:
    assert scope_terms(None, "tea") == ""
    assert scope_terms("", "tea") == ""
    assert scope_terms("user:ana", None) == ""
    assert scope_terms("user:ana", " ... ") == ""
