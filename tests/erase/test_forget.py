"""Memory.forget: hard erasure that leaves no byte of the text in the SQLite files."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from helpers.scripted import ScriptedJudge, base, vec_with_cosine
from memfold import AsyncMemory, InvalidInput, Memory, NotFound, Status, UndoRefused
from memfold.config import ReviewSettings, Settings
from memfold.embed.local import LocalEmbedder
from memfold.judge.base import SaveItem
from memfold.model import Action, Decision, MemoryRecord, PairLabel

MARK = "Zqvmarkerx"  # no other word in these tests starts with z: FTS stores it whole
TEA = f"Sam likes tea, brand {MARK}"
CUPS = "Sam drinks 2 cups of tea daily"
MERGED = f"Sam likes tea, brand {MARK}, and drinks 2 cups daily"


def _decide(item: SaveItem) -> Decision:
    if item.new.text == CUPS:
        target = item.candidates[0].memory.id
        return Decision(Action.MERGE, [target], text=MERGED, confidence=0.95, reasoning="same")
    # An LLM's reasoning may quote a candidate it does not act on: no id ties it to that one.
    quoted = " / ".join(c.memory.text for c in item.candidates)
    return Decision(Action.KEEP_SEPARATE, [], confidence=0.9, reasoning=f"unlike: {quoted}")


def _open(path: Path, embedder: LocalEmbedder, consolidate: str = "sync") -> Memory:
    # Synthetic vectors with real result texts: the drift bound is opened (as in test_actions).
    settings = Settings(review=ReviewSettings(breaker_drift=2.0))
    judge = ScriptedJudge(_decide)
    return Memory(path, settings=settings, embedder=embedder, judge=judge, consolidate=consolidate)


def _near(record: MemoryRecord, cosine: float) -> list[float]:
    """A unit vector at exactly ``cosine`` to the record's (real) embedding."""
    assert record.embedding is not None
    v = np.asarray(record.embedding, dtype=np.float64)
    v = v / np.linalg.norm(v)
    other = np.zeros_like(v)
    other[int(np.argmin(np.abs(v)))] = 1.0
    other -= other.dot(v) * v
    other /= np.linalg.norm(other)
    return [float(x) for x in cosine * v + np.sqrt(1 - cosine**2) * other]


def _file_bytes(path: Path) -> bytes:
    sides = [path, *(path.with_name(path.name + s) for s in ("-wal", "-journal", "-shm"))]
    return b"".join(p.read_bytes() for p in sides if p.exists())


def _fts_terms(path: Path, prefix: str) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT term FROM memories_vocab WHERE term LIKE ?", (prefix + "%",))
        return [str(r[0]) for r in rows]
    finally:
        conn.close()


def _fill(mem: Memory) -> dict[str, str]:
    """u1: a merge holding the marker, a survivor whose log row quotes it, feedback, a
    queued and classified review pair, an LLM error quoting it. u2: its own memories."""
    tea = mem.add(TEA, user_id="u1", embedding=base()).memory
    cups = mem.add(CUPS, user_id="u1", embedding=vec_with_cosine(0.93))
    merged = mem.get(mem.list(user_id="u1")[0].id)  # with its vector
    assert cups.decision is not None and cups.decision.action is Action.MERGE
    assert merged.text == MERGED
    other_add = mem.add(
        f"Sam's sister Ana mentions {MARK} too", user_id="u1", embedding=_near(merged, 0.8)
    )
    other = other_add.memory
    assert other_add.decision is not None and other_add.decision.action is Action.KEEP_SEPARATE
    quoting = mem.store.get_log(other_add.log_id or 0)
    assert quoting is not None and MERGED in quoting.reasoning
    assert quoting.input_ids == [other.id]  # no id ties this row to the merged memory
    mem.feedback(merged.id, "used", context=f"what tea? {MARK}")
    store = mem.store
    store.queue_pairs(merged.scope.key(), [(merged.id, other.id, 0.9, 1, 1)])
    item = store.queue_item_for_pair(merged.id, other.id)
    assert item is not None
    store.classify_queue_item(item.id, PairLabel.RELATED, 0.7, f"both say {MARK}", None)
    store.record_llm_call(
        task="consolidate",
        role="utility",
        model="m",
        prompt_tokens=1,
        completion_tokens=1,
        latency_ms=1.0,
        outcome="invalid",
        error=f"reply not JSON: {TEA}",
    )
    keep = mem.add("Pat from the other team likes cocoa", user_id="u2", embedding=base()).memory
    keep2 = mem.add("Pat plays chess on Sundays", user_id="u2", embedding=vec_with_cosine(0.2))
    return {
        "tea": tea.id,
        "cups": cups.memory.id,
        "merged": merged.id,
        "other": other.id,
        "keep": keep.id,
        "keep2": keep2.memory.id,
        "merge_log": str(cups.log_id),
    }


@pytest.mark.parametrize("vacuum", [False, True])
def test_forget_scope_leaves_no_byte(db_path: Path, embedder: LocalEmbedder, vacuum: bool) -> None:
    with _open(db_path, embedder) as mem:
        ids = _fill(mem)
    (term,) = _fts_terms(db_path, "zqv")
    with _open(db_path, embedder, consolidate="queue") as mem:
        pending = mem.add(f"{MARK} is pending", user_id="u1", agent_id="bot").memory
        assert mem.store.list_jobs("pending")  # a queued job for it
        raw = _file_bytes(db_path)
        # The check below can fail: before forget the marker is in the files, in every form.
        for form in (MARK, MARK.lower(), term, MERGED):
            assert form.encode() in raw
        report = mem.forget(user_id="u1", vacuum=vacuum)
        erased = {ids["tea"], ids["cups"], ids["merged"], ids["other"], pending.id}
        assert set(report.all_erased) == erased
        assert report.checkpointed and report.vacuumed is vacuum
        assert not report.stale_space_possible
        assert report.rows_removed["memories"] == 5 and report.rows_removed["review_queue"] == 1
        assert report.rows_removed["jobs"] >= 1 and report.rows_removed["feedback"] == 1
        assert mem.list(user_id="u1", status=None) == []
        assert not mem.store.list_jobs("pending")
        # other users: untouched and found by every search mode
        assert {m.id for m in mem.list(user_id="u2")} == {ids["keep"], ids["keep2"]}
        for mode in ("hybrid", "vector", "keyword"):
            hits = mem.search("cocoa", user_id="u2", mode=mode)
            assert hits and hits[0].memory.id == ids["keep"]
    raw = _file_bytes(db_path)
    for form in (MARK, MARK.lower(), term, MERGED, "cups daily"):
        assert form.encode() not in raw, form
    assert b"Pat from the other team likes cocoa" in raw
    assert not db_path.with_name(db_path.name + "-wal").exists() or (
        db_path.with_name(db_path.name + "-wal").stat().st_size == 0
    )
    with _open(db_path, embedder, consolidate="off") as mem:
        assert _fts_terms(db_path, "zqv") == []
        tombs = {t["id"]: t for t in mem.store.list_erasures()}
        assert set(tombs) == erased and tombs[ids["merged"]]["user_id"] == "u1"
        assert set(tombs[ids["tea"]]) == {
            "id", "user_id", "agent_id", "session_id", "erased_at", "derived"
        }  # fmt: skip
        with pytest.raises(UndoRefused, match="erased"):
            mem.undo(int(ids["merge_log"]))
        with pytest.raises(NotFound, match="was erased"):
            mem.forget(ids["tea"])
        with pytest.raises(NotFound, match="nothing to forget"):
            mem.forget(user_id="u1")
        assert mem.search("Pat chess", user_id="u2", mode="keyword")


def test_forget_one_erases_what_holds_its_words_and_restores_the_rest(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    with _open(db_path, embedder) as mem:
        ids = _fill(mem)
        before = mem.stats()
        preview = mem.forget(ids["tea"], dry_run=True)
        assert (preview.erased, preview.derived) == ([ids["tea"]], [ids["merged"]])
        assert preview.restored == [ids["cups"]] and preview.log_id is None
        assert mem.stats() == before and mem.store.list_erasures() == []
        report = mem.forget(ids["tea"])
        assert report.erased == [ids["tea"]] and report.derived == [ids["merged"]]
        assert report.restored == [ids["cups"]]  # the merge's other source is back
        cups = mem.get(ids["cups"])
        assert cups.status is Status.ACTIVE and cups.superseded_by is None
        # its words are back in the FTS index (the test vectors are not the text's own)
        hits = mem.search("cups of tea", user_id="u1", mode="keyword")
        assert hits[0].memory.id == ids["cups"]
        survivor = mem.get(ids["other"])  # holds the marker in its own words: not derived
        assert survivor.status is Status.ACTIVE
        for gone in (ids["tea"], ids["merged"]):
            with pytest.raises(NotFound):
                mem.get(gone)
        # the merge row is scrubbed (ids kept, the erased snapshots and the reasoning gone;
        # cups' own snapshot, whose text the merge left as it was, kept); undo refused
        merge_row = mem.store.get_log(int(ids["merge_log"]))
        assert merge_row is not None and set(merge_row.before["memories"]) == {ids["cups"]}
        assert merge_row.reasoning == "" and ids["tea"] in merge_row.before["erased"]
        with pytest.raises(UndoRefused, match="is an erasure"):
            mem.undo(int(ids["merge_log"]), cascade=True)
        assert report.log_id is not None
        with pytest.raises(UndoRefused, match="is an erasure"):
            mem.undo(report.log_id)
        history = mem.history(ids["cups"])
        assert [e.action for e in history][-1] == "FORGET"
        assert mem.store.get_memory(ids["cups"]) is not None
    raw = _file_bytes(db_path)
    assert TEA.encode() not in raw and MERGED.encode() not in raw
    assert b"reply not JSON" not in raw and b"[removed: about an erased memory]" in raw
    assert CUPS.encode() in raw


def test_forget_update_target_holding_new_words(db_path: Path, embedder: LocalEmbedder) -> None:
    def decide(item: SaveItem) -> Decision:
        target = item.candidates[0].memory.id
        text = "Sam lives in Berlin, near the Spree, since 2026"
        return Decision(Action.UPDATE, [target], text=text, confidence=0.9)

    settings = Settings(review=ReviewSettings(breaker_drift=2.0))
    judge = ScriptedJudge(decide)
    with Memory(
        db_path, settings=settings, embedder=embedder, judge=judge, consolidate="sync"
    ) as mem:
        old = mem.add("Sam lives in Berlin since 2026", user_id="s", embedding=base()).memory
        new = mem.add(
            "Sam lives in Berlin near the Spree", user_id="s", embedding=vec_with_cosine(0.95)
        )
        assert new.decision is not None and new.decision.action is Action.UPDATE
        report = mem.forget(new.memory.id)
        assert report.derived == [old.id]  # updated with the erased words: erased too
        assert mem.list(user_id="s", status=None) == []
    assert b"Spree" not in _file_bytes(db_path)


def test_forget_bad_input_changes_nothing(mem_off: Memory) -> None:
    a = mem_off.add("Lena likes plums", user_id="u1").memory
    mem_off.add("Omar likes figs", user_id="u2")
    before = mem_off.stats()
    with pytest.raises(InvalidInput, match="memory id or a scope"):
        mem_off.forget()
    with pytest.raises(InvalidInput):
        mem_off.forget("")
    with pytest.raises(InvalidInput):
        mem_off.forget(user_id="")
    with pytest.raises(NotFound, match="no memory with id"):
        mem_off.forget("no-such-id")
    with pytest.raises(NotFound, match="nothing to forget"):
        mem_off.forget(user_id="nobody")
    with pytest.raises(NotFound, match="not in the scope"):
        mem_off.forget(a.id, user_id="u2")
    after = mem_off.stats()
    assert after["memories"] == before["memories"] == 2
    assert mem_off.store.list_erasures() == []
    report = mem_off.forget(a.id, user_id="u1")
    assert report.erased == [a.id] and report.derived == [] and report.restored == []
    assert [m.text for m in mem_off.list(user_id="u2")] == ["Omar likes figs"]


def test_forget_by_agent_spans_users(mem_off: Memory) -> None:
    mem_off.add("Kim's build uses make", user_id="k", agent_id="ci")
    mem_off.add("Lou's build uses ninja", user_id="l", agent_id="ci")
    kept = mem_off.add("Lou prefers vim", user_id="l", agent_id="editor").memory
    report = mem_off.forget(agent_id="ci")
    assert len(report.erased) == 2
    assert [m.id for m in mem_off.list(user_id="l", agent_id="editor")] == [kept.id]


def test_forget_on_a_file_from_before_secure_delete(db_path: Path, embedder: LocalEmbedder) -> None:
    with Memory(db_path, embedder=embedder, consolidate="off") as mem:
        a = mem.add("Rui's locker code is 4471", user_id="r").memory
        b = mem.add("Rui likes jazz", user_id="r").memory
        mem.store.set_meta("secure_delete_from", "unknown")  # as a file migrated from v5
        assert mem.forget(a.id).stale_space_possible
        report = mem.forget(b.id, vacuum=True)
        assert report.vacuumed and not report.stale_space_possible
        c = mem.add("Rui's bike is red", user_id="r").memory
        assert not mem.forget(c.id).stale_space_possible  # zeroed since that VACUUM
    assert b"4471" not in _file_bytes(db_path)


def test_async_forget(db_path: Path, embedder: LocalEmbedder) -> None:
    async def go() -> None:
        async with AsyncMemory(db_path, embedder=embedder, consolidate="off") as mem:
            a = await mem.add("Ines collects stamps", user_id="i")
            report = await mem.forget(user_id="i")
            assert report.erased == [a.memory.id]
            with pytest.raises(NotFound):
                await mem.get(a.memory.id)

    asyncio.run(go())


def test_an_old_export_does_not_bring_an_erased_memory_back(
    tmp_path: Path, mem_off: Memory
) -> None:
    gone = mem_off.add("Noa's passport number is X1234567", user_id="n").memory
    kept = mem_off.add("Noa likes sailing", user_id="n").memory
    backup = tmp_path / "backup.jsonl"
    mem_off.export(backup)
    mem_off.forget(gone.id)
    report = mem_off.import_(backup)
    assert (report.erased, report.existing, report.imported) == (1, 1, 0)
    assert [m.id for m in mem_off.list(user_id="n", status=None)] == [kept.id]


def test_forget_beside_the_background_worker(db_path: Path, embedder: LocalEmbedder) -> None:
    with Memory(db_path, embedder=embedder) as mem:  # background: a worker thread's connection
        mem.add(f"Uma keeps her notes in {MARK}", user_id="uma")
        mem.add("Uma keeps her notes in a paper diary", user_id="uma")
        mem.add("Vic likes hiking", user_id="vic")
        mem.flush()
        report = mem.forget(user_id="uma")
        assert len(report.all_erased) >= 2 and report.checkpointed
        assert [m.text for m in mem.list(user_id="vic")] == ["Vic likes hiking"]
        mem.add("Vic likes hiking in the Alps", user_id="vic")
        mem.flush()
    raw = _file_bytes(db_path)
    assert MARK.encode() not in raw and MARK.lower().encode() not in raw
    assert b"paper diary" not in raw


def test_forget_takes_an_id_prefix(mem_off: Memory) -> None:
    a = mem_off.add("Wen's favourite tree is the ginkgo", user_id="w").memory
    mem_off.add("Wen's favourite bird is the heron", user_id="w")
    with pytest.raises(InvalidInput, match="too short"):
        mem_off.forget(a.id[:3])
    report = mem_off.forget(a.id[:8])  # as `memfold list` shows it
    assert report.erased == [a.id]
    with pytest.raises(NotFound):  # a prefix names live memories only
        mem_off.forget(a.id[:8])
    with pytest.raises(NotFound, match="was erased"):
        mem_off.forget(a.id)
    assert [m.text for m in mem_off.list(user_id="w")] == ["Wen's favourite bird is the heron"]


def test_undo_through_an_erasure_is_refused_and_changes_nothing(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    with _open(db_path, embedder) as mem:
        tea = mem.add("Sam likes tea", user_id="u1", embedding=base()).memory
        edited = mem.update(tea.id, text=TEA)  # log row 1: a manual edit of a survivor-to-be
        edit_log = mem.history(tea.id)[-1].id
        cups = mem.add(CUPS, user_id="u1", embedding=_near(mem.get(tea.id), 0.93))
        assert cups.decision is not None and cups.decision.action is Action.MERGE
        report = mem.forget(cups.memory.id)
        assert report.derived and report.restored == [tea.id]
        before = mem.get(tea.id)
        assert before.text == edited.text and before.status is Status.ACTIVE
        for cascade in (False, True):
            with pytest.raises(UndoRefused, match="an erasure"):
                mem.undo(edit_log, cascade=cascade)
        now = mem.get(tea.id)  # nothing undone on the way
        assert (now.text, now.status, now.version) == (before.text, before.status, before.version)
