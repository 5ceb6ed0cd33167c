"""What one reading of a text costs: spaCy's parse plus the facts the guards compare.

    .venv/bin/python benchmarks/bench_parse.py                    # scenario texts, dev
    .venv/bin/python benchmarks/bench_parse.py --data ../shared/bench-data --limit 500

Texts: every memory of the dev scenarios (``scenarios/dev.jsonl``), each read once, one at
a time, CPU time per text, median and p90: what ``add()`` adds for a save it queues or
consolidates (the parse and its stored row, ``engine/readings.py``), and the parse with
the facts the guards compare; then the same texts through one batch (``read_many``: a bulk
load), from a stored row (what a drain, a review run or a tick pays for a memory read
before, in a new process) and, read again, from the cache. The figures printed are also
written as JSON to ``--out`` (default ``results/bench_parse.json``).
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path
from typing import Any

from bench_common import parser as bench_parser
from bench_common import write_json
from memfold.reading import parser, stored
from memfold.reading.facts import facts_of


def texts_of(data: Path, limit: int) -> list[str]:
    out: list[str] = []
    for line in (data / "scenarios" / "dev.jsonl").read_text(encoding="utf-8").splitlines():
        scenario = json.loads(line)
        out += [*scenario["existing"], scenario["new"], *scenario.get("distractors", [])]
    return list(dict.fromkeys(out))[:limit]


def cpu_ms(call: object) -> float:
    start = time.process_time()
    call()  # type: ignore[operator]
    return (time.process_time() - start) * 1000


def main() -> None:
    ap = bench_parser((__doc__ or "").splitlines()[0], "bench_parse.json")
    ap.add_argument("--limit", type=int, default=1000)
    args = ap.parse_args()
    texts = texts_of(args.data, args.limit)
    load = cpu_ms(lambda: parser.read("The user lives in Lisbon."))
    on_add = [cpu_ms(lambda t=t: (stored.key(t), stored.encode(parser.read(t)))) for t in texts]
    rows = {t: stored.encode(parser.read(t)) for t in texts}
    parser.forget()
    single = [cpu_ms(lambda t=t: facts_of(parser.read(t))) for t in texts]
    from_row = [cpu_ms(lambda t=t: stored.decode(t, rows[t])) for t in texts]
    again = [cpu_ms(lambda t=t: parser.read(t)) for t in texts]
    fresh = [f"{t} (batch)" for t in texts]
    batch = cpu_ms(lambda: [facts_of(r) for r in parser.read_many(fresh)])
    words = statistics.median(len(t.split()) for t in texts)
    print(f"{len(texts)} texts, median {words:.0f} words; model load {load:.0f} ms CPU\n")
    print("| reading | median ms CPU a text | p90 |")
    print("|---|---|---|")
    readings: dict[str, dict[str, Any]] = {}
    for key, name, values in (
        ("on_add", "parse + stored row (what add() adds)", on_add),
        ("single", "parse + facts, one at a time", single),
        ("from_row", "from a stored row", from_row),
        ("cached", "cached", again),
    ):
        ordered = sorted(values)
        p90 = ordered[int(0.9 * (len(ordered) - 1))]
        print(f"| {name} | {statistics.median(values):.2f} | {p90:.2f} |")
        readings[key] = {
            "reading": name,
            "median_ms_cpu": round(statistics.median(values), 3),
            "p90_ms_cpu": round(p90, 3),
        }
    print(f"| parse + facts, one batch | {batch / len(texts):.2f} (mean) | - |")
    readings["batch"] = {
        "reading": "parse + facts, one batch",
        "mean_ms_cpu": round(batch / len(texts), 3),
    }
    result = {
        "data": str(args.data),
        "limit": args.limit,
        "texts": len(texts),
        "median_words": words,
        "model_load_ms_cpu": round(load, 1),
        "readings": readings,
    }
    write_json(args.out, result)


if __name__ == "__main__":
    main()
