"""SQLite side of per-scope keyword search (``memfold.index.bm25``): the scope's
statistics (memory count, average length, documents per term) and BM25 over the FTS5
matches of the scope alone.

BM25 queries name the scope's own terms (``fts_terms`` column, schema migration 12:
each stem of a memory's text as a term of its scope), so FTS5 reads doclists holding
that scope's memories alone; FTS5's ``bm25()`` ranking names the scope's token
(``fts_scope`` column, migration 7) and the words, so FTS5 walks the scope's rows. The
planner is held to FTS5 first (``CROSS JOIN``): left free, it walks the scope's
memories and asks FTS5 about each row.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from memfold.index.bm25 import (
    Bm25Params,
    ScopeStats,
    ScopeStatsCache,
    Stemmer,
    best_matches,
    bm25_rank,
    scope_df,
)
from memfold.model import Area, Scope, Status
from memfold.policy.filters import Filter
from memfold.store.sqlite.connection import Connections
from memfold.store.sqlite.fts import (
    prune_common,
    query_words,
    scope_term,
    scope_terms_match,
    scoped_match,
)
from memfold.store.sqlite.keyword_cache import (
    STRUCTURE_SQL,
    Ranking,
    RankingCache,
    read_statuses,
    statuses_sql,
)


def match_sql(columns: str) -> str:
    """A scope's FTS5 matches (parameters: the match, the scope key); the caller adds
    its filters (" AND ...", on memories m), its order and LIMIT."""
    return (
        f"SELECT {columns} FROM memories_fts f CROSS JOIN memories m ON m.rowid = f.rowid "
        "WHERE f.memories_fts MATCH ? AND m.scope_key = ?"
    )


class ScopedBm25Mixin:
    _q: Callable[..., list[tuple[Any, ...]]]
    _scope_stats: ScopeStatsCache
    _rankings: RankingCache
    _db: Connections
    _stemmer: Stemmer
    _max_df_share: float
    _prune_min_docs: int

    max_seq: Callable[[], int]
    _filters: Callable[..., tuple[str, list[Any]]]

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
        """(id, rank: lower is better) of the best ``k`` keyword matches in the scope.
        ``bm25``: rank by BM25 with the scope's own statistics (``memfold.index.bm25``),
        else by FTS5's ``bm25()``. Either way FTS5 matches within the scope's rows only,
        and words common in the scope are left out by the scope's own counts: what is
        found, and its cost, do not depend on other scopes (FTS5's ``bm25()`` alone
        still weighs terms over the whole table)."""
        key = scope.key()
        terms = self._search_terms(key, query, counted=bm25 is not None)
        if terms is None:
            return []
        words, stats = terms
        where_sql, params = self._filters(None, statuses, areas, where)
        filters = (where_sql.replace(" WHERE ", " AND ", 1), params)
        if bm25 is not None:
            return self._scoped_bm25(key, words, stats, filters, k, bm25)
        match = scoped_match(key, list(words.values()))
        if areas is None and where is None:
            kept = self._kept_ranking(key, match, {s.value for s in statuses}, k)
            if kept is not None:
                return kept
        sql = f"{match_sql('m.id, f.rank')}{filters[0]} ORDER BY f.rank LIMIT ?"
        rows = self._q(sql, [match, key, *params, k])
        return [(str(r[0]), float(r[1])) for r in rows]

    def _kept_ranking(
        self, scope_key: str, match: str, statuses: set[str], k: int
    ) -> list[tuple[str, float]] | None:
        """FTS5's best ``k`` of ``statuses`` (empty: any) through ``keyword_cache``: the
        ranking kept while the index is unchanged, else read anew (``depth`` rows past
        ``k``, any status) and kept. None: ask FTS5 with the filters (the cache is off,
        a transaction is open, or too few rows read pass)."""
        cache = self._rankings
        if cache.max_queries <= 0 or self._db.get().in_transaction:
            return None
        wanted = statuses or {s.value for s in Status}
        kept = cache.get(scope_key, match)
        if kept is not None:
            structure, now = read_statuses(
                self._q(statuses_sql(len(kept.rows)), [mid for mid, _, _ in kept.rows])
            )
            if structure == kept.structure:
                hits = kept.now(now).best(wanted, k)
                if hits is not None:
                    return hits
        found = self._q(STRUCTURE_SQL)
        if not found or not isinstance(found[0][0], bytes):
            return None
        limit = k + cache.depth
        sql = f"{match_sql('m.id, f.rank, m.status')} ORDER BY f.rank LIMIT ?"
        rows = self._q(sql, [match, scope_key, limit])
        ranking = Ranking(
            found[0][0],
            tuple((str(r[0]), float(r[1]), str(r[2])) for r in rows),
            complete=len(rows) < limit,
        )
        cache.put(scope_key, match, ranking)
        return ranking.best(wanted, k)

    def keyword_scores(
        self, scope: Scope, query: str, ids: Sequence[str], *, bm25: Bm25Params
    ) -> dict[str, float]:
        """The BM25 rank (negated score, as ``keyword_search`` with ``bm25`` gives it) of
        each memory of ``ids`` in the scope that holds a query word; the others are left
        out. Hybrid fusion asks it for vector hits the keyword list's top did not reach,
        which would otherwise count as no keyword match at all."""
        key = scope.key()
        terms = self._search_terms(key, query, counted=True) if ids else None
        if terms is None:
            return {}
        words, stats = terms
        marks = ",".join("?" * len(ids))
        # By id only: with the scope in the WHERE clause SQLite walks the scope's index
        # (every memory of the scope) instead of looking the ids up.
        rows = self._q(f"SELECT id, text, scope_key FROM memories WHERE id IN ({marks})", ids)
        ranked = bm25_rank(
            list(words),
            ((str(r[0]), str(r[1])) for r in rows if r[2] == key),
            stemmer=self._stemmer,
            docs=stats.docs,
            avg_chars=stats.avg_chars,
            df=stats.df,
            params=bm25,
        )
        return {mid: -score for mid, score in ranked}

    def _search_terms(
        self, scope_key: str, query: str, *, counted: bool
    ) -> tuple[dict[str, str], ScopeStats] | None:
        """The query's stems worth searching (stem -> the first query word with it) and
        the scope's statistics, with each stem's document count when ``counted`` (or when
        a large scope's common words must be pruned); None when no word is left."""
        words: dict[str, str] = {}
        for word in query_words(query):
            words.setdefault(self._stemmer.stem(word), word)
        if not words:
            return None
        # term counts only where something reads them: BM25, or pruning a large scope
        stats = self._keyword_stats(scope_key, words if counted else {})
        if not counted and stats.docs >= max(self._prune_min_docs, 1):
            stats = self._keyword_stats(scope_key, words)
        kept = prune_common(
            list(words),
            [stats.df.get(stem, 0) for stem in words],
            total_docs=stats.docs,
            max_share=self._max_df_share,
            min_docs=self._prune_min_docs,
        )
        return ({stem: words[stem] for stem in kept}, stats) if kept else None

    def _vocab_counts(self, terms: Sequence[str]) -> dict[str, int]:
        counts: dict[str, int] = {}
        for term in terms:  # one indexed lookup each; IN (...) scans the vocabulary
            for found, docs in self._q(
                "SELECT term, doc FROM memories_vocab WHERE term = ?", (term,)
            ):
                counts[str(found)] = int(docs)
        return counts

    def _keyword_stats(self, scope_key: str, words: dict[str, str]) -> ScopeStats:
        """The scope's statistics, with the document count of each stem of ``words``
        (stem -> a query word with it)."""
        return self._scope_stats.get(
            scope_key,
            list(words),
            seq=self.max_seq(),
            count_scope=lambda: self._count_scope(scope_key),
            count_terms=lambda stems, whole: self._scope_doc_counts(
                scope_key, {s: words[s] for s in stems}, whole
            ),
            scan_scope=lambda: scope_df(
                (
                    str(r[0])
                    for r in self._q("SELECT text FROM memories WHERE scope_key = ?", (scope_key,))
                ),
                self._stemmer,
            ),
        )

    def _scoped_bm25(
        self,
        scope_key: str,
        words: dict[str, str],
        stats: ScopeStats,
        filters: tuple[str, Sequence[Any]],
        k: int,
        bm25: Bm25Params,
    ) -> list[tuple[str, float]]:
        """The best ``k`` memories of the scope by BM25 with its statistics, as (id,
        negated score): lower is better, as FTS5 ranks. ``words``: stem -> query word;
        ``filters``: SQL (" AND ...", on memories m) and its parameters. At most
        ``bm25.pool`` memories are read and scored, the rarest terms' first."""
        extra_sql, extra = filters
        cap = max(k, bm25.pool)
        stems = list(words)
        stemmer, docs, avg, df = self._stemmer, stats.docs, stats.avg_chars, stats.df
        # The scope's own terms (fts_terms, schema 12): FTS5 reads doclists of this
        # scope's memories only. One pass when the scope holds at most `cap` matches
        # (any small scope): every match is scored. FTS5 walks rowids upwards fastest
        # (no order asked).
        rows = self._q(
            f"{match_sql('m.id, m.text')}{extra_sql} LIMIT ?",
            [scope_terms_match(scope_key, stems), scope_key, *extra, cap + 1],
        )
        if len(rows) <= cap:
            texts = ((str(r[0]), str(r[1])) for r in rows)
            ranked = bm25_rank(
                stems, texts, stemmer=stemmer, docs=docs, avg_chars=avg, df=df, params=bm25
            )
            return [(mid, -score) for mid, score in ranked[:k]]
        # More: rarest terms first, newest memories first within a term, until the
        # scores settle the top k or `cap` memories were scored.
        sql = f"{match_sql('m.id, m.text')}{extra_sql} ORDER BY f.rowid DESC LIMIT ?"

        def fetch(stem: str, earlier: Sequence[str], limit: int) -> list[tuple[str, str]]:
            match = scope_terms_match(scope_key, [stem], earlier)
            found = self._q(sql, [match, scope_key, *extra, limit])
            return [(str(r[0]), str(r[1])) for r in found]

        ranked = best_matches(
            stems, fetch, k=k, max_scored=cap,
            stemmer=stemmer, docs=docs, avg_chars=avg, df=df, params=bm25,
        )  # fmt: skip
        return [(mid, -score) for mid, score in ranked]

    def _count_scope(self, scope_key: str) -> tuple[int, float, bool]:
        """(documents, average characters, holds every memory?) of one scope; the last
        from two index probes, not a count of the file."""
        docs, chars = self._q(
            "SELECT count(*), coalesce(avg(length(text)), 0) FROM memories WHERE scope_key = ?",
            (scope_key,),
        )[0]
        other = self._q(
            "SELECT EXISTS (SELECT 1 FROM memories WHERE scope_key < ?) "
            "OR EXISTS (SELECT 1 FROM memories WHERE scope_key > ?)",
            (scope_key, scope_key),
        )[0][0]
        return int(docs), float(chars), not other

    def _scope_doc_counts(
        self, scope_key: str, words: dict[str, str], whole: bool
    ) -> dict[str, int]:
        """Documents of the scope per stem (``words``: stem -> a query word with it):
        the FTS5 vocabulary's count of the stem, of the whole index when the scope holds
        every memory, else of the scope's own term (one lookup, not a walk of matches; a
        scope sharing the scope hash would add its own, 1 in 2^64)."""
        if whole:
            return self._vocab_counts(list(words))
        terms = {scope_term(scope_key, stem): stem for stem in words}
        counts = self._vocab_counts(list(terms))
        return {stem: counts.get(term, 0) for term, stem in terms.items()}
