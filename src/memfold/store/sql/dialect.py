"""How one database spells what the shared SQL needs (pure: no I/O, no driver).

Shared statements are written once with SQLite's ``?`` parameters; ``Dialect.sql``
turns them into the driver's. The rest are the differences that show in the SQL or
in its parameters: a list parameter, times and JSON as stored, an unlimited LIMIT,
the larger of two values, a UTC day of a time column, ordering by code point.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any, ClassVar, TypeVar

T = TypeVar("T")


class Dialect(ABC):
    """One database's spellings (see the module docstring)."""

    # LIMIT's parameter for "no limit".
    no_limit: ClassVar[object]
    # A time parameter no stored time is before ("since the beginning").
    earliest: ClassVar[object]
    # The function giving the larger of two values (not the aggregate).
    greatest: ClassVar[str]
    # Appended to an INSERT so that the backend's ``_w`` returns the new row's id.
    returning_id: ClassVar[str]
    # The most values one ``any_of`` should carry where a caller splits a long list
    # (None: any number).
    list_chunk: ClassVar[int | None]

    @abstractmethod
    def sql(self, text: str) -> str:
        """``text`` with its ``?`` parameters in the driver's style."""

    @abstractmethod
    def any_of(self, column: str, values: Sequence[Any]) -> tuple[str, list[Any]]:
        """A condition true when ``column`` equals one of ``values`` (``?`` style), and
        the parameters it takes. ``values`` must not be empty."""

    @abstractmethod
    def time(self, when: datetime | None) -> Any:
        """A time as the parameter a time column takes (None stays None)."""

    @abstractmethod
    def json(self, value: Any) -> Any:
        """A JSON value as the parameter a JSON column takes."""

    @abstractmethod
    def from_json(self, stored: Any) -> Any:
        """A JSON column's value as read back, as Python values (None stays None)."""

    @abstractmethod
    def by_code_point(self, column: str) -> str:
        """``column`` compared and sorted by code point, whatever the collation."""

    @abstractmethod
    def utc_day(self, column: str) -> str:
        """The ``YYYY-MM-DD`` text of a time column, in UTC."""

    def chunks(self, values: Sequence[T]) -> Iterator[list[T]]:
        """``values`` in lists of at most ``list_chunk`` (one list when unbounded)."""
        size = self.list_chunk or max(len(values), 1)
        for start in range(0, len(values), size):
            yield list(values[start : start + size])
