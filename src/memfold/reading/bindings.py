"""The result check on bindings: a text a judge wrote in place of its sources (a merge, an
update, a summary, an extract) must keep who did what to whom, when, where, how much and
with which polarity, and must assert nothing no source holds.

Read on the parse of every text (``memfold.reading.facts``):

- nothing new: every value (number with what it counts, amount, date, time) and every
  name of the result is in some source;
- nothing lost (``keep_all``: merges and lifecycle summaries): every value, name, noun
  and verb of every source, and what it says its subject is ("is free"), is in the
  result;
- bindings kept: participants (names and values) that one part of the result states
  together must be stated together by one source ("in January with Ana" when January
  went with Tom), and two names must not trade places ("Daniel mentors Sofia");
- roles, owners and polarity as a source has them: the subject of a verb, whose thing
  it is, what is negated and what is its antonym; a state word ("enabled") said of
  nouns one source says it of;
- at most ``max_new_words`` new content words, ``max_new_nouns`` new nouns (and, with
  ``keep_all``, as many new verbs).
Pure; each problem names what it saw."""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import combinations

from memfold.reading import tables
from memfold.reading.acronyms import told_by_initials
from memfold.reading.facts import Facts, facts
from memfold.reading.keys import PRONOUNS, norm_stem, stem
from memfold.reading.model import Reading, Word
from memfold.reading.parser import read
from memfold.reading.predicates import moved_attributes

_SEGMENT_MARKS = frozenset((";", ",", ":", "—", "–", "(", ")"))
_CLAUSE_JOINS = frozenset(("and", "but", "while", "whereas"))
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def binding_problems(
    result: str,
    sources: Sequence[str],
    *,
    keep_all: bool,
    max_new_words: int,
    max_new_nouns: int,
    speakers: Sequence[str] = (),
) -> list[str]:
    """Why ``result`` misstates ``sources`` (empty: it keeps their bindings). At most
    ``max_new_words`` content words and ``max_new_nouns`` nouns no source has.
    ``speakers`` are the names of whoever says "I" in the sources (turns of a
    conversation): "Jon's studio" may stand for Jon's "my studio"."""
    out = facts(result)
    held = [facts(s) for s in sources]
    problems = _new_participants(out, held)
    if keep_all:
        problems += _lost_participants(out, held)
    problems += _cross_bindings(result, out, held)
    problems += _traded_places(result, out, held, sources)
    problems += _roles(out, held)
    problems += _owners(out, held, {s.lower() for s in speakers})
    problems += _polarity(out, held if keep_all else _closest_statements(out, sources))
    if len(held) > 1:
        problems += _states_bound(result, held)
        problems += moved_attributes(result, sources)
    problems += _new_words(out, held, max_new_words, max_new_nouns)
    if keep_all:
        problems += _new_verbs(out, held, max_new_nouns)
    return problems


def _new_participants(out: Facts, held: list[Facts]) -> list[str]:
    values = {v.ident for f in held for v in f.values}
    loose = {(v.kind, v.key) for f in held for v in f.values}
    names = set().union(*(f.names for f in held)) if held else set()
    stems = set().union(*(f.every_stem for f in held)) if held else set()
    problems = []
    months = {v.key[:2] for f in held for v in f.values if v.kind == "date"}
    for value in out.values:
        if value.ident in values:
            continue
        if value.kind == "date" and len(value.key) == 2 and value.key in months:
            continue  # "in May" over sources dated May 3 and May 11
        if (value.kind, value.key) in loose and value.kind == "number":
            problems.append(f"result binds {value.key} to '{value.anchor}', which no source does")
        else:
            problems.append(f"result states {value.kind} '{value.show()}', which no source holds")
    initials = set().union(*(told_by_initials(out, f) for f in held)) if held else set()
    for name in sorted(out.names - names - initials):
        if stem(name) not in stems:
            problems.append(f"result names '{name}', which no source does")
    return problems


def _lost_participants(out: Facts, held: list[Facts]) -> list[str]:
    kept = {v.ident for v in out.values}
    problems = []
    for source in held:
        for value in source.values:
            if value.ident not in kept:
                problems.append(f"result drops {value.kind} '{value.show()}'")
        initials = told_by_initials(source, out)
        for name in sorted(source.names - out.names - initials):
            if stem(name) not in out.every_stem:
                problems.append(f"result drops the name '{name}'")
        for word in sorted(source.nouns | source.verbs):
            if stem(word) not in out.every_stem:
                problems.append(f"result drops '{word}'")
        for state in sorted(source.states - out.every_stem):
            problems.append(f"result drops what a source says it is ('{state}')")
    return list(dict.fromkeys(problems))


def _segments(reading: Reading) -> list[int]:
    """The clause-like segment of each word: a new one at each sentence and after each
    ; , : dash or parenthesis."""
    segment_of: list[int] = []
    segment = 0
    for i, word in enumerate(reading.words):
        if i and word.sent != reading.words[i - 1].sent:
            segment += 1
        if word.low in _CLAUSE_JOINS and reading.words[word.head].pos in ("VERB", "AUX"):
            segment += 1  # "takes metformin and walks after dinner": two clauses
        segment_of.append(segment)
        if word.text in _SEGMENT_MARKS:
            segment += 1
    return segment_of


def _participants_by_segment(reading: Reading, f: Facts) -> list[set[str]]:
    """The names and values of each segment that holds two or more."""
    segment_of = _segments(reading)
    out: list[set[str]] = [set() for _ in range(max(segment_of, default=0) + 1)]
    for value in f.values:
        out[segment_of[value.index]].add(_key_of_value(value.kind, value.key))
    for i in range(len(reading.words)):
        name = _name_at(f, reading, i)
        if name:
            out[segment_of[i]].add(name)
    return [s for s in out if len(s) > 1]


def _name_at(f: Facts, reading: Reading, i: int) -> str:
    low = reading.words[i].low
    for name in f.names:
        if name.split()[0] == low:
            return name
    return ""


def _key_of_value(kind: str, key: str) -> str:
    return f"{kind}:{key}"


def _source_keys(f: Facts) -> set[str]:
    return {_key_of_value(v.kind, v.key) for v in f.values} | set(f.names)


def _cross_bindings(result: str, out: Facts, held: list[Facts]) -> list[str]:
    """Two participants the result states together, each from a source that states it
    with another of the other's kind: "in January with Ana" where January went with Tom
    and Ana with March."""
    if len(held) < 2:
        return []
    keys = [_source_keys(f) for f in held]
    problems = []
    for segment in _participants_by_segment(read(result), out):
        for a, b in combinations(sorted(segment), 2):
            if any(a in k and b in k for k in keys):
                continue
            if _bound_elsewhere(a, b, keys) and _bound_elsewhere(b, a, keys):
                problems.append(
                    f"result binds '{_shown(a)}' to '{_shown(b)}', which no source does"
                )
    return list(dict.fromkeys(problems))


def _bound_elsewhere(a: str, b: str, keys: list[set[str]]) -> bool:
    """Some source states ``a`` with another participant of ``b``'s kind."""
    kind = _kind(b)
    return any(a in k and any(_kind(x) == kind and x not in (a, b) for x in k) for k in keys)


def _kind(key: str) -> str:
    return key.split(":", 1)[0] if ":" in key else "name"


def _shown(key: str) -> str:
    return key.split(":", 1)[1] if ":" in key else key


def _traded_places(result: str, out: Facts, held: list[Facts], sources: Sequence[str]) -> list[str]:
    """Two names of one source in the other order within one segment of the result, in
    the same voice: "Daniel mentors Sofia" for "Sofia mentors Daniel"."""
    problems = []
    result_orders = _segment_orders(read(result), out)
    for source, text in zip(held, sources, strict=True):
        source_orders = _segment_orders(read(text), source)
        for (first, second), passive in result_orders.items():
            if (first, second) in source_orders:
                continue
            if source_orders.get((second, first)) == passive:
                problems.append(f"result has '{first}' and '{second}' trade places")
    return list(dict.fromkeys(problems))


def _segment_orders(reading: Reading, f: Facts) -> dict[tuple[str, str], bool]:
    """Each ordered pair of names standing in one segment, with that sentence's voice."""
    segments = _segments(reading)
    by_segment: dict[int, list[str]] = {}
    for i in range(len(reading.words)):
        name = _name_at(f, reading, i)
        if name and (i == 0 or _name_at(f, reading, i - 1) != name):
            by_segment.setdefault(segments[i], []).append(name)
    out: dict[tuple[str, str], bool] = {}
    for index, names in by_segment.items():
        sent = reading.words[segments.index(index)].sent
        for k, first in enumerate(names):
            for second in names[k + 1 :]:
                if second != first:
                    out.setdefault((first, second), sent in f.passive)
    return out


def _roles(out: Facts, held: list[Facts]) -> list[str]:
    """Each verb of the result has a subject some source gives that verb."""
    problems = []
    known = _participants(held)
    names = set().union(*(f.names for f in held)) if held else set()
    light = tables.word_set("light_verbs")
    for verb, args in out.clauses:
        if verb in light:
            continue  # "is", "has": the subject of a copula says little about who did what
        theirs = [a for f in held for v, a in f.clauses if v == verb]
        objects = out.roles.get((verb, "object"), frozenset())
        # A swap: the sources' subject of the verb is now its object ("Kofi's cousin owes
        # him"); a subject that is simply not named ("the studio is starting") is none.
        swapped = any(t & objects for t in theirs)
        # Or one named person in another's place: "Raj hosts" where the sources have
        # Lena host (and Raj pick the book).
        guessed = verb in out.guessed or any(verb in f.guessed for f in held)
        named = not guessed and bool(args & names) and all(t & names for t in theirs)
        if theirs and (swapped or named) and args & known and not any(args & t for t in theirs):
            problems.append(
                f"result makes {', '.join(sorted(args))} the subject of '{verb}'; "
                f"the sources say {', '.join(sorted(set().union(*theirs)))}"
            )
    return problems + _named_objects(out, held, names)


def _named_objects(out: Facts, held: list[Facts], names: set[str]) -> list[str]:
    """A name as the object of a verb whose object every source names otherwise:
    "is reading Piranesi" where the sources read Middlemarch (and pick Piranesi)."""
    problems = []
    for (verb, role), args in sorted(out.roles.items()):
        theirs = [f.roles[(verb, role)] for f in held if (verb, role) in f.roles]
        if role != "object" or verb in tables.word_set("light_verbs") or not theirs:
            continue
        if args & names and all(t & names for t in theirs) and not any(args & t for t in theirs):
            problems.append(
                f"result makes {', '.join(sorted(args))} the object of '{verb}'; "
                f"the sources say {', '.join(sorted(set().union(*theirs)))}"
            )
    return problems


def _participants(held: list[Facts]) -> set[str]:
    """Whatever some source has as a name, a noun or the argument of a verb."""
    out: set[str] = set()
    for f in held:
        out |= f.names | f.nouns | {"user"}
        for args in f.roles.values():
            out |= args
    return out


def _owners(out: Facts, held: list[Facts], speakers: set[str]) -> list[str]:
    problems = []
    for thing, all_owners in sorted(out.owners.items()):
        # "their phone": whose, the parse cannot tell; a speaker's name is their "my".
        owners = {"user" if o in speakers else o for o in all_owners - PRONOUNS}
        if not owners:
            continue
        theirs = [f.owners[thing] for f in held if thing in f.owners]
        if theirs and not owners <= set().union(*theirs):
            problems.append(f"result gives '{thing}' to {', '.join(sorted(owners))}")
    return problems


def _closest_statements(out: Facts, sources: Sequence[str]) -> list[Facts]:
    """The sentences of ``sources`` a part of them restates (an extract, a summary line):
    those sharing at least half as many of its words and names as the closest one. A
    negation elsewhere in a long message ("I'm not sure how to start. My deadline is
    April 1.") is not the part's to keep."""
    mine = {stem(w) for w in out.content} | {stem(n) for n in out.names}
    sentences = [s for text in sources for s in _SENTENCE_END.split(text) if s.strip()]
    scored = [(len(mine & facts(s).every_stem), s) for s in sentences]
    best = max((n for n, _ in scored), default=0)
    if best == 0:
        return [facts(s) for s in sources]
    return [facts(s) for n, s in scored if 2 * n >= best]


def _polarity(out: Facts, held: list[Facts]) -> list[str]:
    negated = set().union(*(f.negated for f in held)) if held else set()
    problems = [
        f"result negates '{word}', which no source does" for word in sorted(out.negated - negated)
    ]
    stems = set().union(*(f.every_stem for f in held)) if held else set()
    for source in held:
        for word in sorted(source.negated - out.negated):
            if stem(word) in out.every_stem and word != "be":
                problems.append(f"result drops the negation of '{word}'")
        # A copula negated with nothing else read as negated ("Sam is not in Paris"):
        # the whole statement is. "I'm not sure ..." negates "sure", which a text that
        # leaves the doubt out does not hold.
        if source.negated == {"be"} and not out.negated:
            problems.append("result drops a negation a source states")
    for pair in tables.pairs("antonyms"):
        for x, y in (sorted(pair), sorted(pair)[::-1]):
            if stem(y) in out.every_stem and stem(y) not in stems and stem(x) in stems:
                problems.append(f"result says '{y}' where a source says '{x}'")
    return list(dict.fromkeys(problems))


def _states_bound(result: str, held: list[Facts]) -> list[str]:
    """A state word ("enabled", "not") and the nouns of its segment must come from one
    source: "dark mode is disabled on the laptop" where the phone's updates were."""
    reading = read(result)
    states = tables.word_set("antonyms")
    segment_of = _segments(reading)
    problems = []
    for segment in sorted(set(segment_of)):
        idx = [i for i, s in enumerate(segment_of) if s == segment]
        words = [reading.words[i] for i in idx]
        marked = [
            w
            for w in words
            if (w.lemma in states or w.low in states or w.dep == "neg")
            and w.pos != "ADP"
            and not _says_how(reading, w)
        ]
        if not marked:
            continue
        nouns = {
            norm_stem(w.lemma)
            for w in words
            if w.pos in ("NOUN", "PROPN") and w.lemma not in tables.word_set("general_nouns")
        }
        for mark in marked:
            if not any(norm_stem(mark.lemma) in f.every_stem for f in held):
                continue  # a state no source names at all is a new word, checked as such
            needed = nouns | {norm_stem(mark.lemma)}
            if not any(needed <= f.every_stem for f in held):
                problems.append(
                    f"result says '{mark.text}' of {', '.join(sorted(nouns))} together, "
                    "which no source does"
                )
    return problems


def _says_how(reading: Reading, word: Word) -> bool:
    """A particle or adverb of a verb other than "be" says how the verb goes ("pay it
    back", "call back"), not a state ("is back")."""
    head = reading.words[word.head]
    return word.dep in ("prt", "advmod") and head.pos == "VERB" and head.lemma != "be"


def _new_words(out: Facts, held: list[Facts], max_words: int, max_nouns: int) -> list[str]:
    stems = set().union(*(f.every_stem for f in held)) if held else set()
    new = sorted(w for w in out.content if stem(w) not in stems)
    nouns = [w for w in new if w in out.nouns]
    if len(new) > max_words or len(nouns) > max_nouns:
        return [f"result adds {', '.join(repr(w) for w in new)}, which no source says"]
    return []


def _new_verbs(out: Facts, held: list[Facts], max_verbs: int) -> list[str]:
    """A text that must keep every source whole says nothing new of their things: a verb
    no source has is a new statement ("has outgrown the allergy"), held to the nouns'
    bound."""
    stems = set().union(*(f.every_stem for f in held)) if held else set()
    new = sorted(w for w in out.verbs if stem(w) not in stems)
    if len(new) > max_verbs:
        return [f"result says {', '.join(repr(w) for w in new)}, which no source says"]
    return []
