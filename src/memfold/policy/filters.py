"""Metadata filters for ``search`` and ``list``: parsed, checked and evaluated. Pure.

Syntax (a JSON-like dict):

- ``{"key": value}``: the memory's ``metadata["key"]`` equals ``value``.
- ``{"key": {"$op": operand, ...}}``: operators ``$eq $ne $in $nin $lt $lte $gt $gte
  $contains``; several in one dict must all hold.
- ``{"$and": [filter, ...]}``, ``{"$or": [filter, ...]}``; top-level keys are ANDed.

Keys are top-level metadata keys, matched literally (a dot is part of the key).
Values are JSON scalars: strings, numbers, booleans, None (JSON null). Comparison is
by JSON type: a number never equals a string, ``True`` is not ``1``, ``1 == 1.0``.
``$lt``/``$lte``/``$gt``/``$gte`` take a number or a string and compare only values of
the same kind (strings by code point). ``$contains`` is a case-sensitive substring
test on a string value and a membership test on a list value. A key missing from a
memory's metadata never matches, except under ``$ne`` and ``$nin``, which are the
exact negations of ``$eq`` and ``$in`` (MongoDB's rule): a memory without the key
is "not equal" to anything.

``parse`` turns a dict into an immutable tree (``Cond``/``AllOf``/``AnyOf``) or raises
one InvalidInput naming the offending part; ``matches`` evaluates a tree against a
metadata dict. ``store/sqlite/filter_sql.py`` compiles the same tree to SQL with the same
meaning (tests check that both agree).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from memfold.errors import InvalidInput
from memfold.policy.validate import INT64_MAX, check_unicode, shown

Scalar = str | int | float | bool | None

EQ_OPS = ("$eq", "$ne")
SET_OPS = ("$in", "$nin")
RANGE_OPS = ("$lt", "$lte", "$gt", "$gte")
OPERATORS = (*EQ_OPS, *SET_OPS, *RANGE_OPS, "$contains")
LOGIC = ("$and", "$or")


@dataclass(frozen=True, slots=True)
class Cond:
    """One test on one key: ``op`` in OPERATORS; ``value`` a scalar, or a tuple for
    ``$in``/``$nin``."""

    key: str
    op: str
    value: Scalar | tuple[Scalar, ...]


@dataclass(frozen=True, slots=True)
class AllOf:
    parts: tuple[Filter, ...]


@dataclass(frozen=True, slots=True)
class AnyOf:
    parts: tuple[Filter, ...]


Filter = Cond | AllOf | AnyOf


# parsing ---------------------------------------------------------------------------
def parse(filters: object, *, max_terms: int) -> Filter | None:
    """The checked tree of ``filters``; None for None or ``{}`` (no filter).
    ``max_terms``: the most operand values (all ``$in`` items counted) it may hold."""
    if filters is None:
        return None
    tree = _node(filters, "filters", depth=0)
    if tree is not None and _terms(tree) > max_terms:
        raise InvalidInput(f"filters has more than {max_terms} values; narrow it down")
    return tree


_MAX_DEPTH = 32  # nesting of $and/$or, far beyond any real filter


def _node(raw: object, where: str, depth: int) -> Filter | None:
    if not isinstance(raw, Mapping):
        raise InvalidInput(f"{where} must be a dict, got {type(raw).__name__}")
    if depth > _MAX_DEPTH:
        raise InvalidInput(f"{where} nests $and/$or more than {_MAX_DEPTH} deep")
    parts: list[Filter] = []
    for key, value in raw.items():
        if not isinstance(key, str) or not key:
            raise InvalidInput(f"{where} has a key that is not a non-empty string: {key!r}")
        if "\x00" in key:
            raise InvalidInput(f"{where} has a key with a NUL byte: {key!r}")
        check_unicode(key, f"{where} key {key!r}")
        if key in LOGIC:
            parts.append(_logic(key, value, f"{where}.{key}", depth))
        elif key.startswith("$"):
            raise InvalidInput(
                f"{where} has unknown operator {key!r} at the top level "
                f"(only $and and $or; field operators go inside a key: {{'k': {{'$ne': v}}}})"
            )
        else:
            parts.extend(_field(key, value, f"{where}[{key!r}]"))
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else AllOf(tuple(parts))


def _logic(op: str, value: object, where: str, depth: int) -> Filter:
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, list | tuple):
        raise InvalidInput(f"{where} must be a list of filter dicts, got {type(value).__name__}")
    if not value:
        raise InvalidInput(f"{where} is an empty list")
    subs: list[Filter] = []
    for n, item in enumerate(value):
        sub = _node(item, f"{where}[{n}]", depth + 1)
        # An empty dict matches everything: neutral in $and, makes $or always true.
        subs.append(AllOf(()) if sub is None else sub)
    if len(subs) == 1:
        return subs[0]
    return AllOf(tuple(subs)) if op == "$and" else AnyOf(tuple(subs))


def _field(key: str, value: object, where: str) -> list[Cond]:
    if not isinstance(value, Mapping):
        return [Cond(key, "$eq", _scalar(value, where))]
    if not value:
        raise InvalidInput(f"{where} is an empty operator dict")
    conds: list[Cond] = []
    for op, operand in value.items():
        if not isinstance(op, str) or not op.startswith("$"):
            raise InvalidInput(
                f"{where} must be a scalar or a dict of operators ($eq, $in, ...); "
                f"found key {op!r} (nested objects are not matched)"
            )
        if op not in OPERATORS:
            known = ", ".join(OPERATORS)
            raise InvalidInput(f"{where} has unknown operator {op!r}; known: {known}")
        at = f"{where}.{op}"
        if op in SET_OPS:
            if isinstance(operand, str | bytes | Mapping) or not isinstance(operand, list | tuple):
                raise InvalidInput(f"{at} must be a list of values, got {type(operand).__name__}")
            items = tuple(_scalar(v, f"{at}[{n}]") for n, v in enumerate(operand))
            conds.append(Cond(key, op, items))
        elif op in RANGE_OPS:
            scalar = _scalar(operand, at)
            if scalar is None or isinstance(scalar, bool):
                raise InvalidInput(f"{at} must be a number or a string, got {operand!r}")
            conds.append(Cond(key, op, scalar))
        else:
            conds.append(Cond(key, op, _scalar(operand, at)))
    return conds


def _scalar(value: object, where: str) -> Scalar:
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        if "\x00" in value:  # no text column of PostgreSQL holds it
            raise InvalidInput(f"{where} contains a NUL byte")
        return check_unicode(value, where)
    if isinstance(value, int):
        if not -INT64_MAX - 1 <= value <= INT64_MAX:  # what the databases can compare
            raise InvalidInput(f"{where} is outside the 64-bit integer range: {shown(value)}")
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidInput(f"{where} must be a finite number, got {value!r}")
        return value
    raise InvalidInput(
        f"{where} must be a string, number, boolean or None, got {type(value).__name__}"
    )


def _terms(tree: Filter) -> int:
    if isinstance(tree, Cond):
        return len(tree.value) if isinstance(tree.value, tuple) else 1
    return sum(_terms(p) for p in tree.parts)


# evaluation ------------------------------------------------------------------------
def kind(value: object) -> str:
    """The JSON kind of a value: null, bool, number, text, or other (list, dict)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "text"
    return "other"


def equal(stored: object, wanted: Scalar) -> bool:
    return kind(stored) == kind(wanted) != "other" and stored == wanted


_MISSING = object()


def matches(tree: Filter | None, metadata: Mapping[str, Any]) -> bool:
    """Whether a memory with this metadata passes the filter (None: no filter)."""
    if tree is None:
        return True
    if isinstance(tree, AllOf):
        return all(matches(p, metadata) for p in tree.parts)
    if isinstance(tree, AnyOf):
        return any(matches(p, metadata) for p in tree.parts)
    stored = metadata.get(tree.key, _MISSING)
    if tree.op == "$ne":
        return stored is _MISSING or not equal(stored, _one(tree))
    if tree.op == "$nin":
        return stored is _MISSING or not any(equal(stored, v) for v in _many(tree))
    if stored is _MISSING:
        return False
    if tree.op == "$eq":
        return equal(stored, _one(tree))
    if tree.op == "$in":
        return any(equal(stored, v) for v in _many(tree))
    if tree.op == "$contains":
        wanted = _one(tree)
        if isinstance(stored, list):
            return any(equal(item, wanted) for item in stored)
        return isinstance(stored, str) and isinstance(wanted, str) and wanted in stored
    return _compare(stored, tree.op, _one(tree))


def _compare(stored: object, op: str, bound: Scalar) -> bool:
    if kind(stored) != kind(bound):
        return False
    a: Any = stored
    if op == "$lt":
        return bool(a < bound)
    if op == "$lte":
        return bool(a <= bound)
    if op == "$gt":
        return bool(a > bound)
    return bool(a >= bound)


def _one(cond: Cond) -> Scalar:
    assert not isinstance(cond.value, tuple)
    return cond.value


def _many(cond: Cond) -> tuple[Scalar, ...]:
    assert isinstance(cond.value, tuple)
    return cond.value
