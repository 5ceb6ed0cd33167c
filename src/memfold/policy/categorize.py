"""The category of a new memory, by rules (offline): procedural, episodic or semantic.

Used on save when the caller gave no category. Procedural: how something is done (a
"how to", steps, a standing instruction such as "always run the tests first").
Episodic: something that happened at a time (past-tense event verbs, "yesterday",
"last week", a date). Anything else is semantic (a fact or a preference). Core is
never guessed: it is given explicitly or earned by repeated use (policy.retention).
"""

from __future__ import annotations

import re

from memfold.model import Category

_PROCEDURAL = re.compile(
    r"\bhow to\b|\bsteps? \d|\bstep[- ]by[- ]step\b|^\s*(?:\d+[.)]|[-*])\s"
    r"|\b(?:always|never|first|then)\s+(?:run|use|call|set|check|restart|install|build|"
    r"deploy|commit|push|pull|add|open|close|start|stop|test|type|press|click)\b"
    r"|\bto (?:install|deploy|build|fix|run|restart|reset|configure|set up)\b[^.]*,"
    r"|\brun `|\buse `",
    re.IGNORECASE | re.MULTILINE,
)
_MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|"
    "december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)
_EPISODIC = re.compile(
    r"\b(?:yesterday|today|tonight|this (?:morning|afternoon|evening|week)|"
    r"last (?:night|week|weekend|month|year|monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday|summer|winter|spring|fall|autumn)|\d+ (?:days?|weeks?|months?|years?) ago)\b"
    r"|\b(?:went|visited|met|attended|travell?ed|flew|drove|ran|hiked|joined|celebrated|"
    r"bought|saw|watched|had (?:a|an|dinner|lunch|breakfast)|took (?:a|an)|"
    r"got married|moved in|graduated|arrived|returned|happened)\b"
    rf"|\b(?:on|in) (?:{_MONTHS})\.? \d{{1,2}}\b|\b\d{{4}}-\d{{2}}-\d{{2}}\b",
    re.IGNORECASE,
)


def categorize(text: str) -> Category:
    """Procedural, episodic or semantic, by the rules in the module doc."""
    if _PROCEDURAL.search(text):
        return Category.PROCEDURAL
    if _EPISODIC.search(text):
        return Category.EPISODIC
    return Category.SEMANTIC
