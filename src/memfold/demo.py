"""``memfold demo``: a sample memory stream stored and consolidated on the embedded default,
shown in a screen or two of 80 columns: each save's decision in plain words, the store
after, one search and one undo."""

from __future__ import annotations

import json
import re
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any

from rich.table import Table

from memfold import render
from memfold.memory import Memory
from memfold.model import Action, AddResult, Decision, LogEntry, MemoryRecord, shown_action

DEMO_USER = "sam"
QUERY = "Where does Sam live?"
_MOVED = re.compile(r"'([^']+)' -> '([^']+)'")
_RETRACTED = re.compile(r"retracts ([^(]+?) \(")
_CUE = re.compile(r"change cue '([^']+)'")


def load_stream() -> list[dict[str, Any]]:
    text = (resources.files("memfold") / "samples" / "demo_stream.jsonl").read_text("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def in_words(decision: Decision | None, number: dict[str, int], text: str = "") -> str:
    """What a save's decision did, in plain words, naming memories by their place in the
    stream ("supersedes #3: 'moved'", "same fact as #2: folded into it"); ``text`` is the
    new memory's, whose words a change cue is shown in."""
    if decision is None or decision.action is Action.ADD:
        return "new"
    targets = ", ".join(f"#{number[t]}" for t in decision.target_ids if t in number)
    action = decision.action
    if action is Action.KEEP_SEPARATE:
        if decision.contradicts:
            return f"contradicts {targets}: both kept, linked"
        return f"kept apart from {targets}" if targets else "new"
    if action is Action.UPDATE:
        return f"same fact as {targets}: folded into it"
    if action is Action.REPLACE:
        return f"restates {targets}: replaces it, kept as history"
    if action is Action.MERGE:
        return f"merged with {targets}"
    if action is Action.DELETE:
        return f"supersedes {targets}{_why_superseded(decision.reasoning, text)}"
    return "skipped: " + decision.reasoning[:40]


def _why_superseded(reasoning: str, text: str) -> str:
    moved, retracted, cue = (p.search(reasoning) for p in (_MOVED, _RETRACTED, _CUE))
    if moved:
        return f": {moved.group(1)} -> {moved.group(2)}"
    if retracted:
        return f": no longer '{retracted.group(1).strip()}'"
    return f": '{_as_written(cue.group(1), text)}'" if cue else ""


def _as_written(lemma: str, text: str) -> str:
    """The cue as the text writes it ("move": "moved"), else the lemma."""
    stem = re.escape(lemma[:-1] if len(lemma) > 3 else lemma)
    found = re.search(rf"\b{stem}\w*", text, re.IGNORECASE)
    return found.group(0) if found else lemma


def _decisions_table(rows: list[tuple[str, str, str]], judge: str) -> Table:
    table = Table(title=f"each save, decided on save ({judge} judge)", title_justify="left")
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("new memory", ratio=3, overflow="fold")
    table.add_column("decision", ratio=2, overflow="fold")
    for row in rows:
        table.add_row(*row)
    return table


def _store_table(records: list[MemoryRecord], number: dict[str, int]) -> Table:
    table = Table(title="the store after (nothing deleted)", title_justify="left")
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("status", no_wrap=True)
    table.add_column("text", overflow="fold")
    for r in sorted(records, key=lambda r: number.get(r.id, 0)):
        status = r.status.value
        if r.superseded_by in number:
            status = f"{status} by #{number[r.superseded_by]}"
        table.add_row(str(number.get(r.id, "")), status, r.text)
    return table


def run_demo(path: Path | None, *, as_json: bool = False) -> dict[str, Any]:
    workdir = None
    if path is None:
        workdir = tempfile.TemporaryDirectory(prefix="memfold-demo-")
        path = Path(workdir.name) / "demo.db"
    console = render.console
    report: dict[str, Any] = {"path": str(path), "decisions": [], "searches": {}}
    with Memory(path, consolidate="sync") as mem:
        stream = load_stream()
        number: dict[str, int] = {}
        rows: list[tuple[str, str, str]] = []
        for n, item in enumerate(stream, start=1):
            result: AddResult = mem.add(user_id=DEMO_USER, **item)
            number.setdefault(result.memory.id, n)
            said = in_words(result.decision, number, item["text"])
            rows.append((str(n), item["text"], said))
            d = result.decision
            report["decisions"].append(
                {
                    "n": n,
                    "text": item["text"],
                    "action": "ADD" if d is None else d.action.value,
                    "decision": said,
                    "reasoning": "" if d is None else d.reasoning,
                }
            )
        everything = mem.list(user_id=DEMO_USER, status=None)
        active = [r for r in everything if r.status.value == "active"]
        report["stored"], report["active"] = len(stream), len(active)
        hits = mem.search(QUERY, user_id=DEMO_USER, k=3)
        report["searches"][QUERY] = [h.memory.text for h in hits]
        if not as_json:
            console.rule(f"memfold demo: {len(stream)} memories an assistant kept about Sam")
            console.print(_decisions_table(rows, mem.judge.name))
            console.print(_store_table(everything, number))
            console.print(
                f"{len(stream)} saved, {len(active)} active; the rest kept as history "
                "(`search(deep=True)` finds it)\n"
            )
            console.print(f'search "{QUERY}":')
            for h in hits:
                console.print(f"  {h.score:.3f}  #{number.get(h.memory.id, '?')}  {h.memory.text}")
        _undo_one(mem, number, report, as_json)
        if as_json:
            render.print_json(report)
    if workdir is not None:
        workdir.cleanup()
    return report


def _undo_one(mem: Memory, number: dict[str, int], report: dict[str, Any], quiet: bool) -> None:
    """Undo the last supersede (or other change) and show what came back."""
    changed = {a.value for a in Action if a.destructive or a is Action.UPDATE}
    entries: list[LogEntry] = [e for e in mem.log(1000) if e.action in changed]
    if not entries:
        return
    entry = entries[0]
    undo_ids = mem.undo(entry.id)
    restored = [mem.get(i) for i in entry.input_ids]
    report["undo"] = {
        "log_id": entry.id,
        "action": entry.action,
        "undo_log_ids": undo_ids,
        "restored": [r.to_dict() for r in restored],
    }
    if not quiet:
        render.console.print(f"\nundo of the last change ({shown_action(entry.action)}):")
        for r in restored:
            render.console.print(f"  #{number.get(r.id, '?')} {r.status.value}: {r.text}")
