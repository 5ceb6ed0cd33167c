"""Rich output shared by the CLI commands and the demo: tables that fit the console (80
columns and up), record blocks where a table would not, JSON, and empty-state lines.

User text (memory texts, reasonings) goes in as ``Text``, never as markup, so brackets in
it print as they are.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from memfold.model import LogEntry, MemoryRecord, SearchHit, shown_action

console = Console()
# Progress bars go to stderr so --json output on stdout stays parseable.
err_console = Console(stderr=True)

WIDE = 120  # at least this many columns: the log as one table row per entry


def reset_consoles() -> None:
    """Build the consoles again, so they read COLUMNS and the terminal as they are now."""
    global console, err_console
    console = Console()
    err_console = Console(stderr=True)


def print_json(data: Any) -> None:
    console.print_json(json.dumps(data, ensure_ascii=False, default=str))


def say(message: str) -> None:
    """One plain line (no markup): an empty state, a confirmation."""
    console.print(Text(message))


def short(memory_id: str | None) -> str:
    return "" if memory_id is None else memory_id[:8]


def _status(r: MemoryRecord) -> str:
    return r.status.value + (f" -> {short(r.superseded_by)}" if r.superseded_by else "")


def memory_table(records: Iterable[MemoryRecord], title: str = "memories") -> Table:
    rows = list(records)
    with_sources = any(r.sources for r in rows)
    table = Table(title=title, show_lines=False)
    table.add_column("id", no_wrap=True)
    table.add_column("status", overflow="fold", max_width=22)
    table.add_column("area", overflow="fold")
    table.add_column("imp", no_wrap=True)
    table.add_column("text", overflow="fold", ratio=1, min_width=16)
    if with_sources:
        table.add_column("sources", overflow="fold", max_width=24)
    for r in rows:
        cells: list[RenderableType] = [
            short(r.id),
            _status(r),
            r.area.value,
            f"{r.importance:.2f}",
            Text(r.text),
        ]
        if with_sources:
            cells.append(Text(",".join(r.sources)))
        table.add_row(*cells)
    return table


def hits_table(hits: Sequence[SearchHit], title: str) -> Table:
    """Ranked hits; a memory that is not active says so after its text."""
    table = Table(title=title)
    table.add_column("#", no_wrap=True)
    table.add_column("score", no_wrap=True)
    table.add_column("cos", no_wrap=True)
    table.add_column("kw", no_wrap=True)
    table.add_column("id", no_wrap=True)
    table.add_column("text", overflow="fold", ratio=1, min_width=16)
    for n, h in enumerate(hits, start=1):
        text = Text(h.memory.text)
        if h.memory.status.value != "active":
            text.append(f"  ({_status(h.memory)})", style="dim")
        table.add_row(
            str(n),
            f"{h.score:.4f}",
            "" if h.vector_score is None else f"{h.vector_score:.3f}",
            "" if h.keyword_rank is None else str(h.keyword_rank),
            short(h.memory.id),
            text,
        )
    return table


def _action(e: LogEntry) -> str:
    return shown_action(e.action) + (f" (undone by #{e.undone_by})" if e.undone_by else "")


def _ids(ids: Iterable[str]) -> str:
    return ",".join(short(i) for i in ids) or "-"


class LogView:
    """The audit log: a table at ``WIDE`` columns and up, else one block per entry
    (header line, ids and scores, then the reasoning wrapped under them)."""

    def __init__(self, entries: Iterable[LogEntry], title: str, *, compact: bool) -> None:
        self.entries = list(entries)
        self.title = title
        self.compact = compact

    def __rich_console__(self, _console: Console, options: ConsoleOptions) -> RenderResult:
        if self.compact or options.max_width >= WIDE:
            yield self._table()
            return
        yield Text(self.title, style="italic", justify="center")
        for e in self.entries:
            head = Text(f"#{e.id}", style="bold")
            head.append(f"  {_action(e)}", style="bold")
            head.append(f"  {e.time.strftime('%Y-%m-%d %H:%M:%S')}  {e.path}")
            facts = [f"in {_ids(e.input_ids)}", f"out {_ids(e.output_ids)}"]
            if e.similarity is not None:
                facts.append(f"sim {e.similarity:.3f}")
            if e.confidence is not None:
                facts.append(f"conf {e.confidence:.2f}")
            body = [Text("  ".join(facts))]
            if e.reasoning:
                body.append(Text(e.reasoning))
            yield head
            for line in body:
                yield Padding(line, (0, 0, 0, 4), expand=False)

    def _table(self) -> Table:
        table = Table(title=self.title)
        wide = ("log", "time", "path", "action", "sim", "conf", "inputs", "outputs", "reasoning")
        cols = ("log", "action", "sim", "conf", "reasoning") if self.compact else wide
        for col in cols:
            table.add_column(col, overflow="fold", ratio=1 if col == "reasoning" else None)
        for e in self.entries:
            cells: dict[str, RenderableType] = {
                "log": str(e.id),
                "time": e.time.strftime("%Y-%m-%d %H:%M:%S"),
                "path": e.path,
                "action": _action(e),
                "sim": "" if e.similarity is None else f"{e.similarity:.3f}",
                "conf": "" if e.confidence is None else f"{e.confidence:.2f}",
                "inputs": _ids(e.input_ids),
                "outputs": _ids(e.output_ids),
                "reasoning": Text(e.reasoning),
            }
            table.add_row(*(cells[c] for c in cols))
        return table


def log_table(
    entries: Iterable[LogEntry], title: str = "consolidation log", *, compact: bool = False
) -> LogView:
    """The audit log; ``compact`` leaves out time, path and ids (a table at any width)."""
    return LogView(entries, title, compact=compact)


def _flat(value: Any) -> str:
    """A value for one table cell: mappings as ``key value, ...``, lists comma-joined."""
    if isinstance(value, dict):
        return ", ".join(f"{k} {_flat(v)}" for k, v in value.items()) or "-"
    if isinstance(value, list | tuple):
        return ", ".join(_flat(v) for v in value) or "-"
    return "-" if value is None else str(value)


def dict_table(data: dict[str, Any], title: str, *, flat: bool = False) -> Table:
    """Key/value rows. Nested values as JSON, or as ``key value, ...`` with ``flat``."""
    table = Table(title=title, show_header=False)
    table.add_column("key", no_wrap=True)
    table.add_column("value", overflow="fold")
    for key, value in data.items():
        if flat:
            cell = _flat(value)
        elif isinstance(value, dict | list):
            cell = json.dumps(value, ensure_ascii=False, default=str)
        else:
            cell = str(value)
        table.add_row(str(key), Text(cell))
    return table


def record_view(record: MemoryRecord) -> Table:
    """One memory, every field but the vector, nested values flattened."""
    data = record.to_dict()
    return dict_table(data, f"memory {record.id}", flat=True)


def review_status_view(data: dict[str, Any]) -> Group:
    """``memfold review status`` as short labelled lines (fits 80 columns)."""
    queue = data.get("queue") or {}
    by_status = queue.get("by_status") or {}
    by_label = queue.get("by_label") or {}
    breaker = data.get("breaker") or {}
    feedback = data.get("feedback") or {}
    if breaker.get("open"):
        state = f"OPEN since {breaker.get('opened_at', '?')} (run #{breaker.get('run_id', '?')}"
        state += f", {_flat(breaker.get('anomalies', '?'))} anomalies)"
        state += "; `memfold review resume` closes it"
    else:
        resumed = sum(1 for h in breaker.get("history", []) if "resumed_at" in h)
        state = "closed" + (f" (resumed {resumed} times)" if resumed else "")
    records = feedback.get("records", 0)
    cold = feedback.get("cold_start", 0)
    fb = f"{records} record{'' if records == 1 else 's'}"
    fb += f" (acts from {cold})" if records < cold else " (acting)"
    rows = [
        ("queue", _flat(by_status) if by_status else "empty"),
        ("labels", _flat(by_label) if by_label else "none yet"),
        ("breaker", state),
        ("kill switch", "ON: no merges" if data.get("kill_switch") else "off"),
        ("feedback", fb),
        ("merges today", f"{data.get('merges_today', 0)} of {data.get('daily_merge_cap', '?')}"),
    ]
    table = Table(title="review status", show_header=False, box=None, padding=(0, 1))
    table.add_column("key", no_wrap=True, style="bold")
    table.add_column("value", overflow="fold")
    for key, value in rows:
        table.add_row(key, Text(value))
    return Group(table)


def scopes_table(scopes: Iterable[Any]) -> Table:
    """``memfold scopes``: one row per scope (objects with the three ids and counts)."""
    table = Table(title="scopes")
    for col in ("user", "agent", "session"):
        table.add_column(col, overflow="fold", ratio=1)
    table.add_column("active", justify="right", no_wrap=True)
    table.add_column("total", justify="right", no_wrap=True)
    for s in scopes:
        table.add_row(
            Text(s.user_id or "-"),
            Text(s.agent_id or "-"),
            Text(s.session_id or "-"),
            str(s.active),
            str(s.total),
        )
    return table
