"""When a newer memory may retire an older one (a supersede: DELETE, or a REPLACE that
changes the fact): the parse reads both as about the same thing
(``difference.supersede_conflicts`` finds nothing), and the newer says it changed, by a
change cue (``data/change_cues.txt``: "now", "no longer", "moved to") or by a later date
than the older's, about the same statement (most of the older's words, values aside). A
negation with neither is a contradiction: both stay, linked. Pure."""

from __future__ import annotations

from dataclasses import dataclass

from memfold.reading import tables
from memfold.reading.facts import Facts, facts
from memfold.reading.keys import norm, stem, table_stems

_WHEN = ("year", "date", "weekday", "time")  # when, not what changed
_NOUNS = frozenset(("NOUN", "PROPN"))
_COMPARATIVES = frozenset(("JJR", "RBR"))
# How a value-changing verb takes its value for an object ("increased 5 %"), or names
# the value it goes to ("raised to", "extended through").
_VALUE_OBJECTS = frozenset(("dobj", "npadvmod", "attr"))
_VALUE_PREPOSITIONS = frozenset(("to", "from", "by", "through", "until", "till"))
# Verbs that say nothing of what they are about ("is", "has"): no attribute.
_EMPTY_VERBS = frozenset(("be", "have"))


@dataclass(frozen=True, slots=True)
class Evidence:
    """The verdict on a supersede: ``found`` or not, why, and whether the two are a
    contradiction (a negation with no sign of change: keep both, link them)."""

    found: bool
    reason: str
    contradiction: bool = False
    # The newer negates, with a cue, what the older states ("no longer vegan").
    retraction: bool = False


def supersede_evidence(older: str, newer: str, min_overlap: float) -> Evidence:
    """May ``newer`` retire ``older``? See the module docstring; the caller has checked
    ``supersede_conflicts``."""
    a, b = facts(older), facts(newer)
    # A plan or a wish ("is going to move") changes only a plan or a wish ("wants daily
    # emails" / "asked for weekly ones instead"), never a fact that still holds.
    plans = _plan_or_wish(a)
    cues = sorted(c for c in change_cues(b, plans) - change_cues(a, plans) if not _said_in(a, c))
    # A later date is evidence only beside another value that changed ("As of 2023, 12
    # agents" / "As of 2024, 15 agents"); alone it names another one ("the 2024 retreat").
    later = later_date(a, b) if _other_value_changed(a, b) else ""
    retracted = sorted(w for w in b.negated - a.negated if stem(w) in a.every_stem)
    if not cues and not later:
        if retracted or a.negated - b.negated:
            return Evidence(False, "a negation with no sign of change: a contradiction", True)
        return Evidence(False, "no change cue and no later date in the newer memory")
    shown = f"change cue {', '.join(repr(c) for c in cues)}" if cues else later
    if retracted:
        reason = f"the newer memory retracts {', '.join(retracted)} ({shown})"
        return Evidence(True, reason, retraction=True)
    overlap = core_overlap(a, b)
    if overlap < min_overlap:
        return Evidence(False, f"{shown} about something else (overlap {overlap:.2f})")
    return Evidence(True, f"{shown} about the same statement (overlap {overlap:.2f})")


def change_cues(f: Facts, plans: bool = False) -> set[str]:
    """The change cues ``f``'s text holds, as the table writes them; never a noun ("sick
    leave") or a participle describing one ("eleven payments left"), and with ``plans``
    only, one of a change not said to have happened ("will move", "wants to switch").
    Kept with ``f`` (as a cached property is): a drain asks for each text's many times."""
    kept = f.__dict__.setdefault("_change_cues", {})
    if plans not in kept:
        kept[plans] = frozenset(_find_cues(f, plans))
    return set(kept[plans])


def _find_cues(f: Facts, plans: bool) -> set[str]:
    found = set()
    for table, needs_value in (("change_cues", False), ("value_change_verbs", True)):
        starting = tables.by_first_word(table)
        for seq in (f.lemmas, f.lows):
            for i, word in enumerate(seq):
                for entry in starting.get(word, ()):
                    n = len(entry.words)
                    if (
                        seq[i : i + n] == entry.words
                        and _cue_at(f, i, n, plans)
                        and (not needs_value or _takes_value(f, i, n))
                    ):
                        found.add(" ".join(entry.words))
    return found


def _said_in(f: Facts, cue: str) -> bool:
    """A one-word cue the older text already says in a word of the same meaning
    ("were departing Wednesday" / "leave Sunday"): no change of what it says."""
    synonyms = tables.group_of("synonyms")
    if " " in cue or cue not in synonyms:
        return False
    return any(synonyms.get(lemma) == synonyms[cue] for lemma in f.lemmas)


def _takes_value(f: Facts, start: int, n: int) -> bool:
    """The verb at ``start`` (``n`` words) goes to, from or by something in the words
    that hang on it, or takes a value for its object ("lowered the setting to 18 °C",
    "cut by 10 %", "increased 5 %"; not "extending Tuesday's one percent rally to hit
    its strongest level")."""
    span = range(start, start + n)
    counted = [v.index for v in f.values if f.deps[v.index] in ("nummod", "quantmod")]
    valued = {v.index for v in f.values} | {f.heads[i] for i in counted}
    for j in range(len(f.lows)):
        if j in span or not _under(f, j, span):
            continue
        if f.lows[j] in _VALUE_PREPOSITIONS and f.deps[j] != "aux":
            return True  # whatever the parse makes of it ("went up to $1,520": quantmod)
        if f.lows[j] == "to" and f.deps[j] == "aux" and _value_object(f, f.heads[j], valued):
            return True  # "to" read as a verb's: "moved it to alternate Sundays"
        if f.heads[j] in span and f.deps[j] in _VALUE_OBJECTS and j in valued:
            return True
    return False


def _value_object(f: Facts, head: int, valued: set[int]) -> bool:
    """Word ``head`` takes a value for its object."""
    return any(
        f.heads[j] == head and j != head and f.deps[j] in _VALUE_OBJECTS and j in valued
        for j in range(len(f.heads))
    )


def _under(f: Facts, j: int, span: range) -> bool:
    """Word ``j`` hangs, through its heads, on a word of ``span``."""
    seen = set()
    while j not in seen:
        if j in span:
            return True
        seen.add(j)
        j = f.heads[j]
    return False


_NOUN_MODIFIERS = frozenset(("compound", "amod", "nummod", "nmod", "poss"))


def later_date(a: Facts, b: Facts) -> str:
    """``b`` is dated later than ``a`` (both name a year): "As of Q4 2023" / "As of Q2
    2024". What was seen, or ""."""
    when_a, when_b = _when(a), _when(b)
    if when_a is None or when_b is None or when_b <= when_a:
        return ""
    return f"a later date ({'-'.join(when_b)} after {'-'.join(when_a)})"


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


def core_overlap(a: Facts, b: Facts) -> float:
    """The share of what ``a`` says of its subject (``attribute``) that ``b`` also names,
    counting the names both keep; not the names or values a change may replace."""
    names = {n for n in a.names - subject_words(a) if n in b.names}
    core = attribute(a) | names
    if not core:
        return 1.0
    kept = (core & named_stems(b)) | names
    return len(kept) / len(core)


def named_stems(f: Facts) -> frozenset[str]:
    """The stems ``f`` names, with the attributes its change verbs imply ("moved" ->
    where one lives: ``data/implied_attributes.txt``)."""
    return f.every_stem | {stem(w) for w in implied_words(f)}


def implied_words(f: Facts) -> list[str]:
    """The attribute words ``f``'s verbs imply ("moved" -> "lives", "home")."""
    lemmas = set(f.lemmas)
    entries = tables.entries("implied_attributes")
    return [w for e in entries if e.words[0] in lemmas for w in e.words[1:]]


def attribute(f: Facts) -> set[str]:
    """What ``f`` says of its subject, as stems: its content words and main verbs, less
    the subject's own words, its names and the change cues ("The book club reads
    Beloved": read), or the subject's words when nothing else is said ("the user's
    title changed to ...": title)."""
    cue_words = table_stems("change_cues", "value_change_verbs")
    verbs = {stem(v) for v, _ in f.clauses if v not in _EMPTY_VERBS}
    names = {stem(n) for n in f.names}
    said = ({stem(w) for w in f.content} | verbs) - cue_words - names
    subject = {stem(w) for w in subject_words(f)}
    return said - subject or said


def subject_words(f: Facts) -> set[str]:
    """The words of the clauses' subjects (active or passive), as the facts key them."""
    keys = {key for _, subjects in f.clauses for key in subjects} | set(f.subject_mods)
    return {w for key in keys for w in key.split()}


def _other_value_changed(a: Facts, b: Facts) -> bool:
    """A value or a name that is not a date was told in place of another ("12 agents" /
    "15 agents", "located in Valencia" / "located in Barcelona")."""
    undated_a = {v.show() for v in a.values if v.kind not in _WHEN} | a.names
    undated_b = {v.show() for v in b.values if v.kind not in _WHEN} | b.names
    return bool(undated_a - undated_b and undated_b - undated_a)


def _cue_at(f: Facts, i: int, n: int, plans: bool) -> bool:
    if n == 1 and (f.poses[i] in _NOUNS or f.tags[i] in _COMPARATIVES):
        return False  # "sick leave", "lower than ten per cent"
    if f.poses[i] == "VERB" and f.deps[i] in ("acl", "amod"):
        return False  # "the moved files"
    return plans or not _unasserted(f, _verb_of(f, i))


def _plan_or_wish(f: Facts) -> bool:
    """Does a main verb of ``f`` state a plan, a wish or a guess ("Jun wants to receive
    daily emails", "Mia will move")?"""
    return any(_unasserted(f, j) or _governs(f, j) for j, dep in enumerate(f.deps) if dep == "ROOT")


def _governs(f: Facts, verb: int) -> bool:
    return any(f.heads[j] == verb and f.deps[j] == "xcomp" for j in range(len(f.deps)))


def _verb_of(f: Facts, i: int) -> int:
    """The verb word ``i`` belongs to ("no" of "no longer eats": "eats")."""
    seen = set()
    while f.poses[i] not in ("VERB", "AUX") and f.heads[i] != i and i not in seen:
        seen.add(i)
        i = f.heads[i]
    return i


def _unasserted(f: Facts, verb: int) -> bool:
    """The change is not said to have happened: the verb is under a modal ("may move",
    "will move"), hedged ("is probably moving"), or the complement of another verb
    ("is going to move", "wants to switch", "plans to move"). A plan or a guess leaves
    the older fact standing."""
    if f.poses[verb] not in ("VERB", "AUX"):
        return False
    modal = any(f.heads[j] == verb and f.tags[j] == "MD" for j in range(len(f.tags)))
    hedged = norm(f.lemmas[verb]) in f.hedged
    governed = f.deps[verb] == "xcomp" and f.poses[f.heads[verb]] in ("VERB", "AUX")
    return modal or hedged or governed
