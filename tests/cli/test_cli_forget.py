"""`memfold forget`: hard erasure, confirmed on a terminal, refused without one unless --yes."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

from cli.support import Cli

MEMFOLD = str(Path(sys.executable).parent / "memfold")


def file_bytes(db: str) -> bytes:
    return b"".join(Path(db + s).read_bytes() for s in ("", "-wal") if Path(db + s).exists())


def test_without_a_terminal_forget_needs_yes(cli: Cli, store: dict[str, str]) -> None:
    p = store["path"]
    result = cli("forget", store["sam"], "-p", p)
    assert result.code == 2 and len(result.err_lines) == 1
    assert result.err_lines[0].startswith("error: forget would erase 1 memory (memory ")
    assert result.err_lines[0].endswith("no terminal to confirm on: pass --yes")
    assert cli("get", store["sam"], "-p", p).code == 0  # nothing erased


def test_forget_yes_erases_one_memory_for_good(cli: Cli, store: dict[str, str]) -> None:
    p = store["path"]
    result = cli("forget", store["sam"], "-p", p, "--yes", "--json")
    assert result.code == 0, result.err
    report = json.loads(result.out)
    assert report["erased"] == [store["sam"]] and report["log_id"] is not None
    gone = cli("get", store["sam"], "-p", p)
    assert gone.code == 2 and len(gone.err_lines) == 1
    assert gone.err_lines[0].startswith(f"error: memory {store['sam']} was erased (")
    assert b"senior] nurse" not in file_bytes(p)
    again = cli("forget", store["sam"], "-p", p, "--yes")
    assert again.code == 2 and "was erased" in again.err_lines[0]
    assert cli("get", store["tea"], "-p", p).code == 0  # the rest stays


def test_forget_a_scope(cli: Cli, store: dict[str, str]) -> None:
    p = store["path"]
    result = cli("forget", "-p", p, "--user", "sam", "--yes", "--vacuum")
    assert result.code == 0, result.err
    assert result.out.startswith("erased 2 memories")
    listed = cli("list", "-p", p, "-u", "sam", "--status", "all", "--json")
    assert json.loads(listed.out) == []
    ana = cli("list", "-p", p, "-u", "ana", "--status", "all", "--json")
    assert [m["id"] for m in json.loads(ana.out)] == [store["ana"]]


def answer(args: list[str], reply: bytes) -> tuple[int, str]:
    """Run memfold with stdin and stderr on a pseudo-terminal; type ``reply`` at the prompt."""
    master, slave = pty.openpty()
    env = {**os.environ, "NO_COLOR": "1", "TERM": "dumb", "COLUMNS": "80"}
    proc = subprocess.Popen(
        [MEMFOLD, *args], stdin=slave, stderr=slave, stdout=subprocess.PIPE, env=env
    )
    os.close(slave)
    seen = b""
    while b"[y/N]" not in seen:
        ready, _, _ = select.select([master], [], [], 60)
        assert ready, seen
        seen += os.read(master, 4096)
    os.write(master, reply)
    code = proc.wait(timeout=60)
    try:
        while select.select([master], [], [], 0.2)[0]:
            seen += os.read(master, 4096)
    except OSError:  # the terminal closed with the process
        pass
    os.close(master)
    return code, seen.decode("utf-8", "replace")


def test_on_a_terminal_forget_shows_what_goes_and_asks(cli: Cli, store: dict[str, str]) -> None:
    p = store["path"]
    code, shown = answer(["forget", "-p", p, "--user", "sam"], b"n\n")
    assert code == 1 and "nothing erased" in shown
    assert "forget every memory of user 'sam': erased for good, not undoable" in shown
    assert "erased: 2" in shown and store["sam"][:8] in shown and "green tea" in shown
    assert "Erase 2 memories for good? [y/N]" in shown
    assert len(json.loads(cli("list", "-p", p, "-u", "sam", "--json").out)) == 2
    code, shown = answer(["forget", store["tea"], "-p", p], b"y\n")
    assert code == 0, shown
    assert cli("get", store["tea"], "-p", p).code == 2
