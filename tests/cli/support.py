"""Types shared by the CLI tests."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class Result:
    code: int
    out: str
    err: str

    @property
    def err_lines(self) -> list[str]:
        return [line for line in self.err.splitlines() if line.strip()]


Cli = Callable[..., Result]
