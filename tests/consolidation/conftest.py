"""Consolidation tests run on both backends: ``db_path`` names the test's store, a SQLite
file or, for ``backend == "postgres"``, a PostgreSQL URL (``Memory`` opens either)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def db_path(request: pytest.FixtureRequest, backend: str, tmp_path: Path) -> Path | str:
    if backend == "postgres":
        return str(request.getfixturevalue("pg_url"))
    return tmp_path / "memfold.db"
