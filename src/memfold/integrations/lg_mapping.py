"""How LangGraph items live in memfold, with no LangGraph import (pure).

- A namespace is a scope: ``agent_id = "langgraph"`` and ``user_id`` = the namespace
  labels joined by ``/`` (a label holding ``/`` is refused: the mapping must be
  reversible). So memories of different namespaces never meet in consolidation.
- An item is one memory: its text is the value's text field (the first of
  ``text_fields`` that holds a string) or, failing that, the value as sorted JSON; its
  metadata is the value's own keys plus ``_lg_key`` (the item key). Keys starting with
  ``_lg_`` are reserved.
- A LangGraph filter (a key -> value or ``{"$eq"|"$ne"|"$gt"|"$gte"|"$lt"|"$lte": v}``)
  is memfold's filter syntax for top-level keys with scalar operands, so those terms run
  in memfold before the top-k. The rest (a nested-dict or list value, an operator on a
  list or dict) is checked here (``value_matches``) afterwards, as LangGraph's
  in-memory store matches it.
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
_RANGE = frozenset({"$gt", "$gte", "$lt", "$lte"})
_OPERATORS = frozenset({"$eq", "$ne"}) | _RANGE


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
    """(the part memfold's filters can run, the part checked afterwards)."""
    pushed: dict[str, Any] = {}
    after: dict[str, Any] = {}
    for key, want in (flt or {}).items():
        if str(key).startswith(RESERVED_PREFIX):
            raise InvalidInput(f"filter key {key!r} is reserved")
        if isinstance(want, Mapping) and any(str(k).startswith("$") for k in want):
            unknown = sorted(str(k) for k in want if k not in _OPERATORS)
            if unknown:
                known = ", ".join(sorted(_OPERATORS))
                raise InvalidInput(f"unsupported filter operator {unknown} (known: {known})")
        if _pushable(want):
            pushed[key] = want
        else:
            after[key] = want
    return pushed, after


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float)


def _pushable(want: Any) -> bool:
    """Whether memfold's metadata filter means the same for this term."""
    if not isinstance(want, Mapping):
        return _scalar(want)
    if not want or not set(want) <= _OPERATORS:
        return False  # a nested-dict match ({} matches any dict value)
    for op, operand in want.items():
        if not _scalar(operand):
            return False
        if op in _RANGE and (operand is None or isinstance(operand, bool | str)):
            return False
    return True


def value_matches(value: Any, want: Any) -> bool:
    """LangGraph's match of one filter term: operators, dicts by their keys, lists in
    order, else equality. An ordering operator on a value that is not a number is
    False (LangGraph's in-memory store raises there)."""
    if isinstance(want, Mapping):
        if any(str(k).startswith("$") for k in want):
            return all(_apply(value, str(op), operand) for op, operand in want.items())
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


def _apply(value: Any, op: str, operand: Any) -> bool:
    if op == "$eq":
        return bool(value == operand)
    if op == "$ne":
        return bool(value != operand)
    if not (_number(value) and _number(operand)):
        return False
    a, b = float(value), float(operand)
    return {"$gt": a > b, "$gte": a >= b, "$lt": a < b, "$lte": a <= b}[op]


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def namespace_matches(namespace: tuple[str, ...], kind: str, path: Sequence[str]) -> bool:
    """A ListNamespaces match condition: prefix or suffix, ``*`` matching any label."""
    if len(namespace) < len(path):
        return False
    labels = namespace if kind == "prefix" else tuple(reversed(namespace))
    pattern = tuple(path) if kind == "prefix" else tuple(reversed(tuple(path)))
    return all(p == "*" or p == n for n, p in zip(labels, pattern, strict=False))
