"""Keyword search on PostgreSQL: the generated ``tsvector`` column (English stemming, GIN
index), restricted to the scope searched (a token of the scope in the ``tsvector``: the GIN
index intersects it with the terms), ranked by BM25 with the scope's own
statistics (``memfold.index.bm25``, as on SQLite) or by ``ts_rank``.

Query words are the same as on SQLite (``store/sqlite/fts.py``: lowercase, stopwords
out), ORed; each is quoted, so no tsquery syntax leaks through. Unlike SQLite, terms
common to most memories are not pruned: the GIN index keeps them cheap enough.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any

from memfold.index.bm25 import Bm25Params, ScopeStatsCache, Stemmer, bm25_rank, scope_df
from memfold.model import Area, Scope, Status
from memfold.policy.filters import Filter
from memfold.store.sqlite.fts import query_words


def scope_token(scope_key: str) -> str:
    """The scope's word in ``tsv`` (schema migration 2 computes it the same way)."""
    return "k" + hashlib.md5(scope_key.encode()).hexdigest()


def ts_query(words: Sequence[str]) -> str:
    """An OR tsquery of ``words`` (``\\w+`` words: no quote or operator inside)."""
    return " | ".join("'" + w.replace("'", "''").replace("\\", "\\\\") + "'" for w in words)


_MATCH = " WHERE numnode(q) > 0 AND tsv @@ (to_tsquery('simple', %s) && q) AND "


class KeywordSearchMixin:
    _q: Callable[..., list[tuple[Any, ...]]]
    _filters: Callable[..., tuple[str, list[Any]]]
    _scope_stats: ScopeStatsCache
    _stemmer: Stemmer
    max_seq: Callable[[], int]

    def keyword_search(
        self,
        scope: Scope,
        query: str,
        k: int,
        *,
        statuses: Sequence[Status],
        areas: Sequence[Area] | None = None,
        where: Filter | None = None,
        bm25: Bm25Params | None = None,
    ) -> list[tuple[str, float]]:
        """(id, rank: lower is better) of the best ``k`` keyword matches in ``scope``.
        ``bm25``: the first ``bm25.pool`` matches by ``ts_rank`` re-scored by BM25 with
        the scope's statistics; else the negated ``ts_rank``."""
        words = query_words(query)
        if not words:
            return []
        where_sql, params = self._filters(scope, statuses, areas, where)
        # q: the terms (empty when all are stop words: then nothing matches); the GIN
        # index answers `scope token & terms`, the scope's rows only.
        sql = (
            f"SELECT id, {'text' if bm25 else '-ts_rank(tsv, q)'} "
            "FROM memories, to_tsquery('english', %s) AS q"
            f"{where_sql.replace(' WHERE ', _MATCH, 1)} "
            "ORDER BY ts_rank(tsv, q) DESC, rowid LIMIT %s"
        )
        head = [ts_query(words), scope_token(scope.key())]
        if bm25 is None:
            return [(str(r[0]), float(r[1])) for r in self._q(sql, [*head, *params, k])]
        rows = self._q(sql, [*head, *params, max(k, bm25.pool)])
        if not rows:
            return []
        return self._scoped_bm25(scope.key(), words, rows, k, bm25)

    def keyword_scores(
        self, scope: Scope, query: str, ids: Sequence[str], *, bm25: Bm25Params
    ) -> dict[str, float]:
        """The BM25 rank (negated score, as ``keyword_search`` with ``bm25``) of each
        memory of ``ids`` in the scope that holds a query word; the others are left out
        (hybrid fusion asks for vector hits the keyword list's top did not reach)."""
        words = query_words(query)
        if not words or not ids:
            return {}
        rows = self._q(
            "SELECT id, text FROM memories WHERE scope_key = %s AND id = ANY(%s)",
            (scope.key(), list(ids)),
        )
        return dict(self._scoped_bm25(scope.key(), words, rows, len(rows), bm25))

    def _scoped_bm25(
        self,
        scope_key: str,
        words: Sequence[str],
        rows: Sequence[tuple[Any, ...]],
        k: int,
        bm25: Bm25Params,
    ) -> list[tuple[str, float]]:
        by_stem = {self._stemmer.stem(w): w for w in words}
        stats = self._scope_stats.get(
            scope_key,
            list(by_stem),
            seq=self.max_seq(),
            count_scope=lambda: self._count_scope(scope_key),
            count_terms=lambda stems, whole: {
                s: self._scope_term_docs(scope_key, by_stem[s]) for s in stems
            },
            scan_scope=lambda: scope_df(
                (
                    str(r[0])
                    for r in self._q("SELECT text FROM memories WHERE scope_key = %s", (scope_key,))
                ),
                self._stemmer,
            ),
        )
        ranked = bm25_rank(
            list(by_stem),
            ((str(r[0]), str(r[1])) for r in rows),
            stemmer=self._stemmer,
            docs=stats.docs,
            avg_chars=stats.avg_chars,
            df=stats.df,
            params=bm25,
        )
        return [(mid, -score) for mid, score in ranked[:k]]

    def _count_scope(self, scope_key: str) -> tuple[int, float, bool]:
        """(documents, average characters, holds every memory?) of one scope."""
        docs, chars = self._q(
            "SELECT count(*), coalesce(avg(length(text)), 0) FROM memories WHERE scope_key = %s",
            (scope_key,),
        )[0]
        everything = int(self._q("SELECT count(*) FROM memories")[0][0])
        return int(docs), float(chars), int(docs) == everything

    def _scope_term_docs(self, scope_key: str, word: str) -> int:
        rows = self._q(
            f"SELECT count(*) FROM memories, to_tsquery('english', %s) AS q{_MATCH}scope_key = %s",
            (ts_query([word]), scope_token(scope_key), scope_key),
        )
        return int(rows[0][0])
