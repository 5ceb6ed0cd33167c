"""Search cost of one tenant in a file shared by many (issue 14): the same tenant's
searches in a file of 1,000 tenants x 100 memories, and in a file holding it alone.

    .venv/bin/python benchmarks/bench_tenants.py [--data PATH] [--out FILE]
        [--tenants 1000] [--per-tenant 100] [--queries 200]

What is measured (one run, all figures from it):
- Texts are MSC persona sentences with random prefixes, suffixes, names and years (as
  bench_store.py); vectors are the real embedding of each text's base sentence plus
  noise. Tenant i holds texts i*per .. (i+1)*per - 1; the big file is written round by
  round (every tenant's 1st memory, then every tenant's 2nd, ...), so a tenant's rows
  are spread over the whole file, as when tenants write at the same time.
- The probed tenant (the middle one) has the same texts, vectors and insertion order in
  both files. Queries are other persona sentences, their vectors cached, so the figures
  exclude the embedding model.
- Per query, alternating: hybrid and keyword-only search (k = 10) in the big file, then
  in the small one. Reported: medians and p95, and big/small ratios of the medians.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench_common import (
    console,
    machine,
    parser,
    persona_sentences,
    progress,
    realistic_vectors,
    stats_ms,
    table,
    vary,
    write_json,
)
from memfold import Memory
from memfold.embed.local import LocalEmbedder
from memfold.engine.search import SearchMode
from memfold.evaluation.embed_cache import CachingEmbedder

BATCH = 5_000
MODES: tuple[SearchMode, ...] = ("hybrid", "keyword")


def tenant(i: int) -> str:
    return f"tenant{i:05d}"


def load(mem: Memory, texts: list[str], vectors: np.ndarray, order: list[tuple[int, int]]) -> None:
    """``order``: (tenant, index of the text) in insertion order."""
    with progress() as bar:
        task = bar.add_task(f"add_many {len(order):,}", total=len(order))
        for lo in range(0, len(order), BATCH):
            chunk = order[lo : lo + BATCH]
            items = [{"text": texts[j], "user_id": tenant(t)} for t, j in chunk]
            mem.add_many(items, embeddings=[vectors[j] for _, j in chunk], consolidate=False)
            bar.advance(task, len(chunk))


def bench(big: Memory, small: Memory, user: str, queries: list[str]) -> dict[str, Any]:
    times: dict[str, list[float]] = {f"{m}_{f}": [] for m in MODES for f in ("big", "small")}
    for q in queries[:10]:  # warm-up: indexes loaded, statistics counted
        for mem in (big, small):
            for mode in MODES:
                mem.search(q, user_id=user, k=10, mode=mode)
    for q in queries:
        for mode in MODES:
            for name, mem in (("big", big), ("small", small)):
                began = time.perf_counter()
                mem.search(q, user_id=user, k=10, mode=mode)
                times[f"{mode}_{name}"].append(time.perf_counter() - began)
    out: dict[str, Any] = {key: stats_ms(v) for key, v in times.items()}
    for mode in MODES:
        out[f"{mode}_ratio"] = round(
            out[f"{mode}_big"]["median_ms"] / out[f"{mode}_small"]["median_ms"], 2
        )
    return out


def main() -> None:
    p = parser(__doc__ or "", "bench_tenants.json")
    p.add_argument("--tenants", type=int, default=1000)
    p.add_argument("--per-tenant", type=int, default=100)
    p.add_argument("--queries", type=int, default=200)
    args: argparse.Namespace = p.parse_args()
    n, per = args.tenants, args.per_tenant
    cached = CachingEmbedder(LocalEmbedder(), Path("results") / "cache")
    base = persona_sentences(args.data, 2_000)
    texts = vary(base, n * per)
    queries = persona_sentences(args.data)[2_000 : 2_000 + args.queries]
    console.print("embedding 2,000 base sentences and the queries (cached after the first run)")
    seeds = cached.embed(base)
    cached.embed(queries)
    cached.save()
    vectors = realistic_vectors(seeds, len(texts))
    probe = n // 2
    out: dict[str, Any] = {"machine": machine(), "method": __doc__, "tenants": n, "per": per}
    with tempfile.TemporaryDirectory(prefix="memfold-tenants-") as tmp:
        folder = Path(tmp)
        with (
            Memory(folder / "big.db", embedder=cached, consolidate="off") as big,
            Memory(folder / "small.db", embedder=cached, consolidate="off") as small,
        ):
            load(big, texts, vectors, [(t, t * per + r) for r in range(per) for t in range(n)])
            load(small, texts, vectors, [(probe, probe * per + r) for r in range(per)])
            out["search"] = bench(big, small, tenant(probe), queries)
    write_json(args.out, out)
    report(out)


def report(out: dict[str, Any]) -> None:
    s = out["search"]
    rows = [
        [
            f"{mode} search, k = 10",
            f"{s[f'{mode}_big']['median_ms']:.2f} ms (p95 {s[f'{mode}_big']['p95_ms']:.2f})",
            f"{s[f'{mode}_small']['median_ms']:.2f} ms (p95 {s[f'{mode}_small']['p95_ms']:.2f})",
            f"{s[f'{mode}_ratio']:.2f}x",
        ]
        for mode in MODES
    ]
    title = (
        f"one tenant of {out['tenants']:,} x {out['per']} memories vs the same tenant alone "
        f"(load at start {out['machine']['loadavg_at_start']})"
    )
    table(title, rows, ["measure", "shared file", "tenant alone", "ratio"])


if __name__ == "__main__":
    main()
