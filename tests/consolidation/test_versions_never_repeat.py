"""A memory's version never repeats, so a decision planned before an undo cannot pass
its version check afterwards and overwrite an edit the user made since."""

from __future__ import annotations

from pathlib import Path

from helpers.scripted import ScriptedJudge, base
from memfold import Memory, Settings, Status
from memfold.embed.local import LocalEmbedder
from memfold.judge.base import SaveItem
from memfold.model import Action, Decision


def test_undo_gives_a_new_version_not_the_old_one(db_path: Path, embedder: LocalEmbedder) -> None:
    with Memory(db_path, embedder=embedder, consolidate="off") as mem:
        rec = mem.add("Noor lives in Leeds", user_id="n", embedding=base()).memory
        edited = mem.update(rec.id, text="Noor lives in York")
        (undo_id,) = mem.undo(mem.history(rec.id)[-1].id)
        restored = mem.get(rec.id)
        again = mem.update(rec.id, text="Noor lives in Hull")
        assert [rec.version, edited.version, restored.version, again.version] == [1, 2, 3, 4]
        assert restored.text == "Noor lives in Leeds"
        # The undo row's after-state names the version it wrote.
        (undo_row,) = [e for e in mem.history(rec.id) if e.id == undo_id]
        assert undo_row.after["memories"][rec.id]["version"] == 3


def test_a_stale_replace_planned_before_an_undo_and_a_new_edit_is_replanned(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    # The audit's steps: an edit makes version 2; a restatement is judged; meanwhile the
    # edit is undone and a new edit is made. Before, the new edit was version 2 again,
    # the stale REPLACE passed its check, and the user's new text was superseded.
    settings = Settings(consolidation={"conflict_backoff_s": 0.0})
    box: list[Memory] = []
    state = {"raced": False}

    def decide(item: SaveItem) -> Decision:
        target = item.candidates[0].memory
        mem = box[0]
        if not state["raced"]:
            state["raced"] = True
            mem.undo(mem.history(target.id)[-1].id)
            mem.update(target.id, text="Sam likes black tea with milk")
            return Decision(Action.REPLACE, [target.id], confidence=0.99)
        # Re-planned on what is there now: the judge sees the user's new text.
        assert target.text == "Sam likes black tea with milk"
        return Decision(Action.KEEP_SEPARATE, [], confidence=0.9)

    judge = ScriptedJudge(decide)
    with Memory(
        db_path, settings=settings, embedder=embedder, judge=judge, consolidate="queue"
    ) as mem:
        box.append(mem)
        target = mem.add("Sam likes tea", user_id="s", embedding=base()).memory.id
        mem.flush()
        mem.update(target, text="Sam likes black tea")
        mem.add("Sam likes black tea!", user_id="s")  # the embedder: near the edit
        mem.flush()
        assert judge.calls == 2  # the stale REPLACE met a conflict and was planned again
        now = mem.get(target)
        assert now.status is Status.ACTIVE and now.superseded_by is None
        assert now.text == "Sam likes black tea with milk"
        assert "REPLACE" not in [e.action for e in mem.log(100) if e.path == "on_save"]
