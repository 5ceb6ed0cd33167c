"""What a text says of its subject, as the supersede and the update channel read it:
its attribute (content words and main verbs, less the subject, its names and the change
cues), the words a change verb implies ("moved" -> where one lives), and how much of one
text's attribute another names. Pure."""

from __future__ import annotations

from memfold.reading import tables
from memfold.reading.cues import cue_spans
from memfold.reading.facts import Facts
from memfold.reading.keys import norm, norm_stem, stem

# Verbs that say nothing of what they are about ("is", "has"): no attribute.
_EMPTY_VERBS = frozenset(("be", "have"))
_MODIFIER_DEPS = frozenset(("compound",))


def core_overlap(a: Facts, b: Facts, within: frozenset[int] | None = None) -> float:
    """The share of what ``a`` says of its subject (``attribute``) that ``b`` also names
    (only in the words ``within``, if given), counting the names both keep; not the
    names or values a change may replace."""
    names = {n for n in a.names - subject_words(a) if n in b.names}
    core = (attribute(a) - retold_modifiers(a, b, within)) | names
    if not core:
        return 1.0
    kept = (core & named_stems(b, within)) | names
    return max(len(kept) / len(core), owned_overlap(a, b, within))


def retold_modifiers(a: Facts, b: Facts, within: frozenset[int] | None = None) -> set[str]:
    """The stems of ``a``'s modifiers of a noun that ``b`` names (in the words
    ``within``, if given) with modifiers of its own and none of ``a``'s: the value a
    change replaces, not what ``a`` is about ("is on the data platform team" /
    "transferred to the security team": data, platform)."""
    found: set[str] = set()
    told = range(len(b.lemmas)) if within is None else sorted(within)
    for j in range(len(a.lemmas)):
        ours = _modifiers_of(a, j)
        if not ours or a.poses[j] != "NOUN":
            continue
        for k in told:
            if b.poses[k] == "NOUN" and stem(b.lemmas[k]) == stem(a.lemmas[j]):
                theirs = _modifiers_of(b, k)
                if theirs and not theirs & ours:
                    found |= ours
    return found


def _modifiers_of(f: Facts, j: int) -> set[str]:
    """The stems of the nouns that modify noun ``j`` as a compound, and their own ("data
    platform" of "data platform team"; not an adjective: "all-cash deal" is a cash
    deal)."""
    found: set[str] = set()
    heads = {j}
    for k in sorted(range(len(f.lemmas)), key=lambda k: -k):  # modifiers precede
        if f.heads[k] in heads and k != j and f.deps[k] in _MODIFIER_DEPS:
            heads.add(k)
            found.add(stem(lemma_key(f, k)))
    return found


def owned_overlap(a: Facts, b: Facts, within: frozenset[int] | None = None) -> float:
    """The share of the words of someone's thing whose value ``a``'s copula tells ("the
    user's default shell is bash": default, shell) that ``b`` names as that thing, not as
    the owner of another ("changed their default shell to zsh"; not "their default
    shell's theme"); 0 when ``a`` tells no such value."""
    for verb, subjects in a.clauses:
        for key in subjects if verb == "be" else ():
            words = key.split()
            if not a.owners.get(words[-1]) or any(
                key in owners or words[-1] in owners for owners in b.owners.values()
            ):
                continue
            owned = {stem(w) for w in words}
            return len(owned & named_stems(b, within)) / len(owned)
    return 0.0


def named_stems(f: Facts, within: frozenset[int] | None = None) -> frozenset[str]:
    """The stems ``f`` names (only in the words ``within``, if given), with the
    attributes its change verbs imply ("moved" -> where one lives:
    ``data/implied_attributes.txt``)."""
    if within is None:
        return f.every_stem | {stem(w) for w in implied_words(f)}
    said = {s for j in within for s in (stem(lemma_key(f, j)), norm_stem(f.lows[j]))}
    return frozenset(said | {stem(w) for w in implied_words(f, within)})


def lemma_key(f: Facts, j: int) -> str:
    """Word ``j`` as the facts key it (a name as written)."""
    return norm(f.lows[j] if f.poses[j] == "PROPN" else f.lemmas[j])


def implied_words(f: Facts, within: frozenset[int] | None = None) -> list[str]:
    """The attribute words ``f``'s verbs imply ("moved" -> "lives", "home"; "got married"
    -> "engaged", ``data/life_events.txt``)."""
    lemmas = set(f.lemmas) if within is None else {f.lemmas[j] for j in within}
    entries = tables.entries("implied_attributes") + tables.entries("life_events")
    return [w for e in entries if e.words[0] in lemmas for w in e.words[1:]]


def attribute(f: Facts) -> set[str]:
    """What ``f`` says of its subject, as stems: its content words and main verbs, less
    the subject's own words, its names and the change cues ("The book club reads
    Beloved": read), or the subject's words when nothing else is said ("the user's
    title changed to ...": title)."""
    cue_words = {stem(f.lemmas[j]) for i, n, _ in cue_spans(f) for j in range(i, i + n)}
    verbs = {stem(v) for v, _ in f.clauses if v not in _EMPTY_VERBS}
    names = {stem(n) for n in f.names}
    said = ({stem(w) for w in f.content} | verbs) - cue_words - names
    subject = {stem(w) for w in subject_words(f)}
    return said - subject or said


def subject_words(f: Facts) -> set[str]:
    """The words of the clauses' subjects (active or passive), as the facts key them."""
    keys = {key for _, subjects in f.clauses for key in subjects} | set(f.subject_mods)
    return {w for key in keys for w in key.split()}
