"""BEAM: knowledge updates and contradictions after on-save consolidation.

Each chat's user messages are ingested in order (sources = message id) with sync
consolidation. Knowledge update: searched with the question, the memory carrying
``updated_info`` must rank above the one carrying ``original_info`` (or the
original must be superseded). Apart from ranking, *handled by consolidation*: the
original memory was retired in favour of the update (no longer active, its successors
leading to a memory that carries the updated message) or rewritten to hold it (the
memory carrying the original also carries the updated message). Contradiction
resolution: both statements must survive: active, or superseded yet readable with
``get`` and linked.

``ingest="facts"`` (suite ``beam-facts``) adds each message as facts instead
(``evaluation.beam_facts``): handled then means a fact of the original message retired
for a fact of the updated one.
"""

from __future__ import annotations

import contextlib

from memfold.errors import NotFound
from memfold.evaluation.beam_facts import FactStore, ingest_facts, retired_for, supersedes
from memfold.evaluation.conversations import BeamChat, load_beam
from memfold.evaluation.env import EvalEnv
from memfold.evaluation.metrics import UPDATE_PASS, first_rank, rate, tally, update_outcome
from memfold.memory import Memory
from memfold.model import JSONDict, LinkKind, MemoryRecord, Status

K = 10


def _ingest(mem: Memory, chat: BeamChat, env: EvalEnv) -> dict[str, str]:
    """Add every message; returns message id -> the memory id it was stored as."""
    first: dict[str, str] = {}
    task = env.task(f"BEAM chat {chat.number} ingest (sync)", len(chat.messages))
    for item in chat.messages:
        result = mem.add(
            item.text,
            user_id=f"beam-{chat.number}",
            sources=list(item.sources),
            created_at=item.created_at,
        )
        for source in item.sources:
            first.setdefault(source, result.memory.id)
        env.progress.advance(task)
    env.progress.remove_task(task)
    return first


def _records(mem: Memory, stored: dict[str, str], ids: tuple[str, ...]) -> list[MemoryRecord]:
    out = []
    for message_id in ids:
        if message_id in stored:
            with contextlib.suppress(NotFound):
                out.append(mem.get(stored[message_id]))
    return out


def survival(mem: Memory, record: MemoryRecord) -> str:
    """How a statement survived: active / merged (successor carries its sources) /
    contradicts-linked / superseded (readable, linked) / dropped (nothing points at it)."""
    if record.status is Status.ACTIVE:
        return "active"
    links = mem.store.links_for([record.id])
    if any(ln.kind is LinkKind.CONTRADICTS for ln in links):
        return "contradicts-linked"
    successor = None
    if record.superseded_by:
        try:
            successor = mem.get(record.superseded_by)
        except NotFound:
            successor = None
    if successor is not None and set(record.sources) <= set(successor.sources):
        return "merged"
    if successor is not None or links:
        return "superseded-linked"
    return "dropped"


_MAX_CHAIN = 32


def handled(
    mem: Memory, original: MemoryRecord, updated: tuple[str, ...], stored: dict[str, str]
) -> bool:
    """Did consolidation itself retire ``original`` for the update, or rewrite it to
    hold the update? Follows ``superseded_by`` to the memory that stands for it now.
    A message that carries both values (the same memory) is not counted."""
    if original.id in {stored[i] for i in updated if i in stored}:
        return False
    record: MemoryRecord | None = original
    for _ in range(_MAX_CHAIN):
        if record is None:
            return False
        if set(updated) & set(record.sources):
            return True  # rewritten to hold it, or retired by it (or by what absorbed it)
        if record.status is Status.ACTIVE or not record.superseded_by:
            return False
        try:
            record = mem.get(record.superseded_by)
        except NotFound:
            return False
    return False


def run_beam(env: EvalEnv, ingest: str = "messages") -> JSONDict:
    """The BEAM suite; ``ingest``: "messages" (each message one memory) or "facts"."""
    if ingest not in ("messages", "facts"):
        raise ValueError(f"ingest must be messages or facts, got {ingest!r}")
    chats = load_beam(env.data, env.split)
    if env.max_convs is not None:
        chats = chats[: env.max_convs]
    # With facts, what is embedded is known only once extracted (cached as it comes).
    texts = [] if ingest == "facts" else [m.text for c in chats for m in c.messages]
    env.embed_all(texts + [u.question for c in chats for u in c.updates], "BEAM")
    updates: list[JSONDict] = []
    contradictions: list[JSONDict] = []
    retired: list[JSONDict] = []
    memories = active = 0
    for chat in chats:
        mem = env.memory(f"beam-{ingest}-{chat.number}", "sync")
        try:
            if ingest == "facts":
                facts = ingest_facts(mem, chat, env)
                stored = {m: ids[0] for m, ids in facts.by_message.items() if ids}
            else:
                facts = None
                stored = _ingest(mem, chat, env)
            memories += len(chat.messages)
            active += mem.store.count_memories(status=Status.ACTIVE)
            for u in chat.updates:
                updates.append(_update(mem, chat, u.question, u.original, u.updated, stored, facts))
            for c in chat.contradictions:
                ids = c.first + c.second
                if facts is None:
                    records = _records(mem, stored, ids)
                else:
                    records = _all_records(mem, facts.memory_ids(ids))
                states = [survival(mem, r) for r in records]
                contradictions.append(
                    {
                        "chat": chat.number,
                        "question": c.question,
                        "states": states or ["not-ingested"],
                    }
                )
            made = facts or FactStore(by_message={m: [i] for m, i in stored.items()})
            retired += [{"chat": chat.number, **r} for r in supersedes(mem, made)]
        finally:
            mem.close()
    scored = [u for u in updates if u["outcome"] != "not-ingested"]
    passed = [u for u in scored if u["outcome"] in UPDATE_PASS]
    states = [s for c in contradictions for s in c["states"]]
    out: JSONDict = {
        "ingest": ingest,
        "chats": len(chats),
        "messages": memories,
        "active_after": active,
        "updates": updates,
        "update_outcomes": tally(u["outcome"] for u in updates),
        "updated_above_original": rate(len(passed), len(scored)),
        # Apart from ranking: the original retired for, or rewritten to hold, the update.
        "handled_by_consolidation": sum(1 for u in scored if u["handled_by_consolidation"]),
        "handled_by_consolidation_rate": rate(
            sum(1 for u in scored if u["handled_by_consolidation"]), len(scored)
        ),
        # The original no longer active, for whatever reason (an upper bound).
        "originals_inactive": sum(1 for u in scored if u["original_inactive"]),
        "updates_scored": len(scored),
        "contradictions": contradictions,
        "contradiction_states": tally(states),
        "contradictions_dropped": sum(1 for s in states if s == "dropped"),
    }
    # Every memory retired (superseded, or folded into another), to see a wrong one.
    out["supersedes"] = retired
    return out


def _all_records(mem: Memory, memory_ids: list[str]) -> list[MemoryRecord]:
    out = []
    for memory_id in dict.fromkeys(memory_ids):
        with contextlib.suppress(NotFound):
            out.append(mem.get(memory_id))
    return out


def _update(
    mem: Memory,
    chat: BeamChat,
    question: str,
    original: tuple[str, ...],
    updated: tuple[str, ...],
    stored: dict[str, str],
    facts: FactStore | None,
) -> JSONDict:
    """One knowledge-update question: its ranking outcome and whether consolidation
    handled it. With facts, the original's facts and the updated message's facts are
    compared, and handled means one original fact retired for an updated one."""
    hits = mem.search(question, user_id=f"beam-{chat.number}", k=K)
    if facts is None:
        sources = [h.memory.sources for h in hits]
        originals = _records(mem, stored, original)
        superseded = bool(originals) and all(r.status is not Status.ACTIVE for r in originals)
        by_consolidation = bool(originals) and all(
            handled(mem, r, updated, stored) for r in originals
        )
        found: list[JSONDict] = []
    else:
        sources = [sorted(facts.messages_of(h.memory)) for h in hits]
        found = retired_for(mem, facts, original, updated)
        by_consolidation = superseded = bool(found)
    outcome = update_outcome(
        first_rank(sources, updated), first_rank(sources, original), superseded
    )
    if not any(i in stored for i in updated):
        outcome = "not-ingested"
    row: JSONDict = {
        "chat": chat.number,
        "question": question,
        "outcome": outcome,
        "original_inactive": superseded,
        "handled_by_consolidation": by_consolidation,
    }
    if facts is not None:
        row["retired"] = found
    return row
