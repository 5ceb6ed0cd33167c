"""What endpoints have shown about themselves: the response format in use (and whether
a reply confirmed it), and request parameters they refused.

One ``EndpointKnowledge`` belongs to an LLM judge's client and is lent to the short-lived
clients built for the same endpoints on other event loops (extraction from messages), so
a server that refuses ``json_schema`` is asked once per judge, not once per call.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class EndpointKnowledge:
    """Per endpoint: the format in use, whether a reply confirmed it, refused parameters."""

    formats: dict[str, str] = field(default_factory=dict)
    confirmed: set[str] = field(default_factory=set)
    dropped: dict[str, set[str]] = field(default_factory=dict)
