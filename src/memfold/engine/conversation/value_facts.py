"""A long message split into the facts that state a value, in its own words.

"I'm trying to plan out my project timeline and I have a deadline of April 1, 2024, for
the first sprint, which covers... The project is estimated to take 3 sprints of 2 weeks
each. How can I ensure I meet this deadline...?" holds two facts with a value: the
deadline and the estimate. Stored whole, it can never be superseded when one of them
changes (a supersede reads one fact against another); stored as facts, the one
that changed can be, and the rest stay.

A sentence is cut into clauses at "but", a dash, a semicolon and where a question to
the assistant starts ("..., can you help me", "..., what are some", "so how can I");
the questions are dropped, and so is what lies in a code block. A clause that starts
with "it" or "which" ("it's rescheduled to March 22") keeps the clause before it, so it
names what it is about; "remind me that ..." states what follows. A fact is a clause
with a value (``memfold.reading.values``: a date or time, a count, an amount, a
percentage, a version; a year or an ordinal alone is none) that says what it is about in
at least ``min_words`` content words and holds at most ``max_words`` content words
(nouns, verbs, adjectives, adverbs, names and numbers of its parse), its leading "and" /
"so" dropped. ``states_value`` is the same test on one statement: the rule extractor
(``rules``) cuts its clauses from the parse and asks it of each. Pure: no I/O.
"""

from __future__ import annotations

import re

from memfold.reading.facts import Facts, facts_of
from memfold.reading.model import Reading
from memfold.reading.parser import read, read_many

_FENCE = re.compile(r"```.*?(?:```|$)", re.DOTALL)
_SPAN = re.compile(r"`[^`\n]*`")
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_ABBREVIATION = re.compile(r"(?:^|\s)(?:[A-Z]|St|Dr|Mr|Mrs|Ms|Jr|Sr|Prof|vs|etc|e\.g|i\.e)\.$")
# Where a question to the assistant starts inside a sentence.
_ASKS = (
    r"(?:can|could|would|will)\s+you|how\s+(?:can|could|do|should|would|might)|"
    r"what\s+(?:are|is|should|would|can|could|do)|what's|should\s+i|do\s+you|is\s+(?:it|that|this|there)|"
    r"are\s+there|any\s+(?:tips|ideas|advice|suggestions)|why"
)
_ASK_START = re.compile(rf"^(?:(?:and|but|so|or|then)\s+)?(?:{_ASKS})\b", re.IGNORECASE)
_CUT = re.compile(
    rf"\s*[;]\s+|\s+[-–—]+\s+|,\s*(?=but\b)|,?\s+(?:(?:and|so|or)\s+)?(?=(?:{_ASKS})\b)",
    re.IGNORECASE,
)
# Where a statement too long to be one fact is cut further: before another clause of
# the speaker's ("..., and I've already spent 3 hours") or an aside ("..., considering").
_CUT_LONG = re.compile(
    r",\s+(?=(?:(?:and|so|but)\s+)?(?:i|i'm|i've|i'd|my|we|we're|we've)\b)|"
    r",\s+(?=(?:considering|especially|including|given|since|because|while)\b)",
    re.IGNORECASE,
)
_LEAD = re.compile(r"^(?:and|but|so|or|then|considering|especially)\s+", re.IGNORECASE)
_ANAPHORIC = re.compile(r"^(?:it|it's|it’s|which|that's|this)\b", re.IGNORECASE)
# A value that states no fact of its own: a year dates one, an ordinal ranks one.
_NOT_A_VALUE = frozenset(("year", "ordinal"))
_COUNTED = frozenset(("NOUN", "VERB", "ADJ", "ADV", "PROPN", "NUM"))
_STATES = re.compile(
    r"^(?:can|could|would)\s+you\s+(?:please\s+)?remind\s+me\s+(?:that|of)\s+",
    re.IGNORECASE,
)


def _sentences(text: str) -> list[str]:
    out: list[str] = []
    for piece in (p.strip() for p in _SENTENCE.split(text)):
        if not piece:
            continue
        if out and _ABBREVIATION.search(out[-1]):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return out


def _clauses(sentence: str) -> list[str]:
    """The statements of one sentence: questions dropped, an anaphoric clause joined to
    the one before it."""
    out: list[str] = []
    for piece in (p.strip(" ,") for p in _CUT.split(sentence)):
        if not piece:
            continue
        stated = _STATES.sub("", piece)
        if stated == piece and _ASK_START.match(piece):
            continue
        stated = _LEAD.sub("", stated).rstrip(" .!?,")
        if out and _ANAPHORIC.match(stated):
            out[-1] = f"{out[-1]}, {stated}"
        elif stated:
            out.append(stated)
    return out


def value_facts(text: str, min_words: int, max_words: int) -> list[str]:
    """The facts of ``text`` that state a value (see the module docstring), in order,
    each once: a statement of more than ``max_words`` content words is cut further at
    the speaker's next clause or an aside, and what is still too long is dropped."""
    bare = _SPAN.sub("", _FENCE.sub("\n", text))
    parts: list[str] = []
    for sentence in _sentences(bare):
        if _is_question(sentence) and len(_CUT.split(sentence)) == 1:
            continue  # a question alone states nothing
        for clause in _clauses(sentence):
            if _content_count(read(clause)) > max_words:
                parts += [p for piece in _CUT_LONG.split(clause) for p in _clauses(piece)]
            else:
                parts.append(clause)
    out: list[str] = []
    for part, reading in zip(parts, read_many(parts), strict=True):
        if _content_count(reading) > max_words or part in out:
            continue
        if _states_value(facts_of(reading), min_words):
            out.append(part)
    return out


def _is_question(text: str) -> bool:
    return text.strip().rstrip("\"'”’)").endswith("?")


def _content_count(reading: Reading) -> int:
    return sum(w.pos in _COUNTED for w in reading.words)


def _states_value(f: Facts, min_words: int) -> bool:
    """A value, and at least ``min_words`` content words besides it saying what it is of."""
    return any(v.kind not in _NOT_A_VALUE for v in f.values) and len(f.content) >= min_words


def states_value(text: str, min_words: int, max_words: int) -> bool:
    """Whether ``text`` (one statement) is a value fact: a value, at least ``min_words``
    content words besides it saying what it is of, at most ``max_words`` in all."""
    reading = read(text)
    return _content_count(reading) <= max_words and _states_value(facts_of(reading), min_words)
