"""What words and arguments are called when readings are compared: a content word's
one spelling and its stem, proper names (a chain of capitalized words, "Greg Holloway"),
and each argument's key (a whole name, "user" for the user's own pronouns, a value as
one key, "the billing service" for which one). Pure."""

from __future__ import annotations

import re
from functools import cache, lru_cache

import snowballstemmer

from memfold.reading import tables
from memfold.reading.model import Word

_CONTRAST_WORDS = frozenset(("over", "than", "instead", "versus", "vs", "to"))
_NOUN_TAGS = ("NOUN", "PROPN")
USER_PRONOUNS = frozenset(["i", "me", "my", "mine", "myself", "we", "us", "our", "ours"])
# Singular third persons stand for the text's person; "they" may be things, so it stays
# itself unless the user alone comes before it ("the user ... they never drink").
THIRD_PRONOUNS = frozenset(("he", "him", "his", "she", "her", "hers"))
_SINGULAR_THEY = frozenset(("they", "them"))
PRONOUNS = frozenset(("they", "them", "their", "theirs", "it", "its"))
_THING_POSSESSIVES = frozenset(("its", "their"))
WHICH = ("compound", "amod")  # the words that say which one a noun names
_RELATIVE = frozenset(("which", "that", "who", "whom"))
# What a value is called as an argument.
VALUE_KEY = "#value"
_STEM = snowballstemmer.stemmer("english")


@lru_cache(maxsize=100_000)
def norm(lemma: str) -> str:
    """One spelling of a content word: lowercased, American ("favourite": "favorite",
    ``data/spellings.txt``), whole ("prod": "production", ``data/clippings.txt``), its
    synonym group's first word."""
    low = lemma.lower()
    low = tables.group_of("spellings").get(low, low)
    low = tables.group_of("clippings").get(low, low)
    return tables.group_of("synonyms").get(low, low)


@cache
def table_stems(*names: str) -> frozenset[str]:
    """The stems of every word of the entries of the data files ``names``."""
    return frozenset(stem(w) for name in names for e in tables.entries(name) for w in e.words)


@lru_cache(maxsize=100_000)
def stem(word: str) -> str:
    """The stem that lets "manager" meet "manage" and "rented" meet "rent"."""
    return str(_STEM.stemWord(word))


@lru_cache(maxsize=100_000)
def norm_stem(word: str) -> str:
    """``stem(norm(word))``: the key a content word is compared by, kept per word."""
    return stem(norm(word))


_IDENTIFIER = re.compile(r"^(?=[^\s]*[A-Za-z])(?=[^\s]*\d)[\w.-]+$")


def is_name(words: tuple[Word, ...], i: int) -> bool:
    """A proper name: so tagged, or capitalized where a common word would not be (the
    small model tags some first names as nouns: "Sofia mentors Daniel")."""
    word = words[i]
    if word.low == "user" or is_title(words, i):
        return False
    if _IDENTIFIER.match(word.text):
        return True  # letters and digits that are no value: "web-01", "B12", "x86"
    if word.pos == "PROPN":
        # A name has a capital or a digit somewhere ("iPhone", "k8s"); the small model
        # tags some lowercase verbs as names ("Lena tutors Omar").
        return any(c.isupper() or c.isdigit() for c in word.text)
    if not word.text[:1].isupper() or word.pos not in ("NOUN", "ADJ", "VERB", "X"):
        return False
    first = i == 0 or words[i - 1].sent != word.sent or words[i - 1].text in ('"', "(", "'")
    if not first:
        return True
    # A sentence-initial singular noun with no determiner reads as a name, unless it
    # modifies a singular common noun ("Team standup is at 9:30", "Rent payment is
    # due"; "Sofia mentors Daniel" may be misread as one: a plural).
    has_det = any(w.head == i and w.dep in ("det", "poss") for w in words)
    modifies = word.dep == "compound" and words[word.head].tag == "NN"
    return word.tag == "NN" and not has_det and not modifies


def is_title(words: tuple[Word, ...], i: int) -> bool:
    """A role noun written before a name as its title is no part of the name: "Customer
    Hannah Lee" is Hannah Lee (``data/titles.txt``)."""
    after = words[i + 1] if i + 1 < len(words) else None
    return (
        after is not None
        and after.pos == "PROPN"
        and after.text[:1].isupper()
        and words[i].low in tables.word_set("titles")
    )


def names_a_kind(words: tuple[Word, ...], i: int) -> bool:
    """Word ``i`` names a kind of the thing it modifies ("the users database", "a user
    table"), a fact of its own, not the general noun it is alone ("the user")."""
    word = words[i]
    return word.dep == "compound" and words[word.head].pos == "NOUN"


def name_chains(words: tuple[Word, ...], used: set[int]) -> dict[int, str]:
    """Each word of a proper name mapped to the whole name ("Greg Holloway")."""
    out: dict[int, str] = {}
    i = 0
    while i < len(words):
        if i in used or not is_name(words, i):
            i += 1
            continue
        j = i
        while j + 1 < len(words) and j + 1 not in used and is_name(words, j + 1):
            j += 1
        # a short form of a name is the name ("Postgres" / "PostgreSQL")
        clipped = tables.group_of("clippings")
        name = " ".join(clipped.get(w.low, w.low) for w in words[i : j + 1])
        for k in range(i, j + 1):
            out[k] = name
        i = j + 1
    return out


def chain_start(chains: dict[int, str], i: int) -> bool:
    return chains.get(i - 1) != chains[i]


_DESCRIBING = frozenset(("poss", "appos"))


def describes(words: tuple[Word, ...], chains: dict[int, str], start: int) -> bool:
    """The name starting at word ``start`` only tells whose or which a thing is
    ("Ayesha's son", "Zain, Ayesha's son"), not who does what to whom: its order among
    the names says nothing. (A name read as a compound is not: the parse reads "Sofia
    mentors Daniel" as one noun phrase.)"""
    end = start
    while chains.get(end + 1) == chains[start]:
        end += 1
    span = range(start, end + 1)
    outside = [j for j in span if words[j].head not in span or words[j].head == j]
    return all(words[j].dep in _DESCRIBING for j in outside)


def appositions(words: tuple[Word, ...], i: int) -> list[int]:
    """The words standing in apposition to word ``i`` ("Zain, Ayesha's son": "son")."""
    return [j for j, w in enumerate(words) if w.head == i and w.dep == "appos" and j != i]


def conjuncts(words: tuple[Word, ...], i: int) -> list[int]:
    """The nouns listed with noun ``i`` ("tomatoes and basil": "basil"), each an argument
    as the first is."""
    if words[i].pos not in ("NOUN", "PROPN"):
        return []
    found: list[int] = []
    frontier = [i]
    while frontier:
        head = frontier.pop()
        for j, w in enumerate(words):
            listed = w.head == head and w.dep == "conj" and w.pos in ("NOUN", "PROPN")
            if listed and j != head and j not in found:
                found.append(j)
                frontier.append(j)
    return found


class Keys:
    """What an argument is called when facts are compared: a whole name, a value as one
    key, "user" for the user's own pronouns, the text's named person for "he"/"her",
    else the word's lemma."""

    def __init__(self, words: tuple[Word, ...], chains: dict[int, str], valued: set[int]) -> None:
        self.words = words
        self.chains = chains
        self.valued = valued
        subjects = [
            chains.get(i, "user")
            for i, w in enumerate(words)
            if w.dep == "nsubj" and (i in chains or w.low in USER_PRONOUNS or w.lemma == "user")
        ]
        self.person = subjects[0] if subjects else next(iter(chains.values()), "")

    def of(self, i: int) -> str:
        word = self.words[i]
        if i in self.chains:
            return self.chains[i]
        if i in self.valued:
            return VALUE_KEY  # values are compared as values ("is $1,200" / "is $1,350")
        low = word.low
        if low in _RELATIVE and self.words[word.head].dep == "relcl":
            return self.of(self.words[word.head].head)  # "the laptop, which runs Ubuntu"
        if low in USER_PRONOUNS or word.lemma == "user":
            return "user"
        if low in THIRD_PRONOUNS:
            return self.person or low
        if low in _SINGULAR_THEY and self._user_they(i):
            return "user"  # "the user ... coffee is something they never drink"
        if low in _THING_POSSESSIVES and word.dep == "poss":
            # "The company moved its headquarters": a possessive "its" or "their" stands
            # for its clause's subject.
            subject = self._clause_subject(i)
            if subject is not None:
                return self.of(subject)
        mods = [j for j, w in enumerate(self.words) if w.head == i and j != i and w.dep in WHICH]
        mods += [j for j, w in enumerate(self.words) if w.dep == "conj" and w.head in mods]
        compounds = [norm(self.words[j].lemma) for j in sorted(mods)]
        if compounds and word.pos == "NOUN":
            # "the billing service", "the work laptop": which one, as the text says
            return " ".join([*compounds, norm(word.lemma)])
        if word.lemma in tables.word_set("general_nouns"):
            # "a group of hikers": the hikers
            for prep in (j for j, w in enumerate(self.words) if w.head == i and w.low == "of"):
                for obj in (j for j, w in enumerate(self.words) if w.head == prep and j != prep):
                    return self.of(obj)
        return norm(word.lemma)

    def _user_they(self, i: int) -> bool:
        """Whether "they" at ``i`` is the user: the user is named before it, no one else
        is a subject before it, and nothing plural comes before it that it could be ("the
        user's parents ...; they visit")."""
        before = self.words[:i]
        others = [j for j, w in enumerate(before) if j in self.chains and w.dep == "nsubj"]
        return (
            any(w.lemma == "user" for w in before)
            and not any(self.chains[j] != "user" for j in others)
            and not any(w.tag in ("NNS", "NNPS") or w.dep == "conj" for w in before)
        )

    def _clause_subject(self, i: int) -> int | None:
        """The nearest subject before word ``i`` in its sentence that is no pronoun."""
        sent = self.words[i].sent
        for j in range(i - 1, -1, -1):
            w = self.words[j]
            if w.sent != sent:
                return None
            if w.dep in ("nsubj", "nsubjpass") and w.low not in PRONOUNS:
                return j
        return None


def contrasts(words: tuple[Word, ...]) -> frozenset[tuple[str, str, str]]:
    """(x, word, y) for "x over y", "x rather than y", "from x to y": two things a text
    sets against each other, in its order (each a noun with its compounds)."""
    out = set()
    for i, word in enumerate(words):
        if word.low not in _CONTRAST_WORDS:
            continue
        same = [j for j in range(len(words)) if words[j].sent == word.sent]
        left = next((j for j in reversed(same) if j < i and words[j].pos in _NOUN_TAGS), None)
        right = next((j for j in same if j > i and words[j].pos in _NOUN_TAGS), None)
        if left is None or right is None:
            continue
        start = left
        while start - 1 >= 0 and words[start - 1].dep == "compound":
            start -= 1
        end = right
        while (
            end + 1 < len(words)
            and words[end].dep == "compound"
            and words[end + 1].pos in _NOUN_TAGS
        ):
            end += 1
        x = " ".join(stem(norm(w.lemma)) for w in words[start : left + 1])
        y = " ".join(stem(norm(w.lemma)) for w in words[right : end + 1])
        out.add((x, word.low, y))
    return frozenset(out)
