"""The window's pure parts, and two writers summarizing the same turns at once."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from memfold import Memory
from memfold.config import ConversationSettings, Settings
from memfold.embed.local import LocalEmbedder
from memfold.engine.conversation import window as win
from memfold.engine.conversation.session import Conversation
from memfold.judge.base import TextResult
from memfold.policy.summary_parts import NewSummaryPart, PartKind, SummaryPart

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _part(n: int, kind: PartKind, lo: int | None, hi: int | None, *replaces: str) -> SummaryPart:
    return SummaryPart(f"p{n}", "k", n, kind, f"text {n}", T0, lo, hi, tuple(replaces))


def test_due_segment_waits_for_the_threshold_then_keeps_the_recent() -> None:
    assert win.due_segment(100, -1, threshold=100, keep_recent=20) is None
    assert win.due_segment(101, -1, threshold=100, keep_recent=20) == (0, 80)
    assert win.due_segment(180, 80, threshold=100, keep_recent=20) is None
    assert win.due_segment(182, 80, threshold=100, keep_recent=20) == (81, 161)
    assert win.due_segment(5, -1, threshold=1, keep_recent=10) is None  # nothing leaves


def test_shown_parts_and_what_is_out_of_date() -> None:
    parts = [
        _part(0, PartKind.SUMMARY, 0, 9),
        _part(1, PartKind.NOTE, None, None),
        _part(2, PartKind.SUMMARY, 10, 19),
        _part(3, PartKind.META, 0, 19, "p0", "p2"),
    ]
    assert [p.id for p in win.shown_parts(parts)] == ["p1", "p3"]
    assert win.covered_to(parts) == 19
    assert win.already_written(parts, NewSummaryPart(PartKind.SUMMARY, "x", 15, 30))
    assert not win.already_written(parts, NewSummaryPart(PartKind.SUMMARY, "x", 20, 30))
    assert win.already_written(parts, NewSummaryPart(PartKind.META, "x", 0, 9, ("p0",)))
    assert not win.already_written(parts, NewSummaryPart(PartKind.NOTE, "x"))
    text = win.system_text("Be kind.", parts, ["Ana likes tea"])
    assert text == "Be kind.\n\nSummary of the conversation so far:\ntext 3\n\n" + (
        "Notes:\n- text 1\n\nRelevant memories:\n- Ana likes tea"
    )
    assert win.system_text(None, [], []) == ""


def test_two_writers_summarizing_at_once_leave_one_part(
    tmp_path: object, embedder: LocalEmbedder
) -> None:
    settings = Settings(conversation=ConversationSettings(threshold_messages=6, keep_recent=2))
    with Memory(f"{tmp_path}/m.db", settings=settings, embedder=embedder, consolidate="off") as mem:
        first = mem.conversation("s", user_id="ana")
        for n in range(8):
            first.append("user", f"message {n}.")
        other = mem.conversation("s", user_id="ana")

        def slow_llm(lines: Sequence[str]) -> TextResult:
            other.summarize_due()  # the other writer finishes first (its digest)
            return TextResult("The user sent messages 0 to 5.")

        racing = Conversation(first.ctx, first.scope, lambda q, s, k: [], slow_llm)
        racing.summarize_due()
        parts = racing.summary()
        assert len(parts) == 1 and parts[0].text.startswith("Messages 0-5 (extract):")
