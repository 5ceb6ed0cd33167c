"""Changing what is stored by hand: update, delete, feedback (each logged and undoable)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from memfold import render
from memfold.cli.app import app
from memfold.cli.common import (
    AgentOpt,
    JsonOpt,
    MetadataOpt,
    PathOpt,
    SessionOpt,
    UserOpt,
    open_existing,
    parse_json_object,
    read_text,
)
from memfold.errors import InvalidInput
from memfold.memory import Memory

ReasonOpt = Annotated[str, typer.Option(help="Why (kept in the log).")]


def _last_log_id(mem: Memory, memory_id: str) -> int | None:
    entries = mem.history(memory_id)
    return entries[-1].id if entries else None


def _done(mem: Memory, verb: str, record_id: str, as_json: bool, data: dict[str, Any]) -> None:
    log_id = _last_log_id(mem, record_id)
    if as_json:
        render.print_json({**data, "log_id": log_id})
        return
    undo = f"; `memfold undo {log_id}` restores it" if log_id is not None else ""
    render.say(f"{verb} memory {render.short(record_id)} (log #{log_id}){undo}")


@app.command()
def update(
    memory_id: str,
    text: Annotated[str | None, typer.Argument(help="The new text ('-' reads stdin).")] = None,
    path: PathOpt = None,
    area: Annotated[str | None, typer.Option(help="Move it to this area.")] = None,
    importance: Annotated[float | None, typer.Option(help="0..1")] = None,
    metadata: MetadataOpt = None,
    reason: ReasonOpt = "",
    as_json: JsonOpt = False,
) -> None:
    """Edit a memory by hand: version + 1, re-embedded if the text changed, logged."""
    meta = parse_json_object(metadata, "--metadata")
    body = None if text is None else read_text(text)
    if body is None and area is None and importance is None and meta is None:
        raise InvalidInput("nothing to update: give TEXT, --area, --importance or --metadata")
    with open_existing(path) as mem:
        record = mem.update(
            memory_id, text=body, area=area, importance=importance, metadata=meta, reason=reason
        )
        if not as_json:
            render.console.print(render.memory_table([record], "updated"))
        _done(mem, "updated", record.id, as_json, {"memory": record.to_dict()})


@app.command()
def delete(
    memory_id: Annotated[str | None, typer.Argument(help="One memory (or --all).")] = None,
    path: PathOpt = None,
    all_: Annotated[
        bool, typer.Option("--all", help="Every active memory of --user/--agent/--session.")
    ] = False,
    user: UserOpt = None,
    agent: AgentOpt = None,
    session: SessionOpt = None,
    reason: ReasonOpt = "",
    as_json: JsonOpt = False,
) -> None:
    """Soft delete (archived, undoable): one memory, or a scope's with --all.

    --all: every active memory of --user/--agent/--session (unset ids match any).
    """
    scoped = user is not None or agent is not None or session is not None
    if all_:
        if memory_id is not None:
            raise InvalidInput("give a memory id or --all, not both")
        if not scoped:
            raise InvalidInput("--all needs --user, --agent or --session")
        _delete_all(path, user, agent, session, reason, as_json)
        return
    if memory_id is None:
        raise InvalidInput("give a memory id, or --all with --user/--agent/--session")
    if scoped:
        raise InvalidInput("--user/--agent/--session go with --all")
    with open_existing(path) as mem:
        record = mem.delete(memory_id, reason=reason)
        _done(mem, "archived", record.id, as_json, {"memory": record.to_dict()})


def _delete_all(
    path: Path | None,
    user: str | None,
    agent: str | None,
    session: str | None,
    reason: str,
    as_json: bool,
) -> None:
    with open_existing(path) as mem:
        result = mem.delete_all(user_id=user, agent_id=agent, session_id=session, reason=reason)
    if as_json:
        render.print_json(result.to_dict())
        return
    given = (("user", user), ("agent", agent), ("session", session))
    scope = ", ".join(f"{k} {v!r}" for k, v in given if v is not None)
    if not result.deleted:
        render.say(f"no active memories of {scope}: nothing archived")
        return
    n = len(result.deleted)
    logs = ", ".join(f"#{i}" for i in result.log_ids)
    undo = " ".join(f"`memfold undo {i}`" for i in result.log_ids)
    render.say(f"archived {n} {'memory' if n == 1 else 'memories'} of {scope} (log {logs})")
    render.say(f"to restore them: {undo}")


@app.command()
def feedback(
    memory_id: str,
    kind: Annotated[
        Literal["used", "ignored", "contradicted", "miss"],
        typer.Argument(help="How the recalled memory served."),
    ],
    path: PathOpt = None,
    context: Annotated[str | None, typer.Option(help="What the agent was doing.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Record how a recalled memory served: importance follows once enough feedback exists."""
    with open_existing(path) as mem:
        log_ids = mem.feedback(memory_id, kind, context)
    if as_json:
        render.print_json({"memory_id": memory_id, "kind": kind, "log_ids": log_ids})
    elif log_ids:
        render.say(f"recorded {kind}; importance changed (log {', '.join(map(str, log_ids))})")
    else:
        render.say(f"recorded {kind} for {memory_id}")
