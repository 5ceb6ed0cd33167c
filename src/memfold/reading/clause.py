"""Where each word of a parse stands in its clause: its role (subject or object), its
slot (head and relation), the circumstances a clause adds, what a denial governs, where
things go to or come from, who owns a noun by "of", which verbs a note opens with no
subject (the user's), which subjects undergo their verb and for whom a changing verb's
subject changes a thing (the owner of its object). Read by ``facts`` once per
text. Pure."""

from __future__ import annotations

from functools import cache

from memfold.reading import tables
from memfold.reading.keys import norm, norm_stem
from memfold.reading.model import Word
from memfold.reading.values import Value

NOUNS = ("NOUN", "PROPN")
_WHEN = ("date", "year", "weekday", "time")
SUBJECT_DEPS = frozenset(("nsubj", "csubj", "expl"))
_OBJECT_DEPS = frozenset(("dobj", "nsubjpass", "dative", "attr", "oprd", "acomp"))
_ENDS = {"to": "to", "into": "to", "onto": "to", "from": "from", "off": "from", "out": "from"}


def contrasted(words: tuple[Word, ...], i: int, at: int) -> bool:
    """Is the "not" at ``i``, hung on the word ``at`` before it, the start of a contrast
    ("in Salzburg, not Vienna", "drinks tea, not coffee"), which denies the noun after
    it, not the one the parse hung it on?"""
    after = i + 1
    return (
        at < i
        and after < len(words)
        and words[after].pos in ("NOUN", "PROPN")
        and words[after].head in (at, words[at].head)
        and words[i - 1].low in (",", ";", "but", "and")
    )


def habitual_past(words: tuple[Word, ...]) -> frozenset[str]:
    """The verbs under "used to" ("The user used to live in Lisbon": live), or told in
    the past with a temporal modifier ("previously worked at Spotify": work)."""
    used_to = {
        norm(w.lemma)
        for i, w in enumerate(words)
        if w.dep == "xcomp"
        and words[w.head].low == "used"
        and any(x.head == i and x.low == "to" for x in words)
    }
    return frozenset(used_to | {norm(words[i].lemma) for i in placed_in_past(words)})


def heads_preposition(words: tuple[Word, ...], i: int) -> bool:
    """Word ``i`` governs a preposition and no object, or a preposition follows it:
    "out" of "out of", "next" of "next to"."""
    deps = [w.dep for j, w in enumerate(words) if w.head == i and j != i]
    if "prep" in deps and "pobj" not in deps and "dobj" not in deps:
        return True
    after = words[i + 1] if i + 1 < len(words) else None
    return after is not None and (after.pos == "ADP" or after.tag == "TO")


def placed_in_past(words: tuple[Word, ...]) -> set[int]:
    """Verbs in the past tense that a temporal modifier places in another time
    (``data/temporal_modifiers.txt``: "previously worked", "was formerly a bakery")."""
    temporal = tables.word_set("temporal_modifiers")
    return {
        w.head
        for w in words
        if w.low in temporal and w.dep == "advmod" and words[w.head].tag == "VBD"
    }


@cache
def _exchanges() -> dict[str, str]:
    """Each verb whose object a change leaves or takes, and the end ("from", "to") the
    object names (``data/leaving_verbs.txt``, ``data/taking_verbs.txt``)."""
    ends = {w: "to" for w in tables.word_set("taking_verbs")}
    return ends | {w: "from" for w in tables.word_set("leaving_verbs")}


def ends_of(words: tuple[Word, ...]) -> frozenset[tuple[str, str]]:
    """Where things go to and come from: the object of "to", "into", "onto" or of "from",
    "off", "out of"; what "replaced" or "sold" takes comes from, what "bought" takes or
    what a thing is replaced with goes to ("replaced their Corolla with a Kia",
    ``_exchanges``)."""
    out = set()
    for w in words:
        head = words[w.head]  # the verb of an object, the preposition of a pobj
        if w.dep == "dobj" and head.lemma in _exchanges():
            out.add((norm(w.lemma), _exchanges()[head.lemma]))  # "sold the Civic"
        if w.dep != "pobj":
            continue
        way = head.low
        if way == "with" and words[head.head].lemma == "replace":
            way = "to"
        if way == "of" and words[head.head].low == "out":
            way = "out"
        if way == "to" and words[head.head].low == "according":
            continue  # "according to the March report" names a source, goes nowhere
        end = _ENDS.get(way)
        if end is not None:
            out.add((norm(w.lemma), end))
    return frozenset(out)


_LEADING = frozenset(("advmod", "npadvmod", "punct"))
_NOTED = frozenset(("VBD", "VBN", "VBZ"))  # past or present: not "Reply in French"
_CLAUSE_HEADS = frozenset(("ROOT", "ccomp", "advcl"))


def subjectless_verbs(words: tuple[Word, ...]) -> list[int]:
    """The verbs that open a sentence with no subject, as a note is written ("Sold the
    Civic and bought a RAV4", "Just started a new job"): past or present, not the bare
    form an instruction takes ("Reply in French")."""
    out = []
    first = 0
    for i, word in enumerate(words):
        if i and word.sent != words[i - 1].sent:
            first = i
        if word.pos != "VERB" or word.tag not in _NOTED or word.dep not in _CLAUSE_HEADS:
            continue
        before = words[first:i]
        if any(w.dep not in _LEADING or w.head != i for w in before):
            continue
        if any(w.head == i and w.dep in (*SUBJECT_DEPS, "nsubjpass") for w in words):
            continue
        out.append(i)
    return out


def undergoes(words: tuple[Word, ...], verb: int, subject: Word) -> bool:
    """The subject of an undergoing verb with no object is what undergoes it: "the backup
    job runs" (``data/undergoers.txt``), a thing, not a person ("the user runs")."""
    if words[verb].lemma not in tables.word_set("undergoers") or subject.dep != "nsubj":
        return False
    if subject.pos != "NOUN" or norm(subject.lemma) in _people_nouns():
        return False
    return not any(w.head == verb and w.dep in ("dobj", "obj", "nsubjpass") for w in words)


def changed_for(words: tuple[Word, ...], verb: int, subject: Word) -> list[int]:
    """The owners of what a value-changing verb's subject changes for them
    (``data/value_change_verbs.txt``): "the doctor increased the user's dose to 20 mg"
    tells of the user's dose, the doctor only causing it. Empty where the object has no
    owner of its own ("the landlord raised the rent")."""
    if subject.dep != "nsubj" or words[verb].lemma not in tables.by_first_word(
        "value_change_verbs"
    ):
        return []
    objects = [i for i, w in enumerate(words) if w.head == verb and w.dep == "dobj"]
    owners = [j for j, w in enumerate(words) if w.dep == "poss" and w.head in objects]
    pronouns = bool(owners) and all(words[j].pos == "PRON" for j in owners)
    if (owners and not pronouns) or not objects:
        return owners
    if norm(subject.lemma) not in tables.word_set("relations"):
        return owners
    # "The user's doctor increased the dose" (or "their dose"): a relation acts for whom
    # it is one.
    at = words.index(subject)
    return [j for j, w in enumerate(words) if w.dep == "poss" and w.head == at]


@cache
def _people_nouns() -> frozenset[str]:
    """The nouns that name a person: relations, "the user", "people"."""
    return tables.word_set("relations") | {"user", "person", "people"}


def slot_of(words: tuple[Word, ...], i: int) -> tuple[str, str, str]:
    """Where word ``i`` stands: its head's stem and its relation to it ("to" for the
    object of "allergic to"), a conjunct standing where its first conjunct stands."""
    # A verb after a preposition names an activity where a noun stands ("a budget for
    # eating out" / "a budget for groceries").
    named = words[i].pos in (*NOUNS, "ADJ") or words[i].dep == "pcomp"
    pos = "N" if named else words[i].pos
    seen = {i}
    while words[i].dep == "conj" and words[i].head not in seen:
        i = words[i].head
        seen.add(i)
    word = words[i]
    head = words[word.head]
    if word.dep in ("pobj", "pcomp"):
        return norm_stem(words[head.head].lemma), head.low, pos
    if word.dep in ("amod", "compound", "nmod"):
        return norm_stem(head.lemma), "mod", "N"  # which one: "consulting hours"
    return norm_stem(head.lemma), word.dep, pos


def adjuncts_of(
    words: tuple[Word, ...], found: list[Value], chains: dict[int, str]
) -> frozenset[str]:
    """Circumstances of a clause (when, where, with whom: a phrase hanging from its verb),
    as stems, names and value keys: "since 2026", "near the Spree"."""
    inside: set[int] = set()
    for i, word in enumerate(words):
        if word.dep in ("prep", "npadvmod", "advmod", "advcl") and words[word.head].pos in (
            "VERB",
            "AUX",
        ):
            inside |= subtree(words, i)
    out = {v.key for v in found if v.index in inside or v.kind in _WHEN}
    for i in inside:
        out.add(chains[i] if i in chains else norm_stem(words[i].lemma))
    return frozenset(out)


def subtree(words: tuple[Word, ...], root: int) -> set[int]:
    out = {root}
    grew = True
    while grew:
        more = {j for j, w in enumerate(words) if w.head in out and j not in out}
        grew = bool(more)
        out |= more
    return out


def denies(words: tuple[Word, ...], i: int) -> bool:
    """A denial word that governs a clause or opens the sentence ("Contrary to that")."""
    clause = any(w.head == i and w.dep in ("ccomp", "advcl", "xcomp") for w in words)
    head = words[words[i].head]
    return clause or (head.dep == "ROOT" and any(w.dep == "ccomp" for w in words)) or i == 0


def denied_verb(words: tuple[Word, ...], i: int) -> str:
    """The verb of the clause a denial governs (else the sentence's root)."""
    for j, w in enumerate(words):
        if w.dep == "ccomp" and j != i:
            return norm(w.lemma)
    root = next((w for w in words if w.dep == "ROOT" and w.sent == words[i].sent), words[i])
    return norm(root.lemma)


def first_noun_after(words: tuple[Word, ...], i: int) -> int | None:
    """The first noun after an owner and its "'s" (past adjectives), in its sentence."""
    for j in range(i + 1, min(len(words), i + 5)):
        if words[j].sent != words[i].sent:
            return None
        if words[j].pos in NOUNS and j not in (i,):
            return j
        if words[j].pos not in ("PART", "ADJ", "PUNCT"):
            return None
    return None


def initial_name(words: tuple[Word, ...]) -> str:
    """The first word when it is capitalized and could be a name the parser missed
    ("Anjali presents ..." tagged as an adjective); compared only with the other text's
    names."""
    if not words or not words[0].text[:1].isupper():
        return ""
    return words[0].low if words[0].pos in ("ADJ", "NOUN", "PROPN", "VERB", "X") else ""


def owned_by_of(words: tuple[Word, ...], word: Word) -> bool:
    """ "the sister of Arjun": a name after "of" owns the noun before it."""
    of = words[word.head]
    return word.pos == "PROPN" and words[of.head].pos == "NOUN" and of.dep == "prep"


def role_of(word: Word, words: tuple[Word, ...]) -> str:
    if word.dep in SUBJECT_DEPS:
        return "subject"
    if word.dep in _OBJECT_DEPS:
        return "object"
    if word.dep == "pobj" and words[word.head].dep == "agent":
        return "subject"
    return ""
