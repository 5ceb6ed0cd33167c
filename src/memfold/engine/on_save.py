"""Consolidation on save: candidates, one judge call per batch, guards, apply.

A job is marked done in the same transaction that applies its decision, and only
while its worker still holds it, so a crash at any point leaves either the job
pending (it runs again) or the decision applied and the job done (it never
applies twice). Saves are judged in insertion order against what was inserted
before them; a later save of a batch sees what the earlier ones changed.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from memfold.embed.calibration import scale_for
from memfold.engine import jobs as job_steps
from memfold.engine import readings
from memfold.engine.apply import plan
from memfold.engine.changes import commit
from memfold.engine.context import Context
from memfold.engine.jobs import Outcome, owner_of
from memfold.engine.pass_changes import PassChanges
from memfold.engine.review.scan import queue_contradictions
from memfold.engine.search import Nearest, similar_active, similar_active_many
from memfold.engine.update_channel import channel_open, update_candidates
from memfold.engine.write_group import WriteGroup
from memfold.errors import ConflictError, LeaseLost
from memfold.index.rows import IndexRow
from memfold.judge.base import Judge, SaveItem
from memfold.model import (
    Action,
    Candidate,
    Category,
    Decision,
    Job,
    MemoryRecord,
    Status,
    Vector,
)
from memfold.policy.guards import apply_guards, refuse
from memfold.policy.result_check import ResultLimits, drift_problems
from memfold.reading.parser import read_ahead

log = logging.getLogger(__name__)


__all__ = ["Outcome", "candidates_for", "process_jobs"]

_MAX_SOURCE_DEPTH = 32


_CHANGES = (Action.UPDATE, Action.MERGE, Action.REPLACE, Action.DELETE)


def _origin(ctx: Context, memory: MemoryRecord, order: dict[str, int], depth: int = 0) -> int:
    """Where ``memory`` stands in insertion order: its own place, or for a memory made
    from others (a merge) the place of its newest source."""
    own = order.get(memory.id)
    if own is None:
        own = ctx.store.insertion_order([memory.id]).get(memory.id, 0)
    if not memory.consolidated_from or depth >= _MAX_SOURCE_DEPTH:
        return own
    sources = ctx.store.get_memories(memory.consolidated_from)
    if not sources:
        return own
    _insertion_order(ctx, list(sources), order)
    return max(_origin(ctx, s, order, depth + 1) for s in sources.values())


def candidates_for(
    ctx: Context,
    record: MemoryRecord,
    found: list[Candidate] | None = None,
    known: dict[str, int] | None = None,
) -> list[Candidate]:
    """What was already known when ``record`` was saved: similar active memories inserted
    before it (whatever their ``created_at``: a backdated save is judged too), then the
    update channel's (``engine.update_channel``: below the discovery cosine, for a
    change cue; ``via="update"``). A memory made by consolidation counts from its newest
    source, so a merge of older saves is known to a later one. Two saves pending
    together are judged once, newer against older, never each against the other.
    ``known``: insertion order already read in this pass (a row's identity number never
    changes), filled in as more are read."""
    cfg = ctx.settings.consolidation
    if found is None:  # else found for a whole batch at once (similar_active_many)
        found = similar_active(
            ctx, record, k=cfg.candidates_fetched, min_similarity=cfg.discovery_threshold
        )
    channel = update_candidates(ctx, record, exclude=[c.memory.id for c in found])
    if not found and not channel:
        return []
    order = _insertion_order(ctx, [record.id, *(c.memory.id for c in (*found, *channel))], known)
    mine = order.get(record.id)
    if mine is None:
        return []
    older = [c for c in found if _origin(ctx, c.memory, order) < mine]
    fetched = max(len(found), cfg.candidates_fetched)
    # A backlog of saves newer than this one (restatements pending with it) can fill the
    # nearest ones fetched and hide an older memory: fetch more until enough older ones
    # are found, the scope has no more, or the cap is reached.
    while (
        len(older) < cfg.candidates_judged
        and len(found) >= fetched  # the search was full: more may lie beyond it
        and fetched < cfg.candidates_fetch_max
    ):
        fetched = min(fetched * 4, cfg.candidates_fetch_max)
        found = similar_active(ctx, record, k=fetched, min_similarity=cfg.discovery_threshold)
        order = _insertion_order(ctx, [c.memory.id for c in found], order)
        older = [c for c in found if _origin(ctx, c.memory, order) < mine]
    older_channel = [c for c in channel if _origin(ctx, c.memory, order) < mine]
    return older[: cfg.candidates_judged] + older_channel[: cfg.update_channel_max]


def _insertion_order(
    ctx: Context, ids: Sequence[str], known: dict[str, int] | None
) -> dict[str, int]:
    """``known`` (a new dict if None) with the insertion order of ``ids`` it lacked."""
    order = {} if known is None else known
    missing = [i for i in ids if i not in order]
    if missing:
        order.update(ctx.store.insertion_order(missing))
    return order


def _load(ctx: Context, job: Job, read: dict[str, MemoryRecord] | None) -> MemoryRecord | Outcome:
    """The save to judge (from ``read``, the batch's saves read at once, else read
    alone), or the outcome of a job that needs no decision."""
    given_up = job_steps.gave_up(ctx, job)
    if given_up is not None:
        return given_up
    record = ctx.store.get_memory(job.memory_id) if read is None else read.get(job.memory_id)
    if record is None or record.status is not Status.ACTIVE:
        return job_steps.finish_plain(ctx, job, job.memory_id)
    return record


def _prepare_all(
    ctx: Context, jobs: Sequence[Job], known: dict[str, int]
) -> tuple[list[Outcome], list[tuple[Job, SaveItem]], dict[str, Nearest]]:
    """Each job's save and its candidates now, the vector candidates of all of them found
    in one pass over each scope (also returned, by save id, before the order and channel
    rules); jobs that need no decision come back as outcomes."""
    done: list[Outcome] = []
    loaded: list[tuple[Job, MemoryRecord]] = []
    try:  # one read for the batch (a pass prepares its rest again after each change)
        read: dict[str, MemoryRecord] | None = ctx.store.get_memories(j.memory_id for j in jobs)
    except Exception:  # a record that cannot be read: find out which, one by one
        log.warning("batched read of the saves failed; reading save by save", exc_info=True)
        read = None
    for job in jobs:
        try:
            got = _load(ctx, job, read)
        except Exception as exc:
            got = job_steps.poisoned(ctx, job, None, job.memory_id, None, exc)
        if isinstance(got, Outcome):
            done.append(got)
        else:
            loaded.append((job, got))
    # The update channel reads every new text: their readings, stored with them or
    # parsed in one batch (``engine.readings``).
    readings.prime(ctx, [r for _, r in loaded])
    cfg = ctx.settings.consolidation
    try:
        # Twice what is judged: the spare ones let _refound rebuild the list after
        # earlier saves of the batch retired some, without another search (their rows
        # are read only then).
        found = similar_active_many(
            ctx,
            [r for _, r in loaded],
            k=2 * cfg.candidates_fetched,
            min_similarity=cfg.discovery_threshold,
            read=cfg.candidates_fetched,
        )
    except Exception:  # one save's scope cannot be searched: find out which, one by one
        log.warning("batched candidate search failed; searching save by save", exc_info=True)
        found = {}
    live: list[tuple[Job, SaveItem]] = []
    for job, record in loaded:
        try:
            nearest = found.get(record.id)
            read_now = None if nearest is None else nearest.read
            cands = candidates_for(ctx, record, read_now, known)
            live.append((job, SaveItem(record, cands)))
        except Exception as exc:
            done.append(job_steps.poisoned(ctx, job, None, job.memory_id, None, exc))
    # The judge and the guards read every candidate: stored readings, not a parse.
    readings.prime(ctx, [c.memory for _, item in live for c in item.candidates])
    return done, live, found


def _stale(
    ctx: Context,
    item: SaveItem,
    since: PassChanges,
    found: Nearest | None,
    group: WriteGroup,
    known: dict[str, int],
) -> bool:
    """Whether the store moved, since ``item`` was prepared (the rows of ``since``),
    in what it is judged on: the save itself or a candidate was written, or a memory
    written since could now be a candidate. The rows changed since are few; the
    candidates are worked out again from them (``_refound``), the scope searched again
    only when they cannot be."""
    record = ctx.store.get_memory(item.new.id)
    if record is None or record.version != item.new.version:
        return True
    changes = [r for r in since.rows() if r.id != item.new.id]
    if not _moved_near(ctx, item, changes):
        return False
    group.flush()  # candidates_for may search: the index must see committed rows only
    refound = _refound(ctx, item, changes, found)
    with ctx.one_index_sync():  # its searches (a backlog may need several): one sync
        now = candidates_for(ctx, record, refound, known)
    fresh = {(c.memory.id, c.memory.version) for c in now}
    return fresh != {(c.memory.id, c.memory.version) for c in item.candidates}


def _moved_near(ctx: Context, item: SaveItem, changes: Sequence[IndexRow]) -> bool:
    """A candidate was written, or a row written is active in the save's scope at the
    lowest candidate cosine (or cannot be compared). The update channel's lower cosine
    counts only for a save it looks for candidates of (``channel_open``): for any other
    save, a row below the discovery cosine can be no candidate at all."""
    cfg = ctx.settings.consolidation
    floor = cfg.discovery_threshold
    if channel_open(cfg, item.new):
        floor = min(floor, cfg.update_channel_min_similarity)
    seen = {c.memory.id for c in item.candidates}
    for row in changes:
        if row.id in seen:
            return True
        cosine = _cosine(item, row)
        if cosine is None or cosine >= floor:
            return True
    return False


def _cosine(item: SaveItem, row: IndexRow) -> float | None:
    """-1 for a row that cannot be a candidate, None when it cannot be compared."""
    if row.deleted or row.status is not Status.ACTIVE or row.scope_key != item.new.scope.key():
        return -1.0
    vector = item.new.embedding
    if vector is None or row.embedding is None or row.embedding.shape != vector.shape:
        return None
    return float(np.dot(vector, row.embedding))


def _refound(
    ctx: Context, item: SaveItem, changes: Sequence[IndexRow], found: Nearest | None
) -> list[Candidate] | None:
    """The vector candidates now, from those found at preparation (twice the number
    fetched) and the rows changed since, without a search. Exact while the unchanged
    ones found still number at least what is fetched (nothing unchanged outside them can
    rank higher), or when the search found every memory at the discovery cosine.
    None: search again."""
    cfg = ctx.settings.consolidation
    if found is None:
        return None
    changed = {r.id for r in changes}
    near: dict[str, float] = {}
    for row in changes:
        cosine = _cosine(item, row)
        if cosine is None:
            return None
        if cosine >= cfg.discovery_threshold:
            near[row.id] = cosine
    spares = [(mid, sim) for mid, sim in found.spares if mid not in changed]
    records = ctx.store.get_memories([*near, *(mid for mid, _ in spares)])
    kept = [c for c in found.read if c.memory.id not in changed]
    kept += [Candidate(records[mid], sim) for mid, sim in spares if mid in records]
    exhaustive = len(found.read) + len(found.spares) < 2 * cfg.candidates_fetched
    if not exhaustive and len(kept) < cfg.candidates_fetched:
        return None
    now = kept + [Candidate(records[i], sim) for i, sim in near.items() if i in records]
    now.sort(key=lambda c: -c.similarity)
    return now[: cfg.candidates_fetched]


def process_jobs(ctx: Context, judge: Judge, jobs: Sequence[Job]) -> list[Outcome]:
    """Decide and apply a batch of claimed on-save jobs, in order.

    One judge call decides the batch. Items are applied one by one; once an applied
    decision changed the store, each later item is checked: if its candidates moved
    (a merge made from them, a target superseded), it and the rest of the batch are
    prepared again and judged in another call, so item k+1 always sees the store as
    item k left it. A save that fails alone is skipped alone (see ``engine.jobs``).
    The decisions are committed in groups (``engine.write_group``), each atomic alone.
    """
    outcomes: list[Outcome] = []
    todo = list(jobs)
    known: dict[str, int] = {}  # insertion order read in this pass (never changes)
    while todo:
        # One sync for the preparation's searches; the pass follows the changes after it.
        with ctx.one_index_sync():
            since = PassChanges(ctx.store, ctx.synced_index().seq)
            done, live, found = _prepare_all(ctx, todo, known)
        outcomes.extend(done)
        asked = [item for _, item in live if item.candidates]
        decided = job_steps.decide(ctx, judge, asked) if asked else []
        _read_ahead(asked, decided)
        answers = iter(decided)
        todo = []
        changed = False  # a memory was rewritten or retired: candidate sets may move
        restamped: set[str] = set()  # saves an ADD / KEEP_SEPARATE gave a new version
        with WriteGroup(ctx) as group:
            for n, (job, item) in enumerate(live):
                # Nothing similar enough: no judge call at all.
                raw = next(answers) if item.candidates else None
                nearest = found.get(item.new.id)
                if changed and _stale(ctx, item, since, nearest, group, known):
                    todo = [j for j, _ in live[n:]]
                    break
                if not changed and restamped:
                    item = _restamp(ctx, item, restamped)
                outcome = _settle(ctx, job, item, raw, group)
                group.done()
                outcomes.append(outcome)
                changed = changed or outcome.changed
                if outcome.log_id is not None:
                    restamped.add(outcome.memory_id)
    return outcomes


def _read_ahead(items: Sequence[SaveItem], decisions: Sequence[Decision]) -> None:
    """Parse, in one batch, every text the guards will read for this pass's proposed
    changes (the new memories, their targets, the texts written): about half the cost
    of parsing them one by one (``memfold.reading.parser``)."""
    texts: list[str] = []
    for item, decision in zip(items, decisions, strict=False):
        if decision.action not in _CHANGES:
            continue
        wanted = set(decision.target_ids)
        texts.append(item.new.text)
        texts += [c.memory.text for c in item.candidates if c.memory.id in wanted]
        if decision.text:
            texts.append(decision.text)
    if texts:
        read_ahead(texts)


def _restamp(ctx: Context, item: SaveItem, restamped: set[str]) -> SaveItem:
    """``item`` with the current versions of candidates that an earlier ADD or
    KEEP_SEPARATE of the batch re-versioned (its area, or its category): same texts,
    same vectors, so the decision stands, and applying it does not meet a version
    conflict."""
    moved = [c.memory.id for c in item.candidates if c.memory.id in restamped]
    if not moved:
        return item
    fresh = ctx.store.get_memories(moved)

    def current(seen: MemoryRecord) -> MemoryRecord:
        now = fresh.get(seen.id)
        # Only the one re-stamp, nothing else: any other move (another process rewrote
        # it) keeps the version seen, so applying meets the conflict and runs again.
        if now is None or now.version != seen.version + 1:
            return seen
        # A category the judge set with that decision is part of the re-stamp too; only
        # becoming or leaving core changes what a later decision may do.
        core = (now.category is Category.CORE, seen.category is Category.CORE)
        if (now.text, now.status) != (seen.text, seen.status) or core[0] != core[1]:
            return seen
        return now

    return SaveItem(item.new, [replace(c, memory=current(c.memory)) for c in item.candidates])


def _settle(
    ctx: Context, job: Job, item: SaveItem, raw: Decision | None, group: WriteGroup
) -> Outcome:
    group.begin()
    if raw is None:
        return job_steps.finish_plain(ctx, job, item.new.id)
    try:
        return _apply_one(ctx, job, item, raw, group)
    except Exception as exc:
        return job_steps.poisoned(ctx, job, item, item.new.id, raw, exc)


def _apply_one(ctx: Context, job: Job, item: SaveItem, raw: Decision, group: WriteGroup) -> Outcome:
    limits = ResultLimits.from_settings(ctx.settings)
    decision = apply_guards(
        raw,
        item.new,
        item.candidates,
        ctx.settings.consolidation,
        limits,
        scale_for(ctx.embedder.model_id),
    )
    if decision.action is Action.SKIP:
        return _skip(ctx, job, item, decision)
    decision, vectors = _check_drift(ctx, item, decision, limits, group)
    change = plan(ctx, item.new, item.candidates, decision, vectors)

    def inside(_log_id: int) -> None:
        ctx.store.finish_job(job.id, owner_of(job))
        queue_contradictions(ctx, item.new.id, item.candidates, decision)

    try:
        log_id = commit(ctx, change, inside=inside)
    except LeaseLost:
        return Outcome(item.new.id, decision, lost=True)  # another worker holds it now
    except ConflictError as exc:
        # A target moved since the decision: re-plan on a later run, never overwrite.
        return job_steps.conflicted(ctx, job, item, decision, exc)
    return Outcome(item.new.id, decision, log_id)


def _check_drift(
    ctx: Context, item: SaveItem, decision: Decision, limits: ResultLimits, group: WriteGroup
) -> tuple[Decision, dict[str, Vector]]:
    """A judge-written text (UPDATE, MERGE) must embed near one of its sources (the
    breaker's drift bound). Its vector is handed on so it is computed once."""
    text = decision.text
    if decision.action not in (Action.UPDATE, Action.MERGE) or text is None:
        return decision, {}
    by_id = {c.memory.id: c.memory for c in item.candidates}
    sources = [item.new, *(by_id[t] for t in decision.target_ids if t in by_id)]
    if any(s.text == text for s in sources):
        return decision, {}  # a source's own text: no drift
    group.flush()  # an embedding may take a while (a remote model): not under the lock
    vector = ctx.embed_one(text)
    problems = drift_problems(vector, [(s.id, s.embedding) for s in sources], limits.max_drift)
    if problems:
        return refuse(decision, problems), {}
    return decision, {text: vector}


def _skip(ctx: Context, job: Job, item: SaveItem, decision: Decision) -> Outcome:
    if decision.transient:
        return job_steps.defer(ctx, job, item.new.id, decision)
    return job_steps.final_skip(ctx, job, item, item.new.id, decision)
