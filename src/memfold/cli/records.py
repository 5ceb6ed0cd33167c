"""Storing, finding and reading memories: add, search, get, list, scopes, history, log,
undo, stats."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import typer

from memfold import render
from memfold.cli.app import app
from memfold.cli.common import (
    AgentOpt,
    ConsolidateOpt,
    FilterOpt,
    JsonOpt,
    MetadataOpt,
    PathOpt,
    SessionOpt,
    UserOpt,
    open_existing,
    open_memory,
    parse_json_object,
    read_text,
    scope_words,
)
from memfold.model import shown_action, views


@app.command()
def add(
    text: Annotated[str, typer.Argument(help="The memory's text ('-' reads stdin).")],
    path: PathOpt = None,
    user: UserOpt = None,
    agent: AgentOpt = None,
    session: SessionOpt = None,
    area: Annotated[
        Literal["main", "fragments", "solutions", "instruments"], typer.Option(help="Its area.")
    ] = "main",
    category: Annotated[
        str | None,
        typer.Option(
            help="episodic | semantic | procedural | core (default: chosen from the text, "
            "by the rules, then by the judge)"
        ),
    ] = None,
    importance: Annotated[float, typer.Option(help="0..1")] = 0.5,
    source: Annotated[
        list[str] | None, typer.Option("--source", "-s", help="Provenance id.")
    ] = None,
    metadata: MetadataOpt = None,
    consolidate: ConsolidateOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Store a memory, consolidated as consolidation.mode says (--consolidate overrides)."""
    meta = parse_json_object(metadata, "--metadata")
    body = read_text(text)
    with open_memory(path, consolidate) as mem:
        result = mem.add(
            body,
            user_id=user,
            agent_id=agent,
            session_id=session,
            area=area,
            category=category,
            importance=importance,
            sources=source,
            metadata=meta,
        )
        out: dict[str, Any] = {
            "memory": result.memory.to_dict(),
            "log_id": result.log_id,
            "decision": None if result.decision is None else result.decision.to_dict(),
            "mode": mem.mode.value,
        }
        if as_json:
            render.print_json(out)
            return
        render.console.print(render.memory_table([result.memory], "stored"))
        if result.decision is not None:
            d = result.decision
            render.say(f"decision: {shown_action(d.action.value)} ({d.reasoning})")
        elif mem.mode.value == "queue":
            render.say("queued: `memfold worker` consolidates it")


@app.command()
def search(
    query: str,
    path: PathOpt = None,
    user: UserOpt = None,
    agent: AgentOpt = None,
    session: SessionOpt = None,
    k: Annotated[int, typer.Option("-k", help="How many results.")] = 10,
    area: Annotated[str | None, typer.Option(help="Only this area.")] = None,
    deep: Annotated[bool, typer.Option(help="Include superseded/archived memories.")] = False,
    mode: Annotated[
        Literal["hybrid", "vector", "keyword"], typer.Option(help="How to rank.")
    ] = "hybrid",
    filter_: FilterOpt = None,
    threshold: Annotated[
        float | None, typer.Option(help="Drop hits whose cosine to the query is below this.")
    ] = None,
    offset: Annotated[int, typer.Option(help="Skip this many hits (pages of -k).")] = 0,
    fields: Annotated[
        str | None,
        typer.Option(help='With --json: more fields of each hit, comma-separated, or "all".'),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Search one scope."""
    where = parse_json_object(filter_, "--filter")
    shown = views.fields_of(fields, match=True)
    with open_existing(path) as mem:
        hits = mem.search(
            query,
            user_id=user,
            agent_id=agent,
            session_id=session,
            k=k,
            area=area,
            deep=deep,
            mode=mode,
            filters=where,
            threshold=threshold,
            offset=offset,
        )
        if as_json:
            render.print_json([views.hit(h, shown) for h in hits])
        elif not hits:
            scope = scope_words(mem, user, agent, session)
            bars = [f"the filter {filter_}"] if where is not None else []
            bars += [f"cosine >= {threshold}"] if threshold is not None else []
            bars += [f"offset {offset}"] if offset else []
            also = f" ({', '.join(bars)})" if bars else ""
            render.say(f"no memories of {scope} match {query!r}{also}")
        else:
            render.console.print(render.hits_table(hits, f"search: {query}"))


@app.command()
def get(memory_id: str, path: PathOpt = None, as_json: JsonOpt = False) -> None:
    """Show one memory, whatever its status."""
    with open_existing(path) as mem:
        record = mem.get(memory_id)
        if as_json:
            render.print_json(record.to_dict())
        else:
            render.console.print(render.record_view(record))


@app.command("list")
def list_(
    path: PathOpt = None,
    user: UserOpt = None,
    agent: AgentOpt = None,
    session: SessionOpt = None,
    status: Annotated[str, typer.Option(help="active | superseded | archived | expired | all")] = (
        "active"
    ),
    area: Annotated[str | None, typer.Option(help="Only this area.")] = None,
    limit: Annotated[int, typer.Option(help="At most this many.", min=1)] = 100,
    offset: Annotated[int, typer.Option(help="Skip this many first.", min=0)] = 0,
    filter_: FilterOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List the memories of one scope, oldest first."""
    where = parse_json_object(filter_, "--filter")
    with open_existing(path) as mem:
        records = mem.list(
            user_id=user,
            agent_id=agent,
            session_id=session,
            status=None if status == "all" else status,
            area=area,
            limit=limit,
            offset=offset,
            filters=where,
        )
        if as_json:
            render.print_json([r.to_dict() for r in records])
        elif not records:
            what = "memories" if status == "all" else f"{status} memories"
            extra = f" in area {area}" if area else ""
            extra += f" matching {filter_}" if where is not None else ""
            extra += f" after {offset}" if offset else ""
            render.say(f"no {what} for {scope_words(mem, user, agent, session)}{extra}")
        else:
            render.console.print(render.memory_table(records))


@app.command()
def history(memory_id: str, path: PathOpt = None, as_json: JsonOpt = False) -> None:
    """Every logged change that touched a memory, oldest first."""
    with open_existing(path) as mem:
        entries = mem.history(memory_id)
        if as_json:
            render.print_json([e.to_dict() for e in entries])
        elif not entries:
            render.say(f"no logged change touched memory {render.short(memory_id)} yet")
        else:
            render.console.print(render.log_table(entries, f"history of {memory_id}"))


@app.command("log")
def log_(
    path: PathOpt = None,
    limit: Annotated[int, typer.Option(help="Newest N rows.", min=1)] = 50,
    as_json: JsonOpt = False,
) -> None:
    """The consolidation log, newest first."""
    with open_existing(path) as mem:
        entries = mem.log(limit)
        if as_json:
            render.print_json([e.to_dict() for e in entries])
        elif not entries:
            render.say("the consolidation log is empty: nothing was merged, changed or undone")
        else:
            render.console.print(render.log_table(entries))


@app.command()
def undo(
    log_id: int,
    path: PathOpt = None,
    cascade: Annotated[bool, typer.Option(help="Also undo later changes built on it.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Restore the state before a logged change."""
    with open_existing(path) as mem:
        written = mem.undo(log_id, cascade=cascade)
        if as_json:
            render.print_json({"undo_log_ids": written})
        else:
            render.say(f"undone log #{log_id} (undo rows: {', '.join(map(str, written))})")


@app.command()
def stats(path: PathOpt = None, as_json: JsonOpt = False) -> None:
    """Counts by status, area, scope; file size; pending jobs."""
    with open_existing(path) as mem:
        data = mem.stats()
        data["mode"] = mem.settings.consolidation.mode  # configured (this process: off)
        if as_json:
            render.print_json(data)
        else:
            render.console.print(render.dict_table(data, "memfold stats", flat=True))


@app.command()
def scopes(
    path: PathOpt = None,
    user: UserOpt = None,
    agent: AgentOpt = None,
    session: SessionOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Every scope that holds memories, with its active and total counts.

    The ids given narrow it (unset ids match any); none given: every scope.
    """
    with open_existing(path) as mem:
        found = mem.list_scopes(user_id=user, agent_id=agent, session_id=session)
    if as_json:
        render.print_json([s.to_dict() for s in found])
    elif not found:
        given = [(k, v) for k, v in (("user", user), ("agent", agent), ("session", session)) if v]
        narrowed = ", ".join(f"{k} {v!r}" for k, v in given)
        render.say(f"no scope of {narrowed} holds memories" if given else "the store is empty")
    else:
        render.console.print(render.scopes_table(found))
