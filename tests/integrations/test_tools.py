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
        "memory_add",
        "memory_search",
        "memory_update",
        "memory_delete",
        "memory_undo",
    }
    add = by_name["memory_add"]["parameters"]
    assert add["required"] == ["text"] and add["properties"]["text"]["type"] == "string"
    assert add["additionalProperties"] is False
    assert by_name["memory_search"]["parameters"]["properties"]["k"]["maximum"] == 20
    assert all(f["description"] for f in by_name.values())
    assert all("user_id" not in f["parameters"]["properties"] for f in by_name.values())


def test_tool_calls_from_a_real_client_run_on_the_memory(mem: Memory) -> None:
    tools = MemoryTools(mem, user_id="alice")
    calls = Reply(
        tool_calls=(
            ("memory_add", {"text": "Alice is allergic to peanuts", "importance": 0.9}),
            ("memory_add", {"text": "Alice drives a blue Volvo"}),
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
    assert [t["function"]["name"] for t in sent][:2] == ["memory_add", "memory_search"]
    message = reply.choices[0].message
    assert reply.choices[0].finish_reason == "tool_calls" and message.tool_calls
    results = [
        tools.dispatch(c.function.name, c.function.arguments)  # type: ignore[union-attr]
        for c in message.tool_calls
    ]
    assert [r["action"] for r in results] == ["ADD", "ADD"]
    assert mem.get(results[0]["id"]).importance == pytest.approx(0.9)
    found = tools.dispatch("memory_search", '{"query": "peanut allergy", "k": 1}')
    assert [h["text"] for h in found["results"]] == ["Alice is allergic to peanuts"]
    assert dispatch(mem, "memory_search", '{"query": "peanut allergy"}', user_id="bob") == {
        "results": []
    }
    assert (
        dispatch(mem, "memory_search", {"query": "peanut allergy", "k": 1}, user_id="alice")
        == found
    )


def test_update_delete_and_undo_through_tools(mem: Memory) -> None:
    tools = MemoryTools(mem, user_id="alice")
    added = tools.dispatch("memory_add", {"text": "Alice lives in Lyon"})
    short = added["id"][:8]  # ids as a model copies them from a listing also work
    updated = tools.dispatch("memory_update", {"memory_id": short, "text": "Alice lives in Berlin"})
    assert updated == {"id": added["id"], "text": "Alice lives in Berlin", "version": 2}
    assert (
        tools.dispatch("memory_undo", {"memory_id": added["id"]})["text"] == "Alice lives in Lyon"
    )
    deleted = tools.dispatch("memory_delete", {"memory_id": added["id"]})
    assert deleted["status"] == Status.ARCHIVED.value
    restored = tools.dispatch("memory_undo", {"memory_id": added["id"]})
    assert restored["status"] == Status.ACTIVE.value


def _contents(mem: Memory) -> dict[str, object]:
    """The store's counts, without its size on disk: on PostgreSQL that is the
    whole database's size, which the server's own background work changes."""
    return {key: value for key, value in mem.stats().items() if key != "file_bytes"}


def test_a_models_mistakes_come_back_as_errors_and_change_nothing(mem: Memory) -> None:
    alice = MemoryTools(mem, user_id="alice")
    bob = MemoryTools(mem, user_id="bob")
    secret = bob.dispatch("memory_add", {"text": "Bob's PIN hint is his dog's name"})
    before = _contents(mem)
    cases = [
        (alice.dispatch("memory_forget_all", {}), "unknown tool"),
        (alice.dispatch("memory_add", "{not json"), "not JSON"),
        (alice.dispatch("memory_add", "[1, 2]"), "JSON object"),
        (alice.dispatch("memory_add", {"text": "  "}), "invalid arguments for memory_add: text"),
        (alice.dispatch("memory_add", {"text": "x", "user_id": "bob"}), "user_id"),
        (alice.dispatch("memory_search", {"query": "pin", "k": 500}), "k:"),
        (alice.dispatch("memory_delete", {"memory_id": secret["id"]}), "no memory"),
        (alice.dispatch("memory_update", {"memory_id": "zzzzzzzz", "text": "t"}), "no memory"),
        (alice.dispatch("memory_undo", {"memory_id": secret["id"]}), "no memory"),
        (alice.dispatch("memory_add", {"text": "a\ud800b"}), "error"),
    ]
    for result, expected in cases:
        assert set(result) == {"error"} and expected in str(result), result
    assert _contents(mem) == before
    assert mem.get(secret["id"]).status is Status.ACTIVE
    assert alice.dispatch("memory_search", {"query": "PIN hint"}) == {"results": []}
