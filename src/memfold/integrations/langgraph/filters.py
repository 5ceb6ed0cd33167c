"""LangGraph search filters over memfold metadata (pure, no LangGraph import).

A LangGraph filter maps a key to a value or to ``{"$eq"|"$ne"|"$gt"|"$gte"|"$lt"|"$lte":
operand}``. ``split_filter`` sends the terms memfold's metadata filter means the same
for to memfold, where they run before the top-k: a top-level key, a string, bool,
64-bit int or finite float operand (a range operator: a number). Every other term is
checked here afterwards (``matches``), as LangGraph's in-memory store checks it:

- a nested dict matches by its keys, a list in order, else Python equality;
- a dotted key (``{"user.level": 1}``) is a path into nested dicts, as LangGraph's SQL
  stores read it (a top-level key holding the dot, when the value has one, wins);
- a bound of ``float("inf")``/``-inf`` compares as a number (every number is below
  infinity), NaN equals nothing, a bound beyond 64 bits compares exactly;
- ``None`` matches a missing key too, and ``$ne`` is its negation (LangGraph reads a
  missing key as ``None``);
- an operand memfold would refuse (a NUL byte, a lone surrogate) matches what it
  equals, which no stored value can hold.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from memfold.errors import InvalidInput

RESERVED_PREFIX = "_lg_"
PATH_SEPARATOR = "."
RANGE = frozenset({"$gt", "$gte", "$lt", "$lte"})
OPERATORS = frozenset({"$eq", "$ne"}) | RANGE
_INT64 = 2**63


def split_filter(flt: Mapping[str, Any] | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the part memfold's filters run before the top-k, the part ``matches`` checks)."""
    pushed: dict[str, Any] = {}
    after: dict[str, Any] = {}
    for key, want in (flt or {}).items():
        if not isinstance(key, str) or not key:
            raise InvalidInput(f"filter keys must be non-empty strings, got {key!r}")
        if key.startswith(RESERVED_PREFIX):
            raise InvalidInput(f"filter key {key!r} is reserved")
        if isinstance(want, Mapping) and any(str(k).startswith("$") for k in want):
            unknown = sorted(str(k) for k in want if k not in OPERATORS)
            if unknown:
                known = ", ".join(sorted(OPERATORS))
                raise InvalidInput(f"unsupported filter operator {unknown} (known: {known})")
        if PATH_SEPARATOR not in key and _pushable(want):
            pushed[key] = want
        else:
            after[key] = want
    return pushed, after


def matches(value: Mapping[str, Any], after: Mapping[str, Any]) -> bool:
    """Whether an item's value passes the terms ``split_filter`` left for afterwards."""
    return all(value_matches(lookup(value, key), want) for key, want in after.items())


def lookup(value: Mapping[str, Any], key: str) -> Any:
    """The value at ``key``: a top-level key, else a dotted path into nested dicts;
    None when missing (LangGraph's ``value.get(key)``)."""
    if key in value or PATH_SEPARATOR not in key:
        return value.get(key)
    found: Any = value
    for part in key.split(PATH_SEPARATOR):
        if not isinstance(found, Mapping):
            return None
        found = found.get(part)
    return found


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
    # ints compare exactly (10**100 stays 10**100), floats and infinities as floats
    a, b = value, operand
    return bool({"$gt": a > b, "$gte": a >= b, "$lt": a < b, "$lte": a <= b}[op])


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _pushable(want: Any) -> bool:
    """Whether memfold's metadata filter means exactly what LangGraph means here."""
    if not isinstance(want, Mapping):
        return _scalar(want)
    if not want or not set(want) <= OPERATORS:
        return False  # a nested-dict match ({} matches any dict value)
    for op, operand in want.items():
        if op in RANGE and not (_number(operand) and _scalar(operand)):
            return False
        if not _scalar(operand):
            return False
    return True


def _scalar(value: Any) -> bool:
    """A value memfold's filter takes and compares as LangGraph does. None is not one:
    memfold's missing key never equals None, LangGraph's does."""
    if isinstance(value, bool):
        return True
    if isinstance(value, int):
        return -_INT64 <= value < _INT64
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, str):
        return "\x00" not in value and _encodable(value)
    return False


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
