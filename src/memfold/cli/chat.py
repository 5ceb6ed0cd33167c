"""Conversations on the command line: ``memfold chat append / show / export``
(engine/conversation/session.py; README "Conversations")."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer
from rich.table import Table

from memfold import render
from memfold.cli.app import app
from memfold.cli.common import (
    AgentOpt,
    JsonOpt,
    MetadataOpt,
    PathOpt,
    UserOpt,
    open_existing,
    open_memory,
    parse_json_object,
    read_text,
)

chat_app = typer.Typer(
    help="Conversations: append-only transcripts, their summary, JSONL export.",
    no_args_is_help=True,
)
SessionArg = Annotated[str, typer.Argument(help="The session id.")]


@chat_app.command("append")
def append(
    session: SessionArg,
    role: Annotated[
        Literal["system", "user", "assistant", "tool"], typer.Argument(help="Who said it.")
    ],
    content: Annotated[str, typer.Argument(help="The message ('-' reads stdin).")],
    path: PathOpt = None,
    user: UserOpt = None,
    agent: AgentOpt = None,
    metadata: MetadataOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Append one message to the session's transcript (never changed afterwards)."""
    meta = parse_json_object(metadata, "--metadata") or {}
    body = read_text(content)
    with open_memory(path) as mem:
        message = mem.conversation(session, user_id=user, agent_id=agent).append(role, body, **meta)
    if as_json:
        render.print_json(message.to_dict())
        return
    render.say(f"appended message {message.position} to session {session} ({message.role})")


@chat_app.command("show")
def show(
    session: SessionArg,
    path: PathOpt = None,
    user: UserOpt = None,
    agent: AgentOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The session's transcript and its summary parts."""
    with open_existing(path) as mem:
        conv = mem.conversation(session, user_id=user, agent_id=agent)
        messages, parts = conv.transcript(), conv.summary()
    if as_json:
        render.print_json(
            {"messages": [m.to_dict() for m in messages], "summary": [p.to_dict() for p in parts]}
        )
        return
    if not messages and not parts:
        render.say(f"session {session} has no messages")
        return
    table = Table(title=f"session {session}: {len(messages)} messages")
    for column in ("#", "time", "role", "content"):
        table.add_column(column)
    for m in messages:
        table.add_row(
            str(m.position), m.created_at.isoformat(timespec="seconds"), m.role, m.content
        )
    render.console.print(table)
    for p in parts:
        covers = "" if p.covers_from is None else f" (messages {p.covers_from}-{p.covers_to})"
        render.say(f"[{p.kind}{covers}] {p.text}")


@chat_app.command("export")
def export(
    session: SessionArg,
    file: Annotated[Path, typer.Argument(help="The JSONL file to write.")],
    path: PathOpt = None,
    user: UserOpt = None,
    agent: AgentOpt = None,
) -> None:
    """Write the session's transcript as JSONL, one message per line, in order."""
    with open_existing(path) as mem:
        count = mem.conversation(session, user_id=user, agent_id=agent).export(file)
    render.say(f"exported {count} messages to {file}")


app.add_typer(chat_app, name="chat")
