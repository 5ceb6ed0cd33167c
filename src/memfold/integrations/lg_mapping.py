"""How LangGraph items live in memfold, with no LangGraph import (pure).

- A namespace is a scope: ``agent_id = "langgraph"`` and ``user_id`` = the namespace
  labels joined by ``/`` (a label holding ``/`` is refused: the mapping must be
  reversible). So memories of different namespaces never meet in consolidation.
- An item is one memory: its text is the value's text field (the first of
  ``text_fields`` that holds a string) or, failing that, the value as sorted JSON; its
  metadata is the value's own keys plus ``_lg_key`` (the item key). Keys starting with
  ``_lg_`` are reserved.
- A LangGraph filter (a key -> value or ``{"$eq"|"$ne"|"$gt"|"$gte"|"$lt"|"$lte": v}``)
  is memfold's filter syntax for top-level keys; a nested-dict match is checked here
  (``value_matches``) after the query, like LangGraph's in-memory store does.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from memfold.errors import InvalidInput

AGENT_ID = "langgraph"
SEPARATOR = "/"
KEY_FIELD = "_lg_key"
RESERVED_PREFIX = "_lg_"
DEFAULT_TEXT_FIELDS = ("text", "content", "memory", "data")
_OPERATORS = frozenset({"$eq", "$ne", "$gt", "$gte", "$lt", "$lte"})


def scope_of(namespace: Sequence[str]) -> str:
    """The user_id a namespace is stored under."""
    if not namespace:
        raise InvalidInput("a namespace needs at least one label")
    for label in namespace:
        if not isinstance(label, str) or not label:
            raise InvalidInput(f"namespace labels must be non-empty strings, got {label!r}")
        if SEPARATOR in label:
            raise InvalidInput(f"namespace label {label!r} holds {SEPARATOR!r}")
    return SEPARATOR.join(namespace)


def namespace_of(user_id: str) -> tuple[str, ...]:
    return tuple(user_id.split(SEPARATOR))


def text_of(value: Mapping[str, Any], text_fields: Sequence[str]) -> str:
    """What is embedded and searched: a text field, else the whole value as JSON."""
    for name in text_fields:
        field = value.get(name)
        if isinstance(field, str) and field.strip():
            return field
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def metadata_of(key: str, value: Mapping[str, Any]) -> dict[str, Any]:
    if not isinstance(key, str) or not key:
        raise InvalidInput(f"an item key must be a non-empty string, got {key!r}")
    if not isinstance(value, Mapping):
        raise InvalidInput(f"an item value must be a dict, got {type(value).__name__}")
    reserved = sorted(k for k in value if str(k).startswith(RESERVED_PREFIX))
    if reserved:
        raise InvalidInput(f"value keys starting with {RESERVED_PREFIX!r} are reserved: {reserved}")
    return {**value, KEY_FIELD: key}


def value_of(metadata: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in metadata.items() if not k.startswith(RESERVED_PREFIX)}


def split_filter(flt: Mapping[str, Any] | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the part memfold's filters can run, the nested-dict part checked afterwards)."""
    pushed: dict[str, Any] = {}
    nested: dict[str, Any] = {}
    for key, want in (flt or {}).items():
        if str(key).startswith(RESERVED_PREFIX):
            raise InvalidInput(f"filter key {key!r} is reserved")
        if isinstance(want, Mapping) and not (want and set(want) <= _OPERATORS):
            if any(str(k).startswith("$") for k in want):
                raise InvalidInput(f"unsupported filter operator in {want!r}")
            nested[key] = want
        else:
            pushed[key] = want
    return pushed, nested


def value_matches(value: Any, want: Any) -> bool:
    """LangGraph's match of a nested filter value: dicts by their keys, lists in order."""
    if isinstance(want, Mapping):
        return isinstance(value, Mapping) and all(
            value_matches(value.get(k), v) for k, v in want.items()
        )
    if isinstance(want, list | tuple):
        return (
            isinstance(value, list | tuple)
            and len(value) == len(want)
            and all(value_matches(a, b) for a, b in zip(value, want, strict=True))
        )
    return bool(value == want)


def namespace_matches(namespace: tuple[str, ...], kind: str, path: Sequence[str]) -> bool:
    """A ListNamespaces match condition: prefix or suffix, ``*`` matching any label."""
    if len(namespace) < len(path):
        return False
    labels = namespace if kind == "prefix" else tuple(reversed(namespace))
    pattern = tuple(path) if kind == "prefix" else tuple(reversed(tuple(path)))
    return all(p == "*" or p == n for n, p in zip(labels, pattern, strict=False))
