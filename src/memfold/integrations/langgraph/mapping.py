"""How LangGraph items live in memfold, with no LangGraph import (pure).

- A namespace is a scope: ``agent_id = "langgraph"`` and ``user_id`` = the namespace
  labels joined by ``/`` (a label holding ``/`` is refused: the mapping must be
  reversible). So memories of different namespaces never meet in consolidation.
- An item is one memory: its text is what the item is indexed on (fields) or, for
  an item not indexed, the value's text field (the first of ``text_fields`` that holds
  a string) or the value as sorted JSON; its metadata is the value's own keys plus the
  reserved ``_lg_key`` (the item key) and, when the put chose its indexed fields or
  turned indexing off, ``_lg_index`` (the JSON paths, or False). Keys starting with
  ``_lg_`` are reserved. Filters are in filters.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from memfold.errors import InvalidInput
from memfold.integrations.langgraph.filters import RESERVED_PREFIX

AGENT_ID = "langgraph"
SEPARATOR = "/"
KEY_FIELD = "_lg_key"
INDEX_FIELD = "_lg_index"
# The put's TTL in minutes, kept so a read can push the expiry back by as much.
TTL_FIELD = "_lg_ttl"
DEFAULT_TEXT_FIELDS = ("text", "content", "memory", "data")

__all__ = [
    "AGENT_ID",
    "DEFAULT_TEXT_FIELDS",
    "INDEX_FIELD",
    "KEY_FIELD",
    "RESERVED_PREFIX",
    "SEPARATOR",
    "TTL_FIELD",
    "metadata_of",
    "namespace_matches",
    "namespace_of",
    "scope_of",
    "text_of",
    "value_of",
]


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
    """The value's text field, else the whole value as JSON."""
    for name in text_fields:
        field = value.get(name)
        if isinstance(field, str) and field.strip():
            return field
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def metadata_of(key: str, value: Mapping[str, Any]) -> dict[str, Any]:
    """The memory's metadata: the value and the key (the put adds ``_lg_index``)."""
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


def namespace_matches(namespace: tuple[str, ...], kind: str, path: Sequence[str]) -> bool:
    """A ListNamespaces match condition: prefix or suffix, ``*`` matching any label."""
    if len(namespace) < len(path):
        return False
    labels = namespace if kind == "prefix" else tuple(reversed(namespace))
    pattern = tuple(path) if kind == "prefix" else tuple(reversed(tuple(path)))
    return all(p == "*" or p == n for n, p in zip(labels, pattern, strict=False))
