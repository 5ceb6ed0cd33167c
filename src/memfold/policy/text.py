"""Small, deterministic text helpers shared by the guards and the rule judge.

No I/O, no models: tokens, content words, numbers, dates, names and negation cues.
They are deliberately simple; the guards that use them err on the side of refusing.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

_TOKEN = re.compile(r"[0-9]+(?:[.,:/-][0-9]+)*%?|[^\W\d_]+(?:['’][^\W\d_]+)*", re.UNICODE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_PUNCT_OR_SPACE = re.compile(r"[\W_]+", re.UNICODE)


def _words(spaced: str) -> frozenset[str]:
    return frozenset(spaced.split())


STOPWORDS: frozenset[str] = _words(
    """a an the and or but if then than so as of at by for with about against between into
    through during before after above below to from up down in out on off over under again
    further once here there when where why how all any both each few more most other some
    such only own same too very can will just should would could may might must shall do
    does did doing done be is am are was were been being have has had having i me my
    myself we our ours you your yours he him his she her hers it its they them their
    theirs what which who whom this that these those there's it's i'm i've i'd i'll you're
    he's she's we're they're that's also really quite just very s t ll ve re d m o y"""
)

# Negation markers flip the polarity of a statement. "n't" is handled on the token.
NEGATIONS: frozenset[str] = _words(
    """not no never none nobody nothing neither nor nowhere cannot without dont doesnt didnt
    isnt arent wasnt werent havent hasnt hadnt wont wouldnt cant couldnt shouldnt aint"""
)
# A statement wrapped in a denial, whatever negations it holds inside.
DENIAL = re.compile(
    r"\b(?:(?:is|was|it's|that's)\s+(?:not|no\s+longer|never)\s+(?:true|the\s+case|correct|"
    r"right|so)|(?:isn't|wasn't)\s+(?:true|the\s+case|correct|right|so)|"
    r"(?:false|untrue|incorrect|wrong)\s+that|contrary\s+to)\b",
    re.IGNORECASE,
)


def denies(text: str) -> bool:
    """Wrapped in a denial ("It is false that ...", "It's not true that ...")."""
    return DENIAL.search(text) is not None


# Retraction cues: the fact held before and holds no longer ("used to", "anymore").
RETRACTION_PHRASES: tuple[str, ...] = (
    "no longer",
    "not anymore",
    "anymore",
    "any more",
    "used to",
    "stopped",
    "quit",
    "gave up",
    "no more",
)
# Change cues: a newer statement replaces an older value ("moved to Berlin").
CHANGE_PHRASES: tuple[str, ...] = (
    "no longer",
    "moved to",
    "moved from",
    "now",
    "nowadays",
    "anymore",
    "any more",
    "used to",
    "switched to",
    "switched from",
    "changed",
    "instead",
    "currently",
    "these days",
    "from now on",
    "not anymore",
    "has become",
    "became",
    "updated",
    "replaced",
    # issue 10, fourth round (fresh hand-written scenarios): a date a value holds from,
    # a recent habit, a role handed on, a thing of someone's that is new
    "as of",
    "starting",
    "lately",
    "recently",
    "took over",
    "taken over",
    "s new",
    # only these words together: "went to the beach" and "grew up in Lima" are no change
    "went up to",
    "went down to",
    "gone up to",
    "gone down to",
    "grew to",
    "my new",
    "his new",
    "her new",
    "their new",
    "our new",
)

NUMBER_WORDS: dict[str, str] = {
    "zero": "0",
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
    "ten": "10",
    "eleven": "11",
    "twelve": "12",
    "twenty": "20",
    "thirty": "30",
    "forty": "40",
    "fifty": "50",
    "hundred": "100",
    "thousand": "1000",
    "million": "1000000",
    "billion": "1000000000",
}

MONTHS: frozenset[str] = _words(
    """january february march april may june july august september october november december
    jan feb mar apr jun jul aug sep sept oct nov dec"""
)
WEEKDAYS: frozenset[str] = _words("""monday tuesday wednesday thursday friday saturday sunday""")
RELATIVE_DAYS: frozenset[str] = _words("""today tomorrow yesterday tonight weekend""")
# Month abbreviations that are also ordinary words must be capitalized to count as dates.
_AMBIGUOUS_MONTHS: frozenset[str] = _words("""may mar jan jun sep oct dec""")
_DATE_PATTERN = re.compile(r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}/\d{2,4}\b")


def tokens(text: str) -> list[str]:
    """Word and number tokens in original case; apostrophes stay inside words."""
    return list(_tokens(text))


@functools.lru_cache(maxsize=8192)
def _tokens(text: str) -> tuple[str, ...]:
    # A new memory is compared with up to five candidates, each rule tokenizing both
    # texts again: the same few texts are tokenized dozens of times per save.
    folded = unicodedata.normalize("NFKC", text).replace("’", "'")
    return tuple(_TOKEN.findall(folded))


def normalized(text: str) -> str:
    """Casefolded text without punctuation: equal strings are duplicates."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _PUNCT_OR_SPACE.sub(" ", folded).strip()


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text.strip()) if s.strip()]


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Light suffix stripping so "likes"/"like" and "playing"/"play" match."""
    w = word.lower()
    if w.endswith("'s"):
        w = w[:-2]
    if w in NUMBER_WORDS:
        return NUMBER_WORDS[w]
    for suffix, keep in (("ies", "y"), ("sses", "ss"), ("ing", ""), ("ed", ""), ("es", "")):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: len(w) - len(suffix)] + keep
            break
    else:
        if w.endswith("s") and not w.endswith("ss") and len(w) > 3:
            w = w[:-1]
    # "running" -> "runn" -> "run"; "liked" -> "lik" vs "like" -> "like": drop a final e.
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz":
        w = w[:-1]
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    return w


def is_negation(token: str) -> bool:
    low = token.lower()
    return low in NEGATIONS or low.endswith("n't")


def content_sequence(text: str) -> list[str]:
    """Stemmed content words in order: stopwords and negation markers removed."""
    return list(_content_sequence(text))


@functools.lru_cache(maxsize=8192)
def _content_sequence(text: str) -> tuple[str, ...]:
    out: list[str] = []
    for tok in _tokens(text):
        low = tok.lower()
        if low in STOPWORDS or is_negation(low):
            continue
        out.append(stem(low))
    return tuple(out)


# Words whose presence never changes what a statement says. Everything else, including
# prepositions ("on" / "off") and auxiliaries ("is" / "was"), counts for duplicate checks.
LIGHT_WORDS: frozenset[str] = _words("""a an the also just really very actually quite""")


def strict_sequence(text: str) -> list[str]:
    """Every stemmed token but articles and fillers, in order: the duplicate-check view."""
    return [stem(t) for t in (tok.lower() for tok in _tokens(text)) if t not in LIGHT_WORDS]


def is_question(text: str) -> bool:
    return text.strip().rstrip("\"'”’)").endswith("?")


def content_words(text: str) -> set[str]:
    return set(content_sequence(text))


def numbers(text: str) -> set[str]:
    """Numbers as canonical strings: digits (thousands commas dropped) and number words."""
    found: set[str] = set()
    for tok in tokens(text):
        low = tok.lower()
        if low[0].isdigit():
            found.add(low.replace(",", "").rstrip("%"))
        elif low in NUMBER_WORDS:
            found.add(NUMBER_WORDS[low])
    return found


def dates(text: str) -> set[str]:
    """Date mentions: ISO / slashed dates, month and weekday names, relative days."""
    found = {m.group(0) for m in _DATE_PATTERN.finditer(text)}
    for tok in tokens(text):
        low = tok.lower()
        if low in _AMBIGUOUS_MONTHS and not tok[0].isupper():
            continue
        if low in MONTHS or low in WEEKDAYS or low in RELATIVE_DAYS:
            found.add(low)
    return found


def proper_names(text: str) -> set[str]:
    """Lowercased capitalized words, a cheap stand-in for names and places.

    A capitalized word at a sentence start counts too unless it is a stopword: missing a
    name ("Alice moved to Paris") is worse than demanding one word too many.
    """
    found: set[str] = set()
    for sentence in sentences(text):
        for tok in tokens(sentence):
            low = tok.lower()
            if not tok[0].isupper() or low in STOPWORDS or is_negation(low):
                continue
            if low in MONTHS or low in WEEKDAYS or low == "i":
                continue
            found.add(stem(low) if low.endswith("'s") else low)
    return found


def name_tokens_in_order(text: str) -> list[str]:
    """Capitalized non-initial words: surer names than ``proper_names`` (for conflicts)."""
    out: list[str] = []
    for sentence in sentences(text):
        for position, tok in enumerate(tokens(sentence)):
            if position == 0 or not tok[0].isupper() or tok.lower() in STOPWORDS:
                continue
            out.append(stem(tok))
    return out


def negated(text: str) -> bool:
    """True if the statement carries a negation or a retraction ("no longer", "used to")."""
    toks = [t.lower() for t in tokens(text)]
    if any(is_negation(t) for t in toks):
        return True
    return has_phrase(text, RETRACTION_PHRASES)


def negated_terms(text: str) -> set[str]:
    """Content words in the scope of a negation or retraction: the next content word."""
    words = [w.lower() for w in tokens(text)]
    scoped: set[str] = set()
    for i, word in enumerate(words):
        starts = is_negation(word) or word in ("longer", "stopped", "quit", "used")
        if word == "used" and (i + 1 >= len(words) or words[i + 1] != "to"):
            starts = False
        if not starts:
            continue
        taken = 0
        for follower in words[i + 1 :]:
            if follower in STOPWORDS or is_negation(follower) or follower == "longer":
                continue
            scoped.add(stem(follower))
            taken += 1
            if taken == 1:
                break
    return scoped


def core_sequence(text: str) -> list[str]:
    """Content words with change/retraction cue phrases removed (they are not the fact)."""
    padded = f" {normalized(text)} "
    for phrase in sorted(set(CHANGE_PHRASES + RETRACTION_PHRASES), key=len, reverse=True):
        padded = padded.replace(f" {phrase} ", " ")
    return content_sequence(padded)


def slot_values(text: str) -> set[str]:
    """Slot values that can be swapped: numbers, absolute dates, names. Relative days
    ("today", "yesterday") name the same date differently and never count as a swap."""
    absolute_dates = dates(text) - RELATIVE_DAYS
    return numbers(text) | absolute_dates | {n.lower() for n in name_tokens_in_order(text)}


# "is used to" / "be used to" is passive or habitual, not the retraction "used to".
_PASSIVE_USED = re.compile(r" (be|is|are|was|were|been|being|get|gets|got|getting) used to ")


def has_phrase(text: str, phrases: tuple[str, ...]) -> bool:
    padded = _padded(text)
    return any(f" {phrase} " in padded for phrase in phrases)


@functools.lru_cache(maxsize=8192)
def _padded(text: str) -> str:
    # A save's text is read for several phrase lists (change cues, additive words)
    # against each of its candidates, and again when its pass is checked for staleness.
    return _PASSIVE_USED.sub(r" \1 employed to ", f" {normalized(text)} ")


def has_change_cue(text: str) -> bool:
    return has_phrase(text, CHANGE_PHRASES)


# Broader than CHANGE_PHRASES: these only reorder search results (never supersede),
# so words that usually announce a new value ("new", "increased to") may count.
_UPDATE_WORDS = re.compile(
    r"\b(?:updat(?:e|ed|es|ing)|new|now|recently|increased|decreased|improved|adjusted|"
    r"resched\w*|moved|moving|changed|extended|instead|raised|lowered|switched|"
    r"no longer|anymore|reached|revised|postponed|pushed back)\b",
    re.IGNORECASE,
)


def has_update_cue(text: str) -> bool:
    """Does the text announce a change of something known ("the new deadline is...")?"""
    return _UPDATE_WORDS.search(text) is not None


def has_retraction_cue(text: str) -> bool:
    return has_phrase(text, RETRACTION_PHRASES)


@dataclass(frozen=True, slots=True)
class Facts:
    """What the information-loss guard checks a result text keeps."""

    numbers: frozenset[str]
    dates: frozenset[str]
    names: frozenset[str]
    content: frozenset[str]


def facts(text: str) -> Facts:
    return Facts(
        numbers=frozenset(numbers(text)),
        dates=frozenset(dates(text)),
        names=frozenset(proper_names(text)),
        content=frozenset(content_words(text)),
    )


def word_set(text: str) -> set[str]:
    """Every lowercased token, stemmed and raw: a name is "kept" if either form is present."""
    out: set[str] = set()
    for tok in tokens(text):
        low = tok.lower()
        out.add(low)
        out.add(stem(low))
    return out
