"""add() and add_many throughput, small and quick: to compare two versions of the code
in one sitting (run it alternately with ``PYTHONPATH=<worktree>/src``).

    .venv/bin/python benchmarks/bench_add.py LABEL [--adds 200] [--rows 20000] [--out FILE]

add(): single adds, consolidation off, the local embedder embedding each text (after 10
warm-ups). add_many: random unit vectors given, batches of 5,000, one scope. Prints
throughput, process CPU per item and the 1-minute load average before and after (the
machine is shared: compare CPU per item, alternating the versions), and writes the same
figures as JSON to ``--out`` (give each version its own file).
"""

from __future__ import annotations

import os
import tempfile
import time

import numpy as np

from bench_common import parser, write_json
from memfold import Memory


def main() -> None:
    p = parser((__doc__ or "").split("\n\n")[0], "bench_add.json")
    p.add_argument("label")
    p.add_argument("--adds", type=int, default=200)
    p.add_argument("--rows", type=int, default=20_000)
    args = p.parse_args()
    load_before = os.getloadavg()[0]
    rng = np.random.default_rng(0)
    vecs = rng.normal(size=(args.rows, 384)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    texts = [
        f"Persona sentence {i} about cooking pasta and books {i % 97}" for i in range(args.rows)
    ]
    with tempfile.TemporaryDirectory() as folder:
        mem = Memory(os.path.join(folder, "bench.db"), consolidate="off")
        for i in range(10):
            mem.add(f"warm-up sentence {i} about tea", user_id="u")
        wall, cpu = time.perf_counter(), time.process_time()
        for i in range(args.adds):
            mem.add(f"User {i} likes green tea and hiking in the Alps, item {i}", user_id="u")
        add_wall, add_cpu = time.perf_counter() - wall, time.process_time() - cpu
        wall, cpu = time.perf_counter(), time.process_time()
        for start in range(0, args.rows, 5000):
            items = [{"text": t, "user_id": "v"} for t in texts[start : start + 5000]]
            mem.add_many(items, embeddings=vecs[start : start + 5000])
        many_wall, many_cpu = time.perf_counter() - wall, time.process_time() - cpu
        mem.close()
    load_after = os.getloadavg()[0]
    print(
        f"{args.label}: add {args.adds / add_wall:.0f}/s (CPU {add_cpu / args.adds * 1e3:.2f} ms), "
        f"add_many {args.rows / many_wall:.0f}/s (CPU {many_cpu / args.rows * 1e3:.3f} ms), "
        f"load {load_before:.1f} -> {load_after:.1f}"
    )
    result = {
        "label": args.label,
        "adds": args.adds,
        "rows": args.rows,
        "add_per_s": round(args.adds / add_wall, 1),
        "add_cpu_ms": round(add_cpu / args.adds * 1e3, 3),
        "add_wall_s": round(add_wall, 3),
        "add_many_per_s": round(args.rows / many_wall, 1),
        "add_many_cpu_ms": round(many_cpu / args.rows * 1e3, 4),
        "add_many_wall_s": round(many_wall, 3),
        "load_before": round(load_before, 2),
        "load_after": round(load_after, 2),
    }
    write_json(args.out, result)


if __name__ == "__main__":
    main()
