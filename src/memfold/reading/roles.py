"""Who does what to whom in two readings: the subjects and objects of the verbs both use
("Sofia mentors Daniel" / "Daniel mentors Sofia", "Kofi owes his cousin" / "his cousin
owes him"), whose thing it is, which one of a relation ("manager" / "skip-level
manager"), and the order of two names or of a preference ("video calls over phone
calls"). Pure."""

from __future__ import annotations

from collections.abc import Iterable

from memfold.reading import tables
from memfold.reading.acronyms import abbreviates
from memfold.reading.facts import Facts
from memfold.reading.keys import stem
from memfold.reading.lexicon import synonyms
from memfold.reading.model import Difference, listed

_COPULAS = frozenset(("be",))


def role_differences(a: Facts, b: Facts) -> list[Difference]:
    """Every difference of who, whose and in what order (``same_fact``'s share)."""
    found = [*owners(a, b), *roles(a, b), *_order(a, b), *_places(a, b)]
    found += [*new_owned(a, b), *new_owned(b, a), *_subject_mods(a, b), *_contrasts(a, b)]
    return found


def owners(a: Facts, b: Facts) -> list[Difference]:
    return [
        Difference(
            "owner",
            f"whose '{thing}': {listed(a.owners[thing])} / {listed(b.owners[thing])}",
        )
        for thing in sorted(a.owners.keys() & b.owners.keys())
        if a.owners[thing] != b.owners[thing]
    ]


def roles(a: Facts, b: Facts, kinds: Iterable[str] = ("subject", "object")) -> list[Difference]:
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
            if not args_meet(ours, theirs):
                out.append(
                    Difference("role", f"the object of '{verb}': {listed(ours)} / {listed(theirs)}")
                )
    return out


def _places(a: Facts, b: Facts) -> list[Difference]:
    """A verb and preposition both texts use, each with a name the other does not put
    there: "grew up in São Paulo" / "grew up in Recife and first visited São Paulo"."""
    ours, theirs = _name_places(a), _name_places(b)
    return [
        Difference(
            "role", f"'{verb} {prep}': {listed(ours[verb, prep])} / {listed(theirs[verb, prep])}"
        )
        for verb, prep in sorted(ours.keys() & theirs.keys())
        if not _names_meet(ours[verb, prep], theirs[verb, prep])
    ]


def _name_places(f: Facts) -> dict[tuple[str, str], set[str]]:
    """The names ``f`` puts after a verb's preposition ("lives in Tehran": ("live", "in"))."""
    out: dict[tuple[str, str], set[str]] = {}
    for name in f.names:
        last = name.split()[-1]
        for j, low in enumerate(f.lows):
            prep = f.heads[j]
            if low == last and f.deps[j] == "pobj" and f.poses[f.heads[prep]] == "VERB":
                out.setdefault((f.lemmas[f.heads[prep]], f.lows[prep]), set()).add(name)
    return out


def _names_meet(left: Iterable[str], right: Iterable[str]) -> bool:
    return args_meet(left, right) or any(abbreviates(x, y) for x in left for y in right)


def _turned(a: Facts, b: Facts) -> list[Difference]:
    """What undergoes a verb in ``a`` does it in ``b``: "Paper is being cut with
    scissors" / "Paper and scissors both cut"."""
    out = []
    for verb in sorted({v for v, r in a.roles if r == "object"} - _COPULAS):
        undergoes = a.roles[(verb, "object")]
        does = b.roles.get((verb, "subject"), frozenset())
        did = a.roles.get((verb, "subject"), frozenset())
        if does and args_meet(undergoes, does) and not (did and args_meet(did, does)):
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
    if args_meet(left, right) or _modifier_moved(a, b, left, right):
        if verb not in _COPULAS or not objects:
            return True
        ours, theirs = a.roles.get((verb, "object")), b.roles.get((verb, "object"))
        return not ours or not theirs or args_meet(ours, theirs)
    if verb not in _COPULAS:
        return False
    ours = a.roles.get((verb, "object"), frozenset())
    theirs = b.roles.get((verb, "object"), frozenset())
    return args_meet(left, theirs) and args_meet(ours, right)


def _modifier_moved(a: Facts, b: Facts, left: Iterable[str], right: Iterable[str]) -> bool:
    """One thing told with its modifiers in other places: keys with one head noun whose
    other words each text says elsewhere ("Ahmed's car lease with Toyota" / "the Toyota
    lease on Ahmed's car"; not "gym membership" / "Equinox membership", where the other
    text has no gym)."""
    return any(
        x.split()[-1] == y.split()[-1]
        and all(stem(w) in b.every_stem for w in x.split())
        and all(stem(w) in a.every_stem for w in y.split())
        for x in left
        for y in right
    )


def args_meet(left: Iterable[str], right: Iterable[str]) -> bool:
    """Two argument sets name one thing: a shared key, or one key's words within the
    other's ("answer" / "bullet-point answer"; not "billing service" / "auth service")."""
    for x in left:
        for y in right:
            hyphened = "-" in x or "-" in y
            wx, wy = _words(x, hyphened), _words(y, hyphened)
            if x == y or wx <= wy or wy <= wx or same_noun(x, y) or _shortened(x, y):
                return True
    return False


def _shortened(x: str, y: str) -> bool:
    """One key is the other with a word told by its initials or numeronym: "k8s
    namespace" / "kubernetes namespace"."""
    left, right = x.split(), y.split()
    return len(left) == len(right) and all(
        p == q or abbreviates(p, q) for p, q in zip(left, right, strict=True)
    )


def _words(key: str, hyphened: bool) -> set[str]:
    """A key's words; beside a hyphenated key, the stems of the parts ("dark-roasted
    coffee" / "dark roast coffee")."""
    if not hyphened:
        return set(key.split())
    return {stem(p) for w in key.split() for p in w.split("-") if p}


def same_noun(x: str, y: str) -> bool:
    """Two keys of as many words, each the other's word or its WordNet synonym: "gran" /
    "grandmother", "boy" / "son"; or two compounds WordNet holds as one ("blood type" /
    "blood group") (``lexicon``)."""
    xs, ys = x.split(), y.split()
    if len(xs) > 1 and synonyms(x, "NOUN", y, "NOUN"):
        return True  # one WordNet entry of several words: "blood type" / "blood group"
    return len(xs) == len(ys) and all(
        p == q or synonyms(p, "NOUN", q, "NOUN") or synonyms(p, "ADJ", q, "ADJ")
        for p, q in zip(xs, ys, strict=True)
    )


def new_owned(a: Facts, b: Facts) -> list[Difference]:
    """``b`` gives a participant of ``a`` a thing ``a`` never names: "Anjali presents" /
    "Anjali's manager presents" is about the manager."""
    known = a.names | {"user", a.initial} - {""}
    relations = tables.word_set("relations")
    return [
        Difference("owner", f"'{thing}' of {listed(owners & known)} in one text only")
        for thing, owners in sorted(b.owners.items())
        if thing in relations
        and owners & known
        and not _owned_alike(a, thing, owners)
        and not _had(a, thing, owners)
        and not _told_by_verb(a, b, thing, owners & known)
    ]


def _owned_alike(f: Facts, thing: str, owners: frozenset[str]) -> bool:
    """``f`` gives one of ``owners`` the thing, or a synonym of it ("Carmen's mother" /
    "Carmen's mom")."""
    return any(
        found & owners and (other == thing or same_noun(other, thing))
        for other, found in f.owners.items()
    )


def _had(f: Facts, thing: str, owners: frozenset[str]) -> bool:
    """``f`` says one of ``owners`` has the thing: "Marco has a sister who lives in
    Toronto" / "Marco's sister lives in Toronto"."""
    had = f.roles.get(("have", "object"), frozenset())
    return bool(f.roles.get(("have", "subject"), frozenset()) & owners) and any(
        key == thing or same_noun(key, thing) for key in had
    )


def _told_by_verb(f: Facts, other: Facts, relation: str, owners: frozenset[str]) -> bool:
    """``f`` says what ``other`` says with a relation noun by its verb: the owner its
    object, the one ``other`` says holds the relation its subject ("Sofia's manager is
    Daniel" / "Sofia is managed by Daniel", never "Daniel is managed by Sofia")."""
    holders = {
        key
        for (verb, role), keys in other.roles.items()
        if role == "subject" and relation in keys
        for key in other.roles.get((verb, "object"), frozenset())
    }
    bases = {stem(relation), stem(relation.removesuffix("er").removesuffix("or"))}
    return any(
        stem(verb) in bases
        and f.roles.get((verb, "object"), frozenset()) & owners
        and f.roles.get((verb, "subject"), frozenset()) & holders
        for verb, _ in f.roles
    )


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
        if _listed(a, first, second) or _listed(b, first, second):
            continue  # one list, in any order: "Arabic, French, and English"
        where_b = _sentence_order(b, first, second)
        if where_b is None:
            continue
        sent_a = next(s for s, n in a.order if n == first)
        if (sent_a in a.passive) != (where_b[0] in b.passive):
            continue
        if not where_b[1]:
            out.append(Difference("role", f"'{first}' and '{second}' trade places"))
    return out


def _listed(f: Facts, first: str, second: str) -> bool:
    """Two names that are one argument of one verb: a list ("speaks Arabic and English")."""
    return any({first, second} <= keys for keys in f.roles.values())


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
