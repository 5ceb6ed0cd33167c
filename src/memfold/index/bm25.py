"""BM25 with the statistics of the scope searched, not of the whole table.

FTS5's built-in ``bm25()`` counts document frequencies and the average length over
every row of the table. In a store shared by many users a user's own frequent words
(their name, their pet's name) are rare store-wide, so they weigh like rare words in
that user's searches, and one user's ranking moves when another user writes. Here the
scope's FTS5 matches are scored with the scope's own document count, average length and
per-term document frequencies (``ScopeStatsCache`` keeps them per scope until the store
has changed by a share of the scope's size): all of them when they are few
(``bm25_rank``), else the rarest terms' first until the top k is certain
(``best_matches``).

Terms are Porter stems of lowercase word tokens, the same stems the ``porter
unicode61`` FTS5 tokenizer indexes; lengths are counted in characters (only the ratio
of a memory's length to the scope's average enters BM25). A pair of query neighbours
found close together in a text ("dance studio", "pottery class"; or any two query
words, ``Bm25Params.proximity_any_pair``) adds a bonus (``Bm25Params.proximity``):
BM25 alone scores a text holding both words far apart the same.
"""

from __future__ import annotations

import heapq
import itertools
import math
import re
import threading
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import snowballstemmer

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
_STEM_CACHE_MAX = 200_000


@dataclass(frozen=True)
class Bm25Params:
    """``k1``: term-frequency saturation; ``b``: length normalization (0 none, 1 full);
    ``pool``: at most this many of the scope's matches are scored (all when fewer);
    ``proximity``: two query terms that stand at most ``proximity_window`` terms apart
    in a text add ``proximity`` x the lower of their two weights (idf) to its score (0:
    no bonus); ``proximity_any_pair``: any two of the query's terms, else only two next
    to each other in the query (a statement orders its words unlike the question:
    "Where did Caroline move from?", "Caroline moved here from Sweden")."""

    k1: float
    b: float
    pool: int
    proximity: float = 0.0
    proximity_window: int = 3
    proximity_any_pair: bool = False


class Stemmer:
    """Porter stems of lowercase tokens, memoized (thread-safe: a dict read or write
    is atomic; the snowball stemmer object is not shared between threads)."""

    def __init__(self) -> None:
        self._cache: dict[str, str] = {}
        self._local = threading.local()

    def stem(self, word: str) -> str:
        found = self._cache.get(word)
        if found is None:
            stemmer = getattr(self._local, "stemmer", None)
            if stemmer is None:
                stemmer = self._local.stemmer = snowballstemmer.stemmer("porter")
            found = stemmer.stemWord(word)
            if len(self._cache) >= _STEM_CACHE_MAX:
                self._cache.clear()
            self._cache[word] = found
        return found

    def terms(self, text: str) -> list[str]:
        """The stems of a text's tokens, in order (diacritics removed, as unicode61)."""
        lowered = text.lower()
        if not lowered.isascii():
            decomposed = unicodedata.normalize("NFKD", lowered)
            lowered = "".join(c for c in decomposed if not unicodedata.combining(c))
        return [self.stem(w) for w in _TOKEN.findall(lowered)]


def idf(docs: int, df: int) -> float:
    """log(1 + (N - df + 0.5) / (df + 0.5)): positive however common the term."""
    return math.log(1.0 + (docs - df + 0.5) / (df + 0.5))


def scope_df(texts: Iterable[str], stemmer: Stemmer) -> dict[str, int]:
    """Documents per stem among ``texts``."""
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(set(stemmer.terms(text)))
    return dict(counts)


class _Scorer:
    """BM25 of texts for fixed query stems and scope statistics."""

    def __init__(
        self,
        query: Sequence[str],
        *,
        stemmer: Stemmer,
        docs: int,
        avg_chars: float,
        df: dict[str, int],
        params: Bm25Params,
    ) -> None:
        # (df may exceed docs for a moment: counted at different times)
        self.weights = {t: idf(max(docs, df.get(t, 0)), df.get(t, 0)) for t in query}
        self._stemmer = stemmer
        self._k1, self._b = params.k1, params.b
        self._avg = max(avg_chars, 1.0)
        # (stem, another query stem, bonus when the two stand close in a text)
        pairs = (
            itertools.combinations(query, 2)
            if params.proximity_any_pair
            else itertools.pairwise(query)
        )
        self.pairs = (
            [(a, b, params.proximity * min(self.weights[a], self.weights[b])) for a, b in pairs]
            if params.proximity > 0.0
            else []
        )
        self._window = params.proximity_window

    def bound(self, stem: str) -> float:
        """The most one occurrence-saturated term can add: idf * (k1 + 1)."""
        return self.weights[stem] * (self._k1 + 1.0)

    def pair_bound(self, stems: Iterable[str]) -> float:
        """The most the proximity bonus can add to a text holding no stem but ``stems``."""
        held = set(stems)
        return sum(bonus for a, b, bonus in self.pairs if a in held and b in held)

    def score(self, text: str) -> float:
        """0.0 for a text without a query stem."""
        weights, k1 = self.weights, self._k1
        terms = self._stemmer.terms(text)
        counts = Counter(t for t in terms if t in weights)
        if not counts:
            return 0.0
        norm = k1 * (1.0 - self._b + self._b * len(text) / self._avg)
        score = sum(weights[t] * tf * (k1 + 1.0) / (tf + norm) for t, tf in counts.items())
        if self.pairs and len(counts) > 1:
            score += self._proximity(terms)
        return score

    def _proximity(self, terms: Sequence[str]) -> float:
        """The bonus of the query's neighbouring stems that stand close in ``terms``."""
        positions: dict[str, list[int]] = {}
        for i, term in enumerate(terms):
            if term in self.weights:
                positions.setdefault(term, []).append(i)
        bonus = 0.0
        for a, b, weight in self.pairs:
            at_a, at_b = positions.get(a), positions.get(b)
            if at_a and at_b and any(abs(i - j) <= self._window for i in at_a for j in at_b):
                bonus += weight
        return bonus


def bm25_rank(
    query: Sequence[str],
    texts: Iterable[tuple[str, str]],
    *,
    stemmer: Stemmer,
    docs: int,
    avg_chars: float,
    df: dict[str, int],
    params: Bm25Params,
) -> list[tuple[str, float]]:
    """(id, BM25 score) of each text with a query stem, best first (ties: the input
    order). ``query``: distinct stems; ``df``: their document counts in the scope."""
    scorer = _Scorer(query, stemmer=stemmer, docs=docs, avg_chars=avg_chars, df=df, params=params)
    scored = [(mid, scorer.score(text)) for mid, text in texts]
    hits = [(mid, score) for mid, score in scored if score > 0.0]
    hits.sort(key=lambda kv: -kv[1])
    return hits


def best_matches(
    query: Sequence[str],
    fetch: Callable[[str, Sequence[str], int], Iterable[tuple[str, str]]],
    *,
    k: int,
    max_scored: int,
    stemmer: Stemmer,
    docs: int,
    avg_chars: float,
    df: dict[str, int],
    params: Bm25Params,
) -> list[tuple[str, float]]:
    """The ``k`` best (id, BM25 score) among the memories holding a query stem, best
    first (ties: the order fetched), reading as few of them as the scores allow
    (MaxScore): stems are taken rarest first; ``fetch(stem, earlier, limit)`` yields
    (id, text) of up to ``limit`` memories holding ``stem`` and none of ``earlier``.
    Once the k-th best score beats the most the stems not yet read could add together,
    no unread memory can enter the top ``k``: the answer is exact. At most
    ``max_scored`` memories are scored (then the best of those read is returned).
    Everything here depends on the scope's statistics alone, never on other scopes."""
    scorer = _Scorer(query, stemmer=stemmer, docs=docs, avg_chars=avg_chars, df=df, params=params)
    order = sorted(query, key=lambda t: (-scorer.weights[t], t))
    # rest[i]: the most a memory holding none of order[:i] can score (its stems, and
    # the proximity bonus of query neighbours both among them)
    rest = [0.0] * (len(order) + 1)
    terms_bound = 0.0
    for i in range(len(order) - 1, -1, -1):
        terms_bound += scorer.bound(order[i])
        rest[i] = terms_bound + scorer.pair_bound(order[i:])
    scored: list[tuple[str, float]] = []
    read = 0
    for i, stem in enumerate(order):
        if read >= max_scored:
            break
        for memory_id, text in fetch(stem, order[:i], max_scored - read):
            read += 1
            score = scorer.score(text)
            if score > 0.0:
                scored.append((memory_id, score))
        if len(scored) >= k and heapq.nlargest(k, (s for _, s in scored))[-1] > rest[i + 1]:
            break
    scored.sort(key=lambda kv: -kv[1])
    return scored[:k]


@dataclass
class ScopeStats:
    """One scope's document count and average length in characters, counted at store
    change number ``seq``; ``whole``: the scope holds every memory of the store;
    ``df``: per-stem document counts, all of them counted at once for a small scope,
    else filled as terms come."""

    docs: int
    avg_chars: float
    whole: bool
    seq: int
    df: dict[str, int] = field(default_factory=dict)
    complete: bool = False  # df holds every stem of the scope: a missing one is 0


class ScopeStatsCache:
    """Per-scope statistics, recounted once the store has changed (inserts, updates,
    deletes: its change number ``seq`` advanced) by more than ``refresh_share`` of the
    scope's size, and at most ``max_scopes`` scopes kept (the least recently counted
    go first)."""

    def __init__(self, refresh_share: float, scan_max_docs: int, max_scopes: int = 64) -> None:
        self._refresh_share = refresh_share
        self._scan_max_docs = scan_max_docs
        self._max_scopes = max_scopes
        self._scopes: dict[str, ScopeStats] = {}
        self._lock = threading.Lock()

    def get(
        self,
        scope_key: str,
        stems: Sequence[str],
        *,
        seq: int,
        count_scope: Callable[[], tuple[int, float, bool]],
        count_terms: Callable[[Sequence[str], bool], dict[str, int]],
        scan_scope: Callable[[], dict[str, int]],
    ) -> ScopeStats:
        """The scope's statistics, ``df`` counting each of ``stems`` (distinct).
        ``count_scope``: (documents, average characters, whole store?);
        ``count_terms(stems, whole)``: documents of the scope per stem (missing: 0);
        ``scan_scope``: every stem's documents, read from the scope's texts: used
        instead for a scope of at most ``scan_max_docs`` that is not the whole store
        (one pass over a small scope beats counting each term over the whole index)."""
        with self._lock:
            stats = self._scopes.get(scope_key)
            if stats is None or seq - stats.seq > self._refresh_share * max(stats.docs, 1):
                stats = ScopeStats(*count_scope(), seq=seq)
                if not stats.whole and stats.docs <= self._scan_max_docs:
                    stats.df, stats.complete = scan_scope(), True
                self._scopes.pop(scope_key, None)
                while len(self._scopes) >= self._max_scopes:
                    self._scopes.pop(next(iter(self._scopes)))
                self._scopes[scope_key] = stats
            missing = [] if stats.complete else [s for s in stems if s not in stats.df]
            if missing:
                found = count_terms(missing, stats.whole)
                for stem in missing:
                    stats.df[stem] = found.get(stem, 0)
            return stats
