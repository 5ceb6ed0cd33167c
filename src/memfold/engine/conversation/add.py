"""mem0's ``add(messages=[...], infer=...)`` on memfold (``Memory.add(messages=...)``).

The messages are checked whole first (roles, contents, times in order): bad input is a
clear error and nothing is written. With a ``session_id`` the messages are appended to
that session's transcript (``Memory.conversation``; one transaction, a time before its
last message refused) and their transcript ids are the sources of what is saved from
them; without one, each message gets an id for this call only. ``infer=True``: the
messages go through ``extract`` and each extract is saved through ``Memory.add``
(on-save consolidation per the mode), its sources the ids of its messages.
``infer=False``: each message but the system prompt is saved as it is, area fragments,
its role in the metadata (as mem0 does, system messages are not memories). What comes
back lists the memories created or changed, each with mem0's event (``EVENTS``; README
"mem0-compatible add").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, TypedDict

from memfold.engine.context import Context
from memfold.engine.conversation.extract import extract
from memfold.errors import InvalidInput
from memfold.judge.base import Judge
from memfold.model import Action, AddResult, Area, Category, JSONDict, Scope, new_id
from memfold.policy.messages import Message, Role, clean_messages
from memfold.store.base import Store

# mem0's event for each memfold on-save action (None: not decided yet, as in the
# background, queue and off modes, where the memory is stored and judged later).
EVENTS: dict[Action | None, str] = {
    None: "ADD",
    Action.ADD: "ADD",
    Action.KEEP_SEPARATE: "ADD",
    Action.SKIP: "ADD",
    Action.UPDATE: "UPDATE",  # "NONE" when the restatement left the text as it was
    Action.MERGE: "UPDATE",
    Action.REPLACE: "UPDATE",
    Action.DELETE: "DELETE",
}


class AddOptions(TypedDict, total=False):
    """``Memory.add``'s keywords for one text."""

    user_id: str | None
    agent_id: str | None
    session_id: str | None
    area: str | Area
    category: str | Category | None
    importance: float
    sources: Sequence[str] | None
    metadata: Mapping[str, Any] | None
    embedding: Sequence[float] | None
    created_at: datetime | str | None
    expires_at: datetime | str | None
    ttl: timedelta | float | None
    idempotency_key: str | None


class MessagesOptions(TypedDict, total=False):
    """``Memory.add(messages=...)``'s keywords: the scope, metadata for every memory
    saved, a category, an importance and an expiry for each."""

    user_id: str | None
    agent_id: str | None
    session_id: str | None
    metadata: Mapping[str, Any] | None
    expires_at: datetime | str | None
    category: str | Category | None
    importance: float
    idempotency_key: str | None


@dataclass(frozen=True, slots=True)
class MemoryEvent:
    """One memory the call created or changed, as mem0 reports it, with memfold's own
    action (None: not decided yet) and the memory's area."""

    id: str
    memory: str
    event: str
    area: Area
    action: str | None = None
    replaces: tuple[str, ...] = ()

    def to_dict(self) -> JSONDict:
        out: JSONDict = {"id": self.id, "memory": self.memory, "event": self.event}
        out.update(area=self.area.value, action=self.action)
        if self.replaces:
            out["replaces"] = list(self.replaces)
        return out


@dataclass(slots=True)
class MessagesAddResult:
    """``results`` in mem0's shape (``to_dict()``: ``{"results": [...]}``); ``messages``
    the checked messages with the ids their memories name as sources."""

    results: list[MemoryEvent] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)
    added: list[AddResult] = field(default_factory=list)
    # True: an earlier add's result, given back for its idempotency_key (``messages``
    # then empty; engine/idempotency.py).
    replayed: bool = False

    def to_dict(self) -> JSONDict:
        return {"results": [r.to_dict() for r in self.results]}


# Options that fit one text only; an expiry (``expires_at``) applies to every memory
# the call saves (mem0's ``expiration_date``).
_PER_TEXT = ("area", "sources", "embedding", "created_at", "ttl")


def events_of(store: Store, result: AddResult) -> list[MemoryEvent]:
    """What one saved text did, in mem0's events (see ``EVENTS``)."""
    record, decision = result.memory, result.decision
    action = None if decision is None else decision.action
    name = None if action is None else action.value
    own = MemoryEvent(record.id, record.text, EVENTS.get(action, "ADD"), record.area, name)
    if decision is None or action is None or not action.mutating:
        return [own]
    targets = store.get_memories(decision.target_ids)
    if action is Action.UPDATE:
        kept = targets.get(decision.target_ids[0]) if decision.target_ids else None
        if kept is None:
            return [own]
        event = "UPDATE" if decision.text and decision.text != record.text else "NONE"
        return [MemoryEvent(kept.id, kept.text, event, kept.area, name)]
    if action is Action.MERGE and record.superseded_by:
        merged = store.get_memory(record.superseded_by) or record
        replaced = tuple(decision.target_ids)
        return [MemoryEvent(merged.id, merged.text, "UPDATE", merged.area, name, replaced)]
    if action is Action.REPLACE:
        return [MemoryEvent(record.id, record.text, "UPDATE", record.area, name, tuple(targets))]
    gone = [MemoryEvent(t.id, t.text, "DELETE", t.area, name) for t in targets.values()]
    return [*gone, MemoryEvent(record.id, record.text, "ADD", record.area, name)]


def add_messages(
    ctx: Context,
    judge: Judge,
    add_one: Callable[..., AddResult],
    text: object,
    messages: object,
    *,
    infer: bool,
    scope: Scope,
    options: Mapping[str, Any],
) -> MessagesAddResult:
    """See the module docstring. ``add_one`` is ``Memory.add`` for one text;
    ``options`` the other keywords ``Memory.add`` was given."""
    if text is not None and messages is not None:
        raise InvalidInput("give either a text or messages=[...], not both")
    if not isinstance(infer, bool):
        raise InvalidInput(f"infer must be true or false, got {infer!r}")
    given = [k for k in _PER_TEXT if options.get(k) not in (None, Area.MAIN)]
    if given:
        raise InvalidInput(f"add(messages=...) does not take {', '.join(given)}")
    cfg = ctx.settings.store
    cleaned = clean_messages(
        messages,
        max_chars=cfg.max_text_chars,
        max_metadata_depth=cfg.max_metadata_depth,
        max_metadata_bytes=cfg.max_metadata_bytes,
    )
    now = ctx.clock()
    session = scope.key()
    if scope.session_id is not None:  # the session's transcript: real message ids
        stored = ctx.store.append_messages(session, cleaned, now)
    else:
        stored = [
            Message(new_id(), session, n, m.role, m.content, m.created_at or now, m.metadata)
            for n, m in enumerate(cleaned)
        ]
    out = MessagesAddResult(messages=stored)
    base = dict(metadata=options.get("metadata"), **scope.as_dict())
    base.update(category=options.get("category"), importance=options.get("importance", 0.5))
    base.update(expires_at=options.get("expires_at"))
    meta = dict(options.get("metadata") or {})
    max_sources = ctx.settings.store.max_sources
    if infer:
        for found in extract(ctx, judge, stored, scope):
            extra = {**meta, "extracted_by": found.by}
            sources = list(found.sources[:max_sources])
            kw = {**base, "metadata": extra}
            out.added.append(add_one(found.text, area=found.area, sources=sources, **kw))
    else:
        for message in stored:
            if message.role is Role.SYSTEM:
                continue
            extra = {**meta, **message.metadata, "role": message.role.value}
            kw = {**base, "metadata": extra, "created_at": message.created_at}
            out.added.append(
                add_one(message.content, area=Area.FRAGMENTS, sources=[message.id], **kw)
            )
    for result in out.added:
        out.results.extend(events_of(ctx.store, result))
    return out
