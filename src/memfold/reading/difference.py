"""Differences between the facts of two texts that make them two facts, whatever their
cosine: another value (number, amount, date, time), another name, owner or relation,
another role ("Sofia mentors Daniel" / "Daniel mentors Sofia"), a polarity flip, a
temporal modifier ("former"), a content word the other text has nothing for. Where none
is found, the texts differ only in wording and the judge decides.

``same_fact`` is the test for folding two texts (REPLACE as a restatement, MERGE,
UPDATE); ``supersede_conflicts`` the test for a newer text replacing an older one's value
(a supersede): there the value may change, but not who or what it is about. Pure."""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Literal

from memfold.reading import tables
from memfold.reading.acronyms import abbreviates, told_by_initials
from memfold.reading.facts import Facts, facts, on_forget
from memfold.reading.keys import stem
from memfold.reading.lexicon import kind_of, related, synonyms
from memfold.reading.model import Difference, listed
from memfold.reading.polarity import denied_names, polarity
from memfold.reading.predicate_nouns import other_attributes
from memfold.reading.roles import new_owned, owners, role_differences, roles
from memfold.reading.values import Value

# Pairs of texts whose comparison is kept: a judge and then the guards read the same
# pair, both ways, and a drain's candidates repeat.
PAIRS_KEPT = 8192

Cover = Literal["newer", "either"]
# Differences of wording alone: a word or a verb with no counterpart.
WORDING = ("word", "relation")
_DATED = ("date", "year")
_TOLD = frozenset(("VBD", "VBZ", "VBP", "VBN"))
_SUBJECTS = frozenset(("nsubj", "nsubjpass", "csubj"))
_ONE = frozenset(("a", "an", "one", "single"))
_PRESENT = frozenset(("VBZ", "VBP"))
# Words that list or join names, so that their order says nothing.
_JOINING = frozenset(("and", "&", "or", "nor", ",", "/", "with", "between", "both", "each"))


def same_fact(older: str, newer: str, cover: Cover = "either") -> list[Difference]:
    """What keeps ``older`` and ``newer`` from being one fact. With ``cover="newer"`` the
    newer text must say all the older says (it may add detail); with ``"either"`` one of
    the two must say all the other says."""
    return list(_same_fact(older, newer, cover))


@lru_cache(maxsize=PAIRS_KEPT)
def _same_fact(older: str, newer: str, cover: Cover) -> tuple[Difference, ...]:
    a, b = facts(older), facts(newer)
    found = [*polarity(a, b), *denied_names(a, b), *_certainty(a, b), *_modifiers(a, b)]
    found += _ended(a, b) + _ended(b, a) + role_differences(a, b)
    found += _directions(a, b) + _new_actors(a, b) + _new_actors(b, a)
    found += moved_from(a, b) + moved_from(b, a) + _coverage(a, b, cover)
    found += _another_thing(a, b) + _another_thing(b, a) + _attributes(a, b)
    found += _swapped_names(a, b) + _state_and_event(a, b) + _state_and_event(b, a)
    return tuple(found)


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
    its place: another subject, owner or relation (a relative of the older's person where
    the older's subject is gone: "Sven's car is" / "Sven's wife drives"), a temporal
    modifier, or two past events at different times."""
    return list(_supersede_conflicts(older, newer))


@lru_cache(maxsize=PAIRS_KEPT)
def _supersede_conflicts(older: str, newer: str) -> tuple[Difference, ...]:
    a, b = facts(older), facts(newer)
    found = [*_modifiers(a, b), *owners(a, b), *roles(a, b, ("subject",)), *_persons(a, b)]
    found += _ended(a, b)  # what the older says ended is history, whatever comes after
    found += _history(a, b)
    # "goes to the NAS" / "switched from the NAS to B2": the move is the change itself.
    found += _directions(a, b, besides=switched_from(a, b)) + _subject_names(a, b)
    subjects = {w for _, keys in a.clauses for key in keys for w in key.split()}
    if subjects and not {stem(w) for w in subjects} & b.every_stem:
        found += new_owned(a, b)  # of the older's subject, the newer says nothing
    found += _relative_subject(a, b) + _relative_subject(b, a)
    found += _another_thing(a, b) + _another_thing(b, a) + _attributes(a, b)
    dates_a = {v.key for v in a.values if v.kind in _DATED}
    dates_b = {v.key for v in b.values if v.kind in _DATED}
    if a.past and b.past and _other_time(a, b):
        found.append(
            Difference(
                "event",
                f"two past events at different times ({listed(dates_a)} / {listed(dates_b)})",
            )
        )
    return tuple(found)


def _relative_subject(a: Facts, b: Facts) -> list[Difference]:
    """``a``'s person is in ``b`` only as the owner of its subject, a relative or another
    person by relation (``data/relations.txt``): "Ana works at Google" / "Ana's sister
    switched from Google to Meta" is about the sister, and "Ana's brother lives in
    Lisbon" / "Ana moved to Porto" about Ana ("The user's rent is now" is still the
    user's, and so is "The user's manager is Greg": a relative named is the person's
    relation, not another subject)."""
    # "Ana got married" tells Ana only as what undergoes the verb
    ours = _subject_persons(a) or {k for keys in a.roles.values() for k in keys} & (
        a.names | {"user"}
    )
    named = b.roles.get(("be", "object"), frozenset()) & b.names
    theirs = {s for verb, subjects in b.clauses for s in subjects if verb != "be" or not named}
    relations = tables.word_set("relations")
    out = []
    for person in sorted(ours - theirs):
        # (a relative ``a`` names too is told by it: "lives with his mother")
        owned = sorted(
            t
            for t in theirs
            if t in relations
            and person in b.owners.get(t, frozenset())
            and stem(t) not in a.every_stem
            and not _named_relative(b, t, ours)
        )
        if owned:
            out.append(Difference("owner", f"'{owned[0]}' of '{person}' in one text only"))
    return out


def _named_relative(b: Facts, relative: str, persons: set[str]) -> bool:
    """``b`` names its ``relative`` by a name the other text's persons hold: "Grace's
    daughter Ella is in the after-school program" / "Ella no longer goes to it; Grace
    picks her up" is about Ella in both."""
    return any(
        relative in subjects and (subjects - {relative}) & persons & b.names
        for _, subjects in b.clauses
    )


def _other_time(a: Facts, b: Facts) -> bool:
    """Both texts are dated, and a year or a date differs ("May 2023" / "May 2024")."""
    for kind in _DATED:
        ours = {v.key for v in a.values if v.kind == kind}
        theirs = {v.key for v in b.values if v.kind == kind}
        if ours and theirs and ours != theirs:
            return True
    return False


def _certainty(a: Facts, b: Facts) -> list[Difference]:
    """A statement both make, hedged in one only: "may have been a pioneer" / "was a
    pioneer" (``data/hedges.txt``); or aimed at in one only: "is trying to upgrade to
    Node 18" / "upgraded to Node 18" (the complement of a goal word's verb,
    ``data/goal_words.txt``)."""
    out = [
        Difference("certainty", f"'{word}' is hedged in one text only")
        for word in sorted(a.hedged ^ b.hedged)
        if stem(word) in a.every_stem and stem(word) in b.every_stem
    ]
    ours, theirs = _aimed(a), _aimed(b)
    done_a, done_b = _done(a) - ours, _done(b) - theirs
    out += [
        Difference("certainty", f"'{verb}' is aimed at in one text, done in the other")
        for verb in sorted((ours & done_b) | (theirs & done_a))
    ]
    return out


def _aimed(f: Facts) -> set[str]:
    """The verbs (stems) ``f`` says someone aims, tries or plans to do, and never does."""
    goals = tables.word_set("goal_words")
    return {
        stem(f.lemmas[j])
        for j, head in enumerate(f.heads)
        if f.deps[j] == "xcomp" and f.poses[j] == "VERB" and f.lemmas[head] in goals
    }


def _done(f: Facts) -> set[str]:
    """The verbs (stems) ``f`` tells in a finite tense, as done or so."""
    return {
        stem(f.lemmas[j]) for j, tag in enumerate(f.tags) if f.poses[j] == "VERB" and tag in _TOLD
    }


def _another_thing(a: Facts, b: Facts) -> list[Difference]:
    """A thing ``a`` names is in ``b`` only as what names a kind of another thing, which
    stands where ``a``'s stands (the same role of the same word) and ``a`` does not tell:
    "The launch is on May 3" / "The launch party is on May 3", "Maria's wedding is in
    Lisbon" / "Maria's wedding reception is in Lisbon" are two things ("the pool size is
    set to 20" / "the pool allows 20" tells one thing by its attribute, in another frame:
    the judge decides; "a product designer" / "a design lead" name no one thing)."""
    out = []
    for lemma, pos, dep, head in zip(b.lemmas, b.poses, b.deps, b.heads, strict=True):
        if dep != "compound" or pos != "NOUN" or b.poses[head] != "NOUN" or b.heads[head] == head:
            continue  # (a compound at the root is a misread verb: "the auth service stores")
        whole = b.lemmas[head]
        frame = (b.deps[head], b.lemmas[b.heads[head]])
        if not _stands(a, lemma, frame) or told(whole, b, a):
            continue
        if whole in tables.word_set("attribute_nouns") or kind_of(lemma, whole):
            continue  # "the meeting time is 3 pm" / "the meeting is at 3 pm", "marathon race"
        out.append(Difference("thing", f"'{lemma} {whole}' is not '{lemma}'", stem(whole)))
    return out


def _attributes(a: Facts, b: Facts) -> list[Difference]:
    """Two predicates of one subject that tell two attributes (``data/predicate_nouns.txt``
    names their values apart): "lives in Sapporo" / "was born in Sapporo"."""
    found = other_attributes(a.text, b.text)
    if found is None:
        return []
    return [Difference("attribute", f"'{found[0]}' / '{found[1]}': two attributes", found[1])]


def _swapped_names(a: Facts, b: Facts) -> list[Difference]:
    """The same words but for two names that trade places: "Elena mentors Javier on the
    platform team" / "Javier mentors Elena on the platform team", whatever the parse
    makes of the verb (the small model may read "mentors" as a noun there, and the roles
    as nothing). Not two names listed or joined by a relation both ways ("Ana and Ben",
    "works with", ``data/mutual_words.txt``): there the order says nothing."""
    if len(a.lows) != len(b.lows) or a.lows == b.lows:
        return []
    apart = [i for i, (x, y) in enumerate(zip(a.lows, b.lows, strict=True)) if x != y]
    named = {w for name in a.names & b.names for w in name.split()}
    if sorted(a.lows[i] for i in apart) != sorted(b.lows[i] for i in apart):
        return []
    if not all(a.lows[i] in named for i in apart) or set(a.lows) & _JOINING:
        return []
    if set(a.lemmas) & tables.word_set("mutual_words"):
        return []
    shown = listed({a.lows[i] for i in apart})
    return [Difference("role", f"{shown} trade places")]


def _state_and_event(a: Facts, b: Facts) -> list[Difference]:
    """A light verb ``a`` tells in the present where ``b`` tells another verb in the past,
    with the same preposition and thing: "Hana lives in Vancouver" / "Hana studied in
    Vancouver", "Aiko lives in Sapporo" / "Aiko was born in Sapporo" tell a state now and
    an event then ("lives in" / "resides in", both now, the judge decides). Not a
    supersede's conflict: an event may be the change ("relocated to a new office at")."""
    light = tables.word_set("light_verbs")
    now = {
        (a.lows[p], a.lemmas[o])
        for v, p, o in _framed(a)
        if a.lemmas[v] in light and a.tags[v] in _PRESENT
    }
    return [
        Difference("event", f"'{b.lemmas[v]} {b.lows[p]} {b.lemmas[o]}' told as past in one text")
        for v, p, o in _framed(b)
        if _told_past(b, v)
        and b.lemmas[v] not in light
        and (b.lows[p], b.lemmas[o]) in now
        and not told(b.lemmas[v], b, a)
    ]


def _told_past(f: Facts, verb: int) -> bool:
    """The verb at ``verb`` is told in the past: "studied", "was born" (not "is
    employed", "has lived")."""
    if f.tags[verb] == "VBD":
        return True
    return f.tags[verb] == "VBN" and any(
        f.heads[i] == verb and f.deps[i] in ("aux", "auxpass") and f.tags[i] == "VBD"
        for i in range(len(f.tags))
    )


def _framed(f: Facts) -> list[tuple[int, int, int]]:
    """(verb, preposition, its object) for each verb that takes a preposition."""
    return [
        (f.heads[p], p, o)
        for o, (dep, p) in enumerate(zip(f.deps, f.heads, strict=True))
        if dep == "pobj" and f.deps[p] == "prep" and f.poses[f.heads[p]] in ("VERB", "AUX")
    ]


def _stands(f: Facts, noun: str, frame: tuple[str, str]) -> bool:
    """``f`` has the common noun ``noun`` (a lemma) heading its phrase in ``frame``: its
    dependency and the lemma of the word it hangs on."""
    return any(
        pos == "NOUN" and dep != "compound" and lemma == noun and (dep, f.lemmas[head]) == frame
        for lemma, pos, dep, head in zip(f.lemmas, f.poses, f.deps, f.heads, strict=True)
    )


def _modifiers(a: Facts, b: Facts) -> list[Difference]:
    """A temporal modifier on a thing both texts name: "Ana's former team" / "Ana's team".
    One on a thing only one text names is a detail it adds ("starting next week")."""
    return [
        Difference("modifier", f"'{mod} {noun}' in one text only")
        for mod, noun in sorted(a.modifiers ^ b.modifiers)
        if stem(noun) in (b.every_stem if (mod, noun) in a.modifiers else a.every_stem)
    ]


def _history(a: Facts, b: Facts) -> list[Difference]:
    """What the older places in another time, the newer does not say at all: "Tom's
    former employer was Deloitte" stays true when "Tom currently works at KPMG" (a
    modifier on a thing both name is ``_modifiers``'s; "used to" on a verb both say,
    ``_ended``'s)."""
    placed = [
        Difference("modifier", f"'{mod} {noun}' in the older text only")
        for mod, noun in sorted(a.modifiers - b.modifiers)
        if stem(noun) not in b.every_stem
    ]
    return placed + [
        Difference("modifier", f"'{verb}' told as ended (used to, previously) in the older only")
        for verb in sorted(a.ended - b.ended)
        if stem(verb) not in b.every_stem
    ]


def _ended(a: Facts, b: Facts) -> list[Difference]:
    """A verb ``a`` says held once and no longer ("used to live in Lisbon", "previously
    lived in Lisbon") that ``b`` says without it ("lives in Lisbon", "currently lives in
    Porto")."""
    return [
        Difference("modifier", f"'{verb}' told as ended (used to, previously) in one text only")
        for verb in sorted(a.ended - b.ended)
        if stem(verb) in b.every_stem
    ]


def _persons(a: Facts, b: Facts) -> list[Difference]:
    """Each text's clauses are about people (names, the user) and no person is shared:
    "Ana works at Microsoft" / "Bo left Microsoft" (not two people told from each
    other's side: "Dr. Bauer is the user's dermatologist" / "the user sees Dr. Bauer")."""
    if _told_from_other_side(a, b) or _told_from_other_side(b, a):
        return []
    ours, theirs = _subject_persons(a), _subject_persons(b)
    if ours and theirs and not any(_one_person(x, y) for x in ours for y in theirs):
        return [Difference("person", f"about {listed(ours)} / {listed(theirs)}")]
    return []


def _one_person(x: str, y: str) -> bool:
    """One name is the other told with a title before it, or its initials: "Okafor" /
    "Dr. Okafor", "Hannah Lee" / "Ms. Hannah Lee" ("Smith" / "Anna Smith" are two)."""
    shorter, longer = sorted((x.split(), y.split()), key=len)
    extra = longer[: len(longer) - len(shorter)]
    titled = len(shorter) > 1 or all(w.endswith(".") for w in extra)
    return x == y or (longer[-len(shorter) :] == shorter and titled) or abbreviates(x, y)


def _subject_names(a: Facts, b: Facts) -> list[Difference]:
    """A name in the older's subject that the newer never says, where the newer names
    another: "The Nasdaq index fell 23 points" / "The S&P 500 index gave up 12 points"."""
    keys = [set(key.split()) for _, subjects in a.clauses for key in subjects]
    named = {n for n in a.names if any(set(n.split()) <= key for key in keys)}
    others = sorted(b.names - a.names)
    gone = sorted(
        n
        for n in named
        if not {stem(w) for w in n.split()} & b.every_stem
        and not any(abbreviates(n, other) for other in others)
    )
    if gone and others:
        return [Difference("role", f"about {listed(gone)} / {listed(others)}")]
    return []


def _new_actors(a: Facts, b: Facts) -> list[Difference]:
    """Someone ``b`` has do the thing whom ``a`` never names: "Sarah reviews the pull
    requests" / "... are reviewed by Ahmed"."""
    actors = _subject_persons(b) - a.names - {"user", a.initial}
    # A word the other text says as a common noun is no new person: only the first
    # word of a sentence made it a name ("Finance must approve" / "approval from
    # finance").
    actors = {n for n in actors if not all(stem(w) in a.every_stem for w in n.split())}
    return [Difference("person", f"{listed(actors)} in one text only")] if actors else []


def _told_from_other_side(a: Facts, b: Facts) -> bool:
    """``a`` tells its subject as someone's relation by a copula ("Dr. Bauer is the
    user's dermatologist") and ``b`` has that someone for its subject and ``a``'s
    subject among its arguments ("The user sees Dr. Bauer"): the same two people."""
    objects = a.roles.get(("be", "object"), frozenset())
    owners = {o for thing in objects for o in a.owners.get(thing, ())}
    told = {k for keys in b.roles.values() for k in keys}
    theirs = _subject_persons(b)
    return any(
        verb == "be" and bool(theirs) and theirs <= owners and bool(subjects & told)
        for verb, subjects in a.clauses
    )


def _subject_persons(f: Facts) -> set[str]:
    people = f.names | {"user"}
    return {s for _, subjects in f.clauses for s in subjects if s in people}


def moved_from(a: Facts, b: Facts) -> list[Difference]:
    """``b`` tells ``a``'s thing as where something came from, going to another: "is
    Thunderbird" / "switched from Thunderbird to Apple Mail"."""
    left = switched_from(a, b)
    if left:
        gone = sorted(p for p, e in b.ends if e == "to" and stem(p) not in a.every_stem)
        return [Difference("role", f"from {listed(left)} to {listed(gone)} in one text only")]
    return []


def switched_from(a: Facts, b: Facts) -> set[str]:
    """The things of ``a``'s that ``b`` says something went from, to another thing:
    "uses Jira" / "migrated from Jira to Linear" (Jira)."""
    left = {p for p, e in b.ends if e == "from" and stem(p) in a.every_stem}
    gone = {p for p, e in b.ends if e == "to" and stem(p) not in a.every_stem}
    return left if gone else set()


def _directions(a: Facts, b: Facts, besides: set[str] | None = None) -> list[Difference]:
    """One verb going two ways ("moved out of the flat" / "moved into the flat"), or one
    place gone to in one text and come from in the other ("taken to hospital" /
    "released from hospital"), but for the places ``besides``."""
    out = []
    for verb in sorted({v for v, _ in a.directions} & {v for v, _ in b.directions}):
        ours = {d for v, d in a.directions if v == verb}
        theirs = {d for v, d in b.directions if v == verb}
        if ours - theirs and theirs - ours:
            out.append(Difference("role", f"'{verb}' {listed(ours)} / {listed(theirs)}"))
    for place in sorted({p for p, _ in a.ends} & {p for p, _ in b.ends} - (besides or set())):
        ours = {e for p, e in a.ends if p == place}
        theirs = {e for p, e in b.ends if p == place}
        if ours != theirs and len(ours) == len(theirs) == 1:
            (x,), (y,) = ours, theirs
            out.append(Difference("role", f"{x} '{place}' / {y} '{place}'"))
    return out


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
    return list(_uncovered(a.text, b.text))


# Each text's facts are one (``facts``), so a pair's comparison is kept by its texts.
@lru_cache(maxsize=PAIRS_KEPT)
def _uncovered(older: str, newer: str) -> tuple[Difference, ...]:
    a, b = facts(older), facts(newer)
    out = []
    mine = b.value_idents
    loose = {(v.kind, v.key) for v in b.values if not v.anchor}
    unanchored = {(v.kind, v.key) for v in b.values}
    for value in a.values:
        if value.anchor and (value.kind, value.key) in loose:
            continue  # the other text does not say what it counts ("set to 20")
        if not value.anchor and (value.kind, value.key) in unanchored:
            continue
        if _as_version(value, b):
            continue
        if value.ident not in mine and not _ranked_alike(value, b.values):
            out.append(replace(_value_difference(value, b), item=value.key))
    initials = told_by_initials(a, b)
    for name in sorted(a.names - b.names - initials):
        if _told_apart(name, b):
            continue  # "the Chicago Marathon" / "the marathon in Chicago"
        if pertains(name, b):
            continue  # "European travel" / "travelling within Europe"
        # a name of one letter (a grade, a blood type) is not told by an article "a"
        said = len(name) > 1 and stem(name) in b.every_stem
        if not said and not any(abbreviates(name, o) for o in b.names):
            others = sorted(b.names - a.names)
            shown = f"'{name}'" + (f" / {listed(others)}" if others else " in one text only")
            out.append(Difference("name", shown, name, added=not others))
    for word in sorted(a.content - initials):
        if not told(word, a, b):
            out.append(Difference("word", f"'{word}' has no counterpart", stem(word)))
    return tuple(out)


def told(word: str, a: Facts, b: Facts, derived: bool = True) -> bool:
    """Whether a content word of ``a`` (a lemma) is said in ``b``: by its stem, a table
    synonym, a word WordNet derives from it or it from ("player" / "plays"), or a
    WordNet synonym of one part of speech (``lexicon``). Without ``derived``, a word
    told in another part of speech counts as unsaid (a swap counts it so)."""
    if stem(word) in b.every_stem or _hyphened(word, b) or _closed(word, a, b):
        return True
    if any(abbreviates(word, low) for low in b.lows if low[:1] == word[:1]):
        return True  # "Kubernetes" / "k8s"
    if any(v.anchor == word and _ranked_alike(v, b.values) for v in a.values):
        return True  # "third grade" / "a third grader"
    pos = _pos_of(a, word)
    if derived and _derived_in(word, pos, b):
        return True  # "is an oud player" / "plays the oud"
    return any(
        synonyms(word, pos, lemma, b.poses[i])
        for i, lemma in enumerate(b.lemmas)
        if b.poses[i] == pos
    )


def _hyphened(word: str, b: Facts) -> bool:
    """A compound told with a hyphen or without: each part of ``word`` said in ``b``
    ("bullet-pointed" / "in bullet points"), or ``word`` a part of one of ``b``'s
    ("limits the rate" / "rate-limits"); "part-time" is no "full-time"."""
    parts = hyphen_stems(word)
    if parts and all(p in b.every_stem for p in parts):
        return True
    return any(stem(word) in hyphen_stems(lemma) for lemma in b.lemmas if "-" in lemma)


def _closed(word: str, a: Facts, b: Facts) -> bool:
    """A compound written as one word in one text and as two in the other: "filenames" /
    "file names", "the data base" / "the database" (``word`` is ``a``'s)."""
    if any(x + y == word for x, y in zip(b.lemmas, b.lemmas[1:], strict=False)):
        return True
    joined = set(b.lemmas)
    return any(
        (x == word and x + y in joined) or (y == word and x + y in joined)
        for x, y in zip(a.lemmas, a.lemmas[1:], strict=False)
    )


def hyphen_stems(word: str) -> frozenset[str]:
    """The stems of a hyphenated word's parts ("dark-roasted": dark, roast); none for a
    word without a hyphen."""
    if "-" not in word.strip("-"):
        return frozenset()
    return frozenset(stem(p) for p in word.split("-") if p)


def _derived_in(word: str, pos: str, b: Facts) -> bool:
    """A word of ``b`` derived from ``word`` or it from that word, not as a subject: "the
    user" is no form of "uses"."""
    forms = {stem(form) for form in related(word, pos)}
    return bool(forms) and any(
        stem(lemma) in forms and b.deps[i] not in _SUBJECTS for i, lemma in enumerate(b.lemmas)
    )


def _pos_of(f: Facts, lemma: str) -> str:
    for i, other in enumerate(f.lemmas):
        if other == lemma:
            return f.poses[i]
    return ""


def _ranked_alike(value: Value, others: tuple[Value, ...]) -> bool:
    """An ordinal of the same rank whose noun WordNet derives from the other's ("in
    third grade" / "a third grader")."""
    if value.kind != "ordinal" or not value.anchor:
        return False
    forms = {stem(value.anchor)} | {stem(f) for f in related(value.anchor, "NOUN")}
    return any(
        o.kind == "ordinal"
        and o.key == value.key
        and o.anchor
        and (stem(o.anchor) in forms or stem(value.anchor) in map(stem, related(o.anchor, "NOUN")))
        for o in others
    )


def pertains(name: str, b: Facts) -> bool:
    """A one-word name WordNet derives from a word ``b`` says, or it from that word
    ("European" / "Europe")."""
    if " " in name:
        return False
    forms = related(name, "ADJ") | related(name, "NOUN")
    return any(stem(f) in b.every_stem for f in forms if stem(f) != stem(name))


def _told_apart(name: str, b: Facts) -> bool:
    """Each word of a name of several is said in the other text, apart ("the Helix API" /
    "Helix's API", "a Honda Civic" / "a Civic made by Honda")."""
    parts = name.split()
    return len(parts) > 1 and all(stem(w) in b.every_stem for w in parts)


def _verbs(a: Facts, b: Facts) -> list[Difference]:
    """A verb of ``a`` the other text has no word for: another relation."""
    return [
        Difference("relation", f"'{verb}' has no counterpart")
        for verb in sorted(a.verbs)
        if not told(verb, a, b)
    ]


def _as_version(value: Value, b: Facts) -> bool:
    """A dotted number the other text calls a version, or the other way round: "targets
    version 3.11" / "the Python target is 3.11"."""
    kinds = ("version", "number")
    return (
        value.kind in kinds
        and "." in value.key
        and any(o.kind in kinds and o.kind != value.kind and o.key == value.key for o in b.values)
    )


def _value_difference(value: Value, b: Facts) -> Difference:
    others = b.values
    alike = [o for o in others if o.kind == value.kind and o.anchor == value.anchor]
    alike = alike or [o for o in others if o.kind == value.kind]
    if alike:
        return Difference(value.kind, f"'{value.show()}' / {listed(o.show() for o in alike)}")
    if value.kind == "number" and value.key != "1" and _one_of(value.anchor, b):
        # "two approvals" / "only one approval": an article or "one" counts one
        return Difference("count", f"'{value.show()}' / '1 {value.anchor}'")
    return Difference(value.kind, f"'{value.show()}' in one text only", added=True)


def _one_of(anchor: str, f: Facts) -> bool:
    """Does ``f`` count one of ``anchor`` ("a cat", "one approval")?"""
    return bool(anchor) and any(
        f.lows[k] in _ONE and stem(f.lemmas[f.heads[k]]) == anchor
        for k in range(len(f.lows))
        if f.deps[k] in ("det", "nummod")
    )


on_forget(_same_fact.cache_clear)
on_forget(_supersede_conflicts.cache_clear)
on_forget(_uncovered.cache_clear)
