"""Reading the links consolidation writes: ``links`` (one memory's neighbours) and
``graph`` (one scope as node-link JSON or GraphML, to stdout or a file)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Annotated, Literal

import typer
from rich.table import Table
from rich.text import Text

from memfold import render
from memfold.cli.app import app
from memfold.cli.common import (
    AgentOpt,
    JsonOpt,
    PathOpt,
    SessionOpt,
    UserOpt,
    open_existing,
    scope_words,
)
from memfold.engine.links_read import (
    DEFAULT_GRAPH_MAX_NODES,
    DEFAULT_MAX_NODES,
    MAX_DEPTH,
    LinkedMemory,
    Neighbourhood,
)
from memfold.engine.transfer_check import check_export_target, write_atomically
from memfold.model import LinkKind

_KINDS = " | ".join(k.value for k in LinkKind)
_GRAPHML_NS = "{http://graphml.graphdrawing.org/xmlns}"


@app.command()
def links(
    memory_id: str,
    path: PathOpt = None,
    depth: Annotated[int, typer.Option(help=f"Hops to walk, 1..{MAX_DEPTH}.")] = 1,
    kind: Annotated[
        list[str] | None,
        typer.Option("--kind", "-k", help=f"Follow only this kind (repeatable): {_KINDS}."),
    ] = None,
    max_nodes: Annotated[
        int, typer.Option(help="List at most this many memories.")
    ] = DEFAULT_MAX_NODES,
    as_json: JsonOpt = False,
) -> None:
    """The memories linked to one (supersedes, derived_from, contradicts...), whatever
    their status."""
    with open_existing(path) as mem:
        found = mem.links(memory_id, kinds=kind, depth=depth, max_nodes=max_nodes)
    if as_json:
        render.print_json(found.to_dict())
    elif not found.links:
        only = f" of kind {', '.join(kind)}" if kind else ""
        render.say(f"memory {render.short(found.id)} has no links{only}")
    else:
        render.console.print(_links_table(found, depth > 1))
        if found.truncated:
            render.say(f"(stopped at {max_nodes} memories: --max-nodes lists more)")


def _links_table(found: Neighbourhood, walked: bool) -> Table:
    table = Table(title=f"links of {render.short(found.id)}")
    if walked:
        table.add_column("hop", no_wrap=True)
        table.add_column("via", no_wrap=True)
    table.add_column("kind", no_wrap=True)
    table.add_column("dir", no_wrap=True)
    table.add_column("id", no_wrap=True)
    table.add_column("status", overflow="fold", max_width=12)
    table.add_column("text", overflow="fold", ratio=1, min_width=16)
    for lk in found.links:
        table.add_row(*_row(lk, walked))
    return table


def _row(lk: LinkedMemory, walked: bool) -> list[str | Text]:
    cells: list[str | Text] = [str(lk.depth), render.short(lk.via)] if walked else []
    weight = "" if lk.weight == 1.0 else f" {lk.weight:g}"
    cells += [lk.kind.value + weight, lk.direction, render.short(lk.id), lk.status.value]
    cells.append(Text(lk.text))
    return cells


@app.command()
def graph(
    path: PathOpt = None,
    user: UserOpt = None,
    agent: AgentOpt = None,
    session: SessionOpt = None,
    format_: Annotated[
        Literal["json", "graphml"], typer.Option("--format", help="The file format.")
    ] = "json",
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Write to this file (default: stdout).")
    ] = None,
    max_nodes: Annotated[
        int, typer.Option(help="Refuse a scope of more memories than this.")
    ] = DEFAULT_GRAPH_MAX_NODES,
) -> None:
    """One scope's memories (any status) and the links between them, as node-link JSON
    or GraphML (networkx, yEd, Gephi)."""
    with open_existing(path) as mem:
        text = mem.export_graph(
            user_id=user,
            agent_id=agent,
            session_id=session,
            format=format_,
            max_nodes=max_nodes,
        )
        if out is None:
            typer.echo(text.rstrip("\n"))
            return
        target = check_export_target(out, None if mem.url else mem.path)
        write_atomically(target, lambda fh: fh.write(text))
        nodes, edges = _counts(text, format_)
        where = scope_words(mem, user, agent, session)
    render.say(f"wrote {where}: {nodes} memories, {edges} links ({format_}) to {out}")


def _counts(text: str, fmt: str) -> tuple[int, int]:
    if fmt == "graphml":
        body = ET.fromstring(text).find(f"{_GRAPHML_NS}graph")
        if body is None:
            return 0, 0
        return len(body.findall(f"{_GRAPHML_NS}node")), len(body.findall(f"{_GRAPHML_NS}edge"))
    data = json.loads(text)
    return len(data["nodes"]), len(data["edges"])
