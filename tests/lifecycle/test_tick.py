"""``Memory.tick`` on real stores (SQLite files and PostgreSQL, the ``backend`` fixture):
cold migration, TTL expiry, core promotion, the conflict queue, compression of the
seed's fading cluster, undo, a crash mid-tick, and time that may not run backwards."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from helpers.scripted import vec_with_cosine
from helpers.seed_texts import MARCH_ACTIVITIES
from memfold import Memory
from memfold.config import Settings
from memfold.engine import changes
from memfold.engine.lifecycle.tick import LAST_TICK_KEY
from memfold.errors import InvalidInput
from memfold.model import Category, Link, LinkKind, PairLabel, Status, Tier

NOW = datetime(2024, 9, 1, tzinfo=UTC)
SEED = MARCH_ACTIVITIES


def _open(backend: str, request: pytest.FixtureRequest, settings: Settings) -> Memory:
    embedder = request.getfixturevalue("embedder")
    if backend == "postgres":
        url = request.getfixturevalue("pg_url")
        return Memory(url=url, settings=settings, consolidate="off", embedder=embedder)
    path = request.getfixturevalue("db_path")
    return Memory(path, settings=settings, consolidate="off", embedder=embedder)


def _add(mem: Memory, text: str, days_ago: float, **kw: Any) -> str:
    return mem.add(text, user_id="u1", created_at=NOW - timedelta(days=days_ago), **kw).memory.id


def test_fading_memories_move_cold_plain_search_skips_them_deep_finds_them(
    mem_off: Memory,
) -> None:
    mem_off.ctx.clock = lambda: NOW  # searches count their retrievals at NOW
    old = _add(mem_off, "Kim went to a ski camp in the Alps", 200)  # episodic, R ~ 0
    fresh = _add(mem_off, "Kim went to a ski school in Andorra", 1)
    tool = _add(mem_off, "How to wax skis: always run the iron slowly", 900)  # procedural
    report = mem_off.tick(NOW)
    assert report.cold == [old] and report.scanned == 3
    got = mem_off.get(old)
    assert (got.tier, got.status) == (Tier.COLD, Status.ACTIVE)
    assert mem_off.get(fresh).tier is Tier.HOT and mem_off.get(tool).tier is Tier.HOT
    plain = [h.memory.id for h in mem_off.search("ski camp in the Alps", user_id="u1", k=5)]
    assert old not in plain and fresh in plain
    deep = [h.memory.id for h in mem_off.search("ski camp Alps", user_id="u1", k=5, deep=True)]
    assert old in deep
    # one logged change set; undo brings it back hot
    (log_id,) = report.log_ids
    entry = mem_off.store.get_log(log_id)
    assert entry is not None and (entry.path, entry.action) == ("lifecycle", "COLD")
    mem_off.undo(log_id)
    assert mem_off.get(old).tier is Tier.HOT
    # the deep search retrieved it at NOW: no longer fading, it stays hot
    mem_off.flush()
    assert mem_off.get(old).last_access_at == NOW
    assert mem_off.tick(NOW).cold == []


def test_ttl_expiry_marks_expired_and_deletes_nothing(mem_off: Memory) -> None:
    short = mem_off.add("Door code 4411 for today", user_id="u1", ttl=3600)
    dated = mem_off.add(
        "Parking permit valid", user_id="u1", expires_at=datetime(2099, 1, 1, tzinfo=UTC)
    )
    late = mem_off.add(
        "Conference wifi is confwifi", user_id="u1", expires_at="2001-01-01T00:00:00+00:00"
    )
    assert short.warnings == [] and dated.warnings == []
    assert late.memory.status is Status.EXPIRED and "already past" in late.warnings[0]
    assert mem_off.get(late.memory.id).status is Status.EXPIRED
    created = short.memory.created_at
    assert short.memory.expires_at == created + timedelta(hours=1)
    report = mem_off.tick(created + timedelta(hours=2))
    assert report.expired == [short.memory.id]
    got = mem_off.get(short.memory.id)  # still there
    assert got.status is Status.EXPIRED and got.valid_to == created + timedelta(hours=1)
    assert mem_off.get(dated.memory.id).status is Status.ACTIVE
    assert short.memory.id not in [h.memory.id for h in mem_off.search("door code", user_id="u1")]
    deep = mem_off.search("door code", user_id="u1", deep=True)
    assert short.memory.id in [h.memory.id for h in deep]
    entry = mem_off.store.get_log(report.log_ids[0])
    assert entry is not None and entry.action == "EXPIRE"


def test_ttl_bad_input_changes_nothing(mem_off: Memory) -> None:
    for kw in ({"ttl": -5}, {"ttl": "soon"}, {"ttl": 5, "expires_at": NOW}, {"expires_at": "x"}):
        with pytest.raises(InvalidInput):
            mem_off.add("Locker 12 is mine", user_id="u1", **kw)
    assert mem_off.list(user_id="u1", status=None) == []


def test_area_default_ttl(backend: str, request: pytest.FixtureRequest) -> None:
    mem = _open(backend, request, Settings(lifecycle={"ttl_by_area": {"fragments": 60.0}}))
    try:
        frag = mem.add("half a thought about lunch", user_id="u1", area="fragments").memory
        main = mem.add("Kim likes green tea", user_id="u1").memory
        kept = mem.add("a fragment to keep", user_id="u1", area="fragments", ttl=86400).memory
        assert frag.expires_at == frag.created_at + timedelta(seconds=60)
        assert main.expires_at is None
        assert kept.expires_at == kept.created_at + timedelta(days=1)
        report = mem.tick(frag.created_at + timedelta(minutes=5))
        assert report.expired == [frag.id]
    finally:
        mem.close()


def test_a_now_before_the_last_tick_is_refused_and_changes_nothing(mem_off: Memory) -> None:
    old = _add(mem_off, "Kim went to a ski camp in the Alps", 200)
    mem_off.tick(NOW)
    mem_off.undo(mem_off.log(1)[0].id)  # back hot
    with pytest.raises(InvalidInput, match="earlier than the last tick"):
        mem_off.tick(NOW - timedelta(seconds=1))
    assert mem_off.get(old).tier is Tier.HOT
    assert mem_off.store.get_meta(LAST_TICK_KEY) == NOW.isoformat()
    with pytest.raises(InvalidInput):
        mem_off.tick("yesterday")  # type: ignore[arg-type]


def test_core_promotion_after_repeated_use_and_core_never_fades(
    backend: str, request: pytest.FixtureRequest
) -> None:
    mem = _open(backend, request, Settings(lifecycle={"core_promotion_accesses": 3}))
    try:
        star = mem.add("Kim is allergic to peanuts", user_id="u1").memory.id
        other = mem.add("Kim owns a blue bicycle", user_id="u1").memory.id
        for _ in range(3):
            mem.search("peanut allergy", user_id="u1", k=1)
        mem.flush()
        report = mem.tick()
        assert report.promoted == [star]
        assert mem.get(star).category is Category.CORE
        assert mem.get(other).category is Category.SEMANTIC
        # a year later: the core memory stays hot (floor 0.60), the other goes cold
        later = mem.tick(mem.ctx.clock() + timedelta(days=3650))
        assert later.cold == [other]
        assert mem.get(star).tier is Tier.HOT
    finally:
        mem.close()


def test_the_conflict_queue_lists_contradictions_awaiting_review(mem_off: Memory) -> None:
    a = _add(mem_off, "Kim likes coffee", 1)
    b = _add(mem_off, "Kim does not like coffee", 1)
    c = _add(mem_off, "Kim lives in Berlin", 1)
    d = _add(mem_off, "Kim lives in Munich", 1)
    mem_off.store.add_links([Link(b, a, LinkKind.CONTRADICTS)])
    mem_off.store.queue_pairs("u=u1|a=|s=", [(c, d, 0.9, 1, 1)])
    (item,) = mem_off.store.queue_items()
    mem_off.store.classify_queue_item(item.id, PairLabel.CONTRADICTION, 0.9, "places", None)
    report = mem_off.tick(NOW)
    pairs = {(x.memory_a, x.memory_b, x.source) for x in report.conflicts}
    assert pairs == {(min(a, b), max(a, b), "link"), (min(c, d), max(c, d), "queue")}
    mem_off.delete(a)  # no longer active: no longer a conflict
    assert {x.source for x in mem_off.tick(NOW).conflicts} == {"queue"}


def _seed(mem: Memory) -> list[str]:
    ids = []
    for n, text in enumerate(SEED):
        ids.append(
            mem.add(
                text,
                user_id="u1",
                importance=0.2,
                embedding=vec_with_cosine(0.9, axis=1 + n),
                created_at=datetime(2024, 3, 12 + 4 * n, tzinfo=UTC),
            ).memory.id
        )
    return ids


def test_a_tick_compresses_the_seed_cluster_and_rehydrate_brings_the_originals_back(
    mem_off: Memory,
) -> None:
    ids = _seed(mem_off)
    assert {mem_off.get(i).category for i in ids} == {Category.EPISODIC}  # by rules
    core = mem_off.add(
        "User went to the Fremont 5K again on March 30, 2024",
        user_id="u1",
        category="core",
        embedding=vec_with_cosine(0.9, axis=9),
        created_at=datetime(2024, 3, 30, tzinfo=UTC),
    ).memory.id
    report = mem_off.tick(NOW)
    assert report.compression == "ran"
    (done,) = [c for c in report.compressions if c.log_id is not None]
    assert sorted(done.original_ids) == sorted(ids)  # core exempt
    summary = mem_off.get(done.summary_id)
    assert summary.tier is Tier.HOT and summary.text.startswith("Summary: ")
    for original in (mem_off.get(i) for i in ids):
        assert (original.status, original.tier) == (Status.SUPERSEDED, Tier.COLD)
    assert mem_off.get(core).tier is Tier.HOT and mem_off.get(core).status is Status.ACTIVE
    deep = {h.memory.id for h in mem_off.search("Mount Rainier", user_id="u1", k=10, deep=True)}
    assert ids[0] in deep
    # rehydrate the summary: its originals hot and active again, logged, undoable
    back = mem_off.rehydrate(summary.id)
    assert sorted(back.ids) == sorted(ids)
    for original in (mem_off.get(i) for i in ids):
        assert (original.status, original.tier, original.superseded_by) == (
            Status.ACTIVE,
            Tier.HOT,
            None,
        )
        assert original.last_access_at is not None
    mem_off.undo(back.log_id)
    assert {mem_off.get(i).tier for i in ids} == {Tier.COLD}
    # one cold memory by itself
    mem_off.undo(done.log_id or 0)  # compression undone: originals hot, summary gone
    assert {mem_off.get(i).status for i in ids} == {Status.ACTIVE}


def test_rehydrate_of_a_cold_memory_and_bad_input(mem_off: Memory) -> None:
    old = _add(mem_off, "Kim went to a ski camp in the Alps", 200)
    hot = _add(mem_off, "Kim likes green tea", 1)
    mem_off.tick(NOW)
    done = mem_off.rehydrate(old[:10])  # a unique prefix works
    assert done.ids == [old] and mem_off.get(old).tier is Tier.HOT
    entry = mem_off.store.get_log(done.log_id)
    assert entry is not None and entry.action == "REHYDRATE"
    before = mem_off.get(hot)
    with pytest.raises(InvalidInput, match="nothing to rehydrate"):
        mem_off.rehydrate(hot)
    assert mem_off.get(hot).version == before.version


def test_a_tick_cut_off_midway_leaves_nothing_half_done(
    backend: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    mem = _open(backend, request, Settings(lifecycle={"tick_log_batch": 1}))
    try:
        ids = [_add(mem, f"Kim went to camp number {n} in the Alps", 300) for n in range(3)]
        real = changes.commit
        calls = []

        def crash_on_second(*args: object, **kwargs: object) -> int:
            calls.append(1)
            if len(calls) == 2:
                raise RuntimeError("power cut")
            return real(*args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr("memfold.engine.lifecycle.tick.commit", crash_on_second)
        with pytest.raises(RuntimeError, match="power cut"):
            mem.tick(NOW)
        assert {mem.get(i).tier for i in ids} == {Tier.HOT}  # the first batch rolled back
        assert mem.store.get_meta(LAST_TICK_KEY) is None
        assert [e.action for e in mem.log(10)] == []
        monkeypatch.setattr("memfold.engine.lifecycle.tick.commit", real)
        report = mem.tick(NOW)  # run again: the whole tick
        assert sorted(report.cold) == sorted(ids) and len(report.log_ids) == 3
    finally:
        mem.close()
