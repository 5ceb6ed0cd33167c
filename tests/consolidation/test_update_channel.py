"""The update channel: a change below the discovery cosine is judged, and may only
supersede (real SQLite, the real embedder; texts written for these tests)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memfold import Memory, Settings, Status
from memfold.embed.local import LocalEmbedder
from memfold.engine.on_save import candidates_for
from memfold.engine.update_channel import has_cue, update_match
from memfold.model import Action
from memfold.testing.fake_llm import FakeLLMServer
from memfold.testing.fake_replies import Reply, confident, user_payload

CHANNEL_ONLY = "may only be superseded"


def _via(mem: Memory, memory_id: str) -> dict[str, str]:
    """Candidate texts of a saved memory, by how they were found."""
    record = mem.get(memory_id)
    return {c.memory.text: c.via for c in candidates_for(mem.ctx, record)}


def test_a_move_below_discovery_supersedes_the_old_residence(mem_sync: Memory) -> None:
    old = mem_sync.add("Sam lives in Lyon.", user_id="u").memory
    new = mem_sync.add("Sam moved to Berlin.", user_id="u")
    # Found by the channel, not as a vector neighbour (cosine 0.64 < 0.70).
    assert new.decision is not None and new.decision.action is Action.DELETE
    assert new.decision.target_ids == [old.id]
    assert mem_sync.get(old.id).status is Status.SUPERSEDED
    assert [m.text for m in mem_sync.list(user_id="u")] == ["Sam moved to Berlin."]
    assert new.log_id is not None
    mem_sync.undo(new.log_id)
    assert mem_sync.get(old.id).status is Status.ACTIVE


def test_the_channel_finds_the_old_fact_only_for_a_change(mem_off: Memory) -> None:
    mem_off.add("Sam lives in Lyon.", user_id="u")
    moved = mem_off.add("Sam moved to Berlin.", user_id="u").memory
    assert _via(mem_off, moved.id) == {"Sam lives in Lyon.": "update"}
    # No change cue: no channel (whatever vector neighbours say).
    plain = mem_off.add("Sam visited Berlin last spring.", user_id="u").memory
    assert "update" not in _via(mem_off, plain.id).values()


def test_another_subject_or_attribute_is_no_channel_candidate(mem_sync: Memory) -> None:
    sam = mem_sync.add("Sam lives in Lyon.", user_id="u").memory
    likes = mem_sync.add("Sam likes Lyon.", user_id="u").memory
    ana = mem_sync.add("Ana moved to Berlin.", user_id="u")
    assert ana.decision is None or ana.decision.action is not Action.DELETE
    assert mem_sync.get(sam.id).status is Status.ACTIVE
    assert "Sam lives in Lyon." not in _via(mem_sync, ana.memory.id)
    moved = mem_sync.add("Sam moved to Berlin.", user_id="u")
    # What Sam likes is not where Sam lives: only the residence is superseded.
    assert mem_sync.get(likes.id).status is Status.ACTIVE
    assert mem_sync.get(sam.id).status is Status.SUPERSEDED
    assert moved.decision is not None and moved.decision.target_ids == [sam.id]


def test_another_scope_is_never_a_candidate(mem_sync: Memory) -> None:
    other = mem_sync.add("Sam lives in Lyon.", user_id="someone-else").memory
    mem_sync.add("Sam moved to Berlin.", user_id="u")
    assert mem_sync.get(other.id).status is Status.ACTIVE


@pytest.mark.parametrize("scoring", ["scope", "table"])
def test_the_channel_ranks_as_search_is_set_to(
    db_path: Path, embedder: LocalEmbedder, scoring: str
) -> None:
    # Among memories of the scope sharing the words, either keyword ranking finds the
    # residence: the scope's own BM25 (the default) or the table's.
    settings = Settings(search={"keyword_scoring": scoring})
    with Memory(db_path, settings=settings, embedder=embedder, consolidate="off") as mem:
        mem.add_many(
            [{"text": f"Sam visited Berlin on trip {i}.", "user_id": "u"} for i in range(10)]
        )
        mem.add("Sam lives in Lyon.", user_id="u")
        moved = mem.add("Sam moved to Berlin.", user_id="u").memory
        assert _via(mem, moved.id).get("Sam lives in Lyon.") == "update"


def test_channel_off_leaves_the_update_unjudged(db_path: Path, embedder: LocalEmbedder) -> None:
    settings = Settings(consolidation={"update_channel_max": 0})
    with Memory(db_path, settings=settings, embedder=embedder, consolidate="sync") as mem:
        old = mem.add("Sam lives in Lyon.", user_id="u").memory
        new = mem.add("Sam moved to Berlin.", user_id="u")
        assert new.decision is None  # nothing at 0.70 or above: no judge call
        assert mem.get(old.id).status is Status.ACTIVE


@pytest.mark.parametrize(
    ("older", "newer", "matches"),
    [
        ("The user's manager is Greg.", "The user now reports to Patricia.", True),
        ("The user's job title is Data Analyst.", "The user's title changed to Engineer.", True),
        ("The frontend is deployed on Heroku.", "The frontend now deploys to Vercel.", True),
        # The subject word alone is no attribute.
        ("The frontend is a Next.js app.", "The frontend now deploys to Vercel.", False),
        ("The company has 400 employees.", "The company moved its office to Austin.", False),
        ("Sam lives in Lyon.", "Sam lives in Berlin.", False),  # no change cue
        ("Sam lives in Lyon.", "Now Sam lives in Berlin.", True),  # the cue first
        # a cue phrase first: its own words are no subject ("days")
        (
            "The user's favourite board game is Catan.",
            "These days the user's favourite board game is Wingspan.",
            True,
        ),
        # the cue last, or after a fronted phrase: the run the older holds is the subject
        ("Soo-ah's team lead is Minjun Park.", "Soo-ah's team lead is Jiwoo Han now.", True),
        (
            "The user weighs 82 kg.",
            "After three months of training, the user now weighs 76 kg.",
            True,
        ),
        ("Ana's team lead is Minjun Park.", "Soo-ah's team lead is Jiwoo Han now.", False),
        # The newer names what the older holds as where its change came from.
        (
            "The deploy pipeline runs on Travis CI.",
            "The deploy pipeline was moved from Travis CI to Buildkite.",
            True,
        ),
        ("The user edits code in Vim.", "Ama switched from Vim to Helix.", False),  # another person
        ("The user edits code in Vim.", "The user switched from Emacs to Helix.", False),
        # what "replaced" takes is where the change came from, a name by its last word
        ("Lena drives a 2015 Honda Civic.", "Lena replaced her Civic with a Skoda Enyaq.", True),
        ("Lena drives a 2015 Honda Civic.", "Lena replaced her bike with a Skoda.", False),
        # what a copula says of someone's thing is its value, the thing its attribute
        ("The user's login shell is fish.", "The user changed their login shell to zsh.", True),
        ("The user's login shell is fish.", "The user changed their editor to Zed.", False),
        ("The user's login shell is fish.", "Kai changed his login shell to zsh.", False),
        # a note with no subject is the user's own
        (
            "User works as a product designer at Canva.",
            "Just started a new job as design lead at Figma this week.",
            True,
        ),
        ("Ana works as a product designer at Canva.", "Just started a new job at Figma.", False),
        # what a change verb takes is what changes; a subject's modifier names it too
        (
            "The client project deadline is November 15.",
            "On October 2 the client extended the project deadline to December 1.",
            True,
        ),
        (
            "The 'tidepool' app is deployed on Heroku.",
            "tidepool now runs on Fly.io; the Heroku deployment was shut down.",
            True,
        ),
        (
            "The 'tidepool' app is deployed on Heroku.",
            "The 'driftwood' app now runs on Fly.io.",
            False,
        ),
        # what "sold" takes is where the change came from
        ("User drives a 2014 Honda Civic.", "Sold the Civic last weekend and bought a RAV4.", True),
        ("User drives a 2014 Honda Civic.", "Sold the bike last weekend and bought a RAV4.", False),
        # an older the parse finds no subject in ("stores" read as a noun): its names
        # and nouns stand for it
        (
            "The auth service stores user sessions in Redis.",
            "Auth service sessions were migrated from Redis to DynamoDB.",
            True,
        ),
        (
            "The auth service stores user sessions in Redis.",
            "The billing queue was migrated from RabbitMQ to SQS.",
            False,
        ),
    ],
)
def test_subject_and_attribute_match(older: str, newer: str, matches: bool) -> None:
    assert bool(update_match(older, newer, 0.5)) is matches


# -- a scripted LLM judge: a channel candidate is never folded --------------------------


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as srv:
        yield srv


def _answer(action: str) -> Any:
    def respond(body: dict[str, Any]) -> Reply:
        decisions = []
        for item in user_payload(body)["items"]:
            cand = item["candidates"][0]
            decisions.append(
                {
                    "item": item["item"],
                    "action": action,
                    "target_ids": [cand["id"]],
                    "text": f"{cand['text']} {item['new']['text']}" if action != "DELETE" else None,
                    "area": "main",
                    "importance": 0.5,
                    "confidence": 0.97,
                    "reasoning": f"scripted {action}",
                }
            )
        return confident({"decisions": decisions})

    return respond


def _llm_settings(server: FakeLLMServer) -> Settings:
    return Settings(
        llm={
            "base_url": server.base_url,
            "model": "fake-model",
            "api_key": "k",
            "utility": {"timeout_s": 2.0, "max_retries": 1},
            "rules_first_confidence": None,  # every judged save goes to the LLM
        }
    )


@pytest.mark.parametrize("action", ["MERGE", "UPDATE", "REPLACE"])
def test_an_llm_fold_of_a_channel_candidate_is_refused(
    server: FakeLLMServer, db_path: Path, embedder: LocalEmbedder, action: str
) -> None:
    server.set_script(_answer(action))
    settings = _llm_settings(server)
    with Memory(db_path, settings=settings, embedder=embedder, consolidate="sync") as mem:
        old = mem.add("Sam lives in Lyon.", user_id="u").memory
        new = mem.add("Sam moved to Berlin.", user_id="u")
        assert server.request_count("/chat/completions") == 1  # the channel was judged
        decision = new.decision
        assert decision is not None and decision.action is Action.KEEP_SEPARATE
        assert decision.downgraded_from is Action(action)
        assert any(CHANNEL_ONLY in r for r in decision.downgrade_reasons)
        assert mem.get(old.id).status is Status.ACTIVE
        assert mem.get(old.id).text == "Sam lives in Lyon."
        assert mem.get(new.memory.id).status is Status.ACTIVE


def test_an_llm_delete_of_a_channel_candidate_passes_with_evidence(
    server: FakeLLMServer, db_path: Path, embedder: LocalEmbedder
) -> None:
    server.set_script(_answer("DELETE"))
    settings = _llm_settings(server)
    with Memory(db_path, settings=settings, embedder=embedder, consolidate="sync") as mem:
        old = mem.add("Sam lives in Lyon.", user_id="u").memory
        new = mem.add("Sam moved to Berlin.", user_id="u")
        assert new.decision is not None and new.decision.action is Action.DELETE
        assert mem.get(old.id).status is Status.SUPERSEDED


def test_a_date_alone_or_a_trip_opens_no_keyword_search() -> None:
    # "As of" dates a value (the rules still read it on a vector neighbour); "went to"
    # is a trip. Each would cost a keyword search of the whole scope.
    assert not has_cue("As of 2002, I enjoy listening to metal music.")
    assert not has_cue("I went to the beach with Dana.")
    assert not has_cue("Lina grew up in Lima.")
    assert has_cue("The phone contract went up to 29 pounds a month.")
    assert has_cue("Soo-ah's team lead is now Jiwoo Han.")
