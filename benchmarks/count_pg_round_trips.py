"""PostgreSQL round trips per save: one in-process ``flush()`` of bench_pg_workers' saves.

    .venv/bin/python benchmarks/count_pg_round_trips.py [--judge rules|llm|both]
        [--saves 600] [--llm-saves 320] [--top 25] [--sites] [--out FILE]

The saves (``bench_pg_workers.saves``: restatements of N / 4 facts, vectors precomputed)
are queued in a fresh schema of the tests' pgserver, then drained by one ``flush()`` in
this process while psycopg's cursor ``execute`` and ``executemany`` are counted (one
round trip each; an ``executemany`` runs in one pipeline; a connection's ``execute``
goes through a cursor's, so it is counted once) plus 2 for each transaction (its BEGIN
and its COMMIT). Sitting C's count (docs/benchmarks.md, Workers) also wrapped the
connection's ``execute``, so it counted each statement sent that way twice.

Two judges, as in ``bench_pg_workers``: the rule judge, and the LLM judge alone (rules
first off, ``batch_size`` saves a call) against the scripted OpenAI-compatible server
answering at once (0 ms). ``--sites`` also counts where in memfold (outside the store)
each statement was sent from.
"""

from __future__ import annotations

import re
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from bench_common import parser, write_json
from bench_pg_workers import responder, saves
from helpers.postgres import running_server
from memfold import Memory, Settings
from memfold.embed.local import LocalEmbedder
from memfold.testing.fake_llm import FakeLLMServer

_TX = "BEGIN + COMMIT"


class RoundTrips:
    """Counts the statements psycopg sends while ``counting()`` is open, by statement
    (whitespace folded, cut to 90 characters) and, with ``sites``, by caller."""

    def __init__(self, *, sites: bool = False) -> None:
        self.by_statement: Counter[str] = Counter()
        self.by_site: Counter[str] = Counter()
        self._sites = sites
        self._on = False

    def total(self) -> int:
        return sum(self.by_statement.values())

    def _count(self, query: object) -> None:
        if not self._on:
            return
        text = re.sub(r"\s+", " ", str(query))[:90]
        self.by_statement[text] += 1
        if self._sites:
            frames = [
                f
                for f in traceback.extract_stack()[:-3]
                if "/memfold/" in f.filename and "/store/" not in f.filename
            ]
            where = " < ".join(f"{Path(f.filename).stem}:{f.name}" for f in frames[-3:][::-1])
            self.by_site[f"{text[:30]} @ {where}"] += 1

    @contextmanager
    def counting(self) -> Iterator[None]:
        """Wrap psycopg's execute, executemany and transactions; put them back after."""
        patched: list[tuple[type[Any], str, Callable[..., Any]]] = []
        for cls, name in [(psycopg.Cursor, "execute"), (psycopg.Cursor, "executemany")]:
            patched.append((cls, name, getattr(cls, name)))
            setattr(cls, name, self._wrap(getattr(cls, name)))
        enter = psycopg.Transaction.__enter__
        patched.append((psycopg.Transaction, "__enter__", enter))

        def entered(tx: psycopg.Transaction) -> psycopg.Transaction:
            if self._on:
                self.by_statement[_TX] += 2
            return enter(tx)

        setattr(psycopg.Transaction, "__enter__", entered)  # noqa: B010 - a method, patched
        self._on = True
        try:
            yield
        finally:
            self._on = False
            for cls, name, original in patched:
                setattr(cls, name, original)

    def _wrap(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def counted(conn_or_cur: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
            self._count(query)
            return original(conn_or_cur, query, *args, **kwargs)

        return counted


def count(judge: str, n: int, embedder: LocalEmbedder, url: str, sites: bool) -> dict[str, Any]:
    """Queue ``n`` saves in the store at ``url`` and count one flush's round trips."""
    texts = saves(n)
    vectors = embedder.embed(texts)
    server = FakeLLMServer(responder(0.0)).start() if judge == "llm" else None
    settings = (
        Settings()
        if server is None
        else Settings(
            llm={
                "base_url": server.base_url,
                "model": "fake-model",
                "api_key": "x",
                "rules_first_confidence": None,
            }
        )
    )
    trips = RoundTrips(sites=sites)
    try:
        with Memory(url=url, embedder=embedder, consolidate="queue", settings=settings) as mem:
            mem.add_many([{"text": t, "user_id": "bench"} for t in texts], embeddings=vectors)
            started, cpu = time.perf_counter(), time.process_time()
            with trips.counting():
                flushed = mem.flush()
            wall, cpu = time.perf_counter() - started, time.process_time() - cpu
            actions = Counter(e.action for e in mem.log(1_000_000) if e.path == "on_save")
    finally:
        calls = server.request_count() if server is not None else 0
        if server is not None:
            server.stop()
    total = trips.total()
    return {
        "judge": judge,
        "saves": len(texts),
        "flushed": flushed,
        "llm_calls": calls,
        "round_trips": total,
        "per_save": round(total / len(texts), 2),
        "flush_s": round(wall, 2),
        "flush_cpu_s": round(cpu, 2),
        "actions": dict(actions),
        "by_statement": {q: round(c / len(texts), 2) for q, c in trips.by_statement.most_common()},
        "by_site": {q: round(c / len(texts), 2) for q, c in trips.by_site.most_common()},
    }


def main() -> None:
    p = parser(__doc__ or "", "count_pg_round_trips.json")
    p.add_argument("--judge", choices=["rules", "llm", "both"], default="both")
    p.add_argument("--saves", type=int, default=600, help="saves queued, rule judge")
    p.add_argument("--llm-saves", type=int, default=320, help="saves queued, LLM judge")
    p.add_argument("--top", type=int, default=25, help="statements (and sites) printed")
    p.add_argument("--sites", action="store_true", help="also count the callers")
    args = p.parse_args()
    judges = ["rules", "llm"] if args.judge == "both" else [args.judge]
    embedder = LocalEmbedder()
    results: dict[str, Any] = {}
    with running_server() as pg:
        for judge in judges:
            n = args.saves if judge == "rules" else args.llm_saves
            run = count(judge, n, embedder, pg.fresh_url("trips"), args.sites)
            results[judge] = run
            print(
                f"{judge}: {run['saves']} saves, {run['llm_calls']} LLM calls, "
                f"{run['round_trips']} round trips, {run['per_save']} a save "
                f"(flush {run['flush_s']} s, CPU {run['flush_cpu_s']} s) {run['actions']}"
            )
            for table in ("by_statement", "by_site"):
                for query, per_save in list(run[table].items())[: args.top]:
                    print(f"  {per_save:6.2f}  {query}")
    write_json(args.out, results)


if __name__ == "__main__":
    main()
