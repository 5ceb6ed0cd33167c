"""memfold: long-term memory for LLM agents that consolidates itself safely."""

from memfold.async_memory import AsyncMemory
from memfold.config import Settings
from memfold.errors import (
    BudgetExhausted,
    ConfigError,
    ConflictError,
    EmbeddingMismatch,
    ImportFormatError,
    InvalidInput,
    LLMError,
    MemfoldError,
    NotFound,
    UndoRefused,
)
from memfold.memory import Memory
from memfold.model import (
    Action,
    AddResult,
    Area,
    Category,
    Decision,
    LogEntry,
    MemoryRecord,
    Scope,
    SearchHit,
    Status,
)

__version__ = "0.1.0"

__all__ = [
    "Action",
    "AddResult",
    "Area",
    "AsyncMemory",
    "BudgetExhausted",
    "Category",
    "ConfigError",
    "ConflictError",
    "Decision",
    "EmbeddingMismatch",
    "ImportFormatError",
    "InvalidInput",
    "LLMError",
    "LogEntry",
    "MemfoldError",
    "Memory",
    "MemoryRecord",
    "NotFound",
    "Scope",
    "SearchHit",
    "Settings",
    "Status",
    "UndoRefused",
]
