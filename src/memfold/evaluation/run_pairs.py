"""Pairs: each pair is an existing memory and a new one in a scope of its own.

One SQLite file holds every pair of a data set; a distinct user_id per pair keeps
scopes apart (consolidation never crosses scopes). The existing memories go in
unjudged with ``add_many(embeddings=..., consolidate=False)``; each new one goes
through ``add`` in sync mode, so the decision read is the one the on-save path applied,
after the guards.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from memfold.errors import NotFound
from memfold.evaluation.env import EvalEnv
from memfold.evaluation.metrics import PairOutcome, confusion, pair_metrics
from memfold.evaluation.pairs_data import Pair, PairKind, load_pairs
from memfold.memory import Memory
from memfold.model import Action, JSONDict, LinkKind, Status


@dataclass(slots=True)
class StateCheck:
    """Cross-checks of the decision against the stored state (nothing hard-deleted)."""

    lost: int = 0  # a memory no longer readable with get()
    contradiction_links: int = 0


def run_pair_dataset(env: EvalEnv, dataset: str) -> JSONDict:
    pairs = load_pairs(env.data, dataset, env.split, env.limit)
    if not pairs:
        return {"dataset": dataset, "metrics": pair_metrics([]), "confusion": {}}
    texts = [p.a for p in pairs] + [p.b for p in pairs]
    env.embed_all(texts, f"{dataset} ({len(pairs)} pairs)")
    vec_a = env.embedder.embed([p.a for p in pairs])
    vec_b = env.embedder.embed([p.b for p in pairs])
    cosines = np.einsum("ij,ij->i", vec_a, vec_b)
    mem = env.memory(f"pairs-{dataset}", "sync")
    outcomes: list[PairOutcome] = []
    check = StateCheck()
    try:
        scopes = [f"{dataset}-{i}" for i in range(len(pairs))]
        existing = mem.add_many(
            [
                {"text": p.a, "user_id": s, "sources": ["a"]}
                for p, s in zip(pairs, scopes, strict=True)
            ],
            embeddings=vec_a.tolist(),
            consolidate=False,
        )
        task = env.task(f"pairs {dataset}", len(pairs))
        for i, pair in enumerate(pairs):
            result = mem.add(pair.b, user_id=scopes[i], sources=["b"], embedding=vec_b[i].tolist())
            decision = result.decision
            action = Action.ADD.value if decision is None else decision.action.value
            outcomes.append(
                PairOutcome(
                    dataset,
                    pair.label,
                    pair.kind,
                    action,
                    float(cosines[i]),
                    decision is not None,
                    contradicts=decision is not None and decision.contradicts,
                )
            )
            _check_state(mem, existing[i].memory.id, result.memory.id, action, check)
            env.progress.advance(task)
        env.progress.remove_task(task)
    finally:
        mem.close()
    return {
        "dataset": dataset,
        "metrics": pair_metrics(outcomes),
        "confusion": confusion(outcomes),
        "lost_memories": check.lost,
        "contradicts_links": check.contradiction_links,
        "examples": _examples(pairs, outcomes),
    }


def _check_state(mem: Memory, old_id: str, new_id: str, action: str, check: StateCheck) -> None:
    try:
        old = mem.get(old_id)
        mem.get(new_id)
    except NotFound:
        check.lost += 1
        return
    if action == Action.DELETE.value and old.status is Status.SUPERSEDED:
        links = mem.store.links_for([old.id])
        if any(ln.kind is LinkKind.CONTRADICTS and ln.dst == old.id for ln in links):
            check.contradiction_links += 1


def _examples(pairs: list[Pair], outcomes: list[PairOutcome], per: int = 25) -> list[JSONDict]:
    """A few must-not-merge pairs that were merged anyway, to read by hand (a DELETE on a
    contradiction is the intended handling, so it is not an example of a mistake)."""
    bad = [
        {"a": p.a, "b": p.b, "label": p.label, "action": o.action, "cosine": round(o.cosine, 3)}
        for p, o in zip(pairs, outcomes, strict=True)
        if p.kind.must_not_merge
        and o.action in ("MERGE", "REPLACE", "DELETE", "UPDATE")
        and not (p.kind is PairKind.CONTRADICTION and o.action == "DELETE")
    ]
    return bad[:per]
