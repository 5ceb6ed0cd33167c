"""A reading as it is stored with its memory: the words of the parse as compact JSON,
and a key that says which text, parse model and reading code made it. A stored reading
whose key is not the key of the memory's text now (the text changed, the model or this
code moved on) is not used: the text is read again. Pure: the store keeps the rows,
``memfold.engine.readings`` moves them."""

from __future__ import annotations

import hashlib
import json
from functools import cache

from memfold.reading import parser
from memfold.reading.model import Reading, Word

# Bumped whenever the parser's own corrections (``parser._reading``) or ``Word`` change:
# a reading stored before then is read again.
FORMAT = 2


@cache
def _stamp() -> str:
    return f"{FORMAT}|{parser.model_tag()}|"


def key(text: str) -> str:
    """The key of ``text``'s reading by this code and the installed model."""
    return hashlib.sha256((_stamp() + text).encode("utf-8", "replace")).hexdigest()[:32]


def encode(reading: Reading) -> str:
    """The words of ``reading``, one JSON array each (its fields in ``Word``'s order)."""
    return json.dumps([list(w) for w in reading.words], ensure_ascii=False, separators=(",", ":"))


def decode(text: str, payload: str) -> Reading | None:
    """The reading of ``text`` stored as ``payload``; None when it is not one (a damaged
    row: the text is read again)."""
    try:
        rows = json.loads(payload)
        words = tuple(
            Word(str(t), str(lemma), str(pos), str(tag), str(dep), int(head), int(sent))
            for t, lemma, pos, tag, dep, head, sent in rows
        )
    except (ValueError, TypeError):
        return None
    return Reading(text, words)
