"""The links half of ``Memory``: ``links`` (one memory's neighbours) and
``export_graph`` (one scope as node-link JSON or GraphML). A mixin, as memory_read.py
is; the reading itself is engine/links_read.py."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from memfold.engine import links_read
from memfold.engine.links_read import (
    DEFAULT_GRAPH_MAX_NODES,
    DEFAULT_MAX_NODES,
    GraphFormat,
    Neighbourhood,
)
from memfold.errors import NotFound
from memfold.memory_read import ReadMethods
from memfold.model import LinkKind, MemoryRecord


class LinkMethods(ReadMethods):
    def links(
        self,
        memory_id: str,
        *,
        kinds: str | LinkKind | Iterable[str | LinkKind] | None = None,
        depth: int = 1,
        max_nodes: int = DEFAULT_MAX_NODES,
        may_see: Callable[[MemoryRecord], bool] | None = None,
    ) -> Neighbourhood:
        """The memories linked to this one (id or unique prefix), whatever their status
        or its own: each with the link's kind, direction ("out": from this memory),
        weight, and its own id, text and status. ``kinds``: follow only these (None: all).
        ``depth`` (1..links_read.MAX_DEPTH): hops to walk; ``max_nodes``: list at most
        that many memories (``truncated`` says when more were left). ``may_see``: the
        memories the caller may see (the service passes its key's scope); the walk
        neither lists nor passes through another.
        InvalidInput for a bad kind, depth or max_nodes; NotFound for an unknown id."""
        wanted = links_read.clean_kinds(kinds)
        hops = links_read.clean_depth(depth)
        cap = links_read.clean_max_nodes(max_nodes)
        full = self._resolve_id(memory_id)
        root = self.store.get_memory(full)
        if root is None:  # erased since it was resolved
            raise NotFound(f"no memory with id {full!r}")
        return links_read.neighbourhood(
            self.store, root, kinds=wanted, depth=hops, max_nodes=cap, visible=may_see
        )

    def export_graph(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        format: GraphFormat = "json",
        max_nodes: int = DEFAULT_GRAPH_MAX_NODES,
    ) -> str:
        """One scope (exactly these ids; the default user when none) as a graph: its
        memories of every status (id, text, status, area, category) and the links
        between them (kind, weight). ``format``: "json" (networkx's node-link shape,
        ``{"directed", "multigraph", "graph", "nodes", "edges"}``) or "graphml" (XML for
        networkx, yEd, Gephi). InvalidInput for another format, or a scope of more than
        ``max_nodes`` memories (at most links_read.MAX_NODES)."""
        fmt = links_read.clean_format(format)
        cap = links_read.clean_max_nodes(max_nodes)
        scope = self._scope(user_id, agent_id, session_id)
        graph = links_read.scope_graph(self.store, scope, max_nodes=cap)
        return links_read.render_graph(graph, fmt)
