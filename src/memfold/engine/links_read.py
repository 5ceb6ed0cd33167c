"""Reading the links consolidation writes (``supersedes``, ``derived_from``,
``contradicts``, ``updates``, ``association``, ``related``): one memory's neighbourhood,
walked breadth first through ``store.links_for``, and one scope as a graph, written as
node-link JSON or as GraphML (networkx, yEd, Gephi). Reads only; nothing is written.

Links are read whatever the status of the memories at either end: a superseded memory
keeps the link to what superseded it. A link whose other end is gone (erased) is left
out, and so is one whose other end the caller may not see (``visible``): the walk never
passes through such a memory.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from memfold.errors import InvalidInput
from memfold.model import JSONDict, Link, LinkKind, MemoryRecord, Scope, Status
from memfold.policy.validate import clean_int
from memfold.store.base import Store

#: The deepest walk ``links`` takes (depth 1: the memory's own links).
MAX_DEPTH = 5
#: The memories a walk lists at most unless told otherwise (the root not counted).
DEFAULT_MAX_NODES = 100
#: The most ``max_nodes`` may be, for a walk and for a graph.
MAX_NODES = 10_000
#: The memories a scope's graph holds at most unless told otherwise.
DEFAULT_GRAPH_MAX_NODES = 5_000
GRAPH_FORMATS = ("json", "graphml")
# GraphML nodes carry a label (Gephi shows it) cut to this many characters.
LABEL_CHARS = 60
# Ids per links_for / get_memories call.
_BATCH = 500
# Characters XML 1.0 cannot hold at all (not even as a character reference).
_NOT_XML = re.compile("[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_GRAPHML_NS = "http://graphml.graphdrawing.org/xmlns"

Direction = Literal["out", "in"]
GraphFormat = Literal["json", "graphml"]
Visible = Callable[[MemoryRecord], bool]
LinkKey = tuple[str, str, LinkKind]


@dataclass(frozen=True, slots=True)
class LinkedMemory:
    """One link of a walk and the memory at its far end. ``direction``: "out" when the
    link goes from ``via`` to this memory (``via`` supersedes it, was derived from it...),
    "in" when it comes from this memory to ``via``. ``depth``: 1 for the root's own links."""

    id: str
    kind: LinkKind
    direction: Direction
    weight: float
    text: str
    status: Status
    depth: int
    via: str
    created_at: datetime

    def to_dict(self) -> JSONDict:
        return {
            "id": self.id,
            "kind": self.kind.value,
            "direction": self.direction,
            "weight": self.weight,
            "text": self.text,
            "status": self.status.value,
            "depth": self.depth,
            "via": self.via,
            "created_at": self.created_at.isoformat(),
        }


@dataclass(slots=True)
class Neighbourhood:
    """The links around memory ``id``, nearest first. ``truncated``: ``max_nodes`` was
    reached and some memories further out were left unlisted."""

    id: str
    links: list[LinkedMemory] = field(default_factory=list)
    truncated: bool = False

    def to_dict(self) -> JSONDict:
        return {
            "id": self.id,
            "links": [lk.to_dict() for lk in self.links],
            "truncated": self.truncated,
        }


@dataclass(slots=True)
class Graph:
    """One scope's memories (any status) and the links between them."""

    scope: Scope
    nodes: list[MemoryRecord]
    edges: list[Link]

    def to_dict(self) -> JSONDict:
        """networkx's node-link shape: ``node_link_graph(data, edges="edges")`` reads it."""
        return {
            "directed": True,
            "multigraph": True,
            "graph": self.scope.as_dict(),
            "nodes": [_node(r) for r in self.nodes],
            "edges": [_edge(lk) for lk in self.edges],
        }


# input ---------------------------------------------------------------------------------


def clean_kinds(kinds: object) -> frozenset[LinkKind] | None:
    """None (every kind), or the kinds named: a string (commas allowed between kinds)
    or a list of strings. InvalidInput for an empty list or an unknown kind."""
    if kinds is None:
        return None
    if isinstance(kinds, str | LinkKind):
        values: list[object] = [kinds]
    elif isinstance(kinds, Iterable):
        values = list(kinds)
    else:
        raise InvalidInput(f"kinds must be a list of link kinds, got {type(kinds).__name__}")
    names = [p.strip() for v in values for p in _parts(v)]
    if not names or not all(names):
        raise InvalidInput(f"kinds must name at least one link kind: {_kind_names()}")
    unknown = [n for n in names if n not in LinkKind._value2member_map_]
    if unknown:
        raise InvalidInput(f"unknown link kind {unknown[0]!r}: kinds are {_kind_names()}")
    return frozenset(LinkKind(n) for n in names)


def _parts(value: object) -> list[str]:
    if isinstance(value, LinkKind):
        return [value.value]
    if not isinstance(value, str):
        raise InvalidInput(f"a link kind must be a string, got {type(value).__name__}")
    return value.split(",")


def _kind_names() -> str:
    return ", ".join(k.value for k in LinkKind)


def clean_depth(depth: object) -> int:
    return clean_int(depth, "depth", minimum=1, maximum=MAX_DEPTH)


def clean_max_nodes(max_nodes: object) -> int:
    return clean_int(max_nodes, "max_nodes", minimum=1, maximum=MAX_NODES)


def clean_format(value: object) -> GraphFormat:
    if value == "json":
        return "json"
    if value == "graphml":
        return "graphml"
    raise InvalidInput(f"format must be one of {', '.join(GRAPH_FORMATS)}; got {value!r}")


# one memory's neighbourhood -------------------------------------------------------------


def links_of(store: Store, ids: Collection[str]) -> list[Link]:
    """Every link touching ``ids``, each once, in creation order (the same order on
    every backend)."""
    wanted = list(ids)
    found: dict[LinkKey, Link] = {}
    for start in range(0, len(wanted), _BATCH):
        for lk in store.links_for(wanted[start : start + _BATCH]):
            found[(lk.src, lk.dst, lk.kind)] = lk
    return sorted(found.values(), key=lambda lk: (lk.created_at, lk.src, lk.dst, lk.kind.value))


def _records(store: Store, ids: Collection[str]) -> dict[str, MemoryRecord]:
    wanted = list(ids)
    found: dict[str, MemoryRecord] = {}
    for start in range(0, len(wanted), _BATCH):
        found.update(store.get_memories(wanted[start : start + _BATCH]))
    return found


def neighbourhood(
    store: Store,
    root: MemoryRecord,
    *,
    kinds: frozenset[LinkKind] | None = None,
    depth: int = 1,
    max_nodes: int = DEFAULT_MAX_NODES,
    visible: Visible | None = None,
) -> Neighbourhood:
    """The links around ``root`` out to ``depth`` hops, along ``kinds`` only (None:
    all), listing at most ``max_nodes`` memories; inputs already checked (clean_*)."""
    walk = _Walk(store, kinds, max_nodes, visible, {root.id: root})
    result = Neighbourhood(root.id)
    frontier = [root.id]
    for level in range(1, depth + 1):
        if not frontier:
            break
        found, frontier = walk.step(frontier, level)
        result.links.extend(found)
    result.truncated = walk.truncated
    return result


@dataclass
class _Walk:
    store: Store
    kinds: frozenset[LinkKind] | None
    max_nodes: int
    visible: Visible | None
    seen: dict[str, MemoryRecord]
    done: set[LinkKey] = field(default_factory=set)
    truncated: bool = False

    def step(self, frontier: Sequence[str], level: int) -> tuple[list[LinkedMemory], list[str]]:
        """The links of one level, and the memories newly reached (the next frontier)."""
        near_ids = set(frontier)
        links = [
            lk
            for lk in links_of(self.store, near_ids)
            if (self.kinds is None or lk.kind in self.kinds)
            and (lk.src, lk.dst, lk.kind) not in self.done
        ]
        far_ids = {lk.dst if lk.src in near_ids else lk.src for lk in links}
        stored = _records(self.store, far_ids - self.seen.keys())
        found: list[LinkedMemory] = []
        reached: list[str] = []
        for lk in links:
            near, far = (lk.src, lk.dst) if lk.src in near_ids else (lk.dst, lk.src)
            record = self.seen.get(far) or stored.get(far)
            if record is None or (self.visible is not None and not self.visible(record)):
                continue  # erased, or not the caller's to see
            if far not in self.seen:
                if len(self.seen) > self.max_nodes:  # the root is not counted
                    self.truncated = True
                    continue
                self.seen[far] = record
                reached.append(far)
            self.done.add((lk.src, lk.dst, lk.kind))
            found.append(_linked(lk, record, near, level))
        return found, reached


def _linked(lk: Link, record: MemoryRecord, near: str, level: int) -> LinkedMemory:
    return LinkedMemory(
        id=record.id,
        kind=lk.kind,
        direction="out" if lk.src == near else "in",
        weight=lk.weight,
        text=record.text,
        status=record.status,
        depth=level,
        via=near,
        created_at=lk.created_at,
    )


# one scope as a graph ---------------------------------------------------------------------


def scope_graph(store: Store, scope: Scope, *, max_nodes: int = DEFAULT_GRAPH_MAX_NODES) -> Graph:
    """Every memory of ``scope`` (exactly that scope, any status, oldest first) and the
    links between two of them. InvalidInput when it holds more than ``max_nodes``."""
    records = store.list_memories(scope, limit=max_nodes + 1)
    if len(records) > max_nodes:
        raise InvalidInput(
            f"this scope holds more than {max_nodes} memories (max_nodes); raise max_nodes "
            f"(at most {MAX_NODES}) or use export for the whole store"
        )
    ids = {r.id for r in records}
    edges = [lk for lk in links_of(store, ids) if lk.src in ids and lk.dst in ids]
    return Graph(scope, records, edges)


def _node(record: MemoryRecord) -> JSONDict:
    return {
        "id": record.id,
        "text": record.text,
        "status": record.status.value,
        "area": record.area.value,
        "category": record.category.value,
    }


def _edge(lk: Link) -> JSONDict:
    return {"source": lk.src, "target": lk.dst, "kind": lk.kind.value, "weight": lk.weight}


def render_graph(graph: Graph, fmt: GraphFormat) -> str:
    if fmt == "graphml":
        return to_graphml(graph)
    return json.dumps(graph.to_dict(), ensure_ascii=False)


# GraphML: (for, name, type) of each attribute, in the order of the <key> elements
_KEYS: tuple[tuple[str, str, str], ...] = (
    ("graph", "user_id", "string"),
    ("graph", "agent_id", "string"),
    ("graph", "session_id", "string"),
    ("node", "label", "string"),
    ("node", "text", "string"),
    ("node", "status", "string"),
    ("node", "area", "string"),
    ("node", "category", "string"),
    ("edge", "kind", "string"),
    ("edge", "weight", "double"),
)


def to_graphml(graph: Graph) -> str:
    """GraphML (XML 1.0, UTF-8): the scope's ids on the graph, text, label (the text cut
    to LABEL_CHARS), status, area and category on each node, kind and weight on each
    edge. ElementTree escapes markup; characters XML cannot hold become U+FFFD."""
    ET.register_namespace("", _GRAPHML_NS)
    root = ET.Element(_tag("graphml"))
    for n, (scope, name, kind) in enumerate(_KEYS):
        attrs = {"id": f"d{n}", "for": scope, "attr.name": name, "attr.type": kind}
        ET.SubElement(root, _tag("key"), attrs)
    body = ET.SubElement(root, _tag("graph"), {"id": "G", "edgedefault": "directed"})
    _data(body, "graph", {k: v for k, v in graph.scope.as_dict().items() if v is not None})
    for record in graph.nodes:
        node = ET.SubElement(body, _tag("node"), {"id": record.id})
        values = _node(record)
        values["label"] = _label(record.text)
        _data(node, "node", {k: v for k, v in values.items() if k != "id"})
    for n, lk in enumerate(graph.edges):
        attrs = {"id": f"e{n}", "source": lk.src, "target": lk.dst}
        edge = ET.SubElement(body, _tag("edge"), attrs)
        _data(edge, "edge", {"kind": lk.kind.value, "weight": repr(float(lk.weight))})
    ET.indent(root)
    xml = ET.tostring(root, encoding="unicode")
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{xml}\n'


def _tag(name: str) -> str:
    return f"{{{_GRAPHML_NS}}}{name}"


def _data(parent: ET.Element, scope: str, values: dict[str, object]) -> None:
    for n, (owner, name, _) in enumerate(_KEYS):
        if owner == scope and name in values:
            ET.SubElement(parent, _tag("data"), {"key": f"d{n}"}).text = _xml_text(
                str(values[name])
            )


def _label(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= LABEL_CHARS else flat[: LABEL_CHARS - 1] + "…"


def _xml_text(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)
