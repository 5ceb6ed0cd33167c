"""Seed 003, batch review (observe, classify, gate on P90, archive before deleting, halt on
anomalies), claim by claim: memfold's public API (``Memory.review``, ``Memory.feedback``)
on real SQLite files and a scripted OpenAI-compatible LLM. Review settings are memfold's
defaults throughout: docs/seeds.md names no setting for these claims, and its opt-in
halts (pair count, pair age, daily queued share) are off by default, as the first-run
test checks. The stores only store (``consolidate="off"``): review alone folds.

Vectors are scripted (``TableEmbedder``): a text pinned to a vector embeds to it, so a
scope of hundreds of memories with exact cosines costs no model time, and a merged text
embeds where the test puts it (the breaker's drift bound)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from helpers.scripted import DIM
from memfold import Memory, Settings, Status
from memfold.embed.local import LocalEmbedder
from memfold.model import QueueItem, ReviewRun, utcnow
from memfold.testing.fake_llm import FakeLLMServer
from memfold.testing.fake_replies import Reply, confident, last_user_message

CHAT = "/chat/completions"
U = "thomas"  # the seed's namespace
Ids = tuple[str, str]
FIVE_STEPS = ("read", "generate", "write", "archive", "mark")
PALMER = (
    "Palmer McCutcheon is the Director of Engineering at ZeroClick",
    "Palmer is connected to Ryan Hudson at ZeroClick",
)


def _unit(v: np.ndarray) -> np.ndarray:
    out: np.ndarray = (v / np.linalg.norm(v)).astype(np.float32)
    return out


class TableEmbedder:
    """The bundled embedder, except for texts pinned to a vector."""

    def __init__(self, real: LocalEmbedder, table: dict[str, np.ndarray]) -> None:
        self.real, self.model_id, self.dim, self.table = real, real.model_id, real.dim, table

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rest = [t for t in texts if t not in self.table]
        found = dict(zip(rest, self.real.embed(rest), strict=True)) if rest else {}
        return np.stack([self.table[t] if t in self.table else found[t] for t in texts])


@dataclass
class Reviewer:
    """The scripted LLM: a verdict per pair of texts (RELATED at 0.95 unless told), its
    label token at the stated confidence; a merge writes ``merges[older]``, else the newer
    text (which the stated "as noted earlier" variants make a faithful merge)."""

    verdicts: dict[frozenset[str], tuple[str, float]] = field(default_factory=dict)
    merges: dict[str, str] = field(default_factory=dict)

    def __call__(self, body: dict[str, Any]) -> Reply | dict[str, str]:
        text = last_user_message(body)
        if text.startswith("Pair "):
            rows = []
            for n, block in enumerate(text.split("\n\n"), start=1):
                a, b = (line[3:] for line in block.splitlines()[1:3])
                label, conf = self.verdicts.get(frozenset((a, b)), ("RELATED", 0.95))
                reason = f"scripted {label.lower()}"
                rows.append({"pair": n, "reasoning": reason, "label": label, "confidence": conf})
            return confident({"verdicts": rows})
        memories = json.loads(text)["memories"]  # the merge prompt: older first
        older, newer = memories[0]["text"], memories[-1]["text"]
        return {"text": self.merges.get(older, newer), "reasoning": "scripted merge"}


@dataclass
class Namespace:
    """One scope of a store with a scripted embedder and LLM, filled by the test."""

    mem: Memory
    table: dict[str, np.ndarray]  # text -> the vector it embeds to
    reviewer: Reviewer
    rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng(3))

    def pair(self, a: str, b: str, cosine: float = 0.9, label: str = "", conf: float = 0.95) -> Ids:
        """Two memories at ``cosine`` (far from every other), a a second older than b."""
        u = _unit(self.rng.standard_normal(DIM))
        self.table[a], self.table[b] = (
            u,
            _unit(cosine * u + np.sqrt(1 - cosine**2) * self.orthogonal(u)),
        )
        if label:
            self.reviewer.verdicts[frozenset((a, b))] = (label, conf)
        now = utcnow()
        first = self.mem.add(a, user_id=U, created_at=now - timedelta(seconds=2)).memory
        second = self.mem.add(b, user_id=U, created_at=now - timedelta(seconds=1)).memory
        return first.id, second.id

    def orthogonal(self, *vectors: np.ndarray) -> np.ndarray:
        """A random unit vector at cosine 0 with each of ``vectors``."""
        q, _ = np.linalg.qr(np.stack([*vectors, self.rng.standard_normal(DIM)]).T)
        return _unit(q[:, -1])

    def duplicates(self, confidences: Sequence[float], tag: str = "") -> list[Ids]:
        """One DUPLICATE pair per confidence: a fact and the same fact "as noted earlier"."""
        out = []
        for n, conf in enumerate(confidences):
            fact = f"Client {tag}{n} renewed the support contract in week {n + 1}."
            out.append(self.pair(fact, _variant(fact), label="DUPLICATE", conf=conf))
        return out

    def queue(self) -> list[QueueItem]:
        return self.mem.store.queue_items()


def _variant(fact: str) -> str:
    return fact.rstrip(".") + ", as noted earlier."


def _settings(url: str, **review: Any) -> Settings:
    llm = {"base_url": url, "model": "utility-model", "api_key": "k"}
    return Settings(llm={**llm, "utility": {"timeout_s": 5.0, "max_retries": 0}}, review=review)


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as srv:
        yield srv


def _open(path: Path, server: FakeLLMServer, embedder: LocalEmbedder, **review: Any) -> Namespace:
    table: dict[str, np.ndarray] = {}
    reviewer = Reviewer()
    server.set_script(reviewer)
    settings = _settings(server.base_url, **review)
    mem = Memory(
        path, settings=settings, embedder=TableEmbedder(embedder, table), consolidate="off"
    )
    return Namespace(mem, table, reviewer)


@pytest.fixture
def scope(server: FakeLLMServer, db_path: Path, embedder: LocalEmbedder) -> Iterator[Namespace]:
    s = _open(db_path, server, embedder)
    yield s
    s.mem.close()


def _gate(run: ReviewRun) -> dict[str, Any]:
    (gate,) = run.counts["decisions"][-1]["gates"].values()
    return dict(gate)


def test_the_scan_queues_pairs_at_082_and_touches_nothing(
    scope: Namespace, server: FakeLLMServer
) -> None:
    """Phase 1: "a similarity scanner ... found pairs above a 0.82 threshold, and inserted
    them into a consolidation_queue table — without touching anything." "Read and queue
    only. No modifications to existing memories." ... "UNIQUE(memory_id_a, memory_id_b)"."""
    assert Settings().review.scan_threshold == pytest.approx(0.82)
    above = scope.pair("The backup starts at 01:30.", "Backups start at 01:30.", 0.83)
    scope.pair("Mia's phone plan is with Telco One.", "Mia pays for Telco One monthly.", 0.81)
    before = {m.id: m.to_dict() for m in scope.mem.list(user_id=U)}
    result = scope.mem.review.scan(user_id=U)
    assert (result.memories, result.pairs, result.queued) == (4, 1, 1)
    (item,) = scope.queue()
    assert {item.memory_a, item.memory_b} == set(above)
    assert item.similarity == pytest.approx(0.83, abs=1e-4)
    assert (item.status, item.label, item.processed_at) == ("pending", None, None)
    assert {m.id: m.to_dict() for m in scope.mem.list(user_id=U)} == before
    assert server.request_count(CHAT) == 0 and scope.mem.log(10) == []
    assert scope.mem.review.scan(user_id=U).queued == 0 and len(scope.queue()) == 1


def test_each_pair_gets_one_of_four_labels_a_confidence_and_a_reasoning(
    scope: Namespace, server: FakeLLMServer
) -> None:
    """Phase 2: "label each pair as DUPLICATE, RELATED, CONTRADICTION, or SUPERSEDED",
    "adding explicit examples of what each category looks like", "requiring the classifier
    to output a confidence score and reasoning string, not just a label"; "Palmer McCutcheon
    is the Director of Engineering at ZeroClick" and "Palmer is connected to Ryan Hudson at
    ZeroClick" are "semantically close but distinct facts"."""
    pairs = {
        "DUPLICATE": ("Leo works at Finch Labs as a backend developer.",
                      "Leo is a backend developer at Finch Labs."),
        "RELATED": PALMER,
        "CONTRADICTION": ("Omar is a morning person.", "Omar is not a morning person."),
        "SUPERSEDED": ("The nightly backup starts at 01:30.",
                       "The nightly backup now starts at 03:00."),
    }  # fmt: skip
    confidence = {"DUPLICATE": 0.97, "RELATED": 0.99, "CONTRADICTION": 0.91, "SUPERSEDED": 0.93}
    ids = {k: scope.pair(a, b, label=k, conf=confidence[k]) for k, (a, b) in pairs.items()}
    run = scope.mem.review.run(user_id=U)
    assert run.counts["labels"] == dict.fromkeys(pairs, 1)
    by_pair = {frozenset((it.memory_a, it.memory_b)): it for it in scope.queue()}
    for label, (a, b) in ids.items():
        item = by_pair[frozenset((a, b))]
        assert item.label is not None and item.label.value == label
        assert item.confidence == pytest.approx(confidence[label])
        assert item.reasoning == f"scripted {label.lower()}"
    system = str(server.chat_requests[0]["messages"][0]["content"])
    assert all(label in system for label in pairs) and "confidence" in system
    shown = " ".join(str(m["content"]) for m in server.chat_requests[0]["messages"][1:-1])
    assert all(f'"label":"{label}"' in shown for label in pairs)  # a worked example each
    palmer = [scope.mem.get(i) for i in ids["RELATED"]]  # distinct facts: linked, kept
    assert [(m.status, m.text) for m in palmer] == [(Status.ACTIVE, t) for t in PALMER]
    linked = scope.mem.links(palmer[0].id, kinds="related").links
    assert [lk.id for lk in linked] == [palmer[1].id]


@pytest.mark.parametrize(
    ("confidence", "band", "merges"),
    [(0.84, "below_floor", 0), (0.85, "conservative", 5), (0.89, "conservative", 5),
     (0.90, "high", 10), (0.97, "high", 10)],
)  # fmt: skip
def test_the_p90_table_decides_how_many_merges_a_run_may_make(
    scope: Namespace, confidence: float, band: str, merges: int
) -> None:
    """Phase 4: "P90 below 0.85: no merges execute, prompt tuning required. P90 between
    0.85 and 0.90: maximum 5 merges per run, conservative mode. P90 at or above 0.90: up to
    10 merges per run." (12 DUPLICATE pairs, each at the P90.)"""
    scope.duplicates([confidence] * 12)
    run = scope.mem.review.run(user_id=U)
    gate = _gate(run)
    assert run.p90 == pytest.approx(confidence) and gate["band"] == band
    assert run.counts.get("merged", 0) == merges
    assert len([e for e in scope.mem.log(100) if e.action == "MERGE"]) == merges
    assert len(scope.mem.list(user_id=U, status="archived", limit=None)) == 2 * merges
    if merges == 0:
        assert "classifier needs tuning" in gate["reasons"][0]
    waiting = [it for it in scope.queue() if it.status == "classified"]
    assert len(waiting) == 12 - merges  # the rest wait for the next run


# The seed's first run, scaled down ~6.6x to keep the test fast: 1,979 memories and 847
# pairs become 300 and 128. Of them, 12 DUPLICATE (the "12 qualifying duplicates"), five
# "in the 0.70-0.85 range where the classifier was clearly uncertain", P90 0.90 exactly.
FIRST_RUN = [0.70, 0.74, 0.78, 0.82, 0.84, 0.86, 0.87, 0.88, 0.89, 0.90, 0.90, 0.95]
OPT_IN = {  # docs/seeds.md: stricter opt-ins, each of which would halt this first run
    "gate_min_pairs": (20, "the gate needs 20"),
    "min_pair_age_s": (3600.0, "0 DUPLICATE pairs"),
    "max_daily_queue_share": (0.2, "queued today"),
}


@pytest.mark.parametrize("opt_in", [None, *OPT_IN])
def test_a_first_run_shaped_like_the_seeds_folds_with_default_settings(
    server: FakeLLMServer, db_path: Path, embedder: LocalEmbedder, opt_in: str | None
) -> None:
    """Phases 1, 4, 5: "Running the scanner against Thomas's namespace for the first time
    surfaced 847 candidate pairs above the 0.82 threshold" (1,979 memories); "P90 came
    back at 0.90 exactly with 12 qualifying duplicates. The gate opened." "The first full
    run against Thomas's namespace executed 7 merges. All 7 passed the circuit breaker
    checks.\""""
    review = {} if opt_in is None else {opt_in: OPT_IN[opt_in][0]}
    s = _open(db_path, server, embedder, **review)
    with s.mem:
        dups = s.duplicates(FIRST_RUN)
        for n in range(128 - 12):
            s.pair(f"Project {n} uses tool {n} daily.", f"Project {n} moved to tool {n}b.")
        for n in range(300 - 256):
            s.table[f"Memo {n}."] = _unit(s.rng.standard_normal(DIM))
            s.mem.add(f"Memo {n}.", user_id=U)
        run = s.mem.review.run(user_id=U)  # all of it written today, seconds ago
        gate = _gate(run)
        if opt_in is not None:
            assert run.counts.get("merged", 0) == 0 and OPT_IN[opt_in][1] in gate["reasons"][0]
            return
        assert run.counts["queued"] == 128 and run.counts["classified"] == 128
        assert run.counts["labels"] == {"DUPLICATE": 12, "RELATED": 116}
        assert run.p90 == pytest.approx(0.90) and gate["band"] == "high"
        assert gate["reasons"] == [] and run.status == "done"
        assert run.counts["merged"] == 7  # the seven at or above the 0.85 floor
        assert run.breaker == {"events": [], "open": False}
        for n, ((a, b), conf) in enumerate(zip(dups, FIRST_RUN, strict=True)):
            kept = [s.mem.get(a), s.mem.get(b)]  # intact and queryable, merged or not
            fact = f"Client {n} renewed the support contract in week {n + 1}."
            assert [m.text for m in kept] == [fact, _variant(fact)]
            archived = {m.status for m in kept} == {Status.ARCHIVED}
            assert archived is (conf >= 0.85)
            if archived:
                assert kept[0].superseded_by == kept[1].superseded_by is not None
        assert len(s.mem.list(user_id=U, limit=None)) == 300 - 7


def test_the_merge_is_five_steps_read_generate_write_archive_mark(scope: Namespace) -> None:
    """Phase 5: "Read both source memories. Generate a consolidated version. Write the new
    memory. Archive both originals (with a pointer to the consolidated memory). Mark the
    queue entry as processed." ... "the archived originals remained intact and queryable"."""
    ((a, b),) = scope.duplicates([0.97])
    older, newer = scope.mem.get(a), scope.mem.get(b)
    merged_text = f"{older.text} {newer.text}"
    scope.table[merged_text] = scope.table[newer.text]
    scope.reviewer.merges[older.text] = merged_text
    steps: list[str] = []
    run = scope.mem.review.run(user_id=U, hook=steps.append)
    assert steps == list(FIVE_STEPS) and run.counts["merged"] == 1
    (entry,) = [e for e in scope.mem.log(10) if e.action == "MERGE"]
    new = scope.mem.get(entry.output_ids[0])
    assert (new.text, new.status) == (merged_text, Status.ACTIVE)
    assert sorted(new.consolidated_from) == sorted([a, b])
    originals = [scope.mem.get(i) for i in (a, b)]  # archived, pointing at the new one
    assert [(m.status, m.superseded_by, m.text) for m in originals] == [
        (Status.ARCHIVED, new.id, m.text) for m in (older, newer)
    ]
    deep = scope.mem.search(older.text, user_id=U, deep=True, mode="keyword")
    assert {a, b} <= {h.memory.id for h in deep}
    (item,) = scope.queue()
    assert item.status == "processed" and item.processed_at is not None


@pytest.mark.parametrize("failing", FIVE_STEPS)
def test_a_failure_at_any_step_rolls_the_merge_back(scope: Namespace, failing: str) -> None:
    """Phase 5: "If any step fails, the transaction rolls back. The originals stay
    intact.\""""
    ((a, b),) = scope.duplicates([0.97])
    before = [scope.mem.get(a).to_dict(), scope.mem.get(b).to_dict()]

    def hook(step: str) -> None:
        if step == failing:
            raise RuntimeError(f"fault at {step}")

    with pytest.raises(RuntimeError, match=f"fault at {failing}"):
        scope.mem.review.run(user_id=U, hook=hook)
    assert [scope.mem.get(a).to_dict(), scope.mem.get(b).to_dict()] == before
    assert len(scope.mem.list(user_id=U, status=None, limit=None)) == 2  # nothing written
    assert [e for e in scope.mem.log(10) if e.action == "MERGE"] == []
    (item,) = scope.queue()
    assert item.status == "classified" and item.processed_at is None
    assert scope.mem.review.run(user_id=U).counts["merged"] == 1  # recoverable


@pytest.mark.parametrize(
    ("kind", "cosine", "held"),
    [("length", None, True), ("drift", 0.86, False), ("drift", 0.84, True)],
)
def test_an_anomaly_is_a_40_percent_length_drop_or_a_drift_over_015(
    scope: Namespace, kind: str, cosine: float | None, held: bool
) -> None:
    """Phase 5: anomalous results are "content length drops more than 40% from what either
    source contained, or the new memory's embedding drifts more than 0.15 from both
    originals"."""
    ((a, b),) = scope.duplicates([0.97])
    older, newer = scope.mem.get(a), scope.mem.get(b)
    if kind == "length":
        text = "Client renewed."  # well under 60% of either source
    else:  # the union of both: no length drop; at ``cosine`` with the newer, less with the older
        assert cosine is not None
        text = f"{older.text} {newer.text}"
        v = scope.table[newer.text]
        scope.table[text] = _unit(
            cosine * v + np.sqrt(1 - cosine**2) * scope.orthogonal(v, scope.table[older.text])
        )
    scope.reviewer.merges[older.text] = text
    run = scope.mem.review.run(user_id=U)
    assert run.counts.get("held", 0) == int(held) and run.counts.get("merged", 0) == int(not held)
    if held:
        (proposal,) = [h["proposal"] for h in scope.mem.review.pending()["held"]]
        want = "length drop" if kind == "length" else "embedding drift 0.160"
        assert proposal["text"] == text and any(want in r for r in proposal["reasons"])
        assert {scope.mem.get(a).status, scope.mem.get(b).status} == {Status.ACTIVE}


@pytest.mark.parametrize("anomalies", [3, 4])
def test_more_than_three_anomalies_halt_the_run_until_a_person_resumes(
    scope: Namespace, anomalies: int
) -> None:
    """Phase 5: "if more than 3 merges in a single run produce anomalous results ... the
    run halts. Not pauses. Halts, and requires manual review before continuing.\""""
    bad = scope.duplicates([0.99] * anomalies, tag="bad")  # tried first: highest confidence
    scope.duplicates([0.95] * (10 - anomalies))
    for a, _ in bad:
        scope.reviewer.merges[scope.mem.get(a).text] = "Client renewed."
    run = scope.mem.review.run(user_id=U)
    assert run.counts["held"] == anomalies
    if anomalies == 3:  # three anomalies: held for review, the run goes on
        assert run.status == "done" and run.counts["merged"] == 7
        assert scope.mem.review.status()["breaker"]["open"] is False
        return
    assert run.status == "halted" and run.counts.get("merged", 0) == 0
    assert run.breaker["events"][-1]["tripped"] is True
    again = scope.mem.review.run(user_id=U)  # halted: no run merges until resumed
    assert again.counts.get("merged", 0) == 0 and _gate(again)["band"] == "halted"
    assert scope.mem.review.status()["breaker"]["open"] is True
    scope.mem.review.resume()  # a person reviewed the held merges
    assert scope.mem.review.run(user_id=U).counts["merged"] == 6


@pytest.mark.parametrize("records", [50, 51])
def test_feedback_weighs_in_only_past_50_records(scope: Namespace, records: int) -> None:
    """Phase 3: "until you have more than 50 feedback records, classification confidence
    is the only signal available. We designed the system to use feedback weighting only
    after that threshold is crossed"."""
    ((a, _),) = scope.duplicates([0.93])
    filler = scope.mem.add("Thomas drafts the weekly update on Fridays.", user_id=U).memory.id
    for _ in range(3):
        scope.mem.feedback(a, "ignored")  # recall results that were not useful
    for _ in range(records - 3):
        scope.mem.feedback(filler, "miss")
    assert scope.mem.review.status()["feedback"] == {"records": records, "cold_start": 50}
    run = scope.mem.review.run(user_id=U)
    (item,) = scope.queue()
    if records == 50:  # the cold start: the classifier's 0.93 alone, the gate opens
        assert item.confidence == pytest.approx(0.93) and "feedback" not in item.reasoning
        assert run.counts["merged"] == 1
    else:  # 0.93 lowered by the doubt of a's feedback: below the 0.85 floor
        assert item.confidence == pytest.approx(0.93 * 0.9)
        assert "feedback-weighted from 0.930" in item.reasoning
        assert run.counts.get("merged", 0) == 0 and _gate(run)["band"] == "below_floor"


def test_the_weekly_report_shows_queue_merges_p90_trend_and_feedback(scope: Namespace) -> None:
    """Phase 6: a weekly query "surfaces: how many pairs were queued, how many were
    classified, how many were merged, what the P90 trend looks like over time, and whether
    the feedback loop has accumulated enough records to start influencing confidence
    scoring"."""
    ids = scope.duplicates([0.87] * 12)
    first = scope.mem.review.run(user_id=U)  # conservative: 5 merges
    scope.duplicates([0.99] * 3, tag="late")
    second = scope.mem.review.run(user_id=U)  # 7 left at 0.87 and 3 at 0.99: P90 0.99
    assert (first.counts["merged"], second.counts["merged"]) == (5, 10)
    for _ in range(3):
        scope.mem.feedback(ids[0][0], "used")
    md = scope.mem.review.report("7d", "md")
    assert "| pairs queued | 15 |" in md and "| pairs classified | 15 |" in md
    assert "| classified DUPLICATE | 15 |" in md and "| merged | 15 |" in md
    assert "P90 trend: 0.870 -> 0.990" in md
    assert "3 feedback records of the 50 needed before feedback weighs in (cold start)" in md
