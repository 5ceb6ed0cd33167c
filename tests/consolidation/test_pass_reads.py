"""What a consolidation pass reads: the saves of a batch in one query, each memory's
insertion order once (it never changes), however often the pass prepares its rest."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from helpers.scripted import ScriptedJudge, base, vec_with_cosine
from memfold import Memory, Settings, Status
from memfold.embed.local import LocalEmbedder
from memfold.judge.base import SaveItem
from memfold.model import Action, Decision


def _replace_the_oldest(item: SaveItem) -> Decision:
    oldest = min(item.candidates, key=lambda c: c.memory.created_at)
    return Decision(Action.REPLACE, [oldest.memory.id], confidence=0.99)


def test_a_pass_reads_its_saves_together_and_each_insertion_order_once(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    judge = ScriptedJudge(_replace_the_oldest)
    settings = Settings(consolidation={"batch_size": 8, "rules_claim_size": 8})
    with Memory(
        db_path, settings=settings, embedder=embedder, judge=judge, consolidate="queue"
    ) as mem:
        seed = mem.add("Sam likes tea", user_id="s", embedding=base()).memory.id
        mem.flush()
        # Restatements of one fact: each REPLACE moves the candidates of the next save,
        # so the pass prepares its rest again after every decision.
        ids = [
            mem.add(
                f"Sam likes tea{'!' * n}",
                user_id="s",
                embedding=vec_with_cosine(0.99 - n / 1000, axis=n),
            ).memory.id
            for n in range(1, 7)
        ]
        store = mem.store
        single: list[str] = []
        asked: Counter[str] = Counter()
        real_get, real_order = store.get_memory, store.insertion_order

        def get_memory(memory_id: str) -> object:
            single.append(memory_id)
            return real_get(memory_id)

        def insertion_order(wanted: Iterable[str]) -> dict[str, int]:
            wanted = list(wanted)
            asked.update(wanted)
            return real_order(wanted)

        store.get_memory = get_memory  # type: ignore[assignment,method-assign]
        store.insertion_order = insertion_order  # type: ignore[assignment,method-assign]
        assert mem.flush() == 6
        store.get_memory, store.insertion_order = real_get, real_order  # type: ignore[method-assign]
        assert judge.calls >= 3  # prepared again and again
        # Loading the claimed saves reads them in one query (before: one each time the
        # rest was prepared); what is left is _stale's check of each later save.
        assert len(single) <= len(ids)
        assert max(asked.values()) == 1, asked  # before: the same ids many times
        assert mem.get(seed).status is Status.SUPERSEDED
        active = [m.id for m in mem.list(user_id="s", limit=100)]
        assert active == [ids[-1]]
