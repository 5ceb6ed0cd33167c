"""The store contract suite runs each test on every backend: SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memfold.store.base import Store
from memfold.store.postgres import PostgresStore
from memfold.store.sqlite import SQLiteStore

BACKENDS = ["sqlite", "postgres"]


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    opened: Store
    if request.param == "sqlite":
        opened = SQLiteStore(tmp_path / "contract.db")
    else:
        opened = PostgresStore(request.getfixturevalue("pg_url"))
    yield opened
    opened.close()
