"""Job leases: who holds a job, whether that owner is still alive, and the heartbeat.

An owner id is ``host:pid:token:thread``. ``token`` is random per process (renewed
in a forked child), so a later process that happens to get the same pid is not
taken for the one that claimed the job. A job held by an owner on this host whose
process is gone (no such pid, a zombie, or our own pid with another token) is
reclaimed at once (at open, flush and every drain); any other owner's jobs only
when their lease expires, since its heartbeat keeps the lease alive while it works.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from memfold.config import ConsolidationSettings
from memfold.store.base import Store

log = logging.getLogger(__name__)

_TOKEN = secrets.token_hex(6)


def _new_token() -> None:
    global _TOKEN
    _TOKEN = secrets.token_hex(6)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_token)


@dataclass(frozen=True, slots=True)
class Owner:
    host: str
    pid: int
    token: str
    thread: int

    def __str__(self) -> str:
        return f"{self.host}:{self.pid}:{self.token}:{self.thread}"

    @classmethod
    def parse(cls, text: str) -> Owner | None:
        parts = text.rsplit(":", 3)
        if len(parts) != 4:
            return None
        host, pid, token, thread = parts
        try:
            return cls(host, int(pid), token, int(thread))
        except ValueError:
            return None


def current_owner() -> str:
    """This thread's owner id."""
    return str(Owner(socket.gethostname(), os.getpid(), _TOKEN, threading.get_ident()))


def _pid_gone(pid: int) -> bool:
    if os.name != "posix":
        return False  # os.kill(pid, 0) is no probe on Windows: wait for the lease
    if pid <= 0:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False  # alive, another user's
    except OSError:
        return False  # cannot tell: wait for the lease
    try:  # Linux: a killed child not yet reaped is a zombie, as good as gone
        with open(f"/proc/{pid}/stat", "rb") as fh:
            state = fh.read().rsplit(b")", 1)[-1].split()[0]
        return state in (b"Z", b"X")
    except (OSError, IndexError):
        return False


def owner_is_dead(owner: str) -> bool:
    """True only when the owner's process is certainly gone (same host)."""
    parsed = Owner.parse(owner)
    if parsed is None or parsed.host != socket.gethostname():
        return False
    if parsed.pid == os.getpid():
        return parsed.token != _TOKEN  # an earlier process that had our pid
    return _pid_gone(parsed.pid)


def reclaim_dead(store: Store) -> int:
    """Put back the jobs of dead owners and of expired leases; returns how many."""
    dead = [o for o in store.job_owners() if owner_is_dead(o)]
    count = store.reclaim_jobs(dead)
    if count:
        log.info("reclaimed %d unfinished jobs (dead owners: %d)", count, len(dead))
    return count


def backoff_delay(backoffs: int, cfg: ConsolidationSettings) -> float:
    """Seconds a job waits after its ``backoffs + 1``-th transient failure."""
    return float(min(cfg.backoff_max_s, cfg.backoff_s * 2.0 ** min(backoffs, 62)))


@contextmanager
def heartbeat(store: Store, owner: str, cfg: ConsolidationSettings) -> Iterator[None]:
    """Renew ``owner``'s leases every ``heartbeat_s`` while the block runs."""
    stop = threading.Event()

    def beat() -> None:
        try:
            while not stop.wait(cfg.heartbeat_s):
                try:
                    store.renew_leases(owner, lease_s=cfg.lease_s)
                except Exception:  # a missed beat only shortens the lease
                    log.warning("could not renew job leases of %s", owner, exc_info=True)
        finally:
            store.close_thread()

    thread = threading.Thread(target=beat, name="memfold-lease", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
