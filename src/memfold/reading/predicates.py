"""What a text says of each named subject: the things its clauses name after the verb,
the clause's subject given directly, by apposition ("the user's dog Biscuit is 3") or by
the verb it is joined to ("Biscuit is 3, is on a kidney diet"). A written text must not
say of one name what its sources say only of another ("Biscuit ... is on a kidney diet"
where the sources put Miso on it). Pure."""

from __future__ import annotations

from collections.abc import Sequence

from memfold.reading import tables
from memfold.reading.facts import Facts, facts
from memfold.reading.keys import norm_stem
from memfold.reading.model import Reading, Word
from memfold.reading.parser import read

_VERBS = frozenset(("VERB", "AUX"))
_SUBJECTS = frozenset(("nsubj", "nsubjpass"))


def moved_attributes(result: str, sources: Sequence[str]) -> list[str]:
    """Things ``result`` says of a name that the sources say of another name only."""
    ours = said_of_names(read(result), facts(result))
    theirs: set[tuple[str, str]] = set()
    for source in sources:
        theirs |= said_of_names(read(source), facts(source))
    problems = []
    for name, thing in sorted(ours - theirs):
        others = sorted({n for n, t in theirs if t == thing and n != name})
        if others:
            problems.append(
                f"result says '{thing}' of {name}; the sources say it of {', '.join(others)}"
            )
    return problems


def said_of_names(reading: Reading, f: Facts) -> set[tuple[str, str]]:
    """(name, stem) for each thing a clause with a named subject names after its verb."""
    words = reading.words
    general = tables.word_set("general_nouns")
    out: set[tuple[str, str]] = set()
    for h, verb in enumerate(words):
        if verb.pos not in _VERBS:
            continue
        names = {n for t in _subjects(words, h) for n in f.names if words[t].low in n.split()}
        if not names:
            continue
        for t in _clause(words, h):
            word = words[t]
            if t > h and word.pos == "NOUN" and word.lemma not in general:
                out |= {(n, norm_stem(word.lemma)) for n in names}
    return out


def _subjects(words: tuple[Word, ...], h: int) -> list[int]:
    """The subject words of verb ``h`` and their appositions, or those of the verb it is
    joined to."""
    seen: set[int] = set()
    while h not in seen:
        seen.add(h)
        found = [i for i, w in enumerate(words) if w.head == h and i != h and w.dep in _SUBJECTS]
        found += [i for i, w in enumerate(words) if w.dep == "appos" and w.head in found]
        if found:
            return found
        if words[h].dep != "conj":
            return []
        h = words[h].head
    return []


def _clause(words: tuple[Word, ...], h: int) -> list[int]:
    """The words that hang on verb ``h``, not through a joined verb or a subject."""
    out, todo = [], [h]
    while todo:
        at = todo.pop()
        for i, w in enumerate(words):
            if w.head != at or i == at or w.dep in _SUBJECTS:
                continue
            if w.dep == "conj" and w.pos in _VERBS:
                continue
            out.append(i)
            todo.append(i)
    return out
