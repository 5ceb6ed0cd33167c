"""``Idempotency-Key`` on the REST writes (memfold.server.idempotency), on a live server
over SQLite and over PostgreSQL: a retry is answered from the stored response and
writes nothing; the same key with another request is 422; a retry while the first
runs is 409; a key expires after ``server.idempotency_ttl_s``; it survives a restart
and is seen by a second server on the same store; one API key never gets another's
stored response; a malformed key is 400 and writes nothing. Then every write route of
the table (server.world), each replayed without a change to the store."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from memfold import Memory
from memfold.embed.local import LocalEmbedder
from memfold.engine.keys import create_key
from memfold.model import ApiKey
from memfold.server.idempotency import READ_POSTS
from memfold.server.run import start_server
from server.world import ENDPOINTS, Endpoint, World, world_settings

TTL_S = 600.0
KEY = "Idempotency-Key"
REPLAYED = "Idempotent-Replayed"


@dataclass
class Server:
    """A Memory served on a free port, which can be stopped and served again (a
    restart) or served a second time beside itself (another process on the store)."""

    where: dict[str, Any]
    embedder: LocalEmbedder
    memory: Memory | None = None
    base_url: str = ""
    stops: list[Callable[[], None]] = field(default_factory=list)
    opened: list[Memory] = field(default_factory=list)
    clients: list[httpx.Client] = field(default_factory=list)

    def start(self) -> tuple[Memory, str]:
        settings = world_settings(idempotency_ttl_s=TTL_S)
        memory = Memory(**self.where, embedder=self.embedder, settings=settings, consolidate="off")
        base_url, stop = start_server(memory)
        self.opened.append(memory)
        self.stops.append(stop)
        if self.memory is None:
            self.memory, self.base_url = memory, base_url
        return memory, base_url

    def restart(self) -> None:
        """Stop every server, close every Memory, serve a new one on the same store."""
        self.close()
        self.memory = None
        self.start()

    def key(self, role: str, user_id: str | None = None) -> tuple[ApiKey, str]:
        assert self.memory is not None
        return create_key(self.memory.store, role=role, user_id=user_id)

    def client(self, token: str, base_url: str | None = None) -> httpx.Client:
        made = httpx.Client(
            base_url=base_url or self.base_url,
            headers={"Authorization": f"Bearer {token}"},
            timeout=30,
        )
        self.clients.append(made)
        return made

    def count(self, user_id: str) -> int:
        assert self.memory is not None
        return len(self.memory.list(user_id=user_id, status=None))

    def close(self) -> None:
        for made in self.clients:
            made.close()
        for stop in self.stops:
            stop()
        for memory in self.opened:
            memory.close()
        self.clients, self.stops, self.opened = [], [], []


@pytest.fixture(params=["sqlite", "postgres"])
def server(
    request: pytest.FixtureRequest, tmp_path: Path, embedder: LocalEmbedder
) -> Iterator[Server]:
    if request.param == "sqlite":
        where: dict[str, Any] = {"path": tmp_path / "memfold.db"}
    else:
        where = {"url": request.getfixturevalue("pg_url")}
    served = Server(where, embedder)
    served.start()
    yield served
    served.close()


def _add(client: httpx.Client, key: str | None, text: str = "Ana moved to Lyon") -> httpx.Response:
    headers = {} if key is None else {KEY: key}
    return client.post("/v1/memories", json={"text": text}, headers=headers)


def _error(response: httpx.Response, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code and error["message"]
    assert REPLAYED not in response.headers
    return str(error["message"])


def test_a_retried_write_is_done_once_and_answered_the_same(server: Server) -> None:
    _, token = server.key("write", "ana")
    ana = server.client(token)
    first = _add(ana, "add-1")
    assert first.status_code == 200 and REPLAYED not in first.headers
    again = _add(ana, "add-1")
    assert again.status_code == 200 and again.headers[REPLAYED] == "true"
    assert again.content == first.content  # the same memory id, byte for byte
    assert server.count("ana") == 1
    memory_id = first.json()["memory"]["id"]
    # An edit retried: one new version, not two.
    edit = {"text": "Ana moved to Paris"}
    put = ana.put(f"/v1/memories/{memory_id}", json=edit, headers={KEY: "edit-1"})
    assert put.status_code == 200 and put.json()["version"] == 2
    put_again = ana.put(f"/v1/memories/{memory_id}", json=edit, headers={KEY: "edit-1"})
    assert put_again.headers[REPLAYED] == "true" and put_again.content == put.content
    assert ana.get(f"/v1/memories/{memory_id}").json()["version"] == 2
    # An undo retried: one undo row, and the retry is not refused as already undone.
    (row,) = [r for r in ana.get("/v1/log").json()["results"] if r["action"] == "EDIT"]
    undo = ana.post(f"/v1/log/{row['id']}/undo", headers={KEY: "undo-1"})
    assert undo.status_code == 200, undo.text
    undo_again = ana.post(f"/v1/log/{row['id']}/undo", headers={KEY: "undo-1"})
    assert undo_again.headers[REPLAYED] == "true" and undo_again.content == undo.content
    actions = [r["action"] for r in ana.get("/v1/log").json()["results"]]
    assert actions == ["UNDO_EDIT", "EDIT"]
    # A delete retried: the stored answer, not a second archive's.
    gone = ana.delete(f"/v1/memories/{memory_id}", headers={KEY: "del-1"})
    gone_again = ana.delete(f"/v1/memories/{memory_id}", headers={KEY: "del-1"})
    assert gone.status_code == 200 and gone_again.headers[REPLAYED] == "true"
    assert gone_again.content == gone.content
    # Without a key nothing changes: each request runs.
    assert _add(ana, None, "Ana likes figs").status_code == 200
    assert _add(ana, None, "Ana likes figs").status_code == 200
    assert server.count("ana") == 3


def test_the_same_key_with_another_request_is_422_and_writes_nothing(server: Server) -> None:
    _, token = server.key("write", "ana")
    ana = server.client(token)
    first = _add(ana, "k")
    assert first.status_code == 200
    message = _error(_add(ana, "k", "Ana moved to Oslo"), 422, "idempotency_key_reused")
    assert "'k'" in message and "new key" in message
    memory_id = first.json()["memory"]["id"]
    other_route = ana.put(f"/v1/memories/{memory_id}", json={"text": "x y"}, headers={KEY: "k"})
    _error(other_route, 422, "idempotency_key_reused")
    query = ana.delete("/v1/memories", params={"user_id": "ana"}, headers={KEY: "k"})
    _error(query, 422, "idempotency_key_reused")
    assert server.count("ana") == 1
    assert ana.get(f"/v1/memories/{memory_id}").json()["status"] == "active"
    # The same request again, whatever the key order of its JSON, is a retry.
    body = {"text": "Ana moved to Lyon", "importance": 0.5}
    two = ana.post("/v1/memories", json=body, headers={KEY: "order"})
    swapped = '{"importance": 0.5,   "text": "Ana moved to Lyon"}'
    three = ana.post(
        "/v1/memories",
        content=swapped,
        headers={KEY: "order", "Content-Type": "application/json"},
    )
    assert three.headers[REPLAYED] == "true" and three.content == two.content


def test_a_retry_while_the_first_runs_is_409_and_one_write_is_done(server: Server) -> None:
    _, token = server.key("write", "ana")
    memory = server.memory
    assert memory is not None
    inside, go_on = threading.Event(), threading.Event()
    real_add = memory.add
    calls: list[str] = []

    def slow_add(*args: Any, **kw: Any) -> Any:
        calls.append(str(args[0]))
        inside.set()
        assert go_on.wait(30)
        return real_add(*args, **kw)

    memory.add = slow_add  # type: ignore[method-assign]
    first: list[httpx.Response] = []
    worker = threading.Thread(target=lambda: first.append(_add(server.client(token), "busy")))
    worker.start()
    try:
        assert inside.wait(30)
        during = _add(server.client(token), "busy")
        _error(during, 409, "idempotency_key_in_use")
        assert during.headers["retry-after"] == "1"
    finally:
        go_on.set()
        worker.join(30)
    assert first[0].status_code == 200
    after = _add(server.client(token), "busy")
    assert after.headers[REPLAYED] == "true" and after.content == first[0].content
    assert calls == ["Ana moved to Lyon"] and server.count("ana") == 1


def test_a_key_expires_after_the_ttl_and_is_purged(server: Server) -> None:
    memory = server.memory
    assert memory is not None
    now = [datetime(2026, 5, 1, 9, 0, tzinfo=UTC)]
    memory.ctx.clock = lambda: now[0]
    key, token = server.key("write", "ana")
    ana = server.client(token)
    first = _add(ana, "ttl")
    now[0] += timedelta(seconds=TTL_S - 1)
    assert _add(ana, "ttl").headers[REPLAYED] == "true"
    now[0] += timedelta(seconds=1)  # TTL_S after the first request: expired
    second = _add(ana, "ttl")
    assert second.status_code == 200 and REPLAYED not in second.headers
    assert second.json()["memory"]["id"] != first.json()["memory"]["id"]
    assert server.count("ana") == 2
    entry = memory.store.idempotency_entry("key:" + key.id, "ttl")
    assert entry is not None and entry.created_at == now[0]  # the old row was purged


def test_a_restart_and_a_second_server_on_the_store_keep_the_key(server: Server) -> None:
    _, token = server.key("write", "ana")
    first = _add(server.client(token), "kept")
    assert first.status_code == 200
    # A second server process on the same store sees the key.
    _, other_url = server.start()
    beside = _add(server.client(token, other_url), "kept")
    assert beside.headers[REPLAYED] == "true" and beside.content == first.content
    server.restart()
    again = _add(server.client(token), "kept")
    assert again.headers[REPLAYED] == "true" and again.content == first.content
    _error(_add(server.client(token), "kept", "Ana moved to Rome"), 422, "idempotency_key_reused")
    assert server.count("ana") == 1


def test_one_api_keys_stored_response_is_not_another_keys(server: Server) -> None:
    alice, bob = (server.client(server.key("write", u)[1]) for u in ("alice", "bob"))
    a1 = _add(alice, "k1", "likes figs")
    b1 = _add(bob, "k1", "likes figs")  # the same key and body: bob's own request
    assert a1.status_code == b1.status_code == 200
    assert REPLAYED not in b1.headers
    assert a1.json()["memory"]["user_id"] == "alice" and b1.json()["memory"]["user_id"] == "bob"
    assert a1.json()["memory"]["id"] != b1.json()["memory"]["id"]
    assert _add(alice, "k1", "likes figs").content == a1.content
    assert _add(bob, "k1", "likes figs").content == b1.content
    # Another body under bob's k1 is bob's misuse, not a view of alice's row.
    message = _error(_add(bob, "k1", "likes plums"), 422, "idempotency_key_reused")
    assert "figs" not in message
    # Two keys of one user are two owners too.
    alice_too = server.client(server.key("write", "alice")[1])
    assert REPLAYED not in _add(alice_too, "k1", "likes figs").headers
    assert server.count("alice") == 2 and server.count("bob") == 1


@pytest.mark.parametrize(
    "raw",
    [b"", b'"   "', b"x" * 256, b"tab\there", b"caf\xc3\xa9", b'""'],
    ids=["empty", "blank", "too-long", "tab", "non-ascii", "empty-quoted"],
)
def test_a_malformed_key_is_400_and_writes_nothing(server: Server, raw: bytes) -> None:
    key, token = server.key("write", "ana")
    ana = server.client(token)
    response = ana.post("/v1/memories", json={"text": "Ana moved"}, headers={KEY.encode(): raw})
    _error(response, 400, "invalid_idempotency_key")
    assert server.count("ana") == 0
    assert server.memory is not None
    assert server.memory.store.idempotency_entry("key:" + key.id, raw.decode("latin-1")) is None


def test_key_limits_reads_and_refusals(server: Server) -> None:
    key, token = server.key("write", "ana")
    ana = server.client(token)
    # 255 printable characters, and the draft's quoted form, are keys.
    longest = "k" * 255
    assert _add(ana, longest).status_code == 200
    assert _add(ana, longest).headers[REPLAYED] == "true"
    quoted = _add(ana, '"8e03978e-40d5"', "Ana likes tea")
    assert quoted.status_code == 200
    assert _add(ana, "8e03978e-40d5", "Ana likes tea").headers[REPLAYED] == "true"
    twice = ana.post("/v1/memories", json={"text": "x"}, headers=[(KEY, "a"), (KEY, "b")])
    _error(twice, 400, "invalid_idempotency_key")
    # Reads ignore the header: nothing stored, nothing replayed.
    store = server.memory.store if server.memory else None
    assert store is not None
    for _ in range(2):
        found = ana.post("/v1/memories/search", json={"query": "Ana"}, headers={KEY: "read"})
        assert found.status_code == 200 and REPLAYED not in found.headers
        assert REPLAYED not in ana.get("/v1/memories", headers={KEY: "read"}).headers
    assert store.idempotency_entry("key:" + key.id, "read") is None
    # A request refused before its route ran leaves the key free (403: a read key).
    reader, read_token = server.key("read", "ana")
    _error(_add(server.client(read_token), "free"), 403, "forbidden")
    assert store.idempotency_entry("key:" + reader.id, "free") is None
    assert server.count("ana") == 2


def test_an_unexpected_failure_is_kept_and_not_run_again(server: Server) -> None:
    _, token = server.key("write", "ana")
    memory = server.memory
    assert memory is not None
    calls: list[str] = []

    def broken(*args: Any, **kw: Any) -> Any:
        calls.append("called")
        raise RuntimeError("boom")

    memory.add = broken  # type: ignore[method-assign]
    _error(_add(server.client(token), "fails"), 500, "internal_error")
    # (uvicorn closes a connection whose request raised: a new client retries)
    again = _add(server.client(token), "fails")
    assert again.status_code == 500 and again.headers[REPLAYED] == "true"
    assert again.json()["error"]["code"] == "internal_error"
    assert calls == ["called"]


def test_forget_scrubs_a_stored_response_and_its_retry_is_not_replayed(server: Server) -> None:
    # The stored response quotes the memory; forget must not leave it to be replayed.
    _, token = server.key("write", "ana")
    first = _add(server.client(token), "scrubbed", "Ana's locker code word is Quillfeather")
    assert first.status_code == 200
    assert server.memory is not None
    server.memory.forget(first.json()["memory"]["id"])
    again = _add(server.client(token), "scrubbed", "Ana's locker code word is Quillfeather")
    message = _error(again, 410, "idempotent_response_erased")
    assert "Quillfeather" not in message
    assert server.count("ana") == 0
    assert server.memory.store.log_ids_quoting(["Quillfeather"]) == []


def test_the_openapi_schema_lists_the_header_on_writes_only(server: Server) -> None:
    spec = httpx.get(server.base_url + "/openapi.json").json()

    def names(path: str, method: str) -> set[str]:
        return {p["name"] for p in spec["paths"][path][method].get("parameters", [])}

    assert KEY in names("/v1/memories", "post") and KEY in names("/v1/memories/{memory_id}", "put")
    assert KEY in names("/v1/log/{log_id}/undo", "post")
    assert KEY not in names("/v1/memories/search", "post")
    assert KEY not in names("/v1/memories", "get")


# Every write route of the table (server.world, SQLite) ---------------------------------


def test_the_read_posts_are_the_tables_read_routes() -> None:
    reads = {e.path for e in ENDPOINTS if e.method != "GET" and e.role == "read"}
    assert reads == READ_POSTS


# The approval first, while its held merge is intact (the others leave it in conflict).
WRITES = sorted(
    (e for e in ENDPOINTS if e.method != "GET" and e.path not in READ_POSTS),
    key=lambda e: not e.path.endswith("/approve"),
)


def _owner_key(world: World, endpoint: Endpoint) -> str:
    alice = world.tenants["alice"]
    return world.admin if endpoint.role == "admin" else alice.write


@pytest.mark.parametrize("endpoint", WRITES, ids=lambda e: e.name)
def test_every_write_route_replays_its_response_and_writes_nothing_more(
    world: World, endpoint: Endpoint
) -> None:
    alice = world.tenants["alice"]
    client = world.live.client(_owner_key(world, endpoint))
    client.headers[KEY] = f"every {endpoint.name}"
    first = endpoint.call(client, alice)
    assert first.status_code not in (401, 403, 429) and REPLAYED not in first.headers
    after_first = world.live.fingerprint()
    again = endpoint.call(client, alice)
    assert (again.status_code, again.content) == (first.status_code, first.content)
    assert again.headers[REPLAYED] == "true"
    assert world.live.fingerprint() == after_first
