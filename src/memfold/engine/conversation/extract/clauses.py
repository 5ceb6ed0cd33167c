"""A sentence's parse cut into clauses, each a statement with its own subject.

Read on memfold's one parse (``memfold.reading.parser``). A sentence is cut where the
parse joins two statements rather than two parts of one:

- coordination: a ``conj`` verb with its own subject ("I'm vegetarian *and my sister
  lives in Porto*"), or a finite ``conj`` verb that shares the subject while each verb
  has its own complements ("I moved to Porto *and started a bakery there*": the second
  clause borrows "I"); verbs that share their complements stay one clause ("I work and
  live in Leeds"), and so do verbs that share an auxiliary ("I've been looking at
  places and picturing the space": "picturing" has no tense of its own);
- a comma splice or an aside: a ``ccomp``, ``parataxis``, ``advcl`` or ``dep`` with its
  own subject, no subordinating word ("since", "that") and a comma, dash, colon or
  semicolon between it and its head ("They've been there, *I've known these friends for
  4 years*"; "I'm keen on counseling - *I'd love to help*"); not the clause an adjective
  takes ("I'm sure if I keep pushing, I'll make it").

What is part of neither statement is dropped: a question set beside one ("..., what
should I prepare?"), a command ("..., take a look"), a verb with no subject after a
dash ("... - can't wait"). The words that joined two clauses ("and", the comma) belong
to neither. A clause whose complement was cut away ("..., I'm sure") or whose
coordination the parse misread ("I study law and my brother studies medicine": whose
"studies"?) is marked ``incomplete``. Whether a clause can be stored is for
``statement`` to say. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from memfold.reading.model import Reading, Word

SUBJECTS = frozenset(("nsubj", "nsubjpass", "expl", "csubj", "csubjpass"))
FINITE = frozenset(("VBZ", "VBD", "VBP", "MD"))
AUXILIARIES = frozenset(("aux", "auxpass"))
# What a verb of its own takes: with these on both sides, "and" joins two predicates.
_COMPLEMENTS = frozenset(
    ("dobj", "attr", "acomp", "prep", "xcomp", "ccomp", "oprd", "dative", "agent")
)
_SPLICED = frozenset(("ccomp", "parataxis", "advcl", "dep"))
# What completes a verb whose clausal complement was cut away ("I've known them").
_OBJECTS = frozenset(
    ("dobj", "attr", "prep", "xcomp", "ccomp", "oprd", "dative", "agent", "npadvmod")
)
_JOINERS = frozenset(("cc", "punct", "preconj"))
_SUBORDINATORS = frozenset(("mark",))
# Marks that set a clause apart even after its head ("I'm keen on it - I'd love to").
_STRONG = ";:-–—"
_WH = frozenset(("WP", "WRB", "WDT", "WP$"))


@dataclass(frozen=True, slots=True)
class Clause:
    """One statement of a sentence: its head word, its subject word (its own, or the one
    it shares with the clause it was cut from: ``borrowed`` then holds that subject's
    words), and its own words in order (``borrowed`` excluded)."""

    head: int
    subject: int | None
    words: tuple[int, ...]
    borrowed: tuple[int, ...] = ()
    # A clause cut from another of the same subject at "and"/"but": the two read
    # together, with the joiner, for a pronoun that stands for a noun of the other ("I'm
    # tracking my hours, and I've spent 3 hours on them"); empty otherwise.
    joined: tuple[int, ...] = ()
    joined_head: int = -1
    # Its clausal complement was cut away and nothing else completes it ("You can make
    # it work, I'm sure" leaves "I'm sure", which says nothing alone), or the parse of
    # its coordination cannot be trusted.
    incomplete: bool = False

    @property
    def every_word(self) -> tuple[int, ...]:
        """The words shown, in the order of the sentence."""
        return tuple(sorted((*self.borrowed, *self.words)))


def children_of(words: Sequence[Word]) -> list[list[int]]:
    kids: list[list[int]] = [[] for _ in words]
    for i, word in enumerate(words):
        if word.head != i:
            kids[word.head].append(i)
    return kids


def subtree(kids: Sequence[Sequence[int]], i: int) -> list[int]:
    out, todo = [], [i]
    while todo:
        j = todo.pop()
        out.append(j)
        todo.extend(kids[j])
    return sorted(out)


def own_subject(words: Sequence[Word], kids: Sequence[Sequence[int]], i: int) -> int | None:
    return next((k for k in kids[i] if words[k].dep in SUBJECTS), None)


def subjects(words: Sequence[Word], kids: Sequence[Sequence[int]], i: int) -> int:
    """How many subjects hang on ``i`` (more than one: a misread)."""
    return sum(words[k].dep in SUBJECTS for k in kids[i])


def is_finite(words: Sequence[Word], kids: Sequence[Sequence[int]], i: int) -> bool:
    """A verb with a tense: finite itself, or with a finite auxiliary of its own."""
    if words[i].tag in FINITE:
        return True
    return any(words[k].dep in AUXILIARIES and words[k].tag in FINITE for k in kids[i])


def _verbal(words: Sequence[Word], kids: Sequence[Sequence[int]], i: int) -> bool:
    return words[i].pos in ("VERB", "AUX") or own_subject(words, kids, i) is not None


def _full(words: Sequence[Word], kids: Sequence[Sequence[int]], i: int) -> bool:
    return any(words[k].dep in _COMPLEMENTS for k in kids[i])


def _separated(
    words: Sequence[Word], kids: Sequence[Sequence[int]], c: int, head: int, marks: str
) -> bool:
    """One of ``marks`` between the verb ``c`` (with its subject) and its head: a
    subject read across a dash is a misread, not a clause ("I finished another project
    - want to see it?")."""
    subject = own_subject(words, kids, c)
    near = c if subject is None else (min(c, subject) if c > head else max(c, subject))
    lo, hi = sorted((near, head))
    return any(words[k].pos == "PUNCT" and words[k].text in marks for k in range(lo + 1, hi))


def _lends(words: Sequence[Word], kids: Sequence[Sequence[int]], head: int, c: int) -> bool:
    """Whether the conjoined verb ``c`` is a predicate of its own of ``head``'s subject:
    finite, both verbs with their own complements; not when another verb with a subject
    of its own stands between them ("I emailed them and one replied and said yes";
    "I met Jean, who had been through a lot, yet stayed calm": "said" and "stayed" are
    not the speaker's), nor for a participle beside an auxiliary or a copula ("I'm
    excited and scared", "I'm feeling hopeful and inspired")."""
    if own_subject(words, kids, head) is None or not is_finite(words, kids, c):
        return False
    if not (_full(words, kids, head) and _full(words, kids, c)):
        return False
    own_aux = any(words[k].dep in AUXILIARIES for k in kids[c])
    head_aux = any(words[k].dep in AUXILIARIES for k in kids[head])
    if words[c].tag in ("VBD", "VBN") and not own_aux and (head_aux or words[head].lemma == "be"):
        return False
    return not any(
        own_subject(words, kids, k) is not None and words[k].pos in ("VERB", "AUX")
        for k in range(head + 1, c)
    )


def _subordinate(words: Sequence[Word], kids: Sequence[Sequence[int]], c: int) -> bool:
    """A clause opened by a subordinator ("since I moved") or, for an adverbial clause, by
    a wh-adverb ("when I look after myself, I'm able to ...")."""
    if any(words[k].dep in _SUBORDINATORS for k in kids[c]):
        return True
    first = subtree(kids, c)[0]
    return words[c].dep == "advcl" and words[first].tag == "WRB" and first in kids[c]


def _asked(words: Sequence[Word], kids: Sequence[Sequence[int]], head: int, c: int) -> bool:
    """A question set beside a statement ("..., what are some points I should
    discuss"), not one it holds ("I saw how it helped", "when I was young")."""
    wh = any(words[k].tag in _WH and k < c for k in kids[c])
    return wh and words[c].dep != "advcl" and _separated(words, kids, c, head, _STRONG + ",")


def _first_person(words: Sequence[Word], kids: Sequence[Sequence[int]], head: int) -> bool:
    subject = own_subject(words, kids, head)
    return subject is not None and words[subject].low == "i"


def _cut(words: Sequence[Word], kids: Sequence[Sequence[int]], head: int, c: int) -> str:
    """What the dependent ``c`` of ``head`` is: a statement of its own ("clause"), words
    that are no part of ``head``'s statement and none of their own ("drop": "... - can't
    wait", "..., and look at this"), or a part of it ("")."""
    w = words[c]
    if not _verbal(words, kids, c):
        return ""
    has_subject = own_subject(words, kids, c) is not None
    if w.dep == "conj" and not has_subject and w.tag == "VBZ" and _first_person(words, kids, head):
        return "misread"  # "I study law and my brother studies it": whose "studies"?
    if w.dep == "conj" and not _asked(words, kids, head, c):
        if has_subject or _lends(words, kids, head, c):
            return "clause"
        if w.tag == "VB" and words[head].tag != "VB" and not is_finite(words, kids, c):
            return "drop"  # an imperative beside a statement

    if w.dep not in _SPLICED and w.dep != "conj":
        return ""
    if _asked(words, kids, head, c):
        return "drop"  # "..., what are some points I should discuss"
    if not has_subject:  # "... - can't wait"; "Last week was wild, I got noticed"
        if is_finite(words, kids, c) and (
            _separated(words, kids, c, head, _STRONG)
            or (c < head and _separated(words, kids, c, head, ","))
        ):
            return "drop"
        # "I've done a painting too, take a look": an imperative after a comma
        imperative = w.tag == "VB" and not any(words[k].dep in AUXILIARIES for k in kids[c])
        return "drop" if imperative and _separated(words, kids, c, head, _STRONG + ",") else ""
    if _subordinate(words, kids, c):
        return ""
    if w.dep == "ccomp" and any(words[k].dep == "acomp" and head < k < c for k in kids[head]):
        return ""  # "I'm sure if I keep pushing, I'll make it": the adjective's clause
    return "clause" if _separated(words, kids, c, head, _STRONG + ",") else ""


def _unjoined(words: Sequence[Word], kept: list[int], removed: set[int]) -> list[int]:
    """``kept`` without the joiners ("and", a comma) next to a removed clause."""
    held = set(kept)
    out = []
    for k in kept:
        if words[k].dep in _JOINERS:
            left, right = k - 1, k + 1
            while left in held and words[left].dep in _JOINERS:
                left -= 1
            while right in held and words[right].dep in _JOINERS:
                right += 1
            if left in removed or right in removed:
                continue
        out.append(k)
    return out


def _both_i(words: Sequence[Word], one: int | None, other: int | None) -> bool:
    return one is not None and other is not None and words[one].low == words[other].low == "i"


def clauses(reading: Reading) -> list[Clause]:
    """The clauses of ``reading`` (one sentence, or several), in order."""
    words = reading.words
    kids = children_of(words)
    out: list[Clause] = []

    def walk(head: int, lent: int | None) -> Clause:
        kinds = {c: _cut(words, kids, head, c) for c in kids[head]}
        cut = [c for c, kind in kinds.items() if kind == "clause"]
        misread = "misread" in kinds.values()
        removed = {k for c, kind in kinds.items() if kind for k in subtree(kids, c)}
        kept = _unjoined(words, [k for k in subtree(kids, head) if k not in removed], removed)
        subject = own_subject(words, kids, head)
        borrowed: tuple[int, ...] = ()
        if subject is None and lent is not None:
            subject, borrowed = lent, tuple(subtree(kids, lent))
        lost = any(words[c].dep == "ccomp" for c in cut)
        rest = any(words[k].dep in _OBJECTS for k in kids[head] if k not in removed)
        made = Clause(
            head, subject, tuple(kept), borrowed, incomplete=misread or (lost and not rest)
        )
        out.append(made)
        for c in cut:
            child = walk(c, subject if own_subject(words, kids, c) is None else None)
            joiners = [k for k in kids[head] if words[k].dep in _JOINERS and k < c]
            joiners = [k for k in joiners if not any(j in made.words for j in range(k, c))]
            same = child.borrowed or _both_i(words, made.subject, child.subject)
            if same and words[c].dep == "conj" and any(words[k].dep == "cc" for k in joiners):
                both = tuple(sorted({*made.words, *joiners, *child.words}))
                out[out.index(child)] = replace(child, joined=both, joined_head=head)
        return made

    for i, word in enumerate(words):
        if word.dep == "ROOT":
            walk(i, None)
    return sorted(out, key=lambda c: c.every_word[0] if c.every_word else c.head)
