"""list_scopes() and delete_all(): counts, soft delete of a scope, its undo."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from memfold import AsyncMemory, DeleteAllResult, InvalidInput, Memory, ScopeInfo, Settings
from memfold.embed.local import LocalEmbedder


def fill(mem: Memory) -> dict[str, list[str]]:
    """alice (2 active + 1 archived), alice/agent bot (1), bob/session s1 (2), default (1)."""
    ids: dict[str, list[str]] = {"alice": [], "alice-bot": [], "bob-s1": [], "default": []}
    for text in ("alice likes tea", "alice lives in Lyon", "alice had a cat"):
        ids["alice"].append(mem.add(text, user_id="alice").memory.id)
    mem.delete(ids["alice"][2])
    ids["alice-bot"].append(
        mem.add("bot notes for alice", user_id="alice", agent_id="bot").memory.id
    )
    for text in ("bob is in a meeting", "bob wants a summary"):
        ids["bob-s1"].append(mem.add(text, user_id="bob", session_id="s1").memory.id)
    ids["default"].append(mem.add("a memory of the default user").memory.id)
    return ids


def test_list_scopes_counts_active_and_total(mem_off: Memory) -> None:
    assert mem_off.list_scopes() == []
    fill(mem_off)
    scopes = mem_off.list_scopes()
    assert all(isinstance(s, ScopeInfo) for s in scopes)
    assert [(s.user_id, s.agent_id, s.session_id, s.active, s.total) for s in scopes] == [
        ("alice", None, None, 2, 3),
        ("alice", "bot", None, 1, 1),
        ("bob", None, "s1", 2, 2),
        ("default", None, None, 1, 1),
    ]
    assert scopes[1].scope.key() == "u=alice|a=bot|s="
    assert scopes[0].to_dict() == {
        "user_id": "alice",
        "agent_id": None,
        "session_id": None,
        "active": 2,
        "total": 3,
    }
    narrowed = mem_off.list_scopes(user_id="alice")
    assert [(s.agent_id, s.total) for s in narrowed] == [(None, 3), ("bot", 1)]
    assert [s.user_id for s in mem_off.list_scopes(session_id="s1")] == ["bob"]
    with pytest.raises(InvalidInput, match="user_id must be a string"):
        mem_off.list_scopes(user_id=3)  # type: ignore[arg-type]


def test_delete_all_archives_a_users_scopes_and_undo_restores(mem_off: Memory) -> None:
    ids = fill(mem_off)
    before = {r.id: r for r in mem_off.list(user_id="alice", status=None)}
    result = mem_off.delete_all(user_id="alice", reason="user asked")
    assert isinstance(result, DeleteAllResult)
    # every active memory of any scope with user alice; the archived one is not counted
    assert result.deleted == [*ids["alice"][:2], *ids["alice-bot"]]
    # One log row per scope (alice's own, alice's bot's): a row never spans two scopes.
    assert len(result.log_ids) == 2
    rows = mem_off.log(2)[::-1]
    assert [(e.id, e.action, e.reasoning) for e in rows] == [
        (log_id, "ARCHIVE_ALL", "user asked") for log_id in result.log_ids
    ]
    assert [set(e.input_ids) for e in rows] == [set(ids["alice"][:2]), set(ids["alice-bot"])]
    assert mem_off.search("alice tea", user_id="alice") == []
    assert {s.user_id: s.active for s in mem_off.list_scopes()} == {
        "alice": 0,
        "bob": 2,
        "default": 1,
    }
    for mid in result.deleted:
        assert mem_off.get(mid).status.value == "archived"
    # the others are untouched
    assert [r.status.value for r in mem_off.list(user_id="bob", session_id="s1")] == ["active"] * 2
    for log_id in result.log_ids:
        mem_off.undo(log_id)
    after = {r.id: r for r in mem_off.list(user_id="alice", status=None)}
    for mid, old in before.items():
        assert (after[mid].status, after[mid].text) == (old.status, old.text)
    assert mem_off.get(ids["alice-bot"][0]).status.value == "active"
    assert [h.memory.id for h in mem_off.search("alice likes tea", user_id="alice", k=1)] == [
        ids["alice"][0]
    ]


def test_delete_all_refuses_without_a_scope_and_bad_input(mem_off: Memory) -> None:
    fill(mem_off)
    log_rows = len(mem_off.log(1000))
    with pytest.raises(InvalidInput, match="needs user_id, agent_id or session_id"):
        mem_off.delete_all()
    with pytest.raises(InvalidInput, match="session_id must be a string"):
        mem_off.delete_all(session_id=5)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="must be non-empty"):
        mem_off.delete_all(user_id=" ")
    with pytest.raises(InvalidInput, match="reason must be a string"):
        mem_off.delete_all(user_id="alice", reason=None)  # type: ignore[arg-type]
    assert len(mem_off.log(1000)) == log_rows
    assert sum(s.active for s in mem_off.list_scopes()) == 6
    nothing = mem_off.delete_all(user_id="nobody")
    assert (nothing.deleted, nothing.log_ids) == ([], [])
    by_session = mem_off.delete_all(session_id="s1")
    assert len(by_session.deleted) == 2 and by_session.to_dict()["log_ids"] == by_session.log_ids


def test_delete_all_batches_log_entries(db_path: Path, embedder: LocalEmbedder) -> None:
    settings = Settings.model_validate({"store": {"delete_all_batch": 2}})
    with Memory(db_path, embedder=embedder, consolidate="off", settings=settings) as mem:
        added = [
            r.memory.id
            for r in mem.add_many([{"text": f"fact {n}", "user_id": "u"} for n in range(5)])
        ]
        result = mem.delete_all(user_id="u")
        assert result.deleted == added
        assert len(result.log_ids) == 3
        assert [len(e.input_ids) for e in reversed(mem.log(3))] == [2, 2, 1]
        for log_id in result.log_ids:
            mem.undo(log_id)
        assert [r.id for r in mem.list(user_id="u")] == added


def test_async_list_scopes_and_delete_all(db_path: Path, embedder: LocalEmbedder) -> None:
    async def scenario() -> None:
        async with AsyncMemory(db_path, embedder=embedder, consolidate="off") as mem:
            await mem.add("async one", user_id="a")
            await mem.add("async two", user_id="a", agent_id="x")
            scopes = await mem.list_scopes()
            assert [(s.agent_id, s.active) for s in scopes] == [(None, 1), ("x", 1)]
            result = await mem.delete_all(user_id="a", agent_id="x")
            assert len(result.deleted) == 1
            assert [(s.agent_id, s.active, s.total) for s in await mem.list_scopes()] == [
                (None, 1, 1),
                ("x", 0, 1),
            ]
            hits = await mem.search("async", user_id="a", filters={"none": {"$ne": 1}})
            assert len(hits) == 1
            assert len(await mem.list(user_id="a", filters={"none": 1})) == 0
            with pytest.raises(InvalidInput):
                await mem.delete_all()

    asyncio.run(scenario())


def test_list_takes_all_for_every_status_as_the_cli_and_rest_do(mem_off: Memory) -> None:
    ids = fill(mem_off)
    every = [r.id for r in mem_off.list(user_id="alice", status="all")]
    assert every == [r.id for r in mem_off.list(user_id="alice", status=None)]
    assert ids["alice"][2] in every  # the archived one too
    assert ids["alice"][2] not in [r.id for r in mem_off.list(user_id="alice")]
    with pytest.raises(InvalidInput, match="status must be one of"):
        mem_off.list(user_id="alice", status="every")
