"""Seed 004, compression of fading memories in the lifecycle tick, claim by claim:
memfold's public API (``Memory.tick``, ``get``, ``search``, ``links``, ``rehydrate``) on
real SQLite files, with no LLM (the concatenation) or a scripted OpenAI-compatible LLM.
Default settings, except where docs/seeds.md names a setting: ``lifecycle.
cluster_similarity`` (the seed's worked example does not group at its 0.70 with the
bundled embedder: written twice, at the default as a strict xfail and at 0.40) and
``lifecycle.tick_min_interval_s`` (memfold ticks at most once a minute; 0: the seed's way).

The memories are made fading by their age: created so long before ``NOW`` that their
retention at ``NOW`` is the one the test names (the seed's example: 0.18, 0.15, 0.12, 0.14,
0.11). Scripted vectors (helpers.scripted) set the cosines where the test is not about
the bundled embedder's own."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from helpers.scripted import base, vec_with_cosine
from helpers.seed_texts import MARCH_ACTIVITIES
from memfold import Category, Memory, Settings, Status
from memfold.embed.local import LocalEmbedder
from memfold.engine.lifecycle.compress import Compression
from memfold.model import Tier
from memfold.policy.retention import beta_days, boost, retention
from memfold.testing.fake_llm import FakeLLMServer
from memfold.testing.fake_replies import Fault, last_user_message

U = "u1"
NOW = datetime(2024, 4, 1, tzinfo=UTC)  # the ticks' time (a later one: a year on)
SEED = MARCH_ACTIVITIES
DAYS = [12, 15, 20, 25, 28]  # each memory written on its day of March 2024
RETENTION = [0.18, 0.15, 0.12, 0.14, 0.11]  # the seed's "before consolidation"
AFTER = (
    "In March 2024, User was very active outdoors: hiked at Mount Rainier (Mar 12), "
    "kayaked at Lake Washington (Mar 15), ran a 5K in Fremont (Mar 20), rock climbed at "
    "Stone Gardens (Mar 25), and joined a cycling club (Mar 28)."
)
IMPORTANCE = [0.3, 0.5, 0.2, 0.4, 0.1]
ACCESSES = [2, 0, 5, 1, 3]


def _near(n: int) -> list[float]:
    """The n-th of a family of vectors at cosine 0.81 with each other (0.9 with base())."""
    return vec_with_cosine(0.9, axis=1 + n)


def _fading(
    mem: Memory,
    text: str,
    r: float,
    vector: Sequence[float] | None = None,
    *,
    day: int,
    category: str = "episodic",
    importance: float = 0.5,
    accesses: int = 0,
) -> str:
    """A memory written on ``day`` of March 2024, never read since, whose stability makes
    its retention at NOW ``r`` (R = exp(-days / (S * B * beta)), policy.retention)."""
    cfg = mem.settings.lifecycle
    created = datetime(2024, 3, day, tzinfo=UTC)
    scale = (NOW - created) / timedelta(days=1) / -math.log(r)
    stability = scale / boost(importance, cfg) / (beta_days(Category(category), cfg) or 1.0)
    kw: dict[str, Any] = {"category": category, "importance": importance, "created_at": created}
    added = mem.add(text, user_id=U, embedding=vector, **kw).memory
    record = mem.store.get_memory(added.id)
    assert record is not None
    mem.store.put_memory(record.copy(stability=stability, access_count=accesses))
    assert retention(mem.get(added.id), NOW, cfg) == pytest.approx(r, abs=1e-6)
    return added.id


def _seed_cluster(mem: Memory, scripted: bool = True) -> list[str]:
    """The seed's five fading episodic memories, at its retentions."""
    return [
        _fading(mem, text, RETENTION[n], _near(n) if scripted else None, day=DAYS[n],
                importance=IMPORTANCE[n], accesses=ACCESSES[n])
        for n, text in enumerate(SEED)
    ]  # fmt: skip


def _save(mem: Memory, texts: Sequence[str], first: int = 0) -> list[str]:
    """Saved through the store's on-save path, the n-th as written on March 12 + n, 2024."""
    return [
        mem.add(t, user_id=U, embedding=_near(first + n),
                created_at=datetime(2024, 3, 12 + n, tzinfo=UTC)).memory.id
        for n, t in enumerate(texts)
    ]  # fmt: skip


def _applied(mem: Memory, now: datetime = NOW) -> list[Compression]:
    return [c for c in mem.tick(now).compressions if c.applied]


def _settings(url: str | None = None, **lifecycle: Any) -> Settings:
    llm = {} if url is None else {"base_url": url, "model": "utility-model", "api_key": "k"}
    utility = {"utility": {"timeout_s": 5.0, "max_retries": 0}} if url else {}
    return Settings(llm={**llm, **utility}, lifecycle=lifecycle)


@pytest.fixture
def mem(db_path: Path, embedder: LocalEmbedder) -> Iterator[Memory]:
    with Memory(db_path, embedder=embedder, consolidate="off") as m:  # no LLM configured
        yield m


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as srv:
        yield srv


@pytest.mark.parametrize(("fifth", "compressed"), [(0.19, True), (0.21, False)])
def test_a_fading_memory_has_retention_below_020(
    mem: Memory, fifth: float, compressed: bool
) -> None:
    """Seed: "Filter hot-store memories where: Retention < consolidation_retention_threshold
    (default: 0.20)"."""
    assert Settings().lifecycle.fading_retention == pytest.approx(0.20)
    ids = [_fading(mem, SEED[n], 0.15, _near(n), day=DAYS[n]) for n in range(4)]
    ids.append(_fading(mem, SEED[4], fifth, _near(4), day=DAYS[4]))
    done = _applied(mem)
    assert len(done) == int(compressed)
    if compressed:
        assert done[0].original_ids == ids
    else:  # four fading memories are no group; the fifth is not fading: it stays hot
        assert mem.get(ids[4]).tier is Tier.HOT and mem.get(ids[4]).status is Status.ACTIVE


def test_superseded_memories_are_not_candidates_again(mem: Memory) -> None:
    """Fading memories are those "Not already superseded"."""
    ids = _seed_cluster(mem)
    (first,) = _applied(mem)
    later = NOW + timedelta(days=365)  # the originals fade further, four new ones fade too
    for n in range(4):
        _fading(mem, f"User visited museum {n} in March 2024", 0.1, _near(5 + n), day=1 + n)
    assert _applied(mem, later) == []  # four, not nine: the superseded five are out
    assert {mem.get(i).superseded_by for i in ids} == {first.summary_id}


@pytest.mark.parametrize(("episodic", "floor_core"), [(5, None), (4, None), (4, 0.0)])
def test_core_memories_are_exempt(
    db_path: Path, embedder: LocalEmbedder, episodic: int, floor_core: float | None
) -> None:
    """Seed: fading memories are those "Not a core memory (core is exempt)" (floor_core 0:
    the core memory's retention falls below 0.20 too, and it is still exempt)."""
    cfg: dict[str, Any] = {} if floor_core is None else {"floor_core": floor_core}
    with Memory(db_path, settings=_settings(**cfg), embedder=embedder, consolidate="off") as m:
        ids = [_fading(m, SEED[n], 0.1, _near(n), day=DAYS[n]) for n in range(episodic)]
        r = 0.6 if floor_core is None else 0.1  # the core floor: 0.60 by default
        text = "User ran the Fremont 5K again on March 30, 2024"
        core = _fading(m, text, r, _near(9), day=30, category="core")
        done = _applied(m)
        assert [c.original_ids for c in done] == ([ids] if episodic == 5 else [])
        kept = m.get(core)
        assert (kept.status, kept.tier, kept.superseded_by) == (Status.ACTIVE, Tier.HOT, None)


@pytest.mark.parametrize(("episodic", "semantic", "groups"), [(3, 2, 0), (5, 5, 2)])
def test_only_memories_of_one_category_are_compressed_together(
    mem: Memory, episodic: int, semantic: int, groups: int
) -> None:
    """Seed: "Only memories of the same category are consolidated together. Episodic memories
    consolidate with episodic, semantic with semantic." (All at cosine 0.81.)"""
    kinds = ["episodic"] * episodic + ["semantic"] * semantic
    ids = {
        _fading(mem, f"User noted fact {n} in March 2024", 0.1, _near(n), day=1 + n, category=k): k
        for n, k in enumerate(kinds)
    }
    done = _applied(mem)
    assert len(done) == groups
    for c in done:
        (kind,) = {ids[i] for i in c.original_ids}
        assert mem.get(c.summary_id or "").category.value == kind


@pytest.mark.parametrize(("cosine", "compressed"), [(0.71, True), (0.69, False)])
def test_members_join_at_cosine_070_with_the_anchor(
    mem: Memory, cosine: float, compressed: bool
) -> None:
    """Greedy clustering: "sim = cosine_similarity(mem_i.embedding, mem_j.embedding); if
    sim >= consolidation_similarity_threshold: # default: 0.70". (Four members at
    ``cosine`` with the oldest, the anchor; 0.50 with each other.)"""
    assert Settings().lifecycle.cluster_similarity == pytest.approx(0.70)
    vectors = [base()] + [vec_with_cosine(cosine, axis=1 + n) for n in range(4)]
    ids = [_fading(mem, SEED[n], RETENTION[n], v, day=DAYS[n]) for n, v in enumerate(vectors)]
    done = _applied(mem)
    assert [c.original_ids for c in done] == ([ids] if compressed else [])


@pytest.mark.parametrize(("similar", "compressed"), [(4, 0), (5, 5), (6, 5)])
def test_a_group_needs_five_members_and_stops_at_five(
    mem: Memory, similar: int, compressed: int
) -> None:
    """Seed: "if len(group) >= group_size: # default: 5 break" ... "A group must have at least
    consolidation_group_size (default: 5) members to qualify.\""""
    assert Settings().lifecycle.cluster_size == 5
    gyms = ["Stone Gardens", "Vertical World", "Edgeworks", "Bellevue Rock Gym", "Seattle "
            "Bouldering Project", "Mountain Fitness"]  # fmt: skip
    ids = [_fading(mem, f"User went climbing at {gym} in March 2024", 0.15, _near(n), day=1 + n)
           for n, gym in enumerate(gyms[:similar])]  # fmt: skip
    done = _applied(mem)
    assert [c.original_ids for c in done] == ([ids[:5]] if compressed else [])
    for i in ids[compressed:]:  # left out: active, cold (fading), not superseded
        assert (mem.get(i).status, mem.get(i).tier) == (Status.ACTIVE, Tier.COLD)


NUMBERED = [  # five fading memories that each end in a number
    "User's locker at Stone Gardens is number 14",
    "User's bib in the Fremont 5K was number 412",
    "User rented kayak number 7 at Lake Washington",
    "User's cycling club membership number is 2207",
    "User's hiking permit for Mount Rainier is number 5531",
]


@pytest.mark.parametrize(
    ("llm", "texts"),
    [("none configured", SEED), ("failing", SEED),
     pytest.param("none configured", NUMBERED, id="ends-in-a-number")],
)  # fmt: skip
def test_without_an_llm_the_summary_is_the_concatenation(
    db_path: Path, embedder: LocalEmbedder, server: FakeLLMServer, llm: str, texts: list[str]
) -> None:
    """Seed: "If no LLM compress function is available, the system falls back to simple
    concatenation: "Summary: " + " | ".join(contents).\""""
    url = None if llm == "none configured" else server.base_url
    server.fail_next(Fault.SERVER_ERROR)
    with Memory(db_path, settings=_settings(url), embedder=embedder, consolidate="off") as m:
        for n, text in enumerate(texts):
            _fading(m, text, 0.15, _near(n), day=DAYS[n])
        (done,) = _applied(m)
        assert m.get(done.summary_id or "").text == "Summary: " + " | ".join(texts)
    assert server.request_count("/chat/completions") == (0 if url is None else 1)


def test_the_summary_inherits_importance_stability_access_count_and_links(
    mem: Memory, embedder: LocalEmbedder
) -> None:
    """Seed: "The summary memory: Inherits the maximum importance from the group; Gets average
    stability from the group; Gets the maximum access count from the group; Is embedded
    fresh; Has association links (weight 0.8) to each original"."""
    ids = _seed_cluster(mem)
    stability = [mem.get(i).stability for i in ids]
    (done,) = _applied(mem)
    summary = mem.get(done.summary_id or "")
    assert summary.importance == pytest.approx(max(IMPORTANCE))  # 0.5
    assert summary.stability == pytest.approx(float(np.mean(stability)))
    assert summary.access_count == max(ACCESSES)  # 5
    assert summary.embedding is not None
    fresh = embedder.embed([summary.text])[0]
    assert float(np.dot(summary.embedding, fresh)) == pytest.approx(1.0, abs=1e-4)
    assert all(float(np.dot(summary.embedding, _near(n))) < 0.5 for n in range(5))
    links = mem.links(summary.id, kinds="association").links
    assert sorted(lk.id for lk in links) == sorted(ids)
    assert {(lk.weight, lk.direction) for lk in links} == {(0.8, "out")}


def test_originals_are_superseded_cold_and_still_reachable(mem: Memory) -> None:
    """Seed: "Each original: Is marked is_superseded = True; Has superseded_by set to the
    summary's ID; Is moved to cold storage"; "accessible through: Association links from
    the summary (weight 0.8); Deep recall mode during search; Direct ID lookup"."""
    ids = _seed_cluster(mem)
    (done,) = _applied(mem)
    for n, i in enumerate(ids):
        got = mem.get(i)  # direct lookup
        assert (got.status, got.superseded_by, got.tier) == (
            Status.SUPERSEDED, done.summary_id, Tier.COLD,
        )  # fmt: skip
        assert got.text == SEED[n]
    plain = {h.memory.id for h in mem.search("hiking at Mount Rainier", user_id=U, k=10)}
    deep = mem.search("hiking at Mount Rainier", user_id=U, k=10, deep=True)
    assert plain == {done.summary_id} and set(ids) <= {h.memory.id for h in deep}


def test_originals_can_be_migrated_back_to_hot_storage(mem: Memory) -> None:
    """Seed: "consolidation can be effectively "undone" by migrating originals back to hot
    storage if needed."""
    ids = _seed_cluster(mem)
    (done,) = _applied(mem)
    back = mem.rehydrate(done.summary_id or "")
    assert sorted(back.ids) == sorted(ids)
    for i in ids:
        got = mem.get(i)
        assert (got.status, got.tier, got.superseded_by) == (Status.ACTIVE, Tier.HOT, None)


CLASSES = ["yoga", "pottery", "dance", "painting", "cooking"]


@pytest.mark.parametrize("min_interval_s", [None, 0.0])
def test_the_tick_runs_every_5_ingestion_cycles(
    db_path: Path, embedder: LocalEmbedder, min_interval_s: float | None
) -> None:
    """Seed: "Consolidation runs as part of the maintenance tick(). By default, it triggers every
    5 ingestion cycles" (memfold's default: at most once per 60 s,
    lifecycle.tick_min_interval_s; 0 is the seed's way)."""
    assert Settings().lifecycle.tick_every_adds == 5
    cfg: dict[str, Any] = {} if min_interval_s is None else {"tick_min_interval_s": min_interval_s}
    with Memory(db_path, settings=_settings(**cfg), embedder=embedder, consolidate="sync") as m:
        classes = [f"User took a {x} class at the community studio" for x in CLASSES]
        first = _save(m, classes[:4])
        assert {m.get(i).status for i in first} == {Status.ACTIVE}  # four: no tick yet
        first += _save(m, classes[4:], 4)
        assert {m.get(i).status for i in first} == {Status.SUPERSEDED}  # the fifth ticked
        second = _save(m, [f"User read a {x} novel during the spring break" for x in CLASSES], 9)
        ticked = min_interval_s == 0.0  # by default, five more within the minute wait
        want = Status.SUPERSEDED if ticked else Status.ACTIVE
        assert {m.get(i).status for i in second} == {want}


def test_the_seeds_five_saved_through_the_default_judge_compress_together(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    """Seed: "Only memories of the same category are consolidated together. Episodic memories
    consolidate with episodic" (the seed's five at cosine 0.81, saved through memfold's
    default on-save judge; the tick that follows the fifth save)."""
    with Memory(db_path, embedder=embedder, consolidate="sync") as m:
        ids = _save(m, SEED)
        assert {m.get(i).category for i in ids} == {Category.EPISODIC}
        assert {m.get(i).status for i in ids} == {Status.SUPERSEDED}


@pytest.mark.xfail(
    strict=True,
    reason="docs/seeds.md: the bundled embedder puts the seed's five March activities at "
    "cosine 0.41-0.61, below lifecycle.cluster_similarity 0.70, so with default settings "
    "no group forms (open, waiting on a calibrated similarity scale)",
)
def test_the_seeds_worked_example_with_default_settings(
    db_path: Path, embedder: LocalEmbedder, server: FakeLLMServer
) -> None:
    """Example: "Before consolidation (5 fading episodic memories): [0.18] "User went
    hiking at Mount Rainier on March 12, 2024" ... After consolidation: [HOT] "In March
    2024, User was very active outdoors: ..." [COLD, superseded] Original 1-5"."""
    _worked_example(db_path, embedder, server, _settings(server.base_url))


def test_the_seeds_worked_example_at_cluster_similarity_040(
    db_path: Path, embedder: LocalEmbedder, server: FakeLLMServer
) -> None:
    """The same example with lifecycle.cluster_similarity 0.40, the LLM compressing with
    "Compress these related memories into a single concise summary that preserves all key
    facts. Memories: 1. User went hiking at Mount Rainier on March 12 ... Preserve specific
    names, dates, numbers"."""
    settings = _settings(server.base_url, cluster_similarity=0.40)
    _worked_example(db_path, embedder, server, settings)
    (request,) = server.chat_requests
    assert last_user_message(request) == "Memories:\n" + "\n".join(
        f"{n}. {t}" for n, t in enumerate(SEED, start=1)
    )
    system = str(request["messages"][0]["content"])
    assert "compress" in system and "ONE summary" in system
    assert "names, numbers, amounts and dates" in system


def _worked_example(
    db_path: Path, embedder: LocalEmbedder, server: FakeLLMServer, settings: Settings
) -> None:
    server.set_script([{"text": AFTER, "reasoning": "March activities"}])
    with Memory(db_path, settings=settings, embedder=embedder, consolidate="off") as m:
        ids = _seed_cluster(m, scripted=False)  # the bundled embedder's own vectors
        vectors = np.stack([np.asarray(m.get(i).embedding) for i in ids])
        sims = (vectors @ vectors.T)[np.triu_indices(5, k=1)]
        assert sims.min() >= 0.40 and sims.max() < 0.70
        (done,) = _applied(m)
        summary = m.get(done.summary_id or "")
        assert (summary.text, summary.tier, summary.status) == (AFTER, Tier.HOT, Status.ACTIVE)
        for i in ids:
            assert (m.get(i).tier, m.get(i).status) == (Tier.COLD, Status.SUPERSEDED)
        deep = m.search("hiking at Mount Rainier", user_id=U, k=10, deep=True)
        assert set(ids) <= {h.memory.id for h in deep}
