"""Consolidation scenarios: hand-written (existing memories, new memory) cases with a kind.

Each scenario gets a scope of its own. Its ``existing`` memories go in first, without
consolidation (``add_many(consolidate=False)``); the ``new`` one goes through ``add``
in sync mode, so what is read afterwards is what the on-save path applied, after every
guard. The outcome is read from the stored state, not from the decision: what a user
would find.

Per kind (see ``bench-data/scenarios/README.md``):

- distinct: both memories stay active with their texts unchanged. Anything else is a
  *violation* (a distinct pair merged, updated or superseded).
- duplicate: exactly one active memory holds the fact afterwards (*folded*).
- update: the old memory is no longer active or now holds the new text, and a search for
  the new text returns a memory holding it first (*applied*).
- contradiction: both statements stay active (else *dropped*); a ``contradicts`` link
  between them is counted too.
- any kind: the distractors (``existing[1:]``) stay active and unchanged (else *touched*).

Each judged save also records what the judge proposed, with what confidence, and how
long its ``add`` took: the reliability table (``evaluation.calibration``) and the median
seconds per decision come from those.
"""

from __future__ import annotations

import json
import statistics
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from memfold.evaluation.calibration import reliability
from memfold.evaluation.env import EvalEnv
from memfold.memory import Memory
from memfold.model import JSONDict, LinkKind, MemoryRecord, Status
from memfold.policy import text as tx

KINDS = ("distinct", "duplicate", "update", "contradiction")


@dataclass(frozen=True, slots=True)
class Scenario:
    id: str
    kind: str
    existing: tuple[str, ...]
    new: str


def scenario_file(data: Path, split: str) -> Path:
    return data / "scenarios" / f"{split}.jsonl"


def load_scenarios(path: Path, limit: int | None = None) -> list[Scenario]:
    out: list[Scenario] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        raw = json.loads(line)
        kind = raw.get("kind")
        existing = raw.get("existing")
        if kind not in KINDS or not isinstance(existing, list) or not existing:
            raise ValueError(f"{path}:{number}: not a scenario (kind {kind!r})")
        out.append(Scenario(str(raw["id"]), kind, tuple(map(str, existing)), str(raw["new"])))
        if limit is not None and len(out) >= limit:
            break
    return out


def run_scenarios(env: EvalEnv) -> JSONDict:
    path = scenario_file(env.data, env.split)
    if not path.is_file():
        return {"file": str(path), "missing": True, "scenarios": 0}
    scenarios = load_scenarios(path, env.limit)
    env.embed_all([t for s in scenarios for t in (*s.existing, s.new)], "scenarios")
    mem = env.memory("scenarios", "sync")
    rows: list[JSONDict] = []
    try:
        task = env.task("scenarios", len(scenarios))
        for number, scenario in enumerate(scenarios):
            rows.append(_run_one(mem, scenario, f"scenario-{number}"))
            env.progress.advance(task)
        env.progress.remove_task(task)
        llm_calls = sum(int(u.get("calls", 0)) for u in mem.usage())
    finally:
        mem.close()
    judged = [float(r["seconds"]) for r in rows if r.get("proposed") is not None]
    return {
        "file": str(path),
        "scenarios": len(rows),
        **summarize(rows),
        "llm_calls": llm_calls,
        "llm_calls_per_memory": round(llm_calls / len(rows), 4) if rows else None,
        "judged": len(judged),
        "median_decision_s": round(statistics.median(judged), 3) if judged else None,
        "calibration": reliability(rows),
    }


def _run_one(mem: Memory, scenario: Scenario, scope: str) -> JSONDict:
    stored = mem.add_many(
        [{"text": t, "user_id": scope} for t in scenario.existing], consolidate=False
    )
    started = time.perf_counter()
    result = mem.add(scenario.new, user_id=scope)
    seconds = time.perf_counter() - started
    related, *distractors = [r.memory for r in stored]
    decision = result.decision
    row: JSONDict = {
        "id": scenario.id,
        "kind": scenario.kind,
        "action": "ADD" if decision is None else decision.action.value,
        "downgraded_from": None
        if decision is None or decision.downgraded_from is None
        else decision.downgraded_from.value,
        "touched_distractors": sum(not _unchanged(mem, d) for d in distractors),
    }
    if decision is not None and decision.judge:
        proposed = decision.downgraded_from or decision.action
        row.update(proposed=proposed.value, confidence=decision.confidence, seconds=seconds)
        # Why the guards refused a proposal, and what the judge said: what a reader of a
        # missed case needs first.
        row.update(reasons=list(decision.downgrade_reasons), reasoning=decision.reasoning)
    old_ok = _unchanged(mem, related)
    new_ok = _unchanged(mem, result.memory)
    if scenario.kind == "distinct":
        row["ok"] = old_ok and new_ok
    elif scenario.kind == "contradiction":
        both = _active(mem, related.id) and _active(mem, result.memory.id)
        row["ok"] = both
        row["linked"] = _linked(mem, related.id, result.memory.id, LinkKind.CONTRADICTS)
    elif scenario.kind == "duplicate":
        row["ok"] = _holders(mem, scope, scenario) == 1
    else:
        row["ok"] = _update_applied(mem, related, scenario, scope)
    if not row["ok"]:
        row["active_after"] = [m.text for m in mem.list(user_id=scope)]
    return row


def _active(mem: Memory, memory_id: str) -> bool:
    return mem.get(memory_id).status is Status.ACTIVE


def _unchanged(mem: Memory, before: MemoryRecord) -> bool:
    after = mem.get(before.id)
    return after.status is Status.ACTIVE and after.text == before.text


def _linked(mem: Memory, a: str, b: str, kind: LinkKind) -> bool:
    return any(ln.kind is kind and {ln.src, ln.dst} == {a, b} for ln in mem.store.links_for([a, b]))


def _holds(text: str, fact: str) -> bool:
    """Does ``text`` keep the content words of ``fact`` (the information-loss view)?"""
    wanted = tx.content_words(fact)
    return bool(wanted) and len(wanted & tx.content_words(text)) / len(wanted) >= 0.8


def _holders(mem: Memory, scope: str, scenario: Scenario) -> int:
    """Active memories that hold the related fact (the old text or the new one)."""
    facts = (scenario.existing[0], scenario.new)
    return sum(
        any(_holds(m.text, f) for f in facts)
        for m in mem.list(user_id=scope)
        if m.text not in scenario.existing[1:]
    )


def _update_applied(mem: Memory, old: MemoryRecord, scenario: Scenario, scope: str) -> bool:
    now = mem.get(old.id)
    retired = now.status is not Status.ACTIVE or _holds(now.text, scenario.new)
    hits = mem.search(scenario.new, user_id=scope, k=1)
    return retired and bool(hits) and _holds(hits[0].memory.text, scenario.new)


def summarize(rows: list[JSONDict]) -> JSONDict:
    by_kind: dict[str, JSONDict] = {}
    for kind in KINDS:
        mine = [r for r in rows if r["kind"] == kind]
        ok = sum(bool(r["ok"]) for r in mine)
        entry: JSONDict = {
            "n": len(mine),
            "ok": ok,
            "actions": dict(Counter(str(r["action"]) for r in mine)),
        }
        if kind == "contradiction":
            entry["linked"] = sum(bool(r.get("linked")) for r in mine)
        by_kind[kind] = entry
    failures = [
        {k: r.get(k) for k in ("id", "kind", "action", "downgraded_from", "active_after")}
        for r in rows
        if not r["ok"] and r["kind"] in ("distinct", "contradiction")
    ]
    return {
        "by_kind": by_kind,
        "distinct_violations": by_kind["distinct"]["n"] - by_kind["distinct"]["ok"],
        "contradictions_dropped": by_kind["contradiction"]["n"] - by_kind["contradiction"]["ok"],
        "distractors_touched": sum(int(r["touched_distractors"]) for r in rows),
        "failures": failures,
        "rows": rows,
    }
