"""Time to live on save: ``add(..., expires_at=...)``, ``ttl=`` or the area's default.

The tick (engine/lifecycle/tick.py) marks a memory whose ``expires_at`` has come
``expired``; nothing is deleted. A memory saved with ``expires_at`` already past is
stored expired at once, and ``AddResult.warnings`` says so.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from memfold.config import LifecycleSettings
from memfold.errors import InvalidInput
from memfold.model import Area, MemoryRecord, Status, parse_time, utcnow


def clean_expiry(
    expires_at: object, ttl: object, area: Area, cfg: LifecycleSettings
) -> tuple[datetime | None, timedelta | None]:
    """(an absolute expiry, or a time to live counted from the memory's creation): the
    caller's ``expires_at`` (a datetime or ISO text) or ``ttl`` (a timedelta or seconds,
    >= 0), else the area's ``lifecycle.ttl_by_area`` default, else neither."""
    if expires_at is not None and ttl is not None:
        raise InvalidInput("give expires_at or ttl, not both")
    if expires_at is not None:
        try:
            when = parse_time(expires_at)
        except (TypeError, ValueError):
            raise InvalidInput(f"expires_at is not a date/time: {expires_at!r}") from None
        return when, None
    if ttl is not None:
        return None, _ttl(ttl)
    default = cfg.ttl_by_area.get(area.value)
    return None, None if default is None else timedelta(seconds=default)


# The longest timedelta Python holds; a ttl past it is refused, not an OverflowError.
_MAX_TTL_S = timedelta.max.total_seconds()


def _ttl(value: object) -> timedelta:
    if isinstance(value, timedelta):
        seconds = value.total_seconds()
    elif isinstance(value, int | float) and not isinstance(value, bool):
        try:
            seconds = float(value)
        except OverflowError:  # an int past a float's range
            seconds = math.inf
    else:
        raise InvalidInput(f"ttl must be a timedelta or a number of seconds, got {value!r}")
    if not math.isfinite(seconds) or not 0 <= seconds <= _MAX_TTL_S:
        raise InvalidInput(
            f"ttl must be a finite number of seconds between 0 and {_MAX_TTL_S:.0f}, got {value!r}"
        )
    return timedelta(seconds=seconds)


def check_expiry_fits(created_at: datetime | None, ttl: timedelta) -> None:
    """InvalidInput when the memory's creation (None: now) plus ``ttl`` is past the last
    date Python holds (9999-12-31): ``ttl=1e12`` is 31,700 years."""
    try:
        (created_at or utcnow()) + ttl
    except OverflowError:
        raise InvalidInput(
            f"ttl {ttl.total_seconds():.0f} s from {'created_at' if created_at else 'now'} "
            "ends after the year 9999"
        ) from None


def expired_warning(expires_at: datetime) -> str:
    """The warning of a memory saved with an expiry already past."""
    return f"expires_at {expires_at.isoformat()} is already past: stored as expired"


def add_warnings(record: MemoryRecord) -> list[str]:
    """What ``AddResult.warnings`` says about how ``record`` was stored."""
    if record.status is Status.EXPIRED and record.expires_at is not None:
        return [expired_warning(record.expires_at)]
    return []
