"""Options and helpers shared by the CLI modules."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

from memfold import render
from memfold.memory import Memory

PathOpt = Annotated[
    Path | None,
    typer.Option("--path", "-p", help="SQLite file (default: MEMFOLD_PATH, else user data dir)."),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]
UserOpt = Annotated[str | None, typer.Option("--user", "-u", help="user_id scope.")]
AgentOpt = Annotated[str | None, typer.Option("--agent", help="agent_id scope.")]
SessionOpt = Annotated[str | None, typer.Option("--session", help="session_id scope.")]


def open_memory(path: Path | None, consolidate: str | None = "off") -> Memory:
    return Memory(path, consolidate=consolidate)


def progress_bar() -> Progress:
    return Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=render.err_console,
        transient=True,
    )
