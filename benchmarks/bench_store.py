"""Store speed: add throughput, bulk load, vector and hybrid search latency, RSS.

    .venv/bin/python benchmarks/bench_store.py [--data PATH] [--out FILE]

What is measured (one run, all figures from it):
- add(): single-process, consolidate off, the default local embedder embedding each text.
- add_many(embeddings=...): precomputed vectors, batches of 5,000.
- 100k store: texts are MSC persona sentences (2,000 distinct) with random prefixes,
  suffixes, names and years; vectors are the real embedding of each text's base sentence
  plus Gaussian noise (cosine ~0.94 to it), renormalized. Embedding 100k texts would take
  about 5 minutes on 2 cores, and would measure the embedder, not the store.
- Search: the store's vector index vs a bare numpy matrix-vector product + argpartition
  over the same matrix, alternating query by query; query vectors are precomputed (cached)
  so end-to-end figures exclude the model, whose time is reported on its own.
- RSS: a child process opens the 100k store, loads the embedder, searches; reports VmRSS.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench_common import (
    console,
    machine,
    met,
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
from memfold.evaluation.embed_cache import CachingEmbedder

USER = "bench"
SINGLE_ADDS = 500
QUERIES = 300
BATCH = 5_000


def bench_add(embedder: LocalEmbedder, texts: list[str], folder: Path) -> dict[str, Any]:
    with Memory(folder / "add.db", embedder=embedder, consolidate="off") as mem:
        for t in texts[:20]:  # warm-up: first calls allocate ONNX buffers
            mem.add(t, user_id=USER)
        started = time.perf_counter()
        for t in texts[20 : 20 + SINGLE_ADDS]:
            mem.add(t, user_id=USER)
        elapsed = time.perf_counter() - started
    return {"adds": SINGLE_ADDS, "seconds": round(elapsed, 3), "per_s": SINGLE_ADDS / elapsed}


def bulk_load(mem: Memory, texts: list[str], vectors: np.ndarray, start: int, end: int) -> float:
    elapsed = 0.0
    with progress() as bar:
        task = bar.add_task(f"add_many {start:,}-{end:,}", total=end - start)
        for lo in range(start, end, BATCH):
            hi = min(end, lo + BATCH)
            items = [{"text": t, "user_id": USER} for t in texts[lo:hi]]
            began = time.perf_counter()
            mem.add_many(items, embeddings=list(vectors[lo:hi]))
            elapsed += time.perf_counter() - began
            bar.advance(task, hi - lo)
    return elapsed


def bench_search(
    mem: Memory, matrix: np.ndarray, queries: list[str], qvecs: np.ndarray
) -> dict[str, Any]:
    index = mem.ctx.synced_index()
    scope = mem._scope(USER, None, None).key()
    t_index, t_numpy, t_vector, t_hybrid = [], [], [], []
    for q, qv in zip(queries, qvecs, strict=True):
        began = time.perf_counter()
        index.search(scope, qv, 10)
        t_index.append(time.perf_counter() - began)
        began = time.perf_counter()
        scores = matrix @ qv
        top = np.argpartition(-scores, 10)[:10]
        top[np.argsort(-scores[top])]
        t_numpy.append(time.perf_counter() - began)
        began = time.perf_counter()
        mem.search(q, user_id=USER, k=10, mode="vector")
        t_vector.append(time.perf_counter() - began)
        began = time.perf_counter()
        mem.search(q, user_id=USER, k=10, mode="hybrid")
        t_hybrid.append(time.perf_counter() - began)
    idx, npy = stats_ms(t_index), stats_ms(t_numpy)
    return {
        "index": idx,
        "numpy": npy,
        "index_over_numpy": idx["median_ms"] / npy["median_ms"],
        "vector_end_to_end": stats_ms(t_vector),
        "hybrid_end_to_end": stats_ms(t_hybrid),
    }


def child_rss(db: Path) -> None:
    """Runs in a subprocess: RSS after the embedder, then after opening and searching."""

    def rss() -> dict[str, float]:
        fields = {}
        for line in Path("/proc/self/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                fields[key] = int(value.split()[0]) / 1024
        return fields

    embedder = LocalEmbedder()
    embedder.embed(["warm up"])
    before = rss()
    with Memory(db, embedder=embedder, consolidate="off") as mem:
        for q in ("I like hiking", "my dog is called Max", "I work as a nurse"):
            mem.search(q, user_id=USER, k=10)
        after = rss()
        count = mem.store.count_memories()
    print(json.dumps({"memories": count, "embedder_only": before, "with_store": after}))


def main() -> None:
    args = parser(__doc__ or "", "bench_store.json").parse_args()
    embedder = LocalEmbedder()
    cached = CachingEmbedder(embedder, Path("results") / "cache")
    base = persona_sentences(args.data, 2_000)
    texts = vary(base, 100_000)
    queries = persona_sentences(args.data)[2_000 : 2_000 + QUERIES]
    console.print("embedding 2,000 base sentences and the queries (cached after the first run)")
    seeds = cached.embed(base)
    qvecs = cached.embed(queries)
    cached.save()
    started = time.perf_counter()
    embedder.embed(queries[:100])
    embed_query_ms = (time.perf_counter() - started) / 100 * 1000
    vectors = realistic_vectors(seeds, len(texts))
    out: dict[str, Any] = {"machine": machine(), "method": __doc__}
    with tempfile.TemporaryDirectory(prefix="memfold-bench-") as tmp:
        folder = Path(tmp)
        out["add"] = bench_add(embedder, vary(base, SINGLE_ADDS + 20, seed=11), folder)
        with Memory(folder / "big.db", embedder=cached, consolidate="off") as mem:
            load_10k = bulk_load(mem, texts, vectors, 0, 10_000)
            out["search_10k"] = bench_search(mem, vectors[:10_000], queries, qvecs)
            load_rest = bulk_load(mem, texts, vectors, 10_000, 100_000)
            out["add_many"] = {"items": 100_000, "seconds": round(load_10k + load_rest, 2)}
            out["add_many"]["per_s"] = 100_000 / (load_10k + load_rest)
            out["search_100k"] = bench_search(mem, vectors, queries, qvecs)
        proc = subprocess.run(
            [sys.executable, __file__, "--child-rss", str(folder / "big.db")],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        out["rss_100k"] = json.loads(proc.stdout.strip().splitlines()[-1])
    out["query_embedding_ms"] = round(embed_query_ms, 2)
    write_json(args.out, out)
    report(out)


def report(out: dict[str, Any]) -> None:
    s10, s100 = out["search_10k"], out["search_100k"]
    rss = out["rss_100k"]["with_store"]["VmRSS"]
    ratio = s100["index_over_numpy"]
    rows = [
        ["add() throughput, local embedder", f"{out['add']['per_s']:.0f}/s", ">= 150/s",
         met(out["add"]["per_s"] >= 150)],
        ["add_many(embeddings=...)", f"{out['add_many']['per_s']:.0f}/s", ">= 5,000/s",
         met(out["add_many"]["per_s"] >= 5000)],
        ["vector search 10k (index) median / p95",
         f"{s10['index']['median_ms']:.2f} / {s10['index']['p95_ms']:.2f} ms", "", ""],
        ["vector search 100k (index) median / p95",
         f"{s100['index']['median_ms']:.2f} / {s100['index']['p95_ms']:.2f} ms", "<= 10 ms",
         met(s100["index"]["median_ms"] <= 10)],
        ["numpy matvec + argpartition 100k median", f"{s100['numpy']['median_ms']:.2f} ms", "", ""],
        ["index / numpy at 100k (medians)", f"{ratio:.2f}x", "<= 2x", met(ratio <= 2)],
        ["vector search 100k end to end (no model)",
         f"{s100['vector_end_to_end']['median_ms']:.2f} ms", "", ""],
        ["hybrid search 100k end to end (no model) median",
         f"{s100['hybrid_end_to_end']['median_ms']:.2f} ms", "<= 30 ms",
         met(s100["hybrid_end_to_end"]["median_ms"] <= 30)],
        ["query embedding (model), per query", f"{out['query_embedding_ms']:.2f} ms", "", ""],
        ["RSS with 100k store open (subprocess)", f"{rss:.0f} MB", "<= 600 MB", met(rss <= 600)],
    ]  # fmt: skip
    table("memfold store benchmark", rows, ["measure", "figure", "target", ""])


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child-rss":
        child_rss(Path(sys.argv[2]))
    else:
        main()
