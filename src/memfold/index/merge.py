"""Merging a grown scope's chunks back into one matrix, off the index lock.

A scope that grows gets a new chunk (``scope_block``): no copy under the lock. Many
chunks cost one BLAS call each per search, which a busy machine makes dearer than the
arithmetic (5 chunks of a 100k scope: 1.8x the time of one product with two BLAS
threads on an oversubscribed CPU). So a background thread merges them: it copies the
rows without holding the lock, then, holding it briefly, copies again the rows written
meanwhile and swaps the merged chunk in. A small scope (``INLINE_MERGE`` rows) is merged
at once instead. The merged chunk keeps the capacity, so the copies add up to about
one per doubling of the scope.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict

from memfold.index.scope_block import INLINE_MERGE, ScopeBlock


class ChunkMerger:
    """Mixin of ``VectorIndex``: the merge queue and its thread."""

    _lock: threading.RLock
    _blocks: OrderedDict[str, ScopeBlock]
    _to_merge: set[str]
    _merges: int

    def _merge_chunks(self, scope_key: str) -> None:
        """Called holding the lock, after a scope grew or was loaded."""
        block = self._blocks.get(scope_key)
        if block is None or len(block.chunks) < 2:
            return
        if block.n <= INLINE_MERGE:
            block.merge_now()
            return
        self._to_merge.add(scope_key)
        if self._merges == 0:
            self._merges += 1
            thread = threading.Thread(target=self._merge_thread, name="memfold-index-merge")
            thread.daemon = True
            thread.start()

    def _merge_thread(self) -> None:
        try:
            self.merge_pending()
        finally:
            with self._lock:
                self._merges -= 1

    def merge_pending(self) -> None:
        """Merge the chunks of every scope waiting for it."""
        while True:
            with self._lock:
                if not self._to_merge:
                    return
                scope_key = self._to_merge.pop()
                block = self._blocks.get(scope_key)
                started = None if block is None else block.begin_merge()
            if block is None or started is None:
                continue
            merged = block.copy_rows(*started)  # the long part, without the lock
            with self._lock:
                if self._blocks.get(scope_key) is not block:
                    block.dirty = None  # dropped meanwhile
                elif not block.finish_merge(merged, started[1], started[2]):
                    self._to_merge.add(scope_key)  # grew meanwhile: merge what it is now

    def settle(self, timeout_s: float = 60.0) -> None:
        """Wait until no merge is queued or running (tests, benchmarks)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            self.merge_pending()
            with self._lock:
                busy = self._merges > 0 or any(b.dirty is not None for b in self._blocks.values())
            if not busy:
                return
            time.sleep(0.005)
