"""Which backend a ``Memory`` opens: a SQLite file, or PostgreSQL by URL.

An explicit argument wins over settings: ``Memory(path)`` is SQLite, ``Memory(url=...)``
(or a ``postgresql://`` string given as the path) is PostgreSQL; with neither, the
settings decide (``store.url`` / ``MEMFOLD_URL``, else ``store.path`` / ``MEMFOLD_PATH``,
else the default file). Both at once is refused: one Memory never mixes backends.
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from memfold.config import Settings
from memfold.errors import ConfigError, InvalidInput, MissingExtra

log = logging.getLogger(__name__)

if TYPE_CHECKING:  # the PostgreSQL driver is imported only when a url is opened
    from memfold.store.postgres import PostgresStore
    from memfold.store.sqlite import SQLiteStore

# What a Memory holds: either backend (both implement Store and ErasureStore).
BackendStore: TypeAlias = "SQLiteStore | PostgresStore"

_SCHEMES = ("postgresql://", "postgres://")


def is_postgres_url(value: object) -> bool:
    return isinstance(value, str) and value.lower().startswith(_SCHEMES)


def postgres_url(path: str | Path | None, url: str | None, settings: Settings) -> str | None:
    """The PostgreSQL URL to open, or None for a SQLite file (see the module docstring)."""
    if url is not None and path is not None:
        raise InvalidInput("give a SQLite path or a PostgreSQL url, not both")
    if url is None and is_postgres_url(path):
        url = str(path)
    if url is None and path is None:
        if settings.store.url and settings.store.path:
            raise ConfigError(
                "store.url and store.path are both set (MEMFOLD_URL, MEMFOLD_PATH): "
                "one Memory uses one backend; unset one"
            )
        url = settings.store.url
    if url is None:
        return None
    if not is_postgres_url(url):
        raise InvalidInput(f"a store url must start with postgresql:// (got {url[:20]!r}...)")
    return url


def open_postgres(url: str, settings: Settings, *, read_only: bool = False) -> PostgresStore:
    """A ``PostgresStore``; ``MissingExtra`` without ``memfold[postgres]``. ``read_only``:
    no migration, every write refused with ReadOnlyStore."""
    try:
        from memfold.store.postgres import PostgresStore
    except ImportError as exc:
        raise MissingExtra("postgres", "a PostgreSQL store", exc.name or "psycopg") from None
    return PostgresStore(
        url,
        pool_max_size=settings.store.pool_max_size,
        connect_timeout_s=settings.store.connect_timeout_s,
        lock_timeout_ms=settings.store.busy_timeout_ms,
        read_only=read_only,
        keyword_scan_max_docs=settings.search.keyword_scan_max_docs,
        keyword_df_refresh_share=settings.search.keyword_df_refresh_share,
    )


def file_read_only(path: Path, asked: bool | None) -> bool:
    """Whether to open the SQLite file at ``path`` read-only: ``asked`` unless None;
    then whether the file exists without write permission (for this user, or for
    anyone: root may write a 0444 file, but it is meant read-only)."""
    if asked is not None:
        return bool(asked)
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    if not stat.S_ISREG(mode):
        return False
    unwritable = not os.access(path, os.W_OK) or not stat.S_IMODE(mode) & 0o222
    if unwritable:
        log.info("%s has no write permission: opened read-only", path)
    return unwritable
