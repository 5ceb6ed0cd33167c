"""``GET /v1/memories/{memory_id}/links`` and ``GET /v1/graph`` against a live server:
what they send (the documented shape), and that a key never reads another scope: its
memory is 404 as an unknown id, and a link into another scope is not shown."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from memfold.embed.local import LocalEmbedder
from memfold.engine.keys import verify_key
from memfold.server.mcp_tools import MemoryTools
from server.live import Live, live_server
from server.world import world_settings

# Saved with consolidate="sync": the second supersedes the first, the third contradicts
# the second (the rule judge; tests/api/test_links.py).
CHAIN = ("Ana likes green tea", "Ana likes green tea a lot", "Ana no longer likes green tea")
BOBS = "Bob keeps his spare key under the blue flowerpot"
UNKNOWN = "0123456789abcdef0123456789abcdef"
NS = "{http://graphml.graphdrawing.org/xmlns}"


@dataclass
class Links:
    live: Live
    chain: list[str]  # alice's: oldest, middle, newest
    bobs: str  # bob's memory, linked from alice's middle one by an import

    def client(self, role: str, user: str | None) -> httpx.Client:
        return self.live.client(self.live.key(role, user))


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, embedder: LocalEmbedder) -> Iterator[Links]:
    folder = tmp_path_factory.mktemp("links")
    with live_server(
        folder / "memfold.db", embedder, settings=world_settings(), consolidate="sync"
    ) as live:
        chain = [live.memory.add(text, user_id="alice").memory.id for text in CHAIN]
        bobs = live.memory.add(BOBS, user_id="bob").memory.id
        # Consolidation never links two scopes; an import may (it names stored memories).
        planted = folder / "cross.jsonl"
        lines = [
            {"type": "header", "format": "memfold-export/1"},
            {"type": "link", "src": chain[1], "dst": bobs, "kind": "related", "weight": 0.5},
        ]
        planted.write_text("".join(json.dumps(line) + "\n" for line in lines))
        assert live.memory.import_(planted).links == 1
        yield Links(live, chain, bobs)


def _ids(body: dict[str, Any]) -> list[tuple[int, str, str, str]]:
    return [(lk["depth"], lk["kind"], lk["direction"], lk["id"]) for lk in body["links"]]


def test_the_links_of_a_memory_in_the_documented_shape(served: Links) -> None:
    old, mid, new = served.chain
    alice = served.client("read", "alice")
    response = alice.get(f"/v1/memories/{new[:8]}/links", params={"depth": 2})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["id"] == new and body["truncated"] is False
    assert _ids(body) == [(1, "contradicts", "out", mid), (2, "supersedes", "out", old)]
    assert body["links"][0]["text"] == CHAIN[1] and body["links"][0]["status"] == "superseded"
    own = served.live.memory.links(new, depth=2, may_see=lambda r: r.scope.user_id == "alice")
    assert body == own.to_dict()

    spec = served.live.client().get("/openapi.json").json()
    schemas = spec["components"]["schemas"]
    assert list(body) == list(schemas["LinksOut"]["properties"])
    assert list(body["links"][0]) == list(schemas["LinkedMemoryOut"]["properties"])

    only = [(1, "supersedes", "out", old)]
    both = [*only, (1, "contradicts", "in", new)]
    asked = (["supersedes"], ["supersedes,contradicts"], ["supersedes", "contradicts"], [""])
    for kinds, wanted in zip(asked, (only, both, both, both), strict=True):
        got = alice.get(f"/v1/memories/{mid}/links", params={"kinds": kinds}).json()
        assert _ids(got) == wanted, kinds


def test_another_users_key_gets_404_and_nothing_changes(served: Links) -> None:
    bob = served.client("read", "bob")
    before = served.live.fingerprint()
    for memory_id in served.chain:
        response = bob.get(f"/v1/memories/{memory_id}/links")
        assert response.status_code == 404, response.text
        assert response.json()["error"]["code"] == "not_found"
        assert all(text not in response.text for text in CHAIN)
    theirs = bob.get(f"/v1/memories/{served.chain[0]}/links").json()["error"]["message"]
    unknown = bob.get(f"/v1/memories/{UNKNOWN}/links").json()["error"]["message"]
    assert theirs.replace(served.chain[0], "ID") == unknown.replace(UNKNOWN, "ID")
    graph = bob.get("/v1/graph", params={"user_id": "alice"})
    assert graph.status_code == 404 and graph.json()["error"]["code"] == "not_found"
    assert served.live.fingerprint() == before


def test_a_link_into_another_scope_is_never_shown(served: Links) -> None:
    old, mid, new = served.chain
    alice = served.client("read", "alice")
    for memory_id, depth in ((mid, 1), (new, 2), (old, 3)):
        response = alice.get(f"/v1/memories/{memory_id}/links", params={"depth": depth})
        assert response.status_code == 200, response.text
        assert served.bobs not in response.text and BOBS not in response.text
    bobs = served.client("read", "bob").get(f"/v1/memories/{served.bobs}/links").json()
    assert bobs == {"id": served.bobs, "links": [], "truncated": False}
    admin = served.client("admin", None).get(f"/v1/memories/{mid}/links").json()
    assert (1, "related", "out", served.bobs) in _ids(admin)  # a key of no user sees it
    graph = alice.get("/v1/graph").json()
    assert served.bobs not in json.dumps(graph)


def test_bad_input_is_422_and_changes_nothing(served: Links) -> None:
    mid = served.chain[1]
    alice = served.client("read", "alice")
    before = served.live.fingerprint()
    cases: list[tuple[str, dict[str, Any], str]] = [
        (f"/v1/memories/{mid}/links", {"kinds": "nope"}, "unknown link kind 'nope': kinds are"),
        (f"/v1/memories/{mid}/links", {"depth": 0}, "depth must be an integer between 1 and 5"),
        (f"/v1/memories/{mid}/links", {"depth": 6}, "depth must be an integer between 1 and 5"),
        (f"/v1/memories/{mid}/links", {"max_nodes": 0}, "max_nodes must be an integer"),
        ("/v1/graph", {"format": "dot"}, "format must be one of json, graphml"),
        ("/v1/graph", {"max_nodes": 2}, "more than 2 memories"),
    ]
    for url, params, message in cases:
        response = alice.get(url, params=params)
        assert response.status_code == 422, (params, response.text)
        error = response.json()["error"]
        assert error["code"] == "invalid_input" and message in error["message"]
    assert alice.get(f"/v1/memories/{mid}/links", params={"depth": "x"}).status_code == 422
    assert served.live.fingerprint() == before


def test_the_graph_of_the_keys_scope_as_json_and_graphml(served: Links) -> None:
    old, mid, new = served.chain
    alice = served.client("read", "alice")
    graph = alice.get("/v1/graph").json()
    assert graph["graph"] == {"user_id": "alice", "agent_id": None, "session_id": None}
    assert [n["id"] for n in graph["nodes"]] == [old, mid, new]
    assert [(e["source"], e["target"], e["kind"]) for e in graph["edges"]] == [
        (mid, old, "supersedes"),
        (new, mid, "contradicts"),
    ]
    assert (
        graph == served.client("admin", None).get("/v1/graph", params={"user_id": "alice"}).json()
    )

    response = alice.get("/v1/graph", params={"format": "graphml"})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/xml")
    root = ET.fromstring(response.content)
    body = root.find(f"{NS}graph")
    assert body is not None
    assert [n.attrib["id"] for n in body.findall(f"{NS}node")] == [old, mid, new]
    assert len(body.findall(f"{NS}edge")) == 2

    spec = served.live.client().get("/openapi.json").json()
    ok = spec["paths"]["/v1/graph"]["get"]["responses"]["200"]["content"]
    assert set(ok) == {"application/json", "application/xml"}
    assert ok["application/json"]["schema"] == {"$ref": "#/components/schemas/GraphOut"}


def test_the_graph_of_an_empty_scope(served: Links) -> None:
    carol = served.client("read", "carol")
    assert carol.get("/v1/graph").json()["nodes"] == []
    xml = carol.get("/v1/graph", params={"format": "graphml"}).text
    body = ET.fromstring(xml).find(f"{NS}graph")
    assert body is not None and body.findall(f"{NS}node") == []


def test_mcp_get_memory_lists_the_links_the_caller_may_see(served: Links) -> None:
    old, mid, new = served.chain
    memory = served.live.memory
    key = verify_key(memory.store, served.live.key("read", "alice"))
    assert key is not None
    got = MemoryTools(memory, lambda: key).get_memory(mid[:8])
    assert got["links"] == [  # not the link to bob's memory
        {"kind": "supersedes", "direction": "out", "id": old},
        {"kind": "contradicts", "direction": "in", "id": new},
    ]
    assert {k: v for k, v in got.items() if k != "links"} == memory.get(mid).to_dict()
