"""Memory.conversation (seed 002): the transcript is never changed, the window slides
over it, the summary is only ever appended; on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from pathlib import Path

import pytest

from memfold import Memory
from memfold.config import ConversationSettings, Settings
from memfold.embed.local import LocalEmbedder
from memfold.engine.conversation.session import Conversation
from memfold.errors import InvalidInput
from memfold.policy.summary_parts import PartKind

TOPICS = [
    "I moved to Lisbon in 2021 and work at Acme as a data engineer.",
    "My sister Marta visits every March.",
    "The deploy failed with error 502 again, so I restarted nginx.",
    "I prefer green tea to coffee. It keeps me calm.",
]


def _turn(n: int) -> tuple[str, str]:
    if n % 2:
        return "assistant", f"Noted, turn {n}. Anything else about that?"
    return "user", f"{TOPICS[(n // 2) % len(TOPICS)]} (turn {n})"


def _fill(conv: Conversation, start: int, stop: int) -> None:
    for n in range(start, stop):
        role, content = _turn(n)
        conv.append(role, content, turn=n)


def _export(conv: Conversation, path: Path) -> bytes:
    conv.export(path)
    return path.read_bytes()


def test_300_messages_transcript_byte_identical_after_every_summary(
    mem_off: Memory, tmp_path: Path
) -> None:
    conv = mem_off.conversation("s300", user_id="ana")
    parts_before: list[dict[str, object]] = []
    summaries = 0
    for n in range(300):
        _fill(conv, n, n + 1)
        before = _export(conv, tmp_path / "before.jsonl")
        window = conv.messages("and now?", k_memories=0)
        after = _export(conv, tmp_path / "after.jsonl")
        assert after == before  # the transcript is never changed by the window
        parts = [p.to_dict() for p in conv.summary()]
        assert parts[: len(parts_before)] == parts_before  # only ever appended
        if len(parts) > len(parts_before):
            summaries += 1
            assert len(window) == 1 + 20 + 1  # summary, the 20 recent, the user message
        parts_before = parts
    lines = (tmp_path / "after.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 300 and summaries >= 3
    kinds = [p.kind for p in conv.summary()]
    assert kinds.count(PartKind.SUMMARY) == summaries
    covered = [
        (p.covers_from or 0, p.covers_to or 0) for p in conv.summary() if p.kind is PartKind.SUMMARY
    ]
    assert covered[0][0] == 0
    assert all(b[0] == a[1] + 1 for a, b in pairwise(covered))


def test_the_window_holds_summary_20_recent_and_the_user_message(mem_off: Memory) -> None:
    mem_off.add("Ana drinks green tea every morning", user_id="ana")
    conv = mem_off.conversation("w1", user_id="ana")
    _fill(conv, 0, 100)
    window = conv.messages("What do I drink?", system_prompt="Be brief.")
    assert conv.summary() == []  # 100 messages: not past the threshold yet
    assert len(window) == 1 + 100 + 1
    _fill(conv, 100, 101)
    window = conv.messages("What do I drink?", system_prompt="Be brief.")
    (part,) = conv.summary()
    assert (part.kind, part.covers_from, part.covers_to) == (PartKind.SUMMARY, 0, 80)
    system, *recent, user = window
    assert system["role"] == "system" and system["content"].startswith("Be brief.")
    assert part.text in system["content"]
    assert "Relevant memories:\n- Ana drinks green tea every morning" in system["content"]
    assert [m["content"] for m in recent] == [_turn(n)[1] for n in range(81, 101)]
    assert [m["role"] for m in recent] == [_turn(n)[0] for n in range(81, 101)]
    assert user == {"role": "user", "content": "What do I drink?"}
    assert len(conv) == 101  # the user message is not appended by messages()


def test_extractive_digest_keeps_user_openings_and_facts(mem_off: Memory) -> None:
    conv = mem_off.conversation("d1", user_id="ana")
    _fill(conv, 0, 101)
    conv.messages("hi", k_memories=0)
    (part,) = conv.summary()
    assert part.text.startswith("Messages 0-80 (extract):")
    assert "user: I moved to Lisbon in 2021 and work at Acme as a data engineer." in part.text
    assert "user: The deploy failed with error 502 again, so I restarted nginx." in part.text
    assert "Noted" not in part.text or "turn" in part.text  # assistant lines carry a number
    assert len(part.text) <= mem_off.settings.conversation.summary_max_part_chars


@pytest.fixture
def small(tmp_path: Path, embedder: LocalEmbedder) -> Iterator[Memory]:
    cfg = ConversationSettings(
        threshold_messages=10, keep_recent=4, summary_max_chars=600, summary_max_part_chars=300
    )
    with Memory(
        tmp_path / "small.db",
        settings=Settings(conversation=cfg),
        embedder=embedder,
        consolidate="off",
    ) as mem:
        yield mem


def test_notes_are_kept_and_a_meta_part_compresses_older_parts(small: Memory) -> None:
    conv = small.conversation("m1", user_id="ana")
    note = conv.note("The user wants answers in Portuguese.")
    seen: list[dict[str, object]] = []
    for n in range(0, 80):
        _fill(conv, n, n + 1)
        conv.messages("go on", k_memories=0)
        dicts = [p.to_dict() for p in conv.summary()]
        assert dicts[: len(seen)] == seen
        seen = dicts
    parts = conv.summary()
    metas = [p for p in parts if p.kind is PartKind.META]
    assert metas, [p.kind for p in parts]
    assert parts[0].id == note.id and parts[0].text == note.text
    last = metas[-1]
    replaced = [p for p in parts if p.id in last.replaces]
    assert replaced and all(p.kind is not PartKind.NOTE for p in replaced)
    assert last.covers_from == 0 and len(last.text) <= 300
    system = conv.messages("go on", k_memories=0)[0]["content"]
    assert "- The user wants answers in Portuguese." in system
    assert last.text in system and all(p.text not in system for p in replaced)


@pytest.mark.parametrize(
    ("items", "match"),
    [
        ([{"role": "wizard", "content": "hi"}], "role must be one of"),
        ([{"role": "user", "content": "   "}], "content"),
        ([{"role": "user", "content": "x" * 32_001}], "content"),
        ([{"role": "user", "content": "ok"}, {"role": "bot", "content": "no"}], "message 1"),
        (
            [
                {"role": "user", "content": "late", "created_at": "2026-01-02T00:00:00+00:00"},
                {"role": "user", "content": "early", "created_at": "2026-01-01T00:00:00+00:00"},
            ],
            "in order",
        ),
        ("hello", "must be a list"),
    ],
)
def test_bad_input_writes_nothing(mem_off: Memory, items: object, match: str) -> None:
    conv = mem_off.conversation("bad", user_id="ana")
    conv.append("user", "first", created_at=datetime(2026, 1, 1, tzinfo=UTC))
    with pytest.raises(InvalidInput, match=match):
        conv.extend(items)
    assert [m.content for m in conv.transcript()] == ["first"]


def test_bad_single_messages_and_session_ids(mem_off: Memory) -> None:
    t0 = datetime(2026, 1, 5, tzinfo=UTC)
    conv = mem_off.conversation("bad1", user_id="ana")
    conv.append("user", "hello", created_at=t0)
    for role, content in (("robot", "hi"), ("user", ""), ("user", "x" * 32_001), ("user", 7)):
        with pytest.raises(InvalidInput):
            conv.append(role, content)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="before the last message"):
        conv.append("user", "from the past", created_at=t0 - timedelta(seconds=1))
    for session in (12, None, ["s"], ""):
        with pytest.raises(InvalidInput):
            mem_off.conversation(session, user_id="ana")  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        conv.messages("", k_memories=0)
    assert [m.content for m in conv.transcript()] == ["hello"]
    assert mem_off.conversation("bad1", user_id="bo").transcript() == []  # another scope
