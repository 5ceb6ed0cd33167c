"""Hard erasure (``Memory.forget``): a memory, or a whole scope, gone from the file for good.

Soft delete (``delete``) archives and can be undone. ``forget`` removes the text,
the vector, the keyword (FTS5) entries, its snapshots in every log row and the
reasoning of those rows, its review-queue pairs, jobs, links and feedback, and
leaves a tombstone: id, scope, time, no text. It cannot be undone. A log row that
touched it keeps the snapshots of its other memories where it left their text as
it was (a bulk delete, an expiry), so undoing that row still restores them; a row
that rewrote another memory's text loses that snapshot too, and its undo is refused.

What else goes, and what comes back ("as if it had never been saved"):

- Derived memories hold an erased memory's words, so they are erased too, and
  so on down the lineage: a memory whose ``consolidated_from`` names it (a merge,
  by either path), one linked to it by ``updates`` or ``derived_from``, and one
  that a live (not undone) log row rewrote or created from it.
- Memories it had superseded (merged away, replaced, contradicted, updated into
  it) that are not erased themselves get back the status, successor and end of
  validity they had before: a merge's other source is active again.

Then the keyword index is optimized (FTS5 keeps deleted tokens until its
segments merge), the WAL is checkpointed and truncated, and ``vacuum`` rewrites
the file. Every connection zeroes freed space (``secure_delete``), so no stale
copy is left behind; a file created before that (no ``secure_delete_from``
mark) needs ``vacuum=True`` once for that guarantee, and the report says so.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field

from memfold.engine.context import Context
from memfold.engine.snapshot import state
from memfold.errors import ConfigError, InvalidInput, NotFound, UndoRefused
from memfold.model import (
    JSONDict,
    LinkKind,
    LogEntry,
    MemoryRecord,
    Scope,
    Status,
    parse_time,
    utcnow,
)
from memfold.policy.validate import clean_scope
from memfold.store.base import NewLogEntry, Store
from memfold.store.erasure import ErasureStore

log = logging.getLogger(__name__)

FORGET_ACTION = "FORGET"
# Links along which the source holds the destination's words.
_CARRIES_WORDS = (LinkKind.UPDATES, LinkKind.DERIVED_FROM)
_BATCH = 200  # ids or log rows per query


@dataclass
class ForgetReport:
    """What ``forget`` erased and restored, and what it did to the file."""

    erased: list[str]  # asked for: the id, or every memory of the scope
    # Conversations of the scope (a scope's forget): transcripts and summary parts.
    sessions: list[str] = field(default_factory=list)
    derived: list[str] = field(default_factory=list)  # erased too: they held those words
    restored: list[str] = field(default_factory=list)  # superseded by an erased one: back
    log_id: int | None = None  # the FORGET log row (ids only)
    rows_removed: dict[str, int] = field(default_factory=dict)
    log_rows_scrubbed: int = 0
    free_text_scrubbed: int = 0
    checkpointed: bool = False  # the WAL was copied back and truncated to zero bytes
    vacuumed: bool = False
    # The file predates secure_delete and was not vacuumed: old copies may linger.
    stale_space_possible: bool = False

    @property
    def all_erased(self) -> list[str]:
        return [*self.erased, *self.derived]

    def to_dict(self) -> JSONDict:
        return asdict(self)


def erasable(store: Store) -> ErasureStore:
    if not isinstance(store, ErasureStore):
        raise ConfigError(f"the store at {store.location} cannot erase memories")
    return store


# pure policy -----------------------------------------------------------------------
def rewritten(entry: LogEntry) -> set[str]:
    """Memories a log row created or gave a new text."""
    before = entry.before.get("memories", {})
    out: set[str] = set()
    for mid, snap in entry.after.get("memories", {}).items():
        if snap is None:
            continue
        old = before.get(mid)
        if old is None or old.get("text") != snap.get("text"):
            out.add(mid)
    return out


def restoration(record: MemoryRecord, logs: Sequence[LogEntry], erased: set[str]) -> MemoryRecord:
    """``record`` (superseded by an erased memory) as it was before that: its status,
    successor and end of validity from the live log row that superseded it; active
    with no successor when no such row is found or its successor is erased too."""
    status, successor, valid_to = Status.ACTIVE, None, record.valid_to
    for entry in sorted(logs, key=lambda e: e.id, reverse=True):
        if entry.undone_by is not None or entry.undoes is not None:
            continue
        after = entry.after.get("memories", {}).get(record.id)
        before = entry.before.get("memories", {}).get(record.id)
        if after is None or before is None or after.get("superseded_by") != record.superseded_by:
            continue
        if before.get("superseded_by") not in erased:
            status = Status(before.get("status", Status.ACTIVE.value))
            successor = before.get("superseded_by")
        valid_to = parse_time(before.get("valid_to"))
        break
    if status is Status.SUPERSEDED and successor is None:
        status = Status.ACTIVE
    return record.copy(
        status=status,
        superseded_by=successor,
        valid_to=valid_to,
        version=record.version + 1,
        updated_at=utcnow(),
    )


def scrubbed(entry: LogEntry, gone: set[str], *, keep_others: bool) -> tuple[JSONDict, JSONDict]:
    """A log row's before/after once the memories ``gone`` are erased: their snapshots and
    links go, and the row names them as erased. ``keep_others``: the snapshots of the
    row's other memories stay where the row left their text as it was (a bulk delete,
    an expiry, a status change), so the row can still restore them; a memory the row
    created, removed or gave a new text goes too (its text may hold erased words). Else
    every snapshot goes (a row that only quoted an erased text)."""
    erased = sorted(gone & touched_ids(entry))
    before = entry.before.get("memories", {})
    after = entry.after.get("memories", {})
    keep: set[str] = set()
    if keep_others:
        for mid in set(before) | set(after):
            old, new = before.get(mid), after.get(mid)
            unchanged = old is not None and new is not None and old.get("text") == new.get("text")
            if mid not in gone and unchanged:
                keep.add(mid)

    def side(state: JSONDict) -> JSONDict:
        memories = state.get("memories", {})
        links = [
            lk
            for lk in state.get("links", [])
            if lk.get("src") not in gone and lk.get("dst") not in gone
        ]
        return {
            "memories": {mid: snap for mid, snap in memories.items() if mid in keep},
            "links": links if keep else [],
            "erased": erased,
        }

    return side(entry.before), side(entry.after)


def touched_ids(entry: LogEntry) -> set[str]:
    ids = {*entry.input_ids, *entry.output_ids}
    for side in (entry.before, entry.after):
        ids.update(side.get("memories", {}))
        ids.update(side.get("erased", []))
    return ids


# engine ----------------------------------------------------------------------------
def _logs(store: ErasureStore, log_ids: Sequence[int]) -> Iterator[LogEntry]:
    """Log rows read a batch at a time (each holds whole snapshots)."""
    for start in range(0, len(log_ids), _BATCH):
        yield from store.logs_by_id(log_ids[start : start + _BATCH])


def derived_from(store: ErasureStore, ctx: Context, targets: Iterable[str]) -> set[str]:
    """Every existing memory that holds words of ``targets``, down the lineage."""
    erased = set(targets)
    frontier = set(erased)
    while frontier:
        ids = sorted(frontier)
        found = store.memories_made_from(ids)
        for start in range(0, len(ids), _BATCH):
            found.update(
                lk.src
                for lk in ctx.store.links_for(ids[start : start + _BATCH])
                if lk.dst in frontier and lk.kind in _CARRIES_WORDS
            )
        for entry in _logs(store, store.log_ids_touching(ids)):
            live = entry.undone_by is None and entry.undoes is None
            if live and frontier & set(entry.input_ids):
                found |= rewritten(entry)
        found -= erased
        frontier = set(ctx.store.get_memories(found))  # only those that still exist
        erased |= frontier
    return erased - set(targets)


def targets(
    ctx: Context,
    memory_id: str | None,
    *,
    user_id: object = None,
    agent_id: object = None,
    session_id: object = None,
) -> list[str]:
    """The memories ``forget`` was asked to erase: the id (inside the scope when one is
    given too), or every memory of the scope (None matches any). Raises before anything
    is written: InvalidInput with neither, NotFound for an unknown id or an empty scope."""
    store = erasable(ctx.store)
    given = {"user_id": user_id, "agent_id": agent_id, "session_id": session_id}
    scope = {k: v for k, v in given.items() if v is not None}
    if memory_id is None and not scope:
        raise InvalidInput("forget needs a memory id or a scope (user_id, agent_id, session_id)")
    checked = clean_scope(user_id, agent_id, session_id) if scope else None
    if memory_id is None and checked is not None:
        ids = store.scope_memory_ids(checked.user_id, checked.agent_id, checked.session_id)
        if not ids and not scope_sessions(ctx, **scope):
            raise NotFound(f"nothing to forget: no memory has {_describe(scope)}")
        return ids
    if memory_id is None:  # neither: refused above
        raise InvalidInput("forget needs a memory id or a scope")
    record = ctx.store.get_memory(memory_id)
    if record is None:
        when = store.erased_ids([memory_id]).get(memory_id)
        if when is not None:
            raise NotFound(f"memory {memory_id} was already erased ({when.isoformat()})")
        raise NotFound(f"no memory with id {memory_id!r}")
    if checked is not None:
        mine = record.scope.as_dict()
        if any(mine[k] != getattr(checked, k) for k in scope):
            raise NotFound(f"memory {memory_id} is not in the scope {_describe(scope)}")
    return [record.id]


def scope_sessions(ctx: Context, **given: object) -> list[str]:
    """The session keys of the conversations (engine/conversation) whose scope has the
    given ids (None matches any; none given: no session)."""
    wanted = {k: v for k, v in given.items() if v is not None}
    if not wanted:
        return []
    return [
        key
        for key in ctx.store.transcript_sessions()
        if all(Scope.from_key(key).as_dict().get(k) == v for k, v in wanted.items())
    ]


def _describe(scope: dict[str, object]) -> str:
    return " and ".join(f"{k}={v!r}" for k, v in scope.items())


def forget(
    ctx: Context,
    memory_ids: Sequence[str],
    *,
    vacuum: bool = False,
    dry_run: bool = False,
    sessions: Sequence[str] = (),
) -> ForgetReport:
    """Erase ``memory_ids`` (existing memories) and what derives from them, and the
    conversations of ``sessions`` (session keys); see the module docstring. One
    transaction; then the WAL checkpoint and the optional VACUUM.
    ``dry_run``: only say what would be erased and restored (for a confirmation)."""
    store = erasable(ctx.store)
    report = ForgetReport(erased=list(dict.fromkeys(memory_ids)), sessions=list(sessions))
    with ctx.store.transaction():
        derived = derived_from(store, ctx, report.erased)
        report.derived = sorted(derived)
        gone = set(report.all_erased)
        records = ctx.store.get_memories(report.all_erased)
        displaced = [m.id for m in store.memories_superseded_by(sorted(gone)) if m.id not in gone]
        if dry_run:
            report.restored = sorted(displaced)
            return report
        logs = store.logs_by_id(store.log_ids_touching(displaced))
        before = ctx.store.get_memories(displaced)
        restored = {mid: restoration(rec, logs, gone) for mid, rec in before.items()}
        for rec in restored.values():
            ctx.store.put_memory(rec)
        report.restored = sorted(restored)
        touching = store.log_ids_touching(sorted(gone))
        scrub = {e.id: scrubbed(e, gone, keep_others=True) for e in _logs(store, touching)}
        scrub.update(_rows_quoting(store, ctx, list(records.values()), gone, scrub))
        report.rows_removed = store.erase_memories(list(records.values()), derived)
        if sessions:
            report.rows_removed["transcripts"] = ctx.store.delete_transcripts(sessions)
        report.log_rows_scrubbed = store.scrub_log_rows(scrub)
        report.free_text_scrubbed = store.scrub_free_text([r.text for r in records.values()])
        after = ctx.store.get_memories(restored)
        report.log_id = ctx.store.append_log(
            NewLogEntry(
                path="erase",
                action=FORGET_ACTION,
                input_ids=[*report.all_erased, *report.restored],
                output_ids=report.restored,
                reasoning=(
                    f"erased {len(report.erased)} memories and {len(derived)} derived from "
                    f"them; {len(restored)} they had superseded restored"
                ),
                judge="user",
                before={**state(dict(before.items())), "erased": sorted(gone)},
                after={**state(dict(after.items())), "erased": sorted(gone)},
            )
        )
        store.optimize_keyword_index()
    _compact(ctx, store, report, vacuum=vacuum)
    ctx.synced_index()  # drop the vectors from this process's index now
    return report


def _rows_quoting(
    store: ErasureStore,
    ctx: Context,
    records: Sequence[MemoryRecord],
    gone: set[str],
    known: Mapping[int, object],
) -> dict[int, tuple[JSONDict, JSONDict]]:
    """Other log rows whose reasoning or snapshots quote an erased text (an LLM's reasoning
    about a candidate it did not act on). Only a scope that keeps memories can have such
    rows left, so erasing whole scopes scans nothing. Called before the deletes."""
    leaving = Counter(r.scope.key() for r in records)
    sizes = ctx.store.scope_sizes()
    keeping = {key for key, n in leaving.items() if sizes.get(key, 0) > n}
    texts = [r.text for r in records if r.scope.key() in keeping]
    found = [i for i in store.log_ids_quoting(texts) if i not in known]
    return {e.id: scrubbed(e, gone, keep_others=False) for e in store.logs_by_id(found)}


def _compact(ctx: Context, store: ErasureStore, report: ForgetReport, *, vacuum: bool) -> None:
    cfg = ctx.settings.store
    wait_s = cfg.busy_timeout_ms / 1000
    report.checkpointed = store.checkpoint(wait_s=wait_s)
    if vacuum:
        store.vacuum()
        report.vacuumed = True
        report.checkpointed = store.checkpoint(wait_s=wait_s, wal_switches=cfg.forget_wal_switches)
    report.stale_space_possible = not report.vacuumed and not store.zeroed_throughout()
    if not report.checkpointed:
        log.warning(
            "forget: another connection kept the WAL from being truncated; erased bytes stay "
            "in %s-wal until the next checkpoint",
            ctx.store.location,
        )
    if report.stale_space_possible:
        log.warning(
            "forget: %s was written before freed space was zeroed; old copies may remain in "
            "free pages until forget(..., vacuum=True)",
            ctx.store.location,
        )


def erased_among(ctx: Context, ids: Sequence[str]) -> set[str]:
    """Which of ``ids`` were erased here (an import must not bring them back)."""
    store = ctx.store
    return set(store.erased_ids(ids)) if isinstance(store, ErasureStore) else set()


def erased_in(ctx: Context, entry: LogEntry) -> set[str]:
    """The memories a log row touched that were erased since."""
    store = ctx.store
    if not isinstance(store, ErasureStore):
        return set()
    return set(store.erased_ids(touched_ids(entry)))


def refuse_if_erased(ctx: Context, entries: Sequence[LogEntry]) -> None:
    """Undo of an erasure is refused, and so is undo of a log row that touched an erased
    memory where the row's record of another memory went with it (``scrubbed``): nothing
    erased may come back, and nothing can be restored from a record that is gone. A row
    that still holds its other memories (a bulk delete, a tick) restores those."""
    for entry in entries:
        if entry.action == FORGET_ACTION:
            raise UndoRefused(f"log entry {entry.id} is an erasure; it cannot be undone", [])
        erased = erased_in(ctx, entry)
        if not erased:
            continue
        left = touched_ids(entry) - erased
        if not left:
            raise UndoRefused(
                f"log entry {entry.id} touched only erased memories; nothing of it is left "
                "to restore",
                [e.id for e in entries if e.id != entry.id],
            )
        lost = left - set(entry.before.get("memories", {}))
        if lost:
            names = ", ".join(sorted(lost)[:3]) + (" ..." if len(lost) > 3 else "")
            raise UndoRefused(
                f"log entry {entry.id} touched erased memories, and its record of {names} "
                "was erased with them; it cannot be undone",
                [e.id for e in entries if e.id != entry.id],
            )
