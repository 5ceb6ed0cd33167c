"""What a reading states, in the terms the guards compare: its values, names, owners,
negated words, temporal modifiers, who does what (roles), its content words and the order
of its participants. Read once per text (``facts`` is cached by text)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache

import snowballstemmer

from memfold.reading import tables
from memfold.reading.model import Reading, Word
from memfold.reading.parser import read
from memfold.reading.values import Value, values

_USER_PRONOUNS = frozenset(["i", "me", "my", "mine", "myself", "we", "us", "our", "ours"])
# Singular third persons stand for the text's person; "they" may be things, so it stays.
_THIRD_PRONOUNS = frozenset(("he", "him", "his", "she", "her", "hers"))
PRONOUNS = frozenset(("they", "them", "their", "theirs", "it", "its"))
_RELATIVE = frozenset(("which", "that", "who", "whom"))
_NEGATIONS = frozenset(("not", "n't", "never", "no", "neither", "nor", "without"))
_SUBJECT_DEPS = frozenset(("nsubj", "csubj", "expl"))
_OBJECT_DEPS = frozenset(("dobj", "nsubjpass", "dative", "attr", "oprd"))
_CONTENT_POS = frozenset(("NOUN", "VERB", "ADJ", "PROPN"))
_NAME_ENTITIES = frozenset(
    ("PERSON", "ORG", "GPE", "LOC", "NORP", "PRODUCT", "FAC", "EVENT", "WORK_OF_ART")
)
_STEM = snowballstemmer.stemmer("english")


@dataclass(frozen=True)
class Facts:
    """The comparable parts of one text (see the module doc)."""

    text: str
    values: tuple[Value, ...]
    names: frozenset[str]
    owners: dict[str, frozenset[str]]
    negated: frozenset[str]
    modifiers: frozenset[tuple[str, str]]
    roles: dict[tuple[str, str], frozenset[str]]
    clauses: tuple[tuple[str, frozenset[str]], ...]
    content: frozenset[str]
    nouns: frozenset[str]
    verbs: frozenset[str]
    every_stem: frozenset[str]
    past: bool
    passive: frozenset[int]
    order: tuple[tuple[int, str], ...]

    @property
    def value_idents(self) -> frozenset[tuple[str, str, str]]:
        return frozenset(v.ident for v in self.values)


@lru_cache(maxsize=50_000)
def facts(text: str) -> Facts:
    """The facts of ``text`` (parsed once, see ``memfold.reading.parser``)."""
    return facts_of(read(text))


def facts_of(reading: Reading) -> Facts:
    words = reading.words
    found, used = values(reading)
    chains = _name_chains(words, used)
    key = _Keys(words, chains)
    owners: dict[str, set[str]] = defaultdict(set)
    roles: dict[tuple[str, str], set[str]] = defaultdict(set)
    subjects: dict[int, set[str]] = defaultdict(set)
    negated: set[str] = set()
    modifiers: set[tuple[str, str]] = set()
    passive: set[int] = set()
    temporal = tables.word_set("temporal_modifiers")
    for i, word in enumerate(words):
        head = words[word.head]
        of_owner = word.dep == "pobj" and head.low == "of" and _owned_by_of(words, word)
        if word.dep == "poss" or of_owner:
            possessed = words[head.head] if word.dep == "pobj" else head
            owners[norm(possessed.lemma)].add(key.of(i))
        if word.low in _NEGATIONS or word.dep == "neg":
            target = head if word.dep in ("neg", "det", "advmod", "preconj") else word
            negated.add(norm(target.lemma))
        if word.low in temporal and word.dep in ("amod", "compound", "nmod", "advmod", "nummod"):
            modifiers.add((word.low, norm(head.lemma)))
        if word.dep in ("nsubjpass", "auxpass"):
            passive.add(word.sent)
        role = _role(word, words)
        if role:
            at = head.head if head.dep == "agent" else word.head
            roles[(norm(words[at].lemma), role)].add(key.of(i))
            if role == "subject":
                subjects[at].add(key.of(i))
    content: set[str] = set()
    nouns: set[str] = set()
    verbs: set[str] = set()
    every: set[str] = set()
    light = tables.word_set("light_verbs")
    general = tables.word_set("general_nouns")
    for i, word in enumerate(words):
        if i in used or not any(c.isalpha() for c in word.lemma):
            continue  # punctuation and symbols ("|", "-") are no words
        lemma = norm(word.lemma if word.pos != "PROPN" else word.low)
        every.update((stem(lemma), stem(norm(word.low))))
        if word.pos not in _CONTENT_POS or i in chains:
            continue
        if word.lemma in light or lemma in general or word.low in temporal:
            continue
        if lemma in _NEGATIONS:
            continue
        content.add(lemma)
        if word.pos == "NOUN":
            nouns.add(lemma)
        if word.pos == "VERB":
            verbs.add(lemma)
    order = tuple(
        sorted(
            [(words[v.index].sent, v.index, "#" + v.show()) for v in found]
            + [(words[i].sent, i, name) for i, name in chains.items() if _chain_start(chains, i)]
        )
    )
    return Facts(
        text=reading.text,
        values=tuple(found),
        names=frozenset(chains.values()),
        owners={k: frozenset(v) for k, v in owners.items()},
        negated=frozenset(negated),
        modifiers=frozenset(modifiers),
        roles={k: frozenset(v) for k, v in roles.items()},
        clauses=tuple((norm(words[at].lemma), frozenset(v)) for at, v in sorted(subjects.items())),
        content=frozenset(content),
        nouns=frozenset(nouns),
        verbs=frozenset(verbs),
        every_stem=frozenset(every),
        past=any(w.tag == "VBD" for w in words),
        passive=frozenset(passive),
        order=tuple((sent, name) for sent, _, name in order),
    )


def norm(lemma: str) -> str:
    """One spelling of a content word: lowercased, its synonym group's first word."""
    low = lemma.lower()
    return tables.group_of("synonyms").get(low, low)


def stem(word: str) -> str:
    """The stem that lets "manager" meet "manage" and "rented" meet "rent"."""
    return str(_STEM.stemWord(word))


def _owned_by_of(words: tuple[Word, ...], word: Word) -> bool:
    """ "the sister of Arjun": a name after "of" owns the noun before it."""
    of = words[word.head]
    return word.pos == "PROPN" and words[of.head].pos == "NOUN" and of.dep == "prep"


def _role(word: Word, words: tuple[Word, ...]) -> str:
    if word.dep in _SUBJECT_DEPS:
        return "subject"
    if word.dep in _OBJECT_DEPS:
        return "object"
    if word.dep == "pobj" and words[word.head].dep == "agent":
        return "subject"
    return ""


def _is_name(words: tuple[Word, ...], i: int) -> bool:
    """A proper name: so tagged, or capitalized where a common word would not be (the
    small model tags some first names as nouns: "Sofia mentors Daniel")."""
    word = words[i]
    if word.low == "user":
        return False
    if word.pos == "PROPN":
        return True
    if not word.text[:1].isupper() or word.pos not in ("NOUN", "ADJ", "VERB", "X"):
        return False
    first = i == 0 or words[i - 1].sent != word.sent or words[i - 1].text in ('"', "(", "'")
    if not first or word.ent in _NAME_ENTITIES:
        return True
    # A sentence-initial singular noun with no determiner reads as a name.
    has_det = any(w.head == i and w.dep in ("det", "poss") for w in words)
    return word.tag == "NN" and not has_det


def _name_chains(words: tuple[Word, ...], used: set[int]) -> dict[int, str]:
    """Each word of a proper name mapped to the whole name ("Greg Holloway")."""
    out: dict[int, str] = {}
    i = 0
    while i < len(words):
        if i in used or not _is_name(words, i):
            i += 1
            continue
        j = i
        while j + 1 < len(words) and j + 1 not in used and _is_name(words, j + 1):
            j += 1
        name = " ".join(w.low for w in words[i : j + 1])
        for k in range(i, j + 1):
            out[k] = name
        i = j + 1
    return out


def _chain_start(chains: dict[int, str], i: int) -> bool:
    return chains.get(i - 1) != chains[i]


class _Keys:
    """What an argument is called when facts are compared: a whole name, "user" for the
    user's own pronouns, the text's named person for "he"/"her", else the word's lemma."""

    def __init__(self, words: tuple[Word, ...], chains: dict[int, str]) -> None:
        self.words = words
        self.chains = chains
        subjects = [
            chains.get(i, "user")
            for i, w in enumerate(words)
            if w.dep == "nsubj" and (i in chains or w.low in _USER_PRONOUNS or w.lemma == "user")
        ]
        self.person = subjects[0] if subjects else next(iter(chains.values()), "")

    def of(self, i: int) -> str:
        word = self.words[i]
        if i in self.chains:
            return self.chains[i]
        low = word.low
        if low in _RELATIVE and self.words[word.head].dep == "relcl":
            return self.of(self.words[word.head].head)  # "the laptop, which runs Ubuntu"
        if low in _USER_PRONOUNS or word.lemma == "user":
            return "user"
        if low in _THIRD_PRONOUNS:
            return self.person or low
        if word.lemma in tables.word_set("general_nouns"):
            # "a group of hikers": the hikers
            for prep in (j for j, w in enumerate(self.words) if w.head == i and w.low == "of"):
                for obj in (j for j, w in enumerate(self.words) if w.head == prep and j != prep):
                    return self.of(obj)
        return norm(word.lemma)
