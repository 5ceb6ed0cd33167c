"""Copied next to LangGraph's store tests by scripts/langgraph_suite.sh: every test module
that builds its stores as ``InMemoryStore``/``SqliteStore``/``AsyncSqliteStore`` gets
memfold stand-ins under those names, for one test at a time (see memfold_shim)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests import memfold_shim as shim


@pytest.fixture(autouse=True)
def memfold_stores(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[None]:
    session = shim.begin(tmp_path, request.node.nodeid)
    for name in shim.REPLACED:
        if hasattr(request.module, name):
            monkeypatch.setattr(request.module, name, shim.STANDINS[name])
    try:
        yield
    finally:
        session.close()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    reports = [
        r
        for key in ("passed", "failed", "error")
        for r in terminalreporter.stats.get(key, [])
        if getattr(r, "when", "call") == "call" or key == "error"
    ]
    ran = sorted({r.nodeid for r in reports})
    idle = [n for n in ran if n not in shim.BUILT]
    terminalreporter.write_line(
        f"memfold stores built in {len(ran) - len(idle)} of {len(ran)} tests; "
        f"{len(idle)} never built one (they test LangGraph's own code):"
    )
    for nodeid in idle:
        outcome = next(r.outcome for r in reports if r.nodeid == nodeid)
        terminalreporter.write_line(f"  {outcome:7} {nodeid}")
