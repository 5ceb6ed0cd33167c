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
from memfold.model import ApiKey, ConsolidateMode, MemoryRecord, Role, Scope
from memfold.policy.validate import INT64_MAX, clean_scope
from memfold.server.auth import may_see, owned_memory
from memfold.server.visibility import log_visible, owned_log

JSON = dict[str, Any]
P = ParamSpec("P")
R = TypeVar("R")

MemoryId = Annotated[
    str,
    Field(
        description="The memory's full id, as add_memory, search_memories or list_memories gave it."
    ),
]
Importance = Annotated[
    float, Field(ge=0.0, le=1.0, description="How much it matters: 0 trivial .. 1 vital.")
]
Metadata = Annotated[
    dict[str, Any] | None,
    Field(description='Optional JSON object stored with the memory, e.g. {"topic": "work"}.'),
]


class ChatMessage(BaseModel):
    """One message of a conversation."""

    role: Literal["user", "assistant", "system"] = Field(description="Who wrote it.")
    content: str = Field(description="What was said.")


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
        return ToolAnnotations(
            read_only_hint=name in self.READ,
            destructive_hint=name in ("delete_memory", "update_memory", "undo_change"),
            idempotent_hint=name in self.READ,
            open_world_hint=False,
        )

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
        text: Annotated[
            str, Field(description="The memory: one self-contained fact, preference or event.")
        ],
        importance: Importance = 0.5,
        metadata: Metadata = None,
    ) -> JSON:
        """Save one thing worth remembering about the user or the task (a fact, a
        preference, a decision, an event). Call it when the conversation reveals something
        that should still be known in a later session; search first to avoid saving what is
        already known. memfold consolidates it with similar memories (it may merge into or
        update one). Returns the stored memory, what consolidation did (action: ADD, MERGE,
        UPDATE, ... or null when decided later), the log id of that decision, and warnings."""
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
        return {
            "memory": result.memory.to_dict(),
            "action": action,
            "decision": None if decision is None else decision.to_dict(),
            "log_id": result.log_id,
            "warnings": list(result.warnings),
        }

    @tool_errors
    def add_messages(
        self,
        messages: Annotated[
            list[ChatMessage],
            Field(min_length=1, description="The conversation turns, oldest first."),
        ],
        infer: Annotated[
            bool,
            Field(description="true: extract the facts worth keeping; false: store each turn."),
        ] = True,
    ) -> JSON:
        """Save what a conversation revealed: memfold extracts the facts worth keeping from
        the messages (infer=true) and consolidates them. Call it at the end of an exchange
        instead of several add_memory calls. Returns mem0-style results: one entry per
        memory created or changed, with its id, text and event (ADD, UPDATE, DELETE, NONE)."""
        _, scope = self._key(Role.WRITE)
        result = self.memory.add(
            messages=[m.model_dump() for m in messages],
            infer=infer,
            user_id=scope.user_id,
            agent_id=scope.agent_id,
        )
        return result.to_dict()

    @tool_errors
    def update_memory(
        self,
        memory_id: MemoryId,
        text: Annotated[str | None, Field(description="The corrected text, if it changes.")] = None,
        importance: Annotated[
            float | None, Field(ge=0.0, le=1.0, description="A new importance, 0 .. 1.")
        ] = None,
        metadata: Metadata = None,
    ) -> JSON:
        """Correct a memory whose fact changed or was wrong (give at least one of text,
        importance, metadata). The old version stays in its history and the change can be
        undone. Returns the updated memory and the log id of the change."""
        key, _ = self._key(Role.WRITE)
        record = owned_memory(key, self.memory, memory_id)
        if text is None and importance is None and metadata is None:
            raise InvalidInput("give at least one of text, importance, metadata")
        updated = self.memory.update(
            record.id, text=text, importance=importance, metadata=metadata, reason="mcp tool"
        )
        return {"memory": updated.to_dict(), "log_id": self._latest_log_id(updated.id)}

    @tool_errors
    def delete_memory(self, memory_id: MemoryId) -> JSON:
        """Forget a memory that is wrong or no longer wanted. It is archived (no longer
        found by search), not erased, and undo_change with the returned log id brings it
        back. Returns the archived memory and the log id."""
        key, _ = self._key(Role.WRITE)
        record = owned_memory(key, self.memory, memory_id)
        deleted = self.memory.delete(record.id, reason="mcp tool")
        return {"memory": deleted.to_dict(), "log_id": self._latest_log_id(deleted.id)}

    @tool_errors
    def undo_change(
        self,
        log_id: Annotated[
            int,
            Field(
                ge=1,
                le=INT64_MAX,
                description="The change's log id (from memory_history, or a write tool).",
            ),
        ],
    ) -> JSON:
        """Undo one logged change (an update, a delete, a merge or another consolidation
        decision): the memories it touched return to their state before it. Call it when
        a change was a mistake. A change that later changes built on is refused (undo those
        first). Returns the ids of the undo's own log rows and the memories as they are now."""
        key, _ = self._key(Role.WRITE)
        entry = owned_log(key, self.memory, log_id)
        written = self.memory.undo(
            entry.id, may_undo=lambda row: log_visible(key, self.memory, row)
        )
        touched = sorted({*entry.input_ids, *entry.output_ids})
        now = self.memory.store.get_memories(touched)
        return {
            "undone": entry.id,
            "log_ids": written,
            "memories": [now[i].to_dict() for i in touched if i in now],
        }

    # --- reading ------------------------------------------------------------------------

    @tool_errors
    def search_memories(
        self,
        query: Annotated[str, Field(description="What to look for, in plain words.")],
        limit: Annotated[int, Field(ge=1, description="How many memories at most.")] = 5,
        filters: Annotated[
            dict[str, Any] | None,
            Field(description='Optional metadata filter, e.g. {"topic": "work"}.'),
        ] = None,
    ) -> JSON:
        """Find the memories most relevant to a question or topic (meaning and keywords),
        best first. Call it before answering anything that may depend on what is known about
        the user, and before add_memory. Returns {"results": [memory + score]}."""
        _, scope = self._key(Role.READ)
        hits = self.memory.search(
            query,
            k=self._page(limit),
            filters=filters,
            user_id=scope.user_id,
            agent_id=scope.agent_id,
        )
        return {"results": [{**h.memory.to_dict(), "score": round(h.score, 6)} for h in hits]}

    @tool_errors
    def get_memory(self, memory_id: MemoryId) -> JSON:
        """Read one memory by id, whatever its status (active, superseded, archived).
        Returns the memory with every field."""
        key, _ = self._key(Role.READ)
        return owned_memory(key, self.memory, memory_id).to_dict()

    @tool_errors
    def list_memories(
        self,
        limit: Annotated[int, Field(ge=1, description="Page size.")] = 50,
        offset: Annotated[int, Field(ge=0, description="Memories to skip (paging).")] = 0,
        status: Annotated[
            Literal["active", "superseded", "archived", "expired", "all"],
            Field(description="Which memories: active (default) or another status, or all."),
        ] = "active",
    ) -> JSON:
        """List the memories of this scope, oldest first, a page at a time. Call it to
        review everything known rather than to answer a question (use search_memories for
        that). Returns {"memories": [...], "offset", "limit"}."""
        _, scope = self._key(Role.READ)
        rows: list[MemoryRecord] = self.memory.list(
            user_id=scope.user_id,
            agent_id=scope.agent_id,
            status=None if status == "all" else status,
            limit=self._page(limit),
            offset=offset,
        )
        return {"memories": [r.to_dict() for r in rows], "offset": offset, "limit": limit}

    @tool_errors
    def memory_history(self, memory_id: MemoryId) -> JSON:
        """Every logged change of one memory, oldest first: its creation, edits, merges,
        deletes and undos, each with the state before and after and its log id (for
        undo_change). Call it to see why a memory reads as it does."""
        key, _ = self._key(Role.READ)
        record = owned_memory(key, self.memory, memory_id)
        return {
            "memory_id": record.id,
            "changes": [
                e.to_dict()
                for e in self.memory.history(record.id)
                if log_visible(key, self.memory, e)  # a row naming another scope is not shown
            ],
        }

    @tool_errors
    def review_status(self) -> JSON:
        """What waits for a person in this scope: merges held back for review and
        contradictions between memories, plus whether the review breaker is open (automatic
        merges paused). Call it before relying on memories that may contradict each other."""
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
