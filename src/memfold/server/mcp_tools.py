"""The tools of ``memfold mcp``: memfold's API as MCP tools, bound to one caller's scope.

A tool never takes a user or agent id: who is calling (an API key, or the fixed scope
``memfold mcp --user-id`` was started with) comes from ``caller()``, so the model can
neither name nor reach another scope. An id outside the caller's scope is "not found",
with the message an unknown id gets. memfold's own errors (bad input, unknown ids,
refused undos) become MCP tool errors carrying their message; they are raised before
anything is written, so a failed call changes nothing.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Annotated, Any, Literal, ParamSpec, TypeVar

from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import BaseModel, Field

from memfold.engine.review.runs import breaker_state
from memfold.errors import InvalidInput, MemfoldError
from memfold.memory import Memory
from memfold.model import ApiKey, ConsolidateMode, MemoryRecord, Role, Scope, views
from memfold.policy.validate import INT64_MAX, clean_scope
from memfold.server.auth import may_see, owned_memory
from memfold.server.visibility import log_visible, owned_log

JSON = dict[str, Any]
# Rows of memories that need not be active show their status.
_WITH_STATUS = views.fields_of(["status"], match=False)
# get_memory lists at most this many linked memories (kind, direction, id each).
_MCP_LINKS = 20
P = ParamSpec("P")
R = TypeVar("R")

# No description: the name says it, and five tools would repeat it in every tools/list.
MemoryId = str
Importance = Annotated[float, Field(ge=0.0, le=1.0, description="0 trivial .. 1 vital.")]
Metadata = Annotated[
    dict[str, Any] | None,
    Field(description='e.g. {"topic": "work"}'),
]


class ChatMessage(BaseModel):
    """One message of a conversation."""

    role: Literal["user", "assistant", "system"]
    content: str


def tool_errors(fn: Callable[P, R]) -> Callable[P, R]:
    """memfold's errors as MCP tool errors (the model reads the message and can retry)."""

    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except MemfoldError as exc:
            raise ToolError(str(exc)) from exc

    return run


class MemoryTools:
    """The tools over ``memory``; ``caller()`` names the key whose scope and role apply
    to the call under way (on HTTP, the request's bearer key)."""

    READ = ("search_memories", "get_memory", "list_memories", "memory_history", "review_status")
    WRITE = (
        "add_memory",
        "add_messages",
        "update_memory",
        "delete_memory",
        "undo_change",
    )

    def __init__(self, memory: Memory, caller: Callable[[], ApiKey]) -> None:
        self.memory = memory
        self.caller = caller

    def hints(self, name: str) -> ToolAnnotations:
        """Only the hints that differ from MCP's defaults (not read-only, destructive,
        not idempotent, open world): each costs every tools/list its characters."""
        if name in self.READ:
            return ToolAnnotations(read_only_hint=True, open_world_hint=False)
        if name in ("add_memory", "add_messages"):
            return ToolAnnotations(destructive_hint=False, open_world_hint=False)
        return ToolAnnotations(open_world_hint=False)

    # --- who is calling ---------------------------------------------------------------

    def _key(self, needed: Role) -> tuple[ApiKey, Scope]:
        key = self.caller()
        if not key.role.allows(needed):
            raise ToolError(
                f"this tool needs a {needed.value} key; the key in use is {key.role.value}"
            )
        if key.user_id is None:
            raise ToolError(
                "this key names no user, and MCP tools act in one scope: use a key bound to a "
                "user (memfold keys create --user-id U), or start memfold mcp with --user-id"
            )
        default = self.memory.settings.store.default_user_id
        return key, clean_scope(key.user_id, key.agent_id, None, default_user_id=default)

    def _page(self, value: int) -> int:
        cap = self.memory.settings.server.max_page_size
        if not 1 <= value <= cap:
            raise InvalidInput(f"limit must be between 1 and {cap}, got {value}")
        return value

    def _latest_log_id(self, memory_id: str) -> int | None:
        rows = self.memory.history(memory_id)
        return rows[-1].id if rows else None

    # --- writing ------------------------------------------------------------------------

    @tool_errors
    def add_memory(
        self,
        text: Annotated[str, Field(description="One self-contained sentence.")],
        importance: Importance = 0.5,
        metadata: Metadata = None,
    ) -> JSON:
        """One text through ``Memory.add`` in the caller's scope."""
        _, scope = self._key(Role.WRITE)
        result = self.memory.add(
            text,
            importance=importance,
            metadata=metadata,
            user_id=scope.user_id,
            agent_id=scope.agent_id,
        )
        decision = result.decision
        # No decision: nothing similar to weigh (sync, off), or decided later (background,
        # queue: null).
        stored_as_is = self.memory.mode in (ConsolidateMode.SYNC, ConsolidateMode.OFF)
        action = decision.action.value if decision else ("ADD" if stored_as_is else None)
        return views.change(
            result.memory, action=action, log_id=result.log_id, warnings=result.warnings
        )

    @tool_errors
    def add_messages(
        self,
        messages: Annotated[
            list[ChatMessage],
            Field(min_length=1, description="Oldest first."),
        ],
        infer: Annotated[
            bool,
            Field(description="false: store each message as it is."),
        ] = True,
    ) -> JSON:
        """``Memory.add(messages=...)`` in the caller's scope."""
        _, scope = self._key(Role.WRITE)
        result = self.memory.add(
            messages=[m.model_dump() for m in messages],
            infer=infer,
            user_id=scope.user_id,
            agent_id=scope.agent_id,
        )
        return {
            "results": [{"id": e.id, "text": e.memory, "event": e.event} for e in result.results]
        }

    @tool_errors
    def update_memory(
        self,
        memory_id: MemoryId,
        text: str | None = None,
        importance: Annotated[float | None, Field(ge=0.0, le=1.0)] = None,
        metadata: Metadata = None,
    ) -> JSON:
        """``Memory.update`` of one of the caller's memories."""
        key, _ = self._key(Role.WRITE)
        record = owned_memory(key, self.memory, memory_id)
        if text is None and importance is None and metadata is None:
            raise InvalidInput("give at least one of text, importance, metadata")
        updated = self.memory.update(
            record.id, text=text, importance=importance, metadata=metadata, reason="mcp tool"
        )
        return views.change(updated, log_id=self._latest_log_id(updated.id))

    @tool_errors
    def delete_memory(self, memory_id: MemoryId) -> JSON:
        """``Memory.delete`` (archive) of one of the caller's memories."""
        key, _ = self._key(Role.WRITE)
        record = owned_memory(key, self.memory, memory_id)
        deleted = self.memory.delete(record.id, reason="mcp tool")
        return views.change(deleted, log_id=self._latest_log_id(deleted.id))

    @tool_errors
    def undo_change(
        self,
        log_id: Annotated[
            int,
            Field(
                ge=1,
                le=INT64_MAX,
                description="From a write tool or memory_history.",
            ),
        ],
    ) -> JSON:
        """``Memory.undo`` of a log row the caller may see (no cascade)."""
        key, _ = self._key(Role.WRITE)
        entry = owned_log(key, self.memory, log_id)
        written = self.memory.undo(
            entry.id, may_undo=lambda row: log_visible(key, self.memory, row)
        )
        now = self.memory.store.get_memories({*entry.input_ids, *entry.output_ids})
        return views.undone(entry, written, now)

    # --- reading ------------------------------------------------------------------------

    @tool_errors
    def search_memories(
        self,
        query: str,
        limit: Annotated[int, Field(ge=1)] = 5,
        filters: Annotated[
            dict[str, Any] | None, Field(description='e.g. {"topic": "work"}')
        ] = None,
    ) -> JSON:
        """``Memory.search`` of the caller's scope; hits in the one shape (model/views)."""
        _, scope = self._key(Role.READ)
        hits = self.memory.search(
            query,
            k=self._page(limit),
            filters=filters,
            user_id=scope.user_id,
            agent_id=scope.agent_id,
        )
        return {"results": [views.hit(h) for h in hits]}

    @tool_errors
    def get_memory(self, memory_id: MemoryId) -> JSON:
        """The whole record (every field): what the lean shapes leave out."""
        key, _ = self._key(Role.READ)
        record = owned_memory(key, self.memory, memory_id)
        around = self.memory.links(
            record.id, max_nodes=_MCP_LINKS, may_see=lambda other: may_see(key, other.scope)
        )
        links = [
            {"kind": lk.kind.value, "direction": lk.direction, "id": lk.id} for lk in around.links
        ]
        return {**record.to_dict(), "links": links}

    @tool_errors
    def list_memories(
        self,
        limit: Annotated[int, Field(ge=1)] = 50,
        offset: Annotated[int, Field(ge=0)] = 0,
        status: Literal["active", "superseded", "archived", "expired", "all"] = "active",
    ) -> JSON:
        """``Memory.list`` of the caller's scope, in rows (model/views)."""
        _, scope = self._key(Role.READ)
        rows: list[MemoryRecord] = self.memory.list(
            user_id=scope.user_id,
            agent_id=scope.agent_id,
            status=None if status == "all" else status,
            limit=self._page(limit),
            offset=offset,
        )
        size = self._page(limit)
        more = len(rows) == size
        shown = None if status == "active" else _WITH_STATUS
        return {"results": views.rows(rows, shown), "next_offset": offset + size if more else None}

    @tool_errors
    def memory_history(self, memory_id: MemoryId) -> JSON:
        """The log rows the caller may see, each as the text before and after."""
        key, _ = self._key(Role.READ)
        record = owned_memory(key, self.memory, memory_id)
        return {
            "id": record.id,
            "changes": [
                views.log_change(e, record.id)
                for e in self.memory.history(record.id)
                if log_visible(key, self.memory, e)  # a row naming another scope is not shown
            ],
        }

    @tool_errors
    def review_status(self) -> JSON:
        """The caller's held and to-review queue items and the breaker."""
        key, _ = self._key(Role.READ)
        items = self.memory.store.queue_items(statuses=["held", "review"])
        mine = [it for it in items if may_see(key, Scope.from_key(it.scope_key))]
        breaker = breaker_state(self.memory.ctx)
        return {
            "breaker_open": bool(breaker.get("open")),
            "kill_switch": self.memory.settings.review.kill_switch,
            "held": [it.to_dict() for it in mine if it.status == "held"],
            "to_review": [it.to_dict() for it in mine if it.status == "review"],
        }

    def tools(self, role: Role | None) -> list[Callable[..., JSON]]:
        """The tools a key of ``role`` may call (None: every tool; each call checks)."""
        names = self.READ if role is Role.READ else (*self.WRITE, *self.READ)
        return [getattr(self, name) for name in names]
