"""What a newer memory says was left behind: the old value it names as gone.

"Aisha left Deloitte and now works at PwC", "switched car insurance from Admiral to
Direct Line", "sold her Fiat 500 and bought a Renault Zoe", "now reports to Dmitri
instead of Laura": the newer text names the old value itself, after a word that leaves
it ("left", "sold", "from ... to", "instead of"). Those words are what the older memory
said and the newer no longer holds, so an update reads them as gone, not as kept. Only a
named value counts (a name, number, time or frequency among the words left): "left
office" and "closed without charges" leave nothing the rules can name.
Pure: no I/O.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from memfold.policy import text as tx
from memfold.policy.wording.concepts import FRAMES, TOKEN, concept_of
from memfold.policy.wording.spelling import canonical_text

# Words after which the next few words name what was left.
# Past forms only: "leaves from Terminal 1" and "drops the kids at school" leave
# nothing behind.
_LEAVING_WORDS = frozenset(
    ["left", "quit", "sold", "stopped", "cancelled", "canceled", "dropped", "closed", "ditched"]
)
_LEAVING_PAIRS = frozenset({("gave", "up"), ("no", "longer")})
_INSTEAD_OF = re.compile(r"\b(?:instead of|rather than)\b", re.IGNORECASE)
# Where the named old value ends: a conjunction, a preposition of the new value, or
# punctuation (kept as tokens by ``TOKEN``: only "," is; the others end a clause too).
_BOUNDARY = frozenset(
    [
        "and",
        "but",
        "then",
        "to",
        "for",
        "with",
        "in",
        "at",
        "on",
        "into",
        "from",
        "of",
        "so",
        "because",
        "after",
        "before",
        "since",
        ",",
    ]
)
_COPULAS = frozenset(["is", "are", "was", "were", "be", "been", "being", "gets", "got"])
# A clause ends at ";" and at a full stop (not a decimal point): read as ",".
_CLAUSE_END = re.compile(r";|\.(?!\d)")
# The most words a left value spans ("the Barclays account", "her Fiat 500").
_SPAN = 4


@functools.lru_cache(maxsize=4096)
def left_concepts(text: str) -> frozenset[str]:
    """Concepts of the values ``text`` says were left ("left Deloitte" -> deloitte;
    "from Admiral to Direct Line" -> admiral), as ``paraphrase.read`` spells them."""
    # "instead of" and "rather than" are read before the lexicon makes them "over".
    marked = _INSTEAD_OF.sub(" quit ", unicodedata.normalize("NFKC", text))
    canon = canonical_text(marked)
    words = TOKEN.findall(_CLAUSE_END.sub(" , ", canon))
    names = {concept_of(n) for n in tx.proper_names(marked)}
    out: set[str] = set()
    for i in range(len(words)):
        start = _span_start(words, i)
        if start is None:
            continue
        span: set[str] = set()
        for follower in words[start : start + _SPAN]:
            if follower in _BOUNDARY:
                break
            concept = concept_of(follower)
            if concept:
                span.add(concept)
        # Only a named value is one ("left Deloitte", "sold her Fiat 500", "from weekly
        # to biweekly": a name, a number, a time or frequency): "left office",
        # "closed without charges" and "instead of life" name nothing that was held.
        if span & (names | FRAMES) or any(c[:1].isdigit() for c in span):
            out |= span
    return frozenset(out)


def _span_start(words: list[str], i: int) -> int | None:
    """Where the left value starts when ``words[i]`` opens a leaving phrase, else None.
    "from" leaves only with a "to" after it ("from Admiral to Direct Line")."""
    word = words[i]
    if word in _LEAVING_WORDS:
        # "is closed on Sundays", "was cancelled": said of the subject, leaving nothing
        return None if i > 0 and words[i - 1] in _COPULAS else i + 1
    if (word, words[i + 1] if i + 1 < len(words) else "") in _LEAVING_PAIRS:
        return i + 2
    if word == "from" and "to" in words[i + 2 : i + 2 + _SPAN]:
        return i + 1
    return None
