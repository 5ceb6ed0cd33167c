"""The ``memfold`` command line. Bad input: one line on stderr, exit code 2."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from memfold import render
from memfold.cli_common import (
    AgentOpt,
    JsonOpt,
    PathOpt,
    SessionOpt,
    UserOpt,
    open_memory,
    progress_bar,
)
from memfold.cli_review import register_review
from memfold.errors import InvalidInput, MemfoldError

app = typer.Typer(
    help="memfold: long-term memory for LLM agents that consolidates itself safely.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


@app.command()
def add(
    text: str,
    path: PathOpt = None,
    user: UserOpt = None,
    agent: AgentOpt = None,
    session: SessionOpt = None,
    area: Annotated[str, typer.Option(help="main | fragments | solutions | instruments")] = "main",
    category: Annotated[str, typer.Option(help="episodic | semantic | procedural | core")] = (
        "semantic"
    ),
    importance: Annotated[float, typer.Option(help="0..1")] = 0.5,
    source: Annotated[
        list[str] | None, typer.Option("--source", "-s", help="Provenance id.")
    ] = None,
    consolidate: Annotated[
        str, typer.Option(help="sync | queue (for `memfold worker`) | off")
    ] = "sync",
    as_json: JsonOpt = False,
) -> None:
    """Store a memory (consolidated against what is known, by default)."""
    with open_memory(path, consolidate) as mem:
        result = mem.add(
            text,
            user_id=user,
            agent_id=agent,
            session_id=session,
            area=area,
            category=category,
            importance=importance,
            sources=source,
        )
        out = {"memory": result.memory.to_dict(), "log_id": result.log_id}
        out["decision"] = None if result.decision is None else result.decision.to_dict()
        if as_json:
            render.print_json(out)
            return
        render.console.print(render.memory_table([result.memory], "stored"))
        if result.decision is not None:
            d = result.decision
            render.console.print(f"decision: [bold]{d.action.value}[/] ({d.reasoning})")


@app.command()
def search(
    query: str,
    path: PathOpt = None,
    user: UserOpt = None,
    agent: AgentOpt = None,
    session: SessionOpt = None,
    k: Annotated[int, typer.Option("-k", help="How many results.")] = 10,
    area: Annotated[str | None, typer.Option(help="Only this area.")] = None,
    deep: Annotated[bool, typer.Option(help="Include superseded/archived memories.")] = False,
    mode: Annotated[str, typer.Option(help="hybrid | vector | keyword")] = "hybrid",
    as_json: JsonOpt = False,
) -> None:
    """Search one scope."""
    with open_memory(path) as mem:
        hits = mem.search(
            query,
            user_id=user,
            agent_id=agent,
            session_id=session,
            k=k,
            area=area,
            deep=deep,
            mode=mode,  # type: ignore[arg-type]  # validated by Memory.search
        )
        if as_json:
            render.print_json(
                [
                    {"score": h.score, "cosine": h.vector_score, "memory": h.memory.to_dict()}
                    for h in hits
                ]
            )
        else:
            render.console.print(render.hits_table(hits, f"search: {query}"))


@app.command()
def get(memory_id: str, path: PathOpt = None, as_json: JsonOpt = False) -> None:
    """Show one memory, whatever its status."""
    with open_memory(path) as mem:
        record = mem.get(memory_id)
        if as_json:
            render.print_json(record.to_dict())
        else:
            render.console.print(render.dict_table(record.to_dict(), record.id))


@app.command("list")
def list_(
    path: PathOpt = None,
    user: UserOpt = None,
    agent: AgentOpt = None,
    session: SessionOpt = None,
    status: Annotated[str, typer.Option(help="active | superseded | archived | expired | all")] = (
        "active"
    ),
    area: Annotated[str | None, typer.Option(help="Only this area.")] = None,
    limit: Annotated[int, typer.Option(help="At most this many.")] = 100,
    as_json: JsonOpt = False,
) -> None:
    """List the memories of one scope."""
    with open_memory(path) as mem:
        records = mem.list(
            user_id=user,
            agent_id=agent,
            session_id=session,
            status=None if status == "all" else status,
            area=area,
            limit=limit,
        )
        if as_json:
            render.print_json([r.to_dict() for r in records])
        else:
            render.console.print(render.memory_table(records))


@app.command()
def history(memory_id: str, path: PathOpt = None, as_json: JsonOpt = False) -> None:
    """Every logged change that touched a memory."""
    with open_memory(path) as mem:
        entries = mem.history(memory_id)
        if as_json:
            render.print_json([e.to_dict() for e in entries])
        else:
            render.console.print(render.log_table(entries, f"history of {memory_id}"))


@app.command("log")
def log_(
    path: PathOpt = None,
    limit: Annotated[int, typer.Option(help="Newest N rows.")] = 50,
    as_json: JsonOpt = False,
) -> None:
    """The consolidation log, newest first."""
    with open_memory(path) as mem:
        entries = mem.log(limit)
        if as_json:
            render.print_json([e.to_dict() for e in entries])
        else:
            render.console.print(render.log_table(entries))


@app.command()
def undo(
    log_id: int,
    path: PathOpt = None,
    cascade: Annotated[bool, typer.Option(help="Also undo later changes built on it.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Restore the state before a logged change."""
    with open_memory(path) as mem:
        written = mem.undo(log_id, cascade=cascade)
        if as_json:
            render.print_json({"undo_log_ids": written})
        else:
            render.console.print(f"undone log #{log_id} (undo rows: {written})")


@app.command()
def stats(path: PathOpt = None, as_json: JsonOpt = False) -> None:
    """Counts by status, area, scope; file size; pending jobs."""
    with open_memory(path) as mem:
        data = mem.stats()
        if as_json:
            render.print_json(data)
        else:
            render.console.print(render.dict_table(data, "memfold stats"))


@app.command("export")
def export_(out: Path, path: PathOpt = None) -> None:
    """Write every memory and link to a JSONL file."""
    with open_memory(path) as mem, progress_bar() as bar:
        task = bar.add_task("export", total=mem.store.count_memories())
        count = mem.export(out, progress=lambda n: bar.advance(task, n))
    render.console.print(f"exported {count} memories to {out}")


@app.command("import")
def import_(
    file: Path,
    path: PathOpt = None,
    skip_bad: Annotated[bool, typer.Option(help="Import the good lines, report bad ones.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Import a JSONL export. One bad line imports nothing unless --skip-bad."""
    with open_memory(path) as mem, progress_bar() as bar:
        task = bar.add_task("import", total=None)
        report = mem.import_(file, skip_bad=skip_bad, progress=lambda n: bar.advance(task, n))
    if as_json:
        render.print_json(report.to_dict())
    else:
        render.console.print(render.dict_table(report.to_dict(), f"import {file}"))


@app.command()
def reembed(
    path: PathOpt = None,
    everything: Annotated[bool, typer.Option("--all", help="Re-embed every memory.")] = False,
) -> None:
    """Re-embed memories whose vectors come from another model."""
    from memfold.engine.transfer import count_stale

    with open_memory(path) as mem, progress_bar() as bar:
        total = mem.store.count_memories() if everything else count_stale(mem.ctx)
        task = bar.add_task("reembed", total=total)
        done = mem.reembed(everything=everything, progress=lambda n: bar.advance(task, n))
    render.console.print(f"re-embedded {done} memories with {mem.ctx.embedder.model_id}")


@app.command()
def worker(
    path: PathOpt = None,
    once: Annotated[bool, typer.Option(help="Drain pending jobs and exit.")] = False,
) -> None:
    """Consolidate pending saves in this process (a separate worker). A batch that fails
    is logged and the worker goes on."""
    from memfold.engine.worker import run_worker

    def report(handled: int) -> None:
        render.console.print(f"consolidated {handled} saves")

    with open_memory(path, "queue") as mem:
        run_worker(mem.ctx, mem.judge, once=once, report=report)


@app.command()
def usage(path: PathOpt = None, as_json: JsonOpt = False) -> None:
    """LLM calls and tokens by day and task."""
    from rich.table import Table

    with open_memory(path) as mem:
        rows = mem.usage()
    if as_json:
        render.print_json(rows)
        return
    table = Table(title="LLM usage")
    for col in ("day", "task", "role", "model", "outcome", "calls", "prompt", "completion"):
        table.add_column(col)
    for r in rows:
        table.add_row(
            *(str(r[c]) for c in ("day", "task", "role", "model", "outcome", "calls")),
            str(r["prompt_tokens"]),
            str(r["completion_tokens"]),
        )
    render.console.print(table)


@app.command("eval")
def eval_(
    data: Annotated[Path, typer.Argument(help="bench-data folder.")] = Path("../shared/bench-data"),
    split: Annotated[str, typer.Option(help="dev | heldout (held-out: report only)")] = "dev",
    judge: Annotated[str, typer.Option(help="rules | llm (the settings' endpoint)")] = "rules",
    suite: Annotated[
        list[str] | None, typer.Option("--suite", help="pairs | locomo | beam | scenarios (repeat)")
    ] = None,
    dataset: Annotated[
        list[str] | None, typer.Option("--dataset", help="sick | msrp | stsb | qqp (repeat)")
    ] = None,
    limit: Annotated[int | None, typer.Option(help="At most N pairs per data set.")] = None,
    max_convs: Annotated[
        int | None, typer.Option(help="At most N LoCoMo conversations / BEAM chats.")
    ] = None,
    out: Annotated[Path, typer.Option(help="Folder or .json file for results.")] = Path("results"),
) -> None:
    """Quality of consolidation on public data sets (pairs, LoCoMo, BEAM) and scenarios."""
    from memfold.evaluation.runner import DEFAULT_DATASETS, SUITES, run_eval

    try:
        run_eval(
            data,
            split=split,
            judge=judge,
            suites=suite or SUITES,
            datasets=dataset or DEFAULT_DATASETS,
            limit=limit,
            max_convs=max_convs,
            out=out,
        )
    except ValueError as exc:
        raise InvalidInput(str(exc)) from None


@app.command("fake-llm")
def fake_llm(
    script: Annotated[Path, typer.Option("--script", help="JSON array or JSONL of replies.")],
    port: Annotated[int, typer.Option(help="Port on 127.0.0.1.")] = 8808,
    cycle: Annotated[bool, typer.Option(help="Start the script over when it runs out.")] = False,
) -> None:
    """Serve a scripted OpenAI-compatible API on 127.0.0.1 (chat + local embeddings)."""
    from memfold.testing.fake_llm import run_from_script_file

    if not script.is_file():
        raise InvalidInput(f"no such script file: {script}")
    run_from_script_file(script, port, cycle=cycle)


@app.command()
def demo(
    path: PathOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The main job on the embedded default: store a sample stream, consolidate, search, undo."""
    from memfold.demo import run_demo

    run_demo(path, as_json=as_json)


register_review(app)


def main(argv: list[str] | None = None) -> Any:
    try:
        code = app(args=argv, standalone_mode=False)
    except typer.Abort:
        typer.echo("Aborted!", err=True)
        sys.exit(1)
    except MemfoldError as exc:
        typer.echo(f"error: {exc}", err=True)
        sys.exit(2)
    except OSError as exc:  # a file or folder the command was given
        typer.echo(f"error: {exc}", err=True)
        sys.exit(2)
    except Exception as exc:
        # A bad option or argument (click's UsageError; typer may vendor click, so it is
        # recognized by shape): one line too, not click's usage block.
        if not (hasattr(exc, "format_message") and hasattr(exc, "show")):
            raise
        if type(exc).__name__ == "NoArgsIsHelpError":
            exc.show()  # no arguments: the help text, as click prints it
            sys.exit(2)
        ctx = getattr(exc, "ctx", None)
        where = f" (see: {ctx.command_path} --help)" if ctx is not None else ""
        typer.echo(f"error: {exc.format_message()}{where}", err=True)
        sys.exit(2)
    sys.exit(code if isinstance(code, int) and not isinstance(code, bool) else 0)


if __name__ == "__main__":  # pragma: no cover
    main()
