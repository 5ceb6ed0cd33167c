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
from dataclasses import dataclass
from typing import Literal

from memfold.reading import tables
from memfold.reading.facts import Facts, facts, stem
from memfold.reading.values import Value

Cover = Literal["newer", "either"]
_DATED = ("date", "year")


@dataclass(frozen=True, slots=True)
class Difference:
    """One difference, named for the log: ``kind`` and what was seen."""

    kind: str
    detail: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.detail}"


def same_fact(older: str, newer: str, cover: Cover = "either") -> list[Difference]:
    """What keeps ``older`` and ``newer`` from being one fact. With ``cover="newer"`` the
    newer text must say all the older says (it may add detail); with ``"either"`` one of
    the two must say all the other says."""
    a, b = facts(older), facts(newer)
    found = [*_polarity(a, b), *_modifiers(a, b), *_owners(a, b), *_roles(a, b), *_order(a, b)]
    found += _coverage(a, b, cover)
    return found


def supersede_conflicts(older: str, newer: str) -> list[Difference]:
    """What makes ``newer`` about something else than ``older``, so that it cannot take
    its place: another subject, owner or relation, a temporal modifier, or two past
    events at different times."""
    a, b = facts(older), facts(newer)
    found = [*_modifiers(a, b), *_owners(a, b), *_roles(a, b, ("subject",))]
    dates_a = {v.key for v in a.values if v.kind in _DATED}
    dates_b = {v.key for v in b.values if v.kind in _DATED}
    if a.past and b.past and dates_a and dates_b and not dates_a & dates_b:
        found.append(
            Difference(
                "event", f"two past events at different times ({_join(dates_a)} / {_join(dates_b)})"
            )
        )
    return found


def _polarity(a: Facts, b: Facts) -> list[Difference]:
    out = [
        Difference("polarity", f"'{word}' is negated in one text only")
        for word in sorted(a.negated ^ b.negated)
    ]
    for pair in tables.pairs("antonyms"):
        x, y = sorted(pair)
        sx, sy = stem(x), stem(y)
        if (sx in a.every_stem and sy in b.every_stem and sy not in a.every_stem) or (
            sy in a.every_stem and sx in b.every_stem and sx not in a.every_stem
        ):
            out.append(Difference("polarity", f"'{x}' against '{y}'"))
    return out


def _modifiers(a: Facts, b: Facts) -> list[Difference]:
    return [
        Difference("modifier", f"'{mod} {noun}' in one text only")
        for mod, noun in sorted(a.modifiers ^ b.modifiers)
    ]


def _owners(a: Facts, b: Facts) -> list[Difference]:
    return [
        Difference("owner", f"whose '{thing}': {_join(a.owners[thing])} / {_join(b.owners[thing])}")
        for thing in sorted(a.owners.keys() & b.owners.keys())
        if a.owners[thing] != b.owners[thing]
    ]


def _roles(a: Facts, b: Facts, kinds: Iterable[str] = ("subject", "object")) -> list[Difference]:
    out = []
    if "subject" in kinds:
        # Per clause: a verb both texts use must have, in some clause of each, one
        # subject ("It is false that Mateus is ..." has "it" and "Mateus").
        verbs = {v for v, _ in a.clauses} & {v for v, _ in b.clauses}
        for verb in sorted(verbs):
            left = [s for v, s in a.clauses if v == verb]
            right = [s for v, s in b.clauses if v == verb]
            if not any(x & y for x in left for y in right):
                out.append(
                    Difference(
                        "role",
                        f"the subject of '{verb}': {_join(set().union(*left))} / "
                        f"{_join(set().union(*right))}",
                    )
                )
    if "object" in kinds:
        for verb, role in sorted(a.roles.keys() & b.roles.keys()):
            if role == "object" and not a.roles[(verb, role)] & b.roles[(verb, role)]:
                out.append(
                    Difference(
                        "role",
                        f"the object of '{verb}': {_join(a.roles[(verb, role)])} / "
                        f"{_join(b.roles[(verb, role)])}",
                    )
                )
    return out


def _order(a: Facts, b: Facts) -> list[Difference]:
    """Two names in one sentence of each text, in the other order, with the same voice:
    "Sofia mentors Daniel" / "Daniel mentors Sofia"."""
    shared = a.names & b.names
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
    forward = _uncovered(a, b)
    if not forward or cover == "newer":
        return forward + _verbs(b, a)  # b says all a says: it adds no relation of its own
    backward = _uncovered(b, a)
    return _verbs(a, b) if not backward else forward


def _uncovered(a: Facts, b: Facts) -> list[Difference]:
    """What ``a`` says that ``b`` does not: values, names, content words and verbs."""
    out = []
    mine = b.value_idents
    for value in a.values:
        if value.ident not in mine:
            out.append(_value_difference(value, b.values))
    for name in sorted(a.names - b.names):
        if stem(name) not in b.every_stem:
            others = sorted(b.names - a.names)
            out.append(
                Difference(
                    "name", f"'{name}'" + (f" / {_join(others)}" if others else " in one text only")
                )
            )
    for word in sorted(a.content):
        if stem(word) not in b.every_stem:
            out.append(Difference("word", f"'{word}' has no counterpart"))
    return out


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
        return Difference(value.kind, f"'{value.show()}' / {_join(o.show() for o in alike)}")
    return Difference(value.kind, f"'{value.show()}' in one text only")


def _join(items: Iterable[str]) -> str:
    return ", ".join(f"'{i}'" for i in sorted(set(items))) or "none"
