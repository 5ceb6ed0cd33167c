"""When a newer memory may retire an older one (a supersede: DELETE, or a REPLACE that
changes the fact): the parse reads both as about the same thing
(``difference.supersede_conflicts`` finds nothing), and the newer says it changed, by a
change cue (``data/change_cues.txt``: "now", "no longer", "moved to") or by a later date
than the older's, about the same statement (most of the older's words, values aside), or
by a value of the older's told anew under the cue (``moved_value``: "a gallery with 8
cards" / "now a total of 10 cards"), or by new values alone in the cue's clause
(``revalued``: "the phone is an iPhone 12" / "upgraded to an iPhone 15 Pro"). A
negation with neither is a contradiction: both stay, linked. What a text says of its
subject is ``memfold.reading.attribute``'s. Pure."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from memfold.reading import tables
from memfold.reading.attribute import (
    attribute,
    core_overlap,
    lemma_key,
    named_stems,
    owned_overlap,
    subject_words,
)
from memfold.reading.cues import (
    change_cues,
    cue_predicates,
    cue_scope,
    cue_spans,
    describing,
    hangs_under,
    plan_or_wish,
    recency,
)
from memfold.reading.difference import PAIRS_KEPT, switched_from, told, uncovered
from memfold.reading.facts import Facts, facts, on_forget
from memfold.reading.keys import norm, norm_stem, stem, table_stems
from memfold.reading.model import listed
from memfold.reading.moved_value import is_goal, moved_value
from memfold.reading.polarity import said_by_antonym
from memfold.reading.restatement import new_value_only, substitutions

_WHEN = ("year", "date", "weekday", "time")  # when, not what changed
# Words by which a text tells its own time relative to now.
_DEICTIC = frozenset(("yesterday", "today", "tonight", "tomorrow", "ago", "last", "recently"))
# Of those, the words that place a time before now ("last summer", "two years ago").
_BEFORE_NOW = frozenset(("yesterday", "ago", "last", "recently"))
_AMOUNTS = ("number", "money", "percent")
_TOWARD = frozenset(("to", "until", "till", "through"))
_NOUNS = frozenset(("NOUN", "PROPN"))


@dataclass(frozen=True, slots=True)
class Evidence:
    """The verdict on a supersede: ``found`` or not, why, and whether the two are a
    contradiction (a negation with no sign of change: keep both, link them)."""

    found: bool
    reason: str
    contradiction: bool = False
    # The newer negates, with a cue, what the older states ("no longer vegan").
    retraction: bool = False
    # The newer gives one of the older's values anew under its cue (``moved_value``).
    value: bool = False
    # The share of the older's attribute the cue's clause names (1.0: all of it).
    overlap: float = 0.0


def supersede_evidence(older: str, newer: str, min_overlap: float, swap_max: int) -> Evidence:
    """May ``newer`` retire ``older``? See the module docstring; the caller has checked
    ``supersede_conflicts``. ``swap_max``: as many words in the same place as a later
    date may show changed (``restatement.substitutions``)."""
    return _evidence(older, newer, min_overlap, swap_max)


# A judge and then the guards read the same pair.
@lru_cache(maxsize=PAIRS_KEPT)
def _evidence(older: str, newer: str, min_overlap: float, swap_max: int) -> Evidence:
    a, b = facts(older), facts(newer)
    # A plan or a wish ("is going to move") changes only a plan or a wish ("wants daily
    # emails" / "asked for weekly ones instead"), never a fact that still holds.
    plans = plan_or_wish(a)
    theirs = change_cues(a, plans)
    spans = [
        (i, n, c)
        for i, n, c in cue_spans(b, plans)
        if c not in theirs
        and not _said_in(a, c)
        and not _same_level(a, b, c)
        and _tells_change(a, b, i)
    ]
    cues = sorted({c for _, _, c in spans})
    # What a cue says changed is in its own clause: the older's words there, not in a
    # clause further down ("started using Jobscan to compare ... job descriptions").
    at = [(i, n) for i, n, _ in spans]
    scope = cue_scope(b, at) if spans else None
    # A later date is evidence only beside another value that changed ("As of 2023, 12
    # agents" / "As of 2024, 15 agents"); alone it names another one ("the 2024 retreat").
    later = later_date(a, b) if _other_value_changed(a, b, swap_max) else ""
    if not later and _other_value_changed(a, b, swap_max, dates=True):
        later = told_later(a, b)  # "expires on December 31, 2026, per the latest amendment"
    retracted = sorted(w for w in b.negated - a.negated if stem(w) in a.every_stem)
    if not cues and not later:
        # A negation the newer tells by an antonym agrees ("does not like" / "dislikes").
        dropped = {w for w in a.negated - b.negated if not said_by_antonym(w, b)}
        if retracted or dropped:
            return Evidence(False, "a negation with no sign of change: a contradiction", True)
        return Evidence(False, "no change cue and no later date in the newer memory")
    shown = f"change cue {', '.join(repr(c) for c in cues)}" if cues else later
    if scope is not None and not later and not _speaks_of(a, b, scope):
        # "Although Republicans now hold every office, the delegation comprises ...":
        # the cue's clause says nothing of what the older is about.
        return Evidence(False, f"{shown}, in a clause about another subject")
    if scope is not None:
        # A retraction negates what the cue's own clause says of its subject.
        said = cue_predicates(b, at)
        retracted = [w for w in retracted if any(lemma_key(b, j) == w for j in said)]
        # A word of the older's the newer negates beside its statement ("cut the essay
        # without overwhelming readers") says nothing of the older's statement.
        denied = b.negated - a.negated - set(retracted)
        scope = frozenset(j for j in scope if lemma_key(b, j) not in denied)
    if retracted:
        reason = f"the newer memory retracts {', '.join(retracted)} ({shown})"
        return Evidence(True, reason, retraction=True)
    moved = moved_value(older, newer, plans) if cues else ""
    if cues and not moved and revalued(older, newer, cues, swap_max):
        # Only values differ, the cue telling how ("weighs 82 kg" / "is down to 76 kg").
        moved = "only its values differ"
    # "uses Jira" / "migrated from Jira to Linear": the older's thing is what the change
    # left, however few other words the two share.
    left = sorted(switched_from(a, b)) if cues and not moved else []
    overlap = core_overlap(a, b, scope)
    if cues and all(_life_event(c) for c in cues) and not attribute(a) & named_stems(b, scope):
        # A life event names the states it ends ("got married": engaged, dating): it
        # must end one the older says. "lives in Lisbon" / "got married in Lisbon"
        # shares a place, not a statement.
        overlap = owned_overlap(a, b, scope)
    elsewhere = _left_elsewhere(a, b, cues)
    if elsewhere and not left:
        return Evidence(False, f"{shown}, but what it left is {elsewhere}, not the older's")
    if cues and set(cues) <= tables.word_set("completion_verbs") and a.past:
        # "ran the marathon in 3:42" / "finished the marathon in 4:15": nothing went on
        return Evidence(False, f"{shown}, but the older tells a thing done, not going on")
    apart = "" if moved or left else _apart(a, b)
    if apart:
        return Evidence(False, f"{shown}, but {apart}")
    if left:
        return Evidence(True, f"{shown}: the change left {', '.join(left)} for another")
    if moved:
        # One value of the older's told anew: the fact changed, however few of the
        # other words the two messages share.
        reason = f"{shown}: a new value of the same thing ({moved}, overlap {overlap:.2f})"
        return Evidence(True, reason, value=True)
    if overlap < min_overlap:
        return Evidence(False, f"{shown} about something else (overlap {overlap:.2f})")
    return Evidence(
        True, f"{shown} about the same statement (overlap {overlap:.2f})", overlap=overlap
    )


def revalued(older: str, newer: str, cues: Iterable[str], swap_max: int) -> bool:
    """Only values differ, told in the same words but for at most ``swap_max`` the newer
    adds, and a cue says a value changed ("weighs 82 kg" / "is down to 76 kg"; "the
    phone is an iPhone 12" / "upgraded to an iPhone 15 Pro"): not an event whose own
    details are values ("got married in Charleston", "finished the marathon in 4:15")."""
    events = {e.words[0] for name in _EVENT_TABLES for e in tables.entries(name)}
    if all(c.split()[0] in events for c in cues) or not new_value_only(older, newer, swap_max):
        return False
    a, b = facts(older), facts(newer)
    if plan_or_wish(a) != plan_or_wish(b):
        return False  # "plans to cut spending to $500" / "now spends $700": no plan kept
    scope = cue_scope(b, [(i, n) for i, n, c in cue_spans(b) if c in cues])
    if any(v.index not in scope for v in b.values if v.ident not in a.value_idents):
        return False  # the new value is told in another clause than the change
    cue_words = table_stems("change_cues", "value_change_verbs")
    added = [d.item for d in uncovered(b, a) if d.kind == "word" and d.item not in cue_words]
    # Something the older says of its subject is told again: a word, a name, or what
    # one of its values counts ("82 kg" / "76 kg"; "an iPhone 12" / "an iPhone 15 Pro").
    counted = {v.anchor for v in a.values if v.anchor}
    theirs = b.every_stem | {v.anchor for v in b.values}
    said = attribute(a)
    ours = a.every_stem | counted
    kin = counted & theirs or {v.anchor for v in b.values if v.anchor} & ours
    kin = kin or {stem(n) for n in a.names} & said & theirs
    return len(added) <= swap_max and bool(
        kin or any(told(w, a, b) for w in a.content if stem(w) in said)
    )


# Cues that are events of their own, not a value's change.
_EVENT_TABLES = ("leaving_verbs", "completion_verbs", "life_events")


def _left_elsewhere(a: Facts, b: Facts, cues: list[str]) -> str:
    """What cues that only end a thing ("sold", "cancelled", "passed":
    ``data/leaving_verbs.txt``, ``data/completion_verbs.txt``) left, where the older names
    none of it: "has a Netflix subscription" / "cancelled the Spotify subscription" ended
    another thing. "" when they left the older's thing, or another cue is there."""
    leaving = tables.word_set("leaving_verbs") | tables.word_set("completion_verbs")
    if not cues or not set(cues) <= leaving:
        return ""
    ended = [
        [*(k for k, h in enumerate(b.heads) if h == j and b.deps[k] in _WHICH), j]
        for j, dep in enumerate(b.deps)
        if dep in ("dobj", "nsubjpass") and b.lemmas[b.heads[j]] in leaving
    ]
    # the thing with the words that say which one ("the Spotify subscription")
    said = [all(norm_stem(b.lows[k]) in a.every_stem for k in thing) for thing in ended]
    if not ended or any(said):
        return ""
    return listed(sorted(" ".join(b.lows[k] for k in thing) for thing in ended))


_SUBJECTS = frozenset(("nsubj", "nsubjpass"))
_WHICH = frozenset(("compound", "amod"))


def _tells_change(a: Facts, b: Facts, i: int) -> bool:
    """The cue at word ``i`` of ``b`` says that what ``a`` states changed: not an
    adjective on a thing whose values both texts tell alike ("the new application
    features ... are included" / "application features are included": a value or a name
    must differ, as in "the new deadline is May 3"), nor the start of the very state
    ``a`` states ("Ana started working at Stripe" / "Ana works at Stripe":
    ``data/inceptive_cues.txt``) unless begun on another thing."""
    if b.deps[i] == "amod":
        ours = {v.show() for v in a.values} | a.names
        theirs = {v.show() for v in b.values} | b.names
        return bool(ours - theirs and theirs - ours)
    if b.lemmas[i] in tables.word_set("inceptive_cues"):
        begun = {b.lemmas[j] for j, h in enumerate(b.heads) if h == i and b.deps[j] == "xcomp"}
        stated = {norm(lemma) for lemma in a.lemmas} - a.negated
        # "started taking the light rail" / "takes the 38 bus": begun on another thing
        return all(_takes_another(a, b, norm(verb)) for verb in begun & stated)
    return True


def _takes_another(a: Facts, b: Facts, verb: str) -> bool:
    """``b``'s ``verb`` takes a thing, and none that ``a``'s takes."""
    ours = a.roles.get((verb, "object"), frozenset())
    theirs = b.roles.get((verb, "object"), frozenset())
    return bool(ours and theirs) and not ours & theirs


def _speaks_of(a: Facts, b: Facts, scope: frozenset[int]) -> bool:
    """The clause of ``b``'s cue (the words ``scope``) is about what ``a`` is about: it
    names a word of ``a``'s subjects or their owners, or its subject is a pronoun or
    none ("moved to Berlin"), or the parse found no subject in ``a``."""
    subjects = [j for j in scope if b.deps[j] in _SUBJECTS]
    ours = {stem(w) for w in subjects_and_owners(a)}
    if not (subjects and ours) or any(b.tags[j] == "PRP" for j in subjects):
        return True
    theirs = {s for j in scope for s in (stem(lemma_key(b, j)), norm_stem(b.lows[j]))}
    return bool(ours & theirs)


def subjects_and_owners(f: Facts) -> set[str]:
    """Who the clauses are about: their subjects, and whose they are ("the user's
    bank")."""
    words = subject_words(f)
    return words | {owner for word in words for owner in f.owners.get(word, ())}


def _apart(a: Facts, b: Facts) -> str:
    """Why two texts hold two facts though a cue sits in the newer, where no value of
    the older's is told anew under it: each is dated on another day, the newer's not a
    day something moved to ("celebrating at the Grill on May 22" / "joined for the July
    10 retreat": two events; not "moved to March 10"), or an amount is a goal in one and
    what is so in the other ("aiming for a 10 % raise" / "got a 12 % raise"). "" when
    neither."""
    days_a = {v.key for v in a.values if v.kind == "date"}
    days_b = [v for v in b.values if v.kind == "date"]
    moved_to = any(_moved_to(b, v.index) for v in days_b)
    # "Tariq's latest credit score, from the September report": the state of the older's
    # thing at a later day, not another event
    latest = bool(describing(b, a.every_stem))
    if days_a and days_b and not days_a & {v.key for v in days_b} and not (moved_to or latest):
        return "each is dated on another day: two events"
    for kind in _AMOUNTS:
        ours = [v for v in a.values if v.kind == kind]
        theirs = [v for v in b.values if v.kind == kind]
        goals = {is_goal(a, v.index) for v in ours}
        if ours and theirs and len(goals) == 1 and goals != {is_goal(b, v.index) for v in theirs}:
            return f"'{ours[0].show()}' / '{theirs[0].show()}': a goal and what is so"
    return ""


def _moved_to(f: Facts, index: int) -> bool:
    """Is the value at ``index`` where something went ("moved to March 10", "pushed back
    until May")?"""
    return any(f.lows[f.heads[j]] in _TOWARD for j in (index, f.heads[index]))


def _said_in(f: Facts, cue: str) -> bool:
    """A one-word cue the older text already says in a word of the same meaning
    ("were departing Wednesday" / "leave Sunday"): no change of what it says."""
    synonyms = tables.group_of("synonyms")
    if " " in cue or cue not in synonyms:
        return False
    return any(synonyms.get(lemma) == synonyms[cue] for lemma in f.lemmas)


def _same_level(a: Facts, b: Facts, cue: str) -> bool:
    """Both texts tell a level reached, the newer no value the older lacks ("the index
    increased to 58.9 from 55.9" / "the index rose to 58.9 from 55.9"): no change."""
    levels = {e.words[0] for t in ("value_change_verbs", "level_verbs") for e in tables.entries(t)}
    if cue.split()[0] not in levels or not any(c.split()[0] in levels for c in change_cues(a)):
        return False
    verbs = {i for i, _, c in cue_spans(b) if c == cue}
    # the values it goes to or from: under a "to" or "from" of the verb
    ends = [j for j, head in enumerate(b.heads) if head in verbs and b.lows[j] in ("to", "from")]
    reached = [v for v in b.values if hangs_under(b, v.index, ends)]
    return bool(reached) and all(v.ident in a.value_idents for v in reached)


_NOUN_MODIFIERS = frozenset(("compound", "amod", "nummod", "nmod", "poss"))


def later_date(a: Facts, b: Facts) -> str:
    """``b`` is dated later than ``a`` (both name a year): "As of Q4 2023" / "As of Q2
    2024". What was seen, or ""."""
    when_a, when_b = _when(a), _when(b)
    if when_a is None or when_b is None or when_b <= when_a:
        return ""
    return f"a later date ({'-'.join(when_b)} after {'-'.join(when_a)})"


def told_later(a: Facts, b: Facts) -> str:
    """``b`` dates what it says to the latest time it knows, ``a`` tells no time at all:
    "Tariq's credit score is 690" / "Tariq's latest credit score is 724". Where ``a`` is
    dated too, only ``b``'s word for the latest of the very thing ``a`` names ("690 in
    the March report" / "his latest score, from the September report, is 724"), or its
    own time told as now where ``a``'s is before now ("last summer" / "this month"),
    and never a year before ``a``'s. What was seen, or ""."""
    told = recency(b, a.every_stem)
    if any(v.kind in _WHEN for v in a.values) or set(a.lows) & _DEICTIC or recency(a):
        when_a, when_b = _when(a), _when(b)
        if when_a is not None and when_b is not None and when_b < when_a:
            return ""
        # ("yesterday, 64 cases" / "as of Wednesday, 65 cases": which is later is unknown)
        undated_b = not any(v.kind in _WHEN for v in b.values)
        before_now = bool(set(a.lows) & _BEFORE_NOW) and not recency(a) and undated_b
        told = {w for w in told if before_now or w in describing(b, a.every_stem)}
    shown = sorted(told)
    return f"a later time ({', '.join(repr(w) for w in shown)})" if shown else ""


def _when(f: Facts) -> tuple[str, ...] | None:
    """When ``f`` says its statement holds: its latest year (and date), not one that
    names a thing ("the 2024 retreat")."""
    timed = [v for v in f.values if not _names_a_thing(f, v.index)]
    years = sorted(v.key for v in timed if v.kind == "year")
    if not years:
        return None
    dates = sorted(v.key[:2] for v in timed if v.kind == "date")
    return (years[-1], dates[-1]) if dates and len(years) == 1 else (years[-1],)


def _names_a_thing(f: Facts, i: int) -> bool:
    """Word ``i`` (a date) modifies a thing the text is about ("the 2024 retreat", "the
    2023 budget"), not a time it is told at ("as of Q4 2023")."""
    head = f.heads[i]
    return f.deps[i] in _NOUN_MODIFIERS and f.poses[head] in _NOUNS and f.deps[head] != "pobj"


def _life_event(cue: str) -> bool:
    """Is change cue ``cue`` a life event (``data/life_events.txt``)?"""
    return cue.split()[0] in {e.words[0] for e in tables.entries("life_events")}


def _other_value_changed(a: Facts, b: Facts, swap_max: int, dates: bool = False) -> bool:
    """A value or a name that is not a date was told in place of another ("12 agents" /
    "15 agents", "located in Valencia" / "located in Barcelona"), or a word in the same
    place ("junior analyst" / "senior analyst"); with ``dates``, a value or a name of
    any kind, dates too, and no word."""
    undated_a = {v.show() for v in a.values if dates or v.kind not in _WHEN} | a.names
    undated_b = {v.show() for v in b.values if dates or v.kind not in _WHEN} | b.names
    if undated_a - undated_b and undated_b - undated_a:
        return True
    return not dates and bool(substitutions(a.text, b.text, swap_max))


on_forget(_evidence.cache_clear)
