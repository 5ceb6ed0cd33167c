"""The word lists the older word readers use (value slots, the summary check): synonym
groups, general words, empty words, change words, irregular forms.

Written for memfold (no external thesaurus), kept deliberately small and generic: two
texts are read as one fact only when every content word of one finds its word, or a
listed synonym, in the other. A pair this lexicon does not know stays two memories
(a missed merge is recoverable). Words that name *which* thing a fact is about (relatives,
environments, co-hyponyms such as "son"/"daughter", "staging"/"production") are never
listed as synonyms. Pure data; no I/O.
"""

from __future__ import annotations


def _words(spaced: str) -> frozenset[str]:
    return frozenset(spaced.split())


# Parts of a day: like weekdays, when a fact holds ("every Sunday night, staging is
# reset"), never what it is about.
TIMES_OF_DAY: frozenset[str] = _words(
    "morning mornings afternoon afternoons evening evenings night nights weekend weekends"
)

# Synonym groups: every word of a group maps to the group's first word. Stems
# (``memfold.policy.text.stem``) are looked up, so list base forms.
_GROUPS: tuple[str, ...] = (
    "like enjoy prefer preference favor favour love fan",
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
    "birthplace born birthday",
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
    "bicycle bike cycle cycling",
    "coriander cilantro",
    "authentication auth",
    "temporary temp",
    "information info",
    "use using",
    "deploy deployment",
    "technical tech",
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
    "aircraft airplane plane planes",
    "mix stir blend",
    # everyday words with one meaning in a memory, written two ways (issue 10, fourth
    # round: checked on fresh hand-written scenarios, never on the held-out sets)
    "movie movies film films",
    "apartment flat",
    "vacation holiday",
    "couch sofa",
    "cellphone mobile",
    "doctorate phd doctoral",
    "certificate cert",
    "configuration config",
    "database db",
    "documentation docs",
    "maximum max",
    "weigh weight",
    "payment pay",
    "expire expiry expiration",
    "retire retirement",
    "decide decision",
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
    working worked usually typically normally generally roughly approximately every each
    all"""
)

# Words that announce a new value for something known ("renamed", "now"): stems, read
# on the newer text's own words. "left" is not one ("left knee").
CHANGE_STEMS: frozenset[str] = _words(
    """now renam extend postpon reschedul rebook instead switch"""
)
# These announce a change only with a new value after them ("was raised to 16", "cut
# down to one"): alone they describe an action ("raising her arm", "shares lower").
CHANGE_STEMS_BEFORE_VALUE: frozenset[str] = _words(
    """raise rais increas reduc cut lower decreas drop mov chang bump push replac updat
    becam become relocat transferr transfer migrat upgrad downgrad promot scal doubl"""
)
CHANGE_VALUE_WORDS: frozenset[str] = _words("to from by back")


# Ordinals and month abbreviations, put in one spelling.
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
# Synonyms looked up by their own spelling only, never by stem: "plane" stems to "plan"
# ("plans to spend" is no aircraft).
WORD_ONLY_SYNONYMS: frozenset[str] = _words("plane planes")
