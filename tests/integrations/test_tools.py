"""Tool schemas and the dispatcher: a real OpenAI client gets tool calls from the scripted
server and they run on a real Memory."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from openai import OpenAI

from memfold.embed.local import LocalEmbedder
from memfold.integrations.tools import MemoryTools, dispatch, tool_schemas
from memfold.memory import Memory
from memfold.model import Status
from memfold.testing.fake_llm import FakeLLMServer
from memfold.testing.fake_replies import Reply


@pytest.fixture
def mem(
    request: pytest.FixtureRequest, backend: str, tmp_path: Path, embedder: LocalEmbedder
) -> Iterator[Memory]:
    """A SQLite file or a PostgreSQL schema (``backend``)."""
    if backend == "postgres":
        opened = Memory(
            url=request.getfixturevalue("pg_url"), embedder=embedder, consolidate="sync"
        )
    else:
        opened = Memory(tmp_path / "tools.db", embedder=embedder, consolidate="sync")
    with opened as m:
        yield m


def test_schemas_name_five_tools_with_typed_required_arguments() -> None:
    by_name = {t["function"]["name"]: t["function"] for t in tool_schemas()}
    assert set(by_name) == {
        "add_memory",
        "search_memories",
        "update_memory",
        "delete_memory",
        "undo_change",
    }
    add = by_name["add_memory"]["parameters"]
    assert add["required"] == ["text"] and add["properties"]["text"]["type"] == "string"
    assert add["additionalProperties"] is False
    assert by_name["search_memories"]["parameters"]["properties"]["limit"]["maximum"] == 20
    assert by_name["undo_change"]["parameters"]["required"] == ["log_id"]
    assert all(f["description"] for f in by_name.values())
    assert all("user_id" not in f["parameters"]["properties"] for f in by_name.values())


def test_tool_calls_from_a_real_client_run_on_the_memory(mem: Memory) -> None:
    tools = MemoryTools(mem, user_id="alice")
    calls = Reply(
        tool_calls=(
            ("add_memory", {"text": "Alice is allergic to peanuts", "importance": 0.9}),
            ("add_memory", {"text": "Alice drives a blue Volvo"}),
        )
    )
    with FakeLLMServer([calls]) as server:
        client = OpenAI(base_url=server.base_url, api_key="k")
        reply = client.chat.completions.create(
            model="fake-model",
            messages=[{"role": "user", "content": "remember my allergy and my car"}],
            tools=tools.schemas(),  # type: ignore[arg-type]
        )
        sent = server.chat_requests[0]["tools"]
    assert [t["function"]["name"] for t in sent][:2] == ["add_memory", "search_memories"]
    message = reply.choices[0].message
    assert reply.choices[0].finish_reason == "tool_calls" and message.tool_calls
    results = [
        tools.dispatch(c.function.name, c.function.arguments)  # type: ignore[union-attr]
        for c in message.tool_calls
    ]
    assert [r["action"] for r in results] == ["ADD", "ADD"]
    assert mem.get(results[0]["id"]).importance == pytest.approx(0.9)
    found = tools.dispatch("search_memories", '{"query": "peanut allergy", "limit": 1}')
    assert [h["text"] for h in found["results"]] == ["Alice is allergic to peanuts"]
    assert set(found["results"][0]) == {"id", "text", "score", "created_at"}
    assert dispatch(mem, "search_memories", '{"query": "peanut allergy"}', user_id="bob") == {
        "results": []
    }
    again = dispatch(
        mem, "search_memories", {"query": "peanut allergy", "limit": 1}, user_id="alice"
    )
    assert [h["id"] for h in again["results"]] == [h["id"] for h in found["results"]]


def test_update_delete_and_undo_through_tools(mem: Memory) -> None:
    tools = MemoryTools(mem, user_id="alice")
    added = tools.dispatch("add_memory", {"text": "Alice lives in Lyon"})
    short = added["id"][:8]  # ids as a model copies them from a listing also work
    updated = tools.dispatch("update_memory", {"memory_id": short, "text": "Alice lives in Berlin"})
    assert updated["id"] == added["id"] and updated["text"] == "Alice lives in Berlin"
    assert mem.get(added["id"]).version == 2
    undone = tools.dispatch("undo_change", {"log_id": updated["log_id"]})
    assert [r["text"] for r in undone["results"]] == ["Alice lives in Lyon"]
    deleted = tools.dispatch("delete_memory", {"memory_id": added["id"]})
    assert deleted["status"] == Status.ARCHIVED.value
    restored = tools.dispatch("undo_change", {"log_id": deleted["log_id"]})
    assert restored["results"][0]["status"] == Status.ACTIVE.value


def _contents(mem: Memory) -> dict[str, object]:
    """The store's counts, without its size on disk: on PostgreSQL that is the
    whole database's size, which the server's own background work changes."""
    return {key: value for key, value in mem.stats().items() if key != "file_bytes"}


def test_a_models_mistakes_come_back_as_errors_and_change_nothing(mem: Memory) -> None:
    alice = MemoryTools(mem, user_id="alice")
    bob = MemoryTools(mem, user_id="bob")
    secret = bob.dispatch("add_memory", {"text": "Bob's PIN hint is his dog's name"})
    bob_edit = bob.dispatch("update_memory", {"memory_id": secret["id"], "importance": 0.9})
    before = _contents(mem)
    cases = [
        (alice.dispatch("memory_forget_all", {}), "unknown tool"),
        (alice.dispatch("add_memory", "{not json"), "not JSON"),
        (alice.dispatch("add_memory", "[1, 2]"), "JSON object"),
        (alice.dispatch("add_memory", {"text": "  "}), "invalid arguments for add_memory: text"),
        (alice.dispatch("add_memory", {"text": "x", "user_id": "bob"}), "user_id"),
        (alice.dispatch("search_memories", {"query": "pin", "limit": 500}), "limit:"),
        (alice.dispatch("delete_memory", {"memory_id": secret["id"]}), "no memory"),
        (alice.dispatch("update_memory", {"memory_id": "zzzzzzzz", "text": "t"}), "no memory"),
        (alice.dispatch("update_memory", {"memory_id": "zzzzzzzz"}), "no memory"),
        (alice.dispatch("undo_change", {"log_id": bob_edit["log_id"]}), "no change"),
        (alice.dispatch("undo_change", {"log_id": 10**9}), "no change"),
        (alice.dispatch("add_memory", {"text": "a\ud800b"}), "error"),
    ]
    for result, expected in cases:
        assert set(result) == {"error"} and expected in str(result), result
    assert _contents(mem) == before
    assert mem.get(secret["id"]).status is Status.ACTIVE
    assert alice.dispatch("search_memories", {"query": "PIN hint"}) == {"results": []}
