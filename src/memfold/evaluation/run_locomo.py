"""LoCoMo retention: does consolidation keep the evidence findable?

Per conversation the observations are ingested in session order twice, once with
consolidation off and once on (sync). Each QA item of categories 1-4 is searched
(k = 10) and scored by evidence recall: the share of its evidence dialog ids among
the sources of the returned memories. Merges and updates carry sources as a union,
so a merged memory still answers for every original it absorbed.
"""

from __future__ import annotations

from collections.abc import Sequence

from memfold.config import Settings
from memfold.evaluation.conversations import LocomoConversation, load_locomo
from memfold.evaluation.env import EvalEnv
from memfold.evaluation.metrics import contains_answer, evidence_recall, mean
from memfold.memory import Memory
from memfold.model import JSONDict, Status

CATEGORIES = (1, 2, 3, 4)
CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
K = 10


def _ingest(mem: Memory, conv: LocomoConversation, env: EvalEnv, mode: str) -> None:
    items = [
        {
            "text": o.text,
            "user_id": conv.sample_id,
            "sources": list(o.sources),
            "created_at": o.created_at,
        }
        for o in conv.observations
    ]
    if mode == "off":
        mem.add_many(items)
        return
    task = env.task(f"{conv.sample_id} ingest (sync)", len(items))
    for item in items:
        # One by one: each observation is consolidated against what came before it.
        mem.add(**item)  # type: ignore[call-overload]
        env.progress.advance(task)
    env.progress.remove_task(task)


def _no_ticks(env: EvalEnv) -> Settings:
    """The run's settings without lifecycle ticks: this suite measures what consolidation
    on save costs retrieval. With ticks, sync adds tick every few saves, and the
    observations, dated 2022-2023, fade at once into the cold tier that plain search
    leaves out (evidence recall ratio 0.973 instead of 0.999 on dev)."""
    return env.settings.model_copy(
        update={"lifecycle": env.settings.lifecycle.model_copy(update={"tick_every_adds": 0})}
    )


def _score(mem: Memory, conv: LocomoConversation) -> list[JSONDict]:
    rows: list[JSONDict] = []
    for qa in conv.qa:
        if qa.category not in CATEGORIES:
            continue
        hits = mem.search(qa.question, user_id=conv.sample_id, k=K)
        recall = evidence_recall(qa.evidence, (h.memory.sources for h in hits))
        rows.append(
            {
                "category": qa.category,
                "recall": recall,
                "contains": contains_answer(qa.answer, (h.memory.text for h in hits)),
            }
        )
    return rows


def _summary(rows: Sequence[JSONDict]) -> JSONDict:
    scored = [r for r in rows if r["recall"] is not None]
    out: JSONDict = {
        "questions": len(rows),
        "scored": len(scored),
        "evidence_recall": mean(r["recall"] for r in scored),
        "answer_contained": mean(float(r["contains"]) for r in rows),
        "by_category": {},
    }
    for cat in CATEGORIES:
        sub = [r for r in rows if r["category"] == cat]
        out["by_category"][CATEGORY_NAMES[cat]] = {
            "questions": len(sub),
            "evidence_recall": mean(r["recall"] for r in sub),
            "answer_contained": mean(float(r["contains"]) for r in sub),
        }
    return out


def _ceiling(conv: LocomoConversation) -> float | None:
    """Best possible recall: evidence ids that any observation carries at all."""
    known = {s for o in conv.observations for s in o.sources}
    return mean(
        evidence_recall(qa.evidence, [known]) for qa in conv.qa if qa.category in CATEGORIES
    )


def run_locomo(env: EvalEnv) -> JSONDict:
    convs = load_locomo(env.data, env.split)
    if env.max_convs is not None:
        convs = convs[: env.max_convs]
    texts = [o.text for c in convs for o in c.observations]
    texts += [q.question for c in convs for q in c.qa if q.category in CATEGORIES]
    env.embed_all(texts, "LoCoMo")
    per_conv: list[JSONDict] = []
    all_rows: dict[str, list[JSONDict]] = {"off": [], "on": []}
    for conv in convs:
        entry: JSONDict = {"conversation": conv.sample_id, "observations": len(conv.observations)}
        for label, mode in (("off", "off"), ("on", "sync")):
            mem = env.memory(f"locomo-{conv.sample_id}-{label}", mode, settings=_no_ticks(env))
            try:
                _ingest(mem, conv, env, mode)
                active = mem.store.count_memories(status=Status.ACTIVE)
                rows = _score(mem, conv)
                usage = mem.usage()
            finally:
                mem.close()
            all_rows[label].extend(rows)
            entry[label] = {**_summary(rows), "active": active, "llm_calls": _calls(usage)}
        entry["active_ratio"] = entry["on"]["active"] / max(1, entry["off"]["active"])
        entry["recall_ceiling"] = _ceiling(conv)
        per_conv.append(entry)
    total_off = sum(e["off"]["active"] for e in per_conv)
    total_on = sum(e["on"]["active"] for e in per_conv)
    off, on = _summary(all_rows["off"]), _summary(all_rows["on"])
    ratio = None
    if off["evidence_recall"] and on["evidence_recall"] is not None:
        ratio = on["evidence_recall"] / off["evidence_recall"]
    return {
        "conversations": per_conv,
        "total": {
            "memories_off": total_off,
            "memories_on_active": total_on,
            "active_ratio": total_on / max(1, total_off),
            "off": off,
            "on": on,
            "recall_ratio_on_off": ratio,
            "recall_ceiling": mean(e["recall_ceiling"] for e in per_conv),
        },
    }


def _calls(usage: Sequence[JSONDict]) -> int:
    return int(sum(int(row.get("calls", 0)) for row in usage))
