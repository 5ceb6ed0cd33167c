"""mem0's call on memfold (issue 12 part 4): ``Memory.add(messages=[...], infer=...)``
returns the memories it created or changed with mem0's events; extraction failures
leave it working; bad input writes nothing."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memfold import Memory
from memfold.async_memory import AsyncMemory
from memfold.config import LLMSettings, RoleSettings
from memfold.embed.local import LocalEmbedder
from memfold.engine.conversation.add import EVENTS
from memfold.errors import InvalidInput
from memfold.judge.llm import LLMJudge
from memfold.model import Action, Area, Status
from memfold.testing.fake_llm import FakeLLMServer
from memfold.testing.fake_replies import Fault, Reply

TALK: list[dict[str, Any]] = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "Hi! I work as a nurse at St. Mary's in Leeds."},
    {"role": "assistant", "content": "Nice to meet you. To update, run pip install -U memfold."},
    {"role": "user", "content": "The import kept failing. It was fixed by installing libssl-dev."},
]


@pytest.fixture
def mem(db_path: Path, embedder: LocalEmbedder) -> Iterator[Memory]:
    m = Memory(db_path, embedder=embedder, consolidate="sync")
    yield m
    m.close()


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as srv:
        yield srv


def _llm_memory(db_path: Path, embedder: LocalEmbedder, base_url: str) -> Memory:
    judge = LLMJudge(
        LLMSettings(
            base_url=base_url,
            model="fake-model",
            api_key="k",
            utility=RoleSettings(timeout_s=1.0, max_retries=0, logprobs=False),
        )
    )
    return Memory(db_path, embedder=embedder, judge=judge, consolidate="sync")


def _active(mem: Memory) -> list[Any]:
    return [r for r in mem.list(user_id="u1", limit=100) if r.status is Status.ACTIVE]


def test_infer_saves_each_extract_with_its_message_ids_and_reports_add(mem: Memory) -> None:
    out = mem.add(messages=TALK, user_id="u1")
    ids = [m.id for m in out.messages]
    assert len(ids) == 4 and len(set(ids)) == 4
    rows = out.to_dict()["results"]
    assert [(r["memory"], r["event"], r["area"]) for r in rows] == [
        ("User works as a nurse at St. Mary's in Leeds", "ADD", "main"),
        ("pip install -U memfold", "ADD", "instruments"),
        ("The import kept failing. It was fixed by installing libssl-dev", "ADD", "solutions"),
    ]
    saved = {r.text: r for r in _active(mem)}
    assert saved["User works as a nurse at St. Mary's in Leeds"].sources == [ids[1]]
    assert saved["pip install -U memfold"].sources == [ids[2]]
    assert saved["pip install -U memfold"].area is Area.INSTRUMENTS
    assert saved["pip install -U memfold"].metadata["extracted_by"] == "rules"
    assert {r["id"] for r in rows} == {r.id for r in saved.values()}


def test_a_restatement_is_consolidated_and_reported_as_none(mem: Memory) -> None:
    first = mem.add(messages=TALK[:2], user_id="u1")
    again = mem.add(
        messages=[{"role": "user", "content": "I work as a nurse at St. Mary's in Leeds."}],
        user_id="u1",
    )
    (row,) = again.results
    assert (row.event, row.action) == ("NONE", "UPDATE")
    assert row.id == first.results[0].id  # the memory that was already there
    assert len(_active(mem)) == 1


def test_infer_false_stores_each_message_as_a_fragment_with_its_role(mem: Memory) -> None:
    out = mem.add(messages=TALK, user_id="u1", infer=False, metadata={"app": "demo"})
    assert [r.event for r in out.results] == ["ADD", "ADD", "ADD"]
    records = [mem.get(r.memory.id) for r in out.added]
    assert [r.text for r in records] == [m["content"] for m in TALK[1:]]
    assert {r.area for r in records} == {Area.FRAGMENTS}
    assert [r.metadata["role"] for r in records] == ["user", "assistant", "user"]
    assert {r.metadata["app"] for r in records} == {"demo"}
    assert [r.sources for r in records] == [[m.id] for m in out.messages[1:]]


def test_every_action_has_an_event() -> None:
    assert set(EVENTS) == {None, *Action}
    assert set(EVENTS.values()) <= {"ADD", "UPDATE", "DELETE", "NONE"}


def test_with_the_llm_extracts_are_saved_and_reported(
    db_path: Path, embedder: LocalEmbedder, server: FakeLLMServer
) -> None:
    server.set_script(
        [
            {
                "memories": [
                    {"text": "User works as a nurse in Leeds", "area": "main", "sources": [2]},
                    {"text": "pip install -U memfold", "area": "instruments", "sources": [3]},
                    {"text": "User's import failed", "area": "fragments", "sources": [4]},
                ]
            }
        ]
    )
    with _llm_memory(db_path, embedder, server.base_url) as mem:
        out = mem.add(messages=TALK, user_id="u1")
        assert [(r.memory, r.event, r.area) for r in out.results] == [
            ("User works as a nurse in Leeds", "ADD", Area.MAIN),
            ("pip install -U memfold", "ADD", Area.INSTRUMENTS),
            ("User's import failed", "ADD", Area.FRAGMENTS),
        ]
        fragment = mem.get(out.results[2].id)
        assert fragment.sources == [out.messages[3].id]
        assert fragment.metadata["extracted_by"] == "llm"


@pytest.mark.parametrize(
    "failure",
    [Reply(fault=Fault.SERVER_ERROR), Reply(fault=Fault.DELAY, delay_s=5.0), "{not json"],
    ids=["http-500", "timeout", "malformed-json"],
)
def test_a_failing_llm_leaves_add_messages_working(
    db_path: Path,
    embedder: LocalEmbedder,
    server: FakeLLMServer,
    caplog: pytest.LogCaptureFixture,
    failure: Reply | str,
) -> None:
    server.set_script([failure] * 4)
    with _llm_memory(db_path, embedder, server.base_url) as mem:
        with caplog.at_level(logging.WARNING):
            out = mem.add(messages=TALK, user_id="u1")
        assert out.results == [] and len(out.messages) == 4
        assert "no memories extracted" in caplog.text
        calls = server.request_count()
        raw = mem.add(messages=TALK, user_id="u1", infer=False)
        assert len(raw.results) == 3
        assert server.request_count() == calls  # storing messages asks no LLM
        assert {r.area for r in _active(mem)} == {Area.FRAGMENTS}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"messages": [{"role": "robot", "content": "hi"}]}, "role must be one of"),
        ({"messages": [{"role": "user", "content": "   "}]}, "empty"),
        ({"messages": [{"role": "user", "content": "I like tea."}, {"role": "user"}]}, "message 1"),
        ({"messages": "I like tea."}, "must be a list"),
        ({"messages": {"role": "user", "content": "I like tea."}}, "must be a list"),
        ({"messages": []}, "empty"),
        ({"messages": [{"role": "user", "content": "hi", "extra": 1}]}, "unknown keys"),
        ({"messages": [{"role": "user", "content": "I like tea."}], "infer": "yes"}, "infer"),
        ({"messages": [{"role": "user", "content": "I like tea."}], "sources": ["x"]}, "sources"),
    ],
)
def test_bad_input_writes_nothing(mem: Memory, kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        mem.add(user_id="u1", **kwargs)
    assert mem.list(user_id="u1", limit=10) == []


def test_a_text_and_messages_together_are_refused(mem: Memory) -> None:
    with pytest.raises(InvalidInput, match="either a text or messages"):
        mem.add("I like tea.", messages=[{"role": "user", "content": "I like tea."}])  # type: ignore[call-overload]
    assert mem.list(limit=10) == []


def test_async_memory_takes_messages_too(db_path: Path, embedder: LocalEmbedder) -> None:
    async def scenario() -> None:
        async with AsyncMemory(db_path, embedder=embedder, consolidate="sync") as amem:
            out = await amem.add(messages=TALK[1:2], user_id="u1")
            assert [r.memory for r in out.results] == [
                "User works as a nurse at St. Mary's in Leeds"
            ]
            one = await amem.add("User likes tea", user_id="u1")
            assert one.memory.text == "User likes tea"

    asyncio.run(scenario())


def test_with_a_session_the_messages_join_its_transcript_and_are_the_sources(
    mem: Memory,
) -> None:
    first = mem.add(messages=TALK[:2], user_id="u1", session_id="s1")
    again = mem.add(messages=TALK[2:], user_id="u1", session_id="s1")
    conv = mem.conversation("s1", user_id="u1")
    transcript = conv.transcript()
    assert [m.content for m in transcript] == [m["content"] for m in TALK]
    assert [m.id for m in transcript] == [m.id for m in first.messages + again.messages]
    saved = mem.get(first.results[0].id)
    assert saved.sources == [transcript[1].id]
    assert saved.scope.session_id == "s1"
    assert mem.get(again.results[-1].id).sources == [transcript[3].id]


def test_a_message_dated_before_the_transcripts_last_writes_nothing(mem: Memory) -> None:
    late = [{"role": "user", "content": "I like tea.", "created_at": "2026-03-01T10:00:00Z"}]
    early = [{"role": "user", "content": "I like coffee.", "created_at": "2026-02-01T10:00:00Z"}]
    mem.add(messages=late, user_id="u1", session_id="s1")
    before = mem.list(user_id="u1", limit=10)
    with pytest.raises(InvalidInput):
        mem.add(messages=early, user_id="u1", session_id="s1")
    assert mem.list(user_id="u1", limit=10) == before
    assert len(mem.conversation("s1", user_id="u1").transcript()) == 1
