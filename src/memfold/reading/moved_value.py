"""A value of the older memory's told anew under the newer's change cue (``moved_value``:
"a gallery with 8 cards" / "now I have a total of 10 cards"), and whether a value is a
goal rather than what is so (``is_goal``). Part of the supersede evidence
(``memfold.reading.supersede``). Pure."""

from __future__ import annotations

from collections.abc import Iterable

from memfold.reading import tables
from memfold.reading.cues import cue_spans
from memfold.reading.facts import Facts, facts
from memfold.reading.keys import THIRD_PRONOUNS, stem, table_stems
from memfold.reading.values import Value

_NOUNS = frozenset(("NOUN", "PROPN"))
_POINTERS = frozenset(("it", "this", "that", "these", "those", "they"))
_CLAUSE_LINKS = frozenset(("advcl", "conj", "ccomp", "relcl", "parataxis", "acl"))
_GOAL_ARGUMENTS = frozenset(("nsubj", "nsubjpass", "attr", "dobj"))
_GOAL_MODIFIERS = frozenset(("compound", "amod"))
# Values that change in place. Not a year (two events in two years are two facts), an
# ordinal ("the first sprint") or a version (another product).
_KINDS = frozenset(("number", "money", "percent", "time", "date"))


def moved_value(older: str, newer: str, plans: bool = False) -> str:
    """How ``newer`` gives one of ``older``'s values anew ("'8 card' -> '10 card'"), or
    "": a value of ``newer`` that a change cue of its own (one ``older`` lacks) governs or
    sits beside, of a kind ``older`` holds with another key, counting the same noun;
    a value that counts none, or a unit, must stand under a noun both texts put over
    it ("deadline"). Not an amount changed by ("cut 1,200 words", "up by 5 %"), the old
    side of a change ("from 300KB"), or a value of "it" or "this" (what changed is not
    said). ``plans``: as ``cues.change_cues``."""
    a, b = facts(older), facts(newer)
    theirs = {cue for _, _, cue in cue_spans(a, plans)}
    spans = [(i, n) for i, n, cue in cue_spans(b, plans) if cue not in theirs]
    if not spans:
        return ""
    for new in b.values:
        if new.kind not in _KINDS or _holds(a, new) or not _bound(b, new.index, spans):
            continue
        if _left(b, new.index) or _delta(b, new.index) or _unnamed(b, new.index):
            continue
        old = _counterpart(a, b, new)
        if old is not None:
            return f"'{old.show()}' -> '{new.show()}'"
    return ""


def _left(f: Facts, index: int) -> bool:
    """Is the value what a change left ("reduced from 300KB", "moved from May 3")?"""
    head = f.heads[index]
    return f.lows[head] == "from" or f.lows[f.heads[head]] == "from"


def _delta(f: Facts, index: int) -> bool:
    """Is the value an amount something changed by, the object of a verb or "by" ("cut
    1,200 words", "increased by 5 %"), not what it changed to ("to 4 hours")?"""
    # The value, or the noun it counts ("1,200" of "1,200 words"), and what takes it.
    for j in (index, f.heads[index]):
        if f.lows[f.heads[j]] == "by":
            return True
        if f.deps[j] == "dobj" and f.poses[f.heads[j]] == "VERB":
            return f.lemmas[f.heads[j]] != "have"  # "now has 10 cards" says what is so
    return False


def _unnamed(f: Facts, index: int) -> bool:
    """Is the clause of the value about "it", "this" or "that", which the text does not
    name ("it was adjusted to 1,350 words")?"""
    above = _ancestors(f, index) | {index}
    return any(
        f.heads[j] in above and f.deps[j] in ("nsubj", "nsubjpass") and f.lows[j] in _POINTERS
        for j in range(len(f.lows))
    )


def _holds(f: Facts, value: Value) -> bool:
    return any(v.kind == value.kind and v.key == value.key for v in f.values)


def _counterpart(a: Facts, b: Facts, new: Value) -> Value | None:
    """The value of ``a`` that ``new`` takes the place of, if one is plain: of its kind,
    counting the same noun, a goal for a goal; one that counts no noun or only a unit
    ("3 hours", "$3,000", "April 1") must also stand under a noun both texts put over
    it ("deadline"): a date or an amount alone says nothing of what it is of."""
    goal = is_goal(b, new.index)
    changes = [(i, n) for i, n, _ in cue_spans(a, True)]
    same = [
        v
        for v in a.values
        if v.kind == new.kind
        and v.anchor == new.anchor
        and not _holds(b, v)
        and is_goal(a, v.index) == goal
        # the older's value is what is so, not an amount it changed by ("cut 1,200
        # words", "adjusted to 1,350 words")
        and not _bound(a, v.index, changes)
    ]
    if new.anchor and new.anchor not in table_stems("units"):
        return same[0] if same else None
    over = _nouns_over(b, new.index) | _thing_subject(b, new.index, a)
    return next(
        (v for v in same if (_nouns_over(a, v.index) | _thing_subject(a, v.index, b)) & over),
        None,
    )


def _thing_subject(f: Facts, index: int, other: Facts) -> set[str]:
    """The subject of the clause the value at ``index`` stands in, where it is a thing
    ("Standup is at 9:30" / "Standup moved to 10:15": standup's time), never a person:
    not the user, a pronoun or a name both texts give (what a person does at 9:30 may be
    another thing at 10:15)."""
    clause = _ancestors(f, index)
    verbs = [j for j in clause if f.poses[j] in ("VERB", "AUX")]
    if not verbs:
        return set()
    persons = {"user", *_POINTERS, *THIRD_PRONOUNS}
    # A name both texts give is a person's; a common noun a sentence opens with is not
    # one for its capital ("Dinner with Ana is at 7 pm": dinner's time).
    names = f.names & other.names
    return {
        f.lemmas[j]
        for j, head in enumerate(f.heads)
        if head in verbs
        and f.deps[j] in ("nsubj", "nsubjpass")
        and f.poses[j] in _NOUNS
        and f.lemmas[j] not in persons
        and f.lows[j] not in persons
        and not (f.poses[j] == "PROPN" and (f.lemmas[j] in names or f.lows[j] in names))
    }


def _ancestors(f: Facts, i: int) -> set[int]:
    """The words above word ``i`` in its own clause: not past a clause joined to
    another ("Since I added two projects, I now have ...": "added" stops the way up)."""
    seen: set[int] = set()
    while f.heads[i] != i and f.heads[i] not in seen and f.deps[i] not in _CLAUSE_LINKS:
        i = f.heads[i]
        seen.add(i)
    return seen


def _bound(f: Facts, index: int, spans: Iterable[tuple[int, int]]) -> bool:
    """A cue governs the value ("adjusted to 1,350 words") or modifies a word above it
    ("the new ... deadline of April 5", "now I have a total of 10 cards"); a cue verb of
    a clause of its own ("..., and now I'm moving on") governs none of it."""
    above = _ancestors(f, index) | {index}
    return any(
        j in above
        or (
            f.poses[j] not in ("VERB", "AUX")
            and f.deps[j] not in _CLAUSE_LINKS
            and f.heads[j] in above
        )
        for i, n in spans
        for j in range(i, i + n)
    )


def _nouns_over(f: Facts, index: int) -> set[str]:
    """The lemmas of the nouns above word ``index`` ("deadline" over "April 5"), not
    its unit ("%", "hours") nor a word of a value ("PM" of "5 PM": the time itself)."""
    units = table_stems("units")
    return {
        f.lemmas[j]
        for j in _ancestors(f, index)
        if f.poses[j] in _NOUNS
        and j not in f.value_words
        and stem(f.lows[j]) not in units
        and f.lows[j] not in units
    }


def is_goal(f: Facts, index: int) -> bool:
    """Is the value at ``index`` a goal ("a weight goal of 75 kg", "targeting 1,200
    words", "wants to weigh 70 kg"), not what is so ("weighs 82 kg")? A goal word
    (``data/goal_words.txt``) on the way from the value up to its verb, through the
    verbs it is the complement of, or hanging on one of them."""
    words = tables.word_set("goal_words")
    path = [index]
    i = index
    while f.heads[i] != i and (f.poses[i] not in ("VERB", "AUX") or f.deps[i] == "xcomp"):
        noun_phrase = f.deps[i] == "prep" and f.poses[f.heads[i]] in _NOUNS
        i = f.heads[i]
        path.append(i)
        if noun_phrase:
            break  # the value tells of a thing ("a gallery with 8 cards"), not a target
    # What the clause says of itself: its subject and object and their modifiers ("goal
    # weight"); not a clause joined to it ("..., and I want to make sure").
    near = set(path)
    for deps, over in ((_GOAL_ARGUMENTS, set(path)), (_GOAL_MODIFIERS, None)):
        over = over if over is not None else near - set(path)
        near |= {j for j, head in enumerate(f.heads) if head in over and f.deps[j] in deps}
    return any(f.lemmas[j] in words or f.lows[j] in words for j in near)
