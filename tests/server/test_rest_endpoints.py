"""Every REST endpoint through httpx against the live server: what it returns, what it
changed in the store, and that its effect can be undone where memfold logs it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

import memfold
from memfold.embed.local import LocalEmbedder
from memfold.engine import ingest
from memfold.server.schemas import ErrorBody
from server.live import Live, live_server
from server.world import World, world_settings


@pytest.fixture
def alice(live: Live) -> httpx.Client:
    return live.client(live.key("write", "alice"))


def test_add_get_update_history_delete_and_undo(live: Live, alice: httpx.Client) -> None:
    added = alice.post(
        "/v1/memories",
        json={"text": "Alice moved to Lyon.", "metadata": {"topic": "home"}, "importance": 0.8},
    )
    assert added.status_code == 200, added.text
    body = added.json()
    memory_id = body["memory"]["id"]
    assert body["memory"]["user_id"] == "alice" and body["memory"]["importance"] == 0.8
    assert body["warnings"] == [] and body["decision"] is None  # consolidate "off"

    got = alice.get(f"/v1/memories/{memory_id}").json()
    assert got["text"] == "Alice moved to Lyon." and got["metadata"] == {"topic": "home"}

    updated = alice.put(
        f"/v1/memories/{memory_id}", json={"text": "Alice moved to Lyon in May.", "reason": "date"}
    ).json()
    assert updated["version"] == got["version"] + 1
    assert live.memory.get(memory_id).text == "Alice moved to Lyon in May."

    deleted = alice.delete(f"/v1/memories/{memory_id}", params={"reason": "moved again"}).json()
    assert deleted["status"] == "archived"

    history = alice.get(f"/v1/memories/{memory_id}/history").json()["results"]
    assert [r["action"] for r in history] == ["EDIT", "ARCHIVE"]
    assert history[0]["before"] and history[0]["after"]
    log = alice.get("/v1/log", params={"limit": 10}).json()["results"]
    assert [r["id"] for r in log] == [history[1]["id"], history[0]["id"]]  # newest first
    assert alice.get(f"/v1/log/{history[1]['id']}").json()["action"] == "ARCHIVE"

    undone = alice.post(f"/v1/log/{history[1]['id']}/undo").json()["undo_log_ids"]
    assert len(undone) == 1
    assert live.memory.get(memory_id).status.value == "active"
    # An undo that later changes built on is refused (409) unless cascaded.
    alice.put(f"/v1/memories/{memory_id}", json={"text": "Alice lives in Lyon."})
    refused = alice.post(f"/v1/log/{history[0]['id']}/undo", json={"cascade": False})
    assert refused.status_code == 409, refused.text
    assert refused.json()["error"]["code"] == "undo_refused"
    assert refused.json()["error"]["blocking_log_ids"]
    cascaded = alice.post(f"/v1/log/{history[0]['id']}/undo", json={"cascade": True})
    assert cascaded.status_code == 200, cascaded.text
    assert live.memory.get(memory_id).text == "Alice moved to Lyon."


def test_list_pages_filters_and_statuses(live: Live, alice: httpx.Client) -> None:
    ids = [
        alice.post("/v1/memories", json={"text": f"fact {n}", "metadata": {"n": n}}).json()[
            "memory"
        ]["id"]
        for n in range(5)
    ]
    first = alice.get("/v1/memories", params={"limit": 2}).json()
    assert [m["id"] for m in first["results"]] == ids[:2] and first["next_offset"] == 2
    last = alice.get("/v1/memories", params={"limit": 2, "offset": 4}).json()
    assert [m["id"] for m in last["results"]] == ids[4:] and last["next_offset"] is None
    big = json.dumps({"n": {"$gte": 3}})
    assert [m["id"] for m in alice.get(f"/v1/memories?filters={big}").json()["results"]] == ids[3:]
    alice.delete(f"/v1/memories/{ids[0]}")
    active = alice.get("/v1/memories").json()["results"]
    assert ids[0] not in {m["id"] for m in active}
    every = alice.get("/v1/memories", params={"status": "all"}).json()["results"]
    assert ids[0] in {m["id"] for m in every}


def test_add_messages_the_mem0_way(live: Live, alice: httpx.Client) -> None:
    messages = [
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": "I am vegetarian."},
        {"role": "assistant", "content": "Noted, no meat."},
    ]
    done = alice.post(
        "/v1/memories", json={"messages": messages, "infer": False, "run_id": "s-9"}
    ).json()
    events = done["results"]
    assert [e["event"] for e in events] == ["ADD", "ADD"]
    assert [e["memory"] for e in events] == ["I am vegetarian.", "Noted, no meat."]
    stored = live.memory.get(events[0]["id"])
    assert stored.scope.session_id == "s-9"  # mem0's run_id is memfold's session_id
    assert len(live.memory.conversation("s-9", user_id="alice")) == 3


def test_search_returns_hits_with_scores(live: Live, alice: httpx.Client) -> None:
    for text in ("Alice plays the cello.", "Alice's car is red.", "Alice fears spiders."):
        alice.post("/v1/memories", json={"text": text})
    hits = alice.post(
        "/v1/memories/search", json={"query": "which instrument does she play", "limit": 1}
    ).json()["results"]
    assert len(hits) == 1
    assert hits[0]["text"] == "Alice plays the cello." and hits[0]["score"] > 0
    assert list(hits[0]) == ["id", "text", "score", "created_at"]  # the one shape
    asked = alice.post(
        "/v1/memories/search",
        json={"query": "instrument", "limit": 1, "fields": ["vector_score", "category"]},
    ).json()["results"]
    assert -1 <= asked[0]["vector_score"] <= 1 and asked[0]["category"] == "semantic"
    every = alice.post("/v1/memories/search", json={"query": "cello", "fields": "all"})
    assert {"user_id", "metadata", "status", "keyword_rank"} <= set(every.json()["results"][0])
    wrong = alice.post("/v1/memories/search", json={"query": "cello", "fields": ["colour"]})
    assert wrong.status_code == 422 and "colour" in wrong.json()["error"]["message"]
    keyword = alice.post(
        "/v1/memories/search", json={"query": "spiders", "mode": "keyword", "k": 5}
    ).json()["results"]
    assert [h["text"] for h in keyword] == ["Alice fears spiders."]


def test_delete_all_of_a_scope_and_its_undo(live: Live, alice: httpx.Client) -> None:
    ids = [
        alice.post("/v1/memories", json={"text": f"note {n}"}).json()["memory"]["id"]
        for n in range(3)
    ]
    done = alice.delete("/v1/memories").json()  # a bound key: its own user
    assert sorted(done["deleted"]) == sorted(ids) and len(done["log_ids"]) == 1
    assert alice.get("/v1/memories").json()["results"] == []
    alice.post(f"/v1/log/{done['log_ids'][0]}/undo")
    assert len(alice.get("/v1/memories").json()["results"]) == 3


def test_feedback_is_recorded(live: Live, alice: httpx.Client) -> None:
    memory_id = alice.post("/v1/memories", json={"text": "Alice likes jazz."}).json()["memory"][
        "id"
    ]
    before = live.memory.store.feedback_total()
    answer = alice.post(
        f"/v1/memories/{memory_id}/feedback", json={"kind": "used", "context": "recalled"}
    )
    assert answer.status_code == 200 and answer.json() == {"log_ids": []}  # cold start
    assert live.memory.store.feedback_total() == before + 1


def test_tick_is_for_admins_and_reports(live: Live) -> None:
    admin = live.client(live.key("admin"))
    now = admin.post("/v1/tick")  # no body: now
    assert now.status_code == 200 and "expired" in now.json()
    report = admin.post("/v1/tick", json={"now": "2031-01-01T00:00:00+00:00"}).json()
    assert report["time"].startswith("2031-01-01")
    earlier = admin.post("/v1/tick", json={"now": "2030-01-01T00:00:00+00:00"})
    assert earlier.status_code == 422 and "last tick" in earlier.json()["error"]["message"]


def test_review_endpoints(world: World) -> None:
    alice, bob = world.tenants["alice"], world.tenants["bob"]
    a_client, b_client = world.live.client(alice.write), world.live.client(bob.write)
    status = a_client.get("/v1/review/status").json()
    assert status["queue"]["by_status"]["held"] == 1 and status["breaker"] == {"open": False}
    pending = a_client.get("/v1/review/pending").json()
    assert [h["id"] for h in pending["held"]] == [alice.item_id]
    assert set(pending) == {"held", "contradictions", "supersedes", "flagged_by_feedback"}

    approved = a_client.post(f"/v1/review/items/{alice.item_id}/approve").json()
    assert approved["log_id"] is not None
    merged = world.live.memory.get(alice.pair[0])
    assert (
        merged.status.value != "active"
        or world.live.memory.get(alice.pair[1]).status.value != "active"
    )
    undo = a_client.post(f"/v1/log/{approved['log_id']}/undo").json()["undo_log_ids"]
    assert undo and {world.live.memory.get(i).status.value for i in alice.pair} == {"active"}
    again = a_client.post(f"/v1/review/items/{alice.item_id}/approve")
    assert again.status_code == 422 and again.json()["error"]["code"] == "invalid_input"

    rejected = b_client.post(f"/v1/review/items/{bob.item_id}/reject", json={"reason": "distinct"})
    assert rejected.status_code == 200, rejected.text
    assert world.live.memory.store.get_queue_item(bob.item_id).status == "rejected"  # type: ignore[union-attr]

    run = b_client.post("/v1/review/run", json={}).json()
    assert run["scope_key"] == "u=bob|a=|s=" and run["status"] in {"done", "halted"}
    admin = world.live.client(world.admin)
    assert admin.post("/v1/review/resume").json()["open"] is False


def test_conversation_endpoints(live: Live, alice: httpx.Client) -> None:
    base = "/v1/conversations/trip"
    sent = alice.post(
        f"{base}/messages",
        json={
            "messages": [
                {"role": "user", "content": "Book me a train to Turin.", "name": "Alice"},
                {"role": "assistant", "content": "Which day?"},
            ]
        },
    ).json()["messages"]
    assert [m["position"] for m in sent] == [0, 1] and sent[0]["metadata"] == {"name": "Alice"}
    listed = alice.get(f"{base}/messages", params={"start": 1}).json()
    assert [m["content"] for m in listed["messages"]] == ["Which day?"] and listed["count"] == 2
    export = alice.get(f"{base}/export")
    assert export.headers["content-type"].startswith("application/x-ndjson")
    lines = [json.loads(line) for line in export.text.splitlines()]
    assert [m["content"] for m in lines] == ["Book me a train to Turin.", "Which day?"]
    note = alice.post(f"{base}/notes", json={"text": "Alice prefers window seats."}).json()
    assert note["kind"] == "note"
    parts = alice.get(f"{base}/summary").json()["parts"]
    assert [p["text"] for p in parts] == ["Alice prefers window seats."]
    window = alice.post(
        f"{base}/window", json={"user_message": "Friday, please.", "system_prompt": "Be brief."}
    ).json()["messages"]
    assert window[0]["role"] == "system" and "window seats" in window[0]["content"]
    assert window[-1] == {"role": "user", "content": "Friday, please."}
    assert len(live.memory.conversation("trip", user_id="alice")) == 2  # the window appends none


def test_docs_and_openapi_are_served(live: Live) -> None:
    client = live.client()
    assert "swagger" in client.get("/docs").text.lower()
    spec = client.get("/openapi.json").json()
    assert "/v1/memories/search" in spec["paths"]
    add = spec["paths"]["/v1/memories"]["post"]
    assert add["requestBody"]["content"]["application/json"]["schema"]
    assert spec["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
    assert add["security"] == [{"bearer": []}]  # /docs' Authorize button sends the key
    # errors are documented in the shape they are sent in
    error_ref = {"$ref": "#/components/schemas/ErrorBody"}
    for status in ("401", "404", "422", "429"):
        assert add["responses"][status]["content"]["application/json"]["schema"] == error_ref
    assert "HTTPValidationError" not in json.dumps(spec)
    sent = live.client(live.key("write", "alice")).post("/v1/memories", json={"text": 5})
    assert sent.status_code == 422
    ErrorBody.model_validate(sent.json())  # what the document says is what comes


def test_cors_is_off_unless_origins_are_configured(
    live: Live, tmp_path: Path, embedder: LocalEmbedder
) -> None:
    token = live.key("read", "alice")
    origin = {"Origin": "https://app.example", "Authorization": f"Bearer {token}"}
    plain = httpx.get(f"{live.base_url}/v1/memories", headers=origin)
    assert "access-control-allow-origin" not in plain.headers
    settings = world_settings(cors_origins=["https://app.example"])
    with live_server(tmp_path / "cors.db", embedder, settings=settings) as served:
        token = served.key("read", "alice")
        origin["Authorization"] = f"Bearer {token}"
        allowed = httpx.get(f"{served.base_url}/v1/memories", headers=origin)
        assert allowed.headers["access-control-allow-origin"] == "https://app.example"


@pytest.fixture
def background(tmp_path: Path, embedder: LocalEmbedder) -> Iterator[Live]:
    with live_server(tmp_path / "bg.db", embedder, consolidate="background") as served:
        yield served


def test_many_clients_at_once_lose_no_write(background: Live) -> None:
    """The Memory is shared by the server's request threads (consolidate "background",
    as memfold serve opens it): 8 clients adding and searching at once."""
    tokens = [background.key("write", f"user{n}") for n in range(8)]

    def work(token: str) -> list[str]:
        with httpx.Client(
            base_url=background.base_url, headers={"Authorization": f"Bearer {token}"}
        ) as c:
            ids = []
            for n in range(4):
                r = c.post("/v1/memories", json={"text": f"distinct fact number {n} of this user"})
                assert r.status_code == 200, r.text
                ids.append(r.json()["memory"]["id"])
                assert c.post("/v1/memories/search", json={"query": "fact"}).status_code == 200
            return ids

    with ThreadPoolExecutor(8) as pool:
        acknowledged = [i for ids in pool.map(work, tokens) for i in ids]
    background.memory.flush(timeout=30)
    assert len(set(acknowledged)) == 32
    stored = background.memory.store.get_memories(acknowledged)
    assert set(stored) == set(acknowledged)


def test_health_answers_without_a_key_and_says_when_the_store_fails(
    live: Live, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = live.client()
    ok = client.get("/health")
    assert ok.status_code == 200
    assert ok.json() == {
        "status": "ok",
        "version": memfold.__version__,
        "schema_version": live.memory.store.schema_version(),
    }

    def broken() -> int:
        raise OSError("disk gone")

    monkeypatch.setattr(live.memory.store, "schema_version", broken)
    down = client.get("/health")
    assert down.status_code == 503
    assert down.json() == {"status": "unavailable", "version": memfold.__version__}
    assert "disk" not in down.text  # a probe without a key learns nothing of the store


def test_a_trailing_slash_is_served_not_redirected(live: Live, alice: httpx.Client) -> None:
    added = alice.post("/v1/memories/", json={"text": "Alice keeps bees.", "user_id": "alice"})
    assert added.status_code == 200, added.text  # not 307: a POST's body would be lost
    memory_id = added.json()["memory"]["id"]
    assert alice.get(f"/v1/memories/{memory_id}/").json()["text"] == "Alice keeps bees."
    assert live.client().post("/v1/memories/", json={"text": "x"}).status_code == 401
    assert live.client().get("/health/").status_code == 200


def test_id_prefixes_resolve_among_the_keys_own_memories(
    live: Live, alice: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    a1, b1, a3 = ("abc123" + digit * 26 for digit in "012")
    a2 = "abc999" + "0" * 26
    queue = [a1, b1, a2, a3]
    monkeypatch.setattr(ingest, "new_id", lambda: queue.pop(0))
    bob = live.client(live.key("write", "bob"))
    assert alice.post("/v1/memories", json={"text": "Alice rows."}).json()["memory"]["id"] == a1
    assert bob.post("/v1/memories", json={"text": "Bob sails."}).json()["memory"]["id"] == b1
    assert alice.post("/v1/memories", json={"text": "Alice sings."}).json()["memory"]["id"] == a2

    # bob's b1 shares alice's prefix but is not hers: the prefix is unique for each
    assert alice.get("/v1/memories/abc123").json()["id"] == a1
    assert bob.get("/v1/memories/abc123").json()["id"] == b1
    assert alice.put("/v1/memories/abc999", json={"text": "Alice sings alto."}).status_code == 200
    missing = bob.get("/v1/memories/abc999")
    assert missing.status_code == 404 and "no memory with id 'abc999'" in missing.text
    assert bob.delete(f"/v1/memories/{a2}").status_code == 404  # the full id: the same

    assert alice.post("/v1/memories", json={"text": "Alice paints."}).json()["memory"]["id"] == a3
    ambiguous = alice.get("/v1/memories/abc123")
    assert ambiguous.status_code == 422 and "ambiguous" in ambiguous.text
    assert a1 in ambiguous.text and a3 in ambiguous.text and b1 not in ambiguous.text
    short = alice.get("/v1/memories/abc12")
    assert short.status_code == 422 and "at least 6 characters" in short.text
