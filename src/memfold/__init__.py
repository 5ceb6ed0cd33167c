"""memfold: long-term memory for LLM agents that consolidates itself safely."""

from typing import TYPE_CHECKING, Any

from memfold.config import Settings
from memfold.engine.erase import ForgetReport
from memfold.engine.scopes import DeleteAllResult, ScopeInfo
from memfold.errors import (
    BudgetExhausted,
    ConfigError,
    ConflictError,
    EmbeddingMismatch,
    ImportFormatError,
    InvalidInput,
    LLMError,
    LLMRateLimited,
    MemfoldError,
    NotFound,
    ReadOnlyStore,
    StoreBusy,
    StoreUnavailable,
    UndoRefused,
)
from memfold.memory import Memory
from memfold.model import (
    Action,
    AddResult,
    Area,
    Category,
    CategorySource,
    Decision,
    LogEntry,
    MemoryRecord,
    Scope,
    SearchHit,
    Status,
)

if TYPE_CHECKING:
    from memfold.async_memory import AsyncMemory


def __getattr__(name: str) -> Any:
    # AsyncMemory (and asyncio) load on first use: the CLI starts faster without them.
    if name == "AsyncMemory":
        from memfold.async_memory import AsyncMemory

        return AsyncMemory
    raise AttributeError(f"module 'memfold' has no attribute {name!r}")


__version__ = "0.1.0"

__all__ = [
    "Action",
    "AddResult",
    "Area",
    "AsyncMemory",
    "BudgetExhausted",
    "Category",
    "CategorySource",
    "ConfigError",
    "ConflictError",
    "Decision",
    "DeleteAllResult",
    "EmbeddingMismatch",
    "ForgetReport",
    "ImportFormatError",
    "InvalidInput",
    "LLMError",
    "LLMRateLimited",
    "LogEntry",
    "MemfoldError",
    "Memory",
    "MemoryRecord",
    "NotFound",
    "ReadOnlyStore",
    "Scope",
    "ScopeInfo",
    "SearchHit",
    "Settings",
    "Status",
    "StoreBusy",
    "StoreUnavailable",
    "UndoRefused",
]
