"""The update channel: older memories a change may supersede, found below discovery.

"Sam lives in Lyon" / "Sam moved to Berlin" embed at cosine 0.64, under the 0.70 at
which on-save consolidation looks at a neighbour, so the update was never judged. A new
memory that carries a change cue ("moved to", "now", "was raised to") also gets, as
candidates, older active memories of its scope that

- hold its subject: the content words before the cue ("Sam", "the user's title", "the
  product launch"; after it when the cue comes first: "Now Sam lives..."), or of those
  the run the older holds from the start or up to the cue ("Soo-ah's team lead is Jiwoo
  Han as of this month": "Soo-ah's team lead");
- share a word of its attribute beyond the owner (a name, "user"): a word of the new
  text, or one its verb implies ("moved to" -> lives / based / home; "reports to" ->
  manager), found by the store's keyword search. A subject word counts only when the
  subject names an attribute beside its owner or in a compound ("the user's title",
  "the product launch"); "the frontend" alone does not;
- embed at ``update_channel_min_similarity`` or above.

A new memory whose value a change cue governs ("the new April 25 deadline", "moving
the call ... to April 22": ``policy.values.slots``) also gets those older memories that
state one fact with another value of the same attribute (``policy.values.fact_update``): their
words around the value differ too much for the subject test ("I'm kinda worried that I
won't meet the new April 25 deadline" / "my April 20 deadline for the peer-reviewed
draft submission").

Such a candidate (``Candidate.via == "update"``) may only be superseded: the guards
refuse any UPDATE, MERGE or REPLACE naming it, and a DELETE still needs the rules'
supersede evidence (``policy.evidence``). So "Ana moved to Berlin" (another subject)
and "Sam likes Lyon" (another attribute) are left alone.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from memfold.config import ConsolidationSettings
from memfold.engine.context import Context
from memfold.model import Candidate, MemoryRecord, Status
from memfold.policy import text as tx
from memfold.policy.values.fact_update import FactLimits, fact_update, has_value_cue
from memfold.policy.values.value_update import change_words
from memfold.policy.wording import lexicon as lx

__all__ = ["channel_open", "cue_index", "update_candidates", "update_match"]

# Words a change verb implies as its attribute, when the new text names none of its own:
# "Sam moved to Berlin" is about where Sam lives. Raw words (the keyword search stems
# them its own way); compared as ``tx.stem`` stems.
_IMPLIED: dict[str, tuple[str, ...]] = {
    "mov": ("lives", "live", "living", "resides", "based", "home", "located", "city", "apartment"),
    "relocat": ("lives", "live", "living", "resides", "based", "home", "located", "city"),
    "report": ("manager", "boss", "supervisor", "lead", "reports"),
    "transfer": ("team", "department", "office", "division"),
    "join": ("works", "work", "job", "employer", "company", "team"),
}
_IMPLIED_STEMS: dict[str, frozenset[str]] = {
    k: frozenset(tx.stem(w) for w in v) for k, v in _IMPLIED.items()
}
# Owners of a fact besides capitalized names: whose it is, not what it is about.
_OWNER_WORDS = frozenset({"user", "i", "me", "my", "we", "our"})
_CUE_PHRASES: tuple[tuple[str, ...], ...] = tuple(
    tuple(p.split()) for p in sorted(set(tx.CHANGE_PHRASES), key=len, reverse=True)
)
# The change phrases that open the channel: all but "as of" ("As of 2002, I enjoy metal
# music" dated a fifth of the drain benchmark's saves, each a keyword search of the scope).
_CHANNEL_PHRASES = tuple(p for p in tx.CHANGE_PHRASES if p != "as of")
# How far after a weak change verb ("raised", "moved") its "to" / "from" may stand.
_VALUE_REACH = 3


def has_cue(text: str) -> bool:
    """Does ``text`` announce a change (a change phrase, or a change word before a value)?
    "As of" alone dates a value rather than announcing a change: it opens no keyword
    search here (the rules still read it when a vector neighbour is judged)."""
    if change_words(text):
        return True
    return tx.has_phrase(text, _CHANNEL_PHRASES)


def cue_index(words: list[str]) -> int | None:
    """Index of the first token (lowercased ``words``) that starts a change cue."""
    for i, word in enumerate(words):
        if any(tuple(words[i : i + len(p)]) == p for p in _CUE_PHRASES):
            return i
        stem = tx.stem(word)
        if stem in lx.CHANGE_STEMS:
            return i
        after = set(words[i + 1 : i + 1 + _VALUE_REACH])
        if stem in lx.CHANGE_STEMS_BEFORE_VALUE and lx.CHANGE_VALUE_WORDS & after:
            return i
    return None


def _content(tokens: Iterable[str]) -> list[tuple[str, str]]:
    """(token, stem) of the content words among ``tokens``."""
    return [
        (t, tx.stem(t.lower()))
        for t in tokens
        if t.lower() not in tx.STOPWORDS and not tx.is_negation(t)
    ]


def _cue_stems(words: list[str]) -> set[str]:
    """Stems of every word in a change phrase or a change word of ``words``."""
    out: set[str] = set()
    for i in range(len(words)):
        for phrase in _CUE_PHRASES:
            if tuple(words[i : i + len(phrase)]) == phrase:
                out |= {tx.stem(w) for w in phrase}
        stem = tx.stem(words[i])
        if stem in lx.CHANGE_STEMS or stem in lx.CHANGE_STEMS_BEFORE_VALUE:
            out.add(stem)
    return out


def _subject(tokens: list[str], cue: int, cue_stems: set[str]) -> list[tuple[str, str]]:
    """The content words naming what changed: those before the cue, else the first after
    it that is not the cue's own ("These days the user ...": "user", not "days")."""
    before = _content(tokens[:cue])
    if before:
        return before
    return [c for c in _content(tokens[cue + 1 :]) if c[1] not in cue_stems][:1]


def _held_run(subject: list[tuple[str, str]], old: set[str]) -> list[tuple[str, str]]:
    """The words of ``subject`` the older text holds: all of them, else the longest run
    from the start ("Soo-ah's team lead is Jiwoo Han as of ...": "Soo-ah's team lead")
    or up to the cue ("After three months of training, the user now ...": "the user")."""
    held = [stem in old for _, stem in subject]
    if all(held):
        return subject
    start = held.index(False)
    end = len(held) - held[::-1].index(False)
    head, tail = subject[:start], subject[end:]
    return head if len(head) >= len(tail) else tail


def implied_words(text: str) -> list[str]:
    """The attribute words ``text``'s verbs imply (raw words, for a keyword query)."""
    stems = {tx.stem(t.lower()) for t in tx.tokens(text)}
    return [w for key, words in _IMPLIED.items() if key in stems for w in words]


def update_match(older: str, newer: str) -> str:
    """Why ``older`` is a candidate for ``newer``'s update channel ("" when it is not):
    ``newer`` has a change cue, ``older`` holds its subject and shares a word of its
    attribute that is not the owner's name."""
    tokens = tx.tokens(newer)
    words = [t.lower() for t in tokens]
    cue = cue_index(words)
    if cue is None or not has_cue(newer):
        return ""
    cues = _cue_stems(words)
    old = tx.content_words(older)
    subject = _held_run(_subject(tokens, cue, cues), old)
    anchor = {stem for _, stem in subject}
    if not anchor:
        return ""
    owners = {stem for token, stem in subject if token[:1].isupper() or stem in _OWNER_WORDS}
    attribute = {stem for _, stem in _content(tokens)} - cues
    stems = {tx.stem(w) for w in words}
    for key, implied in _IMPLIED_STEMS.items():
        if key in stems:
            attribute |= implied
    shared = (attribute & old) - owners
    # A subject word counts as the attribute only when the subject names one beside
    # its owner ("the user's title") or in a compound ("the product launch"); "the
    # frontend" alone shared with "The frontend is a Next.js app" is no attribute.
    named = anchor - owners
    if not shared - anchor and not (shared & named and (owners or len(named) >= 2)):
        return ""
    return (
        f"update channel: same subject ({', '.join(sorted(anchor))}), "
        f"shared attribute ({', '.join(sorted(shared))})"
    )


def _cosine(a: MemoryRecord, b: MemoryRecord) -> float | None:
    if a.embedding is None or b.embedding is None or a.embedding.shape != b.embedding.shape:
        return None
    norm = float(np.linalg.norm(a.embedding) * np.linalg.norm(b.embedding))
    if norm == 0.0:
        return None
    return float(a.embedding @ b.embedding) / norm


def channel_open(cfg: ConsolidationSettings, record: MemoryRecord) -> bool:
    """Whether the channel looks for candidates of ``record`` at all (else it finds none,
    whatever the store holds): it is on, the save has a vector and a change cue (or a
    value a change cue governs)."""
    if cfg.update_channel_max <= 0 or record.embedding is None:
        return False
    return has_cue(record.text) or has_value_cue(record.text, FactLimits.from_settings(cfg))


def update_candidates(
    ctx: Context, record: MemoryRecord, exclude: Iterable[str] = ()
) -> list[Candidate]:
    """Update-channel candidates for ``record`` (any insertion order; the caller keeps
    the older ones), best cosine first, at most ``update_channel_fetched`` looked at."""
    cfg = ctx.settings.consolidation
    if not channel_open(cfg, record):
        return []
    query = " ".join([record.text, *implied_words(record.text)])
    hits = ctx.store.keyword_search(
        record.scope, query, cfg.update_channel_fetched, statuses=(Status.ACTIVE,)
    )
    skip = {record.id, *exclude}
    records = ctx.store.get_memories(mid for mid, _ in hits if mid not in skip)
    facts = FactLimits.from_settings(cfg)
    found: list[Candidate] = []
    for memory in records.values():
        if memory.status is not Status.ACTIVE or memory.scope != record.scope:
            continue
        cosine = _cosine(record, memory)
        if cosine is None or not cosine >= cfg.update_channel_min_similarity:
            continue
        if update_match(memory.text, record.text) or fact_update(memory.text, record.text, facts):
            found.append(Candidate(memory, cosine, via="update"))
    found.sort(key=lambda c: (-c.similarity, c.memory.id))
    return found
