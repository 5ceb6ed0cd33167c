"""LangGraph's time to live on memfold's own expiry (``MemoryRecord.expires_at``).

- A put with ``ttl`` (minutes; or the store's ``default_ttl``) stores the memory with
  ``expires_at = now + ttl``, so memfold's lifecycle tick marks it ``expired`` when
  the time comes, as it does any memory with a TTL.
- ``sweep_ttl()`` does what LangGraph's stores' sweep does, the memfold way: every
  LangGraph item whose expiry has passed is deleted as a LangGraph delete is (archived,
  logged with the reason, ``memfold undo`` brings it back); it returns how many.
  ``start_ttl_sweeper()`` runs it every ``sweep_interval_minutes`` in a thread.
- Until it is swept (or ticked), an expired item is still read, as LangGraph's stores
  read it, unless the TTL config says ``omit_expired``.
- ``refresh_on_read`` (off unless the TTL config says so, as in LangGraph's SQL
  stores) and a read's ``refresh_ttl``: a get or search that returns an item put with a
  TTL (kept in its metadata) pushes its expiry back to now + that TTL, in place
  (``Store.set_expiries``: no new version, no log row, as access counts are written).
"""

from __future__ import annotations

import concurrent.futures
import logging
import math
import threading
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from memfold.errors import InvalidInput
from memfold.model import MemoryRecord

log = logging.getLogger(__name__)


def expiry(now: datetime, ttl_minutes: Any) -> datetime | None:
    """When an item put now with this TTL (minutes; None: never) expires."""
    if ttl_minutes is None:
        return None
    if (
        isinstance(ttl_minutes, bool)
        or not isinstance(ttl_minutes, int | float)
        or not math.isfinite(ttl_minutes)
        or ttl_minutes < 0
    ):
        raise InvalidInput(f"ttl must be a number of minutes >= 0, got {ttl_minutes!r}")
    try:
        return now + timedelta(minutes=ttl_minutes)
    except OverflowError:
        raise InvalidInput(f"a ttl of {ttl_minutes!r} minutes ends after the year 9999") from None


def is_expired(record: MemoryRecord, now: datetime) -> bool:
    return record.expires_at is not None and record.expires_at <= now


class Sweeper:
    """A daemon thread calling ``sweep`` every interval until stopped (LangGraph's
    ``start_ttl_sweeper``/``stop_ttl_sweeper``)."""

    def __init__(self, sweep: Callable[[], int]) -> None:
        self._sweep = sweep
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, interval_minutes: float) -> concurrent.futures.Future[None]:
        future: concurrent.futures.Future[None] = concurrent.futures.Future()
        future.add_done_callback(lambda f: self._stop.set() if f.cancelled() else None)
        if self._thread is not None and self._thread.is_alive():
            return future  # one sweeper per store; cancelling this future stops it
        if not math.isfinite(interval_minutes) or interval_minutes <= 0:
            raise InvalidInput(f"sweep interval must be > 0 minutes, got {interval_minutes!r}")
        self._stop.clear()

        def loop() -> None:
            while not self._stop.wait(interval_minutes * 60):
                try:
                    self._sweep()
                except Exception:  # one failed sweep (a locked file): the next one retries
                    log.exception("LangGraph TTL sweep failed; retried in %s min", interval_minutes)
            if not future.done():
                future.set_result(None)

        self._thread = threading.Thread(target=loop, daemon=True, name="memfold-lg-ttl")
        self._thread.start()
        return future

    def stop(self, timeout: float | None = None) -> bool:
        thread = self._thread
        if thread is None or not thread.is_alive():
            return True
        self._stop.set()
        thread.join(timeout)
        if thread.is_alive():
            return False
        self._thread = None
        return True
