"""The offline extractor: memories from messages by rules, precision over recall.

What the rules take (everything else is left alone; there are no rule fragments):

- main: from a user's sentence, each clause (``clauses``: cut at a coordination
  or a comma splice between statements with their own subjects, on memfold's one
  parse) that says something of the user, turned into the user's third person
  (``person``, ``statement``: "I love hiking" -> "User loves hiking",
  "my sister Ana lives in Porto" -> "User's sister Ana lives in Porto", "I don't eat
  meat" -> "User doesn't eat meat"); a clause that asks, names the addressee or a "we",
  leans on a pronoun with nothing in the clause to stand for ("User loves it"), cannot
  make its verb agree, says nothing lasting ("I'm not sure", "I'm going to...") or holds
  more than the value facts' most content words is left out, never stored
  half-rewritten (a clause whose pronoun stands for a noun of the clause of the same
  subject it was cut from at "and"/"but" is kept with that clause: "User is tracking
  User's hours, and User has spent 3 hours on them");
- main, values: a clause about something else that states a value
  (``engine.conversation.value_facts.states_value``: "The project is estimated to take
  3 sprints of 2 weeks each"), so one changed value can supersede that fact alone;
- solutions: a user's sentence saying something fixed a problem ("fixed by", "the fix
  was", "solved by", "resolved by", "X fixed it", "the solution was"), with the
  sentence before it in the same message when that one names the problem, its first
  person rewritten (left out when a person cannot be named);
- instruments: a command from any message: a fenced code block's first line, an inline
  code span that reads as a shell command, or "run <command>" naming a known tool.

Each memory keeps the words of its message (only the speaker is renamed and the verbs
agree with the new name), so it passes the extract check. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from memfold.engine.conversation.extract.clauses import clauses
from memfold.engine.conversation.extract.person import DANGLING
from memfold.engine.conversation.extract.statement import (
    Statement,
    persons_only,
    spans,
    statement,
)
from memfold.engine.conversation.value_facts import states_value
from memfold.model import Area
from memfold.reading.parser import read, read_many

_MIN_WORDS = 3
# A sentence ends at . ! ? or a line break, and in a chat at an emoji ("Inspiring 💪 I ...").
_SENTENCE = re.compile(r"(?<=[.!?\u2600-\u27bf\U0001f300-\U0001faff])\s+|\n+")
_ABBREVIATION = re.compile(
    r"(?:^|\s)(?:[A-Z]|St|Dr|Mr|Mrs|Ms|Jr|Sr|Prof|Mt|Ave|Rd|No|vs|etc|e\.g|i\.e)\.$"
)
# A dash written against the word before it ("for my family- they"): a word of its own.
_GLUED_DASH = re.compile(r"(?<=\w)(-{1,2}|[–—])(?=\s)")
# What "I am" / "I'm" says that is nothing lasting about the user.
_PASSING = re.compile(
    r"^User\s+is\s+(?:not\s+sure|going|gonna|just|sorry|glad|happy\s+to|here|back|"
    r"curious|wondering|trying|looking|thinking|asking|done|fine|good|ok|okay|so|very|"
    r"really|excited|afraid|about\s+to|also)\b",
    re.IGNORECASE,
)
_FIXED = re.compile(
    r"\b(?:fixed\s+by|the\s+fix\s+was|solved\s+by|resolved\s+by|fixed\s+it|solved\s+it|"
    r"the\s+solution\s+was|fixed\s+the\s+(?:issue|problem|error))\b",
    re.IGNORECASE,
)
_PROBLEM = re.compile(
    r"\b(?:error|fail\w*|broken|broke|issue|problem|crash\w*|bug|exception|"
    r"(?:does|do|did|would|wo|can|could)n['’]?t|not\s+working|kept)\b",
    re.IGNORECASE,
)
_FENCE = re.compile(r"```[\w+-]*\n(.*?)```", re.DOTALL)
_SPAN = re.compile(r"`([^`\n]{3,200})`")
_TOOLS = frozenset(
    re.findall(
        r"\S+",
        """pip pip3 python python3 npm npx yarn pnpm git docker kubectl make cargo go uv
        pytest apt apt-get brew sudo curl wget ssh scp systemctl journalctl psql mysql
        redis-cli terraform helm ls cd cp mv rm mkdir chmod chown grep sed awk tar ruff
        mypy node deno poetry conda gcloud aws az""",
    )
)
# Words that end a command written in prose ("run make test and then ...").
_PROSE = frozenset(re.findall(r"\S+", "and then first before after to so once again or"))
_RUN = re.compile(
    r"\b(?:run|execute|type)\s+((?:sudo\s+)?[a-z][\w.+-]*(?:[ \t]+[^\s,;]+)*)", re.IGNORECASE
)


@dataclass(frozen=True, slots=True)
class RuleExtract:
    text: str
    area: Area
    source: int  # the index of the message in the list given


def _sentences(text: str) -> list[str]:
    """Sentences; a full stop after an abbreviation ("St.", "Dr.") or an initial ends none."""
    out: list[str] = []
    for piece in (p.strip() for p in _SENTENCE.split(text)):
        if not piece:
            continue
        if out and _ABBREVIATION.search(out[-1]):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return out


def _statements(sentences: Sequence[str], value_words: tuple[int, int]) -> Iterable[str]:
    """The clauses of ``sentences`` that make a memory (see the module docstring)."""
    for reading in read_many(sentences):
        at = spans(reading)
        if at is None:
            continue
        found = clauses(reading)
        made = {c.head: statement(reading, c, at) for c in found}
        for clause in found:
            # "I'm tracking my hours, and I've spent 3 hours on it": read with the clause
            # its pronoun stands for a noun of, in place of that clause alone.
            if made[clause.head] == DANGLING and clause.joined:
                parent = next(c for c in found if c.head == clause.joined_head)
                both = replace(parent, words=clause.joined, joined=(), joined_head=-1)
                whole = statement(reading, both, at)
                if isinstance(whole, Statement) and _kept(whole, value_words):
                    made[parent.head], made[clause.head] = whole, "joined to the one before"
        for clause in found:
            one = made[clause.head]
            if isinstance(one, Statement) and _kept(one, value_words):
                yield one.text


def _kept(made: Statement, value_words: tuple[int, int]) -> bool:
    """A statement about the user that says something lasting, or one that states a
    value; at most ``value_words[1]`` content words (0: no bound, and no value facts)."""
    least, most = value_words
    if len(made.text.split()) < _MIN_WORDS or (most > 0 and made.content_words > most):
        return False
    valued = most > 0 and states_value(made.text, least, most)
    return valued or (made.about_user and not _PASSING.match(made.text))


def _command(candidate: str) -> str | None:
    """A shell command, if the text reads as one: a known tool first, two words or more."""
    words = candidate.strip().split()
    cut = next((n for n, w in enumerate(words) if w.casefold() in _PROSE), len(words))
    words = words[:cut]
    if words and words[-1] == ".":  # "run pip install -e ." ends a sentence
        words = words if len(words) > 2 and words[-2].startswith("-") else words[:-1]
    elif words:
        words[-1] = words[-1].rstrip(".,;:!")
    if len(words) < 2 or words[0] not in _TOOLS:
        return None
    return " ".join(words)


def _commands(content: str) -> Iterable[str]:
    for block in _FENCE.findall(content):
        first = next((line for line in block.splitlines() if line.strip()), "")
        found = _command(first.lstrip("$ ").strip())
        if found:
            yield found
    bare = _FENCE.sub(" ", content)
    for span in _SPAN.findall(bare):
        found = _command(span.lstrip("$ "))
        if found:
            yield found
    for sentence in _sentences(_SPAN.sub(" ", bare)):
        for match in _RUN.finditer(sentence):
            found = _command(match.group(1))
            if found:
                yield found


def _solutions(sentences: Sequence[str]) -> Iterable[str]:
    for n, sentence in enumerate(sentences):
        if sentence.endswith("?") or not _FIXED.search(sentence):
            continue
        before = sentences[n - 1] if n > 0 else ""
        text = f"{before} {sentence}" if before and _PROBLEM.search(before) else sentence
        rewritten = persons_only(read(text))
        if rewritten:
            yield rewritten.rstrip(".!")


def extract_by_rules(
    messages: Sequence[tuple[str, str]], value_words: tuple[int, int] = (2, 0)
) -> list[RuleExtract]:
    """``(role, content)`` pairs -> memories, each naming its message's index; one
    text is taken once (its first message). ``value_words``: the fewest and most
    content words of a value fact (``ConversationSettings.value_fact_*``; most 0: none)."""
    out: list[RuleExtract] = []
    seen: set[str] = set()

    def keep(text: str, area: Area, index: int) -> None:
        key = " ".join(text.casefold().split())
        if key not in seen:
            seen.add(key)
            out.append(RuleExtract(text, area, index))

    for index, (role, content) in enumerate(messages):
        for command in _commands(content):
            keep(command, Area.INSTRUMENTS, index)
        if role != "user":
            continue
        sentences = _sentences(_FENCE.sub(" ", content))
        for solution in _solutions(sentences):
            keep(solution, Area.SOLUTIONS, index)
        stated = [_GLUED_DASH.sub(r" \1", s) for s in sentences if not _FIXED.search(s)]
        for fact in _statements(stated, value_words):
            keep(fact, Area.MAIN, index)
    return out
