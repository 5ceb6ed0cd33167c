"""The sliding window (seed 002), pure: which summary parts a window shows, where the
summarized turns end, when the next summary is due, and the chat messages built from
them: [system: system prompt + summary + notes + relevant memories] + the turns not yet
summarized + the user message."""

from __future__ import annotations

from collections.abc import Sequence

from memfold.policy.messages import Message
from memfold.policy.summary_parts import NewSummaryPart, PartKind, SummaryPart

ChatMessage = dict[str, str]


def shown_parts(parts: Sequence[SummaryPart]) -> list[SummaryPart]:
    """Every part no meta part replaces, in the order they were appended."""
    replaced = {i for p in parts if p.kind is PartKind.META for i in p.replaces}
    return [p for p in parts if p.id not in replaced]


def covered_to(parts: Sequence[SummaryPart]) -> int:
    """The last position a summary covers (-1: none)."""
    ends = [p.covers_to for p in parts if p.kind is not PartKind.NOTE and p.covers_to is not None]
    return max(ends, default=-1)


def due_segment(
    count: int, covered: int, *, threshold: int, keep_recent: int
) -> tuple[int, int] | None:
    """The positions ``(first, last)`` to summarize now, or None: once more than
    ``threshold`` messages are not yet summarized, all of them but the last
    ``keep_recent``."""
    waiting = count - (covered + 1)
    last = count - keep_recent - 1
    if waiting <= threshold or last <= covered:
        return None
    return covered + 1, last


def due_meta(parts: Sequence[SummaryPart], max_chars: int) -> list[SummaryPart]:
    """The summary parts a meta part compresses now (empty: none): all shown summary and
    meta parts, once the shown parts pass ``max_chars`` and there are two or more."""
    shown = shown_parts(parts)
    if sum(len(p.text) for p in shown) <= max_chars:
        return []
    summaries = [p for p in shown if p.kind is not PartKind.NOTE]
    return summaries if len(summaries) >= 2 else []


def already_written(parts: Sequence[SummaryPart], new: NewSummaryPart) -> bool:
    """Whether ``new`` is out of date: a summary part of turns another summary covers,
    or a meta part of parts another meta part replaced."""
    if new.kind is PartKind.SUMMARY:
        return new.covers_from is not None and new.covers_from <= covered_to(parts)
    if new.kind is PartKind.META:
        replaced = {i for p in parts if p.kind is PartKind.META for i in p.replaces}
        return any(i in replaced for i in new.replaces)
    return False


def system_text(
    system_prompt: str | None, parts: Sequence[SummaryPart], memories: Sequence[str]
) -> str:
    """The system message: the prompt, the summary (oldest turns first), the agent's
    notes, the relevant memories; sections without content left out."""
    shown = shown_parts(parts)
    summaries = sorted(
        (p for p in shown if p.kind is not PartKind.NOTE), key=lambda p: p.covers_from or 0
    )
    notes = [p for p in shown if p.kind is PartKind.NOTE]
    sections: list[str] = []
    if system_prompt:
        sections.append(system_prompt)
    if summaries:
        body = "\n\n".join(p.text for p in summaries)
        sections.append(f"Summary of the conversation so far:\n{body}")
    if notes:
        sections.append("Notes:\n" + "\n".join(f"- {p.text}" for p in notes))
    if memories:
        sections.append("Relevant memories:\n" + "\n".join(f"- {m}" for m in memories))
    return "\n\n".join(sections)


# What a message's metadata carries into the window: the speaker's name, and the id that
# pairs a tool result with the call it answers (a chat API refuses a tool message
# without it: the window keeps tool-call continuity).
_CARRIED = ("name", "tool_call_id")


def chat_message(message: Message) -> ChatMessage:
    out = {"role": message.role.value, "content": message.content}
    for key in _CARRIED:
        value = message.metadata.get(key)
        if isinstance(value, str):
            out[key] = value
    return out


def build_window(system: str, recent: Sequence[Message], user_message: str) -> list[ChatMessage]:
    head = [{"role": "system", "content": system}] if system else []
    return [*head, *(chat_message(m) for m in recent), {"role": "user", "content": user_message}]
