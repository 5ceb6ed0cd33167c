"""What the keyword fill-in costs hybrid search (``search.keyword_fill_in``).

.venv/bin/python benchmarks/bench_fill_in.py [--memories 5000] [--queries 300]

One scope of templated memories ("Ana booked sushi on day 12 with Ben (note 812)"),
embedded by the default local model and stored unjudged. Two ``Memory`` objects open
the same file, one with the fill-in and one without; each query (half of them the
exact text of a stored memory, half questions) is searched by both, in random order,
query by query, so the load of this shared machine falls on both alike. Reported: the
median latency of each and their ratio.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from pathlib import Path

from bench_common import machine, parser, write_json
from memfold import Memory, Settings
from memfold.embed.local import LocalEmbedder

NAMES = ["Ana", "Ben", "Caro", "Dev", "Eli", "Finn", "Gus", "Hana", "Ivo", "Jo"]
THINGS = ["coffee", "tea", "hiking", "chess", "jazz", "sushi", "Lisbon", "Rust", "yoga",
          "cats", "dentist", "budget", "offsite", "database", "deadline"]  # fmt: skip
VERBS = ["likes", "visited", "booked", "moved to", "asked about", "planned", "cancelled",
         "mentioned", "bought", "reviewed"]  # fmt: skip


def main() -> None:
    p = parser(__doc__ or "", "bench_fill_in.json")
    p.add_argument("--memories", type=int, default=5000)
    p.add_argument("--queries", type=int, default=300)
    args = p.parse_args()
    at_start = machine()
    rng = random.Random(7)
    texts = [
        f"{rng.choice(NAMES)} {rng.choice(VERBS)} {rng.choice(THINGS)} on day {i % 365} "
        f"with {rng.choice(NAMES)} (note {i})"
        for i in range(args.memories)
    ]
    questions = [f"what did {n} say about {t}?" for n in NAMES for t in THINGS]
    half = args.queries // 2
    queries = rng.sample(texts, half) + rng.sample(questions, min(half, len(questions)))
    embedder = LocalEmbedder()
    path = Path(tempfile.mkdtemp()) / "fill_in.db"
    with Memory(path, embedder=embedder, consolidate="off") as mem:
        mem.add_many([{"text": t, "user_id": "u"} for t in texts], consolidate=False)
    timings: dict[bool, list[float]] = {True: [], False: []}
    stores = {
        fill: Memory(
            path,
            embedder=embedder,
            consolidate="off",
            settings=Settings(search={"keyword_fill_in": fill}),
        )
        for fill in (True, False)
    }
    for query in queries[:10]:  # warm: the scope's index and keyword statistics
        for mem in stores.values():
            mem.search(query, user_id="u")
    for query in queries:
        order = [True, False] if rng.random() < 0.5 else [False, True]
        for fill in order:
            started = time.perf_counter()
            stores[fill].search(query, user_id="u", k=10)
            timings[fill].append((time.perf_counter() - started) * 1000)
    for mem in stores.values():
        mem.close()
    on, off = statistics.median(timings[True]), statistics.median(timings[False])
    print(f"{'fill-in':<8} {'median ms':>10}")
    print(f"{'on':<8} {on:>10.2f}")
    print(f"{'off':<8} {off:>10.2f}")
    print(f"ratio on/off: {on / off:.2f} ({len(queries)} queries, {args.memories} memories)")
    write_json(
        args.out,
        {
            "machine": at_start,
            "memories": args.memories,
            "queries": len(queries),
            "median_ms_on": on,
            "median_ms_off": off,
            "ratio": on / off,
        },
    )


if __name__ == "__main__":
    main()
