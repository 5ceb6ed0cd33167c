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
- RSS: a child process opens the 100k store, loads the embedder, searches; reports VmRSS
  (once searching the 100k scope, once searching only a 100-memory scope beside it).
- First search after open: a fresh Memory on the 100k file, its first vector search in a
  100-memory scope (the index reads that scope only), then in the 100k scope (the read
  every first search paid before scopes were loaded on demand). Median of 5 openings.
- Foreign write: a reader holding the 100k scope, a second Memory on the file adds one
  memory to it; the reader's next search (which applies the row, growing the scope).
- Large scope (--big N, default 1,000,000; 0 skips): N random unit vectors bulk-inserted
  into one scope of a fresh file, read by a fresh Memory's first search, then the index
  vs a bare numpy product over the same contiguous matrix, alternating query by query.

    .venv/bin/python benchmarks/bench_store.py --big 0 --skip-core   # only the scope parts
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
SMALL_USER = "small"  # a 100-memory scope beside the 100k one
SMALL = 100
OPENINGS = 5
FOREIGN_WRITES = 5
BIG_QUERIES = 30
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


def _timed(fn: Any, *args: Any, **kw: Any) -> float:
    began = time.perf_counter()
    fn(*args, **kw)
    return time.perf_counter() - began


def bench_first_search(db: Path, embedder: Any, queries: list[str]) -> dict[str, Any]:
    """Fresh Memory objects on the file: the first vector search in a small scope, then in
    the 100k one; and the search after another Memory's write to a loaded 100k scope."""
    opened, small, big = [], [], []
    for q in queries[:OPENINGS]:
        began = time.perf_counter()
        with Memory(db, embedder=embedder, consolidate="off") as mem:
            opened.append(time.perf_counter() - began)
            small.append(_timed(mem.search, q, user_id=SMALL_USER, k=10, mode="vector"))
            big.append(_timed(mem.search, q, user_id=USER, k=10, mode="vector"))
    after_write = []
    with (
        Memory(db, embedder=embedder, consolidate="off") as reader,
        Memory(db, embedder=embedder, consolidate="off") as writer,
    ):
        reader.search(queries[0], user_id=USER, k=10, mode="vector")
        for i, q in enumerate(queries[:FOREIGN_WRITES]):
            writer.add_many([{"text": f"a foreign write {i}", "user_id": USER}], consolidate=False)
            after_write.append(_timed(reader.search, q, user_id=USER, k=10, mode="vector"))
    return {
        "open": stats_ms(opened),
        "first_small": stats_ms(small),
        "first_100k": stats_ms(big),
        "after_foreign_write": stats_ms(after_write),
        "after_foreign_write_max_ms": round(max(after_write) * 1000, 2),
    }


def bench_big(folder: Path, embedder: Any, n: int) -> dict[str, Any]:
    """n random unit vectors in one scope: load, first search, index vs bare numpy."""
    rng = np.random.default_rng(13)
    matrix = rng.standard_normal((n, embedder.dim), dtype=np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    db = folder / "one-scope.db"
    with Memory(db, embedder=embedder, consolidate="off") as mem, progress() as bar:
        task = bar.add_task(f"add_many {n:,} into one scope", total=n)
        began = time.perf_counter()
        for lo in range(0, n, BATCH):
            hi = min(n, lo + BATCH)
            items = [{"text": f"memory {i}", "user_id": "one"} for i in range(lo, hi)]
            mem.add_many(items, embeddings=matrix[lo:hi], consolidate=False)
            bar.advance(task, hi - lo)
        load_s = time.perf_counter() - began
    qvecs = rng.standard_normal((BIG_QUERIES, embedder.dim), dtype=np.float32)
    qvecs /= np.linalg.norm(qvecs, axis=1, keepdims=True)
    t_index, t_numpy = [], []
    with Memory(db, embedder=embedder, consolidate="off") as mem:
        key = mem._scope("one", None, None).key()
        first_s = _timed(lambda: mem.ctx.synced_index().search(key, qvecs[0], 10))
        index = mem.ctx.synced_index()
        for qv in qvecs:
            began = time.perf_counter()
            got = index.search(key, qv, 10)
            t_index.append(time.perf_counter() - began)
            began = time.perf_counter()
            scores = matrix @ qv
            top = np.argpartition(-scores, 10)[:10]
            top = top[np.argsort(-scores[top])]
            t_numpy.append(time.perf_counter() - began)
            assert np.allclose([s for _, s in got], scores[top], atol=1e-5)  # same answer
        ids = mem.store.count_memories()
    idx, npy = stats_ms(t_index), stats_ms(t_numpy)
    return {
        "memories": ids,
        "insert_s": round(load_s, 1),
        "first_search_s": round(first_s, 2),
        "index": idx,
        "numpy": npy,
        "index_over_numpy": idx["median_ms"] / npy["median_ms"],
    }


def child_rss(db: Path, user: str = USER) -> None:
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
            mem.search(q, user_id=user, k=10)
        after = rss()
        count = mem.store.count_memories()
    print(json.dumps({"memories": count, "embedder_only": before, "with_store": after}))


def main() -> None:
    p = parser(__doc__ or "", "bench_store.json")
    p.add_argument("--big", type=int, default=1_000_000, help="memories in one scope (0: skip)")
    p.add_argument("--skip-core", action="store_true", help="only the scope-loading parts")
    args = p.parse_args()
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
        db = folder / "big.db"
        if not args.skip_core:
            out["add"] = bench_add(embedder, vary(base, SINGLE_ADDS + 20, seed=11), folder)
        with Memory(db, embedder=cached, consolidate="off") as mem:
            load_10k = bulk_load(mem, texts, vectors, 0, 10_000)
            if not args.skip_core:
                out["search_10k"] = bench_search(mem, vectors[:10_000], queries, qvecs)
            load_rest = bulk_load(mem, texts, vectors, 10_000, 100_000)
            out["add_many"] = {"items": 100_000, "seconds": round(load_10k + load_rest, 2)}
            out["add_many"]["per_s"] = 100_000 / (load_10k + load_rest)
            if not args.skip_core:
                out["search_100k"] = bench_search(mem, vectors, queries, qvecs)
            small = [{"text": t, "user_id": SMALL_USER} for t in texts[:SMALL]]
            mem.add_many(small, embeddings=list(vectors[:SMALL]), consolidate=False)
        out["first_search"] = bench_first_search(db, cached, queries)
        for name, user in (("rss_100k", USER), ("rss_small_scope", SMALL_USER)):
            proc = subprocess.run(
                [sys.executable, __file__, "--child-rss", str(db), user],
                capture_output=True, text=True, check=True,
            )  # fmt: skip
            out[name] = json.loads(proc.stdout.strip().splitlines()[-1])
        if args.big:
            out["big"] = bench_big(folder, cached, args.big)
    out["query_embedding_ms"] = round(embed_query_ms, 2)
    write_json(args.out, out)
    report(out)


def report(out: dict[str, Any]) -> None:
    rss = out["rss_100k"]["with_store"]["VmRSS"]
    rows = [
        ["add_many(embeddings=...)", f"{out['add_many']['per_s']:.0f}/s", ">= 5,000/s",
         met(out["add_many"]["per_s"] >= 5000)],
    ]  # fmt: skip
    if "search_100k" in out:
        s10, s100 = out["search_10k"], out["search_100k"]
        ratio = s100["index_over_numpy"]
        rows += [
            ["add() throughput, local embedder", f"{out['add']['per_s']:.0f}/s", ">= 150/s",
             met(out["add"]["per_s"] >= 150)],
            ["vector search 10k (index) median / p95",
             f"{s10['index']['median_ms']:.2f} / {s10['index']['p95_ms']:.2f} ms", "", ""],
            ["vector search 100k (index) median / p95",
             f"{s100['index']['median_ms']:.2f} / {s100['index']['p95_ms']:.2f} ms",
             "<= 10 ms", met(s100["index"]["median_ms"] <= 10)],
            ["numpy matvec + argpartition 100k median",
             f"{s100['numpy']['median_ms']:.2f} ms", "", ""],
            ["index / numpy at 100k (medians)", f"{ratio:.2f}x", "<= 2x", met(ratio <= 2)],
            ["vector search 100k end to end (no model)",
             f"{s100['vector_end_to_end']['median_ms']:.2f} ms", "", ""],
            ["hybrid search 100k end to end (no model) median",
             f"{s100['hybrid_end_to_end']['median_ms']:.2f} ms", "<= 30 ms",
             met(s100["hybrid_end_to_end"]["median_ms"] <= 30)],
            ["query embedding (model), per query", f"{out['query_embedding_ms']:.2f} ms", "", ""],
        ]  # fmt: skip
    first = out["first_search"]
    small_ms = first["first_small"]["median_ms"]
    rows += [
        ["first vector search after open, 100-memory scope beside 100k",
         f"{small_ms:.1f} ms", "<= 100 ms", met(small_ms <= 100)],
        ["first vector search after open, the 100k scope",
         f"{first['first_100k']['median_ms']:.0f} ms", "", ""],
        ["search after another Memory's write, 100k loaded, median / max",
         f"{first['after_foreign_write']['median_ms']:.1f} / "
         f"{first['after_foreign_write_max_ms']:.1f} ms", "", ""],
        ["RSS with 100k store open, 100k scope searched", f"{rss:.0f} MB", "<= 600 MB",
         met(rss <= 600)],
        ["RSS with 100k store open, only the small scope searched",
         f"{out['rss_small_scope']['with_store']['VmRSS']:.0f} MB", "", ""],
    ]  # fmt: skip
    if "big" in out:
        big = out["big"]
        ratio = big["index_over_numpy"]
        rows += [
            [f"one scope of {big['memories']:,}: insert / first search (reads it)",
             f"{big['insert_s']:.0f} s / {big['first_search_s']:.2f} s", "", ""],
            [f"vector search, one scope of {big['memories']:,}, index / numpy median",
             f"{big['index']['median_ms']:.1f} / {big['numpy']['median_ms']:.1f} ms", "", ""],
            ["index / numpy at that size (medians)", f"{ratio:.2f}x", "<= 1.2x",
             met(ratio <= 1.2)],
        ]  # fmt: skip
    table("memfold store benchmark", rows, ["measure", "figure", "target", ""])


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child-rss":
        child_rss(Path(sys.argv[2]), sys.argv[3])
    else:
        main()
