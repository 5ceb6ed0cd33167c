"""Rich tables and JSON output shared by the CLI commands and the demo."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

from memfold.model import LogEntry, MemoryRecord, SearchHit

console = Console()
# Progress bars go to stderr so --json output on stdout stays parseable.
err_console = Console(stderr=True)


def print_json(data: Any) -> None:
    console.print_json(json.dumps(data, ensure_ascii=False, default=str))


def short(memory_id: str | None) -> str:
    return "" if memory_id is None else memory_id[:8]


def memory_table(records: Iterable[MemoryRecord], title: str = "memories") -> Table:
    table = Table(title=title, show_lines=False)
    for col in ("id", "status", "area", "imp", "text", "sources"):
        table.add_column(col, overflow="fold")
    for r in records:
        status = r.status.value + (f" -> {short(r.superseded_by)}" if r.superseded_by else "")
        table.add_row(
            short(r.id), status, r.area.value, f"{r.importance:.2f}", r.text, ",".join(r.sources)
        )
    return table


def hits_table(hits: Sequence[SearchHit], title: str) -> Table:
    table = Table(title=title)
    for col in ("#", "score", "cosine", "kw rank", "id", "status", "text"):
        table.add_column(col, overflow="fold")
    for n, h in enumerate(hits, start=1):
        table.add_row(
            str(n),
            f"{h.score:.4f}",
            "" if h.vector_score is None else f"{h.vector_score:.3f}",
            "" if h.keyword_rank is None else str(h.keyword_rank),
            short(h.memory.id),
            h.memory.status.value,
            h.memory.text,
        )
    return table


def log_table(
    entries: Iterable[LogEntry], title: str = "consolidation log", *, compact: bool = False
) -> Table:
    """The audit log; ``compact`` leaves out time, path and ids (fits 80 columns)."""
    table = Table(title=title)
    wide = ("log", "time", "path", "action", "sim", "conf", "inputs", "outputs", "reasoning")
    cols = ("log", "action", "sim", "conf", "reasoning") if compact else wide
    for col in cols:
        table.add_column(col, overflow="fold")
    for e in entries:
        cells = {
            "log": str(e.id),
            "time": e.time.strftime("%Y-%m-%d %H:%M:%S"),
            "path": e.path,
            "action": e.action + (f" (undone by #{e.undone_by})" if e.undone_by else ""),
            "sim": "" if e.similarity is None else f"{e.similarity:.3f}",
            "conf": "" if e.confidence is None else f"{e.confidence:.2f}",
            "inputs": ",".join(short(i) for i in e.input_ids),
            "outputs": ",".join(short(i) for i in e.output_ids),
            "reasoning": e.reasoning,
        }
        table.add_row(*(cells[c] for c in cols))
    return table


def dict_table(data: dict[str, Any], title: str) -> Table:
    table = Table(title=title, show_header=False)
    table.add_column("key")
    table.add_column("value", overflow="fold")
    for key, value in data.items():
        table.add_row(
            str(key),
            json.dumps(value, default=str) if isinstance(value, dict | list) else str(value),
        )
    return table
