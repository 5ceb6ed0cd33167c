"""mem0's API on memfold: ``from memfold.mem0 import Memory`` (or ``AsyncMemory``) in
place of ``from mem0 import Memory`` (docs/mem0.md). The service speaks mem0's platform
routes under ``/mem0`` for mem0's ``MemoryClient`` (server/mem0_routes.py)."""

from memfold.mem0.async_memory import AsyncMemory
from memfold.mem0.memory import Memory

__all__ = ["AsyncMemory", "Memory"]
