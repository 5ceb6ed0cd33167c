"""Input checks shared by the API, the CLI and import. Pure: raise or return clean values."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any, TypeVar

from memfold.errors import InvalidInput
from memfold.model import JSONDict, Scope

E = TypeVar("E", bound=StrEnum)


def clean_text(text: object, *, max_chars: int, what: str = "text") -> str:
    if not isinstance(text, str):
        raise InvalidInput(f"{what} must be a string, got {type(text).__name__}")
    if "\x00" in text:
        raise InvalidInput(f"{what} contains a NUL byte")
    stripped = text.strip()
    if not stripped:
        raise InvalidInput(f"{what} is empty or whitespace only")
    if len(stripped) > max_chars:
        raise InvalidInput(f"{what} has {len(stripped)} characters; the maximum is {max_chars}")
    try:
        stripped.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInput(f"{what} is not valid Unicode: {exc.reason}") from None
    return stripped


def clean_scope(
    user_id: object = None,
    agent_id: object = None,
    session_id: object = None,
    *,
    default_user_id: str = "default",
) -> Scope:
    """A scope from optional ids; none given means user_id=default_user_id."""
    values: list[str | None] = []
    for name, value in (("user_id", user_id), ("agent_id", agent_id), ("session_id", session_id)):
        if value is None:
            values.append(None)
            continue
        if not isinstance(value, str):
            raise InvalidInput(f"{name} must be a string, got {type(value).__name__}")
        if not value.strip() or "\x00" in value or "|" in value or "=" in value:
            raise InvalidInput(f"{name} must be non-empty and must not contain NUL, '|' or '='")
        values.append(value)
    if all(v is None for v in values):
        values[0] = default_user_id
    return Scope(*values)


def clean_enum(value: object, enum: type[E], what: str) -> E:
    if isinstance(value, enum):
        return value
    try:
        return enum(str(value))
    except ValueError:
        choices = ", ".join(e.value for e in enum)
        raise InvalidInput(f"{what} must be one of {choices}; got {value!r}") from None


def clean_unit(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInput(f"{what} must be a number, got {type(value).__name__}")
    number = float(value)
    if math.isnan(number) or not 0.0 <= number <= 1.0:
        raise InvalidInput(f"{what} must be between 0 and 1, got {value}")
    return number


def clean_sources(sources: object, *, max_items: int) -> list[str]:
    if sources is None:
        return []
    if isinstance(sources, str) or not isinstance(sources, Sequence):
        raise InvalidInput("sources must be a list of strings")
    if len(sources) > max_items:
        raise InvalidInput(f"sources has {len(sources)} items; the maximum is {max_items}")
    out: list[str] = []
    for item in sources:
        if not isinstance(item, str) or not item or "\x00" in item:
            raise InvalidInput(f"each source must be a non-empty string, got {item!r}")
        out.append(item)
    return list(dict.fromkeys(out))


def clean_metadata(metadata: object) -> JSONDict:
    if metadata is None:
        return {}
    if not isinstance(metadata, Mapping):
        raise InvalidInput("metadata must be a mapping")
    try:
        encoded = json.dumps(dict(metadata), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"metadata must be JSON-serializable: {exc}") from None
    decoded: JSONDict = json.loads(encoded)
    return decoded


def clean_k(k: object, *, maximum: int = 10_000) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= maximum:
        raise InvalidInput(f"k must be an integer between 1 and {maximum}, got {k!r}")
    return k


def clean_id(memory_id: object, what: str = "id") -> str:
    if not isinstance(memory_id, str) or not memory_id.strip():
        raise InvalidInput(f"{what} must be a non-empty string, got {memory_id!r}")
    return memory_id.strip()


def require_keys(data: Mapping[str, Any], keys: Sequence[str], what: str) -> None:
    missing = [k for k in keys if k not in data]
    if missing:
        raise InvalidInput(f"{what} is missing {', '.join(missing)}")
