"""mem0's ``filters`` read as memfold's scope and metadata filter. Pure.

mem0 2.x puts the entity ids in ``filters`` (``{"user_id": "alex", "topic": "food"}``)
and its own operators without a dollar sign (``{"n": {"gte": 3}}``, ``{"AND": [...]}``).
The ids become memfold's scope (run_id is memfold's session_id); the rest becomes a
memfold metadata filter (memfold.policy.filters). What memfold cannot express is a
clear error, never a filter quietly dropped: ``NOT``, ``icontains``, the ``"*"``
wildcard and ``actor_id``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from memfold.errors import InvalidInput

ID_KEYS = ("user_id", "agent_id", "run_id")

# mem0's operator -> memfold's
_OPERATORS = {
    "eq": "$eq",
    "ne": "$ne",
    "in": "$in",
    "nin": "$nin",
    "gt": "$gt",
    "gte": "$gte",
    "lt": "$lt",
    "lte": "$lte",
    "contains": "$contains",
}
_LOGIC = {"AND": "$and", "OR": "$or"}
_UNSUPPORTED = {
    "NOT": "memfold filters have no NOT: use ne / nin on the key",
    "icontains": "memfold's contains is case-sensitive; there is no icontains",
    "actor_id": "memfold does not attribute memories to actors; filter on metadata instead",
}


@dataclass(frozen=True, slots=True)
class Ids:
    """The entity ids of a call (None: not given)."""

    user_id: str | None = None
    agent_id: str | None = None
    run_id: str | None = None

    @property
    def any(self) -> bool:
        return any(v is not None for v in (self.user_id, self.agent_id, self.run_id))


def entity_id(value: object, name: str) -> str | None:
    """mem0's rule for an id: a number becomes its string, spaces around are trimmed, an
    empty id or one with inner whitespace is refused."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise InvalidInput(f"{name} must be a string, got {type(value).__name__}")
    trimmed = str(value).strip()
    if not trimmed or any(c.isspace() for c in trimmed):
        raise InvalidInput(f"{name} must be non-empty and contain no whitespace")
    return trimmed


def split(filters: object, *, required: bool = True) -> tuple[Ids, dict[str, Any] | None]:
    """The ids and the metadata filter of mem0's ``filters``. ``required``: at least one
    id must be given (mem0's rule for search and get_all)."""
    if filters is None:
        filters = {}
    if not isinstance(filters, Mapping):
        raise InvalidInput(f"filters must be a dict, got {type(filters).__name__}")
    ids = Ids(*(entity_id(filters.get(k), k) for k in ID_KEYS))
    if required and not ids.any:
        raise InvalidInput(
            "filters must contain at least one of user_id, agent_id, run_id "
            "(for example filters={'user_id': 'alex'})"
        )
    rest = {k: v for k, v in filters.items() if k not in ID_KEYS}
    return ids, (translate(rest) if rest else None)


def translate(filters: Mapping[str, Any]) -> dict[str, Any]:
    """A mem0 metadata filter as memfold's (checked again by memfold's parser)."""
    out: dict[str, Any] = {}
    for key, value in filters.items():
        if not isinstance(key, str):
            raise InvalidInput(f"filter keys must be strings, got {key!r}")
        if key in _UNSUPPORTED:
            raise InvalidInput(f"filter {key!r}: {_UNSUPPORTED[key]}")
        if key in _LOGIC:
            if not isinstance(value, list | tuple):
                raise InvalidInput(f"filter {key!r} takes a list of filters")
            out[_LOGIC[key]] = [translate(_mapping(part, key)) for part in value]
        else:
            out[key] = _condition(key, value)
    return out


def _mapping(value: object, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise InvalidInput(f"each filter under {where!r} must be a dict")
    return value


def _condition(key: str, value: object) -> object:
    if value == "*":
        raise InvalidInput(
            f"filter {key!r}: the '*' wildcard (any value) has no memfold equivalent"
        )
    if not isinstance(value, Mapping):
        return value  # an exact match
    out: dict[str, Any] = {}
    for op, operand in value.items():
        if op in _UNSUPPORTED:
            raise InvalidInput(f"filter {key!r}: {_UNSUPPORTED[op]}")
        if op not in _OPERATORS:
            known = ", ".join(_OPERATORS)
            raise InvalidInput(f"filter {key!r}: unknown operator {op!r} (mem0's: {known})")
        out[_OPERATORS[op]] = operand
    return out
