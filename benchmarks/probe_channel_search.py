"""The update channel's keyword search at 100k memories in one scope: the save's whole
text against the words it asks for now (``update_channel.channel_query``).

    .venv/bin/python benchmarks/probe_channel_search.py [--memories 100000] [--out FILE]

The store is the one ``bench_drain.py`` drains (MSC persona sentences varied, their
readings stored); each of its 400 queued saves that holds a change cue is searched for
both ways, interleaved, through ``Store.keyword_search`` as the channel calls it (20
hits, active memories). The first search of each kind warms the page cache and is left
out. Prints the median milliseconds of each way and the hits both find, and writes them
as JSON to ``--out``.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from bench_common import (
    machine,
    parser,
    persona_sentences,
    realistic_vectors,
    table,
    vary,
    write_json,
)
from bench_drain import USER, _load
from memfold import Memory
from memfold.embed.local import LocalEmbedder
from memfold.engine.update_channel import channel_query, has_cue
from memfold.model import Scope, Status
from memfold.reading.attribute import implied_words
from memfold.reading.facts import facts

SAVES = 400
FETCHED = 20  # consolidation.update_channel_fetched


def main() -> None:
    p = parser(__doc__ or "", "probe_channel_search.json")
    p.add_argument("--memories", type=int, default=100_000)
    args = p.parse_args()
    embedder = LocalEmbedder()
    base = persona_sentences(args.data, 2000)
    texts = vary(base, args.memories + SAVES)
    seeds = np.asarray(embedder.embed(base), dtype=np.float32)
    vectors = realistic_vectors(seeds, args.memories)
    cued = [t for t in texts[args.memories :] if has_cue(t)]
    whole_ms: list[float] = []
    asked_ms: list[float] = []
    shared = 0
    with tempfile.TemporaryDirectory(prefix="memfold-probe-") as tmp:
        db = Path(tmp) / "channel.db"
        _load(db, embedder, texts[: args.memories], vectors)
        with Memory(db, embedder=embedder, consolidate="off") as mem:
            store, scope = mem.ctx.store, Scope(user_id=USER)
            for i, text in enumerate(cued):
                found = []
                for query, into in (
                    (" ".join([text, *implied_words(facts(text))]), whole_ms),
                    (channel_query(facts(text)), asked_ms),
                ):
                    started = time.perf_counter()
                    hits = store.keyword_search(scope, query, FETCHED, statuses=(Status.ACTIVE,))
                    if i:
                        into.append((time.perf_counter() - started) * 1000)
                    found.append({mid for mid, _ in hits})
                shared += len(found[0] & found[1])
    table(
        f"update-channel search, {args.memories:,} memories in one scope, "
        f"{len(cued)} saves with a cue (load at start {machine()['loadavg_at_start']})",
        [
            ["the save's whole text", f"{statistics.median(whole_ms):.1f}"],
            ["its nouns, verbs, adjectives, names", f"{statistics.median(asked_ms):.1f}"],
            ["hits found by both, of", f"{shared} of {len(cued) * FETCHED}"],
        ],
        ["query", "median ms"],
    )
    result = {
        "memories": args.memories,
        "saves": SAVES,
        "saves_with_cue": len(cued),
        "fetched": FETCHED,
        "whole_text_median_ms": round(statistics.median(whole_ms), 2),
        "asked_words_median_ms": round(statistics.median(asked_ms), 2),
        "hits_found_by_both": shared,
        "hits_of": len(cued) * FETCHED,
    }
    write_json(args.out, result)


if __name__ == "__main__":
    main()
