"""``memfold serve``: the REST API, its docs and the review page (memfold.server)."""

from __future__ import annotations

import signal
from types import FrameType
from typing import Annotated

import typer

from memfold.cli.app import app
from memfold.cli.common import PathOpt, store_path
from memfold.config import Settings
from memfold.errors import InvalidInput, MissingExtra
from memfold.memory import Memory

_MODES = ("background", "sync", "queue", "off")


class _Stopped(Exception):
    """SIGTERM: leave uvicorn's loop as on Ctrl-C, so the store is closed cleanly."""


def _raise_stopped(signum: int, frame: FrameType | None) -> None:
    raise _Stopped


@app.command()
def serve(
    host: Annotated[
        str | None, typer.Option(help="Interface to listen on (default: server.host, 127.0.0.1).")
    ] = None,
    port: Annotated[
        int | None,
        typer.Option(min=0, max=65535, help="Port (default: server.port, 8765)."),
    ] = None,
    path: PathOpt = None,
    url: Annotated[
        str | None,
        typer.Option(help="A PostgreSQL store instead of a file (default: MEMFOLD_URL)."),
    ] = None,
    consolidate: Annotated[
        str,
        typer.Option(
            help="background (a worker thread decides after each add) | sync | queue | off"
        ),
    ] = "background",
) -> None:
    """Serve the REST API (/v1, docs at /docs) and the review page (/review). Every
    request needs a key: `memfold keys create` first."""
    try:
        from memfold.server.run import serve as run_server
    except ImportError as exc:
        raise MissingExtra("server", "memfold serve", exc.name or "fastapi") from None
    if consolidate not in _MODES:
        raise InvalidInput(f"--consolidate must be one of {', '.join(_MODES)}; got {consolidate!r}")
    settings = Settings()
    if url is None and path is None and settings.store.url:
        url = settings.store.url
    if url is None:
        where = store_path(settings, path)
        if not where.exists():
            raise InvalidInput(
                f"store {where} does not exist (check --path or MEMFOLD_PATH; "
                "`memfold keys create` creates one with its first key)"
            )
    cfg = settings.server
    with Memory(path, url=url, settings=settings, consolidate=consolidate) as memory:
        chosen_host = host or cfg.host
        chosen_port = cfg.port if port is None else port
        typer.echo(
            f"memfold serving {(url and 'PostgreSQL') or memory.path} on "
            f"http://{chosen_host}:{chosen_port} (docs: /docs, review page: /review)",
            err=True,
        )
        # uvicorn stops on SIGINT/SIGTERM, then raises the signal again under the handler
        # found before it started: this one, so the worker stops and the file is closed.
        previous = signal.signal(signal.SIGTERM, _raise_stopped)
        try:
            run_server(memory, chosen_host, chosen_port)
        except (KeyboardInterrupt, _Stopped):
            pass
        finally:
            signal.signal(signal.SIGTERM, previous)
    typer.echo("memfold serve stopped", err=True)
