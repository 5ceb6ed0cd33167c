"""Which area a memory belongs to, from surface cues (seed 000, "Four-area categorization").

Returns None when no cue fires, so the engine keeps whatever area the memory already has
(a caller's explicit area is never overwritten with "main" by a guess).
"""

from __future__ import annotations

import re

from memfold.model import Area
from memfold.reading.facts import facts

_SOLUTION = re.compile(
    r"\b(fixed by|fixed it|the fix|to fix|fixes|solution|solved by|resolved|workaround|"
    r"work around|the cure|was caused by)\b",
    re.IGNORECASE,
)
_INSTRUMENT = re.compile(
    r"`[^`]+`"  # inline code
    r"|(?:^|\s)--?[a-z][\w-]*"  # CLI flags
    r"|(?:^|\s)\$\s"  # shell prompt
    r"|\b(run|execute|invoke|type)\s+[`'\"]"
    r"|\b(use|using)\s+\S+\s+to\b"
    r"|\b(pip|npm|git|docker|kubectl|make|curl|brew|apt|apt-get|cargo|uv)\s+\w"
    r"|\b(command|cli|shortcut|script|workflow|procedure|step \d)\b",
    re.IGNORECASE,
)


def area_for(text: str, fragment_max_words: int) -> Area | None:
    """The area cues point at. A text of ``fragment_max_words`` content words or fewer
    that says nothing of a subject is a fragment ("coffee", "the Berlin thing", "call
    dentist"); a statement about someone is not, however short ("Sam is vegan", "User
    went kayaking at Lake Washington on March 15")."""
    stripped = text.strip()
    if stripped.endswith(("...", "…")) or stripped.endswith("?"):
        return Area.FRAGMENTS
    if _SOLUTION.search(stripped):
        return Area.SOLUTIONS
    if _INSTRUMENT.search(stripped):
        return Area.INSTRUMENTS
    found = facts(stripped)
    if not found.clauses and len(found.content) <= fragment_max_words:
        return Area.FRAGMENTS
    return None
