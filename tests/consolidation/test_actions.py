"""Each on-save action applied to the store, then undone exactly."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from helpers.scripted import ScriptedJudge, base, vec_with_cosine
from memfold import Memory, Status, UndoRefused
from memfold.config import ReviewSettings, Settings
from memfold.embed.local import LocalEmbedder
from memfold.judge.base import SaveItem
from memfold.model import Action, Decision, LinkKind


def _mem(db_path: Path, embedder: LocalEmbedder, judge: ScriptedJudge) -> Memory:
    # The stored vectors here are synthetic (set cosines), the result texts' real: the
    # drift bound would compare the two, so it is opened wide (tested on its own below).
    settings = Settings(review=ReviewSettings(breaker_drift=2.0))
    return Memory(db_path, settings=settings, embedder=embedder, judge=judge, consolidate="sync")


def _snapshot(mem: Memory) -> dict[str, tuple[object, ...]]:
    out = {}
    for m in mem.store.iter_memories():
        vec = None if m.embedding is None else m.embedding.tobytes()
        out[m.id] = (
            m.text,
            m.status,
            m.superseded_by,
            # no version: an undo restores the content under a new version, never an old one
            tuple(m.sources),
            vec,
            m.valid_to,
            m.area,
            m.importance,
        )
    links = {(lk.src, lk.dst, lk.kind) for lk in mem.store.links_for(out)}
    return {**out, "__links__": tuple(sorted(links))}


def _target(item: SaveItem) -> str:
    return item.candidates[0].memory.id


def test_update_applies_and_undoes(db_path: Path, embedder: LocalEmbedder) -> None:
    judge = ScriptedJudge(
        lambda it: Decision(
            Action.UPDATE,
            [_target(it)],
            text="Sam lives in Berlin, near the Spree, since 2026",
            confidence=0.9,
            reasoning="enriches",
        )
    )
    with _mem(db_path, embedder, judge) as mem:
        old = mem.add(
            "Sam lives in Berlin since 2026", user_id="s", sources=["a"], embedding=base()
        ).memory
        before = _snapshot(mem)
        r = mem.add(
            "Sam lives in Berlin near the Spree",
            user_id="s",
            sources=["b"],
            embedding=vec_with_cosine(0.95),
        )
        assert r.decision is not None and r.decision.action is Action.UPDATE
        target = mem.get(old.id)
        assert target.text == "Sam lives in Berlin, near the Spree, since 2026"
        assert target.version == 2 and target.sources == ["a", "b"]
        assert target.embedding is not None and old.embedding is not None
        assert not np.allclose(target.embedding, old.embedding)  # re-embedded
        new = mem.get(r.memory.id)
        assert new.status is Status.SUPERSEDED and new.superseded_by == old.id
        assert [h.memory.id for h in mem.search("Spree", user_id="s")] == [old.id]
        assert r.log_id is not None
        mem.undo(r.log_id)
        after_undo = _snapshot(mem)
        assert after_undo[old.id] == before[old.id]
        assert mem.get(r.memory.id).status is Status.ACTIVE
        assert mem.get(r.memory.id).superseded_by is None


def test_merge_applies_and_undoes(db_path: Path, embedder: LocalEmbedder) -> None:
    judge = ScriptedJudge(
        lambda it: Decision(
            Action.MERGE,
            [_target(it)],
            text="Sam likes tea and drinks 2 cups daily",
            confidence=0.95,
            importance=0.9,
        )
    )
    with _mem(db_path, embedder, judge) as mem:
        a = mem.add(
            "Sam likes tea", user_id="s", sources=["d1"], embedding=base(), importance=0.3
        ).memory
        before = _snapshot(mem)
        r = mem.add(
            "Sam drinks 2 cups of tea daily",
            user_id="s",
            sources=["d2"],
            embedding=vec_with_cosine(0.93),
        )
        assert r.decision is not None and r.decision.action is Action.MERGE
        active = mem.list(user_id="s")
        assert len(active) == 1
        merged = active[0]
        assert merged.text == "Sam likes tea and drinks 2 cups daily"
        assert set(merged.consolidated_from) == {a.id, r.memory.id}
        assert merged.sources == ["d2", "d1"] and merged.importance == pytest.approx(0.9)
        for orig in (a.id, r.memory.id):
            got = mem.get(orig)
            assert got.status is Status.SUPERSEDED and got.superseded_by == merged.id
        kinds = {(lk.src, lk.dst, lk.kind) for lk in mem.store.links_for([merged.id])}
        assert (merged.id, a.id, LinkKind.DERIVED_FROM) in kinds
        assert r.log_id is not None
        mem.undo(r.log_id)
        snap = _snapshot(mem)
        assert merged.id not in snap  # the merged memory did not exist before
        assert snap[a.id] == before[a.id]
        assert mem.get(r.memory.id).status is Status.ACTIVE
        assert {m.id for m in mem.list(user_id="s")} == {a.id, r.memory.id}
        assert mem.search("tea", user_id="s", mode="vector", k=5)[0].memory.id in {
            a.id,
            r.memory.id,
        }


def test_replace_and_delete_apply_and_undo(db_path: Path, embedder: LocalEmbedder) -> None:
    actions = iter([Action.REPLACE, Action.DELETE])
    judge = ScriptedJudge(lambda it: Decision(next(actions), [_target(it)], confidence=0.95))
    with _mem(db_path, embedder, judge) as mem:
        a = mem.add("Sam lives in Lyon", user_id="s", sources=["x"], embedding=base()).memory
        first = _snapshot(mem)
        r = mem.add(
            "Sam lives in Lyon (confirmed)",
            user_id="s",
            sources=["y"],
            embedding=vec_with_cosine(0.96),
        )
        assert mem.get(a.id).status is Status.SUPERSEDED
        assert mem.get(a.id).superseded_by == r.memory.id
        assert mem.get(r.memory.id).sources == ["y", "x"]
        assert r.log_id is not None
        mem.undo(r.log_id)
        assert _snapshot(mem)[a.id] == first[a.id]
        mem.delete(r.memory.id)
        d = mem.add("Sam moved to Berlin", user_id="s", embedding=vec_with_cosine(0.92, axis=2))
        assert d.decision is not None and d.decision.action is Action.DELETE
        gone = mem.get(a.id)
        assert gone.status is Status.SUPERSEDED and gone.valid_to is not None
        links = mem.store.links_for([d.memory.id])
        assert [(lk.dst, lk.kind) for lk in links] == [(a.id, LinkKind.CONTRADICTS)]
        assert mem.get(d.memory.id).status is Status.ACTIVE
        assert d.log_id is not None
        mem.undo(d.log_id)
        restored = mem.get(a.id)
        assert restored.status is Status.ACTIVE and restored.valid_to is None
        assert mem.store.links_for([d.memory.id]) == []


def test_keep_separate_changes_nothing(db_path: Path, embedder: LocalEmbedder) -> None:
    judge = ScriptedJudge(lambda it: Decision(Action.KEEP_SEPARATE, confidence=0.7))
    with _mem(db_path, embedder, judge) as mem:
        mem.add("Sam likes tea", user_id="s", embedding=base())
        r = mem.add("Sam likes green tea", user_id="s", embedding=vec_with_cosine(0.95))
        assert r.decision is not None and r.decision.action is Action.KEEP_SEPARATE
        assert len(mem.list(user_id="s")) == 2
        assert mem.log(1)[0].action == "KEEP_SEPARATE"


def test_undo_refuses_when_later_changes_built_on_it(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    judge = ScriptedJudge(
        lambda it: Decision(
            Action.UPDATE, [_target(it)], text=it.candidates[0].memory.text, confidence=0.99
        )
    )
    with _mem(db_path, embedder, judge) as mem:
        a = mem.add("Sam likes tea", user_id="s", embedding=base()).memory
        r1 = mem.add("Sam likes tea", user_id="s", embedding=vec_with_cosine(0.99))
        edited = mem.update(a.id, text="Sam likes tea a lot")
        assert edited.version == 3
        edit_log = mem.log(1)[0].id
        assert r1.log_id is not None
        with pytest.raises(UndoRefused, match=f"#{edit_log} EDIT") as info:
            mem.undo(r1.log_id)
        assert info.value.blocking_log_ids == [edit_log]
        assert mem.get(a.id).text == "Sam likes tea a lot"
        undo_ids = mem.undo(r1.log_id, cascade=True)
        assert len(undo_ids) == 2
        # the content of version 1 under a new version (5: two writes, two undos)
        assert mem.get(a.id).text == "Sam likes tea" and mem.get(a.id).version == 5
        assert mem.get(r1.memory.id).status is Status.ACTIVE
        with pytest.raises(UndoRefused, match="already undone"):
            mem.undo(r1.log_id)


def test_a_result_text_that_drifts_from_every_source_is_refused(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    judge = ScriptedJudge(
        lambda it: Decision(
            Action.UPDATE,
            [_target(it)],
            text="Sam likes tea; mostly green tea",
            confidence=0.95,
        )
    )
    with Memory(db_path, embedder=embedder, judge=judge, consolidate="sync") as mem:
        # Real vectors for the sources, but the stored old memory's is synthetic: the
        # result text embeds far from both, so the breaker's drift bound refuses it.
        old = mem.add("Sam likes tea", user_id="s", embedding=base()).memory
        r = mem.add("Sam likes tea, mostly green tea", user_id="s", embedding=vec_with_cosine(0.95))
        assert r.decision is not None and r.decision.action is Action.KEEP_SEPARATE
        assert any("drift" in why for why in r.decision.downgrade_reasons)
        assert mem.get(old.id).text == "Sam likes tea"
        assert len(mem.list(user_id="s")) == 2


def test_a_contradiction_found_on_save_waits_in_the_review_queue(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    """Seed 003: contradictions are listed for a person; one the guards find on save too."""
    with Memory(db_path, embedder=embedder, consolidate="sync") as mem:  # the rule judge
        old = mem.add("Gabriela is allergic to cats.", user_id="u").memory
        new = mem.add("Gabriela is not allergic to cats.", user_id="u")
        assert new.decision is not None and new.decision.contradicts
        review = mem.review
        (listed,) = review.pending()["contradictions"]
        assert {listed["memory_a"], listed["memory_b"]} == {old.id, new.memory.id}
        assert listed["label"] == "CONTRADICTION" and "negated" in listed["note"]
        # A review run neither classifies it again nor lists it twice.
        review.run()
        assert len(review.pending()["contradictions"]) == 1
        # A person who knows the older is wrong rejects the pair: the link goes.
        review.reject(listed["id"], "she was tested again")
        assert review.pending()["contradictions"] == []
        kinds = {lk.kind for lk in mem.store.links_for([new.memory.id])}
        assert LinkKind.CONTRADICTS not in kinds
        # Saying nothing new about a pair already listed lists nothing more.
        mem.add("Gabriela keeps two cats at home.", user_id="u")
        assert review.pending()["contradictions"] == []
