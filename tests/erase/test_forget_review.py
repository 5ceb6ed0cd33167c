"""forget after a batch review: held merge proposals and breaker reasons lose its words."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from memfold import Memory
from memfold.embed.local import LocalEmbedder
from memfold.model import MemoryRecord
from review.support import FACTS, ScriptedJudge, fill_pairs, review_of, settings, union

NAME = "Zqvmarkerx"
DENTIST = f"Alice's dentist is Dr. {NAME} in Lyon."


def _merge(memories: Sequence[MemoryRecord]) -> str:
    text = union(memories)
    return "Alice's dentist is in Lyon." if NAME in text else text  # drops the name: held


def test_forget_scrubs_a_held_merge_and_its_breaker_reasons(
    tmp_path: Path, embedder: LocalEmbedder
) -> None:
    path = tmp_path / "review.db"
    judge = ScriptedJudge()
    judge.merge = _merge
    with Memory(
        path, embedder=embedder, consolidate="off", settings=settings(gate_min_pairs=5)
    ) as mem:
        pairs = fill_pairs(mem, judge, [0.95] * 6, facts=[DENTIST, *FACTS[1:6]])
        run = review_of(mem, judge).run()
        assert run.counts["held"] == 1 and run.counts["merged"] == 5
        (event,) = run.breaker["events"]
        assert any(NAME.lower() in r for r in event["reasons"])  # the result check quotes it
        held = review_of(mem, judge).pending()["held"]
        assert len(held) == 1 and NAME not in held[0]["proposal"]["text"]
        report = mem.forget(pairs[0][0])
        assert report.rows_removed["review_queue"] == 1 and report.rows_removed["review_runs"] == 1
        (after,) = mem.store.list_review_runs()
        assert after.breaker["events"][0]["reasons"] == ["[removed: about an erased memory]"]
        assert after.counts == run.counts  # the run's figures stay
        assert len(mem.list(limit=None)) == 6  # the other side of the pair and 5 merges
    raw = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("review.db"))
    assert b"drops name" not in raw and b"length drop" not in raw
    assert DENTIST.encode() not in raw
    assert NAME.encode() in raw  # the other side of the pair says it too (", as noted earlier")
