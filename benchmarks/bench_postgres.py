"""SQLite vs PostgreSQL backends on one workload, in one run.

    .venv/bin/python benchmarks/bench_postgres.py [--n 20000] [--scopes 10] [--out FILE]

PostgreSQL is a local pgserver (PostgreSQL 16 + pgvector over a Unix socket, the
one the tests use). Both stores get the same ``n`` memories in ``scopes`` scopes:
random pseudo-word texts (Zipf-like word frequencies) with random unit vectors of
384 dimensions, loaded with ``add_many(embeddings=..., consolidate=False)`` in
batches of 1,000. Then, alternating backend query by query: vector, keyword and
hybrid search in one scope (query vectors and words precomputed: no embedder), and
single ``add()`` calls with a precomputed vector (consolidate off). The vector index
is the same in-process numpy index on both; what differs is the store underneath.
"""

from __future__ import annotations

import json
import os
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from bench_common import parser, stats_ms, write_json
from helpers.postgres import running_server
from memfold import Memory
from memfold.embed.base import Embedder

DIM = 384


class LookupEmbedder:
    """Query vectors are precomputed: each query text maps to its vector (no model)."""

    model_id = "bench-random"
    dim = DIM

    def __init__(self) -> None:
        self.vectors: dict[str, np.ndarray] = {}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self.vectors[t] for t in texts])


def corpus(n: int, seed: int) -> tuple[list[str], np.ndarray]:
    rng = random.Random(seed)
    vocab = [f"w{i}{rng.choice('aeiou')}{rng.choice('nrst')}" for i in range(5000)]
    weights = [1.0 / (i + 1) for i in range(len(vocab))]
    texts = [" ".join(rng.choices(vocab, weights, k=rng.randint(6, 16))) for _ in range(n)]
    vecs = np.random.default_rng(seed).standard_normal((n, DIM)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    return texts, vecs


def load(mem: Memory, texts: list[str], vecs: np.ndarray, scopes: int) -> float:
    start = time.perf_counter()
    for lo in range(0, len(texts), 1000):
        items = [
            {"text": t, "user_id": f"u{(lo + i) % scopes}"}
            for i, t in enumerate(texts[lo : lo + 1000])
        ]
        mem.add_many(items, embeddings=vecs[lo : lo + 1000], consolidate=False)
    return time.perf_counter() - start


def main() -> None:
    p = parser(__doc__ or "", "bench_postgres.json")
    p.add_argument("--n", type=int, default=20_000)
    p.add_argument("--scopes", type=int, default=10)
    p.add_argument("--queries", type=int, default=200)
    args = p.parse_args()
    texts, vecs = corpus(args.n, 7)
    rng = np.random.default_rng(11)
    queries = rng.standard_normal((args.queries, DIM)).astype(np.float32)
    words = [f"{' '.join(texts[i].split()[:2])} q{i}" for i in range(args.queries)]
    lookup = LookupEmbedder()
    lookup.vectors = {w: queries[q] / np.linalg.norm(queries[q]) for q, w in enumerate(words)}
    embedder: Embedder = lookup
    results: dict[str, Any] = {"n": args.n, "scopes": args.scopes, "load_before": os.getloadavg()}
    with tempfile.TemporaryDirectory() as tmp, running_server() as server:
        mems = {
            "sqlite": Memory(Path(tmp) / "bench.db", embedder=embedder, consolidate="off"),
            "postgres": Memory(url=server.fresh_url("bench"), embedder=embedder, consolidate="off"),
        }
        for name, mem in mems.items():
            results[f"{name}_load_s"] = round(load(mem, texts, vecs, args.scopes), 2)
        timings: dict[str, list[float]] = {}
        for q in range(args.queries):
            for name, mem in mems.items():
                for mode in ("vector", "keyword", "hybrid"):
                    start = time.perf_counter()
                    mem.search(words[q], user_id="u1", mode=mode, k=10)
                    timings.setdefault(f"{name}_{mode}", []).append(time.perf_counter() - start)
                start = time.perf_counter()
                mem.add(f"fresh memory {q} {name}", user_id="u2", embedding=queries[q].tolist())
                timings.setdefault(f"{name}_add", []).append(time.perf_counter() - start)
        for key, values in timings.items():
            results[key] = stats_ms(values[5:])  # the first few warm the index and caches
        for mem in mems.values():
            mem.close()
    results["load_after"] = os.getloadavg()
    print(json.dumps(results, indent=1))
    write_json(args.out, results)


if __name__ == "__main__":
    main()
