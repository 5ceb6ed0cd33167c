"""The update channel: older memories a change may supersede, found below discovery.

"Sam lives in Lyon" / "Sam moved to Berlin" embed at cosine 0.64, under the 0.70 at
which on-save consolidation looks at a neighbour, so the update was never judged. A new
memory whose reading holds a change cue (``memfold.reading.cues.change_cues``: "moved
to", "now", "was raised to") also gets, as candidates, older active memories of its scope
that the store's keyword search finds for its words (and the attributes its verb implies:
``reading/data/implied_attributes.txt``, "moved" -> where one lives), that embed at
``update_channel_min_similarity`` or above, and that ``update_match`` reads as about the
same thing: the parse finds no other subject, owner or person
(``difference.supersede_conflicts``), and the newer names what the older says of it (its
attribute, ``supersede_min_overlap`` of its words; a bare subject such as "the frontend"
is no attribute).

Such a candidate (``Candidate.via == "update"``) may only be superseded: the guards
refuse any UPDATE, MERGE or REPLACE naming it, and a DELETE still needs the readings'
supersede evidence. So "Ana moved to Berlin" (another person) and "Sam likes Lyon"
(another attribute) are left alone.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from memfold.config import ConsolidationSettings
from memfold.engine import readings
from memfold.engine.context import Context
from memfold.engine.search import keyword_scoring
from memfold.model import Candidate, MemoryRecord, Status
from memfold.reading.attribute import attribute as supersede_attribute
from memfold.reading.attribute import (
    implied_words,
    named_stems,
    owned_overlap,
    retold_modifiers,
)
from memfold.reading.cues import change_cues, cue_spans
from memfold.reading.difference import supersede_conflicts
from memfold.reading.facts import Facts, facts
from memfold.reading.keys import norm, stem, table_stems
from memfold.reading.moved_value import moved_value
from memfold.reading.restatement import new_value_only
from memfold.reading.supersede import revalued as supersede_revalued

__all__ = ["channel_open", "channel_query", "has_cue", "update_candidates", "update_match"]


def has_cue(text: str) -> bool:
    """Does ``text``'s reading announce a change ("moved to", "now", "no longer")?"""
    return bool(change_cues(facts(text)))


def update_match(older: str, newer: str, min_overlap: float, swap_max: int = 2) -> str:
    """Why ``older`` is a candidate for ``newer``'s update channel ("" when it is not):
    ``newer`` has a change cue ``older`` lacks, the parse reads both as about the same
    thing, and ``newer`` names at least ``min_overlap`` of ``older``'s attribute."""
    a, b = facts(older), facts(newer)
    cues = change_cues(b) - change_cues(a)
    if not cues or supersede_conflicts(older, newer):
        return ""
    if not _about(a) & _about(b):
        return ""
    left = left_behind(a, b)
    if left:
        # The newer names what the older holds as where its change came from
        # ("runs on Jenkins" / "was migrated from Jenkins to GitHub Actions").
        return f"update channel: change cue {', '.join(sorted(cues))} from {left}"
    attribute = supersede_attribute(a) - retold_modifiers(a, b)
    if not attribute:
        return ""
    named = named_stems(b)
    # "The user's default shell is bash" / "changed their default shell to zsh": the
    # thing whose value a copula tells is told again.
    share = max(len(attribute & named) / len(attribute), owned_overlap(a, b))
    if (share == 0 and not supersede_revalued(older, newer, cues, swap_max)) or (
        share < min_overlap
        and not new_value_only(older, newer, swap_max)
        and not moved_value(older, newer)
    ):
        # Neither most of what the older says, nor one fact with a new value ("a Zoom
        # meeting on March 22 at 3 PM" / "it's rescheduled to March 22 at 4:30 PM"; "8
        # cards" / "now a total of 10 cards"; "the phone is an iPhone 12" / "upgraded to
        # an iPhone 15 Pro", the attribute left for the value to tell).
        return ""
    told = ", ".join(sorted(attribute & named)) or "a new value only"
    return (
        f"update channel: change cue {', '.join(sorted(cues))}, same subject "
        f"({', '.join(sorted(_about(a) & _about(b)))}), attribute {told}"
    )


def left_behind(a: Facts, b: Facts) -> str:
    """A name of ``a`` that ``b``'s change cue says it came from ("migrated from
    Jenkins", "switched from Vim", "replaced their Corolla with a Kia"), or ""."""
    at = {j for i, n, _ in cue_spans(b) for j in range(i, i + n)}
    froms = {j for j, low in enumerate(b.lows) if low == "from" and b.heads[j] in at}
    # what "replaced" or "sold" takes is what went
    left = {k for k, e in b.ends if e == "from"}
    gone = froms | {
        j
        for j, dep in enumerate(b.deps)
        if dep == "dobj" and b.heads[j] in at and norm(b.lemmas[j]) in left
    }
    objects = {b.lows[j] for j in range(len(b.lows)) if _under(b, j, gone)}
    objects |= {b.lows[j] for j in gone - froms}
    # the name whole or by its last words ("Toyota Corolla" / "their Corolla")
    return next(
        (
            n
            for n in sorted(a.names)
            for m in sorted(b.names)
            if set(m.split()) <= set(n.split()) and set(m.split()) <= objects
        ),
        "",
    )


def _under(f: Facts, j: int, heads: set[int]) -> bool:
    """Does word ``j`` hang, through its heads, on one of ``heads`` (not being one)?"""
    seen = {j}
    while f.heads[j] not in seen:
        j = f.heads[j]
        if j in heads:
            return True
        seen.add(j)
    return False


_EMPTY_VERBS = frozenset(("be", "have"))  # verbs that name no attribute (as supersede's)
_SEARCHED = frozenset(("NOUN", "PROPN", "VERB", "ADJ"))


def channel_query(f: Facts) -> str:
    """What the keyword search looks for: the words of ``f`` that an older memory's
    attribute could share (``update_match`` needs one): its nouns, verbs, adjectives and
    names as written, less its change cues and "be" / "have", and the attributes its
    verbs imply. Not its function words ("am", "the"), which most memories of a scope
    hold: ranking every memory that has one is most of a search's cost in a large
    scope."""
    cues = table_stems("change_cues", "value_change_verbs")
    words = [
        low
        for low, lemma, pos in zip(f.lows, f.lemmas, f.poses, strict=True)
        if pos in _SEARCHED
        and lemma not in _EMPTY_VERBS
        and stem(lemma) not in cues
        and stem(low) not in cues
    ]
    return " ".join([*words, *implied_words(f)])


def _about(f: Facts) -> set[str]:
    """Who or what the clauses are about, word by word: their subjects (active or
    passive) and those subjects' owners."""
    keys = {key for _, subjects in f.clauses for key in subjects} | set(f.subject_mods)
    if not keys:
        # The parse found no subject ("Soo-ah's team lead is Jiwoo Han now" read as one
        # noun phrase): its names stand for it where one leads the text, else its names
        # and nouns ("The auth service stores user sessions in Redis", "stores" read as
        # a noun).
        keys = set(f.names) if _name_leads(f) else set(f.names) | set(f.nouns)
    keys |= _changed_things(f)
    out: set[str] = set()
    for modifiers in f.subject_mods.values():
        out |= modifiers  # "the 'tidepool' app is deployed": tidepool too
    for key in keys:
        out |= set(key.split())
        for owner in f.owners.get(key.split()[-1], ()):
            out |= set(owner.split())
    return out


def _name_leads(f: Facts) -> bool:
    """The text starts with a name, after an article at most."""
    start = 1 if f.lows[:1] in (("the",), ("a",), ("an",)) else 0
    first = f.lows[start] if start < len(f.lows) else ""
    return any(name.split()[0] == first for name in f.names)


def _changed_things(f: Facts) -> set[str]:
    """What a change cue's verb takes, with its compounds: the thing whose value changes
    ("extended the project deadline", "raised the endpoint's rate limit")."""
    at = {j for i, n, _ in cue_spans(f) for j in range(i, i + n)}
    found = set()
    for j, dep in enumerate(f.deps):
        if dep == "dobj" and f.heads[j] in at:
            compounds = [
                f.lemmas[k] for k, d in enumerate(f.deps) if d == "compound" and f.heads[k] == j
            ]
            found.add(" ".join([*compounds, f.lemmas[j]]))
    return found


def _cosine(a: MemoryRecord, b: MemoryRecord) -> float | None:
    if a.embedding is None or b.embedding is None or a.embedding.shape != b.embedding.shape:
        return None
    norm = float(np.linalg.norm(a.embedding) * np.linalg.norm(b.embedding))
    if norm == 0.0:
        return None
    return float(a.embedding @ b.embedding) / norm


def channel_open(cfg: ConsolidationSettings, record: MemoryRecord) -> bool:
    """Whether the channel looks for candidates of ``record`` at all (else it finds none,
    whatever the store holds): it is on, and the save has a vector and a change cue."""
    if cfg.update_channel_max <= 0 or record.embedding is None:
        return False
    return has_cue(record.text)


def update_candidates(
    ctx: Context, record: MemoryRecord, exclude: Iterable[str] = ()
) -> list[Candidate]:
    """Update-channel candidates for ``record`` (any insertion order; the caller keeps
    the older ones), best cosine first, at most ``update_channel_fetched`` looked at."""
    cfg = ctx.settings.consolidation
    if not channel_open(cfg, record):
        return []
    query = channel_query(facts(record.text))
    # Ranked as search ranks (BM25 on the scope's own statistics by default): FTS5's
    # bm25() walks every row of the scope, tens of milliseconds a query at 100k.
    depth = cfg.update_channel_fetched
    hits = ctx.store.keyword_search(
        record.scope,
        query,
        depth,
        statuses=(Status.ACTIVE,),
        bm25=keyword_scoring(ctx.settings.search, depth),
    )
    skip = {record.id, *exclude}
    records = ctx.store.get_memories(mid for mid, _ in hits if mid not in skip)
    near: list[tuple[MemoryRecord, float]] = []
    for memory in records.values():
        if memory.status is not Status.ACTIVE or memory.scope != record.scope:
            continue
        cosine = _cosine(record, memory)
        if cosine is not None and cosine >= cfg.update_channel_min_similarity:
            near.append((memory, cosine))
    readings.prime(ctx, (memory for memory, _ in near))  # only those the parse must read
    found: list[Candidate] = []
    for memory, cosine in near:
        if update_match(memory.text, record.text, cfg.supersede_min_overlap, cfg.swap_max_words):
            found.append(Candidate(memory, cosine, via="update"))
    found.sort(key=lambda c: (-c.similarity, c.memory.id))
    return found
