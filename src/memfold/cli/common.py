"""Options and helpers shared by the CLI modules: opening the store, ids, JSON options."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

from memfold import render
from memfold.config import Settings, default_store_path
from memfold.errors import InvalidInput
from memfold.memory import Memory

PathOpt = Annotated[
    Path | None,
    typer.Option("--path", "-p", help="SQLite file (default: MEMFOLD_PATH, else user data dir)."),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]
UserOpt = Annotated[str | None, typer.Option("--user", "-u", help="user_id scope.")]
AgentOpt = Annotated[str | None, typer.Option("--agent", help="agent_id scope.")]
SessionOpt = Annotated[str | None, typer.Option("--session", help="session_id scope.")]
ConsolidateOpt = Annotated[
    str | None,
    typer.Option(
        help="sync | queue (for `memfold worker`) | off (default: consolidation.mode; "
        "background decides before the command returns, as sync)"
    ),
]

MetadataOpt = Annotated[
    str | None, typer.Option("--metadata", "-m", help='JSON object, e.g. \'{"topic": "work"}\'.')
]
FilterOpt = Annotated[
    str | None,
    typer.Option(
        "--filter",
        "-f",
        help='Metadata filter as JSON, e.g. \'{"topic": "work"}\' or '
        '\'{"priority": {"$gt": 2}}\' (see the README).',
    ),
]


def read_text(text: str) -> str:
    """The text argument; ``-`` reads it from stdin."""
    return sys.stdin.read() if text == "-" else text


def store_path(settings: Settings, path: Path | None) -> Path:
    """The store file a command works on, resolved as ``Memory`` resolves it."""
    location = path if path is not None else settings.store.path
    return (location or default_store_path()).expanduser()


def cli_mode(settings: Settings, override: str | None) -> str:
    """The consolidation mode of a write: ``--consolidate`` else ``consolidation.mode``.
    A CLI process ends with its command, so "background" decides before returning."""
    mode = override if override is not None else settings.consolidation.mode
    return "sync" if mode == "background" else mode


def open_memory(path: Path | None, consolidate: str | None = "off") -> Memory:
    """Open (or create) the store for a command that writes."""
    settings = Settings()
    return Memory(path, settings=settings, consolidate=cli_mode(settings, consolidate))


def open_existing(path: Path | None, consolidate: str | None = "off") -> Memory:
    """Open the store for a command that reads or edits what is there: a store that does
    not exist is an error (a typo in --path would otherwise create an empty one)."""
    settings = Settings()
    where = store_path(settings, path)
    if path is None and settings.store.url:  # MEMFOLD_URL: a PostgreSQL store
        return Memory(settings=settings, consolidate=cli_mode(settings, consolidate))
    if not where.exists():
        raise InvalidInput(
            f"store {where} does not exist (check --path or MEMFOLD_PATH; "
            "`memfold add` creates one)"
        )
    return Memory(path, settings=settings, consolidate=cli_mode(settings, consolidate))


def parse_json_object(raw: str | None, option: str) -> dict[str, Any] | None:
    """A JSON object given on the command line (``--metadata``, ``--filter``)."""
    if raw is None:
        return None
    try:
        value = json.loads(raw)
    except ValueError as exc:
        raise InvalidInput(f"{option} is not valid JSON: {exc}") from None
    except RecursionError:  # some thousand nested brackets
        raise InvalidInput(f"{option} is nested too deep") from None
    if not isinstance(value, dict):
        raise InvalidInput(f"{option} must be a JSON object, got {type(value).__name__}")
    return value


def progress_bar() -> Progress:
    return Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=render.err_console,
        transient=True,
        disable=not render.err_console.is_terminal,  # no stray blank line in pipes and logs
    )


def scope_words(mem: Memory, user: str | None, agent: str | None, session: str | None) -> str:
    """A scope in words for messages: ``user 'sam', agent 'bot'``."""
    if user is None and agent is None and session is None:
        user = mem.settings.store.default_user_id
    parts = [
        f"{name} {value!r}"
        for name, value in (("user", user), ("agent", agent), ("session", session))
        if value is not None
    ]
    return ", ".join(parts)
