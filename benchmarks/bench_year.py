"""A year of use in minutes (issue 11): daily adds and retrievals, the lifecycle tick
after each day, the clock injected.

    .venv/bin/python benchmarks/bench_year.py [--days 365] [--adds 30] [--searches 20]

Synthetic but shaped like an assistant's memory (made here, no evaluation data): one
user; each day ``--adds`` memories from templates (episodic events with a place and
the day's date, preferences and facts, how-to notes), categories by memfold's rules;
``--searches`` searches a day, most for something of the last two weeks, some for an
older fact (a few facts are asked for again and again: they become core). Every
memory's text is unique. After each day: ``Memory.tick(now=end of day)``.

Reported by month: the hot tier's size (active, hot), cold and superseded counts,
summaries written, the tick's time and plain search's median latency on the hot tier.
At the end: the share of all memories ever added that deep recall still finds (deep
search for the memory's own text, top 10: the memory itself, or a summary that
supersedes it), which must be 100 %.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench_common import machine, parser, write_json
from memfold import Memory
from memfold.embed.local import LocalEmbedder
from memfold.engine.search import SearchMode
from memfold.model import Status, Tier

START = datetime(2025, 1, 1, 8, tzinfo=UTC)
PLACES = [
    "Mount Rainier",
    "Lake Washington",
    "Green Lake",
    "Discovery Park",
    "Alki Beach",
    "Fremont",
    "Ballard",
    "Capitol Hill",
    "Stone Gardens",
    "Seward Park",
    "Golden Gardens",
    "Pike Place",
    "Bainbridge Island",
    "Snoqualmie Falls",
    "Olympic Park",
    "Gas Works",
]
EVENTS = [
    "went hiking at {p}",
    "went kayaking on {p}",
    "ran a 10K near {p}",
    "had lunch with Priya at {p}",
    "went rock climbing at {p}",
    "took photos at {p}",
    "biked to {p}",
    "met Marco for coffee in {p}",
    "went to a concert at {p}",
]
FACTS = [
    "User's favourite {x} is {y}",
    "User prefers {y} over {x}",
    "User is learning {y}",
    "User's {x} appointment is with Dr. {y}",
    "User owns a {y} {x}",
]
XS = ["tea", "bike", "book", "dentist", "camera", "coffee", "film", "language", "plant"]
YS = [
    "oolong",
    "Trek",
    "Dune",
    "Okafor",
    "Fujifilm",
    "espresso",
    "Arrival",
    "Portuguese",
    "monstera",
    "rooibos",
    "Canyon",
    "Hyperion",
    "Lindqvist",
    "Leica",
    "cortado",
    "Norwegian",
]
HOWTOS = [
    "How to restart the {x} service: stop it, clear the cache, start it again",
    "Always run the {x} tests before pushing to main",
]  # fmt: skip


def _text(kind: str, day: int, n: int, rng: random.Random) -> str:
    date = (START + timedelta(days=day)).strftime("%B %d, %Y").replace(" 0", " ")
    if kind == "event":
        return f"User {rng.choice(EVENTS).format(p=rng.choice(PLACES))} on {date} (#{n})"
    if kind == "howto":
        return rng.choice(HOWTOS).format(x=f"{rng.choice(XS)}-{n}")
    fact = rng.choice(FACTS).format(x=rng.choice(XS), y=rng.choice(YS))
    return f"{fact} (note {n})"


def _deep_recall(
    mem: Memory, added: dict[str, str], misses: list[dict[str, Any]], mode: SearchMode
) -> float:
    """Share of memories whose own text finds them (or the summary superseding them)."""
    found = 0
    for memory_id, text in added.items():
        hits = mem.search(text, user_id="u", k=10, deep=True, mode=mode)
        ids = {h.memory.id for h in hits}
        record = mem.get(memory_id)
        if memory_id in ids or (record.superseded_by is not None and record.superseded_by in ids):
            found += 1
        else:
            same = sum(1 for h in hits if h.memory.text == text)
            misses.append(
                {"text": text, "status": record.status.value, "tier": record.tier.value,
                 "hits_with_the_same_text": same, "top_hit": hits[0].memory.text if hits else None}
            )  # fmt: skip
    return found / max(1, len(added))


def main() -> None:
    p = parser(__doc__ or "", "bench_year.json")
    p.add_argument("--days", type=int, default=365)
    p.add_argument("--adds", type=int, default=30)
    p.add_argument("--searches", type=int, default=20)
    p.add_argument("--recall-sample", type=int, default=0, help="0: check every memory")
    args = p.parse_args()
    rng = random.Random(11)
    embedder = LocalEmbedder()
    months: list[dict[str, Any]] = []
    added: dict[str, str] = {}
    favourites: list[str] = []
    with tempfile.TemporaryDirectory() as folder:
        mem = Memory(Path(folder) / "year.db", embedder=embedder, consolidate="off")
        clock = {"now": START}
        mem.ctx.clock = lambda: clock["now"]
        tick_s: list[float] = []
        search_s: list[float] = []
        n = 0
        for day in range(args.days):
            clock["now"] = START + timedelta(days=day)
            items = []
            for _ in range(args.adds):
                kind = rng.choices(["event", "fact", "howto"], weights=[6, 3, 1])[0]
                items.append({"text": _text(kind, day, n, rng), "user_id": "u"})
                n += 1
            for stored in mem.add_many(items, consolidate=False):
                added[stored.memory.id] = stored.memory.text
            if day == 0:
                favourites = list(added)[:5]
            texts = list(added.values())
            for _ in range(args.searches):
                roll = rng.random()
                if roll < 0.15 and favourites:
                    query = added[rng.choice(favourites)]
                elif roll < 0.85:
                    query = rng.choice(texts[-14 * args.adds :])
                else:
                    query = rng.choice(texts)
                start = time.perf_counter()
                mem.search(query, user_id="u", k=5)
                search_s.append(time.perf_counter() - start)
            clock["now"] = START + timedelta(days=day, hours=15)
            start = time.perf_counter()
            mem.tick()
            tick_s.append(time.perf_counter() - start)
            if (day + 1) % 30 == 0 or day + 1 == args.days:
                everything = mem.list(user_id="u", status=None, limit=None)
                hot = sum(1 for m in everything if m.status is Status.ACTIVE and m.tier is Tier.HOT)
                months.append(
                    {
                        "day": day + 1,
                        "memories": len(everything),
                        "hot_active": hot,
                        "cold": sum(1 for m in everything if m.tier is Tier.COLD),
                        "superseded": sum(1 for m in everything if m.status is Status.SUPERSEDED),
                        "summaries": sum(1 for m in everything if m.consolidated_from),
                        "tick_median_s": round(statistics.median(tick_s), 3),
                        "search_median_ms": round(statistics.median(search_s) * 1000, 2),
                    }
                )
                print(months[-1], flush=True)
                tick_s, search_s = [], []
        sample = dict(added)
        if args.recall_sample:
            keys = rng.sample(list(added), min(args.recall_sample, len(added)))
            sample = {k: added[k] for k in keys}
        misses: list[dict[str, Any]] = []
        recall = _deep_recall(mem, sample, misses, "hybrid")
        vector_recall = _deep_recall(mem, sample, [], "vector")
        mem.close()
    result = {
        "machine": machine(),
        "days": args.days,
        "adds_per_day": args.adds,
        "searches_per_day": args.searches,
        "months": months,
        "deep_recall_checked": len(sample),
        "deep_recall_share": recall,
        "deep_recall_share_vector": vector_recall,
        "deep_recall_misses": misses,
        "deep_recall_misses_by_state": dict(
            Counter(f"{m['status']}/{m['tier']}" for m in misses).most_common()
        ),
    }
    print(f"deep recall: hybrid {recall:.4f}, vector {vector_recall:.4f} of {len(sample)}")
    print("hybrid misses by state:", result["deep_recall_misses_by_state"])
    for miss in misses[:10]:
        print("missed:", miss)
    write_json(args.out, result)


if __name__ == "__main__":
    main()
