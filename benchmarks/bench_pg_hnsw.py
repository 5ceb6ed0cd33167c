"""PostgreSQL HNSW vector search (PostgresStore.vector_search) against exact search.

    .venv/bin/python benchmarks/bench_pg_hnsw.py [--n 300000] [--queries 200] \\
        [--ef 40,100,200] [--m 16] [--ef-construction 64]

One scope holds ``n`` clustered unit vectors (``realistic_vectors``: MSC persona
sentences embedded by the local model, 384 dimensions, plus noise) in a local
pgserver (PostgreSQL 16, pgvector 0.6.2). Rows go in by binary COPY; then the HNSW
index of the dimension is built (``ensure_vector_index``: m and ef_construction from
StoreSettings; the database's maintenance_work_mem raised to 1 GB so the graph is
built in memory). Queries are ``queries`` other noisy copies of persona vectors.
The exact top 10 is PostgreSQL's own exact scan of the scope (``ORDER BY embedding
<=> q``, timed too); recall@10 is the share of it that the HNSW path returns, for each
``hnsw.ef_search`` in ``--ef``. The noisy copies make near-ties common (the 10th and
11th exact scores differ by under 1e-3 for most queries), so recall against numpy's
float32 top 10 is printed as well: it also counts rounding-order swaps at rank 10.
Latency is the whole ``vector_search`` call (bounded scope count, one SQL query).
"""

from __future__ import annotations

import json
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from bench_common import parser, persona_sentences, realistic_vectors, stats_ms, table, write_json
from helpers.postgres import running_server
from memfold.config import StoreSettings
from memfold.embed.local import LocalEmbedder
from memfold.evaluation.embed_cache import CachingEmbedder
from memfold.model import Scope, Status, content_hash
from memfold.store.postgres import PostgresStore

SCOPE = Scope("bench")
_COLS = (
    "id, user_id, scope_key, text, created_at, updated_at, content_hash, "
    "embedding, embedding_model, embedding_dim, seq"
)


def vectors(data: Path, n: int, queries: int) -> tuple[np.ndarray, np.ndarray]:
    cached = CachingEmbedder(LocalEmbedder(), Path("results") / "cache")
    seeds = np.asarray(cached.embed(persona_sentences(data, 2_000)), dtype=np.float32)
    cached.save()
    return realistic_vectors(seeds, n), realistic_vectors(seeds, queries, seed=99)


def load(store: PostgresStore, vecs: np.ndarray) -> float:
    """Binary COPY of the rows (one transaction, change numbers drawn in one go)."""
    start = time.perf_counter()
    now = datetime.now(UTC)
    seqs = store._db.next_seqs(len(vecs))
    vector_oid = store._db._vector_oid
    types: list[int | str] = ["text", "text", "text", "text", "timestamptz", "timestamptz"]
    types += ["text", vector_oid, "text", "int4", "int8"]
    sql = f"COPY memories ({_COLS}) FROM STDIN (FORMAT BINARY)"
    with store._db.transaction() as conn, conn.cursor() as cur, cur.copy(sql) as copy:
        copy.set_types(types)
        for i, v in enumerate(vecs):
            text = f"memory {i}"
            fixed = (f"m{i}", "bench", SCOPE.key(), text, now, now, content_hash(text))
            copy.write_row((*fixed, v, "bench", len(v), seqs[i]))
    store._q("ANALYZE memories")
    return time.perf_counter() - start


def main() -> None:
    p = parser(__doc__ or "", "bench_pg_hnsw.json")
    p.add_argument("--n", type=int, default=300_000)
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--ef", default="40,100,200", help="hnsw.ef_search values, comma-separated")
    p.add_argument("--m", type=int, default=StoreSettings().pg_hnsw_m)
    p.add_argument("--ef-construction", type=int, default=StoreSettings().pg_hnsw_ef_construction)
    args = p.parse_args()
    efs = [int(x) for x in args.ef.split(",")]
    results: dict[str, Any] = {
        "n": args.n,
        "queries": args.queries,
        "m": args.m,
        "ef_construction": args.ef_construction,
        "load_before": os.getloadavg(),
    }
    vecs, queries = vectors(args.data, args.n, args.queries)
    numpy_truth = [set(np.argsort(-(vecs @ q), kind="stable")[:10].tolist()) for q in queries]
    with running_server() as server:
        import psycopg

        with psycopg.connect(server.base_url, autocommit=True) as conn:
            conn.execute("ALTER DATABASE postgres SET maintenance_work_mem = '1GB'")
        store = PostgresStore(server.fresh_url("hnsw"))
        results["load_s"] = round(load(store, vecs), 1)
        start = time.perf_counter()
        store.ensure_vector_index(vecs.shape[1], m=args.m, ef_construction=args.ef_construction)
        results["index_build_s"] = round(time.perf_counter() - start, 1)
        truth, times = [], []
        for q in queries:
            start = time.perf_counter()
            # exact_max_rows above the scope's size: the exact scan (plus its bounded count)
            exact = store.vector_search(SCOPE, q, 10, exact_max_rows=len(vecs) + 1)
            times.append(time.perf_counter() - start)
            truth.append({int(mid[1:]) for mid, _ in exact})
        exact_st = stats_ms(times)
        results["exact_sql"] = exact_st
        agree = sum(len(a & b) for a, b in zip(truth, numpy_truth, strict=True))
        rows = [
            [
                *["exact SQL", "1.000", f"{agree / (10 * len(queries)):.3f}"],
                *[f"{exact_st['median_ms']:.1f}", f"{exact_st['p95_ms']:.1f}"],
            ]
        ]
        for ef in efs:
            hits, numpy_hits, times = 0, 0, []
            for q, want, want_np in zip(queries, truth, numpy_truth, strict=True):
                start = time.perf_counter()
                got = store.vector_search(SCOPE, q, 10, statuses=(Status.ACTIVE,), ef_search=ef)
                times.append(time.perf_counter() - start)
                ids = {int(mid[1:]) for mid, _ in got}
                hits, numpy_hits = hits + len(ids & want), numpy_hits + len(ids & want_np)
            recall, recall_np = hits / (10 * len(queries)), numpy_hits / (10 * len(queries))
            st = stats_ms(times)
            results[f"ef{ef}"] = {"recall_at_10": recall, "recall_vs_numpy": recall_np, **st}
            rows.append(
                [
                    *[str(ef), f"{recall:.3f}", f"{recall_np:.3f}"],
                    *[f"{st['median_ms']:.2f}", f"{st['p95_ms']:.2f}"],
                ]
            )
        store.close()
    results["load_after"] = os.getloadavg()
    table(
        f"PostgreSQL HNSW, {args.n} vectors in one scope, {args.queries} queries, k=10, "
        f"m={args.m}, ef_construction={args.ef_construction} "
        f"(COPY {results['load_s']} s, index build {results['index_build_s']} s)",
        rows,
        ["ef_search", "recall@10 vs exact SQL", "vs numpy", "median ms", "p95 ms"],
    )
    print(json.dumps(results, indent=1, default=str))
    write_json(args.out, results)


if __name__ == "__main__":
    main()
