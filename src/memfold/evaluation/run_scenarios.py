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
import re
import statistics
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from memfold.evaluation.calibration import reliability
from memfold.evaluation.env import EvalEnv
from memfold.evaluation.scripted_judge import is_scripted, scripted_settings
from memfold.llm.usage import is_scoring
from memfold.memory import Memory
from memfold.model import JSONDict, LinkKind, MemoryRecord, Status
from memfold.reading.facts import facts
from memfold.reading.keys import stem

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
    path = env.scenario_path or scenario_file(env.data, env.split)
    if not path.is_file():
        return {"file": str(path), "missing": True, "scenarios": 0}
    scenarios = load_scenarios(path, env.limit)
    env.embed_all([t for s in scenarios for t in (*s.existing, s.new)], "scenarios")
    if not is_scripted(env.judge_kind):
        # The offline rule judge's review run costs no model call: it is reported too.
        review = env.judge_kind == "rules"
        return _run(env, path, scenarios, env.memory("scenarios", "sync"), review=review)
    # A scripted judge: on save, then one review run over every scope (what on-save left
    # for lack of certainty is review's to fold).
    with scripted_settings(env.settings, scenarios, env.judge_kind) as settings:
        mem = env.memory("scenarios", "sync", settings=settings, judge_kind="llm")
        return _run(env, path, scenarios, mem, review=True)


@dataclass(frozen=True, slots=True)
class _Saved:
    scenario: Scenario
    scope: str
    related: MemoryRecord
    distractors: tuple[MemoryRecord, ...]
    new: MemoryRecord


def _run(
    env: EvalEnv, path: Path, scenarios: list[Scenario], mem: Memory, *, review: bool
) -> JSONDict:
    rows: list[JSONDict] = []
    saved: list[_Saved] = []
    result: JSONDict = {"file": str(path)}
    try:
        task = env.task("scenarios", len(scenarios))
        for number, scenario in enumerate(scenarios):
            done, row = _save(mem, scenario, f"scenario-{number}")
            row.update(_outcome(mem, done))
            saved.append(done)
            rows.append(row)
            env.progress.advance(task)
        env.progress.remove_task(task)
        if review:
            run = mem.review.run()
            after = [
                {**{k: v for k, v in row.items() if k != "active_after"}, **_outcome(mem, done)}
                for row, done in zip(rows, saved, strict=True)
            ]
            summary = summarize(after)
            summary.pop("rows")
            result["after_review"] = {**summary, "run": review_summary(run.to_dict())}
        usage = mem.usage()
        llm_calls = sum(int(u.get("calls", 0)) for u in usage if not is_scoring(str(u["task"])))
        scoring = sum(int(u.get("calls", 0)) for u in usage if is_scoring(str(u["task"])))
    finally:
        mem.close()
    judged = [float(r["seconds"]) for r in rows if r.get("proposed") is not None]
    return {
        **result,
        "scenarios": len(rows),
        **summarize(rows),
        "refusals": dict(refusal_counts(rows)),
        "llm_calls": llm_calls,
        "llm_calls_per_memory": round(llm_calls / len(rows), 4) if rows else None,
        "scoring_requests": scoring,
        "judged": len(judged),
        "median_decision_s": round(statistics.median(judged), 3) if judged else None,
        "calibration": reliability(rows),
    }


def _save(mem: Memory, scenario: Scenario, scope: str) -> tuple[_Saved, JSONDict]:
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
    }
    if decision is not None and decision.judge:
        proposed = decision.downgraded_from or decision.action
        row.update(proposed=proposed.value, confidence=decision.confidence, seconds=seconds)
        # Why the guards refused a proposal, and what the judge said: what a reader of a
        # missed case needs first.
        row.update(reasons=list(decision.downgrade_reasons), reasoning=decision.reasoning)
    return _Saved(scenario, scope, related, tuple(distractors), result.memory), row


def _outcome(mem: Memory, saved: _Saved) -> JSONDict:
    """What a user finds now: whether the scenario came out as its kind means."""
    scenario, scope, related = saved.scenario, saved.scope, saved.related
    row: JSONDict = {"touched_distractors": sum(not _unchanged(mem, d) for d in saved.distractors)}
    if scenario.kind == "distinct":
        row["ok"] = _unchanged(mem, related) and _unchanged(mem, saved.new)
    elif scenario.kind == "contradiction":
        row["ok"] = _active(mem, related.id) and _active(mem, saved.new.id)
        row["linked"] = _linked(mem, related.id, saved.new.id, LinkKind.CONTRADICTS)
    elif scenario.kind == "duplicate":
        row["ok"] = _holders(mem, scope, scenario) == 1
    else:
        row["ok"] = _update_applied(mem, related, scenario, scope)
    if not row["ok"]:
        row["active_after"] = [m.text for m in mem.list(user_id=scope)]
    return row


def review_summary(run: JSONDict) -> JSONDict:
    """A review run as the report needs it: its status, P90 and counts, and why its
    scopes' gates held (each reason with its numbers left out, counted)."""
    counts = dict(run.get("counts") or {})
    gates: Counter[str] = Counter()
    for decision in counts.pop("decisions", []) or []:
        for gate in (decision.get("gates") or {}).values():
            for reason in gate.get("reasons") or []:
                gates[_NUMBER.sub("N", str(reason))] += 1
    return {
        "status": run.get("status"),
        "p90": run.get("p90"),
        "counts": counts,
        "gate_reasons": dict(gates),
        "breaker": run.get("breaker"),
        "llm_calls": run.get("llm_calls"),
    }


def refusal_counts(rows: list[JSONDict]) -> Counter[str]:
    """How often each guard refused a proposal, by the reason's first words (its kind)."""
    counted: Counter[str] = Counter()
    for row in rows:
        for reason in row.get("reasons") or []:
            counted[_reason_kind(str(reason))] += 1
    return counted


def _reason_kind(reason: str) -> str:
    head = _MEMORY_ID.sub("<id>", reason.split(":")[0].split(" (")[0].split(" [")[0])
    return " ".join(head.split()[:8])


_MEMORY_ID = re.compile(r"\b[0-9a-f]{32}\b")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _active(mem: Memory, memory_id: str) -> bool:
    return mem.get(memory_id).status is Status.ACTIVE


def _unchanged(mem: Memory, before: MemoryRecord) -> bool:
    after = mem.get(before.id)
    return after.status is Status.ACTIVE and after.text == before.text


def _linked(mem: Memory, a: str, b: str, kind: LinkKind) -> bool:
    return any(ln.kind is kind and {ln.src, ln.dst} == {a, b} for ln in mem.store.links_for([a, b]))


def _holds(text: str, fact: str) -> bool:
    """Does ``text`` keep the content words of ``fact`` (the information-loss view)?"""
    wanted = {stem(w) for w in facts(fact).content}
    have = facts(text).every_stem
    return bool(wanted) and len(wanted & have) / len(wanted) >= 0.8


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
