"""Passage vectors for long memories (policy/passages.py cuts the text; this embeds the
windows). Called where records are about to be written: a record whose text is long
and whose passages are not its text's (new, or its text changed) gets them, in one
embedder call for the batch; a short text gets none and costs only a word count. A
record read from the store carries its text's passages already and costs nothing."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from memfold.engine.context import Context
from memfold.model import MemoryRecord
from memfold.policy.passages import is_long, passages, plan_of


def attach_passages(ctx: Context, records: Sequence[MemoryRecord], *, force: bool = False) -> int:
    """Give each record its text's passage vectors where they are missing or stale;
    returns how many passages were embedded. Only records embedded with this embedder
    get them (a vector of another model, or none, gets none). ``force``: recompute
    even where they look current (re-embedding with a new model)."""
    plan = plan_of(ctx.settings.embed)
    model = ctx.embedder.model_id
    todo: list[tuple[MemoryRecord, list[str]]] = []
    for record in records:
        if record.passages_of is record.text and not force:
            continue  # the object read with them (the common case: no comparison)
        if record.passages_of == record.text and not force:
            continue
        cut = (
            passages(record.text, plan)
            if record.embedding is not None
            and record.embedding_model == model
            and is_long(record.text, plan)
            else []
        )
        if cut:
            todo.append((record, cut))
        else:
            record.passages, record.passages_of = None, record.text
    if not todo:
        return 0
    vectors = ctx.embed([text for _, cut in todo for text in cut])
    at = 0
    for record, cut in todo:
        record.passages = np.ascontiguousarray(vectors[at : at + len(cut)], dtype=np.float32)
        record.passages_of = record.text
        at += len(cut)
    return at
