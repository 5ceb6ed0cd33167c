"""The exceptions memfold raises. Every one is a ``MemfoldError``.

Bad input raises before anything is written, so a failed call changes nothing.
"""

from __future__ import annotations


class MemfoldError(Exception):
    """Base class of every memfold error."""


class InvalidInput(MemfoldError, ValueError):
    """Text, scope, vector or option that memfold refuses (empty, too long, NUL, NaN...)."""


class NotFound(MemfoldError, KeyError):
    """An id that names no memory, log row or job."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "not found"


class EmbeddingMismatch(MemfoldError):
    """Stored vectors come from another model or dimension; run ``memfold reembed``."""


class ImportFormatError(InvalidInput):
    """A malformed line in an imported JSONL file."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


class ModelIntegrityError(MemfoldError):
    """The local embedding model file does not match its pinned sha256."""


class ConfigError(MemfoldError):
    """A setting is missing or contradicts another (raised at configuration time)."""


class ReadOnlyStore(MemfoldError):
    """A write to a store opened read-only (``Memory(path, read_only=True)``, or a file
    without write permission): refused before anything is written."""


class ConflictError(MemfoldError):
    """A memory changed since a decision was made (optimistic version check)."""


class StoreUnavailable(MemfoldError):
    """The database server cannot be reached (refused, timed out, connection lost)."""

    transient: bool = True


class StoreBusy(StoreUnavailable):
    """The store stayed locked by another writer (SQLite's "database is locked") past
    ``store.busy_timeout_ms`` and ``store.busy_retries``: nothing of the call was
    written. Transient: the same call may be tried again."""


class LeaseLost(ConflictError):
    """A job is no longer held by this worker (its lease passed to another): not applied."""


class UndoRefused(MemfoldError):
    """An undo that would break later changes built on its result."""

    def __init__(self, message: str, blocking_log_ids: list[int]) -> None:
        super().__init__(message)
        self.blocking_log_ids = blocking_log_ids


class LLMError(MemfoldError):
    """Any failure of an LLM call. Callers turn it into SKIP."""

    transient: bool = True


class LLMUnavailable(LLMError):
    """Endpoint unreachable or not configured."""


class LLMTimeout(LLMError):
    """The call did not finish within its timeout, retries included."""


class BudgetExhausted(LLMError):
    """memfold's own daily token budget or rate window is used up; fails at once."""


class LLMRateLimited(LLMError):
    """The provider refused the call for its rate limit (HTTP 429), retries included:
    transient, the next cycle asks again."""


class LLMReplyInvalid(LLMError):
    """The reply was not JSON or did not validate against the task's schema."""

    transient = False


class LLMReplyTruncated(LLMReplyInvalid):
    """The reply stopped at ``max_completion_tokens`` before it could be read: a caller
    may ask again for less (extraction halves its batch)."""


class SecretLeak(LLMReplyInvalid):
    """The reply carried a secret placeholder that was never sent."""


class MissingExtra(MemfoldError, ImportError):
    """An optional part used without its extra installed: ``pip install 'memfold[NAME]'``."""

    def __init__(self, extra: str, what: str, missing: str) -> None:
        super().__init__(
            f"{what} needs the {extra!r} extra ({missing} is not installed): "
            f"pip install 'memfold[{extra}]'"
        )
        self.extra = extra
