"""``memfold worker`` stops cleanly on SIGTERM and on Ctrl-C (SIGINT), also when started
the way a shell without job control starts background commands: with SIGINT ignored."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memfold import Memory
from memfold.embed.local import LocalEmbedder


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_worker_finishes_its_saves_and_stops_on_the_signal(
    tmp_path: Path, embedder: LocalEmbedder, sig: signal.Signals
) -> None:
    db = tmp_path / "w.db"
    with Memory(db, embedder=embedder, consolidate="queue") as mem:
        mem.add("Sam prefers Rust for systems work", user_id="sam")
        mem.add("Sam prefers Rust for systems work.", user_id="sam")
        exe = str(Path(sys.executable).parent / "memfold")
        proc = subprocess.Popen(
            [exe, "worker", "-p", str(db)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=_ignore_sigint,  # as `cmd &` in a non-interactive shell
        )
        deadline = time.monotonic() + 120
        while mem.store.count_jobs("pending") + mem.store.count_jobs("running"):
            assert time.monotonic() < deadline, "the worker did not drain the queue"
            time.sleep(0.05)
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
        assert "Traceback" not in err
        assert "consolidated 2 saves" in out
        assert len(mem.store.list_jobs("done")) == 2
