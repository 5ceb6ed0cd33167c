"""Report fixtures."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memfold import Memory
from memfold.embed.local import LocalEmbedder
from memfold.model import ReviewRun, utcnow
from report.support import RUNS


@pytest.fixture
def report_mem(tmp_path: Path, embedder: LocalEmbedder) -> Iterator[Memory]:
    """A real store with the finished review runs of ``RUNS``."""
    with Memory(tmp_path / "report.db", embedder=embedder, consolidate="off") as mem:
        cfg = mem.settings.review
        assert 0.75 <= cfg.gate_floor <= cfg.gate_high <= 0.95  # inside the expected ticks
        for p90, merged in RUNS:
            run_id = mem.store.start_review_run(None)
            mem.store.finish_review_run(
                ReviewRun(
                    id=run_id,
                    scope_key=None,
                    started_at=utcnow(),
                    finished_at=None,
                    status="done",
                    p90=p90,
                    counts={"merged": merged},
                )
            )
        yield mem
