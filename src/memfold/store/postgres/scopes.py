"""PostgreSQL queries behind id prefixes, scope listing, delete_all and filtered search."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from memfold.model import Area, Scope, Status
from memfold.policy.filters import Filter


def scope_clauses(
    user_id: str | None, agent_id: str | None, session_id: str | None
) -> tuple[list[str], list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    for column, value in (("user_id", user_id), ("agent_id", agent_id), ("session_id", session_id)):
        if value is not None:
            clauses.append(f"{column} = %s")
            params.append(value)
    return clauses, params


class ScopeQueriesMixin:
    _q: Callable[..., list[tuple[Any, ...]]]
    _filters: Callable[..., tuple[str, list[Any]]]

    def ids_with_prefix(self, prefix: str, limit: int) -> list[str]:
        """Up to ``limit`` memory ids (any status) that start with ``prefix``, sorted by
        code point (``COLLATE "C"``, as on SQLite)."""
        rows = self._q(
            'SELECT id FROM memories WHERE starts_with(id, %s) ORDER BY id COLLATE "C" LIMIT %s',
            (prefix, limit),
        )
        return [str(r[0]) for r in rows]

    def scope_counts(
        self,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
    ) -> list[tuple[str, int, int]]:
        """(scope key, active, total) of every scope holding memories whose ids match
        the given ones (None matches any), by user, agent, session (None first)."""
        clauses, params = scope_clauses(user_id, agent_id, session_id)
        where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
        rows = self._q(
            "SELECT scope_key, count(*) FILTER (WHERE status = 'active'), count(*) "
            f"FROM memories{where} GROUP BY scope_key "
            'ORDER BY min(user_id COLLATE "C") NULLS FIRST, '
            'min(agent_id COLLATE "C") NULLS FIRST, min(session_id COLLATE "C") NULLS FIRST',
            params,
        )
        return [(str(k), int(a), int(t)) for k, a, t in rows]

    def active_ids_in(
        self, user_id: str | None, agent_id: str | None, session_id: str | None
    ) -> list[str]:
        """Ids of the active memories whose scope has the given ids (None matches any;
        at least one must be given), oldest first."""
        clauses, params = scope_clauses(user_id, agent_id, session_id)
        if not clauses:
            raise ValueError("a scope needs at least one id")
        rows = self._q(
            f"SELECT id FROM memories WHERE {' AND '.join(clauses)} AND status = 'active' "
            "ORDER BY rowid",
            params,
        )
        return [str(r[0]) for r in rows]

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
