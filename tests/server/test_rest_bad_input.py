"""Bad input over HTTP, every case asserting that nothing was written: 401 (no key, an
unknown or revoked one) and 403 (a role too low) on every endpoint of the table; 422
naming the field (malformed JSON, a wrong type, an unknown field, a bad query or path
value, what memfold itself refuses); 413 for an oversize body, with and without a
Content-Length; 429 past a key's rate limit, with Retry-After."""

from __future__ import annotations

from collections.abc import Iterator
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


@pytest.mark.parametrize(
    ("url", "field"),
    [
        ("/v1/memories?limit=many", "query.limit"),
        ("/v1/memories?offset=-1", "query.offset"),
        ("/v1/log/first", "path.log_id"),
        ("/v1/review/items/x/approve", "path.item_id"),
        ("/v1/conversations/s/messages?start=-2", "query.start"),
    ],
)
def test_a_bad_query_or_path_value_is_422_naming_it(world: World, url: str, field: str) -> None:
    client = world.live.client(world.tenants["alice"].write)
    before = world.live.fingerprint()
    method = "POST" if url.endswith("approve") else "GET"
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
    ],
)
def test_what_memfold_refuses_is_422_and_writes_nothing(
    world: World, method: str, path: str, body: dict[str, Any] | None, words: str
) -> None:
    client = world.live.client(world.admin)
    before = world.live.fingerprint()
    error = _error(client.request(method, path, json=body), 422, "invalid_input")
    assert words in error["message"]
    assert world.live.fingerprint() == before


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
