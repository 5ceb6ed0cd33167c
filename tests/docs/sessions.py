"""The two sessions a reader of a page has open: a shell and a Python interpreter.

A page's examples run in page order: shell blocks in one ``bash`` session (variables
exported, servers started with ``&`` stay up for the next blocks), Python blocks in one
interpreter (tests/docs/run_blocks.py) that sees the shell's environment as it is at
that point. Both are stopped, with anything they started, when the page is done.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import uuid
from pathlib import Path
from typing import IO, Any

RUNNER = Path(__file__).with_name("run_blocks.py")
_FAILED = "__docs_command_failed__"


class Failed(Exception):
    """An example failed: the message says how."""


def _pump(stream: IO[str], lines: queue.Queue[str | None]) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)


class Sessions:
    def __init__(self, folder: Path, env: dict[str, str], timeout_s: float) -> None:
        self.timeout_s = timeout_s
        self._stderr = (folder / "shell-stderr.txt").open("w+", encoding="utf-8")
        self.shell = subprocess.Popen(
            ["bash", "--noprofile", "--norc"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
            cwd=folder,
            env=env,
            start_new_session=True,
        )
        self.python = subprocess.Popen(
            [sys.executable, str(RUNNER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=folder,
            env=env,
            start_new_session=True,
        )
        self._shell_lines: queue.Queue[str | None] = queue.Queue()
        self._python_lines: queue.Queue[str | None] = queue.Queue()
        for stream, lines in (
            (self.shell.stdout, self._shell_lines),
            (self.python.stdout, self._python_lines),
        ):
            assert stream is not None
            threading.Thread(target=_pump, args=(stream, lines), daemon=True).start()
        # A failing command anywhere in a block fails it (not only its last command), and
        # the session goes on, so the failure is reported rather than the shell dying.
        # Each mark goes on a line of its own: a server started with & may have left a
        # line unfinished.
        self._send(self.shell, f"set -o pipefail; trap 'printf \"\\n{_FAILED} %d\\n\" $?' ERR\n")

    def _send(self, process: subprocess.Popen[str], text: str) -> None:
        assert process.stdin is not None
        process.stdin.write(text)
        process.stdin.flush()

    def _line(self, lines: queue.Queue[str | None], what: str) -> str:
        try:
            line = lines.get(timeout=self.timeout_s)
        except queue.Empty:
            raise Failed(f"{what} gave no answer in {self.timeout_s:.0f} s") from None
        if line is None:
            raise Failed(f"{what} ended:\n{self._shell_errors()}")
        return line

    def _shell_errors(self) -> str:
        self._stderr.seek(0)
        return self._stderr.read()[-3000:]

    def run_shell(self, code: str) -> str:
        """The block's output; ``Failed`` when a command of it fails."""
        marker = f"__docs_done_{uuid.uuid4().hex}"
        self._send(self.shell, f"{code}\nprintf '\\n{marker} %d\\n' $?\n")
        out: list[str] = []
        failed = False
        while True:
            line = self._line(self._shell_lines, "the shell")
            if line.startswith(_FAILED):
                failed = True
            elif line.startswith(marker):
                if failed or int(line.split()[1]) != 0:
                    raise Failed(f"a command failed:\n{''.join(out)}\n{self._shell_errors()}")
                return "".join(out)
            else:
                out.append(line)

    def shell_env(self) -> dict[str, str]:
        listing = self.run_shell("env -0 | base64 -w0; echo")
        pairs = base64.b64decode(listing.strip()).split(b"\0")
        env = {}
        for pair in pairs:
            if b"=" in pair:
                key, _, value = pair.decode("utf-8", "replace").partition("=")
                env[key] = value
        return env

    def run_python(self, code: str) -> str:
        """The block's output; ``Failed`` with the traceback when it raises."""
        self._send(self.python, json.dumps({"code": code, "env": self.shell_env()}) + "\n")
        result: dict[str, Any] = json.loads(self._line(self._python_lines, "python"))
        if result["error"] is not None:
            raise Failed(f"raised:\n{result['error']}")
        return str(result["stdout"])

    def close(self) -> None:
        for process in (self.shell, self.python):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        self._stderr.close()
