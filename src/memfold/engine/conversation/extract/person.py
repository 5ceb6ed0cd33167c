"""The speaker's first person turned into the user's third person, on the parse.

"I" and "me" become "User", "my" and "mine" "User's", "myself" "themselves"; each verb
whose subject was "I" agrees with it ("I love" -> "User loves", "I'm" -> "User is", "I've
been" -> "User has been", "I don't" -> "User doesn't", "I work and live" -> "User works
and lives"; a past tense or a modal stays as it was, a contraction is written out: "I'll"
-> "User will"). Every other word is the message's own.

What cannot be rewritten is refused, never guessed: the addressee ("you", "your") and a
"we" that counts the user with others have no third person here; a verb that cannot
agree (a fused "wanna" + a bare verb, a word glued to the next) neither; and a
third-person pronoun needs a noun before it in the same clause to stand for ("User loves
it" says nothing). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

from memfold.engine.conversation.extract.clauses import AUXILIARIES, FINITE, Clause
from memfold.reading.model import Word

USER = "User"
DANGLING = "dangling"
_FIRST_SINGULAR = {"i": USER, "me": USER, "my": f"{USER}'s", "mine": f"{USER}'s"}
_REFLEXIVE = {"myself": "themselves"}
# Persons the rewrite cannot name: the addressee, and a "we" counting the user with others.
_ADDRESSEE = frozenset(("you", "your", "yours", "yourself", "yourselves", "ya", "y'all", "u", "ur"))
UNNAMED = _ADDRESSEE | {"we", "us", "our", "ours", "ourselves"}
_GENDERED = frozenset(("he", "him", "his", "himself", "she", "her", "hers", "herself"))
_SINGULAR_THIRD = _GENDERED | {"it", "its", "itself"}
_PLURAL_THIRD = frozenset(("they", "them", "their", "theirs", "themselves", "themself", "'em"))
_DEMONSTRATIVES = frozenset(("this", "that", "these", "those"))
_ARGUMENTS = frozenset(("nsubj", "nsubjpass", "dobj", "dative", "attr"))
_CONTRACTED = {"'m": "is", "'ve": "has", "'ll": "will", "'re": "are"}
_APOSTROPHES = ("'", "’")
_NEGATIONS = frozenset(("n't", "not"))


def third_singular(word: Word) -> str | None:
    """A present-tense verb's form for "User" ("love" -> "loves", "try" -> "tries")."""
    low = word.low.replace("’", "'")
    if low in ("am", "'m"):
        return "is"
    if low in ("have", "'ve"):
        return "has"
    if word.tag not in ("VBP", "VB") or not low.isalpha():
        return None
    if word.lemma == "be":
        return "is" if low == "be" else None
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        made = f"{low}es"
    elif low.endswith("y") and len(low) > 1 and low[-2] not in "aeiou":
        made = f"{low[:-1]}ies"
    else:
        made = f"{low}s"
    return made.capitalize() if word.text[:1].isupper() else made


class PersonRewrite:
    """The rewrite of one clause's words: ``new`` maps a word's index to its new text."""

    def __init__(
        self,
        words: Sequence[Word],
        kids: Sequence[Sequence[int]],
        clause: Clause,
        at: Sequence[tuple[int, int]],
    ) -> None:
        self.words = words
        self.kids = kids
        self.clause = clause
        self.at = at
        self.new: dict[int, str] = {}

    def glued(self, k: int) -> bool:
        """The word runs into the next one ("wan|na"), not into a contraction ("do|n't")."""
        nxt = k + 1
        if nxt >= len(self.words) or self.at[k][1] != self.at[nxt][0]:
            return False
        follow = self.words[nxt].low.replace("’", "'")
        return not (follow.startswith(_APOSTROPHES) or follow in _NEGATIONS)

    def _agreeing(self, subject: int, head: int) -> int:
        """The verb that agrees with ``subject``: the head's first auxiliary after the
        subject, or the head itself."""
        for k in sorted(self.kids[head]):
            if k > subject and self.words[k].dep in AUXILIARIES:
                return k
        return head

    def _would_or_had(self, k: int) -> str:
        """ "'d": "had" before a past participle ("I'd been"), else "would"."""
        after = next((j for j in range(k + 1, len(self.words)) if self.words[j].pos != "ADV"), k)
        return "had" if self.words[after].tag == "VBN" else "would"

    def agree(self, subject: int, head: int) -> bool:
        """Make the verb of the subject "I" at ``subject`` agree with "User"."""
        verb = self._agreeing(subject, head)
        word = self.words[verb]
        low = word.low.replace("’", "'")
        if low in _CONTRACTED or low == "'d":
            self.new[verb] = _CONTRACTED.get(low) or self._would_or_had(verb)
            return low in ("'m", "'ve") or word.tag in FINITE
        if word.tag in ("MD", "VBD"):
            return True
        if word.pos == "VERB" and word.tag == "VBP" and low != word.lemma:
            return True  # a past the tagger read as a present ("I retook"): nothing to agree
        if word.tag not in ("VBP", "VB") or self.glued(verb):
            return False
        if any(
            self.words[c].dep == "xcomp" and c == verb + 1 and self.words[c].tag == "VB"
            for c in self.kids[verb]
        ):
            return False  # a fused "wanna go": no form agrees with "User"
        made = third_singular(word)
        if made is None:
            return False  # "I are": a misread
        self.new[verb] = made
        for c in self.kids[head]:  # "I work and live in Leeds": "live" agrees too
            w = self.words[c]
            if w.dep == "conj" and w.tag == "VBP" and c in self.clause.words:
                shared = third_singular(w)
                if shared is None or self.glued(c):
                    return False
                self.new[c] = shared
        return True

    def persons(self, shown: Sequence[int]) -> set[int] | None:
        """Rewrite the first person of the words ``shown``; the words that now name the
        user, or None when a person has no third person here or a verb cannot agree."""
        user: set[int] = set()
        for k in shown:
            word = self.words[k]
            low = word.low.replace("’", "'")
            if low in UNNAMED and not word.text.isupper():
                return None
            of_mine = low == "mine" and k > 0 and self.words[k - 1].low == "of"
            if low in _FIRST_SINGULAR and (word.pos == "PRON" or of_mine):
                if low == "i" and word.dep not in ("nsubj", "nsubjpass", "conj"):
                    return None  # "I" is a subject: read as anything else, a misread
                self.new[k] = _FIRST_SINGULAR[low]
                user.add(k)
                if low == "i" and word.dep in ("nsubj", "nsubjpass"):
                    head = self.clause.head if k == self.clause.subject else word.head
                    if not self.agree(k, head):
                        return None
            elif low in _REFLEXIVE and word.pos == "PRON":
                self.new[k] = _REFLEXIVE[low]
        return user

    def _antecedent(self, shown: Sequence[int], k: int, start: int, user: set[int]) -> bool:
        """A noun shown from ``start`` (the subject's first word) to the pronoun ``k``
        that the pronoun may stand for: a plural for "they", a singular for "it", a name
        or someone's relation ("User's sister") for "she";
        never the phrase that holds the pronoun ("a second of it"), nor, for a pronoun
        that is no possessive, another argument of its own verb ("A friend made it",
        "chatted with family about it")."""
        low = self.words[k].low
        plural = low in _PLURAL_THIRD
        verb = self._governor(k)
        argument = self.words[k].dep != "poss"  # "dancers reach their potential" may bind
        for j in shown:
            if j >= k:
                break
            w = self.words[j]
            if j < start or j in user or w.pos not in ("NOUN", "PROPN") or self._holds(j, k):
                continue
            if argument and self._governor(j) == verb:
                continue
            related = any(self.words[c].dep in ("poss", "appos") for c in self.kids[j])
            if low in _GENDERED and w.pos != "PROPN" and not related:
                continue  # "she": a name, or someone's relation ("User's sister")
            if plural == (w.tag in ("NNS", "NNPS")):
                return True
        return False

    def _place(self, shown: Sequence[int], k: int, start: int) -> bool:
        """A name, or the object of a preposition, shown before "there" at ``k``."""
        return any(
            start <= j < k and (self.words[j].pos == "PROPN" or self.words[j].dep == "pobj")
            for j in shown
        )

    def _holds(self, j: int, k: int) -> bool:
        """Whether the phrase of ``j`` (or of the coordination ``j`` is part of) holds
        the word ``k``."""
        top = j
        while self.words[top].dep == "conj" and self.words[top].head != top:
            top = self.words[top].head
        return self._within(k, j) or self._within(k, top)

    def _within(self, k: int, j: int) -> bool:
        """Whether the word ``k`` lies in the phrase headed by ``j``."""
        seen = set()
        while k != j and k not in seen:
            seen.add(k)
            if self.words[k].head == k:
                return False
            k = self.words[k].head
        return k == j

    def _governor(self, k: int) -> int:
        """The verb whose argument the word ``k`` is (through a preposition)."""
        seen = set()
        while self.words[k].pos not in ("VERB", "AUX") and k not in seen:
            seen.add(k)
            if self.words[k].head == k:
                break
            k = self.words[k].head
        return k

    def unnamed_pronoun(self, shown: Sequence[int], start: int, user: set[int]) -> str:
        """What keeps a pronoun of ``shown`` from naming someone or something: "dangling"
        for a third person with no noun before it to stand for, "stand-in" for a
        demonstrative, "one" or a quantifier in place of a noun the clause does not say;
        "" when none does."""
        for k in shown:
            word = self.words[k]
            if word.low in _SINGULAR_THIRD | _PLURAL_THIRD and word.pos == "PRON":
                expletive = word.dep == "expl" and word.low == "it"
                if not expletive and not self._antecedent(shown, k, start, user):
                    return DANGLING
            elif word.low == "there" and word.dep == "advmod" and not self._place(shown, k, start):
                return DANGLING  # "User had a blast there": where?
            elif self._stand_in(k):
                return "stand-in"
        return ""

    def _stand_in(self, k: int) -> bool:
        """A word standing for what the clause does not say: "User loves that", "User
        has been one", "check that one out", "planning a few", "bought some", "have so
        much", "feels the same way"."""
        word = self.words[k]
        kids = [self.words[c] for c in self.kids[k]]
        if word.low == "same" and word.pos == "ADJ":
            # "feels the same way", "do the same": the same as what the clause does not say
            compared = [*kids, *(self.words[c] for c in self.kids[word.head])]
            return not any(c.low == "as" for c in compared)
        if word.dep not in _ARGUMENTS and word.dep != "pobj":
            return False
        if word.low in _DEMONSTRATIVES and word.tag == "DT":
            return not kids
        if word.low in ("one", "ones"):  # "had one in ages"; not "one of User's faves"
            said = any(
                c.dep in ("relcl", "acl", "amod", "compound") or (c.dep == "prep" and c.low == "of")
                for c in kids
            )
            return not said and word.dep != "pobj"
        if word.dep == "pobj" or any(c.pos in ("NOUN", "PROPN", "PRON") for c in kids):
            return False
        if word.tag == "DT":
            return not kids
        marked = any(
            (c.dep == "advmod" and c.tag != "WRB") or (c.dep == "det" and c.low in ("a", "an"))
            for c in kids
        )
        return word.pos == "ADJ" and marked
