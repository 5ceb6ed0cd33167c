"""One chat message as memfold stores it, and the checks a message passes before any
of it is written (pure: no I/O)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from memfold.errors import InvalidInput
from memfold.model import JSONDict, parse_time
from memfold.model.nesting import METADATA_MAX_BYTES, METADATA_MAX_DEPTH, cut_deep
from memfold.policy.validate import (
    clean_metadata,
    clean_text,
)


class Role(StrEnum):
    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"


@dataclass(frozen=True, slots=True)
class NewMessage:
    """A message checked and ready to append (its id and position come from the store)."""

    role: Role
    content: str
    created_at: datetime | None = None  # None: the store's clock when appended
    metadata: JSONDict = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Message:
    """A message of a transcript: ``id`` is unique in the store, ``position`` counts
    from 0 within its session; never changed once appended."""

    id: str
    session_key: str
    position: int
    role: Role
    content: str
    created_at: datetime
    metadata: JSONDict = field(default_factory=dict)

    def to_dict(self) -> JSONDict:
        return {
            "id": self.id,
            "session": self.session_key,
            "position": self.position,
            "role": self.role.value,
            "content": self.content,
            "created_at": self.created_at.isoformat(),
            "metadata": cut_deep(self.metadata),  # a row older than the depth check: cut
        }


def clean_message(
    role: object,
    content: object,
    *,
    max_chars: int,
    created_at: object = None,
    metadata: Mapping[str, object] | None = None,
    max_metadata_depth: int = METADATA_MAX_DEPTH,
    max_metadata_bytes: int = METADATA_MAX_BYTES,
) -> NewMessage:
    """A message from user input; ``InvalidInput`` names what is wrong (unknown role,
    content empty, not a string or over ``max_chars``, a time that does not parse)."""
    if not isinstance(role, str) or role not in Role._value2member_map_:
        choices = ", ".join(r.value for r in Role)
        raise InvalidInput(f"role must be one of {choices}; got {role!r}")
    text = clean_text(content, max_chars=max_chars, what="content")
    try:
        when = parse_time(created_at)
    except (TypeError, ValueError):
        raise InvalidInput(f"created_at is not a date/time: {created_at!r}") from None
    meta = clean_metadata(metadata, max_depth=max_metadata_depth, max_bytes=max_metadata_bytes)
    return NewMessage(Role(role), text, when, meta)


def clean_messages(
    items: object,
    *,
    max_chars: int,
    after: datetime | None = None,
    max_metadata_depth: int = METADATA_MAX_DEPTH,
    max_metadata_bytes: int = METADATA_MAX_BYTES,
) -> list[NewMessage]:
    """A list of ``{"role": ..., "content": ..., "created_at"?: ..., "metadata"?: ...}``
    (mem0's shape) checked whole before anything is written: each message, and times
    that never go back (none before ``after``, the transcript's last, nor before the
    message above it)."""
    if isinstance(items, (str, bytes)) or not isinstance(items, (list, tuple)):
        raise InvalidInput("messages must be a list of {'role': ..., 'content': ...} objects")
    if not items:
        raise InvalidInput("messages is empty")
    out: list[NewMessage] = []
    last = after
    for n, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise InvalidInput(f"message {n} must be an object with role and content")
        unknown = set(item) - {"role", "content", "created_at", "metadata", "name"}
        if unknown:
            raise InvalidInput(f"message {n} has unknown keys: {', '.join(sorted(unknown))}")
        meta = item.get("metadata")
        if "name" in item:  # OpenAI's participant name: kept with the message's metadata
            meta = {**(meta if isinstance(meta, Mapping) else {}), "name": item["name"]}
        try:
            msg = clean_message(
                item.get("role"),
                item.get("content"),
                max_chars=max_chars,
                created_at=item.get("created_at"),
                metadata=meta,
                max_metadata_depth=max_metadata_depth,
                max_metadata_bytes=max_metadata_bytes,
            )
        except InvalidInput as exc:
            raise InvalidInput(f"message {n}: {exc}") from None
        if msg.created_at is not None:
            if last is not None and msg.created_at < last:
                raise InvalidInput(
                    f"message {n} is dated {msg.created_at.isoformat()}, before the message "
                    f"above it ({last.isoformat()}): messages must come in order"
                )
            last = msg.created_at
        out.append(msg)
    return out
