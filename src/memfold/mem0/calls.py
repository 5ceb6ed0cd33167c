"""mem0's calls on a memfold ``Memory``, in mem0's shapes: the one implementation the
Python drop-in (``memfold.mem0.Memory``) and the service's mem0 routes share.

Each takes the scope already settled (the service settles it from the caller's key)
and returns what mem0 2.x returns. Consolidation runs under them as under
``Memory.add``; what mem0 reports as DELETE is memfold's archive or supersede, which
``memfold undo`` brings back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memfold.engine.conversation.add import MessagesAddResult
from memfold.errors import InvalidInput
from memfold.mem0 import shapes
from memfold.memory import Memory
from memfold.model import JSONDict, MemoryRecord, Scope, Status

#: mem0's default for search and get_all
DEFAULT_TOP_K = 20


def as_messages(messages: object) -> list[dict[str, Any]]:
    """mem0's three forms of ``messages``: a string (one user message), one message
    dict, or a list of them."""
    if isinstance(messages, str):
        return [{"role": "user", "content": messages}]
    if isinstance(messages, Mapping):
        return [dict(messages)]
    if isinstance(messages, list | tuple):
        return list(messages)
    raise InvalidInput(f"messages must be str, dict, or list[dict], got {type(messages).__name__}")


def add(
    memory: Memory,
    scope: Scope,
    messages: object,
    *,
    metadata: Mapping[str, Any] | None = None,
    infer: bool = True,
    expires_at: str | None = None,
) -> JSONDict:
    """``{"results": [{"id", "memory", "event"}, ...]}``: the memories created or
    changed (events ADD, UPDATE, DELETE)."""
    if not isinstance(infer, bool):
        raise InvalidInput(f"infer must be true or false, got {type(infer).__name__}")
    done: MessagesAddResult = memory.add(
        messages=as_messages(messages),
        infer=infer,
        user_id=scope.user_id,
        agent_id=scope.agent_id,
        session_id=scope.session_id,
        metadata=metadata,
        expires_at=expires_at,
    )
    results = [{"id": e.id, "memory": e.memory, "event": e.event} for e in done.results]
    return {"results": results}


def search(
    memory: Memory,
    scope: Scope,
    query: object,
    *,
    where: Mapping[str, Any] | None = None,
    top_k: object = DEFAULT_TOP_K,
    threshold: object = None,
    show_expired: bool = False,
    keyword: bool = False,
) -> JSONDict:
    """``{"results": [item + score, ...]}``, best first. ``threshold`` (0..1): the least
    cosine similarity to the query a hit may have; ``keyword``: keyword search only."""
    k = _top_k(top_k)
    if isinstance(query, str):
        query = query.strip()
    if threshold is not None and not (
        isinstance(threshold, int | float) and not isinstance(threshold, bool)
    ):
        raise InvalidInput(f"threshold must be a number, got {type(threshold).__name__}")
    if threshold is not None and not 0 <= threshold <= 1:
        raise InvalidInput(f"threshold must be between 0 and 1, got {threshold!r}")
    if k == 0:
        return {"results": []}
    hits = memory.search(
        query,  # type: ignore[arg-type]  # checked by memfold
        user_id=scope.user_id,
        agent_id=scope.agent_id,
        session_id=scope.session_id,
        k=k,
        filters=where,
        threshold=None if keyword else threshold,
        mode="keyword" if keyword else "hybrid",
        deep=show_expired,
    )
    results = [
        shapes.item(h.memory, round(h.score, 6))
        for h in hits
        if shapes.served(h.memory, show_expired=show_expired)
    ]
    return {"results": results}


def get_all(
    memory: Memory,
    scope: Scope,
    *,
    where: Mapping[str, Any] | None = None,
    top_k: object = DEFAULT_TOP_K,
    offset: int = 0,
    show_expired: bool = False,
) -> list[JSONDict]:
    """The scope's memories (oldest first), at most ``top_k`` after ``offset``."""
    k = _top_k(top_k)
    if k == 0:
        return []
    status = None if show_expired else Status.ACTIVE
    records = memory.list(
        user_id=scope.user_id,
        agent_id=scope.agent_id,
        session_id=scope.session_id,
        status=status,
        filters=where,
        limit=None if show_expired else k,
        offset=0 if show_expired else offset,
    )
    if show_expired:  # active and expired, paged here
        kept = [r for r in records if shapes.served(r, show_expired=True)]
        records = kept[offset : offset + k]
    return [shapes.item(r) for r in records]


def count(memory: Memory, scope: Scope, where: Mapping[str, Any] | None = None) -> int:
    """How many active memories ``get_all`` would page through."""
    records = memory.list(
        user_id=scope.user_id,
        agent_id=scope.agent_id,
        session_id=scope.session_id,
        filters=where,
        limit=None,
    )
    return len(records)


def update(
    memory: Memory, record: MemoryRecord, *, text: object = None, metadata: object = None
) -> MemoryRecord:
    """A new text and/or metadata (memfold: version + 1, logged, undoable)."""
    if text is None and metadata is None:
        raise InvalidInput("give text or metadata to update")
    if metadata is not None and not isinstance(metadata, Mapping):
        raise InvalidInput(f"metadata must be a dict, got {type(metadata).__name__}")
    return memory.update(
        record.id,
        text=text,  # type: ignore[arg-type]  # checked by memfold
        metadata=None if metadata is None else {**record.metadata, **metadata},
        reason="mem0 update",
    )


def history(memory: Memory, record: MemoryRecord) -> list[JSONDict]:
    return shapes.history(record, memory.history(record.id))


def _top_k(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(f"top_k must be an integer, got {type(value).__name__}")
    if value < 0:
        raise InvalidInput(f"top_k must be 0 or more, got {value}")
    return value
