"""One clause made a stored statement in the user's third person, or left out.

A clause (``clauses``) becomes a memory when it is one well-formed fact once its
first person is rewritten (``person``). It is left out (a missed memory is
recoverable, a garbled one is not) when it:

- asks: a question mark after it, a wh-word before its subject, an auxiliary before it;
- is no statement of its own: no subject, no verb with a tense, a subordinate clause
  standing alone ("Since I was 17"), a clause marked ``incomplete``;
- has a subject that names nobody here: a pronoun other than "I" ("it", "they",
  "that", "here's ..."); a noun subject stays ("my sister Ana", "Painting");
- rests on a parse that cannot be trusted: two subjects (or two objects) on one verb,
  a comma between the subject and its verb that no parenthesis opened (or a
  parenthesis never closed: "Hey Nate, my favorite treat is ..."), a command before
  the subject or after a dash;
- holds a person the rewrite cannot name, a verb that cannot agree or a pronoun with
  nothing in the clause to stand for (``person``);
- says nothing of its subject ("User knows", "User couldn't agree more").

What leads into the clause is dropped ("Yeah, Caroline, I ...", "and", "so", an aside
such as "Congrats on the show,", anything up to a dash before the subject), and what
trails after it (a name called out, the final punctuation); the message's own spacing
is kept between neighbouring words. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from memfold.engine.conversation.extract.clauses import (
    AUXILIARIES,
    FINITE,
    Clause,
    children_of,
    own_subject,
    subjects,
    subtree,
)
from memfold.engine.conversation.extract.person import PersonRewrite
from memfold.reading.model import Reading, Word

_LEADING = frozenset(("cc", "punct", "intj", "discourse", "preconj"))
# Coordinating conjunctions: a clause that starts with one leans on the one before.
_COORDINATORS = frozenset(("and", "but", "or", "nor", "so", "yet", "plus"))
_STRONG = frozenset((":", ";", "-", "–", "—", "--"))
_QUOTES = frozenset(('"', "“", "”", "''", "``"))
_CONTENT = frozenset(("NOUN", "PROPN", "ADJ", "NUM", "VERB"))
_NOUN_SUBJECTS = frozenset(("NOUN", "PROPN", "VERB"))
_ATTACHED = frozenset((",", ".", ";", ":", "!", "?", ")", "'s", "n't"))
_APOSTROPHES = ("'", "’")
_SUBJECT_DEPS = frozenset(("nsubj", "nsubjpass", "expl"))
_SKIPPED = frozenset(("INTJ", "PUNCT", "SPACE", "CCONJ"))
_TRAILING = frozenset(("PUNCT", "SPACE", "CCONJ", "SYM", "X"))
# How the parse hangs an aside before the subject on the verb ("Congrats on the show,").
_ASIDES = frozenset(("dep", "intj", "advcl", "parataxis"))
_WH = frozenset(("WP", "WRB", "WDT", "WP$"))


@dataclass(frozen=True, slots=True)
class Statement:
    """A clause in the third person: its text, whether it is about the user (some word of
    it was the speaker's first person) and its content words (for a size bound)."""

    text: str
    about_user: bool
    content_words: int


def spans(reading: Reading) -> list[tuple[int, int]] | None:
    """Where each word of the parse lies in its text (None: the words do not align)."""
    out, at = [], 0
    for word in reading.words:
        start = reading.text.find(word.text, at)
        if start < 0:
            return None
        at = start + len(word.text)
        out.append((start, at))
    return out


def _render(
    reading: Reading, at: Sequence[tuple[int, int]], shown: Sequence[int], new: dict[int, str]
) -> str:
    words, text = reading.words, reading.text
    parts: list[str] = []
    for n, k in enumerate(shown):
        if n:
            before = shown[n - 1]
            gap = text[at[before][1] : at[k][0]] if before == k - 1 else " "
            if k in new and words[k].text.startswith(_APOSTROPHES):
                gap = " "  # "I'm" -> "User is"
            elif before != k - 1 and words[k].text in _ATTACHED:
                gap = ""
            parts.append(" " if gap else "")  # a run of spaces: one
        parts.append(new.get(k, words[k].text))
    out = "".join(parts).strip()
    return out[:1].upper() + out[1:]


def _quotes_balanced(words: Sequence[Word], shown: Sequence[int]) -> bool:
    return sum(words[k].text in _QUOTES for k in shown) % 2 == 0


def _lead_in(words: Sequence[Word], kids: Sequence[Sequence[int]], shown: list[int]) -> int:
    """How many of the first words of ``shown`` only lead into the clause: an
    interjection, a coordinator, a name called out ("Woah Joanna,"), a phrase the parse
    hung on the verb as an aside ("Congrats on the show,")."""
    n = 0
    while n < len(shown):
        first = words[shown[n]]
        if first.text in _QUOTES:
            return n
        if first.dep in _LEADING or first.pos in _SKIPPED or first.low in _COORDINATORS:
            n += 1
            continue
        names = n
        while names < len(shown) and words[shown[names]].pos in ("PROPN", "INTJ"):
            names += 1
        if names > n and names < len(shown) and words[shown[names]].text == ",":
            n = names + 1  # "Woah Joanna, I won": the name called out
            continue
        aside = subtree(kids, shown[n])
        after = aside[-1] + 1
        if (
            first.dep in _ASIDES
            and first.pos not in ("VERB", "AUX")
            and after < len(words)
            and words[after].text == ","
            and after in shown
        ):
            n = shown.index(after) + 1  # "Congrats on the show, I'll tune in"
            continue
        return n
    return n


def _trimmed(
    words: Sequence[Word], kids: Sequence[Sequence[int]], shown: list[int], clause: Clause
) -> list[int]:
    """``shown`` without what leads into the clause or trails after it."""
    subject, head = clause.subject, clause.head
    assert subject is not None
    cut = [
        n
        for n, k in enumerate(shown)
        if k < subject
        and (words[k].text in _STRONG or (words[k].dep == "cc" and words[k].head == head))
    ]
    if cut:
        shown = shown[cut[-1] + 1 :]
    if subject in shown:
        lead = min(_lead_in(words, kids, shown), shown.index(subject))
        shown = shown[lead:]
    while shown:
        last = words[shown[-1]]
        called = (  # "..., Caroline": a name called out, hung on no noun
            last.pos == "PROPN"
            and len(shown) > 2
            and words[shown[-2]].text == ","
            and words[last.head].pos not in ("NOUN", "PROPN", "PRON")
        )
        if called:
            shown = shown[:-2]
        elif (last.text in _QUOTES and not _quotes_balanced(words, shown)) or (
            last.text not in _QUOTES and (last.pos in _TRAILING or last.dep == "cc")
        ):
            shown = shown[:-1]
        else:
            break
    return shown


def _asks(words: Sequence[Word], kids: Sequence[Sequence[int]], clause: Clause) -> bool:
    """A question: a question mark, a wh-word before the subject, an auxiliary before it."""
    if any("?" in words[k].text for k in clause.words):
        return True
    after = max(clause.every_word) + 1
    while after < len(words) and words[after].text in _QUOTES:
        after += 1
    if after < len(words) and "?" in words[after].text:
        return True  # the question mark that ends the sentence ends this clause
    subject = clause.subject
    if subject is None:
        return False
    head = clause.head
    before = subject if not clause.borrowed else head
    if any(words[k].tag in _WH for k in clause.words if k < before and k in kids[head]):
        return True  # "what should I do", "when I'm snacking" standing alone
    if clause.borrowed:
        return False
    ahead = [k for k in kids[head] if words[k].dep in AUXILIARIES] + [head]
    return any(words[k].pos in ("AUX", "VERB") and k < subject for k in ahead)


def _unclosed(
    words: Sequence[Word], kids: Sequence[Sequence[int]], subject: int, head: int
) -> bool:
    """A comma between the subject and its verb that no parenthesis of the subject
    opened ("Nature's amazing, here's a painting"), or a parenthesis the subject opened
    with a comma and no comma closed ("Hey Nate, my favorite treat is"); a list in the
    subject ("My friends, family and mentors are") is neither."""
    phrase = subtree(kids, subject)
    if phrase[-1] > head:
        return False
    opened = any(
        subtree(kids, c)[0] - 1 in phrase and words[subtree(kids, c)[0] - 1].text == ","
        for k in phrase
        for c in kids[k]
        if words[c].dep in ("appos", "relcl", "acl")
    )
    closed = words[phrase[-1]].text == "," or any(
        words[k].text == "," for k in range(phrase[-1] + 1, head)
    )
    return opened != closed


def _doubled_object(words: Sequence[Word], kids: Sequence[Sequence[int]], clause: Clause) -> bool:
    """A verb of the clause with two direct objects or two attributes ("Dance is my
    relief and fashion fuels my creativity" read with "fuels" as a noun)."""
    for k in clause.words:
        deps = [words[c].dep for c in kids[k]]
        if deps.count("dobj") > 1 or deps.count("attr") > 1:
            return True
    return False


def _misread(words: Sequence[Word], kids: Sequence[Sequence[int]], clause: Clause) -> bool:
    """A parse that cannot be trusted to say who did what: two subjects on one verb; a
    comma between the subject and its verb that no parenthesis in the subject opened
    ("Nature's amazing, here's a painting"), or a parenthesis opened and not closed
    ("Hey Nate, my favorite treat is"); a command before the subject ("Check out this
    moment I snapped"); a verb with a subject of its own hung on a noun as its
    conjunct."""
    subject, head = clause.subject, clause.head
    assert subject is not None
    if subjects(words, kids, head) > 1 or _doubled_object(words, kids, clause):
        return True
    if not clause.borrowed and _unclosed(words, kids, subject, head):
        return True
    for k in clause.words:
        w = words[k]
        bare = w.tag == "VB" and not any(words[c].dep in AUXILIARIES for c in kids[k])
        if bare and (k < subject or (k > 0 and words[k - 1].text in _STRONG)):
            return True  # "Check out this photo I took"; "... - check out this pic"
        hung = w.dep == "conj" and words[w.head].pos not in ("VERB", "AUX")
        if hung and own_subject(words, kids, k) is not None:
            return True
    return False


def _is_statement(words: Sequence[Word], kids: Sequence[Sequence[int]], clause: Clause) -> bool:
    """A subject that names someone, a verb with a tense, no subordinator of its own."""
    subject = clause.subject
    if subject is None or words[subject].dep not in _SUBJECT_DEPS:
        return False
    if words[subject].pos not in _NOUN_SUBJECTS and words[subject].low != "i":
        return False
    if words[subject].dep == "expl" and words[subject].low != "there":
        return False
    head = clause.head
    if any(words[k].dep == "mark" for k in kids[head]):
        return False
    tensed = [head, *(k for k in kids[head] if words[k].dep in AUXILIARIES)]
    return any(words[k].tag in FINITE for k in tensed)


def statement(reading: Reading, clause: Clause, at: Sequence[tuple[int, int]]) -> Statement | str:
    """``clause`` of ``reading`` as a statement in the user's third person, or why not
    (``person.DANGLING``: a pronoun with nothing in the clause to stand for; see
    the module docstring)."""
    words = reading.words
    kids = children_of(words)
    if clause.incomplete or not _is_statement(words, kids, clause):
        return "no statement"
    if _asks(words, kids, clause):
        return "a question"
    if _misread(words, kids, clause):
        return "a misread"
    assert clause.subject is not None  # _is_statement
    shown = _trimmed(words, kids, list(clause.every_word), clause)
    if clause.subject not in shown or not _quotes_balanced(words, shown):
        return "no statement"
    person = PersonRewrite(words, kids, clause, at)
    user = person.persons(shown)
    if user is None:
        return "a person with no third person, or a verb that cannot agree"
    subject_words = set(subtree(kids, clause.subject))
    unnamed = person.unnamed_pronoun(shown, min(subject_words), user)
    if unnamed:
        return unnamed
    if any(a in user and b in user for a, b in pairwise(shown)):
        return "the user named twice in a row"  # "For me I just get lost": "For User User"
    told = subject_words | {clause.head} | user
    if not any(_content(words[k]) for k in shown if k not in told and k > clause.subject):
        return "nothing said"  # "User went", "FYI, User finished"
    counted = sum(_content(words[k]) or words[k].pos == "ADV" for k in shown if k not in user)
    return Statement(_render(reading, at, shown, person.new), bool(user), counted)


def _content(word: Word) -> bool:
    """A word that says something: not a comparison alone ("couldn't agree more"); a
    verb's particle does ("passed away")."""
    return (word.pos in _CONTENT and word.tag not in ("JJR", "RBR")) or word.dep == "prt"


def persons_only(reading: Reading) -> str | None:
    """The whole of ``reading`` (a problem and its fix: "I kept getting an error. I
    fixed it by ...") with only its first person rewritten, every sentence whole and its
    pronouns left to the sentences around them; None when a person cannot be named or a
    verb cannot agree."""
    at = spans(reading)
    if at is None:
        return None
    words = reading.words
    kids = children_of(words)
    shown = list(range(len(words)))
    new: dict[int, str] = {}
    for root in (i for i, w in enumerate(words) if w.dep == "ROOT"):
        own = [k for k in kids[root] if words[k].dep in ("nsubj", "nsubjpass")]
        clause = Clause(root, own[0] if own else None, tuple(subtree(kids, root)))
        person = PersonRewrite(words, kids, clause, at)
        if person.persons(clause.words) is None:
            return None
        new.update(person.new)
    while shown and words[shown[-1]].pos in ("PUNCT", "SPACE"):
        shown.pop()
    return _render(reading, at, shown, new)
