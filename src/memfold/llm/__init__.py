"""memfold's LLM layer: client, role router, limits and budgets, secret masking."""

from memfold.llm.client import LLMClient, LLMResult
from memfold.llm.formats import ChatMessage
from memfold.llm.roles import ResolvedRole, resolve_role
from memfold.llm.secrets import MaskSession, find_secrets, mask_text
from memfold.llm.usage import CallUsage, InMemoryUsageSink, UsageSink, usage_of

__all__ = [
    "CallUsage",
    "ChatMessage",
    "InMemoryUsageSink",
    "LLMClient",
    "LLMResult",
    "MaskSession",
    "ResolvedRole",
    "UsageSink",
    "find_secrets",
    "mask_text",
    "resolve_role",
    "usage_of",
]
