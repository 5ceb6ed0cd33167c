"""Bad input over HTTP, every case asserting that nothing was written: 401 (no key, an
unknown or revoked one) and 403 (a role too low) on every endpoint of the table; 422
naming the field (malformed JSON, a wrong type, an unknown field, a bad query or path
value, what memfold itself refuses); 413 for an oversize body, with and without a
Content-Length; 429 past a key's rate limit, with Retry-After."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from memfold.embed.local import LocalEmbedder
from memfold.engine.keys import revoke_key
from memfold.model import Role
from server.live import Live, live_server
from server.world import ENDPOINTS, Endpoint, World, world_settings

WRITES = [e for e in ENDPOINTS if e.role != "read"]


def _error(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    error: dict[str, Any] = response.json()["error"]
    assert error["code"] == code and error["message"]
    return error


@pytest.fixture(scope="module")
def revoked(world: World) -> str:
    token = world.live.key("admin")
    key = next(k for k in world.live.memory.store.list_api_keys() if token.startswith(k.prefix))
    revoke_key(world.live.memory.store, key.id)
    return token


@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=lambda e: e.name)
def test_a_missing_unknown_or_revoked_key_is_401_and_writes_nothing(
    world: World, endpoint: Endpoint, revoked: str
) -> None:
    alice = world.tenants["alice"]
    before = world.live.fingerprint()
    unknown = "mf_" + "A" * 43
    for headers in ({}, {"Authorization": f"Basic {alice.write}"}, {"Authorization": "Bearer"}):
        client = world.live.client()
        client.headers.update(headers)
        error = _error(endpoint.call(client, alice), 401, "unauthorized")
        assert alice.memory_text not in str(error)
    for token in (unknown, revoked):
        response = endpoint.call(world.live.client(token), alice)
        _error(response, 401, "unauthorized")
        assert response.headers["www-authenticate"] == "Bearer"
    assert world.live.fingerprint() == before


def test_no_key_is_401_before_the_body_is_read(world: World) -> None:
    # FastAPI validates a JSON body before any dependency runs: without the key check
    # in front (auth.KeyFirst) these would answer 422 and tell a caller without a key
    # about the body's schema.
    before = world.live.fingerprint()
    headers = {"content-type": "application/json"}
    for raw in (b"not json", b'{"text": 5}', b"{}"):
        response = world.live.client().post("/v1/memories", content=raw, headers=headers)
        _error(response, 401, "unauthorized")
    assert world.live.fingerprint() == before


@pytest.mark.parametrize("endpoint", WRITES, ids=lambda e: e.name)
def test_a_key_below_the_role_is_403_and_writes_nothing(world: World, endpoint: Endpoint) -> None:
    alice = world.tenants["alice"]
    token = alice.read if endpoint.role == "write" else alice.write
    assert not Role("write" if token == alice.write else "read").allows(Role(endpoint.role))
    before = world.live.fingerprint()
    _error(endpoint.call(world.live.client(token), alice), 403, "forbidden")
    assert world.live.fingerprint() == before


@pytest.mark.parametrize(
    ("method", "path", "body", "field"),
    [
        ("POST", "/v1/memories", {"text": 5}, "text"),
        ("POST", "/v1/memories", {"text": "x", "importance": "high"}, "importance"),
        ("POST", "/v1/memories", {"text": "x", "importance": "0.5"}, "importance"),
        ("POST", "/v1/memories", {"text": "x", "metadata": ["a"]}, "metadata"),
        ("POST", "/v1/memories", {"text": "x", "colour": "red"}, "colour"),
        ("POST", "/v1/memories", {"messages": [{"role": "user"}]}, "messages.0.content"),
        ("POST", "/v1/memories", {}, "body"),
        ("POST", "/v1/memories/search", {"query": "x", "k": "ten"}, "k"),
        ("POST", "/v1/memories/search", {"query": "x", "mode": "fuzzy"}, "mode"),
        ("PUT", "/v1/memories/{memory_id}", {"importance": [1]}, "importance"),
        ("POST", "/v1/memories/{memory_id}/feedback", {"kind": "loved"}, "kind"),
        ("POST", "/v1/log/{log_id}/undo", {"cascade": "yes"}, "cascade"),
        ("POST", "/v1/conversations/s/messages", {"messages": []}, "messages"),
        ("POST", "/v1/conversations/s/messages", {"messages": [{"role": 1}]}, "messages.0.role"),
    ],
)
def test_a_wrong_type_is_422_naming_the_field(
    world: World, method: str, path: str, body: dict[str, Any], field: str
) -> None:
    alice = world.tenants["alice"]
    client = world.live.client(alice.write)
    before = world.live.fingerprint()
    url = path.format(memory_id=alice.memory_id, log_id=alice.log_id)
    error = _error(client.request(method, url, json=body), 422, "invalid_input")
    assert field in {f["field"] for f in error["fields"]}
    assert error["message"].startswith(error["fields"][0]["field"])
    assert world.live.fingerprint() == before


@pytest.mark.parametrize(
    "raw", [b'{"text": "x"', b"not json", b'{"text": "x",}', b"\xff\xfe", b"[1, 2"]
)
def test_malformed_json_is_422_and_writes_nothing(world: World, raw: bytes) -> None:
    client = world.live.client(world.tenants["alice"].write)
    before = world.live.fingerprint()
    headers = {"content-type": "application/json"}
    error = _error(client.post("/v1/memories", content=raw, headers=headers), 422, "invalid_input")
    assert error["fields"][0]["field"] == "body"
    assert world.live.fingerprint() == before


BIG = 2**63  # one past the largest integer SQLite and PostgreSQL's bigint hold


def deep(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {"leaf": 1}
    for _ in range(levels):
        value = {"a": value}
    return value


@pytest.mark.parametrize(
    ("method", "url", "field"),
    [
        ("GET", "/v1/memories?limit=many", "query.limit"),
        ("GET", "/v1/memories?offset=-1", "query.offset"),
        ("GET", "/v1/log/first", "path.log_id"),
        ("POST", "/v1/review/items/x/approve", "path.item_id"),
        ("GET", "/v1/conversations/s/messages?start=-2", "query.start"),
        # past int64: each was a 500 (OverflowError in the database driver)
        ("GET", f"/v1/memories?offset={BIG}", "query.offset"),
        ("GET", f"/v1/log/{BIG}", "path.log_id"),
        ("GET", f"/v1/log/-{BIG + 1}", "path.log_id"),
        ("POST", f"/v1/log/{2**70}/undo", "path.log_id"),
        ("POST", f"/v1/review/items/{BIG}/approve", "path.item_id"),
        ("POST", f"/v1/review/items/{BIG}/reject", "path.item_id"),
        ("GET", f"/v1/conversations/s/messages?start={BIG}", "query.start"),
        ("GET", f"/v1/conversations/s/messages?end={BIG}", "query.end"),
    ],
)
def test_a_bad_query_or_path_value_is_422_naming_it(
    world: World, method: str, url: str, field: str
) -> None:
    client = world.live.client(world.tenants["alice"].write)
    before = world.live.fingerprint()
    error = _error(client.request(method, url), 422, "invalid_input")
    assert field in {f["field"] for f in error["fields"]}
    assert world.live.fingerprint() == before


@pytest.mark.parametrize(
    ("method", "path", "body", "words"),
    [
        ("POST", "/v1/memories", {"text": "   "}, "empty"),
        ("POST", "/v1/memories", {"text": "a\x00b"}, "NUL"),
        ("POST", "/v1/memories", {"text": "x", "importance": 7}, "importance"),
        ("POST", "/v1/memories", {"text": "x", "area": "attic"}, "area"),
        ("POST", "/v1/memories", {"text": "x" * 40_000}, "32000"),
        ("POST", "/v1/memories/search", {"query": "x", "filters": {"n": {"$near": 1}}}, "$near"),
        ("GET", "/v1/memories?limit=5000", None, "max_page_size"),
        ("GET", "/v1/memories?filters=%7Bnope", None, "filters"),
        ("DELETE", "/v1/memories", None, "scope"),
        (
            "POST",
            "/v1/conversations/s/messages",
            {"messages": [{"role": "bot", "content": "x"}]},
            "role",
        ),
        ("POST", "/v1/tick", {"now": "yesterday-ish"}, "now"),
        # issue 27: each was a 500, the deep metadata stored first
        ("POST", "/v1/memories", {"text": "x", "user_id": "alice", "ttl": 1e12}, "9999"),
        ("POST", "/v1/memories", {"text": "x", "metadata": {"k": "x" * 70_000}}, "65536"),
        ("POST", "/v1/memories", {"text": "x", "metadata": {"k": "a\x00b"}}, "NUL"),
        ("POST", "/v1/memories/search", {"query": "x", "filters": {"n": BIG}}, "64-bit"),
        ("GET", f"/v1/memories?filters=%7B%22n%22%3A%20{BIG}%7D", None, "64-bit"),
        ("GET", "/v1/memories?filters=" + "%5B" * 5000 + "%5D" * 5000, None, "nested too deep"),
        (
            "POST",
            "/v1/conversations/s/window",
            {"user_id": "alice", "user_message": "bees?", "k_memories": BIG},
            "k_memories",
        ),
    ],
)
def test_what_memfold_refuses_is_422_and_writes_nothing(
    world: World, method: str, path: str, body: dict[str, Any] | None, words: str
) -> None:
    client = world.live.client(world.admin)
    before = world.live.fingerprint()
    url = path.format(memory_id=world.tenants["alice"].memory_id)
    error = _error(client.request(method, url, json=body), 422, "invalid_input")
    assert words in error["message"]
    assert world.live.fingerprint() == before


# Bodies built in the test: a failing case's parameters stay short to print.
DEEP_BODIES: dict[str, tuple[str, str, Callable[[], dict[str, Any]]]] = {
    "add, 260 levels (the report's 1.8 KB body)": (
        "POST",
        "/v1/memories",
        lambda: {"text": "x", "metadata": deep(260)},
    ),
    "add messages, 40 levels": (
        "POST",
        "/v1/memories",
        lambda: {
            "messages": [{"role": "user", "content": "x", "metadata": deep(40)}],
            "infer": False,
        },
    ),
    "update, 40 levels": ("PUT", "/v1/memories/{memory_id}", lambda: {"metadata": deep(40)}),
    "append messages, 40 levels": (
        "POST",
        "/v1/conversations/s/messages",
        lambda: {
            "user_id": "alice",
            "messages": [{"role": "user", "content": "x", "metadata": deep(40)}],
        },
    ),
}


@pytest.mark.parametrize("name", list(DEEP_BODIES))
def test_metadata_nested_too_deep_is_422_and_writes_nothing(world: World, name: str) -> None:
    method, path, body = DEEP_BODIES[name]
    client = world.live.client(world.admin)
    before = world.live.fingerprint()
    url = path.format(memory_id=world.tenants["alice"].memory_id)
    error = _error(client.request(method, url, json=body()), 422, "invalid_input")
    assert "nests deeper than 32 levels" in error["message"]
    assert world.live.fingerprint() == before
    listed = client.get("/v1/memories", params={"user_id": "alice"})
    assert listed.status_code == 200, listed.text


S = "\\ud800"  # a lone surrogate, as JSON escapes it: valid JSON, no valid UTF-8


@pytest.mark.parametrize(
    ("method", "path", "raw", "words"),
    [
        ("POST", "/v1/memories", f'{{"text": "x", "user_id": "{S}"}}', "user_id is not valid"),
        ("POST", "/v1/memories", f'{{"text": "x", "session_id": "{S}"}}', "session_id is not"),
        ("POST", "/v1/memories", f'{{"text": "x", "sources": ["{S}"]}}', "source is not valid"),
        ("POST", "/v1/memories", f'{{"text": "x", "metadata": {{"{S}": 1}}}}', "metadata is not"),
        ("POST", "/v1/memories", f'{{"text": "x", "metadata": {{"k": "{S}"}}}}', "metadata is"),
        (
            "POST",
            "/v1/memories",
            f'{{"messages": [{{"role": "user", "content": "x", "name": "{S}"}}], "infer": false}}',
            "metadata is not valid",
        ),
        ("POST", "/v1/memories/search", f'{{"query": "x", "agent_id": "{S}"}}', "agent_id is"),
        ("POST", "/v1/memories/search", f'{{"query": "x", "filters": {{"{S}": 1}}}}', "not valid"),
        ("POST", "/v1/memories/search", f'{{"query": "x", "filters": {{"k": "{S}"}}}}', "not val"),
        ("PUT", "/v1/memories/{memory_id}", f'{{"text": "y", "reason": "{S}"}}', "reason is not"),
        ("PUT", "/v1/memories/{memory_id}", f'{{"metadata": {{"k": "{S}"}}}}', "metadata is not"),
        (
            "POST",
            "/v1/memories/{memory_id}/feedback",
            f'{{"kind": "used", "context": "{S}"}}',
            "context is not valid",
        ),
        ("POST", "/v1/review/run", f'{{"user_id": "{S}"}}', "user_id is not valid"),
        (
            "POST",
            "/v1/conversations/s/window",
            f'{{"user_id": "alice", "user_message": "x", "system_prompt": "{S}"}}',
            "system_prompt is not valid",
        ),
        (
            "POST",
            "/v1/conversations/s/messages",
            f'{{"user_id": "alice", "messages": [{{"role": "user", "content": "x", '
            f'"metadata": {{"{S}": 1}}}}]}}',
            "metadata is not valid",
        ),
        ("POST", "/v1/conversations/s/notes", f'{{"user_id": "{S}", "text": "x"}}', "user_id is"),
    ],
)
def test_a_lone_surrogate_is_422_and_writes_nothing(
    world: World, method: str, path: str, raw: str, words: str
) -> None:
    client = world.live.client(world.admin)
    before = world.live.fingerprint()
    url = path.format(memory_id=world.tenants["alice"].memory_id)
    headers = {"content-type": "application/json"}
    response = client.request(method, url, content=raw.encode(), headers=headers)
    error = _error(response, 422, "invalid_input")
    assert words in error["message"]
    assert world.live.fingerprint() == before


def test_an_old_deep_metadata_row_does_not_break_its_scope(live: Live) -> None:
    """A memory stored by older code with metadata 300 levels deep (the check was not
    there): its scope still lists and searches, for the user's key and the admin's, its
    metadata shown cut at 100 levels."""
    own = live.client(live.key("write", "carol"))
    admin = live.client(live.key("admin"))
    made = own.post("/v1/memories", json={"text": "Carol keeps bees"}).json()["memory"]["id"]
    own.put(f"/v1/memories/{made}", json={"text": "Carol keeps bees and goats"})
    with sqlite3.connect(live.path) as db:
        db.execute("UPDATE memories SET metadata = ? WHERE id = ?", (json.dumps(deep(300)), made))
    db.close()
    for client, params in ((own, {}), (admin, {"user_id": "carol"})):
        listed = client.get("/v1/memories", params={**params, "fields": "metadata"})
        assert listed.status_code == 200, listed.text
        (row,) = listed.json()["results"]
        assert "[cut: nested deeper than 100 levels]" in json.dumps(row["metadata"])
        found = client.post("/v1/memories/search", json={"query": "bees", **params})
        assert found.status_code == 200, found.text
        assert [h["id"] for h in found.json()["results"]] == [made]
        filtered = client.get("/v1/memories", params={**params, "filters": '{"a": 1}'})
        assert filtered.status_code == 200 and filtered.json()["results"] == []
    for url in (f"/v1/memories/{made}", f"/v1/memories/{made}/history", "/v1/log"):
        assert own.get(url).status_code == 200, url
    assert admin.post("/v1/tick", json={}).status_code == 200
    archived = own.delete(f"/v1/memories/{made}")
    assert archived.status_code == 200, archived.text


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory, embedder: LocalEmbedder) -> Iterator[Live]:
    path: Path = tmp_path_factory.mktemp("limited") / "memfold.db"
    settings = world_settings(max_body_bytes=2048, rate_limit_per_minute=4)
    with live_server(path, embedder, settings=settings) as served:
        yield served


def _chunks(data: bytes) -> Iterator[bytes]:
    for start in range(0, len(data), 512):
        yield data[start : start + 512]


def test_an_oversize_body_is_413_before_it_is_read(limited: Live) -> None:
    client = limited.client(limited.key("write", "carol"))
    before = limited.fingerprint()
    body = b'{"text": "' + b"y" * 4000 + b'"}'
    headers = {"content-type": "application/json"}
    error = _error(
        client.post("/v1/memories", content=body, headers=headers), 413, "payload_too_large"
    )
    assert "2048" in error["message"]
    # Without a Content-Length (chunked): refused once the body passes the limit.
    chunked = client.post("/v1/memories", content=_chunks(body), headers=headers)
    _error(chunked, 413, "payload_too_large")
    assert limited.fingerprint() == before
    small = client.post("/v1/memories", content=_chunks(b'{"text": "fits"}'), headers=headers)
    assert small.status_code == 200, small.text


def test_past_the_rate_limit_a_key_gets_429_with_retry_after(limited: Live) -> None:
    busy = limited.client(limited.key("write", "dan"))
    calm = limited.client(limited.key("write", "erin"))
    for n in range(4):
        assert busy.get("/v1/memories").status_code == 200, n
    before = limited.fingerprint()
    refused = busy.post("/v1/memories", json={"text": "one too many"})
    error = _error(refused, 429, "rate_limited")
    assert "4 requests per minute" in error["message"]
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    assert limited.fingerprint() == before
    assert calm.get("/v1/memories").status_code == 200  # per key: another key goes on
