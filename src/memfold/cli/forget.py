"""``memfold forget``: hard erasure, shown first and confirmed (or ``--yes``)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer
from rich.text import Text

from memfold import render
from memfold.cli.app import app
from memfold.cli.common import AgentOpt, JsonOpt, PathOpt, SessionOpt, UserOpt, open_existing
from memfold.engine.erase import ForgetReport
from memfold.errors import InvalidInput, NotFound
from memfold.memory import Memory

SHOWN = 10  # memories named one by one in the preview; the rest are counted


def _can_ask() -> bool:
    return sys.stdin.isatty()


def _what(memory_id: str | None, user: str | None, agent: str | None, session: str | None) -> str:
    if memory_id is not None:
        return f"memory {memory_id}"
    given = (("user", user), ("agent", agent), ("session", session))
    return "every memory of " + ", ".join(f"{k} {v!r}" for k, v in given if v is not None)


def _memories(n: int, kind: str = "") -> str:
    return f"{n} {kind}{'memory' if n == 1 else 'memories'}"


def _preview(mem: Memory, plan: ForgetReport, what: str) -> None:
    """What would go and come back, on stderr (stdout stays for the result)."""
    out = render.err_console
    out.print(Text(f"forget {what}: erased for good, not undoable", style="bold"))
    for title, ids in (
        ("erased", plan.erased),
        ("erased too (they hold its words)", plan.derived),
        ("restored (an erased memory superseded them)", plan.restored),
    ):
        if not ids:
            continue
        out.print(Text(f"{title}: {len(ids)}"))
        for memory_id in ids[:SHOWN]:
            try:
                text = mem.get(memory_id).text
            except NotFound:
                text = ""
            line = Text(f"  {render.short(memory_id)}  ")
            line.append(text if len(text) <= 60 else text[:59] + "…")
            out.print(line, overflow="ellipsis", no_wrap=True)
        if len(ids) > SHOWN:
            out.print(Text(f"  … and {len(ids) - SHOWN} more"))


@app.command()
def forget(
    memory_id: Annotated[str | None, typer.Argument(help="One memory (else a scope).")] = None,
    path: PathOpt = None,
    user: UserOpt = None,
    agent: AgentOpt = None,
    session: SessionOpt = None,
    vacuum: Annotated[bool, typer.Option(help="VACUUM the file afterwards.")] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Erase without asking.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Erase a memory, or every memory of a scope, for good (not undoable).

    Text, vectors and history go. It shows what would go and asks first.

    --yes skips the question; without a terminal, --yes is required.
    """
    if memory_id is None and user is None and agent is None and session is None:
        raise InvalidInput("forget needs a memory id or --user/--agent/--session")
    what = _what(memory_id, user, agent, session)
    with open_existing(path) as mem:
        plan = mem.forget(memory_id, user_id=user, agent_id=agent, session_id=session, dry_run=True)
        count = _memories(len(plan.all_erased))
        if not yes:
            if not _can_ask():
                raise InvalidInput(
                    f"forget would erase {count} ({what}) for good and there is no terminal "
                    "to confirm on: pass --yes"
                )
            _preview(mem, plan, what)
            if not typer.confirm(f"Erase {count} for good?", default=False, err=True):
                render.err_console.print("nothing erased")
                raise typer.Exit(1)
        report = mem.forget(
            memory_id, user_id=user, agent_id=agent, session_id=session, vacuum=vacuum
        )
    if as_json:
        render.print_json(report.to_dict())
        return
    line = f"erased {count}"
    if report.restored:
        line += f"; restored {_memories(len(report.restored), 'superseded ')}"
    line += f" (log #{report.log_id}, ids only)" if report.log_id is not None else ""
    render.say(line)
    if report.stale_space_possible:
        render.say("this file predates secure deletion: run forget --vacuum once to scrub it")
