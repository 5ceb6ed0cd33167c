"""Tool schemas for OpenAI-style function calling, and a dispatcher that runs them.

    tools = MemoryTools(mem, user_id="alice")
    reply = client.chat.completions.create(model=..., messages=..., tools=tools.schemas())
    for call in reply.choices[0].message.tool_calls or []:
        result = tools.dispatch(call.function.name, call.function.arguments)

or in one call, ``dispatch(mem, name, arguments, user_id="alice")``.

Five tools, named, described and answered as ``memfold mcp``'s (tool_text, model/views):
``add_memory``, ``search_memories``, ``update_memory``, ``delete_memory`` and
``undo_change``. The scope is bound by the caller, never chosen by the model: a tool
call can only see and change memories of that scope (an id from another scope reads as
unknown). ``dispatch`` never raises for what a model can get wrong (an unknown tool,
arguments that are not JSON or do not validate, an unknown id, a text the store
refuses): it returns ``{"error": "..."}`` so the agent loop goes on and the model can
read what went wrong. Every other result is a JSON-serialisable dict.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memfold.errors import MemfoldError
from memfold.integrations.tool_text import DESCRIPTIONS
from memfold.memory import Memory
from memfold.model import LogEntry, MemoryRecord, views
from memfold.policy.validate import INT64_MAX, clean_scope

JSONResult = dict[str, Any]


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class AddArgs(_Args):
    text: str = Field(min_length=1, description="One self-contained sentence.")
    importance: float = Field(0.5, ge=0.0, le=1.0, description="0 trivial .. 1 vital.")
    metadata: dict[str, Any] | None = Field(None, description='e.g. {"topic": "work"}')


class SearchArgs(_Args):
    query: str = Field(min_length=1)
    limit: int = Field(5, ge=1, le=20)
    filters: dict[str, Any] | None = Field(None, description='e.g. {"topic": "work"}')


class UpdateArgs(_Args):
    memory_id: str = Field(min_length=1)
    text: str | None = Field(None, min_length=1)
    importance: float | None = Field(None, ge=0.0, le=1.0)
    metadata: dict[str, Any] | None = Field(None, description='e.g. {"topic": "work"}')


class DeleteArgs(_Args):
    memory_id: str = Field(min_length=1)


class UndoArgs(_Args):
    log_id: int = Field(ge=1, le=INT64_MAX, description="From a write tool.")


_ARGS: dict[str, type[_Args]] = {
    "add_memory": AddArgs,
    "search_memories": SearchArgs,
    "update_memory": UpdateArgs,
    "delete_memory": DeleteArgs,
    "undo_change": UndoArgs,
}


def tool_schemas() -> list[JSONResult]:
    """The five tools as OpenAI ``tools`` entries (JSON schema of each one's arguments)."""
    out: list[JSONResult] = []
    for name, model in _ARGS.items():
        schema = model.model_json_schema()
        schema.pop("title", None)
        for prop in schema.get("properties", {}).values():
            prop.pop("title", None)
        out.append(
            {
                "type": "function",
                "function": {
                    "name": name,
                    "description": DESCRIPTIONS[name],
                    "parameters": schema,
                },
            }
        )
    return out


class MemoryTools:
    """The tools bound to one Memory and one scope."""

    def __init__(
        self,
        memory: Memory,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
    ) -> None:
        self.memory = memory
        default = memory.settings.store.default_user_id
        self.scope = clean_scope(user_id, agent_id, session_id, default_user_id=default)
        self._run: dict[str, Callable[[Any], JSONResult]] = {
            "add_memory": self._add,
            "search_memories": self._search,
            "update_memory": self._update,
            "delete_memory": self._delete,
            "undo_change": self._undo,
        }

    def schemas(self) -> list[JSONResult]:
        return tool_schemas()

    def dispatch(self, name: str, arguments: str | Mapping[str, Any] | None) -> JSONResult:
        """Run one tool call; ``arguments`` as the model sent them (a JSON string) or a
        dict. A model's mistake comes back as ``{"error": ...}``."""
        model = _ARGS.get(name)
        if model is None:
            return {"error": f"unknown tool {name!r}; tools: {', '.join(_ARGS)}"}
        try:
            raw = json.loads(arguments) if isinstance(arguments, str) else (arguments or {})
        except json.JSONDecodeError as exc:
            return {"error": f"arguments are not JSON: {exc.msg} at position {exc.pos}"}
        if not isinstance(raw, Mapping):
            return {"error": "arguments must be a JSON object"}
        try:
            args = model.model_validate(raw)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in exc.errors()
            )
            return {"error": f"invalid arguments for {name}: {problems}"}
        try:
            return self._run[name](args)
        except MemfoldError as exc:
            return {"error": str(exc)}

    # --- the tools ---------------------------------------------------------------

    def _mine(self, memory_id: str) -> MemoryRecord:
        """The memory, if it is in the bound scope (else it reads as unknown)."""
        try:
            record = self.memory.get(memory_id)
        except MemfoldError:
            record = None
        if record is None or record.scope != self.scope:
            raise _Unknown(f"no memory {memory_id!r} in this scope")
        return record

    def _mine_log(self, log_id: int) -> LogEntry:
        """The log row, if every memory it names is in the bound scope."""
        entry = self.memory.store.get_log(log_id)
        ids = set() if entry is None else {*entry.input_ids, *entry.output_ids}
        found = self.memory.store.get_memories(ids)
        if entry is None or not found or any(r.scope != self.scope for r in found.values()):
            raise _Unknown(f"no change {log_id} in this scope")
        return entry

    def _latest_log_id(self, memory_id: str) -> int | None:
        rows = self.memory.history(memory_id)
        return rows[-1].id if rows else None

    def _add(self, args: AddArgs) -> JSONResult:
        s = self.scope
        result = self.memory.add(
            args.text,
            importance=args.importance,
            metadata=args.metadata,
            user_id=s.user_id,
            agent_id=s.agent_id,
            session_id=s.session_id,
        )
        action = "ADD" if result.decision is None else result.decision.action.value
        return views.change(
            result.memory, action=action, log_id=result.log_id, warnings=result.warnings
        )

    def _search(self, args: SearchArgs) -> JSONResult:
        s = self.scope
        hits = self.memory.search(
            args.query,
            k=args.limit,
            filters=args.filters,
            user_id=s.user_id,
            agent_id=s.agent_id,
            session_id=s.session_id,
        )
        return {"results": [views.hit(h) for h in hits]}

    def _update(self, args: UpdateArgs) -> JSONResult:
        record = self._mine(args.memory_id)
        if args.text is None and args.importance is None and args.metadata is None:
            return {"error": "give at least one of text, importance, metadata"}
        updated = self.memory.update(
            record.id,
            text=args.text,
            importance=args.importance,
            metadata=args.metadata,
            reason="tool call",
        )
        return views.change(updated, log_id=self._latest_log_id(updated.id))

    def _delete(self, args: DeleteArgs) -> JSONResult:
        record = self._mine(args.memory_id)
        deleted = self.memory.delete(record.id, reason="tool call")
        return views.change(deleted, log_id=self._latest_log_id(deleted.id))

    def _undo(self, args: UndoArgs) -> JSONResult:
        entry = self._mine_log(args.log_id)
        written = self.memory.undo(entry.id)
        now = self.memory.store.get_memories({*entry.input_ids, *entry.output_ids})
        return views.undone(entry, written, now)


def dispatch(
    memory: Memory,
    name: str,
    arguments: str | Mapping[str, Any] | None,
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    session_id: str | None = None,
) -> JSONResult:
    """``MemoryTools(memory, user_id=..., ...).dispatch(name, arguments)`` in one call."""
    tools = MemoryTools(memory, user_id=user_id, agent_id=agent_id, session_id=session_id)
    return tools.dispatch(name, arguments)


class _Unknown(MemfoldError):
    """An id outside the bound scope (or none at all)."""
