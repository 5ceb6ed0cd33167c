"""The weekly report, in Markdown and HTML, with the right numbers."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from memfold import InvalidInput, Memory
from memfold.engine.feedback import feedback
from review.support import ScriptedJudge, fill_pairs, review_of


def test_report_numbers(open_mem: Callable[..., Memory], judge: ScriptedJudge) -> None:
    mem = open_mem(gate_min_pairs=10)
    ids = fill_pairs(mem, judge, [0.87] * 12)
    review = review_of(mem, judge)
    first = review.run()  # conservative band: 5 merges
    assert first.counts["merged"] == 5
    second = review.run()  # 7 DUPLICATE pairs left: under gate_min_pairs, no merge
    assert second.counts.get("merged", 0) == 0
    for _ in range(3):
        feedback(mem.ctx, ids[0][0], "miss")
    queued = len(mem.store.queue_items())
    dup = sum(1 for it in mem.store.queue_items() if it.label and it.label.value == "DUPLICATE")
    assert dup == 12

    md = review.report("7d", "md")
    assert f"| pairs queued | {queued} |" in md
    assert f"| pairs classified | {queued} |" in md
    assert "| classified DUPLICATE | 12 |" in md
    assert "| merged | 5 |" in md and "| held by the breaker | 0 |" in md
    assert "P90 trend: 0.870 -> 0.870" in md
    assert "3 feedback records of the 50 needed" in md and "cold start" in md
    assert "State: closed" in md
    llm = first.llm_calls + second.llm_calls
    assert f"{llm} LLM calls" in md and llm == judge.classify_calls + 5
    # a run that merged nothing says why, beside its status (seed 003: the first run)
    second_row = next(line for line in md.splitlines() if line.startswith(f"| {second.id} |"))
    (why,) = [r for g in second.counts["decisions"][-1]["gates"].values() for r in g["reasons"]]
    assert why in second_row and "10" in why
    assert re.search(
        r"\| 1 \| .* \| done \| [^|]+ \| 0\.870 \| conservative \| \d+ \| \d+ \| 5 \| 0 \|", md
    )

    html = review.report("7d", "html")
    assert html.startswith("<!doctype html>") and html.count("<svg") == 2
    assert '<td id="merged">5</td>' in html and '<span id="feedback">3</span>' in html
    assert "<polyline" in html and html.count("<rect") == 2  # one bar per run
    assert f'<span id="llm-calls">{llm}</span>' in html

    assert "| merged | 0 |" in review.report("2999-01-01", "md")
    with pytest.raises(InvalidInput):
        review.report("7d", "pdf")
    with pytest.raises(InvalidInput):
        review.report("last week", "md")
