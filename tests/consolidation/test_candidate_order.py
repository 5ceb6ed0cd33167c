"""Candidates follow insertion order, not created_at, and a batch sees its own changes."""

from __future__ import annotations

from pathlib import Path

from helpers.scripted import ScriptedJudge, base, vec_with_cosine
from memfold import Memory, Settings, Status
from memfold.embed.local import LocalEmbedder
from memfold.engine.on_save import candidates_for
from memfold.judge.base import SaveItem
from memfold.model import Action, Decision


def test_a_backdated_save_is_consolidated(db_path: Path, embedder: LocalEmbedder) -> None:
    with Memory(db_path, embedder=embedder, consolidate="sync") as mem:
        known = mem.add("Sam prefers Rust for systems work", user_id="s").memory
        old = mem.add(
            "Sam prefers Rust for systems work", user_id="s", created_at="2020-01-01T00:00:00Z"
        )
        # Saved later though dated earlier: judged against what was inserted before it.
        assert old.decision is not None and old.decision.action is not Action.SKIP
        assert old.log_id is not None
        assert len(mem.list(user_id="s")) == 1
        statuses = {mem.get(known.id).status, mem.get(old.memory.id).status}
        assert Status.SUPERSEDED in statuses


def test_saves_pending_together_are_judged_newer_against_older_only(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    with Memory(db_path, embedder=embedder, consolidate="queue") as mem:
        # The second save carries an older created_at; insertion order still rules.
        first = mem.add("Sam likes tea", user_id="s", embedding=base()).memory
        second = mem.add(
            "Sam likes tea!",
            user_id="s",
            embedding=vec_with_cosine(0.99),
            created_at="2001-01-01T00:00:00Z",
        ).memory
        assert [c.memory.id for c in candidates_for(mem.ctx, second)] == [first.id]
        assert candidates_for(mem.ctx, first) == []


def test_a_merge_in_a_batch_is_seen_by_the_next_save_of_that_batch(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    def decide(item: SaveItem) -> Decision:
        ids = [c.memory.id for c in item.candidates]
        if item.new.text == "Sam likes tea.":
            return Decision(Action.MERGE, [ids[0]], text=item.new.text, confidence=0.99)
        return Decision(Action.KEEP_SEPARATE, confidence=0.9, reasoning=",".join(ids))

    judge = ScriptedJudge(decide)
    with Memory(db_path, embedder=embedder, consolidate="off") as setup:
        tea = setup.add("Sam likes tea", user_id="s", embedding=base()).memory
    with Memory(db_path, embedder=embedder, judge=judge, consolidate="queue") as mem:
        merged_from = mem.add("Sam likes tea.", user_id="s", embedding=vec_with_cosine(0.99))
        later = mem.add("Sam likes green tea", user_id="s", embedding=vec_with_cosine(0.98, 2))
        assert mem.flush() == 2
        (merge,) = [e for e in mem.log(10) if e.action == "MERGE"]
        (merged_id,) = [i for i in merge.output_ids if i not in (tea.id, merged_from.memory.id)]
        assert mem.get(merged_id).consolidated_from == [merged_from.memory.id, tea.id]
        # One call decided both; the merge changed what the second save was judged on,
        # so it was judged again, against the merged memory (made after it was saved).
        assert judge.calls == 2
        assert [it.new.id for it in judge.seen[0]] == [merged_from.memory.id, later.memory.id]
        (again,) = judge.seen[1]
        assert again.new.id == later.memory.id
        assert [c.memory.id for c in again.candidates] == [merged_id]
        (kept,) = [e for e in mem.log(10) if e.input_ids[0] == later.memory.id]
        assert kept.action == "KEEP_SEPARATE" and kept.reasoning == merged_id


def test_a_backlog_of_newer_restatements_does_not_hide_the_older_memory(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    # Twelve identical restatements wait in the queue (cosine 1 to each other); the
    # memory they restate is older and a little further (cosine 0.95). The nearest ten of
    # the first restatement are all newer saves, which are not its candidates: the search
    # widens until it finds the older memory.
    with Memory(db_path, embedder=embedder, consolidate="off") as setup:
        known = setup.add("Sam likes tea", user_id="s", embedding=base()).memory
    with Memory(db_path, embedder=embedder, consolidate="queue") as mem:
        copies = [
            mem.add("Sam likes tea.", user_id="s", embedding=vec_with_cosine(0.95)).memory
            for _ in range(12)
        ]
        assert mem.settings.consolidation.candidates_fetched < len(copies)
        found = candidates_for(mem.ctx, copies[0])
        assert [c.memory.id for c in found] == [known.id]
        # The last one's older candidates are the other copies first (nearer), then it.
        last = [c.memory.id for c in candidates_for(mem.ctx, copies[-1])]
        assert len(last) == mem.settings.consolidation.candidates_judged
        assert set(last) <= {c.id for c in copies[:-1]}


def test_the_widening_stops_at_the_configured_cap(db_path: Path, embedder: LocalEmbedder) -> None:
    with Memory(db_path, embedder=embedder, consolidate="off") as setup:
        setup.add("Sam likes tea", user_id="s", embedding=base())
    settings = Settings(consolidation={"candidates_fetch_max": 10})
    with Memory(db_path, settings=settings, embedder=embedder, consolidate="queue") as mem:
        copies = [
            mem.add("Sam likes tea.", user_id="s", embedding=vec_with_cosine(0.95)).memory
            for _ in range(12)
        ]
        # At the cap the older memory stays out of reach: a missed merge, never a wrong one.
        assert candidates_for(mem.ctx, copies[0]) == []
