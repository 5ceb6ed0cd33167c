"""Compression of fading clusters (seed 004), on SQLite and PostgreSQL.

The seed's example: five fading episodic memories of March 2024 become one summary in
the hot tier, the originals superseded in the cold tier. Their vectors are set here
(cosine 0.81 with each other): the local embedder puts the five activities at cosine
0.41-0.61, below the seed's 0.70, so with it they would not form a cluster at all.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pytest

from helpers.scripted import vec_with_cosine
from helpers.seed_texts import MARCH_ACTIVITIES
from helpers.store_records import rec
from memfold import Memory
from memfold.config import LifecycleSettings, LLMSettings, RoleSettings
from memfold.engine.lifecycle.compress import Compression, compress_fading
from memfold.errors import NotFound
from memfold.judge.llm import LLMJudge
from memfold.model import Category, LinkKind, MemoryRecord, Scope, Status, Tier
from memfold.policy.clustering import cluster_fading
from memfold.testing.fake_llm import FakeLLMServer

SEED = MARCH_ACTIVITIES
CONCATENATION = "Summary: " + " | ".join(SEED)
PARAPHRASE = (
    "In March 2024, User was very active outdoors: hiked at Mount Rainier (Mar 12), "
    "kayaked at Lake Washington (Mar 15), ran a 5K in Fremont (Mar 20), rock climbed at "
    "Stone Gardens (Mar 25), and joined a cycling club (Mar 28)."
)
NOW = datetime(2024, 9, 1, tzinfo=UTC)
DAYS = (12, 15, 20, 25, 28)
IMPORTANCE = (0.3, 0.5, 0.2, 0.4, 0.1)
STABILITY = (0.2, 0.3, 0.25, 0.15, 0.1)
ACCESSES = (2, 0, 5, 1, 3)


def _seed_memories(mem: Memory, texts: Sequence[str] = SEED, axis0: int = 1) -> list[str]:
    """The seed's memories, fading: stored in March 2024, never retrieved since."""
    ids = []
    for n, text in enumerate(texts):
        added = mem.add(
            text,
            user_id="u1",
            category="episodic",
            importance=IMPORTANCE[n % 5],
            embedding=vec_with_cosine(0.9, axis=axis0 + n),
            created_at=datetime(2024, 3, DAYS[n % 5], tzinfo=UTC),
        )
        record = mem.store.get_memory(added.memory.id)
        assert record is not None
        mem.store.put_memory(record.copy(stability=STABILITY[n % 5], access_count=ACCESSES[n % 5]))
        ids.append(added.memory.id)
    return ids


def _records(mem: Memory, ids: Sequence[str]) -> list[MemoryRecord]:
    return [mem.get(i) for i in ids]


def _assert_compressed(mem: Memory, ids: list[str], done: Compression, text: str) -> None:
    assert done.applied and done.skipped is None and done.original_ids == ids
    assert done.summary_id is not None and done.text == text
    summary = mem.get(done.summary_id)
    assert summary.text == text
    assert (summary.status, summary.tier, summary.category) == (
        Status.ACTIVE,
        Tier.HOT,
        Category.EPISODIC,
    )
    assert summary.scope == Scope("u1")
    assert summary.importance == pytest.approx(max(IMPORTANCE))
    assert summary.stability == pytest.approx(float(np.mean(STABILITY)))
    assert summary.access_count == max(ACCESSES)
    assert summary.consolidated_from == ids
    assert summary.created_at == NOW and summary.last_access_at is None
    # Embedded fresh: the vector of its own text, not one of the originals'.
    assert summary.embedding is not None
    fresh = mem.ctx.embed_one(text)
    assert float(np.dot(summary.embedding, fresh)) == pytest.approx(1.0, abs=1e-4)
    links = [lk for lk in mem.store.links_for([summary.id]) if lk.src == summary.id]
    assert sorted(lk.dst for lk in links) == sorted(ids)
    assert {(lk.kind, lk.weight) for lk in links} == {(LinkKind.ASSOCIATION, 0.8)}
    for original in _records(mem, ids):
        assert original.status is Status.SUPERSEDED and original.tier is Tier.COLD
        assert original.superseded_by == summary.id
    entry = mem.store.get_log(done.log_id or 0)
    assert entry is not None and (entry.path, entry.action) == ("lifecycle", "COMPRESS")
    assert entry.input_ids == ids


def test_seed_example_offline_is_the_concatenation(mem_off: Memory) -> None:
    ids = _seed_memories(mem_off)
    result = compress_fading(mem_off.ctx, mem_off.judge, _records(mem_off, ids), NOW)
    assert len(result) == 1
    (done,) = result
    assert done.fallback is None and done.judge == "rules"
    _assert_compressed(mem_off, ids, done, CONCATENATION)
    # Plain search finds the summary and none of the originals; deep search finds them.
    plain = mem_off.search("hiking at Mount Rainier", user_id="u1", k=10)
    assert [h.memory.id for h in plain] == [done.summary_id]
    deep = {
        h.memory.id
        for h in mem_off.search("hiking at Mount Rainier", user_id="u1", k=10, deep=True)
    }
    assert set(ids) <= deep and done.summary_id in deep


def test_undo_of_a_compression_restores_the_hot_originals(mem_off: Memory) -> None:
    ids = _seed_memories(mem_off)
    before = {r.id: r for r in _records(mem_off, ids)}
    (done,) = compress_fading(mem_off.ctx, mem_off.judge, list(before.values()), NOW)
    assert done.log_id is not None and done.summary_id is not None
    mem_off.undo(done.log_id)
    for original in _records(mem_off, ids):
        assert (original.status, original.tier, original.superseded_by) == (
            Status.ACTIVE,
            Tier.HOT,
            None,
        )
        assert original.text == before[original.id].text
    with pytest.raises(NotFound):
        mem_off.get(done.summary_id)
    assert not [lk for lk in mem_off.store.links_for(ids) if lk.kind is LinkKind.ASSOCIATION]
    hits = mem_off.search("hiking at Mount Rainier", user_id="u1", k=10)
    assert ids[0] in [h.memory.id for h in hits]


def test_groups_smaller_than_the_cluster_size_stay_untouched(mem_off: Memory) -> None:
    ids = _seed_memories(mem_off, SEED[:4])
    before = [r.to_dict() for r in _records(mem_off, ids)]
    assert compress_fading(mem_off.ctx, mem_off.judge, _records(mem_off, ids), NOW) == []
    assert [r.to_dict() for r in _records(mem_off, ids)] == before
    assert mem_off.store.list_log(limit=5) == []


def test_a_crash_mid_compression_leaves_no_half_compressed_cluster(
    mem_off: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = _seed_memories(mem_off)
    before = [r.to_dict() for r in _records(mem_off, ids)]

    def crash(*_: Any) -> None:
        raise RuntimeError("power cut")

    # The summary and the superseded originals are written by then; the links are next.
    monkeypatch.setattr(mem_off.store, "add_links", crash)
    with pytest.raises(RuntimeError, match="power cut"):
        compress_fading(mem_off.ctx, mem_off.judge, _records(mem_off, ids), NOW)
    monkeypatch.undo()
    assert [r.to_dict() for r in _records(mem_off, ids)] == before
    assert len(mem_off.store.list_log(limit=5)) == 0
    everything = mem_off.search("Mount Rainier", user_id="u1", k=20, deep=True)
    assert sorted(h.memory.id for h in everything) == sorted(ids)


def test_a_member_changed_since_the_tick_read_it_leaves_the_group(mem_off: Memory) -> None:
    ids = _seed_memories(mem_off)
    seen = _records(mem_off, ids)
    mem_off.update(ids[2], text="User ran a 10K in Fremont on March 20, 2024")
    (done,) = compress_fading(mem_off.ctx, mem_off.judge, seen, NOW)
    assert not done.applied and done.skipped and "later tick" in done.skipped
    assert all(r.status is Status.ACTIVE for r in _records(mem_off, ids))


# --- with an LLM (the scripted OpenAI-compatible server) ---------------------------------


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as srv:
        yield srv


def _llm_judge(base_url: str) -> LLMJudge:
    return LLMJudge(
        LLMSettings(
            base_url=base_url,
            model="fake-model",
            api_key="test-key",
            utility=RoleSettings(timeout_s=1.0, max_retries=0),
        )
    )


def test_the_seeds_paraphrase_passes_the_check_and_is_written(
    mem_off: Memory, server: FakeLLMServer
) -> None:
    server.set_script([{"text": PARAPHRASE, "reasoning": "March activities"}])
    ids = _seed_memories(mem_off)
    with _llm_judge(server.base_url) as judge:
        (done,) = compress_fading(mem_off.ctx, judge, _records(mem_off, ids), NOW)
    assert done.fallback is None and done.judge == "llm"
    _assert_compressed(mem_off, ids, done, PARAPHRASE)
    entry = mem_off.store.get_log(done.log_id or 0)
    assert entry is not None and entry.model == "fake-model"
    assert entry.prompt_version is not None and entry.prompt_version.startswith("compress@")
    # The judge saw the five originals as numbered lines, oldest first, without ids.
    shown = str(server.chat_requests[0]["messages"][-1]["content"])
    assert [shown.index(t) for t in SEED] == sorted(shown.index(t) for t in SEED)
    assert shown.startswith("Memories:\n1. ") and not any(i in shown for i in ids)


def test_a_summary_that_drops_a_date_falls_back_to_the_concatenation(
    mem_off: Memory, server: FakeLLMServer
) -> None:
    bad = PARAPHRASE.replace(" (Mar 20)", "")
    server.set_script([{"text": bad, "reasoning": "shorter"}])
    ids = _seed_memories(mem_off)
    with _llm_judge(server.base_url) as judge:
        (done,) = compress_fading(mem_off.ctx, judge, _records(mem_off, ids), NOW)
    assert done.fallback is not None and "drops date '03-20'" in done.fallback
    _assert_compressed(mem_off, ids, done, CONCATENATION)
    entry = mem_off.store.get_log(done.log_id or 0)
    assert entry is not None and "drops date '03-20'" in entry.reasoning
    assert "concatenation written" in entry.reasoning


def test_an_unreachable_llm_falls_back_to_the_concatenation(mem_off: Memory) -> None:
    ids = _seed_memories(mem_off)
    with _llm_judge("http://127.0.0.1:9/v1") as judge:
        (done,) = compress_fading(mem_off.ctx, judge, _records(mem_off, ids), NOW)
    assert done.fallback is not None and "no summary" in done.fallback
    _assert_compressed(mem_off, ids, done, CONCATENATION)


# --- the clustering itself (pure) ----------------------------------------------------------


def _fading(mid: str, n: int, **fields: Any) -> MemoryRecord:
    fields.setdefault("category", Category.EPISODIC)
    return rec(
        mid,
        f"memory {mid}",
        embedding=np.asarray(vec_with_cosine(0.9, axis=1 + n), dtype=np.float32),
        created_at=datetime(2024, 1, 1 + n, tzinfo=UTC),
        **fields,
    )


CFG = LifecycleSettings()


def test_clustering_is_greedy_deterministic_and_disjoint() -> None:
    records = [_fading(f"m{n:02d}", n) for n in range(12)]
    groups = cluster_fading(records, CFG)
    assert [[r.id for r in g] for g in groups] == [
        [f"m{n:02d}" for n in range(5)],
        [f"m{n:02d}" for n in range(5, 10)],
    ]
    shuffled = records[:]
    random.Random(7).shuffle(shuffled)
    assert [[r.id for r in g] for g in cluster_fading(shuffled, CFG)] == [
        [r.id for r in g] for g in groups
    ]


def test_clustering_needs_the_similarity_to_the_anchor() -> None:
    near = [_fading(f"n{n}", n) for n in range(4)]
    # cosine 0.54 with each of the others: below the seed's 0.70
    far = rec(
        "far",
        "memory far",
        embedding=np.asarray(vec_with_cosine(0.6, axis=9), dtype=np.float32),
        category=Category.EPISODIC,
    )
    assert cluster_fading([*near, far], CFG) == []
    assert (
        len(cluster_fading([*near, far], CFG.model_copy(update={"cluster_similarity": 0.5}))) == 1
    )


def test_core_other_categories_and_other_scopes_are_never_grouped_together() -> None:
    four = [_fading(f"e{n}", n) for n in range(4)]
    others = [
        _fading("core", 4, category=Category.CORE),
        _fading("semantic", 5, category=Category.SEMANTIC),
        _fading("scope", 6, scope=Scope("u2")),
        _fading("superseded", 7, status=Status.SUPERSEDED),
    ]
    assert cluster_fading([*four, *others], CFG) == []
    (group,) = cluster_fading([*four, _fading("e4", 8)], CFG)
    assert [r.id for r in group] == ["e0", "e1", "e2", "e3", "e4"]
