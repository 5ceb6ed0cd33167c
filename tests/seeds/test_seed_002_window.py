"""Seed 002, the sliding window over an immutable transcript, claim by claim: memfold's
public API (Memory.conversation) on real SQLite files, default settings (100 messages,
20 kept), and a scripted OpenAI-compatible LLM writing the summaries."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from memfold import Memory, Settings
from memfold.embed.local import LocalEmbedder
from memfold.engine.conversation.session import Conversation
from memfold.judge.prompts import load_prompt
from memfold.testing.fake_llm import FakeLLMServer
from memfold.testing.fake_replies import last_user_message

CHAT = "/chat/completions"
TOPICS = [
    "I moved to Lisbon in 2021 and work at Acme as a data engineer.",
    "My sister Marta visits every March.",
    "The deploy failed with error 502 again, so I restarted nginx.",
    "I prefer green tea to coffee. It keeps me calm.",
]
PROMPT = "You are squidbot."
TABLES = ("transcripts", "summaries")


def _turn(n: int) -> dict[str, str]:
    if n % 2:
        return {"role": "assistant", "content": f"Noted, turn {n}. Anything else about that?"}
    return {"role": "user", "content": f"{TOPICS[(n // 2) % len(TOPICS)]} (turn {n})"}


def _turns(start: int, stop: int) -> list[dict[str, str]]:
    return [_turn(n) for n in range(start, stop)]


def _summarize(body: dict[str, Any]) -> dict[str, str]:
    """A summary LLM that keeps the first user turn it is given (it invents nothing)."""
    for line in last_user_message(body).splitlines():
        number, _, rest = line.partition(". ")
        if number.isdigit() and rest.startswith("user: "):
            return {"text": rest.removeprefix("user: "), "reasoning": "scripted"}
    return {"text": "", "reasoning": "no user turn"}


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer(_summarize) as srv:
        yield srv


def _settings(url: str, **utility: Any) -> Settings:
    role = {"timeout_s": 5.0, "max_retries": 0, **utility}
    return Settings(llm={"base_url": url, "model": "fake-model", "api_key": "k", "utility": role})


@pytest.fixture
def mem(server: FakeLLMServer, db_path: Path, embedder: LocalEmbedder) -> Iterator[Memory]:
    with Memory(db_path, settings=_settings(server.base_url), embedder=embedder) as m:
        yield m


def _conversation(mem: Memory, count: int, session: str = "s1") -> Conversation:
    conv = mem.conversation(session, user_id="ana")
    conv.extend(_turns(0, count))
    return conv


def test_the_seeds_numbers_are_the_defaults() -> None:
    """Seed: "`consolidation_threshold` | 100 | Messages above this count trigger
    consolidation" and "`keep_recent` | 20 | Messages always kept verbatim after
    consolidation"."""
    cfg = Settings().conversation
    assert (cfg.threshold_messages, cfg.keep_recent) == (100, 20)


def test_at_100_messages_nothing_is_summarized_and_no_llm_call(
    server: FakeLLMServer, mem: Memory
) -> None:
    """Seed: "Summarize on every call vs. only when over threshold | Only when over
    threshold — avoids unnecessary LLM calls"."""
    conv = _conversation(mem, 100)
    for _ in range(3):
        window = conv.messages("What do I drink?", system_prompt=PROMPT, k_memories=0)
    assert server.request_count(CHAT) == 0 and conv.summary() == []
    assert [m["content"] for m in window[1:-1]] == [t["content"] for t in _turns(0, 100)]


def test_past_the_threshold_the_window_is_summary_20_recent_and_the_user_message(
    server: FakeLLMServer, mem: Memory
) -> None:
    """Seed: "After consolidation, context looks like: [system prompt + memory.md (with
    summary appended)] + [last keep_recent messages verbatim] + [user message]"."""
    conv = _conversation(mem, 101)
    system, *recent, user = conv.messages("What do I drink?", system_prompt=PROMPT, k_memories=0)
    (part,) = conv.summary()
    assert (part.covers_from, part.covers_to, part.text) == (0, 80, _turn(0)["content"])
    assert system["role"] == "system"
    assert system["content"] == f"{PROMPT}\n\nSummary of the conversation so far:\n{part.text}"
    assert recent == _turns(81, 101)  # the last 20, verbatim, roles kept
    assert user == {"role": "user", "content": "What do I drink?"}
    assert server.request_count(CHAT) == 1
    conv.extend(_turns(101, 103))  # not over the threshold again: no new call
    assert len(conv.messages("And now?", k_memories=0)) == 1 + 22 + 1
    assert server.request_count(CHAT) == 1


def test_the_llm_summarizes_the_older_messages_and_never_the_recent(
    server: FakeLLMServer, mem: Memory
) -> None:
    """Seed: "to_summarize = history[:-keep_recent]" ... "call LLM with consolidation
    prompt + conversation text"."""
    _conversation(mem, 101).messages("hi", k_memories=0)
    (body,) = server.chat_requests
    assert body["messages"][0] == {"role": "system", "content": load_prompt("summarize").text}
    sent = last_user_message(body).splitlines()
    older = _turns(0, 81)
    assert sent == [f"{n}. {t['role']}: {t['content']}" for n, t in enumerate(older, 1)]


def test_the_summary_is_written_lazily_inside_messages_not_on_a_timer(
    server: FakeLLMServer, mem: Memory
) -> None:
    """Seed: "Consolidation runs inside build_messages() — on demand, not on a timer",
    "no background tasks" (even with memfold's background worker running)."""
    assert mem.mode.value == "background"
    conv = _conversation(mem, 150)
    time.sleep(0.6)  # past the worker's batch wait
    assert conv.summary() == [] and server.request_count(CHAT) == 0
    conv.messages("hi", k_memories=0)
    (part,) = conv.summary()
    assert (part.covers_from, part.covers_to) == (0, 129) and server.request_count(CHAT) == 1


def test_the_summary_is_appended_and_the_agents_own_note_kept(
    server: FakeLLMServer, mem: Memory
) -> None:
    """Seed: "Summary text is appended to the existing memory.md content, separated by a
    blank line. The agent's manually written memory (via memory_write tool) is
    preserved"."""
    conv = mem.conversation("s1", user_id="ana")
    note = conv.note("Ana wants answers in Portuguese.")
    conv.extend(_turns(0, 101))
    conv.messages("hi", k_memories=0)
    first = [p.to_dict() for p in conv.summary()]
    conv.extend(_turns(101, 182))
    system = conv.messages("hi", k_memories=0)[0]["content"]
    parts = conv.summary()
    assert [p.to_dict() for p in parts[:2]] == first and parts[0].id == note.id  # appended
    one, two = parts[1:]
    assert (two.covers_from, two.covers_to) == (81, 161) and one.text != two.text
    assert f"{one.text}\n\n{two.text}" in system
    assert f"- {note.text}" in system and server.request_count(CHAT) == 2


def test_the_transcript_is_never_changed_by_consolidation(mem: Memory, tmp_path: Path) -> None:
    """Seed: "JSONL stays immutable ... The JSONL is the complete historical record and
    must never be modified. Only what goes into the LLM context window is affected"."""
    conv = _conversation(mem, 101)
    before = tmp_path / "before.jsonl"
    conv.export(before)
    window = conv.messages("hi", k_memories=0)
    after = tmp_path / "after.jsonl"
    conv.export(after)
    assert after.read_bytes() == before.read_bytes()
    assert len(after.read_text(encoding="utf-8").splitlines()) == 101 == len(conv)
    assert [{"role": m.role.value, "content": m.content} for m in conv.transcript()] == (
        _turns(0, 101)
    )
    assert len(window) == 1 + 20 + 1  # the window shrank, the record did not


@pytest.mark.parametrize("table", TABLES)
@pytest.mark.parametrize(
    ("statement", "refusal"),
    [
        ("UPDATE {} SET created_at = 'x'", "append-only"),
        ("DELETE FROM {}", "immutable: only forget erases them"),
    ],
)
def test_update_and_delete_are_refused_by_the_database(
    mem: Memory, db_path: Path, table: str, statement: str, refusal: str
) -> None:
    """Seed: "Modify JSONL vs. keep immutable | Immutable — JSONL is source of truth":
    the file's own triggers refuse an UPDATE or a DELETE from any client."""
    conv = _conversation(mem, 101)
    conv.messages("hi", k_memories=0)
    with closing(sqlite3.connect(db_path)) as db:
        with pytest.raises(sqlite3.IntegrityError, match=refusal):
            db.execute(statement.format(table))
        counts = [db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES]
    assert counts == [101, 1]
    assert len(conv.transcript()) == 101 and len(conv.summary()) == 1


def test_only_forget_erases_a_transcript(mem: Memory) -> None:
    """Seed: the transcript "must never be modified"; memfold's one exception is an
    erasure asked for (forget of the scope), which takes its summary too."""
    conv = _conversation(mem, 101)
    conv.messages("hi", k_memories=0)
    other = mem.conversation("s1", user_id="bo")
    other.append("user", "Bo stays.")
    report = mem.forget(user_id="ana")
    assert report.sessions == [conv.key]
    assert conv.transcript() == [] and conv.summary() == []
    assert [m.content for m in other.transcript()] == ["Bo stays."]


def test_each_sessions_summary_is_independent(server: FakeLLMServer, mem: Memory) -> None:
    """Seed: "Cross-session consolidation" is a non-goal: "each session's memory.md is
    independent"."""
    first = _conversation(mem, 101, "s1")
    first.messages("hi", k_memories=0)
    second = _conversation(mem, 3, "s2")
    window = second.messages("hi", system_prompt=PROMPT, k_memories=0)
    assert second.summary() == [] and len(first.summary()) == 1
    assert window[0] == {"role": "system", "content": PROMPT} and len(window) == 1 + 3 + 1
    assert server.request_count(CHAT) == 1


@pytest.mark.parametrize(("utility_model", "model"), [(None, "fake-model"), ("small", "small")])
def test_the_summary_uses_the_default_llm_unless_one_is_configured(
    server: FakeLLMServer, db_path: Path, embedder: LocalEmbedder, utility_model: Any, model: str
) -> None:
    """Seed: "`consolidation_pool` | `""` | LLM pool for summarization (defaults to
    `llm.default_pool`)": memfold's summary task, on the utility role, which falls back
    to llm.model."""
    settings = _settings(server.base_url, model=utility_model)
    with Memory(db_path, settings=settings, embedder=embedder) as mem:
        _conversation(mem, 101).messages("hi", k_memories=0)
        (body,) = server.chat_requests
        assert body["model"] == model
        assert [(u["task"], u["role"], u["model"]) for u in mem.usage()] == [
            ("summary", "utility", model)
        ]


def test_recent_messages_keep_tool_turns_and_names(mem: Memory) -> None:
    """Seed: "The keep_recent window preserves immediate conversational coherence
    (pronoun references, tool-call continuity)": the recent turns go as they were."""
    conv = _conversation(mem, 98)
    conv.append("assistant", "Let me check the weather.", name="squidbot")
    conv.append("tool", '{"city": "Lisbon", "temp_c": 21}', tool_call_id="call_1")
    conv.append("user", "Is it warm there?")
    recent = conv.messages("hi", k_memories=0)[1:-1]
    assert len(recent) == 20 and recent[:17] == _turns(81, 98)
    assert recent[17:] == [
        {"role": "assistant", "content": "Let me check the weather.", "name": "squidbot"},
        {"role": "tool", "content": '{"city": "Lisbon", "temp_c": 21}', "tool_call_id": "call_1"},
        {"role": "user", "content": "Is it warm there?"},
    ]


def test_a_tool_result_in_the_window_keeps_its_call_id(mem: Memory) -> None:
    """Seed: "The keep_recent window preserves ... tool-call continuity"."""
    conv = _conversation(mem, 3)
    conv.append("tool", '{"temp_c": 21}', tool_call_id="call_1")
    assert conv.transcript()[-1].metadata == {"tool_call_id": "call_1"}
    tool = conv.messages("hi", k_memories=0)[-2]
    assert tool.get("tool_call_id") == "call_1"


def test_without_an_llm_the_window_still_slides_over_an_extract(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    """What memfold does instead of the seed's hard prune with no LLM: the same window,
    its summary an extractive digest of the older turns."""
    with Memory(db_path, embedder=embedder) as mem:
        conv = _conversation(mem, 101)
        system, *recent, _ = conv.messages("hi", k_memories=0)
        (part,) = conv.summary()
        assert part.text.startswith("Messages 0-80 (extract):") and part.text in system["content"]
        assert recent == _turns(81, 101) and len(conv) == 101


def test_without_an_llm_consolidation_is_disabled_with_the_seeds_setting(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    """Seed: "`MemoryManager` accepts `llm: LLMPort | None`. If `None`, consolidation is
    disabled and the existing hard-prune fallback applies" (conversation.offline_digest
    = False; memfold's default digests instead, above)."""
    settings = Settings(conversation={"offline_digest": False})
    with Memory(db_path, embedder=embedder, settings=settings) as mem:
        conv = _conversation(mem, 130)
        system, *recent, _ = conv.messages("hi", system_prompt="Be brief.", k_memories=0)
        assert conv.summary() == [] and system == {"role": "system", "content": "Be brief."}
        assert recent == _turns(30, 130) and len(conv) == 130
