"""Turning a guarded on-save decision into a logged change. Nothing is hard-deleted."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from memfold.engine.changes import ChangeSet, link
from memfold.engine.context import Context
from memfold.engine.ingest import initial_stability
from memfold.model import (
    Action,
    Candidate,
    Category,
    CategorySource,
    Decision,
    LinkKind,
    MemoryRecord,
    Status,
    Vector,
    content_hash,
    new_id,
    utcnow,
)


def _union(*lists: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(item for lst in lists for item in lst))


def _retext(
    ctx: Context,
    record: MemoryRecord,
    text: str,
    known: dict[str, MemoryRecord],
    vectors: Mapping[str, Vector],
) -> None:
    """Give ``record`` a new text and its vector, reusing one already computed for that text."""
    if text == record.text:
        return
    record.text = text
    record.content_hash = content_hash(text)
    same = known.get(text)
    if text in vectors:
        record.embedding, record.embedding_model = vectors[text], ctx.embedder.model_id
    elif same is not None and same.embedding is not None and same.embedding_model:
        # Containment/duplicate UPDATEs keep the new or a candidate text verbatim.
        record.embedding, record.embedding_model = same.embedding, same.embedding_model
    else:
        record.embedding = ctx.embed_one(text)
        record.embedding_model = ctx.embedder.model_id


def _judged_category(record: MemoryRecord, decision: Decision) -> dict[str, Any]:
    """The category change the LLM judge's reply asks of ``record`` (the memory that
    keeps the new one's content): nothing when the reply named none or the same one,
    the caller gave the record's category, or the record is core or a summary."""
    category = decision.category
    if (
        category is None
        or category is record.category
        or record.category_source in (CategorySource.GIVEN, CategorySource.LIFECYCLE)
        or record.category in (Category.CORE, Category.SUMMARY)
    ):
        return {}
    return {"category": category, "category_source": CategorySource.JUDGE}


def _judged_importance(ctx: Context, record: MemoryRecord, decision: Decision) -> dict[str, Any]:
    """The importance the judge's reply gives ``record`` (seed 000: the LLM assigns it
    during consolidation), with the stability that importance earns. It only raises: a
    judge may mark a fact vital, never lower what the caller gave."""
    judged = decision.importance
    if judged is None or judged <= record.importance:
        return {}
    stability = max(record.stability, initial_stability(ctx, judged))
    return {"importance": judged, "stability": stability}


def _supersede(record: MemoryRecord, by: str, *, end_validity: bool = False) -> MemoryRecord:
    now = utcnow()
    return record.copy(
        status=Status.SUPERSEDED,
        superseded_by=by,
        version=record.version + 1,
        updated_at=now,
        valid_to=now if end_validity else record.valid_to,
    )


def plan(
    ctx: Context,
    new: MemoryRecord,
    candidates: Sequence[Candidate],
    decision: Decision,
    vectors: Mapping[str, Vector] | None = None,
) -> ChangeSet:
    """The change a (guarded) decision asks for, planned on the versions seen. ``vectors``
    holds embeddings already computed for result texts."""
    vectors = vectors or {}
    by_id = {c.memory.id: c.memory for c in candidates}
    targets = [by_id[t] for t in decision.target_ids if t in by_id]
    sims = [c.similarity for c in candidates if c.memory.id in decision.target_ids]
    change = ChangeSet(
        path="on_save",
        action=decision.action.value,
        input_ids=[new.id, *(t.id for t in targets)],
        expected={new.id: new.version, **{t.id: t.version for t in targets}},
        similarity=max(sims) if sims else (candidates[0].similarity if candidates else None),
        confidence=decision.confidence,
        reasoning=_reasoning(decision),
        judge=decision.judge,
        model=decision.model,
        prompt_version=decision.prompt_version,
        prompt_tokens=decision.prompt_tokens,
        completion_tokens=decision.completion_tokens,
    )
    action = decision.action
    now = utcnow()
    known = {m.text: m for m in [new, *by_id.values()]}
    if action is Action.UPDATE:
        target = targets[0].copy(
            version=targets[0].version + 1,
            updated_at=now,
            **_judged_category(targets[0], decision),
        )
        _retext(ctx, target, decision.text or target.text, known, vectors)
        target.sources = _union(target.sources, new.sources)
        target.importance = max(target.importance, new.importance, decision.importance or 0.0)
        target.area = decision.area or target.area
        change.writes = [target, _supersede(new, target.id)]
        change.add_links = [link(target.id, new.id, LinkKind.UPDATES)]
    elif action is Action.MERGE:
        originals = [new, *targets]
        merged = new.copy(
            id=new_id(),
            version=1,
            created_at=now,
            updated_at=now,
            valid_from=min((o.valid_from or o.created_at) for o in originals),
            importance=max([o.importance for o in originals] + [decision.importance or 0.0]),
            area=decision.area or new.area,
            sources=_union(*(o.sources for o in originals)),
            consolidated_from=[o.id for o in originals],
            access_count=max(o.access_count for o in originals),
            status=Status.ACTIVE,
            **_judged_category(new, decision),
        )
        _retext(ctx, merged, decision.text or new.text, known, vectors)
        change.creates = [merged]
        change.expected[merged.id] = None
        change.writes = [_supersede(o, merged.id) for o in originals]
        change.add_links = [link(merged.id, o.id, LinkKind.DERIVED_FROM) for o in originals]
    elif action is Action.REPLACE:
        keeper = new.copy(
            version=new.version + 1,
            updated_at=now,
            sources=_union(new.sources, *(t.sources for t in targets)),
            area=decision.area or new.area,
            **_judged_category(new, decision),
            **_judged_importance(ctx, new, decision),
        )
        change.writes = [keeper, *(_supersede(t, new.id) for t in targets)]
        change.add_links = [link(new.id, t.id, LinkKind.SUPERSEDES) for t in targets]
    elif action is Action.DELETE:
        change.writes = [_supersede(t, new.id, end_validity=True) for t in targets]
        judged = {**_judged_category(new, decision), **_judged_importance(ctx, new, decision)}
        if judged:  # the new memory stays: it takes the judge's category and importance
            change.writes.append(new.copy(version=new.version + 1, updated_at=now, **judged))
        change.add_links = [link(new.id, t.id, LinkKind.CONTRADICTS) for t in targets]
    elif action in (Action.ADD, Action.KEEP_SEPARATE):
        moved: dict[str, Any] = {
            **_judged_category(new, decision),
            **_judged_importance(ctx, new, decision),
        }
        if decision.area is not None and decision.area != new.area:
            moved["area"] = decision.area
        if moved:
            change.writes = [new.copy(version=new.version + 1, updated_at=now, **moved)]
        kind = LinkKind.CONTRADICTS if decision.contradicts else LinkKind.RELATED
        change.add_links = [link(new.id, t.id, kind) for t in targets]
    return change


def _reasoning(decision: Decision) -> str:
    if not decision.downgrade_reasons:
        return decision.reasoning
    original = decision.downgraded_from.value if decision.downgraded_from else "?"
    reasons = "; ".join(decision.downgrade_reasons)
    return f"{decision.reasoning} [downgraded from {original}: {reasons}]".strip()
