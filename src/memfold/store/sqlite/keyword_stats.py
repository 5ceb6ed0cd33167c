"""SQLite side of per-scope BM25 (``memfold.index.bm25``): FTS5 matches re-scored with
the document count, average length and document frequencies of the scope searched."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from memfold.index.bm25 import Bm25Params, ScopeStatsCache, Stemmer, bm25_rank, scope_df


class ScopedBm25Mixin:
    _q: Callable[..., list[tuple[Any, ...]]]
    _scope_stats: ScopeStatsCache
    _stemmer: Stemmer

    max_seq: Callable[[], int]
    _vocab_counts: Callable[[Sequence[str]], dict[str, int]]

    def _scoped_bm25(
        self,
        scope_key: str,
        words: Sequence[str],
        match_sql: str,
        params: Sequence[Any],
        k: int,
        bm25: Bm25Params,
    ) -> list[tuple[str, float]]:
        """The best ``k`` of the first ``bm25.pool`` FTS5 matches (``match_sql`` selects
        id and text, ``params`` end before its LIMIT) by BM25 with the scope's
        statistics, as (id, negated score): lower is better, as FTS5 ranks."""
        rows = self._q(match_sql, [*params, max(k, bm25.pool)])
        if not rows:
            return []
        by_stem = {self._stemmer.stem(w): w for w in words}
        stats = self._scope_stats.get(
            scope_key,
            list(by_stem),
            seq=self.max_seq(),
            count_scope=lambda: self._count_scope(scope_key),
            count_terms=lambda stems, whole: self._scope_doc_counts(
                scope_key, {s: by_stem[s] for s in stems}, whole
            ),
            scan_scope=lambda: scope_df(
                (
                    str(r[0])
                    for r in self._q("SELECT text FROM memories WHERE scope_key = ?", (scope_key,))
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
            "SELECT count(*), coalesce(avg(length(text)), 0) FROM memories WHERE scope_key = ?",
            (scope_key,),
        )[0]
        everything = int(self._q("SELECT count(*) FROM memories")[0][0])
        return int(docs), float(chars), int(docs) == everything

    def _scope_doc_counts(
        self, scope_key: str, words: dict[str, str], whole: bool
    ) -> dict[str, int]:
        """Documents of the scope per stem (``words``: stem -> a query word with it).
        When the scope holds every memory, the FTS5 vocabulary counts are exact."""
        if whole:
            return self._vocab_counts(list(words))
        counts: dict[str, int] = {}
        for stem, word in words.items():
            counts[stem] = int(
                self._q(
                    "SELECT count(*) FROM memories_fts f JOIN memories m ON m.rowid = f.rowid "
                    "WHERE f.memories_fts MATCH ? AND m.scope_key = ?",
                    ('"' + word.replace('"', '""') + '"', scope_key),
                )[0][0]
            )
        return counts
