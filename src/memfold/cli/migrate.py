"""PostgreSQL commands: ``memfold migrate`` copies a SQLite store into an empty
PostgreSQL store; ``memfold vector-index`` builds its HNSW index."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from memfold import render
from memfold.cli.app import app
from memfold.cli.common import JsonOpt, PathOpt, open_existing
from memfold.errors import InvalidInput
from memfold.store.select import is_postgres_url


@app.command()
def migrate(
    source: Annotated[Path, typer.Option("--from", help="The SQLite file (sqlite:PATH or PATH).")],
    target: Annotated[str, typer.Option("--to", help="postgresql://... of an empty store.")],
    as_json: JsonOpt = False,
) -> None:
    """Copy every row (memories, links, the log with its undo, jobs, review, usage,
    conversations, API keys) of a SQLite store into an empty PostgreSQL store. The
    file is only read."""
    file = Path(str(source).removeprefix("sqlite:")).expanduser()
    if not file.is_file():
        raise InvalidInput(f"no such SQLite file: {file}")
    if not is_postgres_url(target):
        raise InvalidInput("--to must be a postgresql:// url")
    try:
        from memfold.store.postgres.copy import migrate as copy_store
    except ImportError as exc:
        from memfold.errors import MissingExtra

        raise MissingExtra("postgres", "memfold migrate", exc.name or "psycopg") from None
    counts = copy_store(file, target)
    if as_json:
        render.print_json({"copied": counts})
    else:
        rows = ", ".join(f"{n} {table}" for table, n in counts.items() if n)
        render.say(f"copied {file} into PostgreSQL: {rows or 'nothing (empty store)'}")


@app.command("vector-index")
def vector_index(path: PathOpt = None, as_json: JsonOpt = False) -> None:
    """PostgreSQL (the store MEMFOLD_URL names): build pgvector's HNSW index
    for the embedding model's dimension, so searches of big scopes use it. Writes wait
    while it builds (about a minute per 300k memories on 2 cores)."""
    with open_existing(path) as mem:
        result = mem.build_vector_index()
    if as_json:
        render.print_json({"dim": result.dim, "built": result.built, "name": result.name})
    elif result.built:
        render.say(f"built {result.name} ({result.dim} dimensions)")
    else:
        render.say(f"{result.name} ({result.dim} dimensions) exists already")
