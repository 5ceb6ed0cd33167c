"""Whether a newer text restates an older one, on their readings: it says all the older
says, with no difference of fact (``difference.same_fact``), no word told in place of
another (``substitutions``), no value where the older had words, and at most a detail or
two more; and whether it differs only by new values (``new_value_only``: a changed value
of one fact, told in the same words). Pure."""

from __future__ import annotations

from functools import lru_cache

from memfold.reading import tables
from memfold.reading.acronyms import abbreviates, told_by_initials
from memfold.reading.difference import (
    PAIRS_KEPT,
    WORDING,
    additions,
    pertains,
    same_fact,
    told,
    uncovered,
)
from memfold.reading.facts import Facts, facts, on_forget
from memfold.reading.keys import norm_stem, stem, table_stems
from memfold.reading.model import Difference, listed

_THINGS = frozenset(("N",))
_FINITE = {"VBD": "past", "VBZ": "present", "VBP": "present"}
VALUE_KINDS = frozenset(
    (
        "number",
        "ordinal",
        "money",
        "percent",
        "time",
        "date",
        "year",
        "weekday",
        "version",
        "url",
        "name",
    )
)


def restatement_differences(
    older: str, newer: str, max_additions: int, swap_max: int, max_reworded: int | None = None
) -> list[Difference]:
    """Why ``newer`` is no restatement of ``older`` (empty: it is one). It must say all
    the older says, with nothing that differs and at most ``max_additions`` details more;
    where only wording differs, the judge decides, unless a word stands where the other
    text has another ("allergic to peanuts" / "allergic to shellfish"). With
    ``max_reworded``, at most that many of the older's words may be told in other words
    (the offline judge's own reading, which knows no more synonyms than its tables), and
    the newer adds no clause, tells no shared verb in another tense and loses no
    negation of the older's."""
    return list(_restatement(older, newer, max_additions, swap_max, max_reworded))


# Pairs read: a judge and then the guards read the same pair, strictly and loosely.
@lru_cache(maxsize=PAIRS_KEPT)
def _restatement(
    older: str, newer: str, max_additions: int, swap_max: int, max_reworded: int | None
) -> list[Difference]:
    if _asks(older) != _asks(newer):
        return [Difference("mood", "a question in one text only")]
    found = same_fact(older, newer, "newer")
    hard = [d for d in found if d.kind not in WORDING]
    if hard:
        return hard
    swapped = substitutions(older, newer, swap_max)
    if swapped:
        return swapped
    a, b = facts(older), facts(newer)
    lost = [d.item for d in uncovered(a, b)]
    added = uncovered(b, a)
    valued = [d.detail for d in added if d.kind in VALUE_KINDS - {"name"}]
    if lost and valued:
        # A value where the older had words: "unlimited calls" / "capped at 1,000 calls".
        return [Difference("value", f"{valued[0]} in place of {listed(lost)}")]
    states = [w for w in lost if stem(w) in a.states]
    if states:
        # What the older says its subject is ("is free", "is publicly readable"), in
        # none of the newer's words: the newer says something else of it.
        return [Difference("state", f"{listed(states)} in the older text only")]
    lost_things = [w for w in lost if not _is_verb(a, w)]
    told_states = [d.item for d in added if stem(d.item) in b.states]
    if told_states and lost_things:
        # What the newer says its subject is, where the older's words go unsaid:
        # "showed high cholesterol" / "the cholesterol test came back normal".
        shown = f"{listed(told_states)} in the newer text only, {listed(lost_things)} unsaid"
        return [Difference("state", shown)]
    added_things = [d.item for d in added if d.kind == "word" and _is_thing(b, d.item)]
    if lost_things and added_things:
        # A thing the older names told by none of the newer's words, where the newer
        # names a thing of its own: one said in the other's place, wherever the parse
        # hangs it ("takes the school bus home every afternoon" / "picks her up from
        # school by car every day").
        told = f"{listed(lost_things)} / {listed(added_things)}"
        return [Difference("word", f"{told}: told in place of each other")]
    if len(lost_things) > len(added):
        # Things the older names told in none of the newer's words: it says less. (A
        # verb may go into a light one: "spends evenings reading" / "reads at night".)
        return [Difference("word", f"{listed(lost_things)} in the older text only")]
    if max_reworded is not None:
        # The strict reading: only a verb or two told another way ("likes" / "enjoys"),
        # each by a verb of the newer's own about the same subject or object, and
        # details added counted whole.
        verbs = [d.item for d in added if _is_verb(b, d.item)]
        unmatched = _counterparts(a, lost, b, verbs)
        if (len(lost) > max_reworded or unmatched) and _reworded_alike(a, lost, b, added):
            unmatched = []  # every verb the older loses told about the same subject or object
        elif len(lost) > max_reworded:
            unmatched = lost
        if lost_things or unmatched:
            return [Difference("word", f"{listed(lost_things or lost)} told in other words")]
        if len(b.clauses) > len(a.clauses):
            # A clause of its own is a statement more ("..., they are attacking us"),
            # not a detail of the older's.
            return [Difference("detail", "a clause the older lacks")]
        strict = _tenses(a, b) + _negations(a, b)
        if strict:
            return strict
        if len(added) - len(lost) > max_additions:
            extra = len(added) - len(lost)
            return [Difference("detail", f"{extra} details in the newer text only")]
    extra = additions(older, newer)
    if extra > max_additions:
        return [Difference("detail", f"{extra} details in the newer text only")]
    return []


def _asks(text: str) -> bool:
    """A question, which states no fact ("Does he have supporters?")."""
    return text.rstrip().rstrip("\"'").endswith("?")


def substitutions(older: str, newer: str, swap_max: int) -> list[Difference]:
    """A noun or adjective of each text, neither in the other, standing in the same place
    (the same head and relation), or as many such words on each side (at most
    ``swap_max``) and the rest the same, or one word of any kind for one other: one slot
    told two ways ("work laptop" / "personal laptop", "studied at" / "taught at"); or a
    verb whose place a light verb takes ("teaches yoga" / "takes yoga"). A verb among
    other rewording is the judge's to read ("uses Rust" / "prefers Rust for systems
    work")."""
    return list(_substitutions(older, newer, swap_max))


@lru_cache(maxsize=PAIRS_KEPT)
def _substitutions(older: str, newer: str, swap_max: int) -> tuple[Difference, ...]:
    a, b = facts(older), facts(newer)
    ours = sorted(w for w in a.content if not told(w, a, b, derived=False))
    theirs = sorted(w for w in b.content if not told(w, b, a, derived=False))
    ours += sorted(n for n in a.names - b.names if _unsaid(n, b))
    theirs += sorted(n for n in b.names - a.names if _unsaid(n, a))
    # "PR" / "pull request": words told by initials are said
    initials = told_by_initials(a, b) | told_by_initials(b, a)
    ours = [w for w in ours if w not in initials]
    theirs = [w for w in theirs if w not in initials]
    ours, theirs = _denial_for_avoidance(a, ours, b, theirs)
    theirs, ours = _denial_for_avoidance(b, theirs, a, ours)
    agreeing = tables.pairs("antonyms")
    out = [
        Difference("word", f"'{x}' / '{y}' in the same place", stem(y))
        for x in ours
        for y in theirs
        if any(s[2] in _THINGS for s in a.slots.get(stem(x), set()) & b.slots.get(stem(y), set()))
        and frozenset((x, y)) not in agreeing
    ]
    out += _told_by_light_verb(a, b, [stem(w) for w in ours])
    out += _told_by_light_verb(b, a, [stem(w) for w in theirs])
    out += _argument_replaced(a, b, ours, theirs) + _argument_replaced(b, a, theirs, ours)
    out += _another_kind(a, ours, b, theirs) + _another_kind(b, theirs, a, ours)
    if not out and ours and theirs and len(ours) == len(theirs) <= swap_max:
        things = all(_is_thing(a, x) for x in ours) and all(_is_thing(b, y) for y in theirs)
        # One word for one other, unless a verb is told as a noun: "earns" / "salary" is
        # the judge's to read.
        nominal = _verb_and_noun(a, stem(ours[0]), b, stem(theirs[0])) or _verb_and_noun(
            b, stem(theirs[0]), a, stem(ours[0])
        )
        if things or (len(ours) == 1 and not nominal):
            swapped = " ".join(stem(y) for y in theirs)
            out.append(Difference("word", f"{listed(ours)} / {listed(theirs)}: swapped", swapped))
    return tuple(out)


def _denial_for_avoidance(
    a: Facts, ours: list[str], b: Facts, theirs: list[str]
) -> tuple[list[str], list[str]]:
    """A verb ``a`` negates told by a verb of avoiding in ``b`` is no word swapped: "does
    not eat fish" / "avoids fish" (``data/privatives.txt``; whether the object is one
    is the polarity reading's)."""
    denied = [x for x in ours if x in a.negated and _is_verb(a, x)]
    avoiding = [y for y in theirs if y in tables.word_set("privatives")]
    for x, y in zip(denied, avoiding, strict=False):
        ours = [w for w in ours if w != x]
        theirs = [w for w in theirs if w != y]
    return ours, theirs


def _unsaid(name: str, other: Facts) -> bool:
    """A name ``other`` says in no form ("European" is said by "Europe", "the National
    Health Service" by "the NHS")."""
    if any(abbreviates(name, theirs) for theirs in other.names):
        return False
    return stem(name) not in other.every_stem and not pertains(name, other)


def _argument_replaced(a: Facts, b: Facts, ours: list[str], theirs: list[str]) -> list[Difference]:
    """A thing a verb of both texts takes in ``a`` (its object, or after one of its
    prepositions) that ``b`` lacks, where ``b``'s verb takes a new word instead: "merging
    to main" / "merging to release branches" (however the parse hangs the new words)."""
    # Light verbs too: "takes her medication with food" / "on an empty stomach".
    shared = _verb_stems(a) & _verb_stems(b)
    out = []
    for x in ours:
        heads = {
            head
            for head, how, pos in a.slots.get(stem(x), ())
            if head in shared and how != "mod" and pos in _THINGS
        }
        for y in theirs:
            if heads & {head for head, how, _ in b.slots.get(stem(y), ()) if how != "mod"}:
                out.append(Difference("word", f"'{x}' / '{y}' taken by one verb", stem(y)))
    return out


def _another_kind(a: Facts, ours: list[str], b: Facts, theirs: list[str]) -> list[Difference]:
    """A compound noun of ``a`` ("bedroom") whose last part ``b`` names with a modifier
    of its own ("living room"): another kind of the same thing, however the parse hung
    the words ("the bedroom smart bulbs" / "the living room smart bulbs")."""
    out = []
    for x in ours:
        for y in theirs:
            if not (_is_thing(a, x) and _is_thing(b, y) and x.endswith(y) and x != y):
                continue
            kinds = [
                w
                for w in theirs
                if any(
                    head == stem(y) and how == "mod" for head, how, _ in b.slots.get(stem(w), ())
                )
            ]
            if kinds:
                told = f"{' '.join(kinds)} {y}"
                out.append(Difference("word", f"'{x}' / '{told}': another kind", stem(y)))
    return out


def _verb_stems(f: Facts) -> set[str]:
    """The stems of every verb of ``f``, light ones too, as slots name their heads."""
    return {norm_stem(lemma) for lemma, pos in zip(f.lemmas, f.poses, strict=True) if pos == "VERB"}


def _told_by_light_verb(a: Facts, b: Facts, lost: list[str]) -> list[Difference]:
    """A verb of ``a`` whose subject and object a light verb of ``b``'s takes instead
    ("teaches yoga" / "takes yoga", either way round): a light verb tells no fact of its
    own, so the verb is lost, not reworded ("walks" / "takes a walk" keeps it in the
    walk)."""
    light = tables.word_set("light_verbs") - set(a.lemmas)
    out = []
    for verb in lost:
        if not _is_verb(a, verb):
            continue
        for other in sorted({v for v, _ in b.roles if v in light}):
            if all(
                _role_keys(a, verb, role) & b.roles.get((other, role), frozenset())
                for role in ("subject", "object")
            ):
                out.append(Difference("word", f"'{verb}' / '{other}' in the same place", other))
    return out


def _role_keys(f: Facts, verb: str, role: str) -> set[str]:
    return {
        key for (v, r), keys in f.roles.items() if r == role and stem(v) == verb for key in keys
    }


def _counterparts(a: Facts, lost: list[str], b: Facts, verbs: list[str]) -> list[str]:
    """The older's verbs (stems) told by no verb of the newer about the same subject or
    object ("uses Rust" / "prefers Rust": Rust; "he said" / "water is left": none)."""
    free = list(verbs)
    unmatched = []
    for verb in lost:
        ours = _arguments(a, verb)
        match = next((v for v in free if ours & _arguments(b, v)), None)
        if match is None:
            unmatched.append(verb)
        else:
            free.remove(match)
    return unmatched


def _arguments(f: Facts, verb: str) -> set[str]:
    """Who or what verb ``verb`` (a stem) is about: its subjects' and objects' keys."""
    return {key for (v, _), keys in f.roles.items() if stem(v) == verb for key in keys}


def _reworded_alike(a: Facts, lost: list[str], b: Facts, added: list[Difference]) -> bool:
    """The newer tells the older's fact in as many words or fewer, in as many clauses,
    each verb the older loses told about the same subject or object by a verb of the
    newer's own or by a copula that names what the verb did ("costs 1,200 euros" / "is
    1,200 euros", "served in the Korean War" / "is a Korean War veteran"): a rewording,
    not a detail more ("is investigating, saying Boykin requested it" / "has begun an
    investigation": Boykin is nobody's subject), nor a light verb for a verb of its own
    ("likes hiking" / "goes hiking")."""
    if len(added) > len(lost) or len(a.clauses) != len(b.clauses):
        return False
    verbs = [d.item for d in added if _is_verb(b, d.item)]
    return not _counterparts(a, lost, b, verbs + _naming_copulas(b))


def _naming_copulas(b: Facts) -> list[str]:
    """The copula, where ``b`` has one with a complement noun or value ("is a veteran",
    "is $85,000"), which may tell what another verb did."""
    named = any(dep == "attr" and b.lemmas[b.heads[j]] == "be" for j, dep in enumerate(b.deps))
    return [stem("be")] if named else []


def _tenses(a: Facts, b: Facts) -> list[Difference]:
    """A verb both texts use, in the past in one and the present in the other ("opens
    this weekend" / "opened over the weekend")."""
    ours, theirs = _finite(a), _finite(b)
    return [
        Difference("tense", f"'{verb}' {ours[verb]} / {theirs[verb]}")
        for verb in sorted(ours.keys() & theirs.keys())
        if ours[verb] != theirs[verb]
    ]


def _finite(f: Facts) -> dict[str, str]:
    """Each verb told in one finite tense only: its lemma, "past" or "present"."""
    tenses: dict[str, set[str]] = {}
    for lemma, pos, tag in zip(f.lemmas, f.poses, f.tags, strict=True):
        if pos == "VERB" and tag in _FINITE:
            tenses.setdefault(lemma, set()).add(_FINITE[tag])
    return {verb: next(iter(t)) for verb, t in tenses.items() if len(t) == 1}


def _negations(a: Facts, b: Facts) -> list[Difference]:
    """A negation of the older told in other words ("were not to blame" / "declined to
    name") is more than the strict reading can tell; one the newer adds on a word of its
    own is a detail ("likes coffee but not tea")."""
    lost = sorted(w for w in a.negated - b.negated if stem(w) not in b.every_stem)
    return [Difference("polarity", f"'{w}' is negated in the older text only") for w in lost]


def _is_verb(f: Facts, item: str) -> bool:
    return any(slot[2] == "VERB" for slot in f.slots.get(item, ()))


def _verb_and_noun(a: Facts, x: str, b: Facts, y: str) -> bool:
    """Stem ``x`` is only a verb in ``a`` and ``y`` only a noun heading its own phrase in
    ``b`` (not a word the parse hung on another noun, which may be a misread verb)."""
    slots_x, slots_y = a.slots.get(x, frozenset()), b.slots.get(y, frozenset())
    # Not a participle, which is as often a state ("is left-handed") as an act, nor an
    # infinitive after an adjective ("allergic to shellfish" may be read as one).
    tags = {tag for lemma, tag in zip(a.lemmas, a.tags, strict=True) if norm_stem(lemma) == x}
    verb = (
        bool(slots_x)
        and all(pos == "VERB" and how != "xcomp" for _, how, pos in slots_x)
        and "VBN" not in tags
    )
    noun = bool(slots_y) and all(pos == "N" and how != "mod" for _, how, pos in slots_y)
    # A text with no verb at all is one the parse misread ("Lena studies Spanish" as a
    # noun phrase): its "noun" is the verb it missed, a swap.
    misread = not any(pos in ("VERB", "AUX") for pos in b.poses)
    return verb and noun and not misread


def _is_thing(f: Facts, word: str) -> bool:
    return word in f.names or any(slot[2] == "N" for slot in f.slots.get(stem(word), ()))


def new_value_only(older: str, newer: str, swap_max: int) -> bool:
    """``newer`` differs from ``older`` only by new values in place of the older's
    ("The user's rent is $1,200" / "The user's rent is now $1,350"): a changed value of one
    fact, told in the same words."""
    found = same_fact(older, newer, "newer")
    kinds = [d for d in found if d.kind not in WORDING]
    if not kinds or not all(d.kind in VALUE_KINDS and not d.added for d in kinds):
        return False
    a, b = facts(older), facts(newer)
    cues = _cue_stems()
    # The older's other words kept, but for a verb the cue takes the place of ("set to
    # 20" / "raised to 22") and at most ``swap_max`` told another way ("the grocery
    # order is delivered" / "the grocery delivery comes"); the newer may add when or why.
    lost = [d.item for d in uncovered(a, b) if d.kind not in VALUE_KINDS]
    added = [d.item for d in uncovered(b, a) if d.kind not in VALUE_KINDS]
    changers = table_stems("value_change_verbs")
    told_by_cue = [w for w in lost if _is_verb(a, w)][: len([w for w in added if w in changers])]
    return not (
        len([w for w in lost if w not in told_by_cue and w not in cues]) > swap_max
        or [d for d in substitutions(older, newer, swap_max) if not set(d.item.split()) <= cues]
    )


def _cue_stems() -> frozenset[str]:
    return table_stems("change_cues", "value_change_verbs")


on_forget(_restatement.cache_clear)
on_forget(_substitutions.cache_clear)
