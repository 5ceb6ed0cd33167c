"""Reading the links consolidation writes: ``Memory.links`` (a memory's neighbours, a
walk of some hops) and ``Memory.export_graph`` (a scope as node-link JSON or GraphML),
on SQLite and PostgreSQL, with links made the real way (the rule judge on save)."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from memfold import AsyncMemory, InvalidInput, Memory, NotFound
from memfold.embed.local import LocalEmbedder
from memfold.engine.links_read import MAX_DEPTH, MAX_NODES

# Saved in this order with consolidate="sync", the rule judge links them in a chain:
# the second supersedes the first (REPLACE: the same fact in other words), the third
# contradicts the second (DELETE: the change cue "no longer").
CHAIN = ("Ana likes green tea", "Ana likes green tea a lot", "Ana no longer likes green tea")
NS = "{http://graphml.graphdrawing.org/xmlns}"


def _chain(mem: Memory, user: str = "ana") -> list[str]:
    ids = [mem.add(text, user_id=user).memory.id for text in CHAIN]
    assert [mem.get(i).status.value for i in ids] == ["superseded", "superseded", "active"]
    return ids


def _rows(mem: Memory, memory_id: str, **kw: Any) -> list[tuple[Any, ...]]:
    found = mem.links(memory_id, **kw)
    return [(lk.depth, lk.via, lk.kind.value, lk.direction, lk.id) for lk in found.links]


def test_a_memorys_neighbours_read_back_with_kind_direction_and_text(mem_sync: Memory) -> None:
    old, mid, new = _chain(mem_sync)
    found = mem_sync.links(new)
    assert found.id == new and not found.truncated
    (only,) = found.links
    assert only.to_dict() == {
        "id": mid,
        "kind": "contradicts",
        "direction": "out",
        "weight": 1.0,
        "text": "Ana likes green tea a lot",
        "status": "superseded",
        "depth": 1,
        "via": new,
        "created_at": only.created_at.isoformat(),
    }
    # a superseded memory keeps its links, both ways
    assert _rows(mem_sync, mid) == [
        (1, mid, "supersedes", "out", old),
        (1, mid, "contradicts", "in", new),
    ]
    assert _rows(mem_sync, old) == [(1, old, "supersedes", "in", mid)]
    assert mem_sync.links(new[:8]).links == found.links  # a unique prefix


def test_depth_walks_further_and_kinds_narrow_the_walk(mem_sync: Memory) -> None:
    old, mid, new = _chain(mem_sync)
    assert _rows(mem_sync, new, depth=2) == [
        (1, new, "contradicts", "out", mid),
        (2, mid, "supersedes", "out", old),
    ]
    assert _rows(mem_sync, new, depth=MAX_DEPTH) == _rows(mem_sync, new, depth=2)
    assert _rows(mem_sync, new, depth=2, kinds=["supersedes"]) == []  # the first hop is not one
    assert _rows(mem_sync, mid, kinds="supersedes") == [(1, mid, "supersedes", "out", old)]
    both = _rows(mem_sync, mid, kinds="supersedes,contradicts")
    assert both == _rows(mem_sync, mid)
    walked = mem_sync.links(new, depth=2, max_nodes=1)
    assert [lk.id for lk in walked.links] == [mid] and walked.truncated
    mem_sync.delete(new, reason="test")  # archived: its links stay readable
    assert _rows(mem_sync, new) == [(1, new, "contradicts", "out", mid)]


def test_bad_input_is_refused_and_changes_nothing(mem_sync: Memory) -> None:
    _, mid, _ = _chain(mem_sync)
    before = (mem_sync.stats(), [e.id for e in mem_sync.log(1000)])
    with pytest.raises(NotFound, match="no memory with id 'ffffffffffff'"):
        mem_sync.links("ffffffffffff")
    with pytest.raises(InvalidInput, match="unknown link kind 'nope': kinds are derived_from"):
        mem_sync.links(mid, kinds=["supersedes", "nope"])
    for kinds in ([], "", [3]):
        with pytest.raises(InvalidInput, match="link kind"):
            mem_sync.links(mid, kinds=kinds)  # type: ignore[arg-type]
    for depth in (0, MAX_DEPTH + 1, True, 1.5, "2"):
        with pytest.raises(InvalidInput, match="depth must be an integer between 1 and 5"):
            mem_sync.links(mid, depth=depth)  # type: ignore[arg-type]
    for cap in (0, MAX_NODES + 1):
        with pytest.raises(InvalidInput, match="max_nodes must be an integer"):
            mem_sync.links(mid, max_nodes=cap)
        with pytest.raises(InvalidInput, match="max_nodes must be an integer"):
            mem_sync.export_graph(user_id="ana", max_nodes=cap)
    with pytest.raises(InvalidInput, match="format must be one of json, graphml; got 'dot'"):
        mem_sync.export_graph(user_id="ana", format="dot")  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="more than 2 memories"):
        mem_sync.export_graph(user_id="ana", max_nodes=2)
    assert (mem_sync.stats(), [e.id for e in mem_sync.log(1000)]) == before


def test_the_graph_of_a_scope_as_node_link_json(mem_sync: Memory) -> None:
    old, mid, new = _chain(mem_sync)
    mem_sync.add("Bo likes green tea", user_id="bo")  # another scope: not in Ana's graph
    data = json.loads(mem_sync.export_graph(user_id="ana"))
    assert list(data) == ["directed", "multigraph", "graph", "nodes", "edges"]
    assert data["graph"] == {"user_id": "ana", "agent_id": None, "session_id": None}
    assert [n["id"] for n in data["nodes"]] == [old, mid, new]
    assert data["nodes"][0] == {
        "id": old,
        "text": "Ana likes green tea",
        "status": "superseded",
        "area": "main",
        "category": "semantic",
    }
    assert data["edges"] == [
        {"source": mid, "target": old, "kind": "supersedes", "weight": 1.0},
        {"source": new, "target": mid, "kind": "contradicts", "weight": 1.0},
    ]
    empty = json.loads(mem_sync.export_graph(user_id="nobody"))
    assert empty["nodes"] == [] and empty["edges"] == []


def _graphml(text: str) -> tuple[dict[str, dict[str, str]], ET.Element]:
    root = ET.fromstring(text)
    assert root.tag == f"{NS}graphml"
    keys = {k.attrib["id"]: k.attrib for k in root.findall(f"{NS}key")}
    body = root.find(f"{NS}graph")
    assert body is not None and body.attrib["edgedefault"] == "directed"
    return keys, body


def _data(keys: dict[str, dict[str, str]], element: ET.Element, owner: str) -> dict[str, str]:
    values = {}
    for d in element.findall(f"{NS}data"):
        declared = keys[d.attrib["key"]]
        assert declared["for"] == owner
        values[declared["attr.name"]] = d.text or ""
    return values


def test_graphml_parses_and_keeps_text_with_markup(mem_sync: Memory, tmp_path: Path) -> None:
    old, mid, new = _chain(mem_sync)
    odd = mem_sync.add('Ana\'s notes: <b>jazz</b> & "blues"\x07', user_id="ana").memory.id
    text = mem_sync.export_graph(user_id="ana", format="graphml")
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>')
    keys, body = _graphml(text)
    assert _data(keys, body, "graph") == {"user_id": "ana"}
    nodes = {n.attrib["id"]: _data(keys, n, "node") for n in body.findall(f"{NS}node")}
    assert list(nodes) == [old, mid, new, odd]
    assert nodes[odd]["text"] == 'Ana\'s notes: <b>jazz</b> & "blues"\ufffd'  # BEL: no XML
    assert nodes[old] == {
        "label": "Ana likes green tea",
        "text": "Ana likes green tea",
        "status": "superseded",
        "area": "main",
        "category": "semantic",
    }
    edges = [
        (e.attrib["source"], e.attrib["target"], _data(keys, e, "edge"))
        for e in body.findall(f"{NS}edge")
    ]
    assert edges == [
        (mid, old, {"kind": "supersedes", "weight": "1.0"}),
        (new, mid, {"kind": "contradicts", "weight": "1.0"}),
    ]
    if importlib.util.find_spec("networkx") is not None:  # not a dependency of memfold
        import networkx  # type: ignore[import-untyped]

        path = tmp_path / "ana.graphml"
        path.write_text(text, encoding="utf-8")
        read = networkx.read_graphml(path)
        assert set(read.nodes) == set(nodes) and read.number_of_edges() == 2


def test_async_twins(db_path: Path, embedder: LocalEmbedder) -> None:
    async def run() -> None:
        async with AsyncMemory(db_path, embedder=embedder, consolidate="sync") as mem:
            ids = [(await mem.add(t, user_id="ana")).memory.id for t in CHAIN]
            found = await mem.links(ids[2], depth=2, kinds=["contradicts", "supersedes"])
            assert [lk.id for lk in found.links] == [ids[1], ids[0]]
            graph = json.loads(await mem.export_graph(user_id="ana"))
            assert len(graph["nodes"]) == 3 and len(graph["edges"]) == 2
            with pytest.raises(InvalidInput):
                await mem.links(ids[0], depth=0)

    asyncio.run(run())
