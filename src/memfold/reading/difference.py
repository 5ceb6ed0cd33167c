"""Differences between the facts of two texts that make them two facts, whatever their
cosine: another value (number, amount, date, time), another name, owner or relation,
another role ("Sofia mentors Daniel" / "Daniel mentors Sofia"), a polarity flip, a
temporal modifier ("former"), a content word the other text has nothing for. Where none
is found, the texts differ only in wording and the judge decides.

``same_fact`` is the test for folding two texts (REPLACE as a restatement, MERGE,
UPDATE); ``supersede_conflicts`` the test for a newer text replacing an older one's value
(a supersede): there the value may change, but not who or what it is about. Pure."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Literal

from memfold.reading import tables
from memfold.reading.facts import Facts, facts, stem
from memfold.reading.values import Value

Cover = Literal["newer", "either"]
# Differences of wording alone: a word or a verb with no counterpart.
WORDING = ("word", "relation")
_COPULAS = frozenset(("be",))
_DATED = ("date", "year")


@dataclass(frozen=True, slots=True)
class Difference:
    """One difference, named for the log: ``kind`` and what was seen."""

    kind: str
    detail: str
    # What differs, as the facts key it (a stem, a name, a value's key): for coverage.
    item: str = ""
    # A detail one text adds that the other has nothing in place of (no substitution):
    # a fold that keeps both texts' details may still be one fact.
    added: bool = False

    def __str__(self) -> str:
        return f"{self.kind}: {self.detail}"


def same_fact(older: str, newer: str, cover: Cover = "either") -> list[Difference]:
    """What keeps ``older`` and ``newer`` from being one fact. With ``cover="newer"`` the
    newer text must say all the older says (it may add detail); with ``"either"`` one of
    the two must say all the other says."""
    a, b = facts(older), facts(newer)
    found = [
        *_polarity(a, b),
        *_certainty(a, b),
        *_modifiers(a, b),
        *_owners(a, b),
        *_roles(a, b),
        *_order(a, b),
    ]
    found += [*_new_owned(a, b), *_new_owned(b, a), *_subject_mods(a, b), *_contrasts(a, b)]
    found += _directions(a, b) + _new_actors(a, b) + _new_actors(b, a)
    found += _coverage(a, b, cover)
    return found


def fold_conflicts(a: str, b: str) -> list[Difference]:
    """What keeps two texts from being folded into one, whatever the text written: the
    differences of ``same_fact`` that change the fact (not a word of wording, not a
    detail only one adds, which the result check sees kept)."""
    return [d for d in same_fact(a, b) if d.kind not in WORDING and not d.added]


def additions(older: str, newer: str) -> int:
    """How many things ``newer`` says that ``older`` does not (content words, names,
    values), less the words of ``older`` it has none for (told in other words): a
    restatement adds none, an elaboration a few."""
    a, b = facts(older), facts(newer)
    return max(0, len(uncovered(b, a)) - len(uncovered(a, b)))


def supersede_conflicts(older: str, newer: str) -> list[Difference]:
    """What makes ``newer`` about something else than ``older``, so that it cannot take
    its place: another subject, owner or relation, a temporal modifier, or two past
    events at different times."""
    a, b = facts(older), facts(newer)
    found = [*_modifiers(a, b), *_owners(a, b), *_roles(a, b, ("subject",)), *_persons(a, b)]
    found += _directions(a, b) + _subject_names(a, b)
    dates_a = {v.key for v in a.values if v.kind in _DATED}
    dates_b = {v.key for v in b.values if v.kind in _DATED}
    if a.past and b.past and _other_time(a, b):
        found.append(
            Difference(
                "event",
                f"two past events at different times ({listed(dates_a)} / {listed(dates_b)})",
            )
        )
    return found


def _other_time(a: Facts, b: Facts) -> bool:
    """Both texts are dated, and a year or a date differs ("May 2023" / "May 2024")."""
    for kind in _DATED:
        ours = {v.key for v in a.values if v.kind == kind}
        theirs = {v.key for v in b.values if v.kind == kind}
        if ours and theirs and ours != theirs:
            return True
    return False


def _polarity(a: Facts, b: Facts) -> list[Difference]:
    out = [
        Difference("polarity", f"'{word}' is negated in one text only")
        for word in sorted(a.negated ^ b.negated)
        # a negation of something only one text names is a detail it adds ("but not tea")
        if stem(word) in a.every_stem and stem(word) in b.every_stem
    ]
    for pair in tables.pairs("antonyms"):
        x, y = sorted(pair)
        for p, q, one, two in ((x, y, a, b), (y, x, a, b)):
            if stem(p) not in one.unnamed_stems or stem(q) not in two.unnamed_stems:
                continue  # "came back" against "gone"; not "back pain"
            if stem(q) in one.unnamed_stems:
                continue
            # "does not like" says what "dislikes" says: a negated antonym agrees.
            if (p in one.negated) == (q in two.negated):
                out.append(Difference("polarity", f"'{x}' against '{y}'"))
    return out


def _certainty(a: Facts, b: Facts) -> list[Difference]:
    """A statement both make, hedged in one only: "may have been a pioneer" / "was a
    pioneer" (``data/hedges.txt``)."""
    return [
        Difference("certainty", f"'{word}' is hedged in one text only")
        for word in sorted(a.hedged ^ b.hedged)
        if stem(word) in a.every_stem and stem(word) in b.every_stem
    ]


def _modifiers(a: Facts, b: Facts) -> list[Difference]:
    """A temporal modifier on a thing both texts name: "Ana's former team" / "Ana's team".
    One on a thing only one text names is a detail it adds ("starting next week")."""
    return [
        Difference("modifier", f"'{mod} {noun}' in one text only")
        for mod, noun in sorted(a.modifiers ^ b.modifiers)
        if stem(noun) in (b.every_stem if (mod, noun) in a.modifiers else a.every_stem)
    ]


def _persons(a: Facts, b: Facts) -> list[Difference]:
    """Each text's clauses are about people (names, the user) and no person is shared:
    "Ana works at Microsoft" / "Bo left Microsoft"."""
    ours, theirs = _subject_persons(a), _subject_persons(b)
    if ours and theirs and not ours & theirs:
        return [Difference("person", f"about {listed(ours)} / {listed(theirs)}")]
    return []


def _subject_names(a: Facts, b: Facts) -> list[Difference]:
    """A name in the older's subject that the newer never says, where the newer names
    another: "The Nasdaq index fell 23 points" / "The S&P 500 index gave up 12 points"."""
    keys = [set(key.split()) for _, subjects in a.clauses for key in subjects]
    named = {n for n in a.names if any(set(n.split()) <= key for key in keys)}
    gone = sorted(n for n in named if not {stem(w) for w in n.split()} & b.every_stem)
    others = sorted(b.names - a.names)
    if gone and others:
        return [Difference("role", f"about {listed(gone)} / {listed(others)}")]
    return []


def _new_actors(a: Facts, b: Facts) -> list[Difference]:
    """Someone ``b`` has do the thing whom ``a`` never names: "Sarah reviews the pull
    requests" / "... are reviewed by Ahmed"."""
    actors = _subject_persons(b) - a.names - {"user", a.initial}
    return [Difference("person", f"{listed(actors)} in one text only")] if actors else []


def _subject_persons(f: Facts) -> set[str]:
    people = f.names | {"user"}
    return {s for _, subjects in f.clauses for s in subjects if s in people}


def _owners(a: Facts, b: Facts) -> list[Difference]:
    return [
        Difference(
            "owner",
            f"whose '{thing}': {listed(a.owners[thing])} / {listed(b.owners[thing])}",
        )
        for thing in sorted(a.owners.keys() & b.owners.keys())
        if a.owners[thing] != b.owners[thing]
    ]


def _roles(a: Facts, b: Facts, kinds: Iterable[str] = ("subject", "object")) -> list[Difference]:
    out = []
    if "subject" in kinds:
        # Per clause: a verb both texts use must have, in some clause of each, one
        # subject ("It is false that Mateus is ..." has "it" and "Mateus"). "X is Y"
        # says what "Y is X" says: for a copula both sides count.
        verbs = {v for v, _ in a.clauses} & {v for v, _ in b.clauses}
        for verb in sorted(verbs):
            left = [s for v, s in a.clauses if v == verb]
            right = [s for v, s in b.clauses if v == verb]
            objects = "object" in kinds
            if not any(_clauses_meet(a, b, verb, x, y, objects) for x in left for y in right):
                out.append(
                    Difference(
                        "role",
                        f"the subject of '{verb}': {listed(set().union(*left))} / "
                        f"{listed(set().union(*right))}",
                    )
                )
    if "object" in kinds:
        out += _turned(a, b) + _turned(b, a)
        for verb, role in sorted(a.roles.keys() & b.roles.keys()):
            if role != "object" or verb in _COPULAS:
                continue
            ours, theirs = a.roles[(verb, role)], b.roles[(verb, role)]
            if not _args_meet(ours, theirs):
                out.append(
                    Difference("role", f"the object of '{verb}': {listed(ours)} / {listed(theirs)}")
                )
    return out


def _turned(a: Facts, b: Facts) -> list[Difference]:
    """What undergoes a verb in ``a`` does it in ``b``: "Paper is being cut with
    scissors" / "Paper and scissors both cut"."""
    out = []
    for verb in sorted({v for v, r in a.roles if r == "object"} - _COPULAS):
        undergoes = a.roles[(verb, "object")]
        does = b.roles.get((verb, "subject"), frozenset())
        did = a.roles.get((verb, "subject"), frozenset())
        if does and _args_meet(undergoes, does) and not (did and _args_meet(did, does)):
            out.append(
                Difference(
                    "role",
                    f"{listed(undergoes)} undergoes '{verb}' in one text, does it in the other",
                )
            )
    return out


def _clauses_meet(
    a: Facts, b: Facts, verb: str, left: frozenset[str], right: frozenset[str], objects: bool
) -> bool:
    """One subject; for a copula, "X is Y" also meets "Y is X" (both sides must, when
    ``objects`` are compared: not for a supersede, where the value changes)."""
    if _args_meet(left, right):
        if verb not in _COPULAS or not objects:
            return True
        ours, theirs = a.roles.get((verb, "object")), b.roles.get((verb, "object"))
        return not ours or not theirs or _args_meet(ours, theirs)
    if verb not in _COPULAS:
        return False
    ours = a.roles.get((verb, "object"), frozenset())
    theirs = b.roles.get((verb, "object"), frozenset())
    return _args_meet(left, theirs) and _args_meet(ours, right)


def _args_meet(left: Iterable[str], right: Iterable[str]) -> bool:
    """Two argument sets name one thing: a shared key, or one key's words within the
    other's ("answer" / "bullet-point answer"; not "billing service" / "auth service")."""
    for x in left:
        for y in right:
            wx, wy = set(x.split()), set(y.split())
            if x == y or wx <= wy or wy <= wx:
                return True
    return False


def _new_owned(a: Facts, b: Facts) -> list[Difference]:
    """``b`` gives a participant of ``a`` a thing ``a`` never names: "Anjali presents" /
    "Anjali's manager presents" is about the manager."""
    known = a.names | {"user", a.initial} - {""}
    relations = tables.word_set("relations")
    return [
        Difference("owner", f"'{thing}' of {listed(owners & known)} in one text only")
        for thing, owners in sorted(b.owners.items())
        if thing in relations and owners & known and not a.owners.get(thing, frozenset()) & owners
    ]


def _subject_mods(a: Facts, b: Facts) -> list[Difference]:
    """A subject both texts share, told apart by a modifier: "the user's manager" /
    "the user's skip-level manager"."""
    relations = tables.word_set("relations")
    return [
        Difference(
            "modifier",
            f"'{noun}' is {listed(a.subject_mods[noun] ^ b.subject_mods[noun])} in one text only",
        )
        for noun in sorted(a.subject_mods.keys() & b.subject_mods.keys())
        if noun in relations
        and a.subject_mods[noun] ^ b.subject_mods[noun]
        and not (a.subject_mods[noun] ^ b.subject_mods[noun]) <= (a.every_stem & b.every_stem)
    ]


def _directions(a: Facts, b: Facts) -> list[Difference]:
    """One verb going two ways ("moved out of the flat" / "moved into the flat"), or one
    place gone to in one text and come from in the other ("taken to hospital" /
    "released from hospital")."""
    out = []
    for verb in sorted({v for v, _ in a.directions} & {v for v, _ in b.directions}):
        ours = {d for v, d in a.directions if v == verb}
        theirs = {d for v, d in b.directions if v == verb}
        if ours - theirs and theirs - ours:
            out.append(Difference("role", f"'{verb}' {listed(ours)} / {listed(theirs)}"))
    for place in sorted({p for p, _ in a.ends} & {p for p, _ in b.ends}):
        ours = {e for p, e in a.ends if p == place}
        theirs = {e for p, e in b.ends if p == place}
        if ours != theirs and len(ours) == len(theirs) == 1:
            (x,), (y,) = ours, theirs
            out.append(Difference("role", f"{x} '{place}' / {y} '{place}'"))
    return out


def _contrasts(a: Facts, b: Facts) -> list[Difference]:
    """ "video calls over phone calls" / "phone calls over video calls"."""
    return [
        Difference("role", f"'{x}' {word} '{y}' turned around")
        for x, word, y in sorted(a.contrasts)
        if (y, word, x) in b.contrasts and (x, word, y) not in b.contrasts
    ]


def _order(a: Facts, b: Facts) -> list[Difference]:
    """Two names in one sentence of each text, in the other order, with the same voice:
    "Sofia mentors Daniel" / "Daniel mentors Sofia"."""
    shared = (a.names & b.names) - a.adjuncts - b.adjuncts  # "For Python work, ..." aside
    out = []
    for first, second in _pairs_in_order(a, shared):
        where_b = _sentence_order(b, first, second)
        if where_b is None:
            continue
        sent_a = next(s for s, n in a.order if n == first)
        if (sent_a in a.passive) != (where_b[0] in b.passive):
            continue
        if not where_b[1]:
            out.append(Difference("role", f"'{first}' and '{second}' trade places"))
    return out


def _pairs_in_order(f: Facts, shared: frozenset[str]) -> list[tuple[str, str]]:
    out = []
    seen = [(s, n) for s, n in f.order if n in shared]
    for i, (sent, first) in enumerate(seen):
        out += [(first, second) for s2, second in seen[i + 1 :] if s2 == sent and second != first]
    return out


def _sentence_order(f: Facts, first: str, second: str) -> tuple[int, bool] | None:
    """(sentence, ``first`` comes before ``second``) where both stand in one sentence."""
    for sent in sorted({s for s, _ in f.order}):
        names = [n for s, n in f.order if s == sent]
        if first in names and second in names:
            return sent, names.index(first) < names.index(second)
    return None


def _coverage(a: Facts, b: Facts, cover: Cover) -> list[Difference]:
    forward = uncovered(a, b)
    if not forward or cover == "newer":
        return forward + _verbs(b, a)  # b says all a says: it adds no relation of its own
    backward = uncovered(b, a)
    if not backward:
        return _verbs(a, b)
    if all(d.item in a.adjuncts for d in forward) and all(d.item in b.adjuncts for d in backward):
        # Each adds a circumstance the other lacks ("since 2026" / "near the Spree") to
        # one core: one fact, told with two details.
        return _verbs(a, b) + _verbs(b, a)
    return forward


def uncovered(a: Facts, b: Facts) -> list[Difference]:
    """What ``a`` says that ``b`` does not: values, names, content words and verbs."""
    out = []
    mine = b.value_idents
    loose = {(v.kind, v.key) for v in b.values if not v.anchor}
    unanchored = {(v.kind, v.key) for v in b.values}
    for value in a.values:
        if value.anchor and (value.kind, value.key) in loose:
            continue  # the other text does not say what it counts ("set to 20")
        if not value.anchor and (value.kind, value.key) in unanchored:
            continue
        if value.ident not in mine:
            out.append(replace(_value_difference(value, b.values), item=value.key))
    for name in sorted(a.names - b.names):
        if stem(name) not in b.every_stem and not any(abbreviates(name, o) for o in b.names):
            others = sorted(b.names - a.names)
            shown = f"'{name}'" + (f" / {listed(others)}" if others else " in one text only")
            out.append(Difference("name", shown, name, added=not others))
    for word in sorted(a.content):
        if stem(word) not in b.every_stem:
            out.append(Difference("word", f"'{word}' has no counterpart", stem(word)))
    return out


def abbreviates(x: str, y: str) -> bool:
    """One name is the other's initials or numeronym: "NYC" / "New York City", "HR" /
    "Human Resources", "k8s" / "Kubernetes" (either way round)."""
    for short, long in ((x, y), (y, x)):
        words = long.split()
        token = short.split()[0] if short.split() else ""
        if len(words) > 1 and token == "".join(w[0] for w in words):
            return True
        numeronym = len(long) > 3 and token == f"{long[0]}{len(long) - 2}{long[-1]}"
        if numeronym or (
            len(words) == 1 and token and token == long[:1] + str(len(long) - 2) + long[-1:]
        ):
            return True
    return False


def _verbs(a: Facts, b: Facts) -> list[Difference]:
    """A verb of ``a`` the other text has no word for: another relation."""
    return [
        Difference("relation", f"'{verb}' has no counterpart")
        for verb in sorted(a.verbs)
        if stem(verb) not in b.every_stem
    ]


def _value_difference(value: Value, others: tuple[Value, ...]) -> Difference:
    alike = [o for o in others if o.kind == value.kind and o.anchor == value.anchor]
    alike = alike or [o for o in others if o.kind == value.kind]
    if alike:
        return Difference(value.kind, f"'{value.show()}' / {listed(o.show() for o in alike)}")
    return Difference(value.kind, f"'{value.show()}' in one text only", added=True)


def listed(items: Iterable[str]) -> str:
    return ", ".join(f"'{i}'" for i in sorted(set(items))) or "none"
