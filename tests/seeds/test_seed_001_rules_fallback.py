"""Seed 001, LLM consolidation with the rules as fallback, claim by claim: memfold's
public API on real SQLite files and a scripted OpenAI-compatible LLM. Default settings,
except where docs/seeds.md names a setting (``llm.rules_first_confidence``: every save to
the LLM; ``llm.fallback_after_failures``: when the rules take over)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers.scripted import base, vec_with_cosine
from memfold import Action, AddResult, Memory, Settings, Status
from memfold.embed.local import LocalEmbedder
from memfold.judge.prompts import load_prompt
from memfold.model import LinkKind
from memfold.testing.fake_llm import FakeLLMServer
from memfold.testing.fake_replies import Fault, Reply, logprob_tokens, user_payload

CHAT = "/chat/completions"
U = "squid"
DEFAULT = object()  # memfold's default for a setting (a parameter not passed)
KIM_A = "Kim waters the office plants every Monday morning before the weekly standup."
KIM_B = "Every Monday morning Kim waters the office plants before the weekly standup."
KIM_NEW = "Kim waters the office plants every Monday morning at nine before the standup."
KIM_ALL = "Kim waters the office plants every Monday morning at nine before the weekly standup."
# Pairs the rules leave to the LLM (neither a restatement nor a change they are sure of).
PAIRS = [
    ("Sam likes hiking in the Alps.", "Sam goes hiking in the Alps every summer."),
    ("Ana likes swimming in the lake.", "Ana goes swimming in the lake every morning."),
    ("Bo likes reading crime novels.", "Bo reads a crime novel every week."),
]


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as srv:
        yield srv


def _settings(url: str, **llm: Any) -> Settings:
    """The scripted endpoint; one try a call; a transient failure retried after 10 ms."""
    return Settings(
        llm={
            "base_url": url,
            "model": "utility-model",
            "api_key": "k",
            "utility": {"timeout_s": 5.0, "probe_timeout_s": 0.5, "max_retries": 0},
            **{k: v for k, v in llm.items() if v is not DEFAULT},
        },
        consolidation={"backoff_s": 0.01, "backoff_max_s": 0.01},
    )


def _memory(
    path: Path, url: str, embedder: LocalEmbedder, mode: str = "sync", **llm: Any
) -> Memory:
    return Memory(path, settings=_settings(url, **llm), embedder=embedder, consolidate=mode)


@pytest.fixture
def mem(server: FakeLLMServer, db_path: Path, embedder: LocalEmbedder) -> Iterator[Memory]:
    with _memory(db_path, server.base_url, embedder) as m:
        yield m


def _lines(
    action: str, targets: str = "1", text: str | None = None, delay_s: float | None = None
) -> Callable[[dict[str, Any]], Reply]:
    """An LLM deciding every item with ``action`` on ``targets``, its token at 0.95."""

    def respond(body: dict[str, Any]) -> Reply:
        rows = []
        for item in user_payload(body)["items"]:
            row = f"{item['item']} scripted reason: {action} {targets} main 5"
            rows.append(row if text is None else f"{row} | {text}")
        reply = "\n".join(rows)
        return Reply(reply, logprobs=logprob_tokens(reply, {action: 0.95}), delay_s=delay_s)

    return respond


def _active(mem: Memory) -> dict[str, str]:
    return {m.id: m.text for m in mem.list(user_id=U)}


def _how(r: AddResult) -> tuple[Action, str] | None:
    """What the save's decision did, and who decided (None: not decided yet)."""
    return None if r.decision is None else (r.decision.action, r.decision.judge)


def test_add_stores_genuinely_new_information_as_a_new_memory(
    server: FakeLLMServer, mem: Memory
) -> None:
    """Seed: "ADD — genuinely new information, store as new memory"."""
    server.set_script(_lines("ADD", "-"))
    old = mem.add(PAIRS[0][0], user_id=U).memory
    r = mem.add(PAIRS[0][1], user_id=U)
    assert _how(r) == (Action.ADD, "llm")
    assert server.request_count(CHAT) == 1
    assert _active(mem) == {old.id: PAIRS[0][0], r.memory.id: PAIRS[0][1]}


def test_update_refines_an_existing_memory_with_the_llms_text(
    server: FakeLLMServer, mem: Memory
) -> None:
    """Seed: "UPDATE — refines or supersedes an existing memory, merge them" and "LLM
    returns the operation (ADD/UPDATE/DELETE/MERGE) with the resulting memory text"."""
    server.set_script(_lines("UPDATE", text=KIM_ALL))
    old = mem.add(KIM_A, user_id=U).memory
    r = mem.add(KIM_NEW, user_id=U)
    assert _how(r) == (Action.UPDATE, "llm")
    assert _active(mem) == {old.id: KIM_ALL}  # the existing memory, rewritten in place
    assert mem.get(old.id).version == 2 and mem.get(r.memory.id).superseded_by == old.id
    (link,) = mem.links(old.id).links
    assert (link.kind, link.direction, link.id) == (LinkKind.UPDATES, "out", r.memory.id)


@pytest.mark.parametrize(("rules_first", "judge"), [(DEFAULT, "rules"), (None, "llm")])
def test_delete_marks_the_retracted_memory_invalid(
    server: FakeLLMServer, db_path: Path, embedder: LocalEmbedder, rules_first: Any, judge: str
) -> None:
    """Seed: "DELETE — explicitly contradicted or retracted, mark as invalid". By default
    the rules settle a change they read word for word (no call); with
    llm.rules_first_confidence=None the LLM's DELETE is applied."""
    server.set_script(_lines("DELETE"))
    old_text = "Sam's team uses Jenkins for CI."
    new_text = "Sam's team no longer uses Jenkins; CI moved to GitHub Actions."
    with _memory(db_path, server.base_url, embedder, rules_first_confidence=rules_first) as mem:
        old = mem.add(old_text, user_id=U).memory
        r = mem.add(new_text, user_id=U)
        assert _how(r) == (Action.DELETE, judge)
        assert server.request_count(CHAT) == (1 if judge == "llm" else 0)
        assert _active(mem) == {r.memory.id: new_text}
        retired = mem.get(old.id)  # invalid from now on, still readable
        assert retired.status is Status.SUPERSEDED and retired.valid_to is not None
        assert retired.text == old_text and retired.superseded_by == r.memory.id
        (link,) = mem.links(old.id).links
        assert (link.kind, link.direction, link.id) == (LinkKind.CONTRADICTS, "in", r.memory.id)


def test_merge_combines_memories_saying_the_same_thing_into_one(
    server: FakeLLMServer, mem: Memory
) -> None:
    """Seed: "MERGE — two existing memories say the same thing differently, combine into
    one", its text the one the LLM returned."""
    server.set_script(_lines("MERGE", "1,2", KIM_ALL))
    items = [{"text": t, "user_id": U} for t in (KIM_A, KIM_B)]
    a, b = (r.memory for r in mem.add_many(items, consolidate=False))
    assert len(_active(mem)) == 2
    r = mem.add(KIM_NEW, user_id=U)
    assert _how(r) == (Action.MERGE, "llm")
    ((merged_id, text),) = _active(mem).items()
    assert text == KIM_ALL
    assert sorted(mem.get(merged_id).consolidated_from) == sorted([a.id, b.id, r.memory.id])
    for original in (a.id, b.id, r.memory.id):
        assert mem.get(original).superseded_by == merged_id


def test_the_operation_is_applied_to_the_graph_and_readable(
    server: FakeLLMServer, mem: Memory
) -> None:
    """Seed: "Apply the operation to the graph": the merge's links, read through
    Memory.links and export_graph (JSON and GraphML)."""
    server.set_script(_lines("MERGE", text=KIM_ALL))
    old = mem.add(KIM_A, user_id=U).memory
    new = mem.add(KIM_NEW, user_id=U).memory
    (merged_id,) = _active(mem)
    links = mem.links(merged_id).links
    assert {(lk.kind, lk.direction, lk.id) for lk in links} == {
        (LinkKind.DERIVED_FROM, "out", old.id),
        (LinkKind.DERIVED_FROM, "out", new.id),
    }
    graph = json.loads(mem.export_graph(user_id=U))
    assert {n["id"] for n in graph["nodes"]} == {old.id, new.id, merged_id}
    edges = {(e["source"], e["target"], e["kind"]) for e in graph["edges"]}
    assert edges == {(merged_id, old.id, "derived_from"), (merged_id, new.id, "derived_from")}
    graphml = mem.export_graph(user_id=U, format="graphml")
    assert graphml.count("derived_from") >= 2 and merged_id in graphml


def test_the_top_k_most_similar_existing_memories_are_judged(
    server: FakeLLMServer, mem: Memory
) -> None:
    """Seed: "When new memories are extracted, retrieve the top-K most similar existing
    memories" (K = consolidation.candidates_judged, 5; below 0.70 none)."""
    server.set_script(_lines("KEEP_SEPARATE", "-"))
    cosines = [0.72, 0.98, 0.80, 0.90, 0.75, 0.95, 0.85, 0.50]
    texts = [f"Garden note {n}: the {w} bed needs water" for n, w in enumerate("ABCDEFGH")]
    vectors = [vec_with_cosine(c, axis=n + 1) for n, c in enumerate(cosines)]
    items = [{"text": t, "user_id": U} for t in texts]
    mem.add_many(items, embeddings=vectors, consolidate=False)
    mem.add("Garden note: water the beds", user_id=U, embedding=base())
    assert mem.settings.consolidation.candidates_judged == 5
    (item,) = user_payload(server.chat_requests[-1])["items"]
    nearest = sorted(range(8), key=lambda n: -cosines[n])[:5]  # 0.98 0.95 0.90 0.85 0.80
    assert [c["text"] for c in item["candidates"]] == [texts[n] for n in nearest]


def test_new_and_existing_memories_go_with_a_consolidation_prompt(
    server: FakeLLMServer, mem: Memory
) -> None:
    """Seed: "Send the new + existing memories to the LLM with a consolidation prompt"."""
    server.set_script(_lines("KEEP_SEPARATE", "-"))
    mem.add(PAIRS[1][0], user_id=U)
    mem.add(PAIRS[1][1], user_id=U)
    (body,) = server.chat_requests
    assert body["messages"][0] == {"role": "system", "content": load_prompt("consolidation").text}
    (item,) = user_payload(body)["items"]
    assert item["new"]["text"] == PAIRS[1][1]
    assert [c["text"] for c in item["candidates"]] == [PAIRS[1][0]]


@pytest.mark.parametrize("mode", ["queue", "background"])
def test_consolidation_does_not_block_the_caller(
    server: FakeLLMServer, db_path: Path, embedder: LocalEmbedder, mode: str
) -> None:
    """Seed: "Consolidation should be async (dont block process_turn)": with a 1 s LLM,
    add returns at once, undecided; the decision follows (flush)."""
    server.set_script(_lines("KEEP_SEPARATE", "-", delay_s=1.0))
    with _memory(db_path, server.base_url, embedder, mode) as mem:
        mem.add(PAIRS[0][0], user_id=U)
        mem.flush()
        started = time.monotonic()
        r = mem.add(PAIRS[0][1], user_id=U)
        assert time.monotonic() - started < 1.0
        assert r.decision is None and r.job_id is not None and mem.log(10) == []
        assert r.memory.id in _active(mem)  # stored and readable while undecided
        mem.flush()
        (entry,) = mem.log(10)
        assert (entry.action, entry.judge) == ("KEEP_SEPARATE", "llm")
        assert entry.input_ids[0] == r.memory.id


def test_several_new_memories_are_judged_in_one_llm_call(
    server: FakeLLMServer, db_path: Path, embedder: LocalEmbedder
) -> None:
    """Seed: "Batch consolidation for efficiency (collect candidates, process in bulk)":
    three saves queued, one call of three items (consolidation.batch_size 8)."""
    server.set_script(_lines("KEEP_SEPARATE", "-"))
    with _memory(db_path, server.base_url, embedder, "queue") as mem:
        mem.add_many([{"text": old, "user_id": U} for old, _ in PAIRS], consolidate=False)
        new = [mem.add(n, user_id=U).memory.id for _, n in PAIRS]
        assert server.request_count(CHAT) == 0
        assert mem.flush() == 3
        assert server.request_count(CHAT) == 1 and mem.settings.consolidation.batch_size == 8
        items = user_payload(server.chat_requests[0])["items"]
        assert [(i["new"]["text"], len(i["candidates"])) for i in items] == [
            (n, 1) for _, n in PAIRS
        ]
        assert sorted(e.input_ids[0] for e in mem.log(10)) == sorted(new)


def test_an_audit_log_keeps_each_decision_and_why(server: FakeLLMServer, mem: Memory) -> None:
    """Seed: "Keep an audit log of consolidation decisions for debugging": the one applied
    and the one the guards refused, each with the LLM's reason, model and prompt."""
    server.set_script(_lines("MERGE", text=KIM_ALL))
    old = mem.add(KIM_A, user_id=U).memory
    new = mem.add(KIM_NEW, user_id=U).memory
    mem.add("Tom likes tea", user_id=U, embedding=base())
    refused = mem.add("Tom rides a red bike", user_id=U, embedding=vec_with_cosine(0.75)).memory
    merge, kept = reversed(mem.log(10))
    assert (merge.action, merge.judge, merge.model) == ("MERGE", "llm", "utility-model")
    assert merge.reasoning == "scripted reason" and set(merge.input_ids) == {old.id, new.id}
    assert merge.prompt_version == load_prompt("consolidation").label
    assert merge.before["memories"][old.id]["text"] == KIM_A
    assert (kept.action, kept.input_ids[0]) == ("KEEP_SEPARATE", refused.id)
    assert "downgraded from MERGE" in kept.reasoning and "0.90" in kept.reasoning
    assert [e.id for e in mem.history(old.id)] == [merge.id]


def test_a_save_the_llm_cannot_judge_is_skipped_and_picked_up_later(
    server: FakeLLMServer, mem: Memory
) -> None:
    """Seed: "Fallback to current rule based approach if LLM is unavailable"; by default
    (llm.fallback_after_failures=3) one failed call is not yet a fallback: the save is
    skipped, stored undecided, and the next cycle's LLM decides it."""
    server.set_script(_lines("KEEP_SEPARATE", "-"))
    old = mem.add(PAIRS[0][0], user_id=U).memory
    server.fail_next(Fault.SERVER_ERROR)
    r = mem.add(PAIRS[0][1], user_id=U)
    assert r.decision is not None and r.decision.action is Action.SKIP and r.decision.transient
    assert r.decision.judge != "rules" and mem.log(10) == []
    assert set(_active(mem)) == {old.id, r.memory.id} and mem.stats()["jobs_waiting"] == 1
    time.sleep(0.05)  # the 10 ms backoff passes
    mem.flush()
    (entry,) = mem.log(10)
    assert (entry.action, entry.judge, entry.input_ids[0]) == ("KEEP_SEPARATE", "llm", r.memory.id)
    assert server.request_count(CHAT) == 2 and mem.stats()["jobs_waiting"] == 0


@pytest.mark.parametrize("after", [DEFAULT, 1])
def test_after_failures_in_a_row_the_rules_decide(
    server: FakeLLMServer, db_path: Path, embedder: LocalEmbedder, after: Any
) -> None:
    """Seed: "Fallback to current rule based approach if LLM is unavailable": after
    llm.fallback_after_failures failed calls in a row (3 by default) the rule judge
    decides that save, and the ones skipped before it, without the LLM."""
    n = 3 if after is DEFAULT else after
    server.set_script(_lines("KEEP_SEPARATE", "-"))
    with _memory(db_path, server.base_url, embedder, fallback_after_failures=after) as mem:
        assert mem.settings.llm.fallback_after_failures == n
        mem.add_many([{"text": old, "user_id": U} for old, _ in PAIRS], consolidate=False)
        server.fail_next(Fault.SERVER_ERROR, times=n)
        decided = [mem.add(new, user_id=U).decision for _, new in PAIRS[:n]]
        *skipped, last = [d for d in decided if d is not None]
        assert [(d.action, d.transient) for d in skipped] == [(Action.SKIP, True)] * (n - 1)
        assert last.judge == "rules" and last.action is not Action.SKIP
        time.sleep(0.05)
        mem.flush()
        assert server.request_count(CHAT) == n  # the rules decide the rest: no more calls
        assert [e.judge for e in mem.log(10)] == ["rules"] * n


@pytest.mark.parametrize(("after", "judge"), [(DEFAULT, "rules"), (None, "")])
def test_an_unreachable_llm_hands_the_saves_to_the_rules(
    db_path: Path, embedder: LocalEmbedder, after: Any, judge: str
) -> None:
    """Seed: "Fallback to current rule based approach if LLM is unavailable": an endpoint
    that cannot be reached is left to the rules at once (by default); with
    llm.fallback_after_failures=None the save is skipped for the next cycle instead."""
    url = "http://127.0.0.1:9/v1"  # nothing listens there
    with _memory(db_path, url, embedder, fallback_after_failures=after) as mem:
        old = mem.add("Sam prefers Rust for systems work", user_id=U).memory
        r = mem.add("Sam prefers Rust for systems work.", user_id=U)
        assert r.decision is not None and r.decision.judge == judge
        if judge == "rules":
            assert r.decision.action is Action.UPDATE and _active(mem) == {old.id: old.text}
        else:
            assert r.decision.action is Action.SKIP and r.decision.transient
            assert set(_active(mem)) == {old.id, r.memory.id} and mem.log(10) == []


SAM_NEW = "Sam prefers Rust for systems work"
SAM_MERGED = "Sam uses Rust and prefers it for systems work"


@pytest.mark.parametrize(
    ("rules_first", "decided", "text"),
    [(DEFAULT, (Action.REPLACE, "rules"), SAM_NEW), (None, (Action.MERGE, "llm"), SAM_MERGED)],
)
def test_uses_rust_and_prefers_rust_for_systems_work_fold_into_one(
    server: FakeLLMServer,
    db_path: Path,
    embedder: LocalEmbedder,
    rules_first: Any,
    decided: Any,
    text: str,
) -> None:
    """Seed: the semantic duplicate "uses Rust" vs "prefers Rust for systems work", said
    of Sam (cosine 0.88): by default the rules already fold it (REPLACE, no call); with
    llm.rules_first_confidence=None the LLM's MERGE and its text are applied."""
    server.set_script(_lines("MERGE", text=SAM_MERGED))
    with _memory(db_path, server.base_url, embedder, rules_first_confidence=rules_first) as mem:
        old = mem.add("Sam uses Rust", user_id=U).memory
        r = mem.add(SAM_NEW, user_id=U)
        assert _how(r) == decided and server.request_count(CHAT) == int(decided[1] == "llm")
        assert list(_active(mem).values()) == [text]
        assert mem.get(old.id).status is Status.SUPERSEDED


def _bare_rust(server: FakeLLMServer, path: Path, embedder: LocalEmbedder, rf: Any) -> Memory:
    server.set_script(_lines("MERGE", text="uses Rust and prefers it for systems work"))
    mem = _memory(path, server.base_url, embedder, rules_first_confidence=rf)
    mem.add("uses Rust", user_id=U)
    return mem


@pytest.mark.parametrize(("rules_first", "judge"), [(DEFAULT, "rules"), (None, "llm")])
def test_the_seeds_bare_rust_fragments_are_kept_apart_by_the_guards(
    server: FakeLLMServer, db_path: Path, embedder: LocalEmbedder, rules_first: Any, judge: str
) -> None:
    """What memfold does with the seed's own words, "uses Rust" vs "prefers Rust for
    systems work" (cosine 0.73, calibrated 0.79): every fold needs 0.90, so the rules'
    REPLACE (default: the LLM is not asked) or the LLM's MERGE becomes KEEP_SEPARATE."""
    with _bare_rust(server, db_path, embedder, rules_first) as mem:
        r = mem.add("prefers Rust for systems work", user_id=U)
        assert r.decision is not None and r.decision.judge == judge
        assert r.decision.action is Action.KEEP_SEPARATE
        assert r.decision.downgraded_from is (Action.MERGE if judge == "llm" else Action.REPLACE)
        assert any("calibrated similarity >= 0.90" in w for w in r.decision.downgrade_reasons)
        assert server.request_count(CHAT) == (1 if judge == "llm" else 0)
        assert len(_active(mem)) == 2


@pytest.mark.xfail(
    strict=True,
    reason="memfold folds only at calibrated similarity >= 0.90 (consolidation."
    "destructive_threshold); the seed's bare pair sits at 0.79, so both stay (KEEP_SEPARATE)",
)
@pytest.mark.parametrize("rules_first", [DEFAULT, None])
def test_the_seeds_semantic_duplicate_is_folded_by_the_llm(
    server: FakeLLMServer, db_path: Path, embedder: LocalEmbedder, rules_first: Any
) -> None:
    """Seed: rule based deduplication "misses semantic duplicates ("uses Rust" vs "prefers
    Rust for systems work")"; LLM consolidation should fold them into one."""
    with _bare_rust(server, db_path, embedder, rules_first) as mem:
        mem.add("prefers Rust for systems work", user_id=U)
        assert list(_active(mem).values()) == ["uses Rust and prefers it for systems work"]
