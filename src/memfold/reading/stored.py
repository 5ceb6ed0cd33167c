"""A reading as it is stored with its memory: the words of the parse and the facts derived
from them (``facts_codec``), as compact JSON, and a key that says which text, parse model
and reading code made it. A stored reading whose key is not the key of the memory's text
now (the text changed, the model or this package's code or tables moved on) is not
used: the text is read again. Pure: the store keeps the rows, ``memfold.engine.readings``
moves them."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from memfold.reading import facts_codec, parser
from memfold.reading.facts import Facts, facts_of
from memfold.reading.model import Reading, Word

# Bumped whenever the payload's layout changes; the reading code's own changes are in the
# key through ``_code_hash``.
FORMAT = 3


@cache
def _stamp() -> str:
    return f"{FORMAT}|{parser.model_tag()}|{_code_hash()}|"


def _code_hash() -> str:
    """A hash of this package's modules and word tables: the facts stored by other code
    are derived again."""
    digest = hashlib.sha256()
    root = resources.files("memfold.reading")
    files = [p for p in root.iterdir() if p.name.endswith(".py")]
    files += [p for p in root.joinpath("data").iterdir() if p.name.endswith(".txt")]
    for path in sorted(files, key=lambda p: p.name):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def key(text: str) -> str:
    """The key of ``text``'s reading by this code and the installed model."""
    return hashlib.sha256((_stamp() + text).encode("utf-8", "replace")).hexdigest()[:32]


def encode(reading: Reading, derived: Facts | None = None) -> str:
    """The words of ``reading``, one JSON array each (its fields in ``Word``'s order),
    and the facts derived from them (``derived``, or derived now)."""
    found = derived if derived is not None else facts_of(reading)
    payload = {"words": [list(w) for w in reading.words], "facts": facts_codec.encode(found)}
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True, slots=True)
class StoredWords:
    """The stored words of ``text``'s reading, made a ``Reading`` when first read
    (``memfold.reading.parser.Deferred``)."""

    text: str
    raw: list[Any]

    def reading(self) -> Reading | None:
        try:
            words = tuple(
                Word(str(t), str(lemma), str(pos), str(tag), str(dep), int(head), int(sent))
                for t, lemma, pos, tag, dep, head, sent in self.raw
            )
        except (ValueError, TypeError):
            return None
        return Reading(self.text, words)


def load(text: str, payload: str) -> tuple[StoredWords | None, Facts | None]:
    """The reading of ``text`` stored as ``payload`` (its words, checked when first
    read) and its facts; None for either that is not there (a damaged row: the text is
    read again) or, for the facts, not of this text."""
    loaded = _loads(payload)
    raw = loaded.get("words")
    found = facts_codec.decode(loaded.get("facts"))
    return (
        StoredWords(text, raw) if isinstance(raw, list) else None,
        found if found is not None and found.text == text else None,
    )


def decode(text: str, payload: str) -> Reading | None:
    """The reading of ``text`` stored as ``payload`` (see ``load``)."""
    words = load(text, payload)[0]
    return None if words is None else words.reading()


def decode_facts(text: str, payload: str) -> Facts | None:
    """The facts of ``text`` stored in ``payload`` (see ``load``)."""
    return load(text, payload)[1]


def _loads(payload: str) -> dict[str, Any]:
    try:
        loaded = json.loads(payload)
    except ValueError:
        return {}
    return loaded if isinstance(loaded, dict) else {}
