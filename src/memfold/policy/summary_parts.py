"""One part of a session's summary as memfold stores it (pure: no I/O).

A session's summary is the list of its parts in order, never rewritten: a ``summary``
of the messages at positions ``covers_from..covers_to`` that left the window, a
``note`` the agent wrote itself, or a ``meta`` summary that compresses the parts named
in ``replaces`` (those parts are kept; the window shows the meta part instead)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from memfold.model import JSONDict


class PartKind(StrEnum):
    SUMMARY = "summary"
    NOTE = "note"
    META = "meta"


@dataclass(frozen=True, slots=True)
class NewSummaryPart:
    """A part ready to append (its id and number come from the store)."""

    kind: PartKind
    text: str
    covers_from: int | None = None
    covers_to: int | None = None
    replaces: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SummaryPart:
    id: str
    session_key: str
    part: int
    kind: PartKind
    text: str
    created_at: datetime
    covers_from: int | None = None
    covers_to: int | None = None
    replaces: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> JSONDict:
        return {
            "id": self.id,
            "session": self.session_key,
            "part": self.part,
            "kind": self.kind.value,
            "text": self.text,
            "covers_from": self.covers_from,
            "covers_to": self.covers_to,
            "replaces": list(self.replaces),
            "created_at": self.created_at.isoformat(),
        }
