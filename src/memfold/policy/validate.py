"""Input checks shared by the API, the CLI and import. Pure: raise or return clean values."""

from __future__ import annotations

import json
import math
import os
import threading
from collections.abc import Mapping, Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

from memfold.errors import InvalidInput
from memfold.model import JSONDict, Scope
from memfold.model.nesting import METADATA_MAX_BYTES, METADATA_MAX_DEPTH, nests_deeper

E = TypeVar("E", bound=StrEnum)

# The largest integer SQLite and PostgreSQL's bigint hold: ids, offsets and limits past
# it would fail in the database driver (OverflowError), not as bad input.
INT64_MAX = 2**63 - 1


def shown(value: object, limit: int = 60) -> str:
    """``repr(value)``, shortened: an error message never echoes a huge input whole."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[: limit - 3]}..."


def check_unicode(text: str, what: str) -> str:
    """``text`` when it encodes as UTF-8 (a lone surrogate such as '\\ud800' does not:
    no database, file or JSON response could hold it)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInput(f"{what} is not valid Unicode: {exc.reason}") from None
    return text


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
    return check_unicode(stripped, what)


def clean_string(value: object, what: str, *, max_chars: int | None = None) -> str:
    """A free-form string that may be empty (a reason, a context, a prompt): a str,
    without NUL, valid Unicode, at most ``max_chars`` characters when given."""
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be a string, got {type(value).__name__}")
    if "\x00" in value:
        raise InvalidInput(f"{what} contains a NUL byte")
    if max_chars is not None and len(value) > max_chars:
        raise InvalidInput(f"{what} has {len(value)} characters; the maximum is {max_chars}")
    return check_unicode(value, what)


def clean_int(value: object, what: str, *, minimum: int = 0, maximum: int = INT64_MAX) -> int:
    """An integer (not a bool, not a float) within ``minimum..maximum``; the default
    maximum is what the databases hold."""
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
        raise InvalidInput(
            f"{what} must be an integer between {minimum} and {maximum}, got {shown(value)}"
        )
    return value


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
        values.append(check_unicode(value, name))
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
            raise InvalidInput(f"each source must be a non-empty string, got {shown(item)}")
        out.append(check_unicode(item, "a source"))
    return list(dict.fromkeys(out))


def clean_metadata(
    metadata: object,
    *,
    max_depth: int = METADATA_MAX_DEPTH,
    max_bytes: int = METADATA_MAX_BYTES,
    what: str = "metadata",
) -> JSONDict:
    """A JSON object (a plain copy of it): nested at most ``max_depth`` levels (a flat
    dict is 1; checked without recursion, so any depth is InvalidInput, never
    RecursionError), at most ``max_bytes`` bytes as UTF-8 JSON, with valid Unicode in
    every key and string and no NUL in any. Callers pass store.max_metadata_depth /
    max_metadata_bytes."""
    if metadata is None:
        return {}
    if not isinstance(metadata, Mapping):
        raise InvalidInput(f"{what} must be a mapping")
    if nests_deeper(metadata, max_depth):
        raise InvalidInput(
            f"{what} nests deeper than {max_depth} levels (store.max_metadata_depth)"
        )
    try:
        encoded = json.dumps(dict(metadata), allow_nan=False, ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"{what} must be JSON-serializable: {exc}") from None
    try:
        size = len(encoded.encode("utf-8"))
    except UnicodeEncodeError as exc:
        raise InvalidInput(f"{what} is not valid Unicode: {exc.reason}") from None
    if size > max_bytes:
        raise InvalidInput(
            f"{what} is {size} bytes as JSON; the maximum is {max_bytes} (store.max_metadata_bytes)"
        )
    decoded: JSONDict = json.loads(encoded)
    if _holds_nul(decoded):  # PostgreSQL's jsonb cannot store it
        raise InvalidInput(f"{what} contains a NUL byte in a key or a string")
    return decoded


def _holds_nul(value: object) -> bool:
    """Whether a key or a string anywhere in a JSON value holds NUL (iterative)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def clean_k(k: object, *, maximum: int = 10_000) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= maximum:
        raise InvalidInput(f"k must be an integer between 1 and {maximum}, got {shown(k)}")
    return k


def clean_id(memory_id: object, what: str = "id") -> str:
    if not isinstance(memory_id, str) or not memory_id.strip():
        raise InvalidInput(f"{what} must be a non-empty string, got {shown(memory_id)}")
    if "\x00" in memory_id:
        raise InvalidInput(f"{what} contains a NUL byte")
    return check_unicode(memory_id.strip(), what)


def clean_timeout(value: object, what: str = "timeout") -> float | None:
    """Seconds to wait: None (no limit) or a number >= 0; one past what a thread can
    wait (threading.TIMEOUT_MAX, some 290 years) is no limit either."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
        raise InvalidInput(f"{what} must be None or a number of seconds >= 0, got {shown(value)}")
    return None if value >= threading.TIMEOUT_MAX else float(value)


def clean_path(value: object, what: str = "path") -> Path:
    """A file path given as a str or an os.PathLike (not bytes), without NUL and
    encodable for the file system (a lone surrogate such as '\\ud800' is not)."""
    if isinstance(value, bytes) or not isinstance(value, str | os.PathLike):
        raise InvalidInput(f"{what} must be a str or a Path, got {type(value).__name__}")
    try:
        path = Path(value)
        os.fsencode(path)
    except TypeError:  # an os.PathLike that gives bytes
        raise InvalidInput(f"{what} must be a str or a Path, got {type(value).__name__}") from None
    except UnicodeEncodeError as exc:
        raise InvalidInput(f"{what} is not valid Unicode: {exc.reason}") from None
    if "\x00" in str(path):
        raise InvalidInput(f"{what} contains a NUL byte")
    return path


def require_keys(data: Mapping[str, Any], keys: Sequence[str], what: str) -> None:
    missing = [k for k in keys if k not in data]
    if missing:
        raise InvalidInput(f"{what} is missing {', '.join(missing)}")
