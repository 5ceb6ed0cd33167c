"""Long memories as passages (issue 29): cut by policy/passages.py, embedded on save,
stored with the memory on both backends, searched as the best of the whole vector and
the passages; consolidation's comparisons stay on the whole-text vector."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from helpers.postgres import BACKENDS
from memfold import Memory
from memfold.config import Settings
from memfold.embed.local import LocalEmbedder
from memfold.engine.search import similar_active
from memfold.index.rows import IndexRow
from memfold.index.vector_index import VectorIndex
from memfold.model import Area, Status
from memfold.policy.passages import PassagePlan, passages, plan_of, word_count

PLAN = PassagePlan(min_words=64, words=48, overlap_words=16, max_passages=32)

FILLER = [
    "We spent the morning comparing train timetables for the trip to the coast.",
    "The weather forecast promised rain on Tuesday and sunshine for the rest of the week.",
    "My manager asked for the quarterly report to be finished before the holidays.",
    "I repainted the kitchen cabinets a pale shade of green last month.",
    "The library downtown extended its opening hours on weekends.",
    "Our neighbours are building a wooden fence between the two gardens.",
    "I have been practising scales on the piano for half an hour every evening.",
    "The bakery on the corner started selling sourdough bread on Fridays.",
    "We argued for a while about which film to watch on Saturday night.",
    "The dentist moved my appointment from Monday to Thursday afternoon.",
]
NEEDLE = "My sister Clara adopted a grey parrot named Biscuit from the animal shelter."
LONG = " ".join([*FILLER[:5], NEEDLE, *FILLER[5:]])
SHORT = "The user drinks green tea every morning."


def test_a_short_text_has_no_passages() -> None:
    assert passages(SHORT, PLAN) == []
    exactly = " ".join(["word"] * PLAN.min_words)
    assert passages(exactly, PLAN) == []  # only more than min_words words are cut


def test_a_long_text_is_cut_into_overlapping_windows_of_whole_sentences() -> None:
    cut = passages(LONG, PLAN)
    assert len(cut) >= 3
    assert all(word_count(p) <= PLAN.words for p in cut)
    assert any(NEEDLE in p for p in cut)  # the sentence is kept whole in some window
    for before, after in itertools.pairwise(cut):
        last = before.split(". ")[-1]
        assert after.startswith(last)  # each window starts with the last one's end
    covered = " ".join(cut)
    assert all(s in covered for s in FILLER)


def test_a_long_run_without_sentence_ends_is_cut_by_words() -> None:
    text = " ".join(f"w{i}" for i in range(300))
    cut = passages(text, PLAN)
    assert len(cut) >= 300 // PLAN.words
    assert all(word_count(p) <= PLAN.words for p in cut)
    assert "w0" in cut[0] and "w299" in cut[-1]


def test_passages_are_capped_and_spread_over_the_text() -> None:
    text = " ".join(f"Sentence {i} is about topic {i}." for i in range(400))
    cut = passages(text, PassagePlan(64, 48, 16, max_passages=5))
    assert len(cut) == 5
    last = [int(w.rstrip(".")) for w in cut[-1].split() if w.rstrip(".").isdigit()]
    assert "Sentence 0 " in cut[0] and min(last) >= 300  # the last one from the end


def test_turned_off_with_min_words_zero() -> None:
    assert passages(LONG, PassagePlan(0, 48, 16, 32)) == []


def _row(seq: int, mid: str, vec: np.ndarray, rows: np.ndarray | None) -> IndexRow:
    return IndexRow(seq, mid, "s", Status.ACTIVE, Area.MAIN, vec, "m", passages=rows)


def test_the_index_scores_the_best_passage_only_when_asked() -> None:
    index = VectorIndex("m", 2)
    x, y = np.array([1.0, 0.0], np.float32), np.array([0.0, 1.0], np.float32)
    index.apply([_row(1, "long", x, np.stack([x, y])), _row(2, "other", x * 0.6 + y * 0.8, None)])
    plain = dict(index.search("s", y, 2))
    best = dict(index.search("s", y, 2, passages=True))
    assert plain["long"] == pytest.approx(0.0) and best["long"] == pytest.approx(1.0)
    assert best["other"] == pytest.approx(0.8)
    ids, scores = index.scores_of("s", ["other", "long"], y)
    assert ids == ["other", "long"] and scores.tolist() == pytest.approx([0.8, 1.0])
    # consolidation's batched search never sees passages
    assert dict(index.search_many("s", [y], 2, min_score=-1.0)[0])["long"] == pytest.approx(0.0)
    # rewritten without passages, deleted: its passages go with it
    index.apply([_row(3, "long", x, None)])
    assert dict(index.search("s", y, 2, passages=True))["long"] == pytest.approx(0.0)
    index.apply([_row(4, "long", x, np.stack([y]))])
    index.apply([IndexRow(5, "long", "", Status.ARCHIVED, Area.MAIN, None, None, deleted=True)])
    assert [m for m, _ in index.search("s", y, 2, passages=True)] == ["other"]


def test_dead_passages_are_compacted() -> None:
    index = VectorIndex("m", 2)
    x, y = np.array([1.0, 0.0], np.float32), np.array([0.0, 1.0], np.float32)
    for seq in range(1, 40):  # the same memory rewritten again and again
        index.apply([_row(seq, "a", x, np.stack([y, y, y]))])
    block = index._blocks["s"]
    assert len(block.passages) == 1 and block.passages.nbytes <= 8 * 3 * (2 * 4 + 8)
    assert dict(index.search("s", y, 1, passages=True))["a"] == pytest.approx(1.0)


@pytest.fixture(params=BACKENDS)
def mem(
    request: pytest.FixtureRequest, tmp_path: Path, embedder: LocalEmbedder
) -> Iterator[Memory]:
    # PostgreSQL: the process index, which holds passages ("database" search ranks by
    # the whole-text vector: tested below).
    # Windows of 48 words: the test texts are short for the default's 64.
    settings = Settings(
        store={"pg_vector_search": "process"},
        embed={"passage_min_words": 64, "passage_words": 48, "passage_overlap_words": 16},
    )
    if request.param == "postgres":
        m = Memory(
            url=request.getfixturevalue("pg_url"),
            settings=settings,
            embedder=embedder,
            consolidate="off",
        )
    else:
        m = Memory(tmp_path / "p.db", settings=settings, embedder=embedder, consolidate="off")
    yield m
    m.close()


def _stored_passages(mem: Memory, memory_id: str) -> np.ndarray | None:
    record = mem.store.get_memory(memory_id)
    assert record is not None
    return record.passages


QUESTION = "What kind of bird did Clara adopt, and what is its name?"


def test_passages_are_stored_for_a_long_text_and_not_for_a_short_one(mem: Memory) -> None:
    long_id = mem.add(LONG, user_id="u").memory.id
    short_id = mem.add(SHORT, user_id="u").memory.id
    stored = _stored_passages(mem, long_id)
    assert stored is not None
    assert stored.shape == (len(passages(LONG, plan_of(mem.settings.embed))), 384)
    assert np.allclose(np.linalg.norm(stored, axis=1), 1.0, atol=1e-4)
    assert _stored_passages(mem, short_id) is None
    listed = mem.add_many([{"text": LONG + " Thanks.", "user_id": "u"}, {"text": SHORT + "!"}])
    assert _stored_passages(mem, listed[0].memory.id) is not None
    assert _stored_passages(mem, listed[1].memory.id) is None


def test_search_finds_a_long_memory_by_a_sentence_deep_inside(
    mem: Memory, embedder: LocalEmbedder
) -> None:
    long_id = mem.add(LONG, user_id="u").memory.id
    for text in FILLER:  # short memories, each a sentence of the long one
        mem.add(text, user_id="u")
    mem.add("Clara's cat sleeps on the windowsill all afternoon.", user_id="u")
    hits = mem.search(QUESTION, user_id="u", k=1, mode="vector")
    assert hits[0].memory.id == long_id
    whole = embedder.embed([LONG])[0] @ embedder.embed([QUESTION])[0]
    assert hits[0].vector_score is not None and hits[0].vector_score > float(whole) + 0.1
    assert mem.search(QUESTION, user_id="u", k=1)[0].memory.id == long_id  # hybrid too


def test_update_replaces_and_delete_drops_the_passages(mem: Memory) -> None:
    long_id = mem.add(LONG, user_id="u").memory.id
    before = _stored_passages(mem, long_id)
    other = LONG.replace(NEEDLE, "My brother Tom bought a red kayak for the summer lakes.")
    mem.update(long_id, text=other)
    after = _stored_passages(mem, long_id)
    assert before is not None and after is not None
    assert not np.array_equal(before, after)
    hits = mem.search(QUESTION, user_id="u", k=1, mode="vector")
    assert hits[0].vector_score is not None and hits[0].vector_score < 0.5  # the old text's gone
    mem.update(long_id, text=SHORT)
    assert _stored_passages(mem, long_id) is None
    mem.update(long_id, text=LONG)
    assert mem.search(QUESTION, user_id="u", k=1, mode="vector")[0].memory.id == long_id
    mem.delete(long_id)  # archived: plain search no longer finds it
    assert mem.search(QUESTION, user_id="u", k=3, mode="vector") == []
    mem.forget(long_id)
    assert mem.store.get_memory(long_id) is None
    assert mem.search(QUESTION, user_id="u", k=3, mode="vector", deep=True) == []


def test_a_status_change_keeps_the_passages_without_embedding(
    mem: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    long_id = mem.add(LONG, user_id="u").memory.id
    calls: list[int] = []
    real = mem.ctx.embed

    def counted(texts: Sequence[str]) -> np.ndarray:
        calls.append(len(texts))
        return real(texts)

    monkeypatch.setattr(mem.ctx, "embed", counted)
    mem.update(long_id, importance=0.9)  # no text change: nothing is embedded again
    assert calls == []
    assert _stored_passages(mem, long_id) is not None


def test_consolidation_compares_whole_text_vectors(mem: Memory) -> None:
    long_id = mem.add(LONG, user_id="u").memory.id
    short = mem.add(NEEDLE, user_id="u").memory
    # The long memory holds the short one's sentence verbatim: by its best passage it
    # is nearly the same text, by its whole vector it is not.
    assert short.embedding is not None
    scope_key = short.scope.key()
    best = dict(mem.ctx.synced_index().search(scope_key, short.embedding, 5, passages=True))
    whole = dict(mem.ctx.synced_index().search(scope_key, short.embedding, 5))
    assert best[long_id] > 0.7 > whole[long_id] + 0.1
    near = similar_active(mem.ctx, short, k=5, min_similarity=0.7)
    assert long_id not in [c.memory.id for c in near]


def test_reembed_fills_in_passages_of_older_rows(mem: Memory) -> None:
    long_id = mem.add(LONG, user_id="u").memory.id
    record = mem.store.get_memory(long_id)
    assert record is not None
    record.passages = None  # a row saved before passages existed
    mem.store.put_memory(record)
    assert _stored_passages(mem, long_id) is None
    assert mem.reembed() == 1
    assert _stored_passages(mem, long_id) is not None
    assert mem.reembed() == 0


def test_postgres_database_search_ranks_by_the_whole_vector(
    pg_url: str, embedder: LocalEmbedder
) -> None:
    with Memory(url=pg_url, embedder=embedder, consolidate="off") as mem:
        assert mem.settings.store.pg_vector_search == "database"
        long_id = mem.add(LONG, user_id="u").memory.id
        assert _stored_passages(mem, long_id) is not None
        hits = mem.search(QUESTION, user_id="u", k=1, mode="vector")
        whole = embedder.embed([LONG])[0] @ embedder.embed([QUESTION])[0]
        assert hits[0].memory.id == long_id
        assert hits[0].vector_score == pytest.approx(float(whole), abs=1e-3)
