"""What a reading states, in the terms the guards compare: its values, names, owners,
negated words, temporal modifiers, who does what (roles), its content words and the order
of its participants. Read once per text (``facts`` is cached by text)."""

from __future__ import annotations

import threading
from collections import OrderedDict, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

from memfold.reading import parser, tables
from memfold.reading.keys import (
    THIRD_PRONOUNS,
    WHICH,
    Keys,
    appositions,
    chain_start,
    conjuncts,
    contrasts,
    describes,
    name_chains,
    names_a_kind,
    norm,
    norm_stem,
    stem,
)
from memfold.reading.model import Reading, Word
from memfold.reading.parser import read
from memfold.reading.values import Value, values

_NOUNS = ("NOUN", "PROPN")
_DETERMINERS = frozenset(("det", "poss", "nummod"))
_WHEN = ("date", "year", "weekday", "time")
_MODIFIER_DEPS = frozenset(("amod", "compound", "nmod", "poss"))
_NEGATIONS = frozenset(("not", "n't", "never", "no", "neither", "nor", "without"))
_SUBJECT_DEPS = frozenset(("nsubj", "csubj", "expl"))
_OBJECT_DEPS = frozenset(("dobj", "nsubjpass", "dative", "attr", "oprd", "acomp"))
# Texts whose facts are kept, derived or loaded: as many as the parser keeps readings.
_KEPT = 50_000
_loaded: OrderedDict[str, Facts] = OrderedDict()
_lock = threading.Lock()
_CONTENT_POS = frozenset(("NOUN", "VERB", "ADJ", "PROPN"))
# Which way a verb goes ("moved out of" / "moved into"): closed-class particles.
_DIRECTIONS = frozenset(("in", "into", "out", "from", "to", "onto", "off", "up", "down", "away"))
_TOWARD = {"into": "to", "onto": "to"}  # "flew into Lisbon" goes where "flew to" goes
_COPULA_STATE = ("be", "acomp", "N")  # a slot: an adjective after "is"
_ENDS = {"to": "to", "into": "to", "onto": "to", "from": "from", "off": "from", "out": "from"}


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
        free", "is publicly readable")."""
        return frozenset(k for k, slots in self.slots.items() if _COPULA_STATE in slots)

    @property
    def value_idents(self) -> frozenset[tuple[str, str, str]]:
        return frozenset(v.ident for v in self.values)


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
    denials = tables.word_set("denials")
    for i, word in enumerate(words):
        head = words[word.head]
        of_owner = word.dep == "pobj" and head.low == "of" and _owned_by_of(words, word)
        if word.dep == "poss" or of_owner:
            possessed = words[head.head] if word.dep == "pobj" else head
            owners[norm(possessed.lemma)].add(key.of(i))
            first = _first_noun_after(words, i)
            if word.dep == "poss" and first is not None:
                # "Chiara's deputy signs ...": the parse may hang the owner on "signs"
                owners[norm(words[first].lemma)].add(key.of(i))
        if word.low in _NEGATIONS or word.dep == "neg":
            at = word.head if word.dep in ("neg", "det", "advmod", "preconj") else i
            if words[at].low == "longer" and words[at].dep != "ROOT":
                at = words[at].head  # "no longer eats meat"
            elif _contrasted(words, i, at):
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
                # "is no longer vegan": what the copula says is negated with it
                negated.update(
                    norm(w.lemma) for w in words if w.head == at and w.dep in ("attr", "acomp")
                )
        if word.lemma in denials and _denies(words, i):
            negated.add(_denied_verb(words, i))
        if word.low in temporal and word.dep in ("amod", "compound", "nmod", "advmod", "nummod"):
            modifiers.add((word.low, norm(head.lemma)))
        if word.dep in ("nsubjpass", "auxpass"):
            passive.add(word.sent)
        role = _role(word, words)
        if role:
            at = head.head if head.dep == "agent" else word.head
            # An apposition names the same one: "Zain, Ayesha's son" / "Ayesha's son Zain".
            # Nouns listed with it are arguments too: "grows tomatoes and basil".
            told = {key.of(j) for j in (i, *appositions(words, i), *conjuncts(words, i))}
            roles[(norm(words[at].lemma), role)].update(told)
            if role == "subject":
                subjects[at].update(told)
                if word.low in THIRD_PRONOUNS:
                    guessed.add(norm(words[at].lemma))
    content: set[str] = set()
    slots: dict[str, set[tuple[str, str, str]]] = defaultdict(set)
    nouns: set[str] = set()
    verbs: set[str] = set()
    every: set[str] = set()
    light = tables.word_set("light_verbs")
    general = tables.word_set("general_nouns")
    for i, word in enumerate(words):
        if i in used or not any(c.isalpha() for c in word.lemma):
            continue  # punctuation and symbols ("|", "-") are no words
        lemma = norm(word.lemma if word.pos != "PROPN" else word.low)
        every.update((stem(lemma), norm_stem(word.low)))
        if word.pos not in _CONTENT_POS or i in chains:
            continue
        if (
            (word.lemma in light and word.pos in ("VERB", "AUX"))
            or (lemma in general and not names_a_kind(words, i))
            or word.low in temporal
        ):
            continue
        if lemma in _NEGATIONS:
            continue
        content.add(lemma)
        slots[stem(lemma)].add(_slot(words, i))
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
        if w.dep in _SUBJECT_DEPS | {"nsubjpass"} and w.pos in ("NOUN", "PROPN")
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
        adjuncts=_adjuncts(words, found, chains),
        initial=_initial(words),
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
        ends=_ends(words),
        guessed=frozenset(guessed),
        ended=_habitual_past(words),
        value_words=frozenset(used),
        hedged=frozenset(
            norm(words[w.head].lemma)
            for w in words
            if w.low in tables.word_set("hedges") and w.dep in ("aux", "advmod")
        ),
    )


def _contrasted(words: tuple[Word, ...], i: int, at: int) -> bool:
    """Is the "not" at ``i``, hung on the word ``at`` before it, the start of a contrast
    ("in Salzburg, not Vienna", "drinks tea, not coffee"), which denies the noun after
    it, not the one the parse hung it on?"""
    after = i + 1
    return (
        at < i
        and after < len(words)
        and words[after].pos in ("NOUN", "PROPN")
        and words[after].head in (at, words[at].head)
        and words[i - 1].low in (",", ";", "but", "and")
    )


def _habitual_past(words: tuple[Word, ...]) -> frozenset[str]:
    """The verbs under "used to" ("The user used to live in Lisbon": live)."""
    return frozenset(
        norm(w.lemma)
        for i, w in enumerate(words)
        if w.dep == "xcomp"
        and words[w.head].low == "used"
        and any(x.head == i and x.low == "to" for x in words)
    )


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


def _ends(words: tuple[Word, ...]) -> frozenset[tuple[str, str]]:
    """Where things go to and come from: the object of "to", "into", "onto" or of "from",
    "off", "out of"."""
    out = set()
    for w in words:
        if w.dep != "pobj":
            continue
        prep = words[w.head]
        way = prep.low
        if way == "of" and words[prep.head].low == "out":
            way = "out"
        end = _ENDS.get(way)
        if end is not None:
            out.add((norm(w.lemma), end))
    return frozenset(out)


def _slot(words: tuple[Word, ...], i: int) -> tuple[str, str, str]:
    """Where word ``i`` stands: its head's stem and its relation to it ("to" for the
    object of "allergic to"), a conjunct standing where its first conjunct stands."""
    # A verb after a preposition names an activity where a noun stands ("a budget for
    # eating out" / "a budget for groceries").
    named = words[i].pos in (*_NOUNS, "ADJ") or words[i].dep == "pcomp"
    pos = "N" if named else words[i].pos
    seen = {i}
    while words[i].dep == "conj" and words[i].head not in seen:
        i = words[i].head
        seen.add(i)
    word = words[i]
    head = words[word.head]
    if word.dep in ("pobj", "pcomp"):
        return norm_stem(words[head.head].lemma), head.low, pos
    if word.dep in ("amod", "compound", "nmod"):
        return norm_stem(head.lemma), "mod", "N"  # which one: "consulting hours"
    return norm_stem(head.lemma), word.dep, pos


def _adjuncts(
    words: tuple[Word, ...], found: list[Value], chains: dict[int, str]
) -> frozenset[str]:
    """Circumstances of a clause (when, where, with whom: a phrase hanging from its verb),
    as stems, names and value keys: "since 2026", "near the Spree"."""
    inside: set[int] = set()
    for i, word in enumerate(words):
        if word.dep in ("prep", "npadvmod", "advmod", "advcl") and words[word.head].pos in (
            "VERB",
            "AUX",
        ):
            inside |= _subtree(words, i)
    out = {v.key for v in found if v.index in inside or v.kind in _WHEN}
    for i in inside:
        out.add(chains[i] if i in chains else norm_stem(words[i].lemma))
    return frozenset(out)


def _subtree(words: tuple[Word, ...], root: int) -> set[int]:
    out = {root}
    grew = True
    while grew:
        more = {j for j, w in enumerate(words) if w.head in out and j not in out}
        grew = bool(more)
        out |= more
    return out


def _denies(words: tuple[Word, ...], i: int) -> bool:
    """A denial word that governs a clause or opens the sentence ("Contrary to that")."""
    clause = any(w.head == i and w.dep in ("ccomp", "advcl", "xcomp") for w in words)
    head = words[words[i].head]
    return clause or (head.dep == "ROOT" and any(w.dep == "ccomp" for w in words)) or i == 0


def _denied_verb(words: tuple[Word, ...], i: int) -> str:
    """The verb of the clause a denial governs (else the sentence's root)."""
    for j, w in enumerate(words):
        if w.dep == "ccomp" and j != i:
            return norm(w.lemma)
    root = next((w for w in words if w.dep == "ROOT" and w.sent == words[i].sent), words[i])
    return norm(root.lemma)


def _first_noun_after(words: tuple[Word, ...], i: int) -> int | None:
    """The first noun after an owner and its "'s" (past adjectives), in its sentence."""
    for j in range(i + 1, min(len(words), i + 5)):
        if words[j].sent != words[i].sent:
            return None
        if words[j].pos in _NOUNS and j not in (i,):
            return j
        if words[j].pos not in ("PART", "ADJ", "PUNCT"):
            return None
    return None


def _initial(words: tuple[Word, ...]) -> str:
    """The first word when it is capitalized and could be a name the parser missed
    ("Anjali presents ..." tagged as an adjective); compared only with the other text's
    names."""
    if not words or not words[0].text[:1].isupper():
        return ""
    return words[0].low if words[0].pos in ("ADJ", "NOUN", "PROPN", "VERB", "X") else ""


def _owned_by_of(words: tuple[Word, ...], word: Word) -> bool:
    """ "the sister of Arjun": a name after "of" owns the noun before it."""
    of = words[word.head]
    return word.pos == "PROPN" and words[of.head].pos == "NOUN" and of.dep == "prep"


def _role(word: Word, words: tuple[Word, ...]) -> str:
    if word.dep in _SUBJECT_DEPS:
        return "subject"
    if word.dep in _OBJECT_DEPS:
        return "object"
    if word.dep == "pobj" and words[word.head].dep == "agent":
        return "subject"
    return ""
