"""What one reading of a text costs: spaCy's parse plus the facts the guards compare.

    .venv/bin/python benchmarks/bench_parse.py                    # scenario texts, dev
    .venv/bin/python benchmarks/bench_parse.py --data ../shared/bench-data --limit 500

Texts: every memory of the dev scenarios (``scenarios/dev.jsonl``), each read once, one at
a time (as a save reads its new memory), CPU time per text, median and p90; then the same
texts through one batch (``read_many``: a bulk load) and, read again, from the cache (what a
drain, a review run or a tick pays for a memory already read).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from memfold.reading import parser
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
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=Path("../shared/bench-data"))
    ap.add_argument("--limit", type=int, default=1000)
    args = ap.parse_args()
    texts = texts_of(args.data, args.limit)
    load = cpu_ms(lambda: parser.read("The user lives in Lisbon."))
    single = [cpu_ms(lambda t=t: facts_of(parser.read(t))) for t in texts]
    again = [cpu_ms(lambda t=t: parser.read(t)) for t in texts]
    fresh = [f"{t} (batch)" for t in texts]
    batch = cpu_ms(lambda: [facts_of(r) for r in parser.read_many(fresh)])
    words = statistics.median(len(t.split()) for t in texts)
    print(f"{len(texts)} texts, median {words:.0f} words; model load {load:.0f} ms CPU\n")
    print("| reading | median ms CPU a text | p90 |")
    print("|---|---|---|")
    for name, values in (("parse + facts, one at a time", single), ("cached", again)):
        ordered = sorted(values)
        p90 = ordered[int(0.9 * (len(ordered) - 1))]
        print(f"| {name} | {statistics.median(values):.2f} | {p90:.2f} |")
    print(f"| parse + facts, one batch | {batch / len(texts):.2f} (mean) | - |")


if __name__ == "__main__":
    main()
