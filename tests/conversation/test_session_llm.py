"""The session summary written by an LLM (the scripted OpenAI-compatible server): kept
when it invents nothing, replaced by the extractive digest when it does or when the
call fails; secrets never leave; the window slides either way."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memfold import Memory
from memfold.config import ConversationSettings, LLMSettings, RoleSettings, Settings
from memfold.embed.local import LocalEmbedder
from memfold.policy.summary_parts import PartKind
from memfold.testing.fake_llm import FakeLLMServer

SECRET = "sk-proj-abcdefghijklmnopqrstuvwxyz0123"
TURNS = [
    ("user", "I moved to Lisbon in 2021."),
    ("assistant", "Nice, how do you like it?"),
    ("user", f"Love it. My key for the weather API is {SECRET} by the way."),
    ("assistant", "Please keep keys private."),
    ("user", "My sister Marta visits every March."),
    ("assistant", "That sounds lovely."),
    ("user", "I prefer green tea."),
    ("assistant", "Noted."),
]
GOOD = "The user moved to Lisbon in 2021; their sister Marta visits every March."


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as srv:
        yield srv


@pytest.fixture
def mem(server: FakeLLMServer, tmp_path: Path, embedder: LocalEmbedder) -> Iterator[Memory]:
    settings = Settings(
        conversation=ConversationSettings(threshold_messages=6, keep_recent=2),
        llm=LLMSettings(
            base_url=server.base_url,
            model="fake-model",
            api_key="test-key",
            utility=RoleSettings(timeout_s=2.0, max_retries=0),
        ),
    )
    with Memory(tmp_path / "m.db", settings=settings, embedder=embedder, consolidate="off") as m:
        yield m


def _fill(mem: Memory) -> list[str]:
    conv = mem.conversation("s1", user_id="ana")
    for role, content in TURNS[:7]:
        conv.append(role, content)
    return [m.content for m in conv.transcript()]


def test_an_llm_summary_that_invents_nothing_is_appended(
    mem: Memory, server: FakeLLMServer
) -> None:
    server.set_script([{"text": GOOD, "reasoning": "facts kept"}])
    before = _fill(mem)
    conv = mem.conversation("s1", user_id="ana")
    window = conv.messages("What tea do I like?", k_memories=0)
    (part,) = conv.summary()
    assert part.text == GOOD and (part.covers_from, part.covers_to) == (0, 4)
    assert conv.last_written is not None and conv.last_written.source == "llm"
    assert GOOD in window[0]["content"] and len(window) == 1 + 2 + 1
    assert [m.content for m in conv.transcript()] == before
    (request,) = server.chat_requests
    sent = str(request["messages"][-1]["content"])
    assert "Lisbon in 2021" in sent and SECRET not in sent and "[[SECRET_1]]" in sent
    usage = mem.usage()
    assert any(row["task"] == "summary" and row["calls"] == 1 for row in usage)


def test_an_llm_summary_that_invents_a_date_falls_back_to_the_digest(
    mem: Memory, server: FakeLLMServer
) -> None:
    server.set_script([{"text": GOOD.replace("2021", "2019"), "reasoning": "oops"}])
    _fill(mem)
    conv = mem.conversation("s1", user_id="ana")
    window = conv.messages("What tea do I like?", k_memories=0)
    (part,) = conv.summary()
    assert part.kind is PartKind.SUMMARY and part.text.startswith("Messages 0-4 (extract):")
    assert "user: I moved to Lisbon in 2021." in part.text
    assert conv.last_written is not None and conv.last_written.source == "extract"
    assert "2019" in conv.last_written.reason
    assert len(window) == 1 + 2 + 1  # the window still slides


def test_an_unreachable_llm_leaves_the_conversation_usable(
    tmp_path: Path, embedder: LocalEmbedder
) -> None:
    settings = Settings(
        conversation=ConversationSettings(threshold_messages=6, keep_recent=2),
        llm=LLMSettings(
            base_url="http://127.0.0.1:9/v1",
            model="fake-model",
            utility=RoleSettings(timeout_s=1.0, max_retries=0),
        ),
    )
    with Memory(tmp_path / "m.db", settings=settings, embedder=embedder, consolidate="off") as m:
        _fill(m)
        conv = m.conversation("s1", user_id="ana")
        window = conv.messages("hello?", k_memories=0)
        (part,) = conv.summary()
        assert part.text.startswith("Messages 0-4 (extract):")
        assert conv.last_written is not None and "no summary from the LLM" in (
            conv.last_written.reason
        )
        assert window[-1] == {"role": "user", "content": "hello?"} and len(window) == 4
