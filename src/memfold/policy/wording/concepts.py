"""One word as paraphrase alignment reads it: its concept, in one spelling.

"Sept" -> "september", "third" -> "3", "salary" -> "earn", "likes" -> "like": a word's
synonym group's head (``policy.wording.lexicon``) or its stem; stopwords and words that never
change a statement are empty. Pure: no I/O.
"""

from __future__ import annotations

import functools
import re

from memfold.policy import text as tx
from memfold.policy.wording import lexicon as lx
from memfold.policy.wording.phrases import CANONICAL_TOKENS
from memfold.policy.wording.spelling import american_spelling

TOKEN = re.compile(r"t\d\d:\d\d|\d+(?:\.\d+)?|[$€£%,]|[^\W\d_]+(?:'[^\W\d_]+)*", re.UNICODE)
_CLOCK_TOKEN = re.compile(r"^t\d\d:\d\d$")

# Months, weekdays and frequencies: when a fact holds, never what it is about.
FRAMES = (
    frozenset(lx.MONTH_NAMES.values())
    | tx.WEEKDAYS
    | frozenset({"perday", "perweek", "permonth", "peryear", "weekdays"})
    | frozenset(tx.stem(w) for w in lx.TIMES_OF_DAY)
)


@functools.lru_cache(maxsize=16384)
def concept_of(word: str) -> str:
    """One word's concept: "" for stopwords and empty words, else its synonym group's
    head or its stem ("salary" -> "earn", "Sept" -> "september", "third" -> "3")."""
    low = word.lower().removesuffix("'s")
    if _CLOCK_TOKEN.match(low):
        return low  # "t10:00", a clock time in one spelling
    low = american_spelling(low)
    low = lx.IRREGULAR.get(low, low)
    if low in _SYNONYMS:
        return _SYNONYMS[low]
    if low in lx.ORDINALS:
        return lx.ORDINALS[low]
    if low in lx.MONTH_NAMES:
        return lx.MONTH_NAMES[low]
    if low == ",":
        return ""
    if low[:1].isdigit() or low in ("$", "€", "£", "%") or low in CANONICAL_TOKENS:
        return low  # a number is its own concept: never stemmed ("2022" is not "202")
    if low in tx.STOPWORDS or tx.is_negation(low) or low in lx.EMPTY_WORDS:
        return ""
    stem = tx.stem(low)
    if stem in lx.EMPTY_WORDS:
        return ""
    return _SYNONYMS.get(stem, stem)


# Synonyms looked up by word and by stem ("likes" -> "lik" -> "like").
_SYNONYMS: dict[str, str] = {
    **{
        tx.stem(word): head
        for word, head in lx.SYNONYMS.items()
        if word not in lx.WORD_ONLY_SYNONYMS
    },
    **lx.SYNONYMS,
}
