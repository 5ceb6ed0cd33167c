"""A text's facts (``memfold.reading.facts.Facts``) as compact JSON and back, so that
they are derived from the parse once, when a memory is saved, and a drain or a review
run loads them rather than deriving them again (about 7x cheaper). The fields go in
``Facts``' order; a payload that is not one gives None (the text is read again). Pure."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import fields
from typing import Any

from memfold.reading.facts import Facts
from memfold.reading.values import Value

_FIELDS = tuple(f.name for f in fields(Facts))
# How each field that is not a plain string, bool or frozenset of strings is kept.
_SETS_OF_TUPLES = frozenset(("modifiers", "contrasts", "directions", "ends"))
_TUPLES = frozenset(("lemmas", "lows", "poses", "deps", "tags", "heads"))
_DICTS_OF_SETS = frozenset(("owners", "subject_mods"))


def encode(facts: Facts) -> list[Any]:
    """``facts`` as JSON-ready lists, one a field, in ``Facts``' order."""
    return [_plain(name, getattr(facts, name)) for name in _FIELDS]


def decode(payload: Any) -> Facts | None:
    """The facts ``encode`` wrote; None when ``payload`` is not such a list."""
    if not isinstance(payload, list) or len(payload) != len(_FIELDS):
        return None
    try:
        return Facts(*(typed(raw) for typed, raw in zip(_DECODERS, payload, strict=True)))
    except (TypeError, ValueError):
        return None


def dumps(facts: Facts) -> str:
    return json.dumps(encode(facts), ensure_ascii=False, separators=(",", ":"))


def _plain(name: str, value: Any) -> Any:
    if name == "values":
        return [[v.kind, v.key, v.anchor, v.index, v.sent] for v in value]
    if name == "roles":
        return [[list(key), sorted(found)] for key, found in value.items()]
    if name == "slots":
        return [[key, sorted(map(list, found))] for key, found in value.items()]
    if name in _DICTS_OF_SETS:
        return [[key, sorted(found)] for key, found in value.items()]
    if name == "clauses":
        return [[verb, sorted(keys)] for verb, keys in value]
    if name in ("order", *_TUPLES):
        return [list(x) if isinstance(x, tuple) else x for x in value]
    if isinstance(value, frozenset):
        return sorted(list(x) if isinstance(x, tuple) else x for x in value)
    return value


def _set(items: Any) -> frozenset[Any]:
    # Most of a text's sets are empty: one shared empty set, not one object each.
    return frozenset(items) if items else _EMPTY


_EMPTY: frozenset[Any] = frozenset()


def _text(raw: Any) -> str:
    if not isinstance(raw, str):
        raise TypeError("text")
    return raw


def _decoder(name: str) -> Callable[[Any], Any]:
    """How the field ``name`` is read back from its JSON form."""
    if name == "values":
        return lambda raw: tuple(
            Value(str(k), str(key), str(a), int(i), int(s)) for k, key, a, i, s in raw
        )
    if name == "roles":
        return lambda raw: {(str(v), str(r)): _set(found) for (v, r), found in raw}
    if name == "slots":
        return lambda raw: {key: _set(list(map(tuple, found))) for key, found in raw}
    if name in _DICTS_OF_SETS:
        return lambda raw: {key: _set(found) for key, found in raw}
    if name == "clauses":
        return lambda raw: tuple((verb, _set(keys)) for verb, keys in raw)
    if name == "order":
        return lambda raw: tuple((int(sent), str(n)) for sent, n in raw)
    if name in _TUPLES:
        return tuple
    if name in _SETS_OF_TUPLES:
        return lambda raw: _set(list(map(tuple, raw)))
    if name in ("text", "initial"):
        return _text
    if name == "past":
        return bool
    return _set


# One reader a field, in ``Facts``' order (positional: the fields' declared order).
_DECODERS = tuple(_decoder(name) for name in _FIELDS)
