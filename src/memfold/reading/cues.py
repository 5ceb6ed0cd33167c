"""Change cues: the words by which a text says a fact changed ("now", "no longer",
"moved to", a value-changing verb with its value: "raised the rent to $1,500"), as the
parse places them (never a noun, a participle describing one or a comparative; a plan
or a wish only where plans are asked for), and whether a text states a plan or a wish.
Read from ``data/change_cues.txt`` and ``data/value_change_verbs.txt``. Pure."""

from __future__ import annotations

from collections.abc import Container, Iterable

from memfold.reading import tables
from memfold.reading.facts import Facts
from memfold.reading.keys import norm, stem

_NOUNS = frozenset(("NOUN", "PROPN"))
_COMPARATIVES = frozenset(("JJR", "RBR"))

# How a value-changing verb takes its value for an object ("increased 5 %"), or names
# the value it goes to ("raised to", "extended through").
_VALUE_OBJECTS = frozenset(("dobj", "npadvmod", "attr"))

_VALUE_PREPOSITIONS = frozenset(
    ("to", "from", "by", "through", "until", "till", "into", "onto", "off")
)
_AUXILIARIES = frozenset(("aux", "auxpass"))
_COMPLEMENTS = frozenset(("acomp", "attr", "oprd", "dobj"))
_DEFINITE = frozenset(("the", "this", "that", "these", "those"))


def change_cues(f: Facts, plans: bool = False) -> set[str]:
    """The change cues ``f``'s text holds, as the table writes them; never a noun ("sick
    leave") or a participle describing one ("eleven payments left"), and with ``plans``
    only, one of a change not said to have happened ("will move", "wants to switch")."""
    return {cue for _, _, cue in cue_spans(f, plans)}


def cue_spans(f: Facts, plans: bool = False) -> tuple[tuple[int, int, str], ...]:
    """Where ``change_cues`` stand: (first word, number of words, the cue). Kept with
    ``f`` (as a cached property is): a drain asks for each text's many times."""
    kept = f.__dict__.setdefault("_cue_spans", {})
    if plans not in kept:
        kept[plans] = tuple(_find_cues(f, plans))
    found: tuple[tuple[int, int, str], ...] = kept[plans]
    return found


def _find_cues(f: Facts, plans: bool) -> list[tuple[int, int, str]]:
    found = []
    # A verb that ends what it takes is a cue too ("sold the Civic"); its own table,
    # as what a statement says keeps it ("transferred shares before they were sold").
    # A completing verb is one only with what it completes ("passed the exam", not
    # "passed away").
    cue_tables = (
        ("change_cues", None),
        ("value_change_verbs", _takes_value),
        ("leaving_verbs", None),
        ("completion_verbs", _takes_object),
        ("level_verbs", _reaches_level),
    )
    for table, needs in cue_tables:
        starting = tables.by_first_word(table)
        for seq in (f.lemmas, f.lows):
            for i, word in enumerate(seq):
                for entry in starting.get(word, ()):
                    n = len(entry.words)
                    if (
                        seq[i : i + n] == entry.words
                        and _cue_at(f, i, n, plans)
                        and (needs is None or needs(f, i, n))
                    ):
                        found.append((i, n, " ".join(entry.words)))
    return found


def _reaches_level(f: Facts, start: int, n: int) -> bool:
    """The verb at ``start`` goes to a value, with no amount of its own moved ("rose to
    $84,000", not "rose 18.25 points to 9,586.71" nor "rose by 5 %"), and tells it of a
    person or of someone's thing ("the user's salary", "Lucas"; not "the Dow")."""
    span = range(start, start + n)
    counted = [v.index for v in f.values if f.deps[v.index] in ("nummod", "quantmod")]
    valued = {v.index for v in f.values} | {f.heads[i] for i in counted}
    below = [j for j in range(len(f.lows)) if j not in span and hangs_under(f, j, span)]
    moved = any(
        (f.heads[j] in span and f.deps[j] in _VALUE_OBJECTS and j in valued)
        or (f.lows[j] == "by" and f.deps[j] == "prep")
        for j in below
    )
    reached = any(
        f.lows[j] == "to"
        and f.deps[j] not in ("aux", "prt")
        and (
            any(k in valued for k in below if hangs_under(f, k, range(j, j + 1)) and k != j)
            # "up to $800" read as the amount's own modifier
            or (f.deps[j] == "quantmod" and _counts(f, f.heads[j]))
        )
        for j in below
    )
    return reached and not moved and _told_of_someone(f, start)


def _counts(f: Facts, j: int) -> bool:
    """Word ``j`` is a value, or a value's figure ("$" "800")."""
    return any(v.index == j or f.heads[v.index] == j for v in f.values)


def _told_of_someone(f: Facts, verb: int) -> bool:
    """The verb's subject is a person (a name, the user) or someone's thing."""
    subjects = [
        j for j in range(len(f.deps)) if f.heads[j] == verb and f.deps[j] in ("nsubj", "nsubjpass")
    ]
    return any(
        f.poses[j] == "PROPN"
        or f.lows[j] == "user"
        or any(f.heads[k] == j and f.deps[k] == "poss" for k in range(len(f.deps)))
        for j in subjects
    )


def _takes_object(f: Facts, start: int, n: int) -> bool:
    """The verb at ``start`` has a direct object."""
    return any(f.heads[j] == start and f.deps[j] == "dobj" for j in range(len(f.deps)))


def cue_scope(f: Facts, spans: Iterable[tuple[int, int]]) -> frozenset[int]:
    """The words the change cues at ``spans`` speak of: the clause of the verb each cue
    belongs to (the cue verb itself, or the verb a "now" or "no longer" hangs on), with
    the verb it takes for its complement ("started using Jobscan", "now prefers to
    schedule"), but no clause further down ("... to compare the resume against job
    descriptions", "... without overwhelming the reader"): what changed is said there,
    not in a clause of its own."""
    verbs = _cue_verbs(f, spans)
    return frozenset(
        j
        for j in range(len(f.heads))
        if j in verbs or (_clause_of(f, j) in verbs and f.poses[j] != "VERB")
    )


def cue_predicates(f: Facts, spans: Iterable[tuple[int, int]]) -> frozenset[int]:
    """What the clauses of the cues at ``spans`` say of their subjects: their verbs and
    the complements those take ("no longer eats", "is no longer vegan"), not a word in
    a phrase beside them ("cut the essay without overwhelming readers")."""
    verbs = _cue_verbs(f, spans)
    said = {j for j, head in enumerate(f.heads) if head in verbs and f.deps[j] in _COMPLEMENTS}
    return frozenset(verbs | said)


def _cue_verbs(f: Facts, spans: Iterable[tuple[int, int]]) -> set[int]:
    verbs: set[int] = set()
    for i, n in spans:
        for j in range(i, i + n):
            verb = _verb_of(f, j)
            if f.deps[verb] in _AUXILIARIES:
                verb = f.heads[verb]  # "is now wondering" read with "now" on "is"
            if _leads_in(f, verb):
                verb = f.heads[verb]  # "Starting in March, the rent is $1,950"
            verbs.add(verb)
            verbs |= {k for k, head in enumerate(f.heads) if head == verb and f.deps[k] == "xcomp"}
    return verbs


def _leads_in(f: Facts, verb: int) -> bool:
    """The verb heads a participle clause with no subject of its own, set before the
    clause it hangs on ("Starting next week, the standup moves to 10"): it tells when
    that clause holds."""
    return (
        f.deps[verb] == "advcl"
        and f.tags[verb] == "VBG"
        and verb < f.heads[verb]
        and not any(
            f.heads[j] == verb and f.deps[j] in ("nsubj", "nsubjpass") for j in range(len(f.deps))
        )
    )


def _clause_of(f: Facts, j: int) -> int:
    """The verb whose clause word ``j`` stands in: its nearest head that is a verb (not
    an auxiliary), or -1 when none is."""
    seen = {j}
    while f.heads[j] != j:
        j = f.heads[j]
        if j in seen:
            break
        seen.add(j)
        if f.poses[j] in ("VERB", "AUX") and f.deps[j] not in _AUXILIARIES:
            return j
    return -1


def _takes_value(f: Facts, start: int, n: int) -> bool:
    """The verb at ``start`` (``n`` words) goes to, from or by something in the words
    that hang on it, or takes a value for its object ("lowered the setting to 18 °C",
    "cut by 10 %", "increased 5 %"; not "extending Tuesday's one percent rally to hit
    its strongest level")."""
    span = range(start, start + n)
    counted = [v.index for v in f.values if f.deps[v.index] in ("nummod", "quantmod")]
    valued = {v.index for v in f.values} | {f.heads[i] for i in counted}
    for j in range(len(f.lows)):
        if j in span or not hangs_under(f, j, span):
            continue
        if (
            f.lows[j] in _VALUE_PREPOSITIONS
            and f.deps[j] not in ("aux", "prt")
            and not (n > 1 and _to_a_place(f, j, valued))
        ):
            return True  # whatever the parse makes of it ("went up to $1,520": quantmod)
        if f.lows[j] == "to" and f.deps[j] == "aux" and _value_object(f, f.heads[j], valued):
            return True  # "to" read as a verb's: "moved it to alternate Sundays"
        if f.heads[j] in span and f.deps[j] in _VALUE_OBJECTS and j in valued:
            return True
    return False


def _to_a_place(f: Facts, prep: int, valued: set[int]) -> bool:
    """The preposition at ``prep`` takes a common noun told as a known thing ("went down
    to the water's edge"): where a phrasal verb of motion goes, not a value (a value, a
    name or a bare noun: "went down to $40"; a verb of one word moves a thing: "moved
    their office into the garage")."""
    objects = [j for j in range(len(f.deps)) if f.heads[j] == prep and f.deps[j] == "pobj"]
    return any(
        j not in valued
        and f.poses[j] == "NOUN"
        and any(f.heads[k] == j and f.deps[k] in ("det", "poss") for k in range(len(f.deps)))
        for j in objects
    )


def _value_object(f: Facts, head: int, valued: set[int]) -> bool:
    """Word ``head`` takes a value for its object."""
    return any(
        f.heads[j] == head and j != head and f.deps[j] in _VALUE_OBJECTS and j in valued
        for j in range(len(f.heads))
    )


def hangs_under(f: Facts, j: int, span: Container[int]) -> bool:
    """Word ``j`` hangs, through its heads, on a word of ``span`` (or is one)."""
    seen = set()
    while j not in seen:
        if j in span:
            return True
        seen.add(j)
        j = f.heads[j]
    return False


def _cue_at(f: Facts, i: int, n: int, plans: bool) -> bool:
    if n == 1 and (f.poses[i] in _NOUNS or f.tags[i] in _COMPARATIVES):
        return False  # "sick leave", "lower than ten per cent"
    if f.poses[i] == "VERB" and f.deps[i] in ("acl", "amod"):
        return False  # "the moved files"
    if n == 1 and f.deps[i] == "amod" and not _definite(f, f.heads[i]):
        # An adjective tells a replacement only of a thing already known ("the new
        # deadline", "her new address"); "a new contest" is another one.
        return False
    if f.poses[i] == "VERB" and any(
        f.heads[j] == i and f.deps[j] == "neg" for j in range(len(f.deps))
    ):
        return False  # "has never been married", "did not move": no event told
    if _only_when(f, _verb_of(f, i)):
        return False  # "transferred the shares before they were sold"
    if _timetabled(f, i, n):
        return False  # "the return flight leaves Heathrow at 9:10am"
    return plans or not _unasserted(f, _verb_of(f, i))


def _timetabled(f: Facts, start: int, n: int) -> bool:
    """A verb in the present told with a clock time: a timetable ("leaves at 9:10am",
    "starts at 8 am"), not a change ("left Acme in May", "moved to 10 am")."""
    if f.poses[start] != "VERB" or f.tags[start] not in _PRESENT:
        return False
    span = range(start, start + n)
    return any(v.kind == "time" and hangs_under(f, v.index, span) for v in f.values)


_PRESENT = frozenset(("VBZ", "VBP"))
# Words that open a clause telling only when its head's event happened.
_WHEN = frozenset(("before", "after", "until", "till", "when", "while", "once"))


def _only_when(f: Facts, verb: int) -> bool:
    """Is ``verb`` the head of a clause that tells when another event happened ("before
    they were sold"), which states no change of its own?"""
    return f.deps[verb] == "advcl" and any(
        f.heads[j] == verb and f.deps[j] == "mark" and f.lows[j] in _WHEN
        for j in range(len(f.deps))
    )


def _definite(f: Facts, noun: int) -> bool:
    """The noun at ``noun`` names a known thing: a definite article, a demonstrative or
    an owner ("the", "this", "her", "Ana's")."""
    return any(
        f.heads[j] == noun
        and j != noun
        and (f.deps[j] == "poss" or (f.deps[j] == "det" and f.lows[j] in _DEFINITE))
        for j in range(len(f.heads))
    )


def plan_or_wish(f: Facts) -> bool:
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


def describing(f: Facts, named: Container[str]) -> set[str]:
    """The recency words of ``f`` that describe a thing whose stem is in ``named``
    ("Tariq's latest credit score")."""
    return recency(f, named) - recency(f, ())


def recency(f: Facts, named: Container[str] = ()) -> set[str]:
    """The words by which ``f`` dates what it says to the latest time it knows ("as of",
    "this month": ``data/recency_words.txt``); one that describes a thing ("latest")
    only of a thing whose stem is in ``named`` ("Tariq's latest credit score", not
    "based on the latest available data")."""
    found = set()
    starting = tables.by_first_word("recency_words")
    for seq in (f.lemmas, f.lows):
        for i, word in enumerate(seq):
            for entry in starting.get(word, ()):
                n = len(entry.words)
                if seq[i : i + n] != entry.words:
                    continue
                last = i + n - 1
                describes = f.poses[last] == "ADJ" and f.poses[f.heads[last]] in _NOUNS
                if not describes or stem(f.lemmas[f.heads[last]]) in named:
                    found.add(" ".join(entry.words))
    return found
