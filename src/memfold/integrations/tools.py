"""Tool schemas for OpenAI-style function calling, and a dispatcher that runs them.

    tools = MemoryTools(mem, user_id="alice")
    reply = client.chat.completions.create(model=..., messages=..., tools=tools.schemas())
    for call in reply.choices[0].message.tool_calls or []:
        result = tools.dispatch(call.function.name, call.function.arguments)

or in one call, ``dispatch(mem, name, arguments, user_id="alice")``.

Five tools: ``memory_add``, ``memory_search``, ``memory_update``, ``memory_delete`` and
``memory_undo``. The scope is bound by the caller, never chosen by the model: a tool
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
from memfold.memory import Memory
from memfold.model import MemoryRecord
from memfold.policy.validate import clean_scope

JSONResult = dict[str, Any]


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class AddArgs(_Args):
    """Save one fact, preference or event worth remembering about the user."""

    text: str = Field(min_length=1, description="The memory, one self-contained sentence.")
    importance: float = Field(0.5, ge=0.0, le=1.0, description="0 trivial .. 1 vital.")


class SearchArgs(_Args):
    """Find memories relevant to a question or topic, best first."""

    query: str = Field(min_length=1, description="What to look for, in plain words.")
    k: int = Field(5, ge=1, le=20, description="How many memories to return.")


class UpdateArgs(_Args):
    """Rewrite a memory whose fact changed (keeps its history; undoable)."""

    memory_id: str = Field(min_length=1, description="The id a search returned.")
    text: str = Field(min_length=1, description="The corrected memory.")


class DeleteArgs(_Args):
    """Forget a memory that is wrong or no longer wanted (undoable)."""

    memory_id: str = Field(min_length=1, description="The id a search returned.")


class UndoArgs(_Args):
    """Undo the latest change to a memory (an update, a delete or a merge)."""

    memory_id: str = Field(min_length=1, description="The id of the memory to restore.")


_ARGS: dict[str, type[_Args]] = {
    "memory_add": AddArgs,
    "memory_search": SearchArgs,
    "memory_update": UpdateArgs,
    "memory_delete": DeleteArgs,
    "memory_undo": UndoArgs,
}


def tool_schemas() -> list[JSONResult]:
    """The five tools as OpenAI ``tools`` entries (JSON schema of each one's arguments)."""
    out: list[JSONResult] = []
    for name, model in _ARGS.items():
        schema = model.model_json_schema()
        schema.pop("title", None)
        schema.pop("description", None)
        for prop in schema.get("properties", {}).values():
            prop.pop("title", None)
        out.append(
            {
                "type": "function",
                "function": {
                    "name": name,
                    "description": (model.__doc__ or "").strip(),
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
            "memory_add": self._add,
            "memory_search": self._search,
            "memory_update": self._update,
            "memory_delete": self._delete,
            "memory_undo": self._undo,
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

    def _add(self, args: AddArgs) -> JSONResult:
        s = self.scope
        result = self.memory.add(
            args.text,
            importance=args.importance,
            user_id=s.user_id,
            agent_id=s.agent_id,
            session_id=s.session_id,
        )
        action = "ADD" if result.decision is None else result.decision.action.value
        return {"id": result.memory.id, "text": result.memory.text, "action": action}

    def _search(self, args: SearchArgs) -> JSONResult:
        s = self.scope
        hits = self.memory.search(
            args.query, k=args.k, user_id=s.user_id, agent_id=s.agent_id, session_id=s.session_id
        )
        return {
            "results": [
                {"id": h.memory.id, "text": h.memory.text, "score": round(h.score, 4)} for h in hits
            ]
        }

    def _update(self, args: UpdateArgs) -> JSONResult:
        record = self._mine(args.memory_id)
        updated = self.memory.update(record.id, text=args.text, reason="tool call")
        return {"id": updated.id, "text": updated.text, "version": updated.version}

    def _delete(self, args: DeleteArgs) -> JSONResult:
        record = self._mine(args.memory_id)
        deleted = self.memory.delete(record.id, reason="tool call")
        return {"id": deleted.id, "status": deleted.status.value}

    def _undo(self, args: UndoArgs) -> JSONResult:
        record = self._mine(args.memory_id)
        open_changes = [
            e for e in self.memory.history(record.id) if e.undone_by is None and e.undoes is None
        ]
        if not open_changes:
            return {"error": f"memory {record.id!r} has no change to undo"}
        undone = self.memory.undo(open_changes[-1].id)
        after = self.memory.get(record.id)
        return {"id": after.id, "text": after.text, "status": after.status.value, "log": undone}


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
