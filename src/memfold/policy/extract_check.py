"""The result check on a memory extracted from messages: nothing invented.

An extract is a small part of its messages, so the whole-result check's "drops nothing
of any source" does not apply; everything else of ``result_check`` does, on the parse
(``memfold.reading.bindings``): no value or name no source message holds, no more new
content words or nouns than configured, the polarity, roles and owners of the message
sentences it restates, no instruction addressed to a model, no control character, not
over the store's length. The speaker
is the one thing an extract may name that its messages do not: "I like tea" is stored
as "User likes tea", and "my studio" as "User's studio" or, for a named speaker,
"Jon's studio": only when Jon's own message says "my" (or "our") and holds the word
after the possessive, so a thing another participant mentions is never made Jon's.
Pure: no I/O; an empty list means the extract may be saved.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memfold.policy.result_check import ResultLimits, encoding_problems, instruction_like
from memfold.reading.bindings import binding_problems
from memfold.reading.facts import facts
from memfold.reading.keys import stem

# What a speaker says of their own things: "my studio" may become "Jon's studio".
FIRST_PERSON_POSSESSIVES = frozenset({"my", "our", "mine", "ours"})
_FIRST_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")


def speaker_possessive_problems(
    text: str, sources: Sequence[str], speakers: Sequence[str]
) -> list[str]:
    """A named speaker's possessive ("Jon's studio") that no message says as such and
    Jon's own message does not back: it must say "my"/"our" and hold the word after
    "Jon's". ``speakers[i]`` said ``sources[i]``."""
    problems: list[str] = []
    said_by: dict[str, list[set[str]]] = {}
    for name, source in zip(speakers, sources, strict=False):
        if name:
            said_by.setdefault(name.lower(), []).append(set(facts(source).every_stem))
    lowered = [s.lower() for s in sources]
    for name, own in said_by.items():
        if any(f"{name}'s" in s for s in lowered):
            continue  # a message says it already: the ordinary check applies
        pattern = re.compile(rf"\b{re.escape(name)}'s\b(?:\s+([^\W\d_][\w-]*))?", re.I)
        for match in pattern.finditer(text):
            thing = (match.group(1) or "").lower()
            backed = any(
                words & FIRST_PERSON_POSSESSIVES and (not thing or stem(thing) in words)
                for words in own
            )
            if not backed:
                problems.append(
                    f"extract makes {thing or 'something'!r} {name}'s, which no message "
                    f"of {name}'s says"
                )
    return problems


def subject_attribution_problems(
    text: str, sources: Sequence[str], speakers: Sequence[str], min_own_share: float
) -> list[str]:
    """An extract whose subject (its first word) is a participant who said some of its
    messages while others said the rest must take at least ``min_own_share`` of its
    content words from that participant's own messages: "Caroline painted a lake
    sunrise" cited to Caroline's "I went to a support group" and Melanie's "I painted a
    lake sunrise" is Melanie's statement, whatever the union of the two holds."""
    named = {n.lower() for n in speakers if n}
    first = _FIRST_WORD.findall(text)[:1]
    if len(named) < 2 or not first:
        return []
    subject = first[0].lower().removesuffix("'s").removesuffix("’s")
    if subject not in named:
        return []
    names = named | {stem(n) for n in named}
    words = {stem(w) for w in facts(text).content} - names
    own_words: set[str] = set()
    for source, name in zip(sources, speakers, strict=False):
        if name.lower() == subject:
            own_words |= {stem(w) for w in facts(source).content}
    backed = len(words & own_words)
    if words and backed < min_own_share * len(words):
        return [
            f"extract says of {first[0]} what others said: {backed} of {len(words)} of its "
            f"content words are in {first[0]}'s own messages"
        ]
    return []


def check_extract(
    text: str,
    sources: Sequence[str],
    limits: ResultLimits,
    speakers: Sequence[str] = (),
    subject_min_own_share: float = 0.5,
) -> list[str]:
    """Why ``text`` must not be saved as a memory of the messages ``sources``, said by the
    named participants ``speakers`` (their "my" may become "<name>'s"; a statement about
    one of them comes mostly from their own messages, ``subject_min_own_share``)."""
    if not text.strip():
        return ["extract is empty"]
    if not sources:
        return ["extract names no source message"]
    problems = encoding_problems(text)
    if problems:
        return problems
    if len(text.strip()) > limits.max_chars:
        problems.append(f"extract has {len(text.strip())} characters; limit {limits.max_chars}")
    if instruction_like(text):
        problems.append("extract holds an instruction addressed to a model")
    problems += speaker_possessive_problems(text, sources, speakers)
    problems += subject_attribution_problems(text, sources, speakers, subject_min_own_share)
    problems += binding_problems(
        text,
        [*sources, *(name for name in speakers if name)],
        keep_all=False,
        max_new_words=limits.max_new_content_words,
        max_new_nouns=limits.max_new_nouns,
        speakers=[name for name in speakers if name],
    )
    return problems
