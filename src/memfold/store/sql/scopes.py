"""Scope queries for both backends: scope listing, a scope's memory ids (delete_all,
erasure) and filtered ids. Finding ids by prefix is each backend's own
(sqlite/scopes.py, postgres/scopes.py): each uses what its index can do."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from memfold.model import Area, Scope, Status
from memfold.policy.filters import Filter
from memfold.store.sql.tables import SQLTables


def scope_clauses(
    user_id: str | None, agent_id: str | None, session_id: str | None
) -> tuple[list[str], list[Any]]:
    """``column = ?`` for each id given, and their parameters (None matches any)."""
    clauses: list[str] = []
    params: list[Any] = []
    for column, value in (("user_id", user_id), ("agent_id", agent_id), ("session_id", session_id)):
        if value is not None:
            clauses.append(f"{column} = ?")
            params.append(value)
    return clauses, params


def _scope_where(
    user_id: str | None, agent_id: str | None, session_id: str | None
) -> tuple[str, list[Any]]:
    clauses, params = scope_clauses(user_id, agent_id, session_id)
    if not clauses:
        raise ValueError("a scope needs at least one id")
    return " AND ".join(clauses), params


class ScopeTables(SQLTables):
    """Queries over scopes (see the module docstring)."""

    # The backend's metadata filter as SQL: a WHERE clause in its own parameter style.
    _filters: Callable[..., tuple[str, list[Any]]]

    def scope_counts(
        self,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
    ) -> list[tuple[str, int, int]]:
        """(scope key, active, total) of every scope holding memories whose ids match
        the given ones (None matches any), by user, agent, session (None first; by code
        point)."""
        clauses, params = scope_clauses(user_id, agent_id, session_id)
        where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
        order = ", ".join(
            f"min({self._dialect.by_code_point(c)}) NULLS FIRST"
            for c in ("user_id", "agent_id", "session_id")
        )
        rows = self._rows(
            "SELECT scope_key, sum(CASE WHEN status = 'active' THEN 1 ELSE 0 END), count(*) "
            f"FROM memories{where} GROUP BY scope_key ORDER BY {order}",
            params,
        )
        return [(str(k), int(a), int(t)) for k, a, t in rows]

    def active_ids_in(
        self, user_id: str | None, agent_id: str | None, session_id: str | None
    ) -> list[str]:
        """Ids of the active memories whose scope has the given ids (None matches any;
        at least one must be given), oldest first."""
        where, params = _scope_where(user_id, agent_id, session_id)
        rows = self._rows(
            f"SELECT id FROM memories WHERE {where} AND status = 'active' ORDER BY rowid",
            params,
        )
        return [str(r[0]) for r in rows]

    def scope_memory_ids(
        self, user_id: str | None, agent_id: str | None, session_id: str | None
    ) -> list[str]:
        """Ids of every memory (any status) whose scope has the given ids; an id left
        None matches any value (at least one must be given)."""
        where, params = _scope_where(user_id, agent_id, session_id)
        return [str(r[0]) for r in self._rows(f"SELECT id FROM memories WHERE {where}", params)]

    def matching_ids(
        self,
        scope: Scope,
        *,
        statuses: Sequence[Status],
        areas: Sequence[Area] | None = None,
        where: Filter | None = None,
    ) -> set[str]:
        """Ids of one scope's memories with these statuses and areas that pass the
        metadata filter ``where`` (a ``policy.filters.Filter``)."""
        sql, params = self._filters(scope, statuses, areas, where)
        return {str(r[0]) for r in self._q(f"SELECT id FROM memories{sql}", params)}
