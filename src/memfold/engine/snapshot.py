"""Before/after snapshots for the audit log, exact enough to undo from."""

from __future__ import annotations

import base64
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from memfold.model import JSONDict, Link, LinkKind, MemoryRecord, parse_time, utcnow


def memory_snapshot(record: MemoryRecord) -> JSONDict:
    data = record.to_dict()
    data["embedding_b64"] = (
        None
        if record.embedding is None
        else base64.b64encode(np.ascontiguousarray(record.embedding, np.float32).tobytes()).decode()
    )
    return data


def memory_from_snapshot(data: JSONDict) -> MemoryRecord:
    payload = {k: v for k, v in data.items() if k != "embedding_b64"}
    record = MemoryRecord.from_dict(payload)
    blob = data.get("embedding_b64")
    record.embedding = (
        None if blob is None else np.frombuffer(base64.b64decode(blob), dtype=np.float32).copy()
    )
    return record


def link_snapshot(link: Link) -> JSONDict:
    return {"src": link.src, "dst": link.dst, "kind": link.kind.value, "weight": link.weight}


def link_from_snapshot(data: JSONDict) -> Link:
    return Link(data["src"], data["dst"], LinkKind(data["kind"]), float(data["weight"]), utcnow())


def state(memories: dict[str, MemoryRecord | None], links: Iterable[Link] = ()) -> dict[str, Any]:
    """A log state: each touched memory (None: did not exist) and the links involved."""
    return {
        "memories": {
            mid: (None if rec is None else memory_snapshot(rec)) for mid, rec in memories.items()
        },
        "links": [link_snapshot(lk) for lk in links],
    }


def describe(records: Sequence[MemoryRecord]) -> str:
    return "; ".join(f"{r.id[:8]}: {r.text[:60]}" for r in records)


def when(data: JSONDict, key: str) -> Any:
    return parse_time(data.get(key))
