"""Sending a judge's text down its path: a scripted LLM that writes the case's text in
every reply, and one runner per path that returns what the store ends up holding.

Each runner opens a fresh store configured for the scripted server (every task on its
``utility`` role, no retries, the rules never answering a save first), drives the path
the way its own tests do, and reports: whether the judge was asked for the text at all,
whether the text was applied, and whether the sources came through unchanged.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from adversarial.cases import Case, Route
from helpers.scripted import vec_with_cosine
from memfold import Memory, Settings, Status
from memfold.embed.local import LocalEmbedder
from memfold.model import MemoryRecord, utcnow
from memfold.testing.fake_replies import last_user_message

USER = "u1"
CONFIDENCE = 0.99
# The lifecycle tick runs at NOW over a cluster saved in March 2024: it is fading then.
NOW = datetime(2024, 9, 1, tzinfo=UTC)
FILLER = ("assistant", "Okay.")  # the last turn, kept in the window: never summarized


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def request_kind(body: dict[str, Any]) -> str:
    """What a chat request asks for, read from its last user message the way each path
    renders it (``judge.llm_prompts``, ``llm.render_messages``, ``summarize``)."""
    text = last_user_message(body)
    if text.startswith("Item "):
        return "decide"
    if text.startswith("Pair "):
        return "classify"
    if text.startswith("Memories:"):
        return "compress"
    if text.startswith("Messages:"):
        return "extract"
    try:
        payload = json.loads(text)
    except json.JSONDecodeError:
        return "summary"
    return "merge" if isinstance(payload, dict) and "memories" in payload else "unknown"


@dataclass
class WritingJudge:
    """The scripted server's answer function: whatever it is asked to write, it writes
    ``case.text``; it labels every review pair DUPLICATE and folds every save into its
    first candidate with ``case.action``, all at confidence 0.99."""

    case: Case
    asked: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, body: dict[str, Any]) -> Any:
        from memfold.testing.fake_replies import confident, user_payload

        kind = request_kind(body)
        with self._lock:
            self.asked.append(kind)
        text = self.case.text
        if kind == "decide":
            items = user_payload(body)["items"]
            return confident({"decisions": [self._decision(item) for item in items]})
        if kind == "classify":
            pairs = user_payload(body)["pairs"]
            return confident(
                {
                    "verdicts": [
                        {
                            "pair": p["pair"],
                            "label": "DUPLICATE",
                            "confidence": CONFIDENCE,
                            "reasoning": "the same fact told twice",
                        }
                        for p in pairs
                    ]
                }
            )
        if kind == "extract":
            return {"memories": [{"text": text, "area": "main", "sources": list(self.case.cites)}]}
        return {"text": text, "reasoning": f"scripted {kind}"}

    def _decision(self, item: dict[str, Any]) -> dict[str, Any]:
        candidates = item["candidates"]
        if not candidates:
            return {"item": item["item"], "action": "ADD", "confidence": CONFIDENCE}
        return {
            "item": item["item"],
            "action": self.case.action,
            "target_ids": [candidates[0]["id"]],
            "text": self.case.text,
            "area": "main",
            "importance": 0.5,
            "confidence": CONFIDENCE,
            "reasoning": f"scripted {self.case.action}",
        }

    @property
    def wrote(self) -> bool:
        """Whether the judge was asked for a text (the path reached the writing step)."""
        return any(k in ("decide", "merge", "compress", "summary", "extract") for k in self.asked)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the store holds after the path ran."""

    asked: bool  # the judge was asked to write the text
    applied: bool  # the case's text is held: an active memory, or a summary part
    sources_kept: bool  # every source came through unchanged (see each runner)
    held: tuple[str, ...]  # the texts held (active memories, or summary parts)
    note: str = ""  # why the path did not apply it, where it says

    def describe(self) -> str:
        held = "\n    ".join(self.held) or "(nothing)"
        return (
            f"asked={self.asked} applied={self.applied} sources_kept={self.sources_kept}\n"
            f"  note: {self.note}\n  held:\n    {held}"
        )


def settings(base_url: str, **sections: Any) -> Settings:
    return Settings(
        llm={
            "base_url": base_url,
            "model": "fake-model",
            "api_key": "k",
            "utility": {"timeout_s": 10.0, "max_retries": 0},
            "rules_first_confidence": None,
        },
        **sections,
    )


def _active(mem: Memory) -> list[MemoryRecord]:
    return [r for r in mem.list(user_id=USER, limit=None) if r.status is Status.ACTIVE]


def _holds(texts: list[str], text: str) -> bool:
    return _norm(text) in {_norm(t) for t in texts}


def _unchanged_and_active(mem: Memory, ids: list[str], texts: tuple[str, ...]) -> bool:
    records = [mem.get(i) for i in ids]
    return all(
        r.status is Status.ACTIVE and r.text == t for r, t in zip(records, texts, strict=True)
    )


Runner = Callable[[Case, WritingJudge, Path, str, LocalEmbedder], Outcome]


def run_on_save(
    case: Case, judge: WritingJudge, db: Path, base_url: str, embedder: LocalEmbedder
) -> Outcome:
    """The first source is stored (nothing similar yet: no call); saving the second asks
    the judge, who folds it into the first with ``case.action`` and ``case.text``.
    Sources kept: both stay active with their own texts."""
    with Memory(db, settings=settings(base_url), embedder=embedder, consolidate="sync") as mem:
        ids = [mem.add(text, user_id=USER).memory.id for text in case.sources]
        active = [r.text for r in _active(mem)]
        notes = [e.reasoning for e in mem.log(10) if e.path == "on_save"]
        return Outcome(
            asked=judge.wrote,
            applied=_holds(active, case.text),
            sources_kept=_unchanged_and_active(mem, ids, case.sources),
            held=tuple(active),
            note=" || ".join(notes),
        )


def run_review(
    case: Case, judge: WritingJudge, db: Path, base_url: str, embedder: LocalEmbedder
) -> Outcome:
    """The pair, saved an hour ago, goes through a review run: scan, classify (DUPLICATE
    at 0.99: the gate's high band), merge text, the merge check. Sources kept: both stay
    active with their own texts (a refused merge is held for a person)."""
    with Memory(db, settings=settings(base_url), embedder=embedder, consolidate="off") as mem:
        old = utcnow() - timedelta(hours=1)
        ids = [
            mem.add(text, user_id=USER, created_at=old + timedelta(seconds=n)).memory.id
            for n, text in enumerate(case.sources)
        ]
        run = mem.review.run(user_id=USER)
        active = [r.text for r in _active(mem)]
        notes = [str(e) for e in run.breaker.get("events", [])]
        return Outcome(
            asked=judge.wrote,
            applied=_holds(active, case.text),
            sources_kept=_unchanged_and_active(mem, ids, case.sources),
            held=tuple(active),
            note=f"counts={ {k: v for k, v in run.counts.items() if isinstance(v, int)} } "
            + " || ".join(notes),
        )


def run_compress(
    case: Case, judge: WritingJudge, db: Path, base_url: str, embedder: LocalEmbedder
) -> Outcome:
    """The cluster is saved in March 2024 (episodic, low importance, vectors at cosine
    0.81 with each other) and a tick at ``NOW`` compresses it with the judge's summary.
    Sources kept: each original keeps its text and is either still active or superseded
    by an active memory that holds its text word for word (memfold's fallback, the
    concatenation "Summary: a | b | c")."""
    cfg = settings(base_url, lifecycle={"cluster_size": len(case.sources), "tick_every_adds": 0})
    with Memory(db, settings=cfg, embedder=embedder, consolidate="off") as mem:
        ids = [
            mem.add(
                text,
                user_id=USER,
                category="episodic",
                importance=0.2,
                embedding=vec_with_cosine(0.9, axis=1 + n),
                created_at=datetime(2024, 3, 1 + 3 * n, tzinfo=UTC),
            ).memory.id
            for n, text in enumerate(case.sources)
        ]
        report = mem.tick(NOW)
        active = [r.text for r in _active(mem)]
        kept = True
        for memory_id, text in zip(ids, case.sources, strict=True):
            record = mem.get(memory_id)
            if record.text != text:
                kept = False
            elif record.status is not Status.ACTIVE:
                by = mem.get(record.superseded_by or "")
                kept = kept and by.status is Status.ACTIVE and text in by.text
        notes = [c.fallback or c.skipped or "" for c in report.compressions]
        return Outcome(
            asked=judge.wrote,
            applied=_holds(active, case.text),
            sources_kept=kept,
            held=tuple(active),
            note=f"compression={report.compression} " + " || ".join(notes),
        )


def run_summary(
    case: Case, judge: WritingJudge, db: Path, base_url: str, embedder: LocalEmbedder
) -> Outcome:
    """The turns (and one filler turn kept in the window) are appended to a session; the
    summary due covers the case's turns. Applied: a summary part holds the text, or a
    memory does. Sources kept: the transcript is unchanged."""
    cfg = settings(base_url, conversation={"threshold_messages": 1, "keep_recent": 1})
    with Memory(db, settings=cfg, embedder=embedder, consolidate="off") as mem:
        conv = mem.conversation("s1", user_id=USER)
        turns = [*case.turns, FILLER]
        for role, content in turns:
            conv.append(role, content)
        conv.summarize_due()
        parts = [p.text for p in conv.summary()]
        transcript = [(m.role.value, m.content) for m in conv.transcript()]
        memories = [r.text for r in _active(mem)]
        written = conv.last_written
        return Outcome(
            asked=judge.wrote,
            applied=_holds(parts, case.text) or _holds(memories, case.text),
            sources_kept=transcript == turns,
            held=tuple(parts + memories),
            note="" if written is None else f"{written.source}: {written.reason}",
        )


def run_extract(
    case: Case, judge: WritingJudge, db: Path, base_url: str, embedder: LocalEmbedder
) -> Outcome:
    """``Memory.add(messages=...)`` with inference: the judge extracts the text from the
    turns and memfold saves what passes. Sources kept: trivially (the turns are not
    memories here; only what is extracted from them is saved)."""
    with Memory(db, settings=settings(base_url), embedder=embedder, consolidate="off") as mem:
        out = mem.add(messages=[{"role": r, "content": c} for r, c in case.turns], user_id=USER)
        active = [r.text for r in _active(mem)]
        return Outcome(
            asked=judge.wrote,
            applied=_holds(active, case.text),
            sources_kept=True,
            held=tuple(active),
            note=f"{len(out.results)} extract(s) saved",
        )


RUNNERS: dict[Route, Runner] = {
    Route.ON_SAVE: run_on_save,
    Route.REVIEW: run_review,
    Route.COMPRESS: run_compress,
    Route.SUMMARY: run_summary,
    Route.EXTRACT: run_extract,
}
