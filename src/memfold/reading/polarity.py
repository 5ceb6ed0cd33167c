"""Polarity differences between the facts of two texts: a word negated in one only, a
negated antonym that agrees ("does not like" / "dislikes"), a negating prefix
("encrypted" / "unencrypted"), a verb denied of a thing the other text holds ("can't
stand spicy food" / "loves eating spicy food"), a name under a negation in one text only,
something set below another ("prefers dogs over cats"). Part of ``difference.same_fact``.
Pure."""

from __future__ import annotations

from functools import cache, lru_cache

from memfold.reading import tables
from memfold.reading.facts import Facts
from memfold.reading.keys import norm, norm_stem, stem, table_stems
from memfold.reading.model import Difference

# The shortest word a negating prefix is read on ("unable", not "unit" or "income").
_MIN_BASE = 4


def polarity(a: Facts, b: Facts) -> list[Difference]:
    out = [
        Difference("polarity", f"'{word}' is negated in one text only")
        for word in sorted(a.negated ^ b.negated)
        # a negation of something only one text names is a detail it adds ("but not tea")
        if stem(word) in a.every_stem and stem(word) in b.every_stem
    ]
    out += _demoted(a, b) + _demoted(b, a) + _prefixed(a, b) + _prefixed(b, a)
    out += _denied_over(a, b) + _denied_over(b, a)
    pairs, every = _antonym_stems()
    present = a.unnamed_stems & every
    for x, y, sx, sy in pairs if present else ():
        if sx not in present and sy not in present:
            continue  # a pair fires only on a word of ``a``'s
        for sp, sq, one, two in ((sx, sy, a, b), (sy, sx, a, b)):
            if sp not in one.unnamed_stems or sq not in two.unnamed_stems:
                continue  # "came back" against "gone"; not "back pain"
            if sq in one.unnamed_stems:
                continue
            # "does not like" says what "dislikes" says: a negated antonym agrees (read
            # on stems: the tables may name a synonym of the word the text negates).
            if (sp in _negated_stems(one)) == (sq in _negated_stems(two)):
                out.append(Difference("polarity", f"'{x}' against '{y}'"))
    return out


def _denied_over(a: Facts, b: Facts) -> list[Difference]:
    """A verb ``b`` negates over a thing ``a`` holds under a verb it does not negate:
    "can't stand spicy food" / "loves eating spicy food", "does not use pytest" / "are
    written with pytest". The word check above reads only
    a negated word both texts name; here the verbs differ and the thing is shared. A
    negated antonym agrees ("does not like" / "hates")."""
    said = {
        key
        for (verb, role), keys in a.roles.items()
        if role == "object" and verb not in a.negated
        for key in keys
    }
    pairs, _ = _antonym_stems()
    # Each word of ``a`` as the antonym table keys it: by lemma, spelling or stem (the
    # parse lemmatizes "hates" as "hat").
    held = {
        key
        for lemma, low in zip(a.lemmas, a.lows, strict=False)
        for key in (norm_stem(lemma), norm_stem(low), norm_stem(stem(low)))
    }
    found = []
    for verb in sorted(b.negated - a.negated):
        if stem(verb) in a.every_stem:
            continue
        denied = norm_stem(verb)
        opposite = {y for *_, x, y in pairs if x == denied} | {
            x for *_, x, y in pairs if y == denied
        }
        objects = b.roles.get((verb, "object"), frozenset())
        shared = sorted(objects & said) or sorted(k for k in objects if _held_by(a, k))
        # a thing (no person) that does what the other text says it does under another
        # verb: "provided by the company" / "not issued by the company"
        shared = shared or sorted(b.roles.get((verb, "subject"), frozenset()) & _agents(a))
        if shared and not opposite & held and not _avoided(a, shared[0]):
            found.append(
                Difference("polarity", f"'{verb}' denied of '{shared[0]}' in one text only")
            )
    return found


def _agents(f: Facts) -> set[str]:
    """The things, not persons, that do what a verb ``f`` does not negate says."""
    people = f.names | {"user", f.initial}
    return {
        key
        for (verb, role), keys in f.roles.items()
        if role == "subject" and verb not in f.negated and verb != "be"
        for key in keys
        if key not in people
    }


def _held_by(f: Facts, key: str) -> bool:
    """``f`` names each word of ``key`` as a thing a verb it does not negate takes, after
    a preposition too: "tests are written with pytest" holds pytest."""
    negated = {norm_stem(w) for w in f.negated}
    words = [stem(w) for w in key.split()]
    return bool(words) and all(
        any(
            pos == "N" and how != "mod" and head not in negated
            for head, how, pos in f.slots.get(w, ())
        )
        for w in words
    )


def _avoided(f: Facts, key: str) -> bool:
    """``f`` says each word of ``key`` is avoided, which denies it as a negated verb
    does: "avoids fish" / "does not eat fish" (``data/privatives.txt``)."""
    privatives = table_stems("privatives")
    words = [stem(w) for w in key.split()]
    return bool(words) and all(
        any(head in privatives for head, _, pos in f.slots.get(w, ()) if pos == "N") for w in words
    )


def _negated_stems(f: Facts) -> frozenset[str]:
    return frozenset(norm_stem(w) for w in f.negated)


def said_by_antonym(word: str, f: Facts) -> bool:
    """Does ``f`` say "not ``word``" by its antonym, not negated ("does not like" /
    "dislikes")?"""
    pairs, _ = _antonym_stems()
    key = norm_stem(word)
    denied = _negated_stems(f)
    return any(
        other in f.unnamed_stems and other not in denied
        for *_, sx, sy in pairs
        for one, other in ((sx, sy), (sy, sx))
        if one == key
    )


def _prefixed(a: Facts, b: Facts) -> list[Difference]:
    """A word of ``a`` that ``b`` says with a negating prefix: "encrypted" /
    "unencrypted", "smoker" / "non-smoker", "available" / "unavailable" (a negated one
    agrees: "cannot tolerate" / "intolerant")."""
    ours = {norm_stem(w) for w in a.content}
    denied = {norm_stem(w) for w in a.negated}
    out = []
    for word in sorted(b.content):
        low = norm(word)
        for base in _prefix_bases(low):
            if stem(base) not in ours:
                continue
            if (stem(base) in denied) == (word in b.negated):
                out.append(Difference("polarity", f"'{base}' against '{low}'"))
    return out


@lru_cache(maxsize=100_000)
def _prefix_bases(low: str) -> tuple[str, ...]:
    """What ``low`` says with each negating prefix it starts with taken off (long
    enough to be a word of its own)."""
    bases = (low.removeprefix(p).lstrip("-") for p in tables.word_set("negating_prefixes"))
    return tuple(base for base in bases if base != low and len(base) >= _MIN_BASE)


@cache
def _antonym_stems() -> tuple[tuple[tuple[str, str, str, str], ...], frozenset[str]]:
    """Each antonym pair, in order, with the stems the facts key its words by; and
    every such stem."""
    pairs = (sorted(pair) for pair in tables.pairs("antonyms"))
    found = tuple((x, y, norm_stem(x), norm_stem(y)) for x, y in pairs)
    return found, frozenset(s for *_, sx, sy in found for s in (sx, sy))


def _demoted(a: Facts, b: Facts) -> list[Difference]:
    """What ``a`` says, set by ``b`` below something ``a`` never names: "is a cat person"
    / "prefers dogs over cats" (not "likes cats" / "prefers cats over dogs")."""
    told = b.contrasts - a.contrasts
    if not told:
        return []
    said = {stem(w) for w in a.content} | a.names
    return [
        Difference("polarity", f"'{loser}' is set below '{winner}' in one text only")
        for winner, word, loser in sorted(told)
        if word != "to"  # "prefers tea to coffee", but also "close to", "raised to"
        and stem(loser) in said
        and stem(winner) not in a.every_stem
    ]


def denied_names(a: Facts, b: Facts) -> list[Difference]:
    """A name both texts hold, the object of a negated verb in one only: "is a Chelsea
    supporter" / "can't stand Chelsea"."""
    ours, theirs = _denied(a), _denied(b)
    return [
        Difference("polarity", f"'{name}' is under a negation in one text only")
        for name in sorted(a.names & b.names)
        if (name in ours) != (name in theirs)
    ]


def _denied(f: Facts) -> set[str]:
    """The names that are, or are part of, the object of a negated verb."""
    keys = [set(k.split()) for verb in f.negated for k in f.roles.get((verb, "object"), ())]
    return {name for name in f.names if any(set(name.split()) <= key for key in keys)}
