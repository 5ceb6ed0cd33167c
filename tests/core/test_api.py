"""Every Memory API method on a real SQLite file with the real local embedder."""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np
import pytest

from memfold import AsyncMemory, InvalidInput, Memory, NotFound, Status
from memfold.embed.local import LocalEmbedder


def test_add_get_roundtrip(mem_off: Memory) -> None:
    r = mem_off.add(
        "Alice prefers Rust for systems work",
        user_id="alice",
        area="main",
        importance=0.6,
        sources=["D1:3"],
        metadata={"lang": "en"},
    )
    got = mem_off.get(r.memory.id)
    assert got.text == "Alice prefers Rust for systems work"
    assert got.scope.user_id == "alice"
    assert got.importance == pytest.approx(0.6)
    assert got.sources == ["D1:3"]
    assert got.metadata == {"lang": "en"}
    assert got.status is Status.ACTIVE
    assert got.embedding is not None and got.embedding.shape == (384,)
    assert float(np.linalg.norm(got.embedding)) == pytest.approx(1.0, abs=1e-5)
    assert got.embedding_model == "all-MiniLM-L6-v2-onnx-int8"
    assert got.stability == pytest.approx(0.1 + 0.3 * 0.6)


def test_default_scope_is_default_user(mem_off: Memory) -> None:
    r = mem_off.add("The build server runs Debian 12")
    assert r.memory.scope.user_id == "default"
    assert [h.memory.id for h in mem_off.search("build server")] == [r.memory.id]


def test_search_never_crosses_scopes(mem_off: Memory) -> None:
    mem_off.add("Alice prefers Rust for systems work", user_id="alice")
    mem_off.add("Bob prefers Rust for systems work", user_id="bob")
    mem_off.add("Alice's agent note", user_id="alice", agent_id="planner")
    hits = mem_off.search("prefers Rust", user_id="alice")
    assert [h.memory.text for h in hits] == ["Alice prefers Rust for systems work"]
    assert all(h.memory.scope.user_id == "bob" for h in mem_off.search("Rust", user_id="bob"))


def test_search_ranks_relevant_first_and_filters_area(mem_off: Memory) -> None:
    mem_off.add("Sam lives in Berlin", user_id="s")
    mem_off.add("Run pytest -x to stop at the first failure", user_id="s", area="instruments")
    mem_off.add("Sam has a cat named Miso", user_id="s")
    hits = mem_off.search("Where does Sam live?", user_id="s", k=3)
    assert hits[0].memory.text == "Sam lives in Berlin"
    only = mem_off.search("Sam", user_id="s", area="instruments")
    assert [h.memory.area.value for h in only] == ["instruments"]
    vec = mem_off.search("pet cat", user_id="s", mode="vector", k=1)
    assert vec[0].memory.text == "Sam has a cat named Miso"
    kw = mem_off.search("pytest", user_id="s", mode="keyword")
    assert [h.memory.area.value for h in kw] == ["instruments"]


def test_search_counts_access(mem_off: Memory) -> None:
    r = mem_off.add("Sam lives in Berlin", user_id="s")
    mem_off.search("Berlin", user_id="s")
    got = mem_off.get(r.memory.id)
    assert got.access_count == 1 and got.last_access_at is not None


def test_update_is_versioned_logged_and_reembedded(mem_off: Memory) -> None:
    r = mem_off.add("Sam lives in Lyon", user_id="s")
    before = mem_off.get(r.memory.id)
    after = mem_off.update(r.memory.id, text="Sam lives in Berlin", importance=0.9)
    assert after.version == before.version + 1
    assert after.text == "Sam lives in Berlin" and after.importance == pytest.approx(0.9)
    assert after.embedding is not None and before.embedding is not None
    assert float(after.embedding @ before.embedding) < 0.99
    assert mem_off.search("Berlin", user_id="s", mode="keyword")[0].memory.id == r.memory.id
    assert mem_off.search("Lyon", user_id="s", mode="keyword") == []
    (entry,) = mem_off.history(r.memory.id)
    assert entry.action == "EDIT"
    assert entry.before["memories"][r.memory.id]["text"] == "Sam lives in Lyon"
    assert entry.after["memories"][r.memory.id]["text"] == "Sam lives in Berlin"


def test_delete_is_soft(mem_off: Memory) -> None:
    r = mem_off.add("Sam lives in Lyon", user_id="s")
    gone = mem_off.delete(r.memory.id, reason="user asked")
    assert gone.status is Status.ARCHIVED
    assert mem_off.get(r.memory.id).text == "Sam lives in Lyon"
    assert mem_off.search("Lyon", user_id="s") == []
    deep = mem_off.search("Lyon", user_id="s", deep=True)
    assert [h.memory.id for h in deep] == [r.memory.id]
    assert mem_off.list(user_id="s") == []
    assert [m.id for m in mem_off.list(user_id="s", status="archived")] == [r.memory.id]
    assert mem_off.log(1)[0].reasoning == "user asked"


def test_undo_of_edit_restores_text_and_vector(mem_off: Memory) -> None:
    r = mem_off.add("Sam lives in Lyon", user_id="s")
    original = mem_off.get(r.memory.id)
    mem_off.update(r.memory.id, text="Sam lives in Berlin")
    log_id = mem_off.log(1)[0].id
    mem_off.undo(log_id)
    restored = mem_off.get(r.memory.id)
    assert restored.text == original.text and restored.version == original.version + 2
    assert restored.embedding is not None and original.embedding is not None
    assert np.array_equal(restored.embedding, original.embedding)
    assert mem_off.search("Lyon", user_id="s", mode="keyword")[0].memory.id == r.memory.id


def test_add_many_with_and_without_vectors(mem_off: Memory, embedder: LocalEmbedder) -> None:
    texts = [f"fact number {i} about topic {i % 3}" for i in range(20)]
    vecs = embedder.embed(texts)
    results = mem_off.add_many([{"text": t, "user_id": "u"} for t in texts], embeddings=vecs)
    assert len(results) == 20
    stored = mem_off.get(results[3].memory.id).embedding
    assert stored is not None and np.allclose(stored, vecs[3], atol=1e-6)
    more = mem_off.add_many([{"text": "another one", "user_id": "u", "sources": ["x"]}])
    assert mem_off.get(more[0].memory.id).sources == ["x"]
    assert len(mem_off.list(user_id="u", limit=None)) == 21


def test_list_pagination_and_stats(mem_off: Memory) -> None:
    for i in range(5):
        mem_off.add(f"memory {i}", user_id="p")
    page = mem_off.list(user_id="p", limit=2, offset=2)
    assert [m.text for m in page] == ["memory 2", "memory 3"]
    stats = mem_off.stats()
    assert stats["memories"] == 5 and stats["by_status"] == {"active": 5}
    assert stats["schema_version"] >= 1


def test_get_unknown_id(mem_off: Memory) -> None:
    with pytest.raises(NotFound):
        mem_off.get("no-such-id")
    with pytest.raises(NotFound):
        mem_off.update("no-such-id", text="x")
    with pytest.raises(NotFound):
        mem_off.delete("no-such-id")
    with pytest.raises(NotFound):
        mem_off.undo(999)


def test_path_from_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embedder: LocalEmbedder
) -> None:
    target = tmp_path / "env.db"
    monkeypatch.setenv("MEMFOLD_PATH", str(target))
    with Memory(embedder=embedder, consolidate="off") as m:
        m.add("hello")
        assert m.path == target
    assert target.exists()


def test_async_memory(db_path: Path, embedder: LocalEmbedder) -> None:
    async def scenario() -> None:
        async with AsyncMemory(db_path, embedder=embedder, consolidate="off") as mem:
            r = await mem.add("Alice prefers Rust", user_id="a")
            assert (await mem.get(r.memory.id)).text == "Alice prefers Rust"
            hits = await mem.search("Rust", user_id="a")
            assert hits[0].memory.id == r.memory.id
            await mem.update(r.memory.id, text="Alice prefers Rust and Go")
            assert len(await mem.history(r.memory.id)) == 1
            await mem.delete(r.memory.id)
            assert (await mem.list(user_id="a")) == []
            assert (await mem.stats())["memories"] == 1
            with pytest.raises(InvalidInput):
                await mem.add("")

    asyncio.run(scenario())


def test_manual_edit_reapplies_after_a_concurrent_change(
    mem_off: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memfold.engine import edits

    r = mem_off.add("Sam lives in Lyon", user_id="s")
    real_require = edits.require
    raced: list[bool] = []

    def require_then_race(ctx: object, memory_id: str) -> object:
        record = real_require(ctx, memory_id)  # type: ignore[arg-type]
        if not raced:  # another writer bumps the version right after our read
            raced.append(True)
            mem_off.update(memory_id, importance=0.9)
        return record

    monkeypatch.setattr(edits, "require", require_then_race)
    updated = mem_off.update(r.memory.id, text="Sam lives in Berlin")
    assert updated.text == "Sam lives in Berlin"
    assert updated.importance == pytest.approx(0.9)  # the other writer's change survives
    assert updated.version == 3
