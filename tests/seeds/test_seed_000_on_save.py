"""Seed 000, the on-save consolidation engine (ADR 7), claim by claim: memfold's public
API on real SQLite files, a scripted OpenAI-compatible LLM, and docs/seeds.md's settings
for the seed's way (every judged save goes to the LLM, the update channel is off, the
rules never decide for the LLM)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from helpers.scripted import base, vec_with_cosine
from memfold import Memory, Settings, Status
from memfold.embed.calibration import scale_for
from memfold.embed.local import LocalEmbedder
from memfold.model import Action, Area
from memfold.testing.fake_llm import FakeLLMServer
from memfold.testing.fake_replies import Fault, Reply, logprob_tokens, user_payload

CHAT = "/chat/completions"
U = "crocbot"
KIM_OLD = "Kim waters the office plants every Monday morning before the weekly standup."
KIM_NEW = "Kim waters the office plants every Monday morning at nine before the standup."
KIM_MERGED = "Kim waters the office plants every Monday morning at nine before the weekly standup."
LEO_OLD = "Leo works at Finch Labs as a backend developer."
LEO_NEW = "Leo is a backend developer at Finch Labs."


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as srv:
        yield srv


def _settings(url: str, *, utility: dict[str, Any] | None = None, **llm: Any) -> Settings:
    return Settings(
        llm={
            "base_url": url,
            "model": "utility-model",
            "api_key": "k",
            "utility": {"timeout_s": 1.0, "max_retries": 0, **(utility or {})},
            "rules_first_confidence": None,
            "fallback_after_failures": None,
            **llm,
        },
        consolidation={"update_channel_max": 0, "backoff_s": 0.01, "backoff_max_s": 0.01},
    )


def _memory(path: Path, server: FakeLLMServer, embedder: LocalEmbedder, **kw: Any) -> Memory:
    settings = _settings(server.base_url, **kw)
    return Memory(path, settings=settings, embedder=embedder, consolidate="sync")


@pytest.fixture
def mem(server: FakeLLMServer, db_path: Path, embedder: LocalEmbedder) -> Iterator[Memory]:
    with _memory(db_path, server, embedder) as m:
        yield m


def _lines(
    action: str, *, area: str = "main", importance: int = 5, text: str | None = None
) -> Callable[[dict[str, Any]], Reply]:
    """An LLM deciding every item with one line on candidate 1, its action token at 0.95."""

    def respond(body: dict[str, Any]) -> Reply:
        rows = []
        for item in user_payload(body)["items"]:
            target = "-" if action == "KEEP_SEPARATE" else "1"
            row = f"{item['item']} scripted reason: {action} {target} {area} {importance}"
            rows.append(row if text is None else f"{row} | {text}")
        reply = "\n".join(rows)
        return Reply(reply, logprobs=logprob_tokens(reply, {action: 0.95}))

    return respond


def _active(mem: Memory) -> set[str]:
    return {m.id for m in mem.list(user_id=U)}


def test_each_save_is_compared_right_after_insertion(server: FakeLLMServer, mem: Memory) -> None:
    """Seed: "Each new memory is compared against existing similar memories immediately
    after insertion"."""
    server.set_script(_lines("KEEP_SEPARATE"))
    mem.add(LEO_OLD, user_id=U)
    assert server.request_count(CHAT) == 0  # nothing to compare with yet
    r = mem.add(LEO_NEW, user_id=U)
    assert server.request_count(CHAT) == 1
    (item,) = user_payload(server.chat_requests[-1])["items"]
    assert item["new"]["text"] == LEO_NEW
    assert [c["text"] for c in item["candidates"]] == [LEO_OLD]
    assert r.decision is not None and r.decision.judge == "llm"


def test_merge_soft_deletes_both_and_inserts_a_merged_entry(
    server: FakeLLMServer, mem: Memory
) -> None:
    """MERGE: "Both originals are soft-deleted; a new merged entry is inserted", its
    consolidated_from the "JSON array of chunk IDs that were merged into this entry"."""
    server.set_script(_lines("MERGE", text=KIM_MERGED))
    old = mem.add(KIM_OLD, user_id=U).memory
    assert old.consolidated_from == []
    r = mem.add(KIM_NEW, user_id=U)
    assert r.decision is not None and r.decision.action is Action.MERGE
    (merged_id,) = _active(mem)
    merged = mem.get(merged_id)
    assert merged_id not in (old.id, r.memory.id) and merged.text == KIM_MERGED
    assert sorted(merged.consolidated_from) == sorted([old.id, r.memory.id])
    for original, text in ((old.id, KIM_OLD), (r.memory.id, KIM_NEW)):
        kept = mem.get(original)  # soft: still readable, its text intact
        assert (kept.status, kept.superseded_by, kept.text) == (Status.SUPERSEDED, merged_id, text)


def test_replace_soft_deletes_the_old_entry(server: FakeLLMServer, mem: Memory) -> None:
    """REPLACE: "New memory supersedes old. Old entry is soft-deleted.\""""
    server.set_script(_lines("REPLACE"))
    old = mem.add(LEO_OLD, user_id=U).memory
    r = mem.add(LEO_NEW, user_id=U)
    assert r.decision is not None and r.decision.action is Action.REPLACE
    assert _active(mem) == {r.memory.id}
    gone = mem.get(old.id)  # soft: still readable, its text intact
    assert gone.status is Status.SUPERSEDED and gone.superseded_by == r.memory.id
    assert gone.text == LEO_OLD


def test_keep_separate_mutates_nothing(server: FakeLLMServer, mem: Memory) -> None:
    """KEEP_SEPARATE: "No mutation. Both entries remain.\""""
    server.set_script(_lines("KEEP_SEPARATE"))
    old = mem.add("Zoe visited Japan in 2019.", user_id=U).memory
    r = mem.add("Zoe visited Japan in 2022.", user_id=U)
    assert r.decision is not None and r.decision.action is Action.KEEP_SEPARATE
    assert server.request_count(CHAT) == 1 and _active(mem) == {old.id, r.memory.id}
    for before in (old, r.memory):
        now = mem.get(before.id)
        assert (now.text, now.version, now.status) == (before.text, 1, Status.ACTIVE)


def test_update_enriches_the_existing_entry_and_re_embeds_it(
    server: FakeLLMServer, mem: Memory
) -> None:
    """UPDATE: "Enrich existing memory with new information without creating a new
    entry ... (content + re-embed)"."""
    old_text = "The weekly team retro is held on Thursdays at the main office."
    new_text = "The weekly team retro is held on Thursdays at the main office, in room 4B."
    server.set_script(_lines("UPDATE", text=new_text))
    old = mem.add(old_text, user_id=U).memory
    r = mem.add(new_text, user_id=U)
    assert r.decision is not None and r.decision.action is Action.UPDATE
    assert _active(mem) == {old.id}  # the existing entry, no new one
    enriched = mem.get(old.id)
    assert enriched.text == new_text and enriched.version == 2
    assert enriched.embedding is not None and old.embedding is not None
    assert not np.allclose(enriched.embedding, old.embedding)
    assert mem.get(r.memory.id).superseded_by == old.id


UNRECOGNIZED = Reply({"decisions": [{"item": 1, "action": "FROBNICATE", "targets": [1]}]})


@pytest.mark.parametrize(
    "fault",
    [Fault.DELAY, Fault.SERVER_ERROR, Fault.MALFORMED, Fault.TRUNCATED, "unrecognized action"],
)
def test_skip_is_the_fallback_for_every_fault_and_nothing_is_lost(
    server: FakeLLMServer, mem: Memory, fault: Fault | str
) -> None:
    """SKIP: "Universal fallback for any LLM response that fails to parse, times out, or
    returns an unrecognized action" ... "never corrupt or lose memory data"."""
    server.set_script(_lines("MERGE", text=KIM_MERGED))
    old = mem.add(KIM_OLD, user_id=U).memory
    if isinstance(fault, Fault):
        server.fail_next(fault, delay_s=5.0)  # past the 1 s timeout
    else:
        server.set_script([UNRECOGNIZED])
    r = mem.add(KIM_NEW, user_id=U)
    assert server.request_count(CHAT) == 1
    assert r.decision is not None and r.decision.action is Action.SKIP and r.decision.reasoning
    assert _active(mem) == {old.id, r.memory.id}
    assert [mem.get(old.id).text, mem.get(r.memory.id).text] == [KIM_OLD, KIM_NEW]
    assert not [e for e in mem.log(10) if e.action != "SKIP"]


def test_below_the_discovery_threshold_no_llm_call(server: FakeLLMServer, mem: Memory) -> None:
    """Seed: "Memories with cosine similarity >= 0.7 are candidates ... Below this, no LLM
    call is made" (the update channel off: consolidation.update_channel_max=0)."""
    server.set_script(_lines("KEEP_SEPARATE"))
    mem.add("Sam likes tea", user_id=U, embedding=base())
    below = mem.add("Sam likes green tea", user_id=U, embedding=vec_with_cosine(0.69))
    assert below.decision is None and server.request_count(CHAT) == 0
    mem.add("Sam lives in Lyon", user_id="sam")  # a change told at a real cosine ~0.64
    moved = mem.add("Sam moved to Berlin", user_id="sam")
    assert moved.decision is None and server.request_count(CHAT) == 0
    above = mem.add("Sam likes black tea", user_id=U, embedding=vec_with_cosine(0.71, axis=2))
    assert above.decision is not None and server.request_count(CHAT) == 1
    assert mem.log(1)[0].similarity == pytest.approx(0.71, abs=1e-4)


def test_a_merge_at_075_is_downgraded_to_keep_separate(server: FakeLLMServer, mem: Memory) -> None:
    """Seed: "The LLM may recommend MERGE at 0.75 similarity, but the engine downgrades to
    KEEP_SEPARATE"."""
    server.set_script(_lines("MERGE", text=KIM_MERGED))
    old = mem.add(KIM_OLD, user_id=U, embedding=base()).memory
    r = mem.add(KIM_NEW, user_id=U, embedding=vec_with_cosine(0.75))
    assert r.decision is not None and r.decision.action is Action.KEEP_SEPARATE
    assert r.decision.downgraded_from is Action.MERGE
    assert any(
        "MERGE needs calibrated similarity >= 0.90" in why for why in r.decision.downgrade_reasons
    )
    assert _active(mem) == {old.id, r.memory.id}
    entry = mem.log(1)[0]
    assert entry.action == "KEEP_SEPARATE" and "downgraded from MERGE" in entry.reasoning
    assert entry.similarity == pytest.approx(0.75, abs=1e-4)


@pytest.mark.parametrize(("offset", "applied"), [(-0.01, False), (0.01, True)])
def test_replace_needs_the_destructive_threshold_090(
    server: FakeLLMServer, mem: Memory, embedder: LocalEmbedder, offset: float, applied: bool
) -> None:
    """Seed: "REPLACE and MERGE (destructive actions) require cosine similarity >= 0.9",
    read on the embedder's calibrated similarity (memfold.embed.calibration)."""
    scale = scale_for(embedder.model_id)
    raw = scale.to_raw(0.90) + offset
    assert (scale.calibrate(raw) >= 0.90) is applied
    server.set_script(_lines("REPLACE"))
    old = mem.add(LEO_OLD, user_id=U, embedding=base()).memory
    r = mem.add(LEO_NEW, user_id=U, embedding=vec_with_cosine(raw))
    assert r.decision is not None
    if applied:
        assert r.decision.action is Action.REPLACE and _active(mem) == {r.memory.id}
    else:
        assert r.decision.action is Action.KEEP_SEPARATE
        assert r.decision.downgraded_from is Action.REPLACE
        reasons = r.decision.downgrade_reasons
        assert any("calibrated similarity >= 0.90" in why for why in reasons)
        assert _active(mem) == {old.id, r.memory.id}


def test_the_log_holds_each_decision_and_reverses_it(server: FakeLLMServer, mem: Memory) -> None:
    """consolidation_log "stores every consolidation decision (action taken, source/target
    chunk IDs, similarity score, LLM reasoning, timestamp)", "for post-hoc audit and
    reversal"."""
    server.set_script(_lines("REPLACE"))
    old = mem.add(LEO_OLD, user_id=U, embedding=base()).memory
    start = datetime.now(UTC)
    r = mem.add(LEO_NEW, user_id=U, embedding=vec_with_cosine(0.95))
    (entry,) = mem.log(10)
    assert entry.id == r.log_id and entry.action == "REPLACE"
    assert set(entry.input_ids) == {old.id, r.memory.id}
    assert entry.similarity == pytest.approx(0.95, abs=1e-4)
    assert entry.reasoning == "scripted reason" and entry.judge == "llm"
    assert start <= entry.time <= datetime.now(UTC)
    before, after = entry.before["memories"][old.id], entry.after["memories"][old.id]
    assert (before["status"], after["status"]) == ("active", "superseded")
    assert before["text"] == LEO_OLD
    mem.undo(entry.id)
    assert _active(mem) == {old.id, r.memory.id}
    (undone,) = [e for e in mem.log(10) if e.id == entry.id]
    assert undone.undone_by is not None


@pytest.mark.parametrize("area", ["main", "fragments", "solutions", "instruments"])
def test_the_llm_assigns_one_of_four_areas_and_new_memories_default_to_main(
    server: FakeLLMServer, mem: Memory, area: str
) -> None:
    """Seed: "The LLM assigns area during consolidation; new memories default to main",
    one of main, fragments, solutions, instruments, and search filters on it."""
    assert {a.value for a in Area} == {"main", "fragments", "solutions", "instruments"}
    given = "fragments" if area == "main" else "main"
    server.set_script(_lines("KEEP_SEPARATE", area=area))
    first = mem.add("The CI cache broke after the runner upgrade.", user_id=U).memory
    assert first.area is Area.MAIN and server.request_count(CHAT) == 0
    text = "The CI cache broke after the runner upgrade; clearing ~/.cache/pip fixed it."
    new = mem.add(text, user_id=U, area=given).memory
    assert server.request_count(CHAT) == 1
    assert mem.get(new.id).area.value == area and mem.get(first.id).area is Area.MAIN
    assert new.id in [h.id for h in mem.search("CI cache fix", user_id=U, area=area)]
    assert new.id not in [h.id for h in mem.search("CI cache fix", user_id=U, area=given)]


def test_secrets_are_masked_in_the_prompt_and_restored_when_written_back(
    server: FakeLLMServer, mem: Memory
) -> None:
    """Seed: "Masking applies before sending content to the utility model. Unmasking
    applies only if the consolidated result is written back to the memory store"."""
    secret = "sk-proj-" + "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF"
    new_text = f"Use the key {secret} for the staging deploy; it is kept in the team vault."

    def respond(body: dict[str, Any]) -> Reply:
        (item,) = user_payload(body)["items"]  # the masked new text, written back
        reply = f"1 adds the vault: UPDATE 1 main 5 | {item['new']['text']}"
        return Reply(reply, logprobs=logprob_tokens(reply, {"UPDATE": 0.95}))

    server.set_script(respond)
    old = mem.add(f"Use the key {secret} for the staging deploy.", user_id=U).memory
    r = mem.add(new_text, user_id=U)
    sent = json.dumps(server.chat_requests)
    assert server.request_count(CHAT) == 1 and secret not in sent and "[[SECRET_1]]" in sent
    assert r.decision is not None and r.decision.action is Action.UPDATE
    assert mem.get(old.id).text == new_text  # the original secret, stored
    assert all("[[SECRET" not in m.text for m in mem.list(user_id=U))


@pytest.mark.parametrize("exhausted", ["daily token budget", "HTTP 429"])
def test_with_the_budget_exhausted_the_save_waits_for_the_next_cycle(
    server: FakeLLMServer, db_path: Path, embedder: LocalEmbedder, exhausted: str
) -> None:
    """Seed: "consolidation is silently skipped for that memory save. The memory is stored
    unconsolidated and will be picked up by the next successful consolidation cycle"
    (llm.fallback_after_failures=None: the rules never decide)."""
    server.set_script(_lines("REPLACE"))
    budget = exhausted == "daily token budget"
    if not budget:
        server.fail_next(Fault.RATE_LIMIT)
    limits = {"daily_token_budget": 0 if budget else None}
    with _memory(db_path, server, embedder, utility=limits) as mem:
        old = mem.add(LEO_OLD, user_id=U).memory
        r = mem.add(LEO_NEW, user_id=U)
        assert r.decision is not None and r.decision.action is Action.SKIP
        assert r.decision.transient and r.decision.judge != "rules"
        assert server.request_count(CHAT) == (0 if budget else 1)
        assert _active(mem) == {old.id, r.memory.id} and mem.log(10) == []
        assert mem.stats()["jobs_waiting"] == 1
    time.sleep(0.05)  # the backoff (0.01 s) passes
    with _memory(db_path, server, embedder) as mem:  # the next cycle, the budget back
        mem.flush()
        assert _active(mem) == {r.memory.id}
        (entry,) = mem.log(10)
        assert (entry.action, entry.judge) == ("REPLACE", "llm")
        assert server.request_count(CHAT) == (1 if budget else 2)


def test_consolidation_calls_go_to_the_utility_model_role(
    server: FakeLLMServer, db_path: Path, embedder: LocalEmbedder
) -> None:
    """Seed: "All consolidation LLM calls route through the Phase 11 utility model role",
    not to the main model on another endpoint."""
    server.set_script(_lines("KEEP_SEPARATE"))
    with FakeLLMServer() as main_server:
        utility = {"base_url": server.base_url, "model": "small-model"}
        settings = _settings(main_server.base_url, model="big-model", utility=utility)
        with Memory(db_path, settings=settings, embedder=embedder, consolidate="sync") as mem:
            mem.add(LEO_OLD, user_id=U)
            mem.add(LEO_NEW, user_id=U)
            assert server.request_count(CHAT) == 1 and main_server.request_count(CHAT) == 0
            assert server.chat_requests[0]["model"] == mem.log(1)[0].model == "small-model"
            assert [(u["task"], u["role"]) for u in mem.usage()] == [("consolidation", "utility")]


def test_importance_defaults_to_05_and_the_llm_assigns_it(
    server: FakeLLMServer, mem: Memory
) -> None:
    """Seed: "importance (REAL DEFAULT 0.5): LLM-assigned importance score, 0.0-1.0"."""
    server.set_script(_lines("KEEP_SEPARATE", importance=9))
    first = mem.add("Zoe visited Japan in 2019.", user_id=U).memory
    assert first.importance == pytest.approx(0.5)
    r = mem.add("Zoe visited Japan in 2022.", user_id=U)
    assert r.decision is not None and r.decision.importance == pytest.approx(0.9)
    assert mem.get(r.memory.id).importance == pytest.approx(0.9)


def test_the_seeds_numbers_are_the_defaults() -> None:
    """Seed: "0.7 (discovery threshold)", "0.9 (destructive threshold)", "a 60-second
    timeout"."""
    settings = Settings()
    assert settings.consolidation.discovery_threshold == pytest.approx(0.70)
    assert settings.consolidation.destructive_threshold == pytest.approx(0.90)
    assert settings.consolidation.timeout_s == settings.llm.utility.timeout_s == 60.0
