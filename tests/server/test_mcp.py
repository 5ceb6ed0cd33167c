"""``memfold mcp`` over stdio, through the MCP SDK's own client and a real subprocess:
the tools and their schemas, the whole edit cycle, scope isolation, bad input, keys."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memfold import Memory
from memfold.embed.local import LocalEmbedder
from memfold.engine.keys import create_key
from memfold.integrations.tool_text import DESCRIPTIONS
from server.mcp_client import StdioServer, mcp_args, server_env

READ_TOOLS = {"search_memories", "get_memory", "list_memories", "memory_history", "review_status"}
WRITE_TOOLS = {"add_memory", "add_messages", "update_memory", "delete_memory", "undo_change"}
SCOPE_WORDS = ("user", "agent", "session", "scope")
OTHER_TEXT = "The vault code of the other tenant is 4711"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory, embedder: LocalEmbedder) -> dict[str, Any]:
    """A file with one memory of user u2, edited once (a log row to try to undo)."""
    folder = tmp_path_factory.mktemp("mcp")
    path = folder / "memfold.db"
    (folder / "config.toml").write_text("")
    with Memory(path, embedder=embedder, consolidate="off") as mem:
        other = mem.add(OTHER_TEXT, user_id="u2").memory
        mem.update(other.id, importance=0.9)
        other_log = mem.history(other.id)[-1].id
        _, read_token = create_key(mem.store, role="read", user_id="u1")
    return {
        "path": path,
        "folder": folder,
        "other_id": other.id,
        "other_log": other_log,
        "read_token": read_token,
    }


@pytest.fixture(scope="module")
def server(store: dict[str, Any]) -> Iterator[StdioServer]:
    args = mcp_args("--path", str(store["path"]), "--user-id", "u1", "--consolidate", "sync")
    env = server_env(store["folder"] / "config.toml")
    with StdioServer(args, env, store["folder"] / "stderr.txt") as running:
        yield running


def _snapshot(path: Path, embedder: LocalEmbedder) -> tuple[Any, ...]:
    """Everything a failed call must leave alone: memories of both users, the log."""
    with Memory(path, embedder=embedder, read_only=True) as mem:
        rows = [m.to_dict() for u in ("u1", "u2") for m in mem.list(user_id=u, status=None)]
        return rows, [e.to_dict() for e in mem.log(limit=100_000)]


def test_tools_have_descriptions_and_schemas_but_no_scope_parameter(server: StdioServer) -> None:
    tools = {t.name: t for t in server.list_tools().tools}
    assert set(tools) == READ_TOOLS | WRITE_TOOLS
    for tool in tools.values():
        assert tool.description and len(tool.description) > 30, tool.name
        assert tool.description == DESCRIPTIONS[tool.name]  # the tool schemas' text too
        assert tool.output_schema is None  # "an object" for each: characters for nothing
        schema = tool.input_schema
        assert schema["type"] == "object"
        names = set(schema.get("properties", {}))
        assert not [n for n in names if any(w in n for w in SCOPE_WORDS)], (tool.name, names)
        assert tool.annotations is not None
        # only hints that differ from MCP's defaults (read-only false, destructive true)
        assert bool(tool.annotations.read_only_hint) is (tool.name in READ_TOOLS)
        assert tool.annotations.open_world_hint is False
    assert tools["add_memory"].input_schema["required"] == ["text"]
    assert tools["undo_change"].input_schema["properties"]["log_id"]["type"] == "integer"


def test_add_search_get_update_history_undo_delete(server: StdioServer) -> None:
    added = server.ok("add_memory", text="Sam's favourite tea is jasmine green tea")
    memory_id = added["id"]
    assert added["action"] == "ADD" and added["status"] == "active"

    hits = server.ok("search_memories", query="which tea does Sam like", limit=3)["results"]
    assert hits[0]["id"] == memory_id and hits[0]["score"] > 0
    assert set(hits[0]) == {"id", "text", "score", "created_at"}

    got = server.ok("get_memory", memory_id=memory_id)
    assert got["text"] == "Sam's favourite tea is jasmine green tea" and got["version"] == 1
    assert got["user_id"] == "u1" and got["agent_id"] is None

    updated = server.ok("update_memory", memory_id=memory_id, text="Sam now prefers oolong tea")
    assert updated["text"] == "Sam now prefers oolong tea"
    assert server.ok("get_memory", memory_id=memory_id)["version"] == 2

    changes = server.ok("memory_history", memory_id=memory_id)["changes"]
    assert changes[-1]["log_id"] == updated["log_id"]
    assert changes[-1]["before"].startswith("Sam's favourite")
    assert changes[-1]["after"] == "Sam now prefers oolong tea"

    undone = server.ok("undo_change", log_id=updated["log_id"])
    assert undone["undone"] == updated["log_id"] and undone["log_ids"]
    restored = server.ok("get_memory", memory_id=memory_id)
    assert restored["text"] == "Sam's favourite tea is jasmine green tea"

    deleted = server.ok("delete_memory", memory_id=memory_id)
    assert deleted["status"] == "archived"
    hits = server.ok("search_memories", query="which tea does Sam like")["results"]
    assert memory_id not in [h["id"] for h in hits]
    listed = server.ok("list_memories", status="archived")["results"]
    assert [m["status"] for m in listed if m["id"] == memory_id] == ["archived"]

    server.ok("undo_change", log_id=deleted["log_id"])
    assert server.ok("get_memory", memory_id=memory_id)["status"] == "active"


def test_add_messages_saves_what_the_conversation_revealed(server: StdioServer) -> None:
    said = [{"role": "user", "content": "I live in Lisbon. My favourite food is bacalhau."}]
    results = server.ok("add_messages", messages=said)["results"]
    assert [r["text"] for r in results] == [
        "User lives in Lisbon",
        "User's favourite food is bacalhau",
    ]
    assert all(server.ok("get_memory", memory_id=r["id"])["user_id"] == "u1" for r in results)
    turns = server.ok("add_messages", messages=said, infer=False)["results"]
    assert [r["text"] for r in turns] == [said[0]["content"]]


def test_another_scopes_memory_answers_not_found_and_reveals_nothing(
    server: StdioServer, store: dict[str, Any], embedder: LocalEmbedder
) -> None:
    other, unknown = store["other_id"], "0" * 32
    before = _snapshot(store["path"], embedder)
    for name, extra in (
        ("get_memory", {}),
        ("memory_history", {}),
        ("update_memory", {"text": "overwritten"}),
        ("delete_memory", {}),
    ):
        message = server.error(name, memory_id=other, **extra)
        assert message == server.error(name, memory_id=unknown, **extra).replace(unknown, other)
        assert "not" in message.lower() or "no memory" in message
        assert "4711" not in message and "vault" not in message
    refused = server.error("undo_change", log_id=store["other_log"])
    assert refused == server.error("undo_change", log_id=999_999).replace(
        "999999", str(store["other_log"])
    )
    hits = server.ok("search_memories", query="vault code of the other tenant")["results"]
    listed = server.ok("list_memories")["results"]
    assert other not in {h["id"] for h in hits} | {m["id"] for m in listed}
    assert all(server.ok("get_memory", memory_id=m["id"])["user_id"] == "u1" for m in listed)
    status = server.ok("review_status")
    assert status["held"] == [] and status["to_review"] == []
    assert _snapshot(store["path"], embedder) == before


def test_bad_input_is_a_tool_error_and_writes_nothing(
    server: StdioServer, store: dict[str, Any], embedder: LocalEmbedder
) -> None:
    mine = server.ok("add_memory", text="The build server is called hopper")["id"]
    before = _snapshot(store["path"], embedder)
    assert "empty" in server.error("add_memory", text="")
    assert "empty" in server.error("add_memory", text="   \n ")
    assert "text" in server.error("add_memory", importance=0.3)
    assert "importance" in server.error("add_memory", text="fine", importance=2)
    assert "metadata" in server.error("add_memory", text="fine", metadata="not an object")
    assert "no memory" in server.error("update_memory", memory_id="f" * 32, text="anything")
    assert "at least one" in server.error("update_memory", memory_id=mine)
    assert "empty" in server.error("update_memory", memory_id=mine, text="")
    assert "too short" in server.error("delete_memory", memory_id="nope")
    assert "no log entry" in server.error("undo_change", log_id=987_654)
    assert "limit" in server.error("search_memories", query="hopper", limit=10**6)
    assert "empty" in server.error("search_memories", query=" ")
    assert "messages" in server.error("add_messages", messages=[])
    # issue 27: stored before (deep, big, NUL metadata) or a raw OverflowError
    deep: dict[str, Any] = {"leaf": 1}
    for _ in range(40):
        deep = {"a": deep}
    assert "nests deeper than 32" in server.error("add_memory", text="fine", metadata=deep)
    assert "nests deeper" in server.error("update_memory", memory_id=mine, metadata=deep)
    assert "65536" in server.error("add_memory", text="fine", metadata={"k": "x" * 70_000})
    assert "NUL" in server.error("add_memory", text="fine", metadata={"k": "a\x00b"})
    assert "less than or equal" in server.error("undo_change", log_id=2**63)
    assert "offset must be" in server.error("list_memories", offset=2**63)
    assert "64-bit" in server.error("search_memories", query="hopper", filters={"n": 2**63})
    assert "NUL" in server.error("get_memory", memory_id="abcdef\x00")
    assert _snapshot(store["path"], embedder) == before


@pytest.fixture(scope="module")
def read_server(store: dict[str, Any]) -> Iterator[StdioServer]:
    """The same file served to a read key given in $MEMFOLD_API_KEY."""
    folder = store["folder"]
    env = server_env(folder / "config.toml", MEMFOLD_API_KEY=store["read_token"])
    args = mcp_args("--path", str(store["path"]))
    with StdioServer(args, env, folder / "stderr-read.txt") as running:
        yield running


def test_a_read_key_gets_the_read_tools_only_and_its_own_scope(
    read_server: StdioServer, store: dict[str, Any], embedder: LocalEmbedder
) -> None:
    assert {t.name for t in read_server.list_tools().tools} == READ_TOOLS
    before = _snapshot(store["path"], embedder)
    assert "add_memory" in read_server.error("add_memory", text="A read key must not write this")
    assert "no memory" in read_server.error("get_memory", memory_id=store["other_id"])
    listed = read_server.ok("list_memories", status="all")["results"]
    assert listed and store["other_id"] not in {m["id"] for m in listed}
    assert _snapshot(store["path"], embedder) == before
