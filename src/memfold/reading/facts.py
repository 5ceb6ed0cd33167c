"""What a reading states, in the terms the guards compare: its values, names, owners,
negated words, temporal modifiers, who does what (roles), its content words and the order
of its participants. Read once per text (``facts`` is cached by text)."""

from __future__ import annotations

import threading
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

from memfold.reading import parser, tables
from memfold.reading.clause import (
    SUBJECT_DEPS,
    adjuncts_of,
    changed_for,
    contrasted,
    denied_verb,
    denies,
    ends_of,
    first_noun_after,
    habitual_past,
    heads_preposition,
    initial_name,
    owned_by_of,
    placed_in_past,
    role_of,
    slot_of,
    subjectless_verbs,
    undergoes,
)
from memfold.reading.keys import (
    THIRD_PRONOUNS,
    WHICH,
    Keys,
    appositions,
    chain_start,
    conjuncts,
    contrasts,
    describes,
    is_title,
    name_chains,
    names_a_kind,
    norm,
    norm_stem,
    stem,
)
from memfold.reading.model import Reading, Word
from memfold.reading.parser import read
from memfold.reading.values import Value, values

_DETERMINERS = frozenset(("det", "poss", "nummod"))
_MODIFIER_DEPS = frozenset(("amod", "compound", "nmod", "poss"))
_NEGATIONS = frozenset(("not", "n't", "never", "no", "neither", "nor", "without"))
# Texts whose facts are kept, derived or loaded: as many as the parser keeps readings.
_KEPT = 50_000
_loaded: OrderedDict[str, Facts] = OrderedDict()
_lock = threading.Lock()
_CONTENT_POS = frozenset(("NOUN", "VERB", "ADJ", "PROPN"))
# Which way a verb goes ("moved out of" / "moved into"): closed-class particles.
_DIRECTIONS = frozenset(("in", "into", "out", "from", "to", "onto", "off", "up", "down", "away"))
_TOWARD = {"into": "to", "onto": "to"}  # "flew into Lisbon" goes where "flew to" goes
_CONVERSE = {"subject": "object", "object": "subject"}


@dataclass(frozen=True)
class Facts:
    """The comparable parts of one text (see the module doc)."""

    text: str
    values: tuple[Value, ...]
    names: frozenset[str]
    owners: dict[str, frozenset[str]]
    negated: frozenset[str]
    modifiers: frozenset[tuple[str, str]]
    roles: dict[tuple[str, str], frozenset[str]]
    clauses: tuple[tuple[str, frozenset[str]], ...]
    subject_mods: dict[str, frozenset[str]]
    adjuncts: frozenset[str]
    initial: str
    contrasts: frozenset[tuple[str, str, str]]
    content: frozenset[str]
    nouns: frozenset[str]
    verbs: frozenset[str]
    every_stem: frozenset[str]
    past: bool
    passive: frozenset[int]
    order: tuple[tuple[int, str], ...]
    # Where each content word (by stem) stands: (its head's stem, how it hangs, its
    # part of speech, nouns and adjectives as "N"); "allergic to peanuts" has peanut at
    # ("allergic", "to", "N").
    slots: dict[str, frozenset[tuple[str, str, str]]] = field(default_factory=dict)
    # Every word's lemma and its lowercased text, in order: for phrase tables.
    lemmas: tuple[str, ...] = ()
    lows: tuple[str, ...] = ()
    poses: tuple[str, ...] = ()
    deps: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    heads: tuple[int, ...] = ()
    # (head, direction) for each directional particle or preposition of a verb or noun
    # ("moved out of", "the train to Porto").
    directions: frozenset[tuple[str, str]] = frozenset()
    # (place, "to" or "from") for each thing something goes to or comes from ("taken to
    # hospital" / "released from hospital").
    ends: frozenset[tuple[str, str]] = frozenset()
    # The words whose statement is hedged ("may have been", "perhaps moved").
    hedged: frozenset[str] = frozenset()
    # The verbs whose subject is "he" or "she", taken for the text's person: a guess.
    guessed: frozenset[str] = frozenset()
    # The verbs the text says held once and no longer ("used to live"): history.
    ended: frozenset[str] = frozenset()
    # The indices of the words a value takes up ("5" and "PM" of "5 PM").
    value_words: frozenset[int] = frozenset()

    @cached_property
    def unnamed_stems(self) -> frozenset[str]:
        """The stems of the words that name no thing ("back" in "came back", "indoors";
        not "their back" or "a back brace"), lemma and spelling."""
        determined = {
            h for h, dep in zip(self.heads, self.deps, strict=True) if dep in _DETERMINERS
        }
        return frozenset(
            norm_stem(w)
            for i, (lemma, low) in enumerate(zip(self.lemmas, self.lows, strict=True))
            if i not in determined and self.deps[i] != "compound"
            for w in (lemma, low, *low.split("-")[: 2 if "-" in low else 0])
        )

    @cached_property
    def states(self) -> frozenset[str]:
        """The stems of what the text says its subject is: adjectives after a copula ("is
        free", "is publicly readable"; "is colorblind", which the parse may take for a
        noun's place) or after a verb that says what something is or turned out to be
        ("came back normal", "stays open", "looks healthy")."""
        told_as_noun = {
            norm_stem(lemma)
            for lemma, pos, dep, head in zip(
                self.lemmas, self.poses, self.deps, self.heads, strict=True
            )
            if pos == "ADJ" and dep == "attr" and self.lemmas[head] == "be"
        }
        return frozenset(
            k
            for k, slots in self.slots.items()
            if any(how == "acomp" and pos == "N" for _, how, pos in slots) or k in told_as_noun
        )

    @cached_property
    def value_idents(self) -> frozenset[tuple[str, str, str]]:
        return frozenset(v.ident for v in self.values)


_TEMPORAL_DEPS = frozenset(("amod", "compound", "nmod", "advmod", "nummod"))


def facts(text: str) -> Facts:
    """The facts of ``text``: loaded with its stored reading (``remember``), or derived
    from its parse (``memfold.reading.parser``), once."""
    loaded = _loaded.get(text)
    return loaded if loaded is not None else _derived(text)


@lru_cache(maxsize=_KEPT)
def _derived(text: str) -> Facts:
    return facts_of(read(text))


def remember(found: Iterable[Facts]) -> None:
    """Keep facts loaded from stored readings, so that ``facts`` does not derive them;
    the oldest go past ``_KEPT``."""
    with _lock:
        for f in found:
            _loaded[f.text] = f
            _loaded.move_to_end(f.text)
        while len(_loaded) > _KEPT:
            _loaded.popitem(last=False)


def forget() -> None:
    """Forget every text read and its facts (the parse model stays loaded): what a new
    process knows."""
    _derived.cache_clear()
    _loaded.clear()
    parser.forget()
    for clear in _forgetters:
        clear()


_forgetters: list[Callable[[], None]] = []


def on_forget(clear: Callable[[], None]) -> None:
    """Have ``forget`` also clear a cache kept of what the facts of texts gave (a pair's
    comparison)."""
    _forgetters.append(clear)


def facts_of(reading: Reading) -> Facts:
    words = _periods_as_nouns(reading.words)
    found, used = values(reading)
    chains = name_chains(words, used)
    key = Keys(words, chains, used)
    owners: dict[str, set[str]] = defaultdict(set)
    roles: dict[tuple[str, str], set[str]] = defaultdict(set)
    subjects: dict[int, set[str]] = defaultdict(set)
    negated: set[str] = set()
    modifiers: set[tuple[str, str]] = set()
    passive: set[int] = set()
    guessed: set[str] = set()
    temporal = tables.word_set("temporal_modifiers")
    past = placed_in_past(words)
    denials = tables.word_set("denials")
    converses = tables.word_set("converses")
    for i, word in enumerate(words):
        head = words[word.head]
        of_owner = word.dep == "pobj" and head.low == "of" and owned_by_of(words, word)
        if word.dep == "poss" or of_owner:
            possessed = words[head.head] if word.dep == "pobj" else head
            owners[norm(possessed.lemma)].add(key.of(i))
            first = first_noun_after(words, i)
            if word.dep == "poss" and first is not None and not _modifies(words, first, word.head):
                # "Chiara's deputy signs ...": the parse may hang the owner on "signs"
                # (not "the user's dentist appointment": the appointment is owned)
                owners[norm(words[first].lemma)].add(key.of(i))
        if word.low in _NEGATIONS or word.dep == "neg":
            at = word.head if word.dep in ("neg", "det", "advmod", "preconj") else i
            if words[at].low == "longer" and words[at].dep != "ROOT":
                at = words[at].head  # "no longer eats meat"
            elif contrasted(words, i, at):
                at = i + 1  # "held in Salzburg, not Vienna": Vienna is what is denied
            negated.add(norm(words[at].lemma))
            if words[at].pos == "ADP":
                # "managed by hand, not with Terraform": what the preposition takes
                negated.update(norm(w.lemma) for w in words if w.head == at and w.dep == "pobj")
            if word.low == "no" and word.dep == "det":
                # "There is no one banging a lens": what no one does is negated too
                negated.update(
                    norm(w.lemma)
                    for w in words
                    if w.head == word.head and w.dep in ("acl", "relcl")
                )
            if word.low == "without":
                # "without any allergic reaction": the reaction and what says which
                negated.update(
                    norm(w.lemma)
                    for j, w in enumerate(words)
                    if w.head == i or (words[w.head].head == i and w.dep in WHICH)
                )
            if words[at].lemma == "be":
                # "is no longer vegan": what the copula says is negated with it, and
                # where it says one is ("is not on the mobile team")
                negated.update(
                    norm(w.lemma) for w in words if w.head == at and w.dep in ("attr", "acomp")
                )
                negated.update(
                    norm(w.lemma)
                    for w in words
                    if w.dep == "pobj" and words[w.head].dep == "prep" and words[w.head].head == at
                )
        if word.lemma in denials and denies(words, i):
            negated.add(denied_verb(words, i))
        # A verb a temporal modifier places in the past is one that ended (``ended``);
        # "next to the source files" places nothing in time.
        timed = word.low in temporal and word.dep in _TEMPORAL_DEPS
        if timed and word.head not in past and not heads_preposition(words, i):
            modifiers.add((word.low, norm(head.lemma)))
        if word.dep in ("nsubjpass", "auxpass"):
            passive.add(word.sent)
        role = role_of(word, words)
        if role:
            at = head.head if head.dep == "agent" else word.head
            if words[at].lemma in converses and role in _CONVERSE:
                role = _CONVERSE[role]  # "Acme employs Tom": Tom works (at Acme)
            # An apposition names the same one: "Zain, Ayesha's son" / "Ayesha's son Zain".
            # Nouns listed with it are arguments too: "grows tomatoes and basil".
            told = {key.of(j) for j in (i, *appositions(words, i), *conjuncts(words, i))}
            changed = changed_for(words, at, word) if role == "subject" else []
            if changed:
                # "the doctor increased the user's dose": a clause about the user's dose
                subjects[at].update(key.of(j) for j in changed)
            elif role == "subject":
                subjects[at].update(told)  # what the clause is about, whatever its role
                if undergoes(words, at, word):
                    role = "object"  # "the job runs nightly": the job is run
            roles[(norm(words[at].lemma), role)].update(told)
            if role == "subject" and word.low in THIRD_PRONOUNS:
                guessed.add(norm(words[at].lemma))
    for at in subjectless_verbs(words):
        # A note with no subject is the user's own: "Sold the Civic last weekend".
        subjects[at].add("user")
        roles[(norm(words[at].lemma), "subject")].add("user")
    content: set[str] = set()
    slots: dict[str, set[tuple[str, str, str]]] = defaultdict(set)
    nouns: set[str] = set()
    verbs: set[str] = set()
    every: set[str] = set()
    light = tables.word_set("light_verbs")
    general = tables.word_set("general_nouns")
    clippings = tables.group_of("clippings")
    for i, word in enumerate(words):
        if i in used or not any(c.isalpha() for c in word.lemma):
            continue  # punctuation and symbols ("|", "-") are no words
        # A clipping is read as its word's spelling, not lemmatized ("docs": documentation).
        clipped = word.low in clippings
        lemma = norm(word.lemma if word.pos != "PROPN" and not clipped else word.low)
        lemma = _with_particle(words, i, lemma)
        every.update((stem(lemma), norm_stem(word.low)))
        if word.pos not in _CONTENT_POS or i in chains or is_title(words, i):
            continue  # "Customer Hannah Lee": the title is no fact of its own
        if (
            (word.lemma in light and word.pos in ("VERB", "AUX") and lemma == norm(word.lemma))
            or (lemma in general and not names_a_kind(words, i))
            or word.low in temporal
        ):
            continue
        if lemma in _NEGATIONS:
            continue
        content.add(lemma)
        slots[stem(lemma)].add(slot_of(words, i))
        if word.pos == "NOUN":
            nouns.add(lemma)
        if word.pos == "VERB":
            verbs.add(lemma)
    order = tuple(
        sorted(
            [(words[v.index].sent, v.index, "#" + v.show()) for v in found]
            + [
                (words[i].sent, i, name)
                for i, name in chains.items()
                if chain_start(chains, i) and not describes(words, chains, i)
            ]
        )
    )
    modifiers_of: dict[int, set[str]] = defaultdict(set)
    for m in words:
        if m.dep in _MODIFIER_DEPS and m.pos in ("ADJ", "NOUN", "PROPN", "VERB"):
            modifiers_of[m.head].add(norm_stem(m.lemma))
    subject_mods = {
        norm(w.lemma): frozenset(modifiers_of.get(i, ()))
        for i, w in enumerate(words)
        if w.dep in SUBJECT_DEPS | {"nsubjpass"} and w.pos in ("NOUN", "PROPN")
    }
    return Facts(
        text=reading.text,
        values=tuple(found),
        names=frozenset(chains.values()),
        owners={k: frozenset(v) for k, v in owners.items()},
        negated=frozenset(negated),
        modifiers=frozenset(modifiers),
        roles={k: frozenset(v) for k, v in roles.items()},
        subject_mods=subject_mods,
        adjuncts=adjuncts_of(words, found, chains),
        initial=initial_name(words),
        contrasts=contrasts(words),
        clauses=tuple((norm(words[at].lemma), frozenset(v)) for at, v in sorted(subjects.items())),
        content=frozenset(content),
        nouns=frozenset(nouns),
        verbs=frozenset(verbs),
        every_stem=frozenset(every),
        past=any(w.tag == "VBD" for w in words),
        passive=frozenset(passive),
        order=tuple((sent, name) for sent, _, name in order),
        slots={k: frozenset(v) for k, v in slots.items()},
        lemmas=tuple(w.lemma.lower() for w in words),
        lows=tuple(w.low for w in words),
        poses=tuple(w.pos for w in words),
        deps=tuple(w.dep for w in words),
        tags=tuple(w.tag for w in words),
        heads=tuple(w.head for w in words),
        directions=frozenset(
            (norm(words[w.head].lemma), _TOWARD.get(w.low, w.low))
            for w in words
            if w.low in _DIRECTIONS
            and w.dep in ("prt", "prep")
            and words[w.head].pos in ("VERB", "NOUN")
        ),
        ends=ends_of(words),
        guessed=frozenset(guessed),
        ended=habitual_past(words),
        value_words=frozenset(used),
        hedged=frozenset(
            norm(words[w.head].lemma)
            for w in words
            if w.low in tables.word_set("hedges") and w.dep in ("aux", "advmod")
        ),
    )


def _with_particle(words: tuple[Word, ...], i: int, lemma: str) -> str:
    """A phrasal verb read as one word, the noun it makes: "gets backed up" /
    "backups", "logging in" / "login", "works out" / "workout"."""
    if words[i].pos != "VERB":
        return lemma
    particles = [w.low for w in words if w.head == i and w.dep == "prt" and w.low.isalpha()]
    if not particles and words[i].lemma in tables.word_set("light_verbs"):
        # A light verb's preposition that heads another, not a noun, is its particle:
        # "getting out of the car" is no "getting the car".
        particles = [
            w.low
            for j, w in enumerate(words)
            if w.head == i and w.dep == "prep" and heads_preposition(words, j)
        ]
    return norm(lemma + particles[0]) if len(particles) == 1 else lemma


def _modifies(words: tuple[Word, ...], i: int, noun: int) -> bool:
    """Word ``i`` is a compound word of the noun at ``noun`` ("dentist" of "dentist
    appointment")."""
    return words[i].dep == "compound" and words[i].head == noun


def _periods_as_nouns(words: tuple[Word, ...]) -> tuple[Word, ...]:
    """A word that says "once each period" read as the period it names
    (``data/period_words.txt``): "pays monthly" and "pays every month" tell one period,
    "monthly" and "annually" two."""
    periods = tables.group_of("period_words")
    return tuple(
        w._replace(lemma=periods[w.low], pos="NOUN")
        if w.low in periods and (w.pos in ("ADV", "ADJ", "NOUN") or w.text.islower())
        else w
        for w in words
    )
