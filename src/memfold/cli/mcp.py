"""``memfold mcp``: serve the store to MCP clients (memfold.server.mcp), on stdio or HTTP."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from memfold.cli.app import app
from memfold.cli.common import PathOpt
from memfold.errors import InvalidInput, MissingExtra

KEY_ENV = "MEMFOLD_API_KEY"


@app.command()
def mcp(
    path: PathOpt = None,
    url: Annotated[
        str | None,
        typer.Option(
            help="A PostgreSQL store instead of a file: postgresql://... (the postgres extra)."
        ),
    ] = None,
    user_id: Annotated[
        str | None, typer.Option("--user-id", help="The scope the tools act in: this user.")
    ] = None,
    agent_id: Annotated[
        str | None, typer.Option("--agent-id", help="... and this agent (needs --user-id).")
    ] = None,
    key: Annotated[
        str | None,
        typer.Option(
            "--key",
            help="An API key (memfold keys create) giving the scope and role; "
            f"default: ${KEY_ENV}.",
        ),
    ] = None,
    transport: Annotated[
        str, typer.Option(help="stdio (default; for a client that starts the server) | http.")
    ] = "stdio",
    host: Annotated[
        str | None, typer.Option(help="HTTP: address to bind (default: server.host, loopback).")
    ] = None,
    port: Annotated[
        int | None,
        typer.Option(help="HTTP: port (default: server.mcp_port).", min=0, max=65535),
    ] = None,
    consolidate: Annotated[
        str | None,
        typer.Option(help="background | sync | queue | off (default: consolidation.mode)."),
    ] = None,
) -> None:
    """Serve memories to an MCP client (Claude Desktop, an agent framework).

    The scope comes from --user-id [--agent-id], or from an API key (--key or
    $MEMFOLD_API_KEY; a read key gets only the read tools). Over HTTP without either,
    every request must carry its own key: Authorization: Bearer KEY. Logs go to stderr;
    on stdio, stdout carries only the protocol.
    """
    from memfold.config import Settings
    from memfold.memory import Memory

    try:
        import anyio

        from memfold.server.mcp import fixed_caller, serve
    except ImportError as exc:
        raise MissingExtra("server", "memfold mcp", exc.name or "mcp") from None

    if transport not in ("stdio", "http"):
        raise InvalidInput(f"--transport must be stdio or http, got {transport!r}")
    if path is not None and url is not None:
        raise InvalidInput("give --path or --url, not both")
    token = key if key is not None else os.environ.get(KEY_ENV) or None
    settings = Settings()
    mode = consolidate if consolidate is not None else settings.consolidation.mode
    with Memory(path, url=url, settings=settings, consolidate=mode) as memory:
        caller = fixed_caller(memory, user_id=user_id, agent_id=agent_id, token=token)
        anyio.run(
            lambda: serve(
                memory,
                caller,
                transport="stdio" if transport == "stdio" else "http",
                host=host or settings.server.host,
                port=port if port is not None else settings.server.mcp_port,
            )
        )
