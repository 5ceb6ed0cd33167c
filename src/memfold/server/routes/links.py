"""``/v1/memories/{memory_id}/links`` (a memory's neighbours through the links
consolidation wrote) and ``/v1/graph`` (one scope as node-link JSON or GraphML).

The memory is checked with owned_memory (another scope's id is 404) and the walk
neither lists nor passes through a memory outside the key's scope (may_see); the graph's
scope is checked with request_scope and holds only links between its own memories."""

from __future__ import annotations

import json
from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response

from memfold.engine.links_read import DEFAULT_GRAPH_MAX_NODES, DEFAULT_MAX_NODES, MAX_DEPTH
from memfold.model import JSONDict, MemoryRecord
from memfold.server.auth import MemoryDep, may_see, owned_memory, request_scope
from memfold.server.responses_links import GraphOut, LinksOut
from memfold.server.routes.deps import ReadKey

router = APIRouter(tags=["links"])

KindsQ = Annotated[
    list[str] | None,
    Query(description="follow only these kinds (repeat, or comma-separated); none: all"),
]


@router.get(
    "/memories/{memory_id}/links",
    summary="The memories linked to one (supersedes, derived_from, contradicts...)",
    response_model=LinksOut,
    response_model_exclude_unset=True,
)
def memory_links(
    memory_id: str,
    key: ReadKey,
    memory: MemoryDep,
    kinds: KindsQ = None,
    depth: Annotated[int, Query(description=f"hops to walk, 1..{MAX_DEPTH}")] = 1,
    max_nodes: Annotated[int, Query(description="list at most this many")] = DEFAULT_MAX_NODES,
) -> JSONDict:
    record = owned_memory(key, memory, memory_id)

    def visible(other: MemoryRecord) -> bool:
        return may_see(key, other.scope)

    named = [k for k in kinds or [] if k.strip()]  # "?kinds=" names none: every kind
    found = memory.links(
        record.id, kinds=named or None, depth=depth, max_nodes=max_nodes, may_see=visible
    )
    return found.to_dict()


@router.get(
    "/graph",
    summary="One scope's memories and their links, as JSON (node-link) or GraphML",
    response_model=GraphOut,
    response_model_exclude_unset=True,
    responses={
        200: {
            "description": "format=json: a GraphOut; format=graphml: GraphML (XML)",
            "content": {"application/xml": {"schema": {"type": "string"}}},
        }
    },
)
def graph_of_scope(
    key: ReadKey,
    memory: MemoryDep,
    user_id: Annotated[str | None, Query(description="a key bound to a user: its own")] = None,
    agent_id: Annotated[str | None, Query()] = None,
    session_id: Annotated[str | None, Query()] = None,
    format: Annotated[str, Query(description="json | graphml")] = "json",
    max_nodes: Annotated[int, Query(description="refuse a larger scope")] = (
        DEFAULT_GRAPH_MAX_NODES
    ),
) -> JSONDict | Response:
    scope = request_scope(key, memory, user_id, agent_id, session_id)
    text = memory.export_graph(
        user_id=scope.user_id,
        agent_id=scope.agent_id,
        session_id=scope.session_id,
        format=format,  # type: ignore[arg-type]  # checked by Memory.export_graph
        max_nodes=max_nodes,
    )
    if format == "graphml":
        return Response(text, media_type="application/xml")
    graph: JSONDict = json.loads(text)
    return graph
