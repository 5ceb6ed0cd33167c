"""Text in one spelling before its words are compared: lowercase, numbers, clock times,
units, British spellings, "the sister of Arjun" as "Arjun's sister", "moved to Berlin" as
"lives in Berlin", then the phrase rewrites of ``policy.wording.phrases``.

"$85k a year" -> "85000 usd peryear", "11:59 pm" -> "t23:59", "five kilometres" -> "5 km",
"favourite" -> "favorite". Pure: no I/O.
"""

from __future__ import annotations

import re

from memfold.policy.wording.phrases import rewrite_phrases

# British spellings in their American form, by the part both share ("favourite" ->
# "favorite", "kilometres" -> "kilometers", "organised" -> "organized"): a word that
# starts with a key and ends in one of _SPELLING_ENDINGS takes the value's spelling.
BRITISH_SPELLINGS: dict[str, str] = {
    "favour": "favor", "colour": "color", "flavour": "flavor", "behaviour": "behavior",
    "neighbour": "neighbor", "honour": "honor", "labour": "labor", "humour": "humor",
    "harbour": "harbor", "rumour": "rumor", "savour": "savor", "vapour": "vapor",
    "odour": "odor", "endeavour": "endeavor", "armour": "armor", "parlour": "parlor",
    "centre": "center", "metre": "meter", "kilometre": "kilometer", "litre": "liter",
    "centimetre": "centimeter", "millimetre": "millimeter", "theatre": "theater",
    "fibre": "fiber", "programme": "program", "catalogue": "catalog", "dialogue": "dialog",
    "defence": "defense", "offence": "offense", "licence": "license", "travell": "travel",
    "cancell": "cancel", "modell": "model", "labell": "label", "jewellery": "jewelry",
    "aluminium": "aluminum", "pyjama": "pajama", "mould": "mold", "moustache": "mustache",
    "ageing": "aging", "judgement": "judgment", "enrol": "enroll", "fulfil": "fulfill",
    "practis": "practic", "organis": "organiz", "recognis": "recogniz", "realis": "realiz",
    "apologis": "apologiz", "analys": "analyz", "minimis": "minimiz", "maximis": "maximiz",
    "optimis": "optimiz", "prioritis": "prioritiz", "customis": "customiz",
    "summaris": "summariz", "specialis": "specializ", "authoris": "authoriz",
    "standardis": "standardiz", "utilis": "utiliz", "visualis": "visualiz",
    "categoris": "categoriz", "finalis": "finaliz", "personalis": "personaliz",
    "memoris": "memoriz", "emphasis": "emphasiz", "digitis": "digitiz", "normalis": "normaliz",
}  # fmt: skip
_SPELLING_ENDINGS = (
    "", "s", "e", "es", "ed", "d", "ing", "er", "ers", "ite", "ites", "ation", "ations",
    "able", "ably", "ful", "ment", "ments",
)  # fmt: skip
_BRITISH = re.compile(
    "^("
    + "|".join(sorted(BRITISH_SPELLINGS, key=len, reverse=True))
    + ")("
    + "|".join(sorted(_SPELLING_ENDINGS, key=len, reverse=True))
    + ")$"
)


def american_spelling(word: str) -> str:
    """``word`` (lowercased) in its American spelling, where ``BRITISH_SPELLINGS`` knows
    it; any other word as it is."""
    match = _BRITISH.match(word)
    if match is None:
        return word
    return BRITISH_SPELLINGS[match.group(1)] + match.group(2)


# Spelled numbers, put in one spelling.
_NUMBER_WORDS_BIG = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
_SMALL_NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15,
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}  # fmt: skip
_SPELLED = re.compile(
    r"\b(" + "|".join(_SMALL_NUMBERS) + r")(?:[ -](" + "|".join(_SMALL_NUMBERS) + r"))?"
    r"(?: (" + "|".join(_NUMBER_WORDS_BIG) + r"))?\b"
)
_MAY = re.compile(r"(?<=\d )May\b|\bMay(?= \d)")
# "US" the country, not "us", before case is lost.
_US = re.compile(r"\bU\.S\.(?:A\.)?|\bUSA?\b")
# Initials with dots ("U.N.", "D.C."), after clock times have taken their "a.m." / "p.m.".
_INITIALS = re.compile(r"\b((?:[a-z]\.){2,})(?=\W|$)")
# "One man is cooking" opens with an article, not a count: "a man is cooking".
_ONE_AS_ARTICLE = re.compile(r"^\s*one (?!of\b|or\b|and\b|to\b|by\b)", re.IGNORECASE)
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
# "$85k", "85 k", "5m": thousands and millions. A spaced "m" is a metre ("1.83 m tall").
_K_SUFFIX = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(?:\s?(k)|(m))\b")
_ORDINAL_DIGITS = re.compile(r"\b(\d+)(?:st|nd|rd|th)\b")
_CLOCK = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s?(am|pm|a\.m\.|p\.m\.)(?=\W|$)")
_CLOCK_MORNING = re.compile(r"\b(\d{1,2})(?::(\d{2}))? in the (morning|afternoon|evening)\b")
_CLOCK_24 = re.compile(r"\b(\d{1,2}):(\d{2})\b")
_MONEY_BEFORE = re.compile(r"([$€£])\s?(\d+(?:\.\d+)?)")


# "the sister of Arjun" is "Arjun's sister" (a name, or the user, owning one thing), so
# that owners are read alike; "the University of Toronto" (a name itself) is left.
_OF_OWNER = re.compile(r"\b[Tt]he ([a-z]+) of ((?:[A-Z][\w-]*)(?: [A-Z][\w-]*)*|the user)\b(?!')")
# "moved to Berlin" says where someone lives now, as "lives in Berlin" does (a place
# name after it; "moved the standup to 10:15" and "moved CI to GitLab" are no move).
_MOVED_TO = re.compile(r"\b(?:moved|relocated)(?: back)? (?:to|into) (?=[A-Z])")
# "Mochi, the user's cat, has ..." is "the user's cat Mochi has ...": the name put after
# what it names, as the plain order says it.
_APPOSITION = re.compile(r"^([A-Z][\w-]*), ((?:[Tt]he user|[A-Z][\w-]*)'s [a-z][\w-]*), ")
_WEEKS = re.compile(r"\b(\d{1,2})\s?-?weeks?\b")
_NOON = re.compile(r"\b(?:12 )?(?:noon|midday|midnight)\b")
_AMOUNT = r"(\d+(?:\.\d+)?)\s?-?"
# Units after a number, in one spelling ("5 kilometres", "5km", "5-km" -> "5 km"), and
# weeks as days ("two weeks" -> "14 day", as "14 days" reads). Never "m" (million,
# ``_K_SUFFIX``) or "pounds" (money or weight); seconds as "sec" ("second" is the
# ordinal 2).
_UNIT_SPELLINGS: tuple[tuple[str, str], ...] = (
    (r"kilomet(?:er|re)s?|kms?", "km"),
    (r"kilo(?:gram(?:me)?)?s?|kgs?", "kg"),
    (r"centimet(?:er|re)s?|cm", "cm"),
    (r"millimet(?:er|re)s?|mm", "mm"),
    (r"met(?:er|re)s?", "meter"),
    (r"miles?|mi", "mile"),
    (r"lit(?:er|re)s?", "liter"),
    (r"millilit(?:er|re)s?|ml", "ml"),
    (r"feet|foot|ft", "feet"),
    (r"inch(?:es)?|in\.|\"", "inch"),
    (r"minutes?|mins?", "minute"),
    (r"hours?|hrs?|h", "hour"),
    (r"seconds?|secs?", "sec"),
    (r"kilobytes?|kb", "kb"),
    (r"megabytes?|mb", "mb"),
    (r"gigabytes?|gb", "gb"),
    (r"terabytes?|tb", "tb"),
)
_UNIT_NAMES = tuple((re.compile(pattern), unit) for pattern, unit in _UNIT_SPELLINGS)
# All units in one pattern (one pass over the text); the unit found is spelled by the
# first of _UNIT_SPELLINGS that matches it whole.
_UNITS = re.compile(
    _AMOUNT + "(" + "|".join(f"(?:{p})" for p, _ in _UNIT_SPELLINGS) + r")(?![\w'])"
)


def canonical_text(text: str) -> str:
    """Lowercased text with phrases, numbers, clock times and units in one spelling:
    "$85k a year" -> "85000 usd peryear", "11:59 pm" -> "t23:59", "fifth" -> "5"."""
    # "May" the month, not the modal verb, before case is lost.
    out = _MAY.sub("maymonth", text)
    out = _OF_OWNER.sub(r"\2's \1", out.replace("’", "'"))
    out = _MOVED_TO.sub("lives in ", out)
    out = _APPOSITION.sub(r"\2 \1 ", out)
    out = _US.sub("usa", _ONE_AS_ARTICLE.sub("a ", out)).lower()
    out = _THOUSANDS.sub("", out)
    out = _K_SUFFIX.sub(_expand_suffix, out)
    out = _MONEY_BEFORE.sub(lambda m: f"{m.group(2)} {m.group(1)}", out)
    # Spelled numbers first, so that "three in the afternoon" is a clock time and "five
    # kilometres" a distance like "5 km".
    out = _SPELLED.sub(_spelled_number, out)
    out = _CLOCK_MORNING.sub(_clock_words, out)
    out = _CLOCK.sub(_clock_ampm, out)
    out = _CLOCK_24.sub(lambda m: f"t{int(m.group(1)):02d}:{m.group(2)}", out)
    out = _NOON.sub(lambda m: "t12:00" if m.group(0) != "midnight" else "t00:00", out)
    out = _INITIALS.sub(lambda m: m.group(1).replace(".", ""), out)
    out = _ORDINAL_DIGITS.sub(r"\1", out)
    out = _UNITS.sub(_unit, out)
    out = _WEEKS.sub(lambda m: f"{int(m.group(1)) * 7} day", out)
    return rewrite_phrases(out)


def _unit(match: re.Match[str]) -> str:
    found = match.group(2)
    unit = next(unit for pattern, unit in _UNIT_NAMES if pattern.fullmatch(found))
    return f"{match.group(1)} {unit}"


def _expand_suffix(match: re.Match[str]) -> str:
    scale = 1000 if match.group(2) == "k" else 1_000_000
    value = float(match.group(1)) * scale
    return str(int(value)) if value.is_integer() else str(value)


def _clock(hour: int, minute: str | None, afternoon: bool) -> str:
    if afternoon and hour < 12:
        hour += 12
    if not afternoon and hour == 12:
        hour = 0
    return f"t{hour:02d}:{minute or '00'}"


def _clock_ampm(match: re.Match[str]) -> str:
    return _clock(int(match.group(1)), match.group(2), match.group(3).startswith("p"))


def _clock_words(match: re.Match[str]) -> str:
    return _clock(int(match.group(1)), match.group(2), match.group(3) != "morning")


def _spelled_number(match: re.Match[str]) -> str:
    value = _SMALL_NUMBERS[match.group(1)]
    if match.group(2):
        value += _SMALL_NUMBERS[match.group(2)]
    if match.group(3):
        value *= _NUMBER_WORDS_BIG[match.group(3)]
    return str(value)
