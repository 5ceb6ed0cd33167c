"""The OpenAPI document types every success response (server/responses*.py), and what
it documents is what is sent: each model declares the keys its record's ``to_dict()``
sends, in order, and sends back exactly the body its route built."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from pydantic import BaseModel, TypeAdapter

from memfold.engine.conversation.add import MemoryEvent
from memfold.engine.lifecycle.compress import Compression
from memfold.engine.lifecycle.tick import Conflict, TickReport
from memfold.mem0 import shapes
from memfold.model import (
    Action,
    Area,
    Decision,
    LogEntry,
    MemoryRecord,
    PairLabel,
    QueueItem,
    ReviewRun,
    Scope,
)
from memfold.policy.messages import Message, Role
from memfold.policy.summary_parts import PartKind, SummaryPart
from memfold.server.responses import (
    DecisionOut,
    LogRowOut,
    MemoryEventOut,
    MemoryOut,
    MemoryRowOut,
    SearchHitOut,
)
from memfold.server.responses_mem0 import Mem0HistoryRowOut, Mem0MemoryOut
from memfold.server.responses_review import (
    CompressionOut,
    ConflictOut,
    MessageOut,
    QueueItemOut,
    ReviewRunOut,
    SummaryPartOut,
    TickReportOut,
)
from server.live import Live

Spec = dict[str, Any]
# The one route whose body is not JSON (documented as application/x-ndjson).
NOT_JSON = {"GET /v1/conversations/{session_id}/export"}
NOW = datetime(2025, 5, 1, 12, 0, tzinfo=UTC)


def _operations(spec: Spec) -> dict[str, Spec]:
    return {
        f"{method.upper()} {path}": operation
        for path, operations in spec["paths"].items()
        if path.startswith(("/v1/", "/mem0/")) or path == "/health"
        for method, operation in operations.items()
    }


def _models(spec: Spec, schema: Spec) -> list[Spec]:
    """The components a 200 schema names: a $ref, an array of one, or a union of them;
    [] for anything else (an untyped object)."""
    if "$ref" in schema:
        return [spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]]
    if schema.get("type") == "array":
        return _models(spec, schema.get("items", {}))
    alternatives = [_models(spec, s) for s in schema.get("anyOf", [])]
    if alternatives and all(alternatives):
        return [m for found in alternatives for m in found]
    return []


def _ok_json_schema(operation: Spec) -> Spec:
    """The JSON schema of an operation's success response ({} where none)."""
    for status, response in operation["responses"].items():
        if status.startswith("2"):
            json_body: Spec = response.get("content", {}).get("application/json", {})
            schema: Spec = json_body.get("schema", {})
            return schema
    return {}


def _properties(spec: Spec, path: str, method: str = "get") -> dict[str, Spec]:
    (model,) = _models(spec, _ok_json_schema(spec["paths"][path][method]))
    properties: dict[str, Spec] = model["properties"]
    return properties


def _item_properties(spec: Spec, properties: dict[str, Spec], key: str) -> dict[str, Spec]:
    """The properties of the component a list property holds."""
    (model,) = _models(spec, properties[key])
    found: dict[str, Spec] = model["properties"]
    return found


def test_every_operation_has_a_typed_200(live: Live) -> None:
    spec = live.client().get("/openapi.json").json()
    operations = _operations(spec)
    assert len(operations) >= 35 and "GET /health" in operations
    untyped = []
    for name, operation in operations.items():
        models = _models(spec, _ok_json_schema(operation))
        if not models or not all(m.get("properties") for m in models):
            untyped.append(name)
    assert set(untyped) == NOT_JSON
    (export,) = (operations[name] for name in NOT_JSON)
    assert set(export["responses"]["200"]["content"]) == {"application/x-ndjson"}
    # /health's 503 is documented in the shape it is sent in
    unavailable = operations["GET /health"]["responses"]["503"]["content"]["application/json"]
    assert _models(spec, unavailable["schema"])[0]["required"] == ["status", "version"]


def test_search_and_list_send_the_documented_fields(live: Live) -> None:
    spec = live.client().get("/openapi.json").json()
    alice = live.client(live.key("write", "alice"))
    added = alice.post("/v1/memories", json={"text": "Alice keeps bees.", "metadata": {"k": 1}})
    memory_id = added.json()["memory"]["id"]

    search = _properties(spec, "/v1/memories/search", "post")
    hit_properties = _item_properties(spec, search, "results")
    found = alice.post("/v1/memories/search", json={"query": "bees"}).json()
    assert set(found) == set(search)
    assert list(found["results"][0]) == list(hit_properties)  # id, text, score, created_at
    asked = ["metadata", "vector_score", "category"]
    found = alice.post("/v1/memories/search", json={"query": "bees", "fields": asked}).json()
    assert list(found["results"][0]) == [*hit_properties, *asked]  # in the order asked
    assert found["results"][0]["metadata"] == {"k": 1}

    page = _properties(spec, "/v1/memories")
    listed = alice.get("/v1/memories", params={"fields": "all"}).json()
    assert set(listed) == set(page)
    record = _properties(spec, "/v1/memories/{memory_id}")
    assert set(listed["results"][0]) == set(record)  # "all": every field of a memory
    assert list(alice.get(f"/v1/memories/{memory_id}").json()) == list(record)

    alice.put(f"/v1/memories/{memory_id}", json={"text": "Alice keeps two hives."})
    rows = alice.get(f"/v1/memories/{memory_id}/history").json()
    assert set(rows) == set(_properties(spec, "/v1/memories/{memory_id}/history"))
    assert list(rows["results"][-1]) == list(_properties(spec, "/v1/log/{log_id}"))


def test_review_and_mem0_bodies_hold_the_documented_fields(live: Live) -> None:
    spec = live.client().get("/openapi.json").json()
    status = _properties(spec, "/v1/review/status")
    admin = live.client(live.key("admin")).get("/v1/review/status").json()
    bound = live.client(live.key("read", "alice")).get("/v1/review/status").json()
    assert list(admin) == list(status)
    assert set(bound) == set(status) - {"feedback", "merges_today"}  # both left out

    token = live.key("write", "alice")
    mem0 = live.client(token)
    item = _properties(spec, "/mem0/v1/memories/{memory_id}")
    body = {"messages": [{"role": "user", "content": "I play the cello."}], "infer": False}
    (event,) = mem0.post("/mem0/v3/memories/add", json=body).json()["results"]
    got = mem0.get(f"/mem0/v1/memories/{event['id']}").json()
    assert list(got) == [*list(item)[:6], "user_id"]  # no score, agent, run or expiry
    hits = mem0.post("/mem0/v3/memories/search", json={"query": "cello"}).json()["results"]
    assert list(hits[0]) == [*list(item)[:7], "user_id"]
    (history,) = mem0.get(f"/mem0/v1/memories/{event['id']}/history").json()
    assert list(history) == list(_properties(spec, "/mem0/v1/memories/{memory_id}/history"))


# each model declares the keys its record sends, in their order -----------------------


def _record() -> MemoryRecord:
    scope = Scope("alice", "bot", "s1")
    return MemoryRecord(id="m1", scope=scope, text="Alice keeps bees.", expires_at=NOW)


def _queue_item() -> QueueItem:
    return QueueItem(
        1, "u=alice|a=|s=", "m1", "m2", 0.97, 1, 1, PairLabel.DUPLICATE, 1, "same",
        "held", NOW, None, None, 3, {"text": "merged"}, "",
    )  # fmt: skip


def _tick() -> TickReport:
    compressed = Compression(["m1", "m2"], "m3", 4, "t")
    return TickReport(NOW, 3, conflicts=[Conflict("m1", "m2", "link")], compressions=[compressed])


def _log_entry() -> LogEntry:
    return LogEntry(7, NOW, "api", "EDIT", ["m1"], ["m1"], before={"memories": {}})


SENT: list[tuple[type[BaseModel], Callable[[], dict[str, Any]]]] = [
    (MemoryOut, lambda: _record().to_dict()),
    (LogRowOut, lambda: _log_entry().to_dict()),
    (DecisionOut, lambda: Decision(Action.MERGE, ["m2"], "t", Area.MAIN, confidence=1).to_dict()),
    (
        MemoryEventOut,
        lambda: MemoryEvent("m1", "t", "UPDATE", Area.MAIN, "MERGE", ("m2",)).to_dict(),
    ),
    (QueueItemOut, lambda: _queue_item().to_dict()),
    (ReviewRunOut, lambda: ReviewRun(1, None, NOW, NOW, "done", 0.9).to_dict()),
    (TickReportOut, lambda: _tick().to_dict()),
    (ConflictOut, lambda: Conflict("m1", "m2", "link").to_dict()),
    (CompressionOut, lambda: _tick().to_dict()["compressions"][0]),
    (MessageOut, lambda: Message("x1", "u=alice|a=|s=s1", 0, Role.USER, "hi", NOW).to_dict()),
    (SummaryPartOut, lambda: SummaryPart("p1", "u=a|a=|s=s", 0, PartKind.NOTE, "n", NOW).to_dict()),
    (Mem0MemoryOut, lambda: shapes.item(_record(), 0.5)),
    (Mem0HistoryRowOut, lambda: shapes.history(_record(), [])[0]),
]


@pytest.mark.parametrize(("model", "sent"), SENT, ids=[model.__name__ for model, _ in SENT])
def test_a_model_declares_every_key_sent_and_sends_it_unchanged(
    model: type[BaseModel], sent: Callable[[], dict[str, Any]]
) -> None:
    body = sent()
    assert list(model.model_fields) == list(body)
    _assert_sent_unchanged(model, body)


def test_open_models_keep_every_key_the_route_sent() -> None:
    record = _record().to_dict()
    hit = {"id": "m1", "user_id": "alice", "text": "t", "created_at": "x", "score": 1}
    _assert_sent_unchanged(SearchHitOut, hit)  # an int score stays an int
    _assert_sent_unchanged(MemoryRowOut, record)
    _assert_sent_unchanged(MemoryRowOut, {k: record[k] for k in ("id", "text", "created_at")})
    _assert_sent_unchanged(ReviewRunOut, ReviewRun(1, None, NOW, None, "x", 1).to_dict())


def _assert_sent_unchanged(model: type[BaseModel], body: dict[str, Any]) -> None:
    """What FastAPI sends for a route's dict (validate, then dump_json leaving out what
    the dict left out) holds what it sent untyped: the same keys and values (an int
    stays an int), the declared keys first."""
    adapter = TypeAdapter(model)
    sent = adapter.dump_json(adapter.validate_python(body), exclude_unset=True)
    back = json.loads(sent)
    assert back == body
    assert {k: type(v) for k, v in back.items()} == {k: type(v) for k, v in body.items()}
