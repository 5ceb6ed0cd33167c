"""How a newer text stands to an older one, on their readings: the same fact (told the
same or in other words), the same fact with a detail more or less, a changed fact (the
newer says the fact changed), a contradiction, or another fact. The offline rule judge
proposes from this; the guards check whatever a judge proposes on the same readings.
Pure."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from memfold.reading.acronyms import abbreviates
from memfold.reading.converse import as_told_by_older
from memfold.reading.difference import moved_from, supersede_conflicts, uncovered
from memfold.reading.facts import Facts, facts
from memfold.reading.keys import stem
from memfold.reading.model import Difference
from memfold.reading.predicate_nouns import as_shaped_by_older
from memfold.reading.restatement import new_value_only, restatement_differences, substitutions
from memfold.reading.supersede import supersede_evidence

_WORDS = re.compile(r"\w+")
_EMPTY = frozenset(("be", "have"))  # verbs that say nothing of their own


class Relation(Enum):
    SAME = "same"  # each says all the other says
    SAYS_MORE = "says_more"  # the newer says all the older says, and a detail more
    SAYS_LESS = "says_less"  # the older already says all the newer says
    CHANGED = "changed"  # the newer says the older's fact changed
    CONTRADICTS = "contradicts"  # one negates the other, with no sign of change
    OTHER = "other"


@dataclass(frozen=True, slots=True)
class Limits:
    """``max_additions``: details a restatement may add; ``swap_max``: see
    ``restatement.substitutions``; ``min_overlap``: see ``supersede.supersede_evidence``."""

    max_additions: int
    swap_max: int
    min_overlap: float
    # Words of the older a restatement may tell in other words (None: any, each for one).
    max_reworded: int | None = None
    # The strict reading (``max_reworded`` set) takes a change that replaces nothing it
    # can point to where the cue's clause names this share of the older's attribute.
    told_overlap: float = 1.0


@dataclass(frozen=True, slots=True)
class PairReading:
    relation: Relation
    detail: str
    # A changed fact told in the same words, only its values new ("set to 8" / "raised
    # to 16"): the guards' lower cosine floor applies.
    value_only: bool = False
    # The same words, whatever the case, spacing and punctuation.
    exact: bool = False
    # A new value told in the older's words, or a retraction (not a word, a name or a
    # verb told in place of the older's): the update channel's low floor applies.
    slot_value: bool = False


def same_words(a: str, b: str) -> bool:
    """The same words, whatever the case, spacing and punctuation."""
    return _WORDS.findall(a.lower()) == _WORDS.findall(b.lower())


def _asks(text: str) -> bool:
    return text.rstrip().rstrip("\"')»”’ ").endswith("?")


def _replaces(older: str, newer: str, swap_max: int) -> bool:
    """``newer`` tells something in place of what ``older`` says: a word in the same place
    (``restatement.substitutions``), a value or a name of the same kind, a new name after
    the older's verb and preposition, or a verb of the older's clauses it does not use.
    Words told apart are one for one or in the same place: two details dropped and two
    others told ("for a starting price of ..." / "through ... resellers") replace
    nothing."""
    if substitutions(older, newer, min(swap_max, 1)) or _value_replaced(older, newer):
        return True
    a, b = facts(older), facts(newer)
    if _name_slots(a) & _name_slots(b, a.names) or moved_from(a, b):
        return True
    return any(stem(verb) not in b.every_stem for verb, _ in a.clauses if verb not in _EMPTY)


def _name_slots(f: Facts, besides: frozenset[str] = frozenset()) -> set[tuple[str, str]]:
    """Where ``f``'s names (other than ``besides``) stand after a preposition: its verb's
    lemma and the preposition ("lives in Tehran": ("live", "in")). The newer's new name
    where the older has one tells the older's place anew ("lives in Tehran" / "left
    Tehran and now lives in Toronto")."""
    out = set()
    for name in f.names - besides:
        if any(abbreviates(name, other) for other in besides):
            continue  # "the U.S." / "the United States"
        last = name.split()[-1]
        for j, low in enumerate(f.lows):
            if low == last and f.deps[j] == "pobj":
                prep = f.heads[j]
                out.add((f.lemmas[f.heads[prep]], f.lows[prep]))
    return out


def _value_replaced(older: str, newer: str) -> bool:
    """A value or a name of one kind told in place of another ("Greg Holloway" / "Patricia
    Nwosu", "one cat" / "two cats")."""
    a, b = facts(older), facts(newer)
    lost = {d.kind for d in uncovered(a, b) if d.kind != "word"}
    return bool(lost & {d.kind for d in uncovered(b, a)})


def _value_dropped(older: str, newer: str) -> bool:
    """A value of the older's that the newer neither tells nor tells anew ("for about
    $12,700" / "through resellers"): a detail told apart, not one replaced."""
    a, b = facts(older), facts(newer)
    lost = {d.kind for d in uncovered(a, b) if d.kind not in ("word", "name")}
    return bool(lost - {d.kind for d in uncovered(b, a)})


def _recounted(found: list[Difference]) -> bool:
    return any(d.kind == "count" for d in found)


def relate(older: str, newer: str, limits: Limits) -> PairReading:
    """How ``newer`` stands to ``older`` (see the module docstring)."""
    newer = as_told_by_older(older, newer)  # a relation told back, read as the older tells it
    if same_words(older, newer):
        return PairReading(Relation.SAME, "the same words", exact=True)
    shaped = as_shaped_by_older(older, newer)  # "born in Accra" / "Accra is ...'s birthplace"
    if same_words(older, shaped):
        return PairReading(Relation.SAME, "the same fact, told by its predicate and by a noun")
    newer = shaped
    conflicts = supersede_conflicts(older, newer)
    if conflicts:
        return PairReading(Relation.OTHER, f"about another thing ({conflicts[0]})")
    if _asks(older) != _asks(newer):
        return PairReading(Relation.OTHER, "a question and a statement")
    bounds = (limits.max_additions, limits.swap_max, limits.max_reworded)
    forward = restatement_differences(older, newer, *bounds)
    backward = restatement_differences(newer, older, *bounds)
    if not forward and not backward:
        # Told the same; where the older holds every word of the newer and more, it stays
        # the active text (a word such as "hungrily" the readings do not weigh is kept).
        contained = set(_WORDS.findall(newer.lower())) < set(_WORDS.findall(older.lower()))
        relation = Relation.SAYS_LESS if contained else Relation.SAME
        return PairReading(relation, "the readings agree: the same fact in other words")
    # "two approvals" / "only one approval": one says another count, not more
    if not forward and not _recounted(backward):
        return PairReading(Relation.SAYS_MORE, f"the newer says it all and more ({backward[0]})")
    if not backward and not _recounted(forward):
        return PairReading(Relation.SAYS_LESS, f"the older already says it all ({forward[0]})")
    evidence = supersede_evidence(older, newer, limits.min_overlap, limits.swap_max)
    value_only = evidence.found and (
        evidence.value or new_value_only(older, newer, limits.swap_max)
    )
    # The strict reading supersedes where the change replaces something the older says:
    # a value, a word in the same place, the older's own verb ("drives to work" /
    # "started cycling"), or a retraction; a cue beside details told apart is left.
    strict = limits.max_reworded is not None
    # "The user's default shell is bash" / "changed their default shell to zsh": all of
    # what the older says of its subject told again under the cue.
    retold = (
        evidence.found
        and evidence.overlap >= limits.told_overlap
        and not _value_dropped(older, newer)
    )
    replaced = value_only or evidence.retraction or _replaces(older, newer, limits.swap_max)
    replaced = replaced or retold or _recounted(forward + backward)
    if evidence.found and (not strict or replaced):
        slot_value = value_only or evidence.retraction or retold
        return PairReading(Relation.CHANGED, evidence.reason, value_only, slot_value=slot_value)
    first = (forward or backward)[0]
    if evidence.contradiction:
        return PairReading(Relation.CONTRADICTS, f"{first}: {evidence.reason}")
    return PairReading(Relation.OTHER, str(first))
