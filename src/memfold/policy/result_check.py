"""The one result check: every text a judge writes passes it before it is applied.

An on-save UPDATE or MERGE, a batch-review merge, a lifecycle summary, a conversation
extract: whatever path and whatever judge wrote the text, it is compared with its sources
here, on the parse of each text (``memfold.reading``). It refuses a result that

- drops most content words of a source (a review merge into one source's own text that
  restates the others keeps that source's words alone: ``restated_by``);
- puts a word no source has where a source had another ("work laptop" -> "personal
  laptop"), even when it keeps most words;
- misstates a binding (``memfold.reading.bindings.binding_problems``): drops a value,
  name, noun, verb or state of a source, states a value or name no source holds, adds
  more new words than configured, negates what no source negates or drops a negation,
  gives a thing to another owner or a verb to another subject;
- is longer than the store allows or much longer than its sources together, or much
  shorter than the longest source (the breaker's length drop);
- holds a lone surrogate or a control character;
- holds an instruction addressed to a model ("SYSTEM: ...", "ignore previous
  instructions"): such a text is never folded into other memories.

The embedding drift check needs vectors and is separate (``drift_problems``). Pure: no
I/O. Every refusal is a human-readable reason; an empty list means the text may be written.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from memfold.config import ConsolidationSettings, ReviewSettings, Settings, StoreSettings
from memfold.model import Vector
from memfold.reading.bindings import binding_problems
from memfold.reading.difference import fold_conflicts
from memfold.reading.facts import facts
from memfold.reading.keys import stem
from memfold.reading.restatement import restatement_differences, substitutions

# Characters a memory text never needs: C0/C1 controls other than tab and newline.
_ALLOWED_CONTROLS = frozenset("\t\n\r")
# Text addressed to a model rather than about the user: a role prefix, an appeal to the
# AI, an order to ignore rules, or to wipe, merge or rewrite memories wholesale.
_MODEL = (
    r"(?:ai|a\.i\.|model|llm|assistant|agent|bot|chatbot|gpt|claude|system"
    r"|memory\s+(?:manager|system|store|service))"
)
_INSTRUCTION = re.compile(
    "|".join(
        (
            r"\[/?inst\]",  # a chat template's instruction markers
            r"\bwhen\s+you\s+(?:consolidate|merge|summari[sz]e|process|store|save)\b",
            r"(?:^|[\s.!?\"'(\[])(?:system|assistant|developer|admin|override)"
            r"\s*(?:prompt|message|note)?\s*:",
            r"\b(?:note|message|instructions?|reminder|command|order)s?\s+(?:to|for)\s+"
            rf"(?:the\s+|any\s+|all\s+)?{_MODEL}s?\b",
            rf"\b(?:dear|hey|hi|hello|attention|listen)\s*,?\s+(?:the\s+)?{_MODEL}s?\b",
            rf"\b(?:as|you\s+are)\s+an?\s+{_MODEL}\b",
            r"\b(?:ignore|disregard|forget|override|bypass)\s+"
            r"(?:all\s+|any\s+|the\s+|your\s+|my\s+|these\s+|those\s+)*"
            r"(?:previous\s+|prior\s+|above\s+|earlier\s+|other\s+|existing\s+)?"
            r"(?:instructions|rules|prompts?|guidelines|guidance|context|memories|guardrails)\b",
            # an order to retire whatever else is stored: "retire them all"
            r"\b(?:delete|remove|retire|replace|drop|erase)\s+(?:them\s+all|the\s+others"
            r"|the\s+rest|all\s+of\s+them)\b",
            r"\b(?:delete|forget|erase|remove|wipe|purge|drop|clear|overwrite|merge|replace|rewrite)\s+"
            r"(?:all|every|each|any|everything|anything|the\s+(?:whole|entire))\b",
            r"\b(?:delete|forget|erase|remove|wipe|purge|clear)\s+(?:\w+\s+){0,3}"
            r"(?:memor(?:y|ies)|records?|database|store)\b",
        )
    ),
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class ResultLimits:
    """The result check's bounds, read from the one Settings object (``from_settings``)."""

    max_chars: int
    min_content_word_recall: float
    max_new_content_words: int
    max_new_nouns: int
    max_growth: float
    max_length_drop: float
    max_drift: float
    # A word swapped for another in place (``memfold.reading.restatement.substitutions``).
    swap_max: int = 2
    # The details a restatement may add (``restatement_differences``).
    max_additions: int = 2

    @classmethod
    def from_settings(cls, settings: Settings) -> ResultLimits:
        return cls.from_parts(settings.store, settings.consolidation, settings.review)

    @classmethod
    def from_parts(
        cls,
        store: StoreSettings | None = None,
        consolidation: ConsolidationSettings | None = None,
        review: ReviewSettings | None = None,
    ) -> ResultLimits:
        store = store or StoreSettings()
        c = consolidation or ConsolidationSettings()
        review = review or ReviewSettings()
        return cls(
            max_chars=store.max_text_chars,
            min_content_word_recall=c.min_content_word_recall,
            max_new_content_words=c.result_max_new_content_words,
            max_new_nouns=c.result_max_new_nouns,
            max_growth=c.result_max_growth,
            max_length_drop=review.breaker_length_drop,
            max_drift=review.breaker_drift,
            swap_max=c.swap_max_words,
            max_additions=c.rules_elaboration_max_extra,
        )


@dataclass(frozen=True, slots=True)
class Source:
    """One text the result was made from, with an id for the reasons."""

    id: str
    text: str


def check_result(result: str | None, sources: Sequence[Source], limits: ResultLimits) -> list[str]:
    """Why ``result`` must not be written in place of ``sources`` (empty: it may)."""
    if result is None or not result.strip():
        return ["result text is empty"]
    problems = encoding_problems(result)
    if problems:
        return problems  # the word checks below assume a clean string
    problems += size_problems(result, [s.text for s in sources], limits)
    if instruction_like(result):
        problems.append("result holds an instruction addressed to a model")
    texts = [s.text for s in sources]
    for source in sources:
        problems += dropped(result, source, limits.min_content_word_recall)
    problems += swapped_in(result, sources, limits.swap_max)
    problems += binding_problems(
        result,
        texts,
        keep_all=True,
        max_new_words=limits.max_new_content_words,
        max_new_nouns=limits.max_new_nouns,
    )
    return problems


def check_merge(
    result: str,
    result_vector: Vector,
    sources: Sequence[tuple[Source, Vector | None]],
    limits: ResultLimits,
) -> list[str]:
    """A merge of whole memories (batch review): its sources must be one fact told twice,
    its text must pass ``check_result``, and its vector must stay near some source."""
    problems: list[str] = []
    for (a, _), (b, _) in combinations(sources, 2):
        problems += [
            f"{a.id} and {b.id}: not one fact ({d})"
            for d in [
                *fold_conflicts(a.text, b.text),
                *substitutions(a.text, b.text, limits.swap_max),
            ]
        ]
    members = [s for s, _ in sources]
    problems += check_result(result, restated_by(result, members, limits) or members, limits)
    problems += drift_problems(result_vector, [(s.id, v) for s, v in sources], limits.max_drift)
    return problems


def restated_by(result: str, sources: Sequence[Source], limits: ResultLimits) -> list[Source]:
    """The source whose own text the result is, where it says all that each other source
    says (the readings agree, ``restatement_differences``: another value, name, owner,
    role or polarity, a word swapped in place or a detail lost all disagree): the result
    need keep only that source's words, the others being the same fact in other words
    ("Farid plays the oud in a small ensemble" merged into "Farid is an oud player in a
    small music group").
    Empty where the result is no source's text or another source says more."""
    own = [s for s in sources if _plain(s.text) == _plain(result)]
    if not own:
        return []
    others = [s for s in sources if _plain(s.text) != _plain(result)]
    for other in others:
        if restatement_differences(other.text, result, limits.max_additions, limits.swap_max):
            return []
    return own[:1]


def _plain(text: str) -> str:
    return " ".join(text.split()).casefold()


def encoding_problems(text: str) -> list[str]:
    problems: list[str] = []
    if any(0xD800 <= ord(ch) <= 0xDFFF for ch in text):
        problems.append("result holds a lone surrogate")
    if any(unicodedata.category(ch) == "Cc" and ch not in _ALLOWED_CONTROLS for ch in text):
        problems.append("result holds a control character")
    return problems


def size_problems(result: str, sources: Sequence[str], limits: ResultLimits) -> list[str]:
    length = len(result.strip())
    problems: list[str] = []
    if length > limits.max_chars:
        problems.append(f"result has {length} characters; the store allows {limits.max_chars}")
    total = sum(len(s.strip()) for s in sources)
    if total and length > limits.max_growth * total:
        problems.append(
            f"result has {length} characters, over {limits.max_growth:g}x its sources' {total}"
        )
    longest = max((len(s.strip()) for s in sources), default=0)
    if longest and length < (1.0 - limits.max_length_drop) * longest:
        problems.append(f"length drop: {length} characters vs {longest} in the longest source")
    return problems


def instruction_like(text: str) -> bool:
    """Does the text address a model ("SYSTEM: ...", "ignore previous instructions")?"""
    return _INSTRUCTION.search(text) is not None


def dropped(result: str, source: Source, min_recall: float) -> list[str]:
    """A result that keeps too few of one source's content words (by stem, on the parse);
    its values and names are the bindings check's (``binding_problems``)."""
    have, kept = facts(source.text).content, facts(result).every_stem
    if not have:
        return []
    missing = sorted(w for w in have if not _kept(w, kept))
    share = 1.0 - len(missing) / len(have)
    if share >= min_recall:
        return []
    return [
        f"result keeps {share:.0%} of the content words of {source.id} "
        f"(< {min_recall:.0%}); missing: {', '.join(missing[:8])}"
    ]


def _kept(word: str, kept: frozenset[str]) -> bool:
    """A source's word is kept as itself or as its adjective or adverb ("fluent" /
    "fluently"): the same word in another part of speech."""
    base = word.removesuffix("ly") if len(word) > 5 else word
    return bool({stem(word), stem(f"{word}ly"), stem(base)} & kept)


def swapped_in(result: str, sources: Sequence[Source], swap_max: int) -> list[str]:
    """Words of a source the result replaced, in place, by a word no source holds."""
    known = frozenset().union(*(facts(s.text).every_stem for s in sources))
    problems: list[str] = []
    for source in sources:
        for swap in substitutions(source.text, result, swap_max):
            if not set(swap.item.split()) <= known:
                problems.append(f"result swaps a word of {source.id} ({swap.detail})")
    return problems


def drift_problems(
    result: Vector, sources: Sequence[tuple[str, Vector | None]], max_drift: float
) -> list[str]:
    """The breaker's drift check: a result further than ``max_drift`` (1 - cosine) from
    every source with a vector is about something else."""
    drifts = [1.0 - _cos(result, vec) for _, vec in sources if vec is not None]
    if drifts and min(drifts) > max_drift:
        return [f"embedding drift {min(drifts):.3f} from the closest source (> {max_drift:g})"]
    return []


def _cos(a: Vector, b: Vector) -> float:
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    if na == 0.0 or nb == 0.0:
        return 0.0
    return float(np.dot(a, b)) / (na * nb)
