"""A relation between two people told from the other one's side: "Hugo is Clara's son" /
"Clara is Hugo's mother" (``data/converse_relations.txt``). Where the newer text says the
older's relation back, the guards read it as the older's side tells it: the newer's
parse with its two people swapped and its relation noun the older's, so every other
word of it is compared as written. Pure."""

from __future__ import annotations

from functools import cache

from memfold.reading import parser, tables
from memfold.reading.facts import Facts, facts
from memfold.reading.model import Reading, Word

_PEOPLE = frozenset(("PROPN",))

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
    reading = parser.read(newer)
    mine = facts(newer)
    told = _told(reading, mine.names)
    verbs = [w for w in reading.words if w.pos in ("VERB", "AUX")]
    if told is None or len(verbs) != 1 or len(mine.clauses) != 1:
        # Only a text that says the relation and no more: in "Clara is Hugo's mother
        # and lives in Lima" it is Clara who lives there.
        return newer
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
