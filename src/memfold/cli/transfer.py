"""Files and models: export, import, reembed."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from memfold import render
from memfold.cli.app import app
from memfold.cli.common import JsonOpt, PathOpt, open_existing, open_memory, progress_bar
from memfold.errors import InvalidInput


@app.command("export")
def export_(out: Path, path: PathOpt = None, as_json: JsonOpt = False) -> None:
    """Write every memory and link to a JSONL file."""
    with open_existing(path) as mem, progress_bar() as bar:
        task = bar.add_task("export", total=mem.store.count_memories())
        count = mem.export(out, progress=lambda n: bar.advance(task, n))
    if as_json:
        render.print_json({"exported": count, "file": str(out)})
    else:
        render.say(f"exported {count} memories to {out}")


@app.command("import")
def import_(
    file: Path,
    path: PathOpt = None,
    skip_bad: Annotated[bool, typer.Option(help="Import the good lines, report bad ones.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Import a JSONL export (creates the store).

    One bad line imports nothing unless --skip-bad.
    """
    if not file.is_file():
        raise InvalidInput(f"no such file: {file}")  # checked before a store is created
    with open_memory(path) as mem, progress_bar() as bar:
        task = bar.add_task("import", total=None)
        report = mem.import_(file, skip_bad=skip_bad, progress=lambda n: bar.advance(task, n))
    if as_json:
        render.print_json(report.to_dict())
    else:
        render.console.print(render.dict_table(report.to_dict(), f"import {file}", flat=True))


@app.command()
def reembed(
    path: PathOpt = None,
    everything: Annotated[bool, typer.Option("--all", help="Re-embed every memory.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Re-embed memories whose vectors come from another model."""
    from memfold.engine.transfer import count_stale

    with open_existing(path) as mem, progress_bar() as bar:
        total = mem.store.count_memories() if everything else count_stale(mem.ctx)
        task = bar.add_task("reembed", total=total)
        done = mem.reembed(everything=everything, progress=lambda n: bar.advance(task, n))
        model = mem.ctx.embedder.model_id
    if as_json:
        render.print_json({"reembedded": done, "model": model})
    else:
        render.say(f"re-embedded {done} memories with {model}")
