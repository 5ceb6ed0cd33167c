"""Tenant isolation over HTTP: alice and bob, every endpoint of the table, each user's
key aimed at the other's resources. Another scope's memory, log row, review item or
conversation is 404 with the same message as an unknown id, no data, nothing written;
listings (log, review, memories, search, transcript) show a key its own rows only."""

from __future__ import annotations

import pytest

from memfold.model import Role
from server.world import ENDPOINTS, SESSION, USERS, Endpoint, World

SCOPED = [e for e in ENDPOINTS if e.scoped]


def _caller_key(world: World, user: str, role: str) -> str:
    tenant = world.tenants[user]
    return tenant.write if Role(role).allows(Role.WRITE) else tenant.read


def test_the_table_names_every_v1_route(world: World) -> None:
    spec = world.live.client().get("/openapi.json").json()
    routes = {
        f"{method.upper()} {path}"
        for path, ops in spec["paths"].items()
        if path.startswith("/v1/")
        for method in ops
    }
    assert routes == {e.name for e in ENDPOINTS}


@pytest.mark.parametrize("caller", USERS)
@pytest.mark.parametrize("endpoint", SCOPED, ids=lambda e: e.name)
def test_another_users_resource_is_not_found_and_untouched(
    world: World, endpoint: Endpoint, caller: str
) -> None:
    owner = world.other(caller)
    client = world.live.client(_caller_key(world, caller, endpoint.role))
    before = world.live.fingerprint()
    response = endpoint.call(client, owner)
    assert response.status_code == 404, response.text
    assert response.json()["error"]["code"] == "not_found"
    for secret in (owner.memory_text, owner.message, *owner.pair):
        assert secret not in response.text
    assert world.live.fingerprint() == before


@pytest.mark.parametrize("user", USERS)
@pytest.mark.parametrize("endpoint", [e for e in SCOPED if e.method == "GET"], ids=lambda e: e.name)
def test_the_owner_reads_what_the_other_user_cannot(
    world: World, endpoint: Endpoint, user: str
) -> None:
    owner = world.tenants[user]
    response = endpoint.call(world.live.client(owner.read), owner)
    assert response.status_code == 200, response.text


def test_an_unknown_id_and_another_users_id_get_the_same_answer(world: World) -> None:
    alice, bob = world.tenants["alice"], world.tenants["bob"]
    client = world.live.client(alice.read)
    theirs = client.get(f"/v1/memories/{bob.memory_id}").json()["error"]["message"]
    unknown = client.get("/v1/memories/0123456789abcdef0123456789abcdef").json()["error"]
    assert theirs.replace(bob.memory_id, "ID") == unknown["message"].replace(
        "0123456789abcdef0123456789abcdef", "ID"
    )


@pytest.mark.parametrize("user", USERS)
def test_listings_show_a_key_its_own_rows_only(world: World, user: str) -> None:
    me, them = world.tenants[user], world.other(user)
    client = world.live.client(me.read)
    log = client.get("/v1/log", params={"limit": 1000}).json()["results"]
    assert me.log_id in {r["id"] for r in log}
    assert them.log_id not in {r["id"] for r in log}
    touched = {m for r in log for m in [*r["input_ids"], *r["output_ids"]]}
    assert them.memory_id not in touched and me.memory_id in touched

    pending = client.get("/v1/review/pending").json()
    held = {h["id"] for h in pending["held"]}
    assert me.item_id in held and them.item_id not in held

    status = client.get("/v1/review/status").json()
    assert status["queue"]["by_status"].get("held") == 1  # the admin sees both
    admin = world.live.client(world.admin)
    assert admin.get("/v1/review/status").json()["queue"]["by_status"]["held"] >= 2
    assert "history" not in status["breaker"]

    listed = client.get("/v1/memories", params={"status": "all", "fields": "user_id"})
    assert me.memory_id in {m["id"] for m in listed.json()["results"]}
    assert {m["user_id"] for m in listed.json()["results"]} == {user}

    hits = client.post(
        "/v1/memories/search", json={"query": "bees garden", "fields": ["user_id"]}
    ).json()["results"]
    assert {h["user_id"] for h in hits} == {user}

    chat = client.get(f"/v1/conversations/{SESSION}/messages").json()["messages"]
    assert [m["content"] for m in chat] == [me.message]


def test_an_admin_key_without_a_user_reaches_every_scope(world: World) -> None:
    admin = world.live.client(world.admin)
    for tenant in world.tenants.values():
        got = admin.get(f"/v1/memories/{tenant.memory_id}")
        assert got.status_code == 200 and got.json()["user_id"] == tenant.user
        log = admin.get(f"/v1/log/{tenant.log_id}")
        assert log.status_code == 200
        chat = admin.get(
            f"/v1/conversations/{SESSION}/messages", params={"user_id": tenant.user}
        ).json()
        assert [m["content"] for m in chat["messages"]] == [tenant.message]


def test_a_key_bound_to_an_agent_does_not_see_its_users_other_memories(world: World) -> None:
    live = world.live
    mine = live.memory.add("the travel agent books aisle seats", user_id="alice", agent_id="travel")
    token = live.key("read", "alice", "travel")
    client = live.client(token)
    assert client.get(f"/v1/memories/{mine.memory.id}").status_code == 200
    alice = world.tenants["alice"]
    assert client.get(f"/v1/memories/{alice.memory_id}").status_code == 404
    assert client.get("/v1/memories", params={"agent_id": "other"}).status_code == 404


def test_a_keys_log_rows_are_found_behind_many_rows_of_another_user(world: World) -> None:
    alice, bob = world.tenants["alice"], world.tenants["bob"]
    client = world.live.client(alice.read)
    newest = client.get("/v1/log", params={"limit": 1}).json()["results"]
    assert newest and newest[0]["input_ids"] + newest[0]["output_ids"]
    for n in range(210):  # more than the first batch the route reads (200)
        world.live.memory.update(bob.memory_id, importance=(n % 10) / 10)
    again = client.get("/v1/log", params={"limit": 1}).json()["results"]
    assert [r["id"] for r in again] == [r["id"] for r in newest]
