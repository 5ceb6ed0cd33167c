"""Deriving a text's facts from its parse against loading them from a stored reading
(``memfold.reading.facts_codec``), per text, on MSC persona sentences.

    .venv/bin/python benchmarks/probe_facts_codec.py [--texts 2000]

Every text is parsed first (the parse is not timed); then all facts are derived from
the cached parses, and all are loaded from their stored payloads, three times each,
interleaved. Prints the median milliseconds a text of each way, the payload's bytes and
whether every loaded Facts equals the derived one.
"""

from __future__ import annotations

import statistics
import time

from bench_common import machine, parser, persona_sentences, table, write_json
from memfold.reading import parser as reading_parser
from memfold.reading import stored
from memfold.reading.facts import facts_of

ROUNDS = 3


def main() -> None:
    p = parser(__doc__ or "", "probe_facts_codec.json")
    p.add_argument("--texts", type=int, default=2000)
    args = p.parse_args()
    texts = persona_sentences(args.data, args.texts)
    readings = reading_parser.read_many(texts)
    payloads = [stored.encode(r) for r in readings]
    derive, load = [], []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        derived = [facts_of(r) for r in readings]
        derive.append((time.perf_counter() - started) / len(texts) * 1000)
        started = time.perf_counter()
        loaded = [stored.load(t, s)[1] for t, s in zip(texts, payloads, strict=True)]
        load.append((time.perf_counter() - started) / len(texts) * 1000)
    same = all(a == b for a, b in zip(derived, loaded, strict=True))
    size = statistics.median(len(s.encode("utf-8")) for s in payloads)
    result = {
        "machine": machine(),
        "texts": len(texts),
        "derive_ms": round(statistics.median(derive), 4),
        "load_ms": round(statistics.median(load), 4),
        "payload_bytes_median": size,
        "same": same,
    }
    table(
        f"facts of {len(texts):,} texts (median of {ROUNDS} rounds)",
        [
            ["derived from the parse", f"{result['derive_ms']:.3f} ms"],
            ["loaded from the stored reading", f"{result['load_ms']:.3f} ms (words and facts)"],
            ["stored payload, median", f"{size:,.0f} bytes"],
            ["every loaded Facts equals the derived one", str(same)],
        ],
        ["measure", "figure"],
    )
    write_json(args.out, result)


if __name__ == "__main__":
    main()
