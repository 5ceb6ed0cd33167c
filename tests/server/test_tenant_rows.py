"""One tenant's calls never read or change another's rows, through every REST route and
every MCP tool, for every key role, including rows that span tenants: the worker's
tick rows, a bulk delete over several agents, and a row an older memfold wrote over two
users (kept in files written before log rows were split by scope).

Each call is made with the caller's own resources; afterwards nothing the caller may not
see has changed, and no response quotes another scope's text."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from mcp.server.mcpserver.exceptions import ToolError

from memfold.embed.local import LocalEmbedder
from memfold.engine.changes import ChangeSet, commit
from memfold.engine.keys import create_key
from memfold.model import ApiKey, Scope, Status, Tier, utcnow
from memfold.server.mcp_tools import ChatMessage, MemoryTools
from server.live import Live, live_server
from server.world import ENDPOINTS, Endpoint, Tenant, World, build_world, held_judge, world_settings


@dataclass(frozen=True)
class Caller:
    """A key and the scope it may see: ``user``, and ``agent`` when the key is bound to one."""

    name: str
    role: str
    user: str
    agent: str | None = None

    def sees(self, user: str | None, agent: str | None) -> bool:
        return user == self.user and (self.agent is None or agent == self.agent)


CALLERS = (
    Caller("alice-read", "read", "alice"),
    Caller("alice-write", "write", "alice"),
    Caller("alice-admin", "admin", "alice"),
    Caller("alice-agent-a1", "write", "alice", "a1"),
    Caller("bob-write", "write", "bob"),
)


@dataclass
class Tenants:
    live: Live
    world: World
    keys: dict[str, tuple[ApiKey, str]]
    own: dict[str, Tenant]  # per caller: its own resources for the route table
    texts: dict[tuple[str, str | None], list[str]]  # scope -> texts stored there


def _secret(user: str, agent: str | None, n: int) -> str:
    return f"{user.title()} {agent or 'self'} keeps item ZQ{user[:2]}{agent or ''}{n} in the loft"


@pytest.fixture(scope="module")
def tenants(tmp_path_factory: pytest.TempPathFactory, embedder: LocalEmbedder) -> Iterator[Tenants]:
    path = tmp_path_factory.mktemp("tenants") / "memfold.db"
    with live_server(path, embedder, settings=world_settings(), judge=held_judge()) as live:
        world = build_world(live, live.memory.judge)  # type: ignore[arg-type]
        memory = live.memory
        texts: dict[tuple[str, str | None], list[str]] = {}
        own: dict[str, Tenant] = {}
        edits: dict[tuple[str, str | None], tuple[str, int]] = {}
        for user, agent in (("alice", None), ("alice", "a1"), ("alice", "a2"), ("bob", None)):
            scoped = texts.setdefault((user, agent), [])
            for n in range(3):
                text = _secret(user, agent, n)
                scoped.append(text)
                # A time to live: the tick below expires every tenant's in one pass.
                rec = memory.add(text, user_id=user, agent_id=agent, session_id="s1", ttl=60)
                if n == 0:
                    edited = memory.update(rec.memory.id, text=text + " now")
                    scoped.append(edited.text)
                    edits[(user, agent)] = (edited.id, memory.history(edited.id)[-1].id)
        memory.tick(now=utcnow() + timedelta(minutes=5))
        # A bulk delete over one user's agents in one session.
        memory.delete_all(user_id="alice", session_id="s1")
        _legacy_row_over_two_users(live, world)
        keys = {}
        for caller in CALLERS:
            keys[caller.name] = create_key(
                memory.store, role=caller.role, user_id=caller.user, agent_id=caller.agent
            )
            memory_id, log_id = edits[(caller.user, caller.agent)]
            own[caller.name] = replace(
                world.tenants[caller.user], memory_id=memory_id, log_id=log_id
            )
        yield Tenants(live, world, keys, own, texts)


def _legacy_row_over_two_users(live: Live, world: World) -> None:
    """A COLD row naming alice's and bob's memories, as a tick of an older memfold wrote."""
    memory = live.memory
    ids = [world.tenants[u].memory_id for u in ("alice", "bob")]
    current = memory.store.get_memories(ids)
    change = ChangeSet(
        path="lifecycle",
        action="COLD",
        input_ids=ids,
        expected={i: current[i].version for i in ids},
        writes=[current[i].copy(tier=Tier.COLD, version=current[i].version + 1) for i in ids],
        reasoning="a tick of an older memfold",
        judge="lifecycle",
    )
    commit(memory.ctx, change)


def _unseen(tenants: Tenants, caller: Caller) -> tuple[object, ...]:
    """Every row the caller may not see: memories, transcripts, review items, undo marks
    of log rows naming such a memory."""
    with sqlite3.connect(f"{tenants.live.path.as_uri()}?mode=ro", uri=True) as db:
        memories = [
            row
            for row in db.execute(
                "SELECT id, user_id, agent_id, version, status, tier, text FROM memories "
                "ORDER BY id"
            )
            if not caller.sees(row[1], row[2])
        ]
        hidden = {row[0] for row in memories}
        marks = [
            row
            for row in db.execute(
                "SELECT l.id, l.undone_by FROM consolidation_log l ORDER BY l.id"
            ).fetchall()
            if set(_log_memories(db, row[0])) & hidden
        ]
        transcripts = db.execute(
            "SELECT session_key, count(*) FROM transcripts GROUP BY session_key ORDER BY 1"
        ).fetchall()
        others = [
            t
            for t in transcripts
            if not caller.sees(Scope.from_key(t[0]).user_id, Scope.from_key(t[0]).agent_id)
        ]
    return tuple(memories), tuple(marks), tuple(others)


def _log_memories(db: sqlite3.Connection, log_id: int) -> list[str]:
    return [
        r[0] for r in db.execute("SELECT memory_id FROM log_memories WHERE log_id = ?", (log_id,))
    ]


def _foreign_texts(tenants: Tenants, caller: Caller) -> list[str]:
    out = [t for (user, agent), texts in tenants.texts.items() if not caller.sees(user, agent)
           for t in texts]  # fmt: skip
    for name, tenant in tenants.world.tenants.items():
        if name != caller.user:
            out += [tenant.memory_text, tenant.message]
    return out


def _routes_for(caller: Caller) -> list[Endpoint]:
    return [e for e in ENDPOINTS if e.role != "admin" or caller.role == "admin"]


CASES = [(c, e) for c in CALLERS for e in _routes_for(c)]


@pytest.mark.parametrize(("caller", "endpoint"), CASES, ids=lambda v: getattr(v, "name", v))
def test_a_rest_call_on_ones_own_rows_leaves_every_other_scope_alone(
    tenants: Tenants, caller: Caller, endpoint: Endpoint
) -> None:
    client = tenants.live.client(tenants.keys[caller.name][1])
    before = _unseen(tenants, caller)
    response = endpoint.call(client, tenants.own[caller.name])
    assert response.status_code < 500, response.text
    for text in _foreign_texts(tenants, caller):
        assert text not in response.text, (endpoint.name, text)
    assert _unseen(tenants, caller) == before


def _tool_calls(own: Tenant) -> list[tuple[str, dict[str, Any]]]:
    return [
        ("search_memories", {"query": "loft item"}),
        ("list_memories", {"status": "all", "limit": 100}),
        ("get_memory", {"memory_id": own.memory_id}),
        ("memory_history", {"memory_id": own.memory_id}),
        ("review_status", {}),
        ("add_memory", {"text": "likes figs in the loft"}),
        ("add_messages", {"messages": [ChatMessage(role="user", content="I like figs")]}),
        ("update_memory", {"memory_id": own.memory_id, "importance": 0.7}),
        ("undo_change", {"log_id": own.log_id}),
        ("delete_memory", {"memory_id": own.memory_id}),
    ]


MCP_CASES = [(c, name) for c in CALLERS for name, _ in _tool_calls(Tenant(*[""] * 9))]  # type: ignore[arg-type]


@pytest.mark.parametrize(("caller", "tool"), MCP_CASES, ids=lambda v: getattr(v, "name", v))
def test_an_mcp_call_on_ones_own_rows_leaves_every_other_scope_alone(
    tenants: Tenants, caller: Caller, tool: str
) -> None:
    key = tenants.keys[caller.name][0]
    tools = MemoryTools(tenants.live.memory, caller=lambda: key)
    args = dict(_tool_calls(tenants.own[caller.name]))[tool]
    before = _unseen(tenants, caller)
    try:
        answer: object = getattr(tools, tool)(**args)
    except ToolError as refused:  # a refusal must not quote another scope either
        answer = str(refused)
    shown = str(answer)
    for text in _foreign_texts(tenants, caller):
        assert text not in shown, (tool, text)
    assert _unseen(tenants, caller) == before


# --- the audit's two paths, step by step -------------------------------------------------


@pytest.fixture
def fresh(tmp_path: Path, embedder: LocalEmbedder) -> Iterator[Live]:
    with live_server(tmp_path / "memfold.db", embedder, settings=world_settings()) as live:
        yield live


def test_a_cascaded_undo_does_not_bring_back_another_tenants_expired_memory(
    fresh: Live,
) -> None:
    # Before: one tick row covered alice's and bob's expired memories, and alice's
    # cascaded undo of her edit undid it whole: bob's memory went back to active.
    live = fresh
    memory = live.memory
    mine = memory.add("Alice parks on level 3", user_id="alice", ttl=60).memory
    memory.update(mine.id, text="Alice parks on level 4")
    r1 = memory.history(mine.id)[-1].id
    theirs = memory.add("Bob parks on level 9", user_id="bob", ttl=60).memory
    report = memory.tick(now=utcnow() + timedelta(minutes=5))
    assert set(report.expired) == {mine.id, theirs.id}
    assert len(report.log_ids) == 2  # one row per tenant
    alice = live.client(live.key("write", "alice"))
    undone = alice.post(f"/v1/log/{r1}/undo", json={"cascade": True})
    assert undone.status_code == 200, undone.text
    assert memory.get(theirs.id).status is Status.EXPIRED
    assert memory.get(mine.id).text == "Alice parks on level 3"


def test_a_cascade_reaching_another_scopes_row_is_refused_whole_and_unnamed(
    fresh: Live,
) -> None:
    live = fresh
    memory = live.memory
    mine = memory.add("Alice parks on level 3", user_id="alice").memory
    memory.update(mine.id, text="Alice parks on level 4")
    r1 = memory.history(mine.id)[-1].id
    theirs = memory.add("Bob parks on level 9", user_id="bob").memory
    ids = [mine.id, theirs.id]
    current = memory.store.get_memories(ids)
    legacy = commit(
        memory.ctx,
        ChangeSet(
            path="lifecycle",
            action="COLD",
            input_ids=ids,
            expected={i: current[i].version for i in ids},
            writes=[c.copy(tier=Tier.COLD, version=c.version + 1) for c in current.values()],
            judge="lifecycle",
        ),
    )
    alice = live.client(live.key("write", "alice"))
    before = live.fingerprint()
    for cascade in (False, True):
        refused = alice.post(f"/v1/log/{r1}/undo", json={"cascade": cascade})
        assert refused.status_code == 409, refused.text
        error = refused.json()["error"]
        assert str(legacy) not in error["message"] and legacy not in error["blocking_log_ids"]
        assert "outside this key's scope" in error["message"]
    assert live.fingerprint() == before
    assert memory.get(theirs.id).tier is Tier.COLD
    # The Python API (no key) may undo it all.
    assert len(memory.undo(r1, cascade=True)) == 2


def test_mcp_history_hides_a_row_naming_another_tenant(fresh: Live) -> None:
    live = fresh
    memory = live.memory
    mine = memory.add("Alice parks on level 3", user_id="alice", ttl=60).memory
    memory.update(mine.id, importance=0.9)
    theirs = memory.add("Bob parks on level 9", user_id="bob", ttl=60).memory
    ids = [mine.id, theirs.id]
    current = memory.store.get_memories(ids)
    commit(
        memory.ctx,
        ChangeSet(
            path="lifecycle",
            action="EXPIRE",
            input_ids=ids,
            expected={i: current[i].version for i in ids},
            writes=[c.copy(status=Status.EXPIRED, version=c.version + 1) for c in current.values()],
            judge="lifecycle",
        ),
    )
    key, _ = create_key(memory.store, role="read", user_id="alice")
    shown = MemoryTools(memory, caller=lambda: key).memory_history(mine.id)
    assert "Bob parks" not in str(shown)
    assert [c["action"] for c in shown["changes"]] == ["EDIT"]
