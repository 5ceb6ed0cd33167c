"""``memfold demo``: a sample memory stream stored and consolidated on the embedded default."""

from __future__ import annotations

import json
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any

from rich.table import Table

from memfold import render
from memfold.memory import Memory
from memfold.model import Action, AddResult, LogEntry, shown_action

DEMO_USER = "sam"
QUERIES = (
    "Where does Sam live?",
    "What does Sam drink in the morning?",
    "payments latency budget",
    "how do I rerun failed tests?",
)


def load_stream() -> list[dict[str, Any]]:
    text = (resources.files("memfold") / "samples" / "demo_stream.jsonl").read_text("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _decision_row(n: int, text: str, result: AddResult) -> tuple[str, ...]:
    d = result.decision
    if d is None:
        return (str(n), text, "ADD", "", "", "no similar memory (>= 0.70): no judge call")
    targets = ",".join(render.short(t) for t in d.target_ids)
    return (str(n), text, shown_action(d.action.value), targets, f"{d.confidence:.2f}", d.reasoning)


def run_demo(path: Path | None, *, as_json: bool = False) -> dict[str, Any]:
    workdir = None
    if path is None:
        workdir = tempfile.TemporaryDirectory(prefix="memfold-demo-")
        path = Path(workdir.name) / "demo.db"
    console = render.console
    report: dict[str, Any] = {"path": str(path), "decisions": [], "searches": {}}
    with Memory(path, consolidate="sync") as mem:
        stream = load_stream()
        table = Table(title=f"consolidation on save ({mem.judge.name} judge)")
        for col in ("#", "new memory", "action", "targets", "conf", "reasoning"):
            table.add_column(col, overflow="fold")
        for n, item in enumerate(stream, start=1):
            result = mem.add(user_id=DEMO_USER, **item)
            row = _decision_row(n, item["text"], result)
            table.add_row(*row)
            report["decisions"].append(
                dict(
                    zip(
                        ("n", "text", "action", "targets", "confidence", "reasoning"),
                        row,
                        strict=True,
                    )
                )
            )
        active = mem.list(user_id=DEMO_USER)
        everything = mem.list(user_id=DEMO_USER, status=None)
        report["stored"] = len(stream)
        report["active"] = len(active)
        if not as_json:
            console.rule("memfold demo: an assistant's memories of Sam, Sept-Nov 2026")
            console.print(
                f"store: {path}  judge: {mem.judge.name}  embedder: {mem.ctx.embedder.model_id}"
            )
            console.print(table)
            console.print(
                render.memory_table(
                    everything,
                    "the store after consolidation (nothing deleted: superseded rows kept)",
                )
            )
            console.print(f"{len(stream)} memories saved -> {len(active)} active")
        for query in QUERIES:
            hits = mem.search(query, user_id=DEMO_USER, k=3)
            report["searches"][query] = [h.memory.text for h in hits]
            if not as_json:
                console.print(render.hits_table(hits, f"search: {query}"))
        deep = mem.search("coffee", user_id=DEMO_USER, k=3, deep=True)
        report["searches"]["coffee (deep)"] = [
            f"{h.memory.text} [{h.memory.status.value}]" for h in deep
        ]
        if not as_json:
            console.print(render.hits_table(deep, "deep search: coffee (history included)"))
        destructive: list[LogEntry] = [
            e
            for e in reversed(mem.log(1000))
            if e.action in {a.value for a in Action if a.destructive or a is Action.UPDATE}
        ]
        if destructive:
            entry = destructive[0]
            undo_ids = mem.undo(entry.id)
            restored = [mem.get(i) for i in entry.input_ids]
            report["undo"] = {
                "log_id": entry.id,
                "action": entry.action,
                "undo_log_ids": undo_ids,
                "restored": [r.to_dict() for r in restored],
            }
            if not as_json:
                shown = shown_action(entry.action)
                console.print(f"\nundo of log #{entry.id} ({shown}): restored exactly")
                console.print(render.memory_table(restored, f"after undo of #{entry.id}"))
        if not as_json:
            console.print(render.log_table(reversed(mem.log(1000)), "the audit log", compact=True))
        else:
            render.print_json(report)
    if workdir is not None:
        workdir.cleanup()
    return report
