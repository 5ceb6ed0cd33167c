"""Where a result comes from: the command that made it and the code it ran.

Every JSON result of ``memfold eval`` and of ``benchmarks/*.py`` carries this, so the
benchmarks page can say of each figure how to make it again
(scripts/render_benchmarks.py).
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

_GIT_TIMEOUT_S = 5


def provenance(program: str | None = None) -> dict[str, Any]:
    """``command``: this process's command line, its program shown as ``program`` (default
    ``python SCRIPT``); ``commit``: the checkout's short commit, ``+dirty`` when tracked
    files differ from it, None outside a git checkout."""
    shown = program.split() if program else ["python", Path(sys.argv[0]).as_posix()]
    return {"command": shlex.join([*shown, *sys.argv[1:]]), "commit": _commit()}


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", *args],
            capture_output=True,
            text=True,
            timeout=_GIT_TIMEOUT_S,
            cwd=Path(__file__).resolve().parent,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def _commit() -> str | None:
    head = _git("rev-parse", "--short", "HEAD")
    if not head:
        return None
    dirty = _git("status", "--porcelain", "--untracked-files=no")
    return f"{head}+dirty" if dirty else head
