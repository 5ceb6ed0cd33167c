"""Running and measuring: worker, usage, eval, fake-llm, demo."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Literal

import typer
from rich.table import Table

from memfold import render
from memfold.cli.app import app
from memfold.cli.common import JsonOpt, PathOpt, open_existing, open_memory
from memfold.errors import InvalidInput


@app.command()
def worker(
    path: PathOpt = None,
    once: Annotated[bool, typer.Option(help="Drain pending jobs and exit.")] = False,
) -> None:
    """Consolidate pending saves in this process (a separate worker).

    A batch that fails is logged and the worker goes on. SIGTERM or Ctrl-C stops it after
    the batch in hand (a second Ctrl-C at once); exit 0.
    """
    from memfold.engine.worker import run_worker

    def report(handled: int) -> None:
        render.say(f"consolidated {handled} saves")

    stop = threading.Event()
    # The handlers come first: a signal while the store and the embedder open (seconds
    # under load) must stop the worker too, and a process that inherited SIGINT ignored
    # would otherwise lose it and drain forever.
    with _stop_on_signals(stop), open_memory(path, "queue") as mem:
        run_worker(mem.ctx, mem.judge, once=once, stop=stop, report=report)


@contextmanager
def _stop_on_signals(stop: threading.Event) -> Iterator[None]:
    """SIGTERM and SIGINT set ``stop`` (the worker finishes its batch and returns); the
    handlers are installed explicitly, since a process started in the background by a
    shell without job control inherits SIGINT ignored and would never stop on it."""

    def graceful(signum: int, frame: object) -> None:
        stop.set()
        # a second Ctrl-C interrupts at once
        signal.signal(signal.SIGINT, signal.default_int_handler)

    previous = {sig: signal.signal(sig, graceful) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@app.command()
def usage(path: PathOpt = None, as_json: JsonOpt = False) -> None:
    """LLM calls and tokens by day and task."""
    with open_existing(path) as mem:
        rows = mem.usage()
    if as_json:
        render.print_json(rows)
        return
    if not rows:
        render.say("no LLM calls recorded in this store (the rule judge needs none)")
        return
    table = Table(title="LLM usage")
    for col in ("day", "task", "role", "model", "outcome", "calls", "prompt", "compl"):
        table.add_column(col, overflow="fold")
    for r in rows:
        table.add_row(
            *(str(r[c]) for c in ("day", "task", "role", "model", "outcome", "calls")),
            str(r["prompt_tokens"]),
            str(r["completion_tokens"]),
        )
    render.console.print(table)


@app.command("eval")
def eval_(
    data: Annotated[
        Path,
        typer.Argument(
            envvar="MEMFOLD_EVAL_DATA",
            help="The folder of public data sets (or MEMFOLD_EVAL_DATA), laid out as above.",
            show_default=False,
        ),
    ],
    split: Annotated[
        Literal["dev", "heldout"], typer.Option(help="Held-out: report only, never tune on it.")
    ] = "dev",
    judge: Annotated[
        str,
        typer.Option(
            help="rules | llm (the settings' endpoint alone) | default (rules first) | "
            "oracle | adversary[:REPLACE|DELETE|MERGE|UPDATE] (scripted: --suite scenarios)"
        ),
    ] = "rules",
    suite: Annotated[
        list[str] | None,
        typer.Option(
            "--suite", help="pairs | locomo | turns | beam | beam-facts | scenarios (repeat)"
        ),
    ] = None,
    dataset: Annotated[
        list[str] | None, typer.Option("--dataset", help="sick | msrp | stsb | qqp (repeat)")
    ] = None,
    limit: Annotated[int | None, typer.Option(help="At most N pairs per data set.")] = None,
    max_convs: Annotated[
        int | None, typer.Option(help="At most N LoCoMo conversations / BEAM chats.")
    ] = None,
    out: Annotated[Path, typer.Option(help="Folder or .json file for results.")] = Path("results"),
    scenarios: Annotated[
        Path | None, typer.Option(help="A scenario file (JSONL) instead of the split's.")
    ] = None,
) -> None:
    """Quality of consolidation on public data sets (pairs, LoCoMo, BEAM) and scenarios.

    DATA holds each public set as its repository publishes it (none is bundled):
    locomo/locomo10.json from snap-research/LoCoMo (data/); pairs/sick2014 and
    pairs/msrp from brmson/dataset-sts (data/sts/sick2014, data/para/msr);
    pairs/stsb and pairs/qqp_subset from GLUE (STS-B, QQP); beam/100K/N from
    mohammadtavakoli78/BEAM (chats/100K); scenarios/dev.jsonl, scenario lines of
    {"id", "kind", "existing", "new"} (or --scenarios FILE). docs/benchmarks.md,
    "Evaluation data", gives the layout and the dev and held-out splits.
    """
    from memfold.evaluation.runner import DEFAULT_DATASETS, SUITES, run_eval
    from memfold.evaluation.scripted_judge import is_scripted

    chosen = suite or (["scenarios"] if is_scripted(judge) else list(SUITES))
    try:
        run_eval(
            data,
            split=split,
            judge=judge,
            suites=chosen,
            scenarios=scenarios,
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
    port: Annotated[int, typer.Option(help="Port on 127.0.0.1.", min=0, max=65535)] = 8808,
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
