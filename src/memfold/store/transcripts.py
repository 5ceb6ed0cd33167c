"""What both backends' transcript tables share: stamping new messages with their ids,
positions and times, and refusing times that go back (pure: no I/O)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from memfold.errors import InvalidInput
from memfold.model import new_id
from memfold.policy.messages import Message, NewMessage
from memfold.policy.summary_parts import NewSummaryPart, PartKind


def stamped(
    session_key: str,
    new: Sequence[NewMessage],
    *,
    next_position: int,
    last_time: datetime | None,
    now: datetime,
) -> list[Message]:
    """``new`` as transcript rows after ``next_position - 1``; a message without a time
    gets ``now``. ``InvalidInput`` when a time comes before the one above it (the
    session's last message for the first): nothing is written then."""
    out: list[Message] = []
    last = last_time
    for n, msg in enumerate(new):
        when = msg.created_at or now
        if last is not None and when < last:
            raise InvalidInput(
                f"message {n} is dated {when.isoformat()}, before the last message of the "
                f"session ({last.isoformat()}): messages must come in order"
            )
        last = when
        out.append(
            Message(
                id=new_id(),
                session_key=session_key,
                position=next_position + n,
                role=msg.role,
                content=msg.content,
                created_at=when,
                metadata=dict(msg.metadata),
            )
        )
    return out


def check_part(part: NewSummaryPart) -> None:
    """``InvalidInput`` for a part that could not be shown: empty text, a range that
    runs backwards."""
    if not isinstance(part.kind, PartKind):
        raise InvalidInput(f"summary part kind must be one of {', '.join(PartKind)}")
    if not part.text.strip():
        raise InvalidInput("a summary part needs a text")
    lo, hi = part.covers_from, part.covers_to
    if (lo is None) != (hi is None) or (lo is not None and hi is not None and lo > hi):
        raise InvalidInput(f"summary part covers {lo}..{hi}: not a range of positions")
