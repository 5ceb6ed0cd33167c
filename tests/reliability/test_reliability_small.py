"""The reliability suite at its small size (benchmarks/bench_reliability.py --small).

Each section runs for real (processes killed with SIGKILL, concurrent writer processes,
the LLM client against the scripted server, the CLI as a process) and the counts that
must be zero are asserted. The instrument is checked too: a section that measured
nothing (no kill, no decision applied) fails, so a zero can not be vacuous.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from memfold import Settings
from memfold.embed.local import LocalEmbedder

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from reliability.adversarial import run_adversarial  # noqa: E402
from reliability.bad_input import run_bad_input, summarize  # noqa: E402
from reliability.common import isolated_env  # noqa: E402
from reliability.concurrent import run_concurrent  # noqa: E402
from reliability.injection import run_injection  # noqa: E402
from reliability.kills import run_kills  # noqa: E402
from reliability.oracle import Limits, text_problems  # noqa: E402
from reliability.replies import KINDS  # noqa: E402
from reliability.run import Config  # noqa: E402

SMALL = Config.small_preset()


def test_oracle_flags_what_it_should() -> None:
    limits = Limits.from_settings(Settings())
    sources = ["Alice lives in Lyon with 3 cats.", "Alice lives in Lyon"]
    assert text_problems("Alice lives in Lyon with 3 cats.", sources, limits.max_text_chars) == []
    cases = {
        "It is not true that Alice lives in Lyon with 3 cats.": "negates a source",
        "Alice lives in Lyon with 4 cats.": "invented number",
        "Alice lives in Lyon with 3 cats and Zebulon.": "invented name",
        "Alice's wife lives in Lyon with 3 cats.": "relation word",
        "Alice lives in Lyon.": "drops number",
        "Alice lives in Lyon with 3 cats \ud800": "lone surrogate",
        "Alice lives in Lyon with 3 cats \x07": "control character",
        "   ": "empty text",
    }
    for written, expected in cases.items():
        found = text_problems(written, sources, limits.max_text_chars)
        assert any(expected in p for p in found), (written, found)
    huge = "Alice lives in Lyon with 3 cats" + " more" * limits.max_text_chars
    assert any("over" in p for p in text_problems(huge, sources, limits.max_text_chars))


def test_sigkill_loses_nothing(tmp_path: Path, embedder: LocalEmbedder) -> None:
    with isolated_env(tmp_path):
        result = run_kills(
            tmp_path / "kills",
            embedder,
            kills_per_mode=SMALL.kills_per_mode,
            max_delay_s=SMALL.max_delay_s,
            seed=SMALL.seed,
        )
    totals = result.totals()
    assert set(result.by_mode()) == {"background", "sync", "queue"}
    assert totals["kills"] >= 3 and totals["acked"] > 0
    assert totals["lost"] == 0
    assert totals["integrity_errors"] == 0
    assert totals["undo_failures"] == 0
    assert totals["not_restored"] == 0
    assert totals["reopen_errors"] == 0
    # A worker killed mid-batch leaves its jobs 'running'; reopening finds its process
    # gone and reclaims them, so reopen + flush() finishes every job.
    assert totals["unfinished_jobs"] == 0


def test_concurrent_writers(tmp_path: Path, embedder: LocalEmbedder) -> None:
    with isolated_env(tmp_path):
        result = run_concurrent(
            tmp_path, embedder, processes=SMALL.processes, adds=SMALL.adds, seed=SMALL.seed
        )
    assert result.acked == SMALL.processes * SMALL.adds
    assert result.applied > 0  # the writers' saves were really consolidated
    assert result.lost == 0
    assert result.errors == 0 and result.bad_exits == 0
    assert result.superseded_twice == 0
    assert result.unfinished_jobs == 0
    assert result.integrity_errors == 0
    # A sync add() stores its job already claimed, so no other process's worker can
    # apply the same save too.
    assert result.double_applies == 0


def test_adversarial_judge(tmp_path: Path, embedder: LocalEmbedder) -> None:
    with isolated_env(tmp_path):
        result = run_adversarial(tmp_path, embedder, decisions=SMALL.decisions, seed=SMALL.seed)
    assert result.decisions >= SMALL.decisions
    assert result.kinds == len(KINDS) >= 20
    assert result.escaped == 0
    assert result.over_limit_stored == 0
    assert result.violations == 0, result.examples
    assert result.bad_chars_stored == 0


@pytest.mark.parametrize("judge", ["obeying", "rules"])
def test_injected_instructions(tmp_path: Path, embedder: LocalEmbedder, judge: str) -> None:
    with isolated_env(tmp_path):
        run = run_injection(
            tmp_path, embedder, attempts=SMALL.injections, seed=SMALL.seed, judge=judge
        )
    assert run.attempts == SMALL.injections
    assert run.escaped == 0
    if judge == "obeying":
        assert sum(run.proposals.values()) > 0  # the judge really obeyed
        assert run.destructive == 0, run.examples
        assert run.superseded_by_carrier == 0
        assert run.planted == 0, run.examples
    else:
        assert run.planted == 0, run.examples
        assert run.destructive == 0, run.examples
        assert run.superseded_by_carrier == 0


def test_bad_input(tmp_path: Path, embedder: LocalEmbedder) -> None:
    with isolated_env(tmp_path):
        cases = run_bad_input(tmp_path, embedder, cli=True, small=True)
    s = summarize(cases)
    assert s["api_cases"] >= 15 and s["cli_cases"] >= 4 and s["rest_cases"] >= 3
    accepted = [c.name for c in cases if c.accepted]
    assert accepted == []
    assert s["api_wrong_error"] == 0
    assert s["rest_5xx"] == 0 and s["rest_scope_broken"] == 0
    assert all(c.http_status == 422 for c in cases if c.surface == "rest"), cases
    assert s["cli_tracebacks"] == 0
    assert all(c.exit_code == 2 for c in cases if c.surface == "cli")
    assert s["cli_not_one_error_line"] == 0, [c.detail for c in cases if not c.one_error_line]
