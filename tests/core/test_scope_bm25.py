"""Keyword ranking by BM25 with the searched scope's own statistics, on a real SQLite
store: a word frequent in one user's memories but rare in the store counts as common in
that user's searches; the statistics are recounted when the scope changes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memfold import Memory, Settings
from memfold.embed.local import LocalEmbedder
from memfold.index.bm25 import Bm25Params, Stemmer, bm25_rank, idf
from memfold.store.sqlite.fts import scope_term, scope_token

# User "a" mentions zebras all the time and a quokka once; user "b" (most of the store)
# talks about quokkas and never about zebras.
ZEBRAS = [f"The zebra at the park had stripe number {i}" for i in range(5)]
QUOKKA = "A quokka smiled at me on the island"
OTHERS = [f"Quokka photo {i} from the island trip" for i in range(30)]
QUERY = "zebra quokka"


def keyword_ranking(path: Path, embedder: LocalEmbedder, **search: Any) -> list[str]:
    settings = Settings.model_validate({"search": {"newer_first": False, **search}})
    with Memory(path, embedder=embedder, consolidate="off", settings=settings) as mem:
        return [h.memory.text for h in mem.search(QUERY, user_id="a", k=10, mode="keyword")]


@pytest.fixture
def two_users(db_path: Path, embedder: LocalEmbedder) -> Path:
    with Memory(db_path, embedder=embedder, consolidate="off") as mem:
        mem.add_many([{"text": t, "user_id": "a"} for t in [*ZEBRAS, QUOKKA]])
        mem.add_many([{"text": t, "user_id": "b"} for t in OTHERS])
    return db_path


def test_a_word_frequent_in_the_scope_ranks_as_common_there(
    two_users: Path, embedder: LocalEmbedder
) -> None:
    scoped = keyword_ranking(two_users, embedder)
    table = keyword_ranking(two_users, embedder, keyword_scoring="table")
    assert sorted(scoped) == sorted(table) == sorted([*ZEBRAS, QUOKKA])
    # in user a's memories "quokka" is the rare word: its one memory comes first
    assert scoped[0] == QUOKKA
    # FTS5's table-wide bm25() sees "zebra" as the rare one (b's quokkas dominate)
    assert table[0] != QUOKKA and table[-1] == QUOKKA


def test_scan_and_per_term_counts_agree(two_users: Path, embedder: LocalEmbedder) -> None:
    """Counting in one pass over the scope's texts (Python stems) and counting each
    term over the FTS5 index give the same document frequencies, so the same scores."""
    settings = [
        Settings.model_validate({"search": {"keyword_scan_max_docs": n}}) for n in (5000, 0)
    ]
    scores = []
    for s in settings:
        with Memory(two_users, embedder=embedder, consolidate="off", settings=s) as mem:
            hits = mem.search(QUERY, user_id="a", k=10, mode="keyword")
            scores.append(sorted((h.memory.text, h.score) for h in hits))
    assert [t for t, _ in scores[0]] == [t for t, _ in scores[1]]
    assert [s for _, s in scores[0]] == pytest.approx([s for _, s in scores[1]])


def test_statistics_are_recounted_when_the_scope_grows(
    two_users: Path, embedder: LocalEmbedder
) -> None:
    settings = Settings.model_validate({"search": {"newer_first": False}})
    with Memory(two_users, embedder=embedder, consolidate="off", settings=settings) as mem:
        first = mem.search(QUERY, user_id="a", k=3, mode="keyword")
        assert first[0].memory.text == QUOKKA
        # now user a talks about quokkas much more than about zebras
        more = [f"Another quokka {i} hopped past the ferry" for i in range(20)]
        mem.add_many([{"text": t, "user_id": "a"} for t in more])
        again = mem.search(QUERY, user_id="a", k=3, mode="keyword")
        assert again[0].memory.text in ZEBRAS  # stale counts would keep the quokka first


def test_the_stems_are_the_fts5_vocabulary(mem_off: Memory) -> None:
    text = "Cafés running QUICKLY past the generalizations, don't-stop 2027"
    record = mem_off.add(text).memory
    vocab = {str(r[0]) for r in mem_off.store._q("SELECT term FROM memories_vocab")}
    # ... beside the scope's token, which SQL computes the way fts.scope_token does, and
    # the scope's own terms (schema 12), which the porter tokenizer leaves as they are
    stems, key = Stemmer().terms(text), record.scope.key()
    assert vocab == {*stems, scope_token(key), *(scope_term(key, s) for s in stems)}


def test_length_normalization_and_saturation() -> None:
    stemmer = Stemmer()
    texts = [("long", "kiwi " + "filler words here " * 6), ("short", "kiwi fruit")]
    flat = bm25_rank(
        ["kiwi"], texts, stemmer=stemmer, docs=10, avg_chars=60.0, df={"kiwi": 2},
        params=Bm25Params(k1=1.2, b=0.0, pool=10),
    )  # fmt: skip
    assert flat[0][1] == pytest.approx(flat[1][1])  # b = 0: length does not count
    normed = bm25_rank(
        ["kiwi"], texts, stemmer=stemmer, docs=10, avg_chars=60.0, df={"kiwi": 2},
        params=Bm25Params(k1=1.2, b=0.75, pool=10),
    )  # fmt: skip
    assert normed[0][0] == "short" and normed[0][1] > normed[1][1]
    # a term in every document still counts a little, never negatively
    assert 0.0 < idf(10, 10) < idf(10, 1)
