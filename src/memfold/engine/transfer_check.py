"""Checks behind export and import: a safe export target, and an import file's lines.

Export never writes onto the open store or any other SQLite file, and writes a
temporary file beside the target that replaces it only once complete. Import
checks each line (JSON without NaN or infinity, ids, scope, importance, vector)
and then the references between lines: a ``superseded_by`` or a link must name
a memory that is in the file or already in the store.
"""

from __future__ import annotations

import json
import math
import os
import secrets
import stat
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, Any, TypeVar

import numpy as np

from memfold.embed.base import check_vector
from memfold.engine.context import Context
from memfold.engine.snapshot import memory_from_snapshot
from memfold.errors import InvalidInput
from memfold.model import Link, LinkKind, MemoryRecord, content_hash, utcnow
from memfold.policy.validate import (
    check_unicode,
    clean_int,
    clean_metadata,
    clean_scope,
    clean_sources,
    clean_string,
    clean_text,
    clean_unit,
    shown,
)
from memfold.store.sqlite.connection import SQLITE_HEADER

# Files SQLite keeps beside a database: writing over one corrupts the store.
_SIDE_FILES = ("-wal", "-shm", "-journal")

Bad = Callable[[int, str], None]  # (line number, reason): raise, or note and skip
T = TypeVar("T")


# export ---------------------------------------------------------------------------
def check_export_target(target: Path, store_path: Path | None) -> Path:
    """The resolved file to write; ``InvalidInput`` for a folder, a missing folder,
    the open store (or its side files; None: a store that is no file) and any existing
    SQLite file."""
    resolved = target.expanduser().resolve()
    if resolved.is_dir():
        raise InvalidInput(f"export target {target} is a folder")
    if not resolved.parent.is_dir():
        raise InvalidInput(f"export target {target}: folder {resolved.parent} does not exist")
    onto_store = False
    if store_path is not None:
        store = store_path.expanduser().resolve()
        onto_store = resolved == store or any(
            resolved == store.with_name(store.name + side) for side in _SIDE_FILES
        )
        if not onto_store and resolved.exists() and store.exists():
            onto_store = os.path.samefile(resolved, store)
    if onto_store:
        raise InvalidInput(f"export target {target} is the open store; refusing to overwrite it")
    if resolved.exists():
        try:
            with resolved.open("rb") as fh:
                head = fh.read(len(SQLITE_HEADER))
        except OSError as exc:
            raise InvalidInput(f"export target {target} cannot be read: {exc.strerror}") from None
        if head == SQLITE_HEADER:
            raise InvalidInput(
                f"export target {target} is a SQLite database; refusing to overwrite it"
            )
    return resolved


def write_atomically(target: Path, write: Callable[[IO[str]], int]) -> int:
    """Write through ``write`` into a temporary file beside ``target``, then rename it
    over ``target``: a crash leaves the old file or none, never half an export."""
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        if target.exists():
            os.chmod(tmp, stat.S_IMODE(target.stat().st_mode))
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            count = write(out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return count


# import: one line -----------------------------------------------------------------
def _no_constant(token: str) -> float:
    raise InvalidInput(f"{token} is not a number memfold accepts")


def _finite(token: str) -> float:
    value = float(token)
    if not math.isfinite(value):
        raise InvalidInput(f"{token} is out of range (infinite)")
    return value


def load_json(text: str) -> Any:
    """A JSON value without NaN, Infinity or numbers too large for a float."""
    try:
        return json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"not JSON: {exc.msg}") from None
    except RecursionError:  # arrays or objects nested some thousand levels deep
        raise InvalidInput("JSON nested too deep to read") from None


def _id(value: object, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"{what} must be a non-empty string, got {shown(value)}")
    if "\x00" in value:
        raise InvalidInput(f"{what} contains a NUL byte")
    return check_unicode(value, what)


def parse_memory(ctx: Context, data: dict[str, Any]) -> MemoryRecord:
    cfg = ctx.settings.store
    if "id" not in data or "text" not in data:
        raise InvalidInput("a memory needs 'id' and 'text'")
    data = dict(data)
    _id(data["id"], "id")
    data["text"] = clean_text(data["text"], max_chars=cfg.max_text_chars)
    ids = [data.get(k) for k in ("user_id", "agent_id", "session_id")]
    if all(v is None for v in ids):
        raise InvalidInput("a memory needs a scope (user_id, agent_id or session_id)")
    clean_scope(*ids)
    data["importance"] = clean_unit(data.get("importance", 0.5), "importance")
    later = data.get("superseded_by")
    if later is not None and _id(later, "superseded_by") == data["id"]:
        raise InvalidInput("superseded_by names the memory itself")
    for source in data.get("consolidated_from") or []:
        _id(source, "each consolidated_from entry")
    data["sources"] = clean_sources(data.get("sources"), max_items=cfg.max_sources)
    data["metadata"] = clean_metadata(
        data.get("metadata"), max_depth=cfg.max_metadata_depth, max_bytes=cfg.max_metadata_bytes
    )
    # Numbers past what the database holds, strings it cannot encode: refused here.
    for name, least in (("version", 1), ("access_count", 0)):
        if name in data:
            clean_int(data[name], name, minimum=least)
    for name in ("content_hash", "embedding_model"):
        if data.get(name) is not None:
            clean_string(data[name], name)
    if not data.get("content_hash"):
        data["content_hash"] = content_hash(data["text"])
    try:
        record = memory_from_snapshot(data)
    except (ValueError, TypeError, KeyError) as exc:
        raise InvalidInput(str(exc)) from None
    if record.embedding is not None:
        if record.embedding_model == ctx.embedder.model_id:
            record.embedding = check_vector(record.embedding, ctx.embedder.dim)
        elif not np.all(np.isfinite(record.embedding)):
            raise InvalidInput("embedding contains NaN or infinity")
    return record


def parse_link(data: dict[str, Any]) -> Link:
    src, dst = _id(data.get("src"), "link src"), _id(data.get("dst"), "link dst")
    try:
        kind = LinkKind(str(data.get("kind")))
    except ValueError:
        raise InvalidInput(f"unknown link kind {data.get('kind')!r}") from None
    weight = data.get("weight", 1.0)
    if isinstance(weight, bool) or not isinstance(weight, int | float):
        raise InvalidInput(f"link weight must be a number, got {weight!r}")
    return Link(src, dst, kind, float(weight), utcnow())


# import: across lines -------------------------------------------------------------
def drop_duplicates(
    records: list[tuple[int, MemoryRecord]], bad: Bad
) -> list[tuple[int, MemoryRecord]]:
    """The first line of each id; a later line with the same id is bad."""
    first: dict[str, int] = {}
    kept: list[tuple[int, MemoryRecord]] = []
    for number, record in records:
        if record.id in first:
            bad(number, f"duplicate id {record.id!r} (first on line {first[record.id]})")
            continue
        first[record.id] = number
        kept.append((number, record))
    return kept


def drop_dangling(
    ctx: Context,
    records: list[tuple[int, MemoryRecord]],
    links: list[tuple[int, Link]],
    bad: Bad,
) -> tuple[list[tuple[int, MemoryRecord]], list[tuple[int, Link]]]:
    """Refuse a ``superseded_by`` or link naming a memory in neither the file nor the store.

    With ``skip_bad`` such a line is skipped, and so, in turn, is a line whose reference
    only a skipped line could have satisfied (repeated until nothing changes).
    """
    in_file = {r.id for _, r in records}
    wanted = {r.superseded_by for _, r in records if r.superseded_by} | {
        end for _, lk in links for end in (lk.src, lk.dst)
    }
    in_store = set(ctx.store.get_memories(wanted - in_file))
    while True:
        known = {r.id for _, r in records} | in_store
        problems: list[tuple[int, str]] = []
        for number, record in records:
            if record.superseded_by and record.superseded_by not in known:
                problems.append((number, _dangling("superseded_by", record.superseded_by)))
        for number, link in links:
            for end, name in ((link.src, "link src"), (link.dst, "link dst")):
                if end not in known:
                    problems.append((number, _dangling(name, end)))
                    break
        if not problems:
            return records, links
        for number, reason in sorted(problems):
            bad(number, reason)
        dropped = {number for number, _ in problems}
        records = _without(records, dropped)
        links = _without(links, dropped)


def _dangling(what: str, target: str) -> str:
    return f"{what} {target!r} names no memory in the file or the store"


def _without(items: Iterable[tuple[int, T]], numbers: set[int]) -> list[tuple[int, T]]:
    return [(n, item) for n, item in items if n not in numbers]
