"""Export and import (JSONL, every field), and re-embedding with the current model."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from memfold.engine.context import Context
from memfold.engine.erase import erased_among
from memfold.engine.passages import attach_passages
from memfold.engine.snapshot import link_snapshot, memory_snapshot
from memfold.engine.transfer_check import (
    check_export_target,
    drop_dangling,
    drop_duplicates,
    load_json,
    parse_link,
    parse_memory,
    write_atomically,
)
from memfold.errors import ImportFormatError, InvalidInput
from memfold.model import Link, MemoryRecord
from memfold.policy.passages import is_long, passages, plan_of

Progress = Callable[[int], None]
FORMAT = "memfold-export/1"


def export(ctx: Context, out: IO[str], *, progress: Progress | None = None) -> int:
    """Write a header line, every memory (all statuses, vector included) and every link."""
    out.write(json.dumps({"type": "header", "format": FORMAT}) + "\n")
    count = 0
    ids: list[str] = []
    for record in ctx.store.iter_memories():
        out.write(json.dumps({"type": "memory", **memory_snapshot(record)}, ensure_ascii=False))
        out.write("\n")
        ids.append(record.id)
        count += 1
        if progress:
            progress(1)
    seen: set[tuple[str, str, str]] = set()
    for start in range(0, len(ids), 500):
        for lk in ctx.store.links_for(ids[start : start + 500]):
            key = (lk.src, lk.dst, lk.kind.value)
            if key not in seen:
                seen.add(key)
                out.write(json.dumps({"type": "link", **link_snapshot(lk)}) + "\n")
    return count


def export_file(
    ctx: Context, target: Path, *, store_path: Path | None, progress: Progress | None = None
) -> int:
    """Export to ``target``, never onto the open store or another SQLite file; the file
    appears complete or not at all (a temporary file beside it is renamed over it)."""
    resolved = check_export_target(target, store_path)
    return write_atomically(resolved, lambda out: export(ctx, out, progress=progress))


@dataclass
class ImportReport:
    imported: int = 0
    existing: int = 0
    links: int = 0
    bad_lines: list[tuple[int, str]] = field(default_factory=list)
    erased: int = 0  # memories in the file that were erased here (forget): not imported

    def to_dict(self) -> dict[str, Any]:
        return {
            "imported": self.imported,
            "existing": self.existing,
            "links": self.links,
            "erased": self.erased,
            "bad_lines": [{"line": n, "reason": r} for n, r in self.bad_lines],
        }


def _lines(path: Path) -> Iterator[tuple[int, str | None, str]]:
    """(line number, decoded text or None, error) for each non-blank line."""
    with path.open("rb") as fh:
        for number, raw in enumerate(fh, start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield number, None, f"invalid UTF-8 at byte {exc.start}"
                continue
            if text.strip():
                yield number, text, ""


def import_jsonl(
    ctx: Context, path: Path, *, skip_bad: bool = False, progress: Progress | None = None
) -> ImportReport:
    """Import an export file. Any bad line aborts the whole import unless ``skip_bad``.

    Besides each line's own checks, ids must be unique in the file and every
    ``superseded_by`` and link must name a memory in the file or the store. With
    ``skip_bad`` a bad line is skipped and reported, and so is a line that refers
    to a skipped memory (its reference would dangle); everything else is imported.
    """
    report = ImportReport()

    def bad(number: int, reason: str) -> None:
        if not skip_bad:
            raise ImportFormatError(number, reason)
        report.bad_lines.append((number, reason))

    numbered: list[tuple[int, MemoryRecord]] = []
    numbered_links: list[tuple[int, Link]] = []
    for number, text, error in _lines(path):
        try:
            if text is None:
                raise InvalidInput(error)
            data = load_json(text)
            if not isinstance(data, dict):
                raise InvalidInput("a line must be a JSON object")
            kind = data.pop("type", "memory")
            if kind == "header":
                continue
            if kind == "link":
                numbered_links.append((number, parse_link(data)))
            elif kind == "memory":
                numbered.append((number, parse_memory(ctx, data)))
            else:
                raise InvalidInput(f"unknown line type {kind!r}")
        except (InvalidInput, ValueError, KeyError, TypeError) as exc:
            bad(number, str(exc))
    numbered = drop_duplicates(numbered, bad)
    numbered, numbered_links = drop_dangling(ctx, numbered, numbered_links, bad)
    report.bad_lines.sort()
    records = [r for _, r in numbered]
    links = [lk for _, lk in numbered_links]
    existing = ctx.store.get_memories(r.id for r in records)
    erased = erased_among(ctx, [r.id for r in records])  # an old export never brings one back
    links = [lk for lk in links if lk.src not in erased and lk.dst not in erased]
    fresh = [r for r in records if r.id not in existing and r.id not in erased]
    report.existing, report.erased = len(existing), len(erased)
    missing = [r for r in fresh if r.embedding is None]
    if missing:
        vectors = ctx.embed([r.text for r in missing])
        for r, vec in zip(missing, vectors, strict=True):
            r.embedding, r.embedding_model = vec, ctx.embedder.model_id
    attach_passages(ctx, fresh)  # long texts: their passage vectors (never exported)
    with ctx.store.transaction():
        for start in range(0, len(fresh), 1000):
            chunk = fresh[start : start + 1000]
            ctx.store.insert_memories(chunk)
            if progress:
                progress(len(chunk))
        ctx.store.add_links(links)
    report.imported = len(fresh)
    report.links = len(links)
    return report


def reembed(
    ctx: Context, *, everything: bool = False, batch: int = 256, progress: Progress | None = None
) -> int:
    """Re-embed memories whose vector is missing or from another model (all if ``everything``),
    and long ones without passage vectors (saved before passages existed), with theirs.

    Not a content change: versions stay, and no log row is written.
    """
    model, dim = ctx.embedder.model_id, ctx.embedder.dim
    plan = plan_of(ctx.settings.embed)
    stale = [
        r.id
        for r in ctx.store.iter_memories()
        if everything
        or r.embedding is None
        or r.embedding_model != model
        or r.embedding.shape[0] != dim
        or (r.passages is None and is_long(r.text, plan) and bool(passages(r.text, plan)))
    ]
    done = 0
    for start in range(0, len(stale), batch):
        records = list(ctx.store.get_memories(stale[start : start + batch]).values())
        vectors = ctx.embed([r.text for r in records])
        for r, vec in zip(records, vectors, strict=True):
            r.embedding, r.embedding_model = vec, model
        attach_passages(ctx, records, force=True)
        with ctx.store.transaction():
            for r in records:
                ctx.store.put_memory(r)
        done += len(records)
        if progress:
            progress(len(records))
    return done


def count_stale(ctx: Context) -> int:
    models = ctx.store.embedding_models()
    current = f"{ctx.embedder.model_id}:{ctx.embedder.dim}"
    return sum(n for key, n in models.items() if key != current)
