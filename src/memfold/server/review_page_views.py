"""What the review page shows, cut to the calling key's scope: the queue with both texts,
the log with before/after diffs, the breaker, the report's plots. No HTTP here
(review_page.py serves it); every memory text is plain data, escaped by the templates.

Who sees which queue item and log row is the REST API's rule (server/visibility.py): a
key bound to a user sees those whose memories all lie in its scope; a key bound to no
user sees everything.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Any

from memfold.engine.review.report import report_data
from memfold.engine.review.report_charts import merges_chart, p90_chart
from memfold.engine.review.runs import parse_since
from memfold.memory import Memory
from memfold.model import ApiKey, JSONDict, LogEntry, MemoryRecord, Scope
from memfold.policy.review import gate_reasons
from memfold.server.auth import may_see
from memfold.server.visibility import item_visible, visible_log

_TOKENS = re.compile(r"\s+|\S+")


@dataclass(frozen=True, slots=True)
class Segment:
    """One run of a diff: ``op`` is "same", "del" or "ins"."""

    op: str
    text: str


def word_diff(before: str, after: str) -> list[Segment]:
    """A word-level diff (whitespace kept as its own tokens), adjacent runs joined."""
    old, new = _TOKENS.findall(before), _TOKENS.findall(after)
    segments: list[Segment] = []

    def push(op: str, tokens: list[str]) -> None:
        text = "".join(tokens)
        if not text:
            return
        if segments and segments[-1].op == op:
            segments[-1] = Segment(op, segments[-1].text + text)
        else:
            segments.append(Segment(op, text))

    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            push("same", old[i1:i2])
            continue
        push("del", old[i1:i2])
        push("ins", new[j1:j2])
    return segments


# the queue ------------------------------------------------------------------------------


@dataclass(slots=True)
class Side:
    """One memory of a pair, as shown: its text, or why there is none."""

    id: str
    text: str
    status: str


@dataclass(slots=True)
class QueueRow:
    id: int
    kind: str  # held | contradiction | supersede
    scope: str
    label: str
    confidence: float | None
    reasoning: str
    a: Side
    b: Side
    proposal: str | None = None
    reasons: list[str] = field(default_factory=list)


def _side(memory: Memory, memory_id: str) -> Side:
    record = memory.store.get_memory(memory_id)
    if record is None:
        return Side(memory_id, "(gone from the store)", "gone")
    return Side(record.id, record.text, record.status.value)


def _queue_row(memory: Memory, kind: str, item: JSONDict) -> QueueRow:
    proposal: JSONDict = item.get("proposal") or {}
    return QueueRow(
        id=int(item["id"]),
        kind=kind,
        scope=str(item["scope_key"]),
        label=str(item.get("label") or "-"),
        confidence=item.get("confidence"),
        reasoning=str(item.get("reasoning") or ""),
        a=_side(memory, str(item["memory_a"])),
        b=_side(memory, str(item["memory_b"])),
        proposal=proposal.get("text"),
        reasons=[str(r) for r in proposal.get("reasons", [])],
    )


@dataclass(slots=True)
class Queue:
    held: list[QueueRow]
    contradictions: list[QueueRow]
    supersedes: list[QueueRow]
    flagged: list[MemoryRecord]

    @property
    def empty(self) -> bool:
        return not (self.held or self.contradictions or self.supersedes or self.flagged)


def queue(memory: Memory, key: ApiKey) -> Queue:
    """``Memory.review.pending()``, cut to the key's scope, with both texts of each pair."""
    pending = memory.review.pending()

    def rows(kind: str, items: list[JSONDict]) -> list[QueueRow]:
        return [_queue_row(memory, kind, it) for it in items if item_visible(key, memory, it)]

    flagged = []
    for memory_id in dict.fromkeys(pending["flagged_by_feedback"]):
        record = memory.store.get_memory(str(memory_id))
        if record is not None and may_see(key, record.scope):
            flagged.append(record)
    return Queue(
        held=rows("held", pending["held"]),
        contradictions=rows("contradiction", pending["contradictions"]),
        supersedes=rows("supersede", pending["supersedes"]),
        flagged=flagged,
    )


# the log --------------------------------------------------------------------------------


@dataclass(slots=True)
class StatusChange:
    id: str
    before: str
    after: str


@dataclass(slots=True)
class LogRow:
    id: int
    time: str
    path: str
    action: str
    reasoning: str
    diff: list[Segment]
    statuses: list[StatusChange]
    undone_by: int | None
    undoes: int | None

    @property
    def undoable(self) -> bool:
        return self.undone_by is None and self.undoes is None


def _snapshots(entry: LogEntry, side: str) -> dict[str, Any]:
    state: JSONDict = entry.before if side == "before" else entry.after
    memories: dict[str, Any] = state.get("memories") or {}
    return memories


def _active_text(snapshots: dict[str, Any]) -> str:
    """The texts of the row's memories that were active on one side, in the row's order."""
    texts = [
        str(snap.get("text", ""))
        for snap in snapshots.values()
        if isinstance(snap, dict) and snap.get("status") == "active"
    ]
    return "\n".join(texts)


def _status_changes(entry: LogEntry) -> list[StatusChange]:
    before, after = _snapshots(entry, "before"), _snapshots(entry, "after")
    changes = []
    for mid in dict.fromkeys([*before, *after]):
        was, now = before.get(mid), after.get(mid)
        old = str(was.get("status")) if isinstance(was, dict) else "absent"
        new = str(now.get("status")) if isinstance(now, dict) else "absent"
        if old != new:
            changes.append(StatusChange(mid, old, new))
    return changes


def log_row(entry: LogEntry) -> LogRow:
    before = _active_text(_snapshots(entry, "before"))
    after = _active_text(_snapshots(entry, "after"))
    return LogRow(
        id=entry.id,
        time=entry.time.strftime("%Y-%m-%d %H:%M:%S UTC"),
        path=entry.path,
        action=entry.action,
        reasoning=entry.reasoning,
        diff=word_diff(before, after),
        statuses=_status_changes(entry),
        undone_by=entry.undone_by,
        undoes=entry.undoes,
    )


def log_rows(memory: Memory, key: ApiKey) -> list[LogRow]:
    """The newest ``server.review_log_rows`` log rows the key may see."""
    limit = memory.settings.server.review_log_rows
    return [log_row(e) for e in visible_log(key, memory, limit=limit)]


# breaker and report ---------------------------------------------------------------------


def breaker(memory: Memory, key: ApiKey) -> JSONDict:
    """The breaker's state for everyone (it stops merges in every scope); the queue's
    counts over all scopes only for a key bound to no user."""
    status = memory.review.status()
    shown: JSONDict = {"breaker": status["breaker"], "kill_switch": status["kill_switch"]}
    if key.user_id is None:
        shown["queue"] = status["queue"]
        shown["merges_today"] = status["merges_today"]
        shown["daily_merge_cap"] = status["daily_merge_cap"]
    return shown


def scoped_report(memory: Memory, since: str, key: ApiKey) -> JSONDict:
    """The report cut to a key bound to a user: one row per review run and scope of the
    key that the run judged, with that scope's own P90 and the pairs its gate selected
    to merge (from the run's per-scope gates), and the same two charts. The store-wide
    totals are left out: they count other tenants."""
    start = parse_since(since)
    cfg = memory.settings.review
    rows: list[JSONDict] = []
    for run in memory.store.list_review_runs(start):
        decisions = run.counts.get("decisions", [])
        gates: JSONDict = next((d["gates"] for d in decisions if "gates" in d), {})
        for scope_key, gate in sorted(gates.items()):
            scope = Scope.from_key(scope_key)
            if not may_see(key, scope):
                continue
            p90 = gate.get("p90")
            rows.append(
                {
                    "id": run.id,
                    "label": f"#{run.id}" if len(gates) == 1 else f"#{run.id} {scope_key}",
                    "scope": scope_key,
                    "started": run.started_at.strftime("%Y-%m-%d %H:%M"),
                    "status": run.status,
                    "why": gate_reasons({scope_key: gate}),
                    "p90": p90,
                    "p90_text": "-" if p90 is None else f"{p90:.3f}",
                    "band": str(gate.get("band", "-")),
                    "selected": len(gate.get("selected", [])),
                }
            )
    return {
        "since": start.strftime("%Y-%m-%d %H:%M UTC"),
        "runs": rows,
        "gate_floor": cfg.gate_floor,
        "gate_high": cfg.gate_high,
        "p90_svg": p90_chart(
            [(r["label"], r["p90"]) for r in rows],
            refs=[("floor", cfg.gate_floor), ("high", cfg.gate_high)],
        ),
        "merges_svg": merges_chart([(r["label"], float(r["selected"])) for r in rows]),
    }


def report(memory: Memory, since: str) -> JSONDict:
    """The weekly report's data and its two charts (inline SVG, engine/review/report_charts)
    over every scope: shown to keys bound to no user. ``since``: 7d, 24h, an ISO date."""
    data = report_data(memory.ctx, parse_since(since))
    cfg = memory.settings.review
    runs = data["runs"]
    data["p90_svg"] = p90_chart(
        [(f"#{r['id']}", r["p90"]) for r in runs],
        refs=[("floor", cfg.gate_floor), ("high", cfg.gate_high)],
    )
    data["merges_svg"] = merges_chart([(f"#{r['id']}", float(r["merged"])) for r in runs])
    return data
