"""A consolidation pass's preparation syncs the vector index once for all its searches
(on PostgreSQL each sync asks the server for its change number: a round trip), and a
sync held by one thread never holds back another thread's."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

from helpers.scripted import ScriptedJudge, base, vec_with_cosine
from memfold import Memory, Settings, Status
from memfold.embed.local import LocalEmbedder
from memfold.judge.base import SaveItem
from memfold.model import Action, Decision


def _replace_the_oldest(item: SaveItem) -> Decision:
    oldest = min(item.candidates, key=lambda c: c.memory.created_at)
    return Decision(Action.REPLACE, [oldest.memory.id], confidence=0.99)


def test_a_preparation_asks_the_store_for_its_change_number_once(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    judge = ScriptedJudge(_replace_the_oldest)
    # Few candidates fetched: the pending restatements newer than a save fill them, so
    # each save searches again, deeper (candidates_for), several times a preparation.
    settings = Settings(
        consolidation={
            "batch_size": 16,
            "rules_claim_size": 16,
            "candidates_fetched": 2,
            "candidates_judged": 2,
        }
    )
    with Memory(
        db_path, settings=settings, embedder=embedder, judge=judge, consolidate="queue"
    ) as mem:
        seed = mem.add("Sam likes tea", user_id="s", embedding=base()).memory.id
        mem.flush()
        ids = [
            mem.add(
                f"Sam likes tea{'!' * n}",
                user_id="s",
                embedding=vec_with_cosine(0.99 - n / 1000, axis=n),
            ).memory.id
            for n in range(1, 13)
        ]
        store = mem.store
        asked: list[int] = []
        real_max_seq = store.max_seq

        def max_seq() -> int:
            asked.append(1)
            return real_max_seq()

        searches: list[int] = []
        index = mem.ctx.index
        real_search = index.search

        def search(*args: object, **kwargs: object) -> object:
            searches.append(1)
            return real_search(*args, **kwargs)  # type: ignore[arg-type]

        store.max_seq = max_seq  # type: ignore[method-assign]
        index.search = search  # type: ignore[assignment,method-assign]
        try:
            assert mem.flush() == len(ids)
        finally:
            store.max_seq = real_max_seq  # type: ignore[method-assign]
            index.search = real_search  # type: ignore[method-assign]
        preparations = judge.calls
        assert len(searches) > 2 * preparations  # the deeper searches did happen
        # One per preparation (the pass's start) and one for each later save's check
        # after a rewrite (_stale: the index must see the pass's own writes); before,
        # one per search besides.
        assert len(asked) <= preparations + len(ids), (len(asked), preparations, len(searches))
        assert mem.get(seed).status is Status.SUPERSEDED
        assert [m.id for m in mem.list(user_id="s", limit=100)] == [ids[-1]]


def test_one_threads_held_sync_does_not_hold_back_another_threads(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    with Memory(db_path, embedder=embedder, consolidate="off") as mem:
        ctx = mem.ctx
        saved = mem.add("Sam likes tea", user_id="s", embedding=base()).memory
        first, scope_key = saved.id, saved.scope.key()
        seen_in_thread: list[set[str]] = []
        with ctx.one_index_sync():
            before = ctx.synced_index().seq
            later = mem.add("Sam likes coffee", user_id="s", embedding=base()).memory.id
            assert ctx.synced_index().seq == before  # held: as of the block's sync

            def other_thread() -> None:
                hits = ctx.synced_index().search(scope_key, np.asarray(base(), np.float32), 5)
                seen_in_thread.append({mid for mid, _ in hits})

            worker = threading.Thread(target=other_thread)
            worker.start()
            worker.join()
        assert seen_in_thread == [{first, later}]  # the other thread synced for itself
        assert ctx.synced_index().seq > before  # the index is shared: synced by the other
