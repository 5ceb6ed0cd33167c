"""``memfold review ...`` and ``memfold report``: the batch review pipeline from the shell."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer
from rich.table import Table
from rich.text import Text

from memfold import render
from memfold.cli.app import app
from memfold.cli.common import JsonOpt, PathOpt, open_existing
from memfold.errors import InvalidInput
from memfold.memory import Memory

review_app = typer.Typer(
    help="Batch review: scan, classify, P90 gate, merge, circuit breaker.",
    no_args_is_help=True,
)


# --user-id/--agent-id/--session-id match the API's keywords; --user/-u, --agent and
# --session (the other commands' spelling) still work.
UserIdOpt = Annotated[str | None, typer.Option("--user-id", "--user", "-u", help="user_id scope.")]
AgentIdOpt = Annotated[str | None, typer.Option("--agent-id", "--agent", help="agent_id scope.")]
SessionIdOpt = Annotated[
    str | None, typer.Option("--session-id", "--session", help="session_id scope.")
]


def _user(mem: Memory, user: str | None, agent: str | None, session: str | None) -> str | None:
    """No id at all means the default user, as in every other command."""
    if user is None and agent is None and session is None:
        return mem.settings.store.default_user_id
    return user


@review_app.command("run")
def review_run(
    path: PathOpt = None,
    user: UserIdOpt = None,
    agent: AgentIdOpt = None,
    session: SessionIdOpt = None,
    all_scopes: Annotated[bool, typer.Option("--all", help="Review every scope.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Scan, classify, gate and merge one scope (every scope with --all)."""
    if all_scopes and not (user is None and agent is None and session is None):
        raise InvalidInput("--all reviews every scope: give it no user, agent or session id")
    with open_existing(path) as mem:
        if all_scopes:
            run = mem.review.run()
        else:
            uid = _user(mem, user, agent, session)
            run = mem.review.run(user_id=uid, agent_id=agent, session_id=session)
        data = run.to_dict()
        if as_json:
            render.print_json(data)
            return
        counts = {k: v for k, v in run.counts.items() if k != "decisions"}
        table = render.dict_table({**data, "counts": counts}, f"review run #{run.id}", flat=True)
        render.console.print(table)
        for key, gate in run.counts.get("decisions", [{}])[0].get("gates", {}).items():
            reasons = "; ".join(gate["reasons"])
            render.say(f"{key}: gate {gate['band']} P90={gate['p90']} {reasons}")


@review_app.command("scan")
def review_scan(
    path: PathOpt = None,
    user: UserIdOpt = None,
    agent: AgentIdOpt = None,
    session: SessionIdOpt = None,
    threshold: Annotated[
        float | None, typer.Option(help="Cosine bar (default: review.scan_threshold).")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Find similar pairs in one scope and queue them; no memory changes."""
    with open_existing(path) as mem:
        uid = _user(mem, user, agent, session)
        result = mem.review.scan(
            threshold=threshold, user_id=uid, agent_id=agent, session_id=session
        )
    if as_json:
        render.print_json(result.to_dict())
    else:
        render.console.print(render.dict_table(result.to_dict(), "review scan", flat=True))


@review_app.command("status")
def review_status(path: PathOpt = None, as_json: JsonOpt = False) -> None:
    """Queue counts by status and label, breaker state, feedback against the cold start."""
    with open_existing(path) as mem:
        data = mem.review.status()
    if as_json:
        render.print_json(data)
    else:
        render.console.print(render.review_status_view(data))


@review_app.command("pending")
def review_pending(path: PathOpt = None, as_json: JsonOpt = False) -> None:
    """Held merges, contradictions, unproven supersedes, memories flagged by feedback."""
    with open_existing(path) as mem:
        data = mem.review.pending()
    if as_json:
        render.print_json(data)
        return
    items = [*data["held"], *data["contradictions"], *data["supersedes"]]
    if not items and not data["flagged_by_feedback"]:
        render.say("nothing waits for review: no held merges, contradictions or flags")
        return
    table = Table(title="waiting for review")
    for col in ("id", "status", "a", "b", "conf", "proposal / reason"):
        table.add_column(col, overflow="fold", ratio=1 if col.startswith("proposal") else None)
    for item in items:
        proposal = item.get("proposal") or {}
        detail = proposal.get("text", item["reasoning"])
        if item in data["supersedes"]:
            detail = f"{detail}  [{item['note']}]"
        if proposal.get("reasons"):
            detail += f"  [{'; '.join(proposal['reasons'])}]"
        conf = "" if item["confidence"] is None else f"{item['confidence']:.2f}"
        table.add_row(
            str(item["id"]),
            item["status"],
            render.short(item["memory_a"]),
            render.short(item["memory_b"]),
            conf,
            Text(detail),
        )
    if items:
        render.console.print(table)
    if data["flagged_by_feedback"]:
        flagged = ", ".join(render.short(m) for m in data["flagged_by_feedback"])
        render.say(f"flagged by feedback (contradicted): {flagged}")


@review_app.command("approve")
def review_approve(item_id: int, path: PathOpt = None, as_json: JsonOpt = False) -> None:
    """Apply a held merge as proposed (or acknowledge a contradiction)."""
    with open_existing(path) as mem:
        log_id = mem.review.approve(item_id)
    if as_json:
        render.print_json({"item": item_id, "log_id": log_id})
    else:
        render.say(f"approved item {item_id}" + (f" (log #{log_id})" if log_id else ""))


@review_app.command("reject")
def review_reject(
    item_id: int,
    path: PathOpt = None,
    reason: Annotated[str, typer.Option(help="Why (kept in the queue note).")] = "",
    as_json: JsonOpt = False,
) -> None:
    """Refuse a held merge or a listed contradiction (its link is removed, undoably)."""
    with open_existing(path) as mem:
        log_id = mem.review.reject(item_id, reason)
    if as_json:
        render.print_json({"item": item_id, "log_id": log_id})
    else:
        render.say(f"rejected item {item_id}" + (f" (log #{log_id})" if log_id else ""))


@review_app.command("resume")
def review_resume(path: PathOpt = None) -> None:
    """Close the circuit breaker so later runs may merge again."""
    with open_existing(path) as mem:
        mem.review.resume()
    render.console.print("circuit breaker closed: merges resume on the next run")


def report(
    path: PathOpt = None,
    since: Annotated[str, typer.Option(help="7d, 24h, or an ISO date.")] = "7d",
    fmt: Annotated[
        Literal["md", "html"], typer.Option("--format", help="Markdown or HTML.")
    ] = "md",
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write to a file.")] = None,
) -> None:
    """The review report: queue, merges, P90 trend, feedback, breaker, LLM use."""
    with open_existing(path) as mem:
        text = mem.review.report(since, fmt)
    if out is None:
        typer.echo(text)
    else:
        out.write_text(text, encoding="utf-8")
        render.console.print(f"wrote {out}")


app.add_typer(review_app, name="review")
app.command("report")(report)
