"""``memfold demo`` in a real terminal 80 columns wide (a pseudo-terminal, sized by the
kernel, not by COLUMNS): it fits, in a screen or two, and says what each save did."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _run_in_terminal(args: list[str], columns: int, tmp: Path) -> str:
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env.update(XDG_CONFIG_HOME=str(tmp / "config"), TERM="xterm")
    proc = subprocess.Popen(
        [sys.executable, "-m", "memfold.cli", *args],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env=env,
        cwd=tmp,
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # the terminal closed: the demo is done
            break
        if not data:
            break
        chunks.append(data)
    assert proc.wait(timeout=300) == 0
    os.close(leader)
    return _ANSI.sub("", b"".join(chunks).decode("utf-8")).replace("\r", "")


def test_the_demo_fits_an_80_column_terminal_in_a_screen_or_two(tmp_path: Path) -> None:
    out = _run_in_terminal(["demo"], 80, tmp_path)
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert len(lines) <= 100
    # Each save's decision in plain words, memories named by their place in the stream.
    assert "supersedes #3: 'moved'" in out  # "Sam moved to Berlin." / "Sam lives in Lyon."
    assert "same fact as #2: folded into it" in out
    assert "superseded by #13" in out and "DELETE" not in out
    assert 'search "Where does Sam live?"' in out and "undo of the last change" in out


def test_the_demo_in_json_keeps_the_actions_own_names(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "memfold.cli", "demo", "--json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")},
        timeout=300,
        check=True,
    )
    report = json.loads(done.stdout)
    moved = next(d for d in report["decisions"] if d["text"] == "Sam moved to Berlin.")
    assert moved["action"] == "DELETE" and moved["decision"] == "supersedes #3: 'moved'"
    assert report["undo"]["action"] == "DELETE"
