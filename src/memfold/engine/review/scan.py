"""Phase 1 of batch review: find similar pairs in a scope and queue them. Read and queue
only; no memory is touched.

The pair search is blocked matrix products over the scope's unit-vector matrix: each
block of ``block_rows`` rows is multiplied against the rows from its own start onward, in
tiles of the same width, so only the upper triangle is computed and no tile is larger
than block_rows x block_rows (memory stays flat at 100k+ rows). Threshold extraction is
one vectorized comparison per tile; Python only loops over tiles, never over pairs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from memfold.engine.context import Context
from memfold.model import Action, Candidate, Decision, JSONDict, PairLabel, Scope

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float32]


@dataclass(slots=True)
class ScanResult:
    scope_key: str
    memories: int
    pairs: int
    queued: int

    def to_dict(self) -> JSONDict:
        return {
            "scope_key": self.scope_key,
            "memories": self.memories,
            "pairs": self.pairs,
            "queued": self.queued,
        }


def find_pairs(
    matrix: np.ndarray, threshold: float, block_rows: int
) -> tuple[IntArray, IntArray, FloatArray]:
    """Every (i, j, cosine) with i < j and cosine >= threshold, rows being unit vectors."""
    n = matrix.shape[0]
    m = np.ascontiguousarray(matrix, dtype=np.float32)
    rows: list[IntArray] = []
    cols: list[IntArray] = []
    sims: list[FloatArray] = []
    # Reused buffers: a fresh multi-MB array per tile costs page faults on every tile.
    side = min(block_rows, n)
    tile_buf = np.empty((side, side), dtype=np.float32)
    mask_buf = np.empty((side, side), dtype=bool)
    for i0 in range(0, n, block_rows):
        block = m[i0 : i0 + block_rows]
        for j0 in range(i0, n, block_rows):
            other = m[j0 : j0 + block_rows]
            shape = (block.shape[0], other.shape[0])
            tile = tile_buf[: shape[0], : shape[1]]
            np.matmul(block, other.T, out=tile)
            mask = np.greater_equal(tile, threshold, out=mask_buf[: shape[0], : shape[1]])
            if not mask.any():
                continue
            r, c = np.nonzero(mask)
            if j0 == i0:
                # The diagonal tile holds each pair twice and every row with itself.
                upper = c > r
                r, c = r[upper], c[upper]
            if r.size:
                sims.append(tile[r, c])
                rows.append(r.astype(np.int64) + i0)
                cols.append(c.astype(np.int64) + j0)
    if not rows:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty.copy(), np.zeros(0, dtype=np.float32)
    return np.concatenate(rows), np.concatenate(cols), np.concatenate(sims)


def scan(ctx: Context, scope: Scope, threshold: float | None = None) -> ScanResult:
    """Queue every pair of active memories in ``scope`` with cosine >= threshold
    (default ReviewSettings.scan_threshold). Known pairs are not queued twice."""
    cfg = ctx.settings.review
    key = scope.key()
    ids, matrix = ctx.synced_index().vectors(key)
    bar = cfg.scan_threshold if threshold is None else threshold
    r, c, s = find_pairs(matrix, bar, cfg.scan_block_rows)
    store = ctx.store
    versions = store.active_versions(key)
    pairs = [
        (ids[i], ids[j], float(sim), versions[ids[i]], versions[ids[j]])
        for i, j, sim in zip(r.tolist(), c.tolist(), s.tolist(), strict=True)
        # A memory that left the active set after the index synced is not queued.
        if ids[i] in versions and ids[j] in versions
    ]
    queued = store.queue_pairs(key, pairs)
    return ScanResult(key, len(ids), len(pairs), queued)


def queue_contradictions(
    ctx: Context, new_id: str, candidates: Sequence[Candidate], decision: Decision
) -> int:
    """A contradiction the guards found on save (KEEP_SEPARATE, linked ``contradicts``)
    goes to the review queue as a person's to read, beside the ones a review run finds;
    call it inside the save's own transaction, after its writes. A pair already queued
    keeps its place and label. Returns how many pairs were listed."""
    if not decision.contradicts or decision.action is not Action.KEEP_SEPARATE:
        return 0
    similarity = {c.memory.id: c.similarity for c in candidates}
    targets = [t for t in dict.fromkeys(decision.target_ids) if t in similarity]
    store = ctx.store
    records = store.get_memories([new_id, *targets])
    new = records.get(new_id)
    reason = "; ".join(decision.downgrade_reasons) or decision.reasoning
    listed = 0
    for target in (records.get(t) for t in targets):
        if new is None or target is None or store.queue_item_for_pair(new.id, target.id):
            continue
        pair = (new.id, target.id, float(similarity[target.id]), new.version, target.version)
        store.queue_pairs(new.scope.key(), [pair])
        item = store.queue_item_for_pair(new.id, target.id)
        if item is None:
            continue
        store.classify_queue_item(item.id, PairLabel.CONTRADICTION, 1.0, reason, None)
        store.set_queue_status(item.id, "review", note=f"found on save: {reason}")
        listed += 1
    return listed
