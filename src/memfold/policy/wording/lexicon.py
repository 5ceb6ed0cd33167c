"""The word lists paraphrase alignment reads: phrase rewrites, synonym groups, empty words.

Written for memfold (no external thesaurus), kept deliberately small and generic: two
texts are read as one fact only when every content word of one finds its word, or a
listed synonym, in the other. A pair this lexicon does not know stays two memories
(a missed merge is recoverable). Words that name *which* thing a fact is about (relatives,
environments, co-hyponyms such as "son"/"daughter", "staging"/"production") are never
listed as synonyms. Pure data and one pure function; no I/O.
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
    (r"(?:is|are) fond of", "like"),
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

# Synonym groups: every word of a group maps to the group's first word. Stems
# (``memfold.policy.text.stem``) are looked up, so list base forms.
_GROUPS: tuple[str, ...] = (
    "like enjoy prefer favor favour love fan",
    "dislike hate detest",
    "cuisine food",
    "codebase repo repository",
    "avenue ave",
    "street st",
    "home house residence live reside",
    "near nearby",
    "answer reply response respond",
    "short brief concise",
    "big large",
    "small little",
    "outside outdoors outdoor",
    "beach shore seashore",
    "begin start commence",
    "end finish",
    "buy purchase",
    "job position role title",
    "company firm employer organization organisation",
    "earn salary income wage",
    "need require must",
    "approve approval sign-off",
    "allergic allergy",
    "intolerant intolerance",
    "lead head",
    "infra infrastructure",
    "deadline due",
    "birthplace born",
    "hire hired join",
    "use rely utilize employ",
    "dollar usd $",
    "euro eur €",
    "pound gbp £",
    "kid child children",
    "boy son",
    "girl daughter",
    "mother mom mum",
    "father dad",
    "photo picture image",
    "car vehicle automobile auto",
    "doctor physician",
    "meeting meet",
    "travel trip",
    "fly flies flew flight",
    # everyday rewordings of one action or thing (issue 10); never co-hyponyms that
    # name which thing ("pan" / "pot", "son" / "daughter" stay apart)
    "person someone somebody individual human",
    "cut slice chop dice",
    "woman lady",
    "man guy",
    "bicycle bike",
    "cyclist bicyclist biker",
    "motorcycle motorbike",
    "telephone phone",
    "jump leap",
    "grass lawn",
    "teen teenager",
    "fight battle",
    "staircase stairway stair stairs",
    "quickly rapidly fast swiftly",
    "carefully cautiously",
    "wedding marriage",
    "stunt trick",
    "cartoon animation",
    "skillet frypan",
    "hit strike",
    "ocean sea",
    "forest woods",
    "gray grey",
    "talk speak",
    "explosion blast",
    "injure hurt",
    "quit resign",
    "permit allow",
    "urinate pee",
    "ok okay",
    "militant insurgent",
    "aircraft airplane plane",
    "mix stir blend",
)

# One-way alignments, a specific word to the general one it is a kind of (issue 10):
# "a man is cooking" / "a person is cooking" say the same, while "a man" / "a woman"
# name two things (neither is the other's general word). Words are looked up like
# synonyms (by base form and stem, after the synonym groups).
HYPERNYMS: dict[str, str] = {
    "man": "person", "woman": "person", "boy": "kid", "girl": "kid", "toddler": "kid",
    "schoolgirl": "girl", "schoolboy": "boy", "puppy": "dog", "kitten": "cat",
    "dog": "animal", "cat": "animal", "horse": "animal", "mouse": "animal",
    "cow": "animal", "sheep": "animal", "bird": "animal", "rabbit": "animal",
    "stroll": "walk", "hike": "walk", "pace": "walk",
    "sprint": "run", "jog": "run", "dash": "run",
    "guitar": "instrument", "piano": "instrument", "violin": "instrument",
    "drum": "instrument", "flute": "instrument",
    "volleyball": "ball", "football": "ball", "basketball": "ball",
    "boulder": "rock", "stone": "rock", "doll": "toy", "sword": "weapon",
    "gun": "weapon", "rifle": "weapon", "steak": "meat", "bacon": "meat",
    "beer": "drink", "jeep": "car", "truck": "vehicle", "stare": "look",
    "gaze": "look", "glance": "look", "sprinkle": "put",
    "devour": "eat", "gobble": "eat", "strum": "play", "frolic": "play",
    "chat": "talk", "chatter": "talk", "roast": "cook", "fry": "cook",
    "bake": "cook", "grill": "cook", "boil": "cook",
}  # fmt: skip

# Modifiers that change which thing a text is about ("a former teacher", "a toy gun"):
# one text saying them and the other not is never read as the same fact.
IDENTITY_MODIFIERS: frozenset[str] = _words(
    """former ex old new previous current next last future late deputy assistant acting
    vice senior junior head chief co step half grand great skip fake toy model mock
    only early nearly barely hardly mostly partly fully almost likely other another
    same different main primary secondary backup spare second extra personal shared
    private public work home family"""
)

# Adjectives that describe the thing a sentence is about ("a white and brown dog", "a
# dog, which is brown"): when reading who does what, they are skipped to find the noun,
# and kept to be compared ("the young dog bit the old man" / "the old dog bit the young
# man" stay apart).
SUBJECT_MODIFIERS: frozenset[str] = _words(
    """black white brown tan red blue green yellow gray grey pink orange purple golden
    blond blonde dark big large small little tiny young old elderly tall short shirtless
    shoeless seated wet happy"""
)

# Nouns for what someone is to others (roles, jobs): a modifier on one is a role of its
# own ("skip-level manager", "staff engineer"), never dropped.
ROLE_NOUNS: frozenset[str] = _words(
    """engineer developer designer lead director manager president officer ceo cto cfo
    vp chief analyst consultant teacher doctor nurse lawyer owner founder member
    admin administrator architect scientist researcher editor reviewer maintainer
    owner contact representative rep supervisor chair captain coach instructor
    professor student intern contractor employee staff"""
)

# Words that never change what a statement says: copulas, auxiliaries, possession
# and naming verbs ("has a cat named Mango" / "'s cat is called Mango"), fillers.
EMPTY_WORDS: frozenset[str] = _words(
    """be is are was were been being am have has had having get gets got
    call called name named set located based department environment
    cost costs price priced amount currently kind type address endpoint version
    happen happens happened take takes place occur occurs run runs running ran work works
    working worked"""
)

# Words that announce a new value for something known ("renamed", "now"): stems, read
# on the newer text's own words. "left" is not one ("left knee").
CHANGE_STEMS: frozenset[str] = _words("""now renam extend postpon reschedul instead switch""")
# These announce a change only with a new value after them ("was raised to 16", "cut
# down to one"): alone they describe an action ("raising her arm", "shares lower").
CHANGE_STEMS_BEFORE_VALUE: frozenset[str] = _words(
    """raise rais increas reduc cut lower decreas drop mov chang bump push replac updat
    becam become relocat transferr transfer migrat upgrad downgrad promot"""
)
CHANGE_VALUE_WORDS: frozenset[str] = _words("to from by back")

# Spelled numbers, ordinals and month abbreviations, put in one spelling.
_NUMBER_WORDS_BIG = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
_SMALL_NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15,
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}  # fmt: skip
ORDINALS: dict[str, str] = {
    "first": "1", "second": "2", "third": "3", "fourth": "4", "fifth": "5", "sixth": "6",
    "seventh": "7", "eighth": "8", "ninth": "9", "tenth": "10",
}  # fmt: skip
MONTH_NAMES: dict[str, str] = {
    "jan": "january", "feb": "february", "mar": "march", "apr": "april", "jun": "june",
    "jul": "july", "aug": "august", "sep": "september", "sept": "september",
    "oct": "october", "nov": "november", "dec": "december", "maymonth": "may",
}  # fmt: skip

# Irregular verb forms, to their base ("eaten" -> "eat"), so that active and passive
# voice ("eats a pizza" / "a pizza is eaten") align. Generic English, nothing else.
_IRREGULAR = """
eat ate eaten|wear wore worn|ride rode ridden|say said|make made|hold held|write wrote written
take took taken|give gave given|drive drove driven|see saw seen|throw threw thrown
sing sang sung|run ran|leap leapt|buy bought|bring brought|catch caught|teach taught
sell sold|tell told|find found|build built|send sent|spend spent|keep kept|lose lost
meet met|pay paid|shoot shot|feed fed|fall fell fallen|grow grew grown|know knew known
begin began begun|break broke broken|choose chose chosen|draw drew drawn
drink drank drunk|forget forgot forgotten|get got gotten|hide hid hidden|lead led
sleep slept|speak spoke spoken|stand stood|swim swam swum|think thought
understand understood|wake woke woken|win won|fly flew flown|sit sat|light lit
fry fried fries frying|tie tied ties tying|die died dying|cling clung|dig dug|bite bitten|lie lying
man men|woman women|person people|mouse mice|foot feet|tooth teeth
"""
IRREGULAR: dict[str, str] = {
    form: group.split()[0]
    for group in _IRREGULAR.replace("\n", "|").split("|")
    if group.strip()
    for form in group.split()[1:]
}

SYNONYMS: dict[str, str] = {word: group.split()[0] for group in _GROUPS for word in group.split()}

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
_K_SUFFIX = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s?([km])\b")
_ORDINAL_DIGITS = re.compile(r"\b(\d+)(?:st|nd|rd|th)\b")
_CLOCK = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s?(am|pm|a\.m\.|p\.m\.)(?=\W|$)")
_CLOCK_MORNING = re.compile(r"\b(\d{1,2})(?::(\d{2}))? in the (morning|afternoon|evening)\b")
_CLOCK_24 = re.compile(r"\b(\d{1,2}):(\d{2})\b")
_MONEY_BEFORE = re.compile(r"([$€£])\s?(\d+(?:\.\d+)?)")


def canonical_text(text: str) -> str:
    """Lowercased text with phrases, numbers, clock times and units in one spelling:
    "$85k a year" -> "85000 usd peryear", "11:59 pm" -> "t23:59", "fifth" -> "5"."""
    # "May" the month, not the modal verb, before case is lost.
    out = _MAY.sub("maymonth", text)
    out = _US.sub("usa", _ONE_AS_ARTICLE.sub("a ", out)).lower().replace("’", "'")
    out = _THOUSANDS.sub("", out)
    out = _K_SUFFIX.sub(_expand_suffix, out)
    out = _MONEY_BEFORE.sub(lambda m: f"{m.group(2)} {m.group(1)}", out)
    out = _CLOCK_MORNING.sub(_clock_words, out)
    out = _CLOCK.sub(_clock_ampm, out)
    out = _CLOCK_24.sub(lambda m: f"t{int(m.group(1)):02d}:{m.group(2)}", out)
    out = _INITIALS.sub(lambda m: m.group(1).replace(".", ""), out)
    out = _ORDINAL_DIGITS.sub(r"\1", out)
    out = _SPELLED.sub(_spelled_number, out)
    return rewrite_phrases(out)


def rewrite_phrases(text: str) -> str:
    """Every phrase rewrite (``PHRASES``) applied in turn to ``text`` (lowercased)."""
    out = text
    for any_of, group in _PHRASE_GROUPS:
        if any_of.search(out) is None:
            continue  # none of the group matches, and skipping it leaves ``out`` as is
        for pattern, replacement in group:
            out = pattern.sub(replacement, out)
    return out


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
