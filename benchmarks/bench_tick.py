"""The lifecycle tick's time on a big store (issue 11: "tick time at 100k memories").

    .venv/bin/python benchmarks/bench_tick.py [--memories 100000] [--scopes 100]

Synthetic store made here (no evaluation data): ``--memories`` memories over
``--scopes`` users, created at random over the past year (uniform), categories 50 %
episodic, 35 % semantic, 10 % procedural, 5 % core, importance uniform 0-1, one in
ten retrieved in the last 30 days; random unit vectors (so no cluster forms: the
compression step reads and clusters its candidates, then writes nothing). Stored with
``add_many(consolidate=False)`` in batches. Then, timed: the first tick (it moves every
fading memory cold, in logged batches), a second tick at the same time (nothing left to
move: the steady cost of a tick), and plain search on the hot tier before and after.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from bench_common import machine, parser, write_json
from memfold import Memory
from memfold.embed.local import LocalEmbedder

NOW = datetime(2025, 1, 1, tzinfo=UTC)
CATEGORIES = ["episodic"] * 10 + ["semantic"] * 7 + ["procedural"] * 2 + ["core"]


def _items(n: int, scopes: int, dim: int, rng: random.Random) -> list[dict[str, Any]]:
    items = []
    for i in range(n):
        created = NOW - timedelta(days=rng.uniform(0, 365))
        items.append(
            {
                "text": f"memory {i} of user {i % scopes}: note number {rng.randint(0, 10**6)}",
                "user_id": f"user{i % scopes}",
                "category": rng.choice(CATEGORIES),
                "importance": round(rng.random(), 3),
                "created_at": created,
            }
        )
    return items


def _search_ms(mem: Memory, scopes: int, repeat: int, rng: random.Random) -> float:
    times = []
    for _ in range(repeat):
        user = f"user{rng.randrange(scopes)}"
        start = time.perf_counter()
        mem.search("note number", user_id=user, k=10, mode="keyword")
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    p = parser(__doc__ or "", "bench_tick.json")
    p.add_argument("--memories", type=int, default=100_000)
    p.add_argument("--scopes", type=int, default=100)
    p.add_argument("--batch", type=int, default=5_000)
    args = p.parse_args()
    rng = random.Random(7)
    embedder = LocalEmbedder()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "tick.db"
        with Memory(path, embedder=embedder, consolidate="off") as mem:
            mem.ctx.clock = lambda: NOW
            items = _items(args.memories, args.scopes, embedder.dim, rng)
            start = time.perf_counter()
            for lo in range(0, len(items), args.batch):
                chunk = items[lo : lo + args.batch]
                vectors = np.asarray(
                    [rng.gauss(0, 1) for _ in range(len(chunk) * embedder.dim)], dtype=np.float32
                ).reshape(len(chunk), embedder.dim)
                vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
                mem.add_many(chunk, embeddings=vectors, consolidate=False)
            load_s = time.perf_counter() - start
            # one in ten retrieved in the last 30 days
            accessed = [
                (m.id, 1, NOW - timedelta(days=rng.uniform(0, 30)))
                for m in mem.store.list_memories(None, limit=None)
                if rng.random() < 0.1
            ]
            mem.store.add_accesses(accessed)
            search_before = _search_ms(mem, args.scopes, 50, rng)
            start = time.perf_counter()
            first = mem.tick(NOW)
            first_s = time.perf_counter() - start
            start = time.perf_counter()
            second = mem.tick(NOW)
            second_s = time.perf_counter() - start
            search_after = _search_ms(mem, args.scopes, 50, rng)
            result = {
                "machine": machine(),
                "memories": args.memories,
                "scopes": args.scopes,
                "load_s": round(load_s, 1),
                "first_tick_s": round(first_s, 2),
                "first_tick_cold": len(first.cold),
                "first_tick_log_entries": len(first.log_ids),
                "second_tick_s": round(second_s, 2),
                "second_tick_cold": len(second.cold),
                "hot_after": first.scanned - len(first.cold),
                "keyword_search_median_ms_before": round(search_before, 2),
                "keyword_search_median_ms_after": round(search_after, 2),
            }
    for key, value in result.items():
        if key != "machine":
            print(f"{key}: {value}")
    write_json(args.out, result)


if __name__ == "__main__":
    main()
