"""The keyword side's proximity bonus: query neighbours that stand close in a memory
("dance studio") outrank the same words far apart, in BM25 by itself, in the MaxScore
search that stops reading early, and through search on both backends."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from memfold import Memory, Settings
from memfold.embed.local import LocalEmbedder
from memfold.index.bm25 import Bm25Params, Stemmer, best_matches, bm25_rank

# Same words, same length: only the distance between "dance" and "studio" differs.
CLOSE = "Jon: the dance studio plans for spring"
APART = "Jon: the dance plans for spring studio"
QUERY = "dance studio"


def ranked(params: Bm25Params) -> list[tuple[str, float]]:
    stemmer = Stemmer()
    return bm25_rank(
        stemmer.terms(QUERY),
        [("apart", APART), ("close", CLOSE)],
        stemmer=stemmer,
        docs=100,
        avg_chars=40.0,
        df={"danc": 10, "studio": 10},
        params=params,
    )


def test_neighbours_close_together_score_higher() -> None:
    plain = ranked(Bm25Params(1.2, 0.3, 100))
    assert plain[0][1] == pytest.approx(plain[1][1])  # BM25 alone: a tie
    near = ranked(Bm25Params(1.2, 0.3, 100, proximity=1.0, proximity_window=3))
    assert [mid for mid, _ in near] == ["close", "apart"]
    assert near[1][1] == pytest.approx(plain[1][1])  # five words apart: no bonus
    # a wider window reaches the far pair too
    wide = ranked(Bm25Params(1.2, 0.3, 100, proximity=1.0, proximity_window=5))
    assert wide[0][1] == pytest.approx(wide[1][1])


def test_early_stopping_counts_the_bonus_of_unread_terms() -> None:
    """MaxScore reads the rarest term's memories first and stops once no unread memory
    can beat them: the bound must include the proximity bonus of two common terms that
    stand together in a memory not read yet."""
    stemmer = Stemmer()
    texts = {
        "rare": "zeppelin",
        "pair": "dance studio",
        **{f"filler{i}": f"dance lesson {i}" for i in range(5)},
    }
    query = stemmer.terms("dance studio zeppelin")
    # k1 = 0 makes each term score exactly its bound (idf): the zeppelin memory beats
    # what "dance" and "studio" add alone, but not with their proximity bonus.
    params = Bm25Params(0.0, 0.0, 100, proximity=5.0, proximity_window=3)
    df = {"danc": 300, "studio": 300, "zeppelin": 1}

    def fetch(stem: str, earlier: Sequence[str], limit: int) -> list[tuple[str, str]]:
        found = []
        for mid, text in texts.items():
            terms = set(stemmer.terms(text))
            if stem in terms and not terms & set(earlier):
                found.append((mid, text))
        return found[:limit]

    exact = bm25_rank(
        query, texts.items(), stemmer=stemmer, docs=1000, avg_chars=12.0, df=df, params=params
    )
    assert exact[0][0] == "pair"
    early = best_matches(
        query, fetch, k=1, max_scored=100,
        stemmer=stemmer, docs=1000, avg_chars=12.0, df=df, params=params,
    )  # fmt: skip
    assert early == [exact[0]]


@pytest.mark.parametrize("proximity", [0.0, 1.0])
def test_search_ranks_by_the_bonus_on_each_backend(
    request: pytest.FixtureRequest, backend: str, embedder: LocalEmbedder, proximity: float
) -> None:
    settings = Settings.model_validate(
        {"search": {"keyword_proximity": proximity, "newer_first": False}}
    )
    kw = {"embedder": embedder, "consolidate": "off", "settings": settings}
    if backend == "postgres":
        mem = Memory(url=request.getfixturevalue("pg_url"), **kw)  # type: ignore[arg-type]
    else:
        mem = Memory(request.getfixturevalue("db_path"), **kw)  # type: ignore[arg-type]
    with mem:
        mem.add_many([{"text": t, "user_id": "jon"} for t in (APART, CLOSE)])
        mem.add_many([{"text": f"Gina: lunch note {i}", "user_id": "jon"} for i in range(6)])
        hits = mem.search(QUERY, user_id="jon", k=2, mode="keyword")
        scores = {h.memory.text: h.score for h in hits}
    assert set(scores) == {CLOSE, APART}
    if proximity:
        assert scores[CLOSE] > scores[APART]
    else:
        assert scores[CLOSE] == pytest.approx(scores[APART])


# "dance" and "studio" are not neighbours in this query ("lessons" stands between)
SPLIT_QUERY = "dance lessons studio"


def test_any_two_query_words_close_together_count_when_asked() -> None:
    stemmer = Stemmer()

    def scores(any_pair: bool) -> dict[str, float]:
        params = Bm25Params(1.2, 0.3, 100, proximity=1.0, proximity_any_pair=any_pair)
        return dict(
            bm25_rank(
                stemmer.terms(SPLIT_QUERY),
                [("apart", APART), ("close", CLOSE)],
                stemmer=stemmer,
                docs=100,
                avg_chars=40.0,
                df={"danc": 10, "lesson": 10, "studio": 10},
                params=params,
            )
        )

    neighbours = scores(any_pair=False)
    assert neighbours["close"] == pytest.approx(neighbours["apart"])
    any_pair = scores(any_pair=True)
    assert any_pair["close"] > any_pair["apart"]
    assert any_pair["apart"] == pytest.approx(neighbours["apart"])


@pytest.mark.parametrize("any_pair", [False, True])
def test_search_counts_any_pair_by_the_setting(
    db_path: Path, embedder: LocalEmbedder, any_pair: bool
) -> None:
    settings = Settings.model_validate(
        {"search": {"keyword_proximity_any_pair": any_pair, "newer_first": False}}
    )
    with Memory(db_path, embedder=embedder, consolidate="off", settings=settings) as mem:
        mem.add_many([{"text": t, "user_id": "jon"} for t in (APART, CLOSE)])
        mem.add_many([{"text": f"Gina: lunch note {i}", "user_id": "jon"} for i in range(6)])
        hits = mem.search(SPLIT_QUERY, user_id="jon", k=2, mode="keyword")
        scores = {h.memory.text: h.score for h in hits}
    assert set(scores) == {CLOSE, APART}
    if any_pair:
        assert scores[CLOSE] > scores[APART]
    else:
        assert scores[CLOSE] == pytest.approx(scores[APART])
