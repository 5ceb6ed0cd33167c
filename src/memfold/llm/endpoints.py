"""What endpoints have shown about themselves: the response format in use (and whether
a reply confirmed it), and request parameters they refused.

One ``EndpointKnowledge`` belongs to an LLM judge's client and is lent to the short-lived
clients built for the same endpoints on other event loops (extraction from messages), so
a server that refuses ``json_schema`` is asked once per judge, not once per call, and a
chat template is checked once per judge.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from memfold.llm.template_check import TemplateCheck


@dataclass
class EndpointKnowledge:
    """Per endpoint: the format in use, whether a reply confirmed it, refused parameters;
    per endpoint and model: the chat template checks (llm/template_check.py)."""

    formats: dict[str, str] = field(default_factory=dict)
    confirmed: set[str] = field(default_factory=set)
    dropped: dict[str, set[str]] = field(default_factory=dict)
    templates: dict[tuple[str, str], TemplateCheck] = field(default_factory=dict)
