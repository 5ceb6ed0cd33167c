"""BEAM with facts: each user message added as mem0 users add a chat.

``Memory.add(messages=[message], infer=True)`` with the rule extractor: the memories are
the facts the rules take from each message (``engine.conversation.extract.rules``: the
user's statements, commands, fixes and the clauses that state a value), not the whole
messages. BEAM's "->-> session,turn" annotation at a message's end is dropped first: it
is the data set's index, not what the user said (a number the extractor would read as a
value). A knowledge update is *handled by consolidation* when a fact of an original
message was retired (``superseded_by``) for a fact of an updated message: one fact,
never the whole message; as with whole messages (``run_beam.handled``), the fact of the
updated message may itself be retired later by a still newer one ("adjusted to 1,350
words", then "from 1,200 to 1,500 words"). Every supersede of the run is listed
(``supersedes``) so that a wrong one can be seen.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memfold.errors import NotFound
from memfold.evaluation.conversations import BeamChat
from memfold.evaluation.env import EvalEnv
from memfold.memory import Memory
from memfold.model import JSONDict, MemoryRecord, Status

_ANNOTATION = re.compile(r"\s*->->\s*\d+\s*,\s*\d+\s*$")
_MAX_CHAIN = 32


def bare(text: str) -> str:
    """A BEAM message without its trailing "->-> session,turn" annotation."""
    return _ANNOTATION.sub("", text).strip()


@dataclass(slots=True)
class FactStore:
    """What the facts of one chat are: message id -> memory ids made from it, and the
    message ids each stored source id stands for."""

    by_message: dict[str, list[str]] = field(default_factory=dict)
    alias: dict[str, str] = field(default_factory=dict)

    def messages_of(self, record: MemoryRecord) -> set[str]:
        return {self.alias.get(s, s) for s in record.sources}

    def memory_ids(self, message_ids: tuple[str, ...]) -> list[str]:
        return [m for i in message_ids for m in self.by_message.get(i, [])]


def ingest_facts(mem: Memory, chat: BeamChat, env: EvalEnv) -> FactStore:
    """Add every message with ``infer=True``; returns where its facts went."""
    facts = FactStore()
    task = env.task(f"BEAM chat {chat.number} ingest (facts, sync)", len(chat.messages))
    for item in chat.messages:
        text = bare(item.text)
        if text:
            message = {"role": "user", "content": text, "created_at": item.created_at}
            result = mem.add(messages=[message], user_id=f"beam-{chat.number}", infer=True)
            for stored in result.messages:
                facts.alias[stored.id] = item.sources[0]
            made = [added.memory.id for added in result.added]
            for source in item.sources:
                facts.by_message.setdefault(source, []).extend(made)
        env.progress.advance(task)
    env.progress.remove_task(task)
    return facts


def _chain(mem: Memory, record: MemoryRecord) -> list[MemoryRecord]:
    """The memories that took ``record``'s place in turn (its ``superseded_by`` chain),
    the one that stands for it now last; empty when it is active."""
    out: list[MemoryRecord] = []
    current = record
    for _ in range(_MAX_CHAIN):
        if current.status is Status.ACTIVE or not current.superseded_by:
            break
        try:
            current = mem.get(current.superseded_by)
        except NotFound:
            break
        out.append(current)
    return out


def _successor(mem: Memory, record: MemoryRecord) -> MemoryRecord | None:
    """The memory that stands for ``record`` now (its ``superseded_by`` chain's end)."""
    current: MemoryRecord | None = record
    for _ in range(_MAX_CHAIN):
        if current is None or current.status is Status.ACTIVE or not current.superseded_by:
            return current
        try:
            current = mem.get(current.superseded_by)
        except NotFound:
            return None
    return current


def retired_for(
    mem: Memory, facts: FactStore, original: tuple[str, ...], updated: tuple[str, ...]
) -> list[JSONDict]:
    """The facts of the original messages retired for a fact of an updated message
    (none made from an updated message itself): one on their ``superseded_by`` chain,
    with what stands for each now (that fact, or a newer one that retired it since)."""
    out: list[JSONDict] = []
    for memory_id in dict.fromkeys(facts.memory_ids(original)):
        try:
            record = mem.get(memory_id)
        except NotFound:
            continue
        if record.status is Status.ACTIVE or facts.messages_of(record) & set(updated):
            continue
        chain = _chain(mem, record)
        update = next((m for m in chain if facts.messages_of(m) & set(updated)), None)
        if update is not None:
            out.append({"original": record.text, "for": update.text, "now": chain[-1].text})
    return out


def supersedes(mem: Memory, facts: FactStore) -> list[JSONDict]:
    """Every memory of the chat retired (superseded or folded into another), with what
    stands for it now and the message ids of both."""
    out: list[JSONDict] = []
    seen = {m for ids in facts.by_message.values() for m in ids}
    for memory_id in sorted(seen):
        try:
            record = mem.get(memory_id)
        except NotFound:
            continue
        if record.status is Status.ACTIVE or not record.superseded_by:
            continue
        now = _successor(mem, record)
        out.append(
            {
                "retired": record.text,
                "retired_messages": sorted(facts.messages_of(record)),
                "now": None if now is None else now.text,
                "now_messages": [] if now is None else sorted(facts.messages_of(now)),
            }
        )
    return out
