"""A relation between two people told from the other one's side: "Hugo is Clara's son" /
"Clara is Hugo's mother" (``data/converse_relations.txt``), "Ana works with Ben" / "Ben
works with Ana" (``data/mutual_words.txt``). Where the newer text says the older's
relation back, the guards read it as the older's side tells it: the newer's parse with
its two people swapped (and its relation noun the older's), so every other word of it is
compared as written. Pure."""

from __future__ import annotations

from functools import cache

from memfold.reading import parser, tables
from memfold.reading.facts import Facts, facts
from memfold.reading.model import Reading, Word

_PEOPLE = frozenset(("PROPN",))
_AUX = frozenset(("aux", "auxpass"))

__all__ = ["as_told_by_older", "converse_of"]


@cache
def _backs() -> dict[str, frozenset[str]]:
    """Each relation noun mapped to the nouns that tell it back."""
    out: dict[str, set[str]] = {}
    for entry in tables.entries("converse_relations"):
        words = list(entry.words)
        if "/" in words:
            at = words.index("/")
            one, other = words[:at], words[at + 1 :]
        else:
            one = other = words
        for word in one:
            out.setdefault(word, set()).update(other)
        for word in other:
            out.setdefault(word, set()).update(one)
    return {word: frozenset(found) for word, found in out.items()}


def converse_of(relation: str, back: str) -> bool:
    """Whether ``back`` tells ``relation`` from the other side ("son" / "mother")."""
    return back in _backs().get(relation, frozenset())


def _told(reading: Reading, names: frozenset[str]) -> tuple[int, int, int] | None:
    """The one relation a text tells by a copula, as word indices: its subject (a
    name), the owner (a name) and the relation noun ("Clara is Hugo's mother")."""
    words = reading.words
    found = None
    for i, word in enumerate(words):
        if word.dep != "attr" or word.lemma.lower() not in _backs():
            continue
        verb = words[word.head]
        subjects = [j for j, w in enumerate(words) if w.head == word.head and w.dep == "nsubj"]
        owners = [j for j, w in enumerate(words) if w.head == i and w.dep == "poss"]
        if verb.lemma != "be" or len(subjects) != 1 or len(owners) != 1:
            continue
        if not all(_person(words, j, names) for j in (*subjects, *owners)) or found:
            return None
        found = (subjects[0], owners[0], i)
    return found


def _person(words: tuple[Word, ...], i: int, names: frozenset[str]) -> bool:
    """A name of one word (however the model tags it), with nothing hung on it but a
    possessive mark."""
    word = words[i]
    return (word.pos in _PEOPLE or word.low in names) and all(
        w.dep == "case" for w in words if w.head == i and w is not word
    )


def _relations(f: Facts, reading: Reading) -> set[tuple[str, str, str]]:
    """(person, relation, whose) for each relation the text tells of two named people:
    "X is Y's R" or "Y's R is X"."""
    out = set()
    words = reading.words
    told = _told(reading, f.names)
    if told is not None:
        s, o, r = told
        out.add((words[s].low, words[r].lemma.lower(), words[o].low))
    for verb, subjects in f.clauses:
        if verb != "be":
            continue
        named = f.roles.get(("be", "object"), frozenset()) & f.names
        for subject in subjects:
            for whose in f.owners.get(subject, frozenset()):
                out.update((p, subject, whose) for p in named if " " not in p)
    return out


def as_told_by_older(older: str, newer: str) -> str:
    """``newer`` as the older's side tells its relation, where it tells it back ("Clara is
    Hugo's mother" read as "Hugo is Clara's son" against "Hugo is Clara's son");
    otherwise ``newer`` itself. The reading made is kept with the parser's, under the
    text it stands for."""
    mine = facts(newer)
    if len(mine.names) < 2 or len(mine.clauses) != 1:
        return newer  # two people told of, in one clause; most texts stop here
    reading = parser.read(newer)
    verbs = [w for w in reading.words if w.pos in ("VERB", "AUX") and w.dep not in _AUX]
    if len(verbs) != 1:
        # Only a text that says the relation and no more: in "Clara is Hugo's mother
        # and lives in Lima" it is Clara who lives there.
        return newer
    told = _told(reading, mine.names)
    if told is None:
        return _mutual_swapped(older, newer, reading, mine.names)
    s, o, r = told
    words = reading.words
    person, whose, back = words[s].low, words[o].low, words[r].lemma.lower()
    matched = [
        (p, rel, w)
        for p, rel, w in _relations(facts(older), parser.read(older))
        if p == whose and w == person and converse_of(rel, back)
    ]
    if len(matched) != 1:
        return newer
    relation = matched[0][1]
    edited = list(words)
    edited[s] = _renamed(words[s], words[o].text)
    edited[o] = _renamed(words[o], words[s].text)
    edited[r] = words[r]._replace(text=relation, lemma=relation, tag="NN")
    text = _respelled(newer, words, {s: words[o].text, o: words[s].text, r: relation})
    if text != newer and not parser.known(text):
        parser.remember([Reading(text, tuple(edited))])
    return text


def _mutual_swapped(older: str, newer: str, reading: Reading, names: frozenset[str]) -> str:
    """``newer`` with its two people swapped, where a word of ``data/mutual_words.txt``
    relates them ("Ben works with Ana" read as "Ana works with Ben") and the older tells
    the second as its subject and names the first."""
    pair = _mutual(reading, names)
    if pair is None:
        return newer
    s, p = pair
    words = reading.words
    theirs = facts(older)
    subjects = {key for _, keys in theirs.clauses for key in keys}
    known = theirs.names | subjects
    if not {words[p].low, words[p].lemma} & subjects or not {words[s].low, words[s].lemma} & known:
        return newer
    edited = list(words)
    edited[s] = _renamed(words[s], words[p].text)
    edited[p] = _renamed(words[p], words[s].text)
    text = _respelled(newer, words, {s: words[p].text, p: words[s].text})
    if text != newer and not parser.known(text):
        parser.remember([Reading(text, tuple(edited))])
    return text


def _mutual(reading: Reading, names: frozenset[str]) -> tuple[int, int] | None:
    """The subject and the partner of a mutual relation, both one-word names: the object
    of a mutual verb ("met Priya"), or after "with" or "to" hung on a mutual word or on
    its object ("works with Ben", "married to Ama", "shares an office with Tariq")."""
    words = reading.words
    mutual = tables.word_set("mutual_words")
    found = None
    for i, word in enumerate(words):
        head = words[word.head]
        if word.dep == "dobj" and head.lemma in mutual and head.pos == "VERB":
            if not _person(words, i, names):
                continue  # "shares an office with ...": the partner is after "with"
            at = word.head
        elif word.dep == "pobj" and head.low in ("with", "to"):
            at = head.head
            if words[at].lemma not in mutual and words[at].dep in ("dobj", "attr"):
                at = words[at].head  # "shares an office with", "is friends with"
            if words[at].lemma not in mutual and words[head.head].lemma not in mutual:
                continue
            at = at if words[at].lemma in mutual else head.head
            while words[at].dep not in ("ROOT",) and words[at].head != at:
                at = words[at].head
        else:
            continue
        subjects = [j for j, w in enumerate(words) if w.head == at and w.dep == "nsubj"]
        if len(subjects) != 1 or found is not None:
            return None
        if not (_person(words, subjects[0], names) and _person(words, i, names)):
            return None
        found = (subjects[0], i)
    return found


def _renamed(word: Word, name: str) -> Word:
    return word._replace(text=name, lemma=name.lower())


def _respelled(text: str, words: tuple[Word, ...], new: dict[int, str]) -> str:
    """``text`` with the words at the indices of ``new`` spelled as given."""
    out, at = [], 0
    for i, word in enumerate(words):
        found = text.find(word.text, at)
        if found < 0:
            return text
        out.append(text[at:found])
        out.append(new.get(i, word.text))
        at = found + len(word.text)
    out.append(text[at:])
    return "".join(out)
