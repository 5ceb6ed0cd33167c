"""Is a newer memory the same fact as an older one, told in other words?

"Tom works at Acme as a data engineer" / "Tom is a data engineer at Acme", "The user
earns $85k a year" / "The user's annual salary is $85,000": embeddings put such pairs
at cosine 0.70-0.95, where pairs that differ in one slot ("Nora's son" / "Nora's
daughter", above 0.9) sit too, so no cosine tells them apart. Alignment does: both texts are
put in one spelling (``policy.wording.lexicon``: phrases, numbers, clock times, units,
synonyms), words that never change a statement are set aside, and what is left must be
the same set of concepts on both sides. Any word one side has and the other lacks
("skip-level manager", "husband", "backups") is another fact. Then the structure
vetoes what a bag of words cannot see: negation, who owns what ("Daniel's manager is
Sofia" / "Sofia's manager is Daniel"), who does what to whom (active and passive), and
direction ("to" / "from", "tabs over spaces" / "spaces over tabs").

Pure: no I/O, no model.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import unicodedata
from dataclasses import dataclass

from memfold.policy import text as tx
from memfold.policy.subject import RELATION_WORDS
from memfold.policy.wording import lexicon as lx
from memfold.policy.wording.concepts import FRAMES as FRAMES
from memfold.policy.wording.concepts import TOKEN as TOKEN
from memfold.policy.wording.concepts import concept_of as concept_of
from memfold.policy.wording.spelling import canonical_text
from memfold.policy.wording.subject_phrase import compound_parts, first_concept, subject_phrase

_RELATIONS = frozenset(RELATION_WORDS)

_POSSESSIVE = re.compile(r"\b([^\W\d_][\w-]*)'s\b", re.UNICODE)
_PARTICIPLE = r"(?:\w+ly\s+)?\w+(?:ed|en|wn|ght|t|ld|ung|ead)"
# Passive voice: "is eaten by", "is being rinsed with water by" (a few words may stand
# between the participle and its "by"), or any "being" + participle ("is being cut").
_PASSIVE = re.compile(
    rf"\b(?:is|are|was|were|been|being|be|gets?|got)\s+{_PARTICIPLE}(?:\s+\w+){{0,4}}?\s+by\b"
    rf"|\bbeing\s+{_PARTICIPLE}\b"
)
POSSESSIVE_WORDS = frozenset(["my", "your", "his", "her", "its", "our", "their"])
# "is" as the main verb ("is a data engineer", "was born"), not an auxiliary ("is
# carrying", "was hired").
_COPULA = re.compile(r"\b(?:is|are|was|were)\b(?!\s+(?:\w+ly\s+)?\w+(?:ing|ed|en)\b)")
# "is" before a name that only looks like a participle ("is Spirited Away").
_COPULA_BEFORE_NAME = re.compile(r"\b(?:is|are|was|were)\s+(?=[A-Z])")
# Words that give a fact a direction; a group is compared only when both texts use it
# ("jumps on the wall" / "jumps off the wall", "flight to" / "flight from").
_DIRECTIONS = (
    frozenset({"to", "from"}),
    frozenset({"before", "after"}),
    frozenset({"on", "off"}),
    frozenset({"in", "out", "into"}),
    frozenset({"up", "down"}),
    frozenset({"behind", "front"}),
)


@dataclass(frozen=True, slots=True)
class Reading:
    """A text as alignment sees it."""

    concepts: frozenset[str]
    negated: bool
    possessors: frozenset[str]
    entities: tuple[str, ...]  # names and "user", in order of first mention
    first: str  # the first concept that is not a number: roughly, the subject
    # The subject read past its describing words (``lexicon.SUBJECT_MODIFIERS``): the
    # noun, or nouns joined by "and", and the words that describe it, before it or in a
    # "which is ..." clause ("a white and brown dog", "a dog, which is brown").
    subject: frozenset[str]
    described: frozenset[str]
    words: tuple[str, ...]  # the text's words, in one spelling (``lexicon``)
    passive: bool
    copula: bool
    directions: tuple[frozenset[str], ...]
    question: bool
    owned: bool  # a possessive anywhere ("Ken's", "his"): whose thing it is matters
    # Who the sentence is about when it opens with an owner: "Kofi's cousin owes him"
    # is about the cousin (owner "kofi", owned "cousin"); else both empty, and
    # ``opening_verb`` is the word after the opening concept ("Kofi owes ...": "owes").
    opening_owner: str = ""
    opening_owned: str = ""
    opening_verb: str = ""


@functools.lru_cache(maxsize=4096)
def read(text: str) -> Reading:
    """How alignment reads ``text`` (cached: a save compares one text with several)."""
    folded = unicodedata.normalize("NFKC", text)
    canon = canonical_text(folded)
    words = TOKEN.findall(canon)
    concepts: list[str] = []
    for word in words:
        concept = concept_of(word)
        if concept:
            concepts.append(concept)
    if "weekdays" in concepts:  # "daily, Monday through Friday": the weekdays say it
        concepts = [c for c in concepts if c != "perday"]
    names = {concept_of(n) for n in tx.proper_names(folded)} | {"user"}
    entities = tuple(dict.fromkeys(c for c in concepts if c in names or c == "user"))
    lowered = set(words)
    subject, described = subject_phrase(words)
    return Reading(
        concepts=frozenset(concepts),
        negated=any(tx.is_negation(w) for w in words) or tx.denies(canon),
        possessors=frozenset(concept_of(m.group(1)) for m in _POSSESSIVE.finditer(canon)),
        entities=entities,
        first=first_concept(words),
        subject=subject,
        described=described,
        words=tuple(words),
        passive=_PASSIVE.search(canon) is not None,
        copula=_COPULA.search(canon) is not None or _COPULA_BEFORE_NAME.search(folded) is not None,
        directions=tuple(frozenset(d & lowered) for d in _DIRECTIONS),
        question=tx.is_question(text),
        owned=bool(_POSSESSIVE.search(canon)) or bool(lowered & POSSESSIVE_WORDS),
        **_opening(words),
    )


# Verbs that say an owner has a thing: "Zanele has a cat named Mango" says what
# "Zanele's cat is named Mango" says.
_POSSESSION_VERBS = frozenset(["has", "have", "had", "owns", "own", "is", "was", "are", "were"])
_ARTICLES = frozenset(["a", "an", "the"])
# Who an owner's relative or role can be: someone who acts on their own.
_PEOPLE = _RELATIONS | frozenset(concept_of(w) for w in lx.ROLE_NOUNS)


def _opening(words: list[str]) -> dict[str, str]:
    """``Reading``'s opening fields for ``words`` (canonical tokens)."""
    rest = [w for w in words if w not in _ARTICLES]
    if len(rest) >= 2 and rest[0].endswith("'s"):
        owned = next((concept_of(w) for w in rest[1:] if concept_of(w)), "")
        return {"opening_owner": concept_of(rest[0]), "opening_owned": owned}
    return {"opening_verb": rest[1] if len(rest) >= 2 else ""}


def paraphrase(older: str, newer: str, min_concepts: int = 2) -> str:
    """Why ``newer`` restates ``older`` (a reason), or "" when the rules cannot show it."""
    a, b = aligned(read(older), read(newer))
    if a.concepts != b.concepts or len(a.concepts) < min_concepts:
        return ""
    if not structure_agrees(a, b, older, newer):
        return ""
    shown = ", ".join(sorted(a.concepts)[:8])
    return f"the same fact in other words (concepts: {shown})"


def structure_agrees(a: Reading, b: Reading, older: str, newer: str) -> bool:
    """The vetoes a bag of concepts cannot see: a question against a statement,
    negation, owners, who does what to whom, order around a directional word ("over",
    "into"; a voice change turns the order by itself, and the roles check reads that),
    and direction words ("on" / "off")."""
    if a.question != b.question or a.negated != b.negated:
        return False
    if _owners_differ(a, b) or _roles_differ(a, b) or _owned_subject_differs(a, b):
        return False
    if a.passive == b.passive and turned_around(older, newer):
        return False
    for mine, theirs in zip(a.directions, b.directions, strict=True):
        if mine and theirs and mine != theirs:
            return False
    return True


# Specific concept -> its general concept ("man" -> "person"), spelled as concepts.
_HYPERNYMS: dict[str, str] = {}


def general_of(concept: str) -> str:
    """The general concept ``concept`` is a kind of (``lexicon.HYPERNYMS``), else empty."""
    if not _HYPERNYMS:
        for specific, general in lx.HYPERNYMS.items():
            _HYPERNYMS[concept_of(specific)] = concept_of(general)
    return _HYPERNYMS.get(concept, "")


def aligned(a: Reading, b: Reading) -> tuple[Reading, Reading]:
    """``a`` and ``b`` with each concept one side alone has, whose general word
    (``lexicon.HYPERNYMS``) the other side alone has, read as that general word: "a man
    is slicing bread" / "a person is cutting bread". Never "a man" / "a woman" (neither
    is the other's general word), and never a relative where an owner is named ("his
    son" / "his kid" are left as they are)."""
    only_a, only_b = a.concepts - b.concepts, b.concepts - a.concepts
    owned = a.owned or b.owned
    mapping: dict[str, str] = {}
    # One word on one side, spelled as two on the other: "sunglasses" / "sun glasses".
    for mine, other, theirs in ((only_a, b, only_b), (only_b, a, only_a)):
        for whole in mine:
            parts = compound_parts(whole, other.words) if theirs else frozenset()
            if parts and parts <= theirs and not any(p in mapping for p in parts):
                mapping.update((part, whole) for part in parts)
    for mine, theirs in ((only_a, only_b), (only_b, only_a)):
        for concept in mine:
            general = general_of(concept)
            if general and general in theirs:
                if owned and (concept in _RELATIONS or general in _RELATIONS):
                    continue
                mapping[concept] = general
    if not mapping:
        return a, b
    return _mapped(a, mapping), _mapped(b, mapping)


def newer_generalizes(older: str, newer: str) -> bool:
    """Whether ``newer`` says in a general word what ``older`` says in a specific one
    ("a man ..." -> "a person ..."): folding it must keep the older, specific text."""
    a, b = read(older), read(newer)
    only_b = b.concepts - a.concepts
    return any(general_of(concept) in only_b for concept in a.concepts - b.concepts)


def _mapped(reading: Reading, mapping: dict[str, str]) -> Reading:
    return dataclasses.replace(
        reading,
        concepts=frozenset(mapping.get(c, c) for c in reading.concepts),
        first=mapping.get(reading.first, reading.first),
        subject=frozenset(mapping.get(c, c) for c in reading.subject),
        described=frozenset(mapping.get(c, c) for c in reading.described),
    )


def _owners_differ(a: Reading, b: Reading) -> bool:
    """ "Zanele's cat" / "Zanele has a cat" own alike; "Daniel's manager" / "Sofia's
    manager" do not. A possessive one side lacks is fine if its owner is named there."""
    if a.possessors and b.possessors:
        return a.possessors != b.possessors
    return False


def _owned_subject_differs(a: Reading, b: Reading) -> bool:
    """One text is about an owner's thing or relative ("Kofi's cousin owes him", "Ana's
    sister lives in Rome") and the other about the owner ("Kofi owes his cousin", "Ana
    lives in Rome with her sister"), unless it says the owner has it ("Zanele has a cat
    named Mango" / "Zanele's cat is named Mango")."""
    for mine, theirs in ((a, b), (b, a)):
        if not mine.opening_owner or theirs.opening_owner:
            continue
        if mine.opening_owned not in _PEOPLE:
            continue  # "the user's salary is ..." / "the user earns ...": an attribute
        if theirs.first == mine.opening_owner and theirs.opening_verb not in _POSSESSION_VERBS:
            return True
    return False


def _roles_differ(a: Reading, b: Reading) -> bool:
    """Who does what to whom: the same order and voice, or the order turned with exactly
    one passive ("Shopify hired the user" / "the user was hired by Shopify"), or an
    equation ("X is Y") whose owners agree. Named parties are compared in order; with
    fewer than two, the subject ("a dog carries a man" / "a man carries a dog")."""
    if len(a.entities) < 2 or set(a.entities) != set(b.entities):
        if _same_subject(a, b):  # the same subject, unless one voice turned it
            return a.passive != b.passive
        if a.first == b.first and a.passive != b.passive:
            return True  # the same first word, one voice turned: read as turned around
        return a.passive == b.passive and not (a.copula and b.copula)
    same_order = a.entities == b.entities
    if same_order:
        return a.passive != b.passive
    if a.passive != b.passive:
        return False
    # "X is Y" read both ways: "Accra is the user's birthplace" / "the user was born in
    # Accra". Owners must agree, and with a relation word in play both must name one.
    owners_agree = a.possessors == b.possessors or (
        not (a.possessors and b.possessors) and not (a.concepts & _RELATIONS)
    )
    return not (a.copula and b.copula and owners_agree)


def _same_subject(a: Reading, b: Reading) -> bool:
    """Whether both texts are about the same thing: the same subject read past its
    describing words, none of them moved to another thing ("the young dog bit the old
    man" / "the old dog bit the young man"), or, where no subject was read, the same
    first concept."""
    if a.subject and b.subject:
        moved = (a.described ^ b.described) & a.concepts & b.concepts
        return a.subject == b.subject and not moved
    return a.first == b.first


# Words that give word order a direction: "X over Y", "from X to Y", "X before Y".
_DIRECTIONAL = frozenset(
    [
        "over",
        "than",
        "before",
        "after",
        "instead",
        "rather",
        "from",
        "to",
        "into",
        "versus",
        "vs",
        "above",
        "below",
        "under",
    ]
)


def turned_around(a: str, b: str) -> bool:
    """The same content words in another order around a word that gives order a
    direction: "prefers video calls over phone calls" / "phone calls over video calls"."""
    sa, sb = tx.core_sequence(a), tx.core_sequence(b)
    if sa == sb or sorted(sa) != sorted(sb):
        return False
    return any(t.lower() in _DIRECTIONAL for t in (*tx.tokens(a), *tx.tokens(b)))
