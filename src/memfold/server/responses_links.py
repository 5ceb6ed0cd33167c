"""Response bodies of ``/v1/memories/{memory_id}/links`` and ``/v1/graph`` (see
responses.py: how the routes use them). Each declares the keys its record's
``to_dict()`` sends (engine/links_read.py), in their order."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from memfold.model import Area, Category, LinkKind, Status
from memfold.server.responses import Number, Shape

# one memory's links ----------------------------------------------------------------------


class LinkedMemoryOut(Shape):
    """One link and the memory at its far end (``LinkedMemory.to_dict()``)."""

    id: str = Field(description="the linked memory")
    kind: LinkKind
    direction: Literal["out", "in"] = Field(
        description="out: the link goes from `via` to this memory; in: from it to `via`"
    )
    weight: Number
    text: str
    status: Status
    depth: int = Field(description="hops from the memory asked about (1: its own links)")
    via: str = Field(description="the memory at the near end of the link")
    created_at: str = Field(description="when the link was written (ISO date/time)")


class LinksOut(Shape):
    """The links around one memory, nearest first (``Neighbourhood.to_dict()``)."""

    id: str
    links: list[LinkedMemoryOut]
    truncated: bool = Field(description="true: max_nodes was reached, more were left out")


# one scope as a graph ----------------------------------------------------------------------


class GraphScopeOut(Shape):
    user_id: str | None
    agent_id: str | None
    session_id: str | None


class GraphNodeOut(Shape):
    id: str
    text: str
    status: Status
    area: Area
    category: Category


class GraphEdgeOut(Shape):
    source: str = Field(description="the link's src memory")
    target: str = Field(description="the link's dst memory")
    kind: LinkKind
    weight: Number


class GraphOut(Shape):
    """A scope's memories and the links between them, in networkx's node-link shape
    (``networkx.node_link_graph(body, edges="edges")``)."""

    directed: bool
    multigraph: bool
    graph: GraphScopeOut
    nodes: list[GraphNodeOut]
    edges: list[GraphEdgeOut]
