"""BEAM as facts: each message added with infer=True, and handled meaning one fact of
the original message retired for a fact of the updated one (real SQLite, the real
embedder; messages written for these tests)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from memfold import Settings, Status
from memfold.embed.local import LocalEmbedder
from memfold.evaluation.beam_facts import bare, ingest_facts, retired_for, supersedes
from memfold.evaluation.conversations import BeamChat, StreamItem
from memfold.evaluation.embed_cache import CachingEmbedder
from memfold.evaluation.env import EvalEnv, make_progress

T0 = datetime(2024, 3, 1, tzinfo=UTC)


def _chat(*texts: str) -> BeamChat:
    chat = BeamChat(1)
    for n, text in enumerate(texts):
        chat.messages.append(StreamItem(text, (str(2 * n),), T0 + timedelta(seconds=n)))
    return chat


def test_a_fact_of_the_original_retired_for_the_update_is_handled(
    tmp_path: Path, embedder: LocalEmbedder
) -> None:
    chat = _chat(
        "I have a Zoom meeting with Professor Danielle on March 22 at 3 PM to review my "
        "draft, what should I ask her? ->-> 1,19",
        "My Zoom meeting with Professor Danielle is rescheduled to March 22 at 4:30 PM, "
        "and I'm kinda worried about missing it. ->-> 1,21",
        "I'm writing 1,200 words per week for my essay on coastal erosion. ->-> 1,22",
    )
    with make_progress() as progress:
        env = EvalEnv(
            tmp_path,
            "dev",
            "rules",
            Settings(),
            CachingEmbedder(embedder, None),
            tmp_path,
            progress,
        )
        mem = env.memory("beam-facts", "sync")
        try:
            facts = ingest_facts(mem, chat, env)
            assert set(facts.by_message) == {"0", "2", "4"}
            (found,) = retired_for(mem, facts, ("0",), ("2",))
            assert found["original"].endswith("on March 22 at 3 PM to review User's draft")
            assert "4:30 PM" in found["now"]
            # Retired for the meeting, not for the essay: no other update is handled.
            assert retired_for(mem, facts, ("0",), ("4",)) == []
            assert retired_for(mem, facts, ("4",), ("2",)) == []
            (essay,) = facts.by_message["4"]
            assert mem.get(essay).status is Status.ACTIVE
            assert [(s["retired_messages"], s["now_messages"]) for s in supersedes(mem, facts)] == [
                (["0"], ["2"])
            ]
        finally:
            mem.close()


def test_the_annotation_is_dropped_and_nothing_else() -> None:
    assert bare("I have 10 cards ->-> 2,25") == "I have 10 cards"
    assert bare("the ratio 1,2 -> 3") == "the ratio 1,2 -> 3"


def test_a_fact_retired_for_the_update_and_then_for_a_newer_one_is_handled(
    tmp_path: Path, embedder: LocalEmbedder
) -> None:
    # The meeting moves twice: the first fact was retired for the update, whose fact a
    # still newer one retired since (as with whole messages, ``run_beam.handled``).
    chat = _chat(
        "I have a Zoom meeting with Professor Danielle on March 22 at 3 PM to review my draft",
        "My Zoom meeting with Professor Danielle is rescheduled to March 22 at 4:30 PM, "
        "and I'm kinda worried about missing it.",
        "My Zoom meeting with Professor Danielle is now rescheduled to March 25 at 10 AM.",
    )
    with make_progress() as progress:
        env = EvalEnv(
            tmp_path,
            "dev",
            "rules",
            Settings(),
            CachingEmbedder(embedder, None),
            tmp_path,
            progress,
        )
        mem = env.memory("beam-facts", "sync")
        try:
            facts = ingest_facts(mem, chat, env)
            (found,) = retired_for(mem, facts, ("0",), ("2",))
            assert "4:30 PM" in found["for"] and "March 25" in found["now"]
            (moved,) = facts.by_message["2"]
            assert mem.get(moved).status is not Status.ACTIVE
            # The update's own fact is no original retired for it.
            assert retired_for(mem, facts, ("2",), ("2",)) == []
        finally:
            mem.close()
