"""Lifecycle compression with a real LLM: does the summary keep every name, date, number?

    MEMFOLD_LLM_BASE_URL=http://127.0.0.1:18080/v1 MEMFOLD_LLM_MODEL=qwen2.5-coder-1.5b \
    MEMFOLD_LLM_API_KEY=x MEMFOLD_LLM__UTILITY__LOGPROBS=false \
    .venv/bin/python benchmarks/bench_compress.py [--clusters 20] [--out FILE]

Synthetic clusters made here (no evaluation data): each of ``--clusters`` themes gives
five episodic memories of one user, each with a date, a name (a place or a person) and
a number ("User took a yoga class at Studio Lotus on March 3, 2024 and paid $18"). They
are stored fading (a year old, never retrieved) with the default embedder, in one scope
per theme, and ``compress_fading`` runs on them with the LLM judge alone (no rule judge
behind it, so a failed call shows as a fallback). Reported: groups formed at the
default cosine 0.70, the share of LLM summaries that pass the result check, the
fallbacks and their reasons, seconds per group (the judge call, embedding and the
transaction), and summary length against the concatenation's.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench_common import machine, parser, table, write_json
from memfold import Memory
from memfold.config import Settings
from memfold.embed.local import LocalEmbedder
from memfold.engine.lifecycle.compress import compress_fading
from memfold.judge.base import TextResult
from memfold.judge.llm import LLMJudge
from memfold.model import MemoryRecord
from memfold.policy.summary_check import concatenation

# (template, names): {name}, {date} and {n} vary within a theme.
THEMES: list[tuple[str, list[str]]] = [
    (
        "User took a yoga class at {name} on {date} and paid ${n}",
        ["Studio Lotus", "Bend Yoga", "Om Space", "Sun Flow", "Core Haus"],
    ),
    (
        "User had dinner with {name} at an Italian restaurant on {date}; the bill was ${n}",
        ["Priya", "Marco", "Elena", "Tomasz", "Aiko"],
    ),
    (
        "User flew to {name} on {date}, flight {n}",
        ["Denver", "Boston", "Austin", "Chicago", "Portland"],
    ),
    (
        "User finished reading the novel {name} on {date}; the book had {n} pages",
        ["The Hobbit", "The Odyssey", "The Shining", "The Road", "The Stranger"],
    ),
    (
        "User ran {n} km along {name} on {date}",
        ["Green Lake", "Alki Beach", "Discovery Park", "Burke Gilman", "Seward Park"],
    ),
    (
        "User visited the dentist Dr. {name} on {date} and was charged ${n}",
        ["Alvarez", "Okafor", "Lindqvist", "Moreau", "Tanaka"],
    ),
    (
        "User bought groceries at {name} on {date} for ${n}",
        ["Safeway", "Trader Joe's", "Whole Foods", "Costco", "Aldi"],
    ),
    (
        "User watched a movie at {name} cinema on {date}, seat {n}",
        ["Regal", "Cinerama", "AMC", "Majestic", "Egyptian"],
    ),
    (
        "User met the recruiter {name} on {date} about a role paying ${n}k",
        ["Sarah Kim", "Raj Patel", "Lena Ortiz", "Tom Baker", "Mia Chen"],
    ),
    (
        "User played tennis with {name} on {date} and won {n} games",
        ["Oscar", "Nadia", "Felix", "Greta", "Hugo"],
    ),
    (
        "User made a charity donation of ${n} to the charity {name} on {date}",
        ["Oxfam", "Red Cross", "UNICEF", "Greenpeace", "Amnesty"],
    ),
    (
        "User attended a concert by {name} on {date}, ticket ${n}",
        ["Coldplay", "Adele", "Radiohead", "Beyonce", "Muse"],
    ),
    (
        "User paid the monthly internet bill of ${n} to {name} on {date}",
        ["Comcast", "Verizon", "PG&E", "Xfinity", "Spectrum"],
    ),
    (
        "User had a video call with {name} on {date} that lasted {n} minutes",
        ["Grandma Rose", "Uncle Ben", "Aunt Lucy", "Cousin Max", "Grandpa Joe"],
    ),
    (
        "User hiked the {name} trail on {date}, {n} miles",
        ["Wonderland", "Skyline", "Enchantments", "Tiger Mountain", "Lake Serene"],
    ),
    (
        "User ordered sushi from {name} on {date} for ${n}",
        ["Umi", "Kisaku", "Shiro's", "Maneki", "Wasabi"],
    ),
    (
        "User took a train ride on the {name} line on {date}; the train ticket cost ${n}",
        ["Amtrak Cascades", "Sounder", "Empire Builder", "Coast Starlight", "Acela"],
    ),
    (
        "User visited the {name} art museum on {date} and spent ${n} at the museum",
        ["Louvre", "Prado", "Uffizi", "Rijksmuseum", "Tate"],
    ),
    (
        "User swam {n} laps at {name} pool on {date}",
        ["Medgar Evers", "Queen Anne", "Ballard", "Rainier Beach", "Helene Madison"],
    ),
    (
        "User rented a car from {name} on {date} for {n} days",
        ["Hertz", "Avis", "Enterprise", "Budget", "Sixt"],
    ),
]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August"]


def cluster_texts(theme: int, rng: random.Random) -> list[str]:
    template, names = THEMES[theme % len(THEMES)]
    month = MONTHS[theme % len(MONTHS)]
    days = sorted(rng.sample(range(1, 29), 5))
    return [
        template.format(name=name, date=f"{month} {day}, 2024", n=rng.randint(2, 240))
        for name, day in zip(names, days, strict=True)
    ]


class Recording:
    """The LLM judge, keeping each summary it wrote (to report what failed and why)."""

    def __init__(self, judge: LLMJudge) -> None:
        self.judge = judge
        self.results: list[TextResult] = []

    @property
    def name(self) -> str:
        return self.judge.name

    def compress(self, memories: Sequence[MemoryRecord]) -> TextResult:
        result = self.judge.compress(memories)
        self.results.append(result)
        return result

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.judge, attr)


def _reason_kind(reason: str) -> str:
    for kind in ("drops number", "drops date", "drops name", "adds number", "adds date"):
        if kind in reason:
            return kind
    for kind in ("adds name", "content words", "swaps", "negation", "length", "no summary"):
        if kind in reason:
            return kind
    return "other"


def run(clusters: int, folder: Path) -> dict[str, Any]:
    settings = Settings()
    if not settings.llm.configured:
        raise SystemExit("set MEMFOLD_LLM_BASE_URL and MEMFOLD_LLM_MODEL (see the docstring)")
    rng = random.Random(11)
    embedder = LocalEmbedder()
    now = datetime(2025, 9, 1, tzinfo=UTC)
    rows: list[dict[str, Any]] = []
    with (
        Memory(folder / "compress.db", embedder=embedder, consolidate="off") as mem,
        LLMJudge(settings.llm) as llm,
    ):
        judge = Recording(llm)
        for theme in range(clusters):
            texts = cluster_texts(theme, rng)
            user = f"user{theme}"
            added = mem.add_many(
                [
                    {
                        "text": t,
                        "user_id": user,
                        "category": "episodic",
                        "created_at": now.replace(year=2024, month=1 + theme % 8, day=1 + n),
                    }
                    for n, t in enumerate(texts)
                ]
            )
            records = [mem.get(a.memory.id) for a in added]
            asked = len(judge.results)
            start = time.perf_counter()
            done = compress_fading(mem.ctx, judge, records, now)
            seconds = time.perf_counter() - start
            llm_text = judge.results[asked].text if len(judge.results) > asked else None
            row: dict[str, Any] = {"theme": theme, "grouped": bool(done), "seconds": seconds}
            if done:
                c = done[0]
                row.update(
                    applied=c.applied,
                    passed=c.fallback is None,
                    fallback=c.fallback,
                    llm_text=llm_text,
                    written=c.text,
                    summary_chars=len(llm_text or ""),
                    concat_chars=len(concatenation(texts) or ""),
                )
            rows.append(row)
            status = "-" if not done else ("pass" if row["passed"] else "FALLBACK")
            print(f"theme {theme:2d} {status:8s} {seconds:5.1f}s  {llm_text!r}", flush=True)
    return summarize(rows)


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    grouped = [r for r in rows if r["grouped"]]
    passed = [r for r in grouped if r["passed"]]
    kinds = Counter(_reason_kind(r["fallback"]) for r in grouped if not r["passed"])
    ratios = [r["summary_chars"] / r["concat_chars"] for r in passed if r["concat_chars"]]
    return {
        "clusters": len(rows),
        "groups_formed": len(grouped),
        "applied": sum(1 for r in grouped if r["applied"]),
        "llm_passed": len(passed),
        "fallbacks": len(grouped) - len(passed),
        "fallback_reasons": dict(kinds),
        "median_s_per_group": round(statistics.median(r["seconds"] for r in grouped), 2)
        if grouped
        else None,
        "median_summary_over_concat": round(statistics.median(ratios), 2) if ratios else None,
        "rows": rows,
    }


def main() -> None:
    p = parser("Lifecycle compression with a real LLM judge", "bench_compress.json")
    p.add_argument("--clusters", type=int, default=20)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        result = run(args.clusters, Path(tmp))
    grouped = result["groups_formed"]
    share = f"{result['llm_passed']}/{grouped}" if grouped else "-"
    table(
        "Compression of fading clusters, LLM judge (compression prompt)",
        [
            [
                f"{grouped}/{result['clusters']}",
                share,
                str(result["fallbacks"]),
                ", ".join(f"{k} {v}" for k, v in sorted(result["fallback_reasons"].items())) or "-",
                str(result["median_s_per_group"]),
                str(result["median_summary_over_concat"]),
            ]
        ],
        [
            "groups formed",
            "LLM summaries passing",
            "fallbacks",
            "fallback reasons",
            "median s / group",
            "summary / concatenation (chars, median)",
        ],
    )
    write_json(args.out, {"machine": machine(), **result})


if __name__ == "__main__":
    main()
