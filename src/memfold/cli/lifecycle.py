"""The lifecycle by hand: ``memfold tick`` and ``memfold rehydrate`` (engine/lifecycle)."""

from __future__ import annotations

from typing import Annotated

import typer

from memfold import render
from memfold.cli.app import app
from memfold.cli.common import JsonOpt, PathOpt, open_existing
from memfold.errors import InvalidInput
from memfold.model import parse_time


@app.command()
def tick(
    path: PathOpt = None,
    now: Annotated[str | None, typer.Option(help="Run as of this ISO time (default: now).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Run the lifecycle tick: TTL expiry, core promotion, cold migration, the conflict
    queue, compression of fading clusters. Each change is logged and undoable."""
    try:
        when = parse_time(now)
    except ValueError:
        raise InvalidInput(f"--now is not an ISO date/time: {now!r}") from None
    with open_existing(path) as mem:
        report = mem.tick(when)
    if as_json:
        render.print_json(report.to_dict())
        return
    applied = [c for c in report.compressions if getattr(c, "log_id", None) is not None]
    render.say(
        f"tick at {report.time.isoformat()}: {report.scanned} active memories; "
        f"{len(report.expired)} expired, {len(report.promoted)} made core, "
        f"{len(report.cold)} moved cold, {len(applied)} clusters compressed, "
        f"{len(report.conflicts)} contradictions await review"
    )
    if report.log_ids:
        render.say(f"log entries: {', '.join(f'#{i}' for i in report.log_ids)} (memfold undo ID)")


@app.command()
def rehydrate(memory_id: str, path: PathOpt = None, as_json: JsonOpt = False) -> None:
    """Bring a cold memory, or a summary's originals, back to the hot tier (logged)."""
    with open_existing(path) as mem:
        done = mem.rehydrate(memory_id)
    if as_json:
        render.print_json(done.to_dict())
        return
    ids = ", ".join(render.short(i) for i in done.ids)
    render.say(f"rehydrated {ids} (log #{done.log_id}; `memfold undo {done.log_id}` reverts)")
