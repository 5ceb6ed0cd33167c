"""A real PostgreSQL 16 with pgvector for the tests, started by PyPI's ``pgserver``.

One server per test session in a temporary folder (run as root, pgserver starts it
as its own system user ``pgserver`` and opens the folder's parents to it); each test
gets a fresh schema, named in the URL's ``search_path``, so tests never see each
other's tables. ``pgserver`` is in the dev extra: when it is missing the fixtures
fail, they never skip.
"""

from __future__ import annotations

import itertools
import shutil
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

# The backends the shared Memory fixtures (tests/conftest.py) run every test on.
BACKENDS = ["sqlite", "postgres"]
_names = itertools.count(1)


class PgServer:
    def __init__(self, base_url: str, folder: Path, handle: object) -> None:
        self.base_url = base_url
        self.folder = folder
        self.handle = handle

    def fresh_url(self, prefix: str = "t") -> str:
        """The URL of a new, empty schema (pgvector's type stays in ``public``)."""
        import psycopg

        name = f"{prefix}_{next(_names)}"
        with psycopg.connect(self.base_url, autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {name}")
        return with_schema(self.base_url, name)


def with_schema(url: str, schema: str) -> str:
    options = quote(f"-csearch_path={schema},public", safe="")
    return f"{url}{'&' if '?' in url else '?'}options={options}"


@contextmanager
def running_server() -> Iterator[PgServer]:
    with warnings.catch_warnings():  # platformdirs: XDG_RUNTIME_DIR unset in CI
        warnings.simplefilter("ignore")
        import pgserver

    folder = Path(tempfile.mkdtemp(prefix="memfold-pg-"))
    server = pgserver.get_server(folder / "data", cleanup_mode="stop")  # type: ignore[attr-defined]
    try:
        url = server.get_uri()
        import psycopg

        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector SCHEMA public")
        yield PgServer(url, folder, server)
    finally:
        server.cleanup()
        shutil.rmtree(folder, ignore_errors=True)
