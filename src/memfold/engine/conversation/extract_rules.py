"""The offline extractor: memories from messages by rules, precision over recall.

What the rules take (everything else is left alone; there are no rule fragments):

- main: a user's sentence that states a fact or a preference about the user and opens
  with "I am / I'm / I like / I love / I prefer / I hate / I work / I live / I have /
  I've / my X is|are|was" ("I'm not sure", "I'm going to...", questions and sentences
  of fewer than ``_MIN_WORDS`` words excepted), turned to the third person ("I like
  tea" -> "User likes tea", "my dog is Rex" -> "User's dog is Rex");
- solutions: a user's sentence saying something fixed a problem ("fixed by", "the fix
  was", "solved by", "resolved by", "X fixed it", "the solution was"), with the
  sentence before it in the same message when that one names the problem;
- instruments: a command from any message: a fenced code block's first line, an inline
  code span that reads as a shell command, or "run <command>" naming a known tool;
- main, values: from a user's sentence no rule above took, each clause that states a
  value (``engine.conversation.value_facts``: "I have a deadline of April 1, 2024, for
  the first sprint"), in the message's words, so one changed value can supersede that
  fact alone.

Each memory keeps the words of its message (only the speaker is renamed), so it passes
the extract check. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from memfold.engine.conversation.value_facts import value_facts
from memfold.model import Area

_MIN_WORDS = 3
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_ABBREVIATION = re.compile(
    r"(?:^|\s)(?:[A-Z]|St|Dr|Mr|Mrs|Ms|Jr|Sr|Prof|Mt|Ave|Rd|No|vs|etc|e\.g|i\.e)\.$"
)
_OPENERS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(rf"^{pattern}\b", re.IGNORECASE), repl)
    for pattern, repl in (
        (r"i\s+am", "User is"),
        (r"i['’]m", "User is"),
        (r"i\s+(like|love|prefer|hate|dislike|enjoy|work|live)", r"User \1s"),
        (r"i\s+have", "User has"),
        (r"i['’]ve", "User has"),
        (r"my(?=\s+[\w' -]{1,40}?\s+(?:is|are|was|were)\b)", "User's"),
    )
)
# "I am" / "I'm" openers that say nothing lasting about the user.
_PASSING = re.compile(
    r"^(?:i\s+am|i['’]m)\s+(?:not\s+sure|going|gonna|just|sorry|glad|happy\s+to|here|back|"
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


def _third_person(sentence: str) -> str | None:
    if sentence.endswith("?") or len(sentence.split()) < _MIN_WORDS or _PASSING.match(sentence):
        return None
    for pattern, repl in _OPENERS:
        if pattern.match(sentence):
            return pattern.sub(repl, sentence, count=1).rstrip(".!")
    return None


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
        yield re.sub(r"^(?:I|i)\b", "User", re.sub(r"^[Mm]y\b", "User's", text)).rstrip(".!")


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
        for sentence in sentences:
            if _FIXED.search(sentence):
                continue
            fact = _third_person(sentence)
            if fact:
                keep(fact, Area.MAIN, index)
            elif value_words[1] > 0:
                for value in value_facts(sentence, *value_words):
                    keep(value, Area.MAIN, index)
    return out
