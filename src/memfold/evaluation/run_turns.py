"""LoCoMo raw-turn retrieval: each dialog turn is one memory, stored unjudged; each QA
item of categories 1-4 is searched in hybrid, vector and keyword mode, and scored by
evidence recall at k = 5, 10 and 20 (the share of its evidence dialog ids among the
turns that ``search(k=k)`` returns). Hybrid should never fall below the best single
mode: this suite is where the fusion is tuned (dev conversations only).
"""

from __future__ import annotations

from collections.abc import Sequence

from memfold.engine.search import SearchMode
from memfold.evaluation.conversations import load_locomo
from memfold.evaluation.env import EvalEnv
from memfold.evaluation.metrics import evidence_recall, mean
from memfold.evaluation.run_locomo import CATEGORIES, CATEGORY_NAMES
from memfold.model import JSONDict

MODES: tuple[SearchMode, ...] = ("hybrid", "vector", "keyword")
KS = (5, 10, 20)


def run_turns(env: EvalEnv) -> JSONDict:
    convs = load_locomo(env.data, env.split)
    if env.max_convs is not None:
        convs = convs[: env.max_convs]
    questions = [q for c in convs for q in c.qa if q.category in CATEGORIES]
    env.embed_all(
        [t.text for c in convs for t in c.turns] + [q.question for q in questions], "turns"
    )
    rows: list[JSONDict] = []
    mem = env.memory("locomo-turns", "off")
    try:
        for conv in convs:
            items = [
                {"text": t.text, "user_id": conv.sample_id, "sources": list(t.sources)}
                for t in conv.turns
            ]
            if items:
                mem.add_many(items, consolidate=False)
        task = env.task("turn retrieval", len(questions))
        for conv in convs:
            for qa in conv.qa:
                if qa.category not in CATEGORIES or not qa.evidence:
                    continue
                row: JSONDict = {"category": qa.category}
                for mode in MODES:
                    for k in KS:
                        # One search per k: what search(k=k) returns, not the first k of
                        # a longer page (pages are reordered newer-first within).
                        hits = mem.search(qa.question, user_id=conv.sample_id, k=k, mode=mode)
                        found = (h.memory.sources for h in hits)
                        row[f"{mode}@{k}"] = evidence_recall(qa.evidence, found)
                rows.append(row)
                env.progress.advance(task)
        env.progress.remove_task(task)
    finally:
        mem.close()
    return {"turns": sum(len(c.turns) for c in convs), "questions": len(rows), **summarize(rows)}


def summarize(rows: Sequence[JSONDict]) -> JSONDict:
    """Mean recall per mode and k, overall and by category, and where hybrid falls
    below the best single mode."""
    keys = [f"{mode}@{k}" for mode in MODES for k in KS]
    overall = {key: mean(r[key] for r in rows) for key in keys}
    by_category = {
        CATEGORY_NAMES[cat]: {
            key: mean(r[key] for r in rows if r["category"] == cat) for key in keys
        }
        for cat in CATEGORIES
    }
    below = [
        k
        for k in KS
        if (overall[f"hybrid@{k}"] or 0.0)
        < max(overall[f"vector@{k}"] or 0.0, overall[f"keyword@{k}"] or 0.0)
    ]
    return {"recall": overall, "by_category": by_category, "hybrid_below_best_at": below}
