"""Phrase rewrites: multi-word phrases put in one form before words are compared ("works
from home" -> "remote", "is managed by" -> "'s manager is", "every Monday" -> "monday
perweek"), applied in order, in groups (``rewrite_phrases``). Pure data and one pure
function; no I/O.
"""

from __future__ import annotations

import re


def _words(spaced: str) -> frozenset[str]:
    return frozenset(spaced.split())


# Multi-word phrases rewritten to one token before words are compared. Order matters:
# longer phrases first. Each pattern is matched on lowercased, NFKC-folded text.
PHRASES: tuple[tuple[str, str], ...] = (
    # roles and teams
    (r"site reliability engineers?", "sre"),
    (r"human resources", "hr"),
    (r"new york city|new york", "nyc"),
    (r"san francisco", "sf"),
    (r"machine learning", "ml"),
    (r"continuous integration", "ci"),
    (r"product manager", "pm"),
    (r"infrastructure", "infra"),
    (r"production", "prod"),
    (r"kubernetes|k8s", "kubernetes"),
    (r"postgresql|postgres", "postgres"),
    (r"javascript", "js"),
    (r"typescript", "ts"),
    (r"one-on-ones?|one on ones?|1-on-1s?|1:1s?", "oneonone"),
    # membership and possession
    (r"(?:is|are|was|were) (?:a |an )?members? of", "is on"),
    (r"(?:is|are) part of", "is on"),
    (r"belongs? to", "is on"),
    # attitudes
    (r"(?:does not|doesn't|do not|don't|did not|didn't) like", "dislike"),
    (
        r"(?:does not|doesn't|do not|don't) (?:eat|consume) (?:any )?meat(?: of any kind)?",
        "vegetarian",
    ),
    (r"(?:cannot|can't|can not|is unable to) tolerate", "intolerant"),
    (r"(?:is|are) (?:really |very |quite )?fond of", "like"),
    (r"(?:is|are|am|was|were) (?:unable|not able) to", "cannot"),
    (r"(?:is|are|was|were) employed (?:by|at)|works? for", "works at"),
    (r"speaks? fluent(?:ly)?", "is fluent in"),
    (r"pull requests?", "pr"),
    (r"merge requests?", "mr"),
    (r"chief technology officer", "cto"),
    (r"chief executive officer", "ceo"),
    (r"chief financial officer", "cfo"),
    (r"chief operating officer", "coo"),
    (r"vice president", "vp"),
    (r"twice", "2 times"),
    (r"three times|thrice", "3 times"),
    (r"line manager", "manager"),
    (r"(?:conference|meeting) room", "room"),
    (r"(\d+)[ -]years?[ -]old", r"\1"),
    # who manages whom, in one form: "X's manager is Y"
    (r"([^\W\d_][\w-]*)(?:'s)? (?:is|are|was|were) managed by", r"\1's manager is"),
    (r"([^\W\d_][\w-]*) now reports? (?:directly )?to", r"\1's manager is now"),
    (r"([^\W\d_][\w-]*) reports? (?:directly )?to", r"\1's manager is"),
    (r"(?:scheduled|planned|set|booked|slated) (?:for|on)", "on"),
    (r"(?:follows?|keeps?|is on|eats?) an? (\w+) diet", r"\1"),
    (r"rather than|instead of|in preference to", "over"),
    (r"would rather", "prefer"),
    # places and time
    (r"works? from home|works? remotely|is remote|fully remote", "remote"),
    (r"close to|next to|not far from", "near"),
    (r"(?:every|each) (monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?", r"\1 perweek"),
    (r"\bon (monday|tuesday|wednesday|thursday|friday|saturday|sunday)s\b", r"\1 perweek"),
    (
        r"(monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
        r" (morning|afternoon|evening|night)s",
        r"\1 \2 perweek",
    ),
    (r"(?:is|are) (?:served|hosted|available|reachable|exposed) (?:at|on)", "is at"),
    (r"(?:listens?|serves?|answers?) (?:at|on)", "is at"),
    (r"(?:runs?|is running|is built|is based) (?:on|with)", "use"),
    (r"works? as", "is"),
    (r"(?:formatted|written|phrased|presented) (?:as|in)", "in"),
    (r"every (?:single )?weekday|on weekdays|monday (?:through|to|until|-) friday", "weekdays"),
    (r"per year|a year|each year|every year|yearly|annually|annual|a yr", "peryear"),
    (r"per month|a month|each month|every month|monthly", "permonth"),
    (r"per week|a week|each week|every week|weekly", "perweek"),
    (r"per day|a day|each day|every day|daily", "perday"),
    (r"more than|greater than|exceeding|above|over", "over"),
    (r"less than|fewer than|below|under", "under"),
    (r"first half of", "h1"),
    (r"second half of", "h2"),
    (r"the deadline for (.+?) is", r"\1 due"),
    (r"(?:is|are) due (?:on|by)", "due"),
    # money and units
    (r"percent|per cent", "%"),
    # how many or what of, never which thing (issue 10): "a group of people" says
    # "people", "a bowl made of glass" a "glass bowl". Never "a lot of" (an amount)
    # nor "a pair of" / "a couple of" (numbers).
    (r"made (?:out )?(?:of|from)", ""),
    (r"(?:an? )?(?:group|herd|flock|pack|crowd|bunch)s? of|an? (?:piece|slice) of", ""),
    # "a little girl" is "a young girl": the age of a child, not its size
    (
        r"(?:little|small|tiny) (boys?|girls?|kids?|child|children|toddlers?|bab(?:y|ies))",
        r"young \1",
    ),
    (r"united states(?: of america)?|u\.s\.(?:a\.)?", "usa"),
)

# Tokens the phrase rewrites produce: concepts as they stand, never stemmed.
CANONICAL_TOKENS: frozenset[str] = _words(
    """perday perweek permonth peryear weekdays remote near over under h1 h2 oneonone
    vegetarian intolerant dislike"""
)


def rewrite_phrases(text: str) -> str:
    """Every phrase rewrite (``PHRASES``) applied in turn to ``text`` (lowercased)."""
    out = text
    for any_of, group in _PHRASE_GROUPS:
        if any_of.search(out) is None:
            continue  # none of the group matches, and skipping it leaves ``out`` as is
        for pattern, replacement in group:
            out = pattern.sub(replacement, out)
    return out


_COMPILED_PHRASES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(rf"\b(?:{pattern})(?=\W|$)"), replacement) for pattern, replacement in PHRASES
)

# The rewrites in order, in groups with one alternation of the group's patterns: most
# texts hold no phrase at all, and one search of a group that finds nothing stands for
# its patterns' substitutions (none would change the text). A group that finds
# something has its rewrites applied one by one, in order, as before, so the result is
# exactly that of applying every rewrite in turn (about 4x faster on persona sentences).
_PHRASE_GROUP_SIZE = 12
_PHRASE_GROUPS: tuple[tuple[re.Pattern[str], tuple[tuple[re.Pattern[str], str], ...]], ...] = tuple(
    (
        re.compile("|".join(p.pattern for p, _ in _COMPILED_PHRASES[i : i + _PHRASE_GROUP_SIZE])),
        _COMPILED_PHRASES[i : i + _PHRASE_GROUP_SIZE],
    )
    for i in range(0, len(_COMPILED_PHRASES), _PHRASE_GROUP_SIZE)
)
