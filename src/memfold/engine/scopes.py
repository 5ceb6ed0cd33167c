"""Scopes as a whole: which ones hold memories (``list_scopes``), and archiving every
active memory of one (``delete_all``: soft, logged, undoable)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field

from memfold.engine.changes import ChangeSet, commit
from memfold.engine.context import Context
from memfold.errors import InvalidInput
from memfold.model import JSONDict, MemoryRecord, Scope, Status, utcnow
from memfold.policy.validate import clean_scope

DELETE_ALL_ACTION = "ARCHIVE_ALL"


@dataclass(frozen=True, slots=True)
class ScopeInfo:
    """One scope that holds memories: its ids, its active memories and all of them
    (active, superseded, archived, expired)."""

    user_id: str | None
    agent_id: str | None
    session_id: str | None
    active: int
    total: int

    @property
    def scope(self) -> Scope:
        return Scope(self.user_id, self.agent_id, self.session_id)

    def to_dict(self) -> JSONDict:
        return asdict(self)


@dataclass
class DeleteAllResult:
    """What ``delete_all`` archived: the memory ids (oldest first) and the log entries
    that did it; ``Memory.undo`` of each entry restores its memories exactly."""

    deleted: list[str] = field(default_factory=list)
    log_ids: list[int] = field(default_factory=list)

    def to_dict(self) -> JSONDict:
        return asdict(self)


def _scope_ids(user_id: object, agent_id: object, session_id: object) -> dict[str, str | None]:
    given = {"user_id": user_id, "agent_id": agent_id, "session_id": session_id}
    if all(v is None for v in given.values()):
        return {k: None for k in given}
    checked = clean_scope(user_id, agent_id, session_id)  # types and characters
    return {k: (None if given[k] is None else v) for k, v in checked.as_dict().items()}


def list_scopes(
    ctx: Context, *, user_id: object = None, agent_id: object = None, session_id: object = None
) -> list[ScopeInfo]:
    """Every scope holding memories (any status) whose ids match the given ones (None
    matches any), ordered by user, agent, session."""
    ids = _scope_ids(user_id, agent_id, session_id)
    out: list[ScopeInfo] = []
    for key, active, total in ctx.store.scope_counts(**ids):
        scope = Scope.from_key(key)
        out.append(ScopeInfo(scope.user_id, scope.agent_id, scope.session_id, active, total))
    return out


def delete_all(
    ctx: Context,
    *,
    user_id: object = None,
    agent_id: object = None,
    session_id: object = None,
    reason: object = "",
) -> DeleteAllResult:
    """Archive every active memory whose scope has the given ids (None matches any; at
    least one id is required). One transaction: all of them or none. Logged as
    ARCHIVE_ALL entries of at most ``store.delete_all_batch`` memories each, each of
    one scope."""
    ids = _scope_ids(user_id, agent_id, session_id)
    if all(v is None for v in ids.values()):
        raise InvalidInput(
            "delete_all needs user_id, agent_id or session_id; it refuses to delete "
            "every memory of the store"
        )
    if not isinstance(reason, str):
        raise InvalidInput(f"reason must be a string, got {type(reason).__name__}")
    batch = ctx.settings.store.delete_all_batch
    described = ", ".join(f"{k}={v!r}" for k, v in ids.items() if v is not None)
    result = DeleteAllResult()
    store = ctx.store
    with store.transaction():  # BEGIN IMMEDIATE: nothing changes them meanwhile
        targets = store.active_ids_in(ids["user_id"], ids["agent_id"], ids["session_id"])
        for start in range(0, len(targets), batch):
            records = store.get_memories(targets[start : start + batch])
            # One log row never spans two scopes: each tenant's rows are its own to
            # read and to undo.
            for chunk in by_scope(records[mid] for mid in targets[start : start + batch]):
                result.log_ids.append(_archive(ctx, chunk, reason or f"delete_all {described}"))
                result.deleted.extend(r.id for r in chunk)
    return result


def by_scope(records: Iterable[MemoryRecord]) -> list[list[MemoryRecord]]:
    """``records`` grouped by scope (user, agent and session), in first-seen order."""
    groups: dict[str, list[MemoryRecord]] = {}
    for record in records:
        groups.setdefault(record.scope.key(), []).append(record)
    return list(groups.values())


def _archive(ctx: Context, records: Sequence[MemoryRecord], reasoning: str) -> int:
    """One logged change archiving ``records`` (all of one scope)."""
    now = utcnow()
    change = ChangeSet(
        path="api",
        action=DELETE_ALL_ACTION,
        input_ids=[r.id for r in records],
        reasoning=reasoning,
        judge="user",
    )
    for current in records:
        change.expected[current.id] = current.version
        change.writes.append(
            current.copy(
                status=Status.ARCHIVED, version=current.version + 1, updated_at=now, valid_to=now
            )
        )
    return commit(ctx, change)
