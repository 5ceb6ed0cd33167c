"""What each agent tool says of itself: one text for MCP (``memfold mcp``) and the
OpenAI tool schemas (``integrations.tools``), which share names, arguments and results.

Short on purpose: an agent reads every description on every turn (``tools/list`` is
kept under 4,000 characters: tests/server/test_mcp_lean.py)."""

from __future__ import annotations

DESCRIPTIONS: dict[str, str] = {
    "add_memory": "Save a lasting fact, preference or event (search first).",
    "add_messages": "Save the facts a conversation revealed (extracted, then consolidated).",
    "update_memory": "Correct a memory whose fact changed or was wrong (undoable).",
    "delete_memory": "Forget a wrong or unwanted memory (archived, undoable).",
    "undo_change": "Undo a logged change (update, delete, merge...) made by mistake.",
    "search_memories": (
        "Find the memories relevant to a question, best first: call it before answering "
        "what may depend on the user."
    ),
    "get_memory": "One memory by id with every field, whatever its status.",
    "list_memories": "List every memory, oldest first, a page at a time.",
    "memory_history": "A memory's logged changes, oldest first, with text before and after.",
    "review_status": "Merges held for review, contradictions, and whether merges are paused.",
}
