"""Every supersede the fact-level update rule reads over the BEAM dev chats, offline.

The value facts of each user message (``policy.values.fact_split.value_facts``, as the
rule extractor keeps them, BEAM's "->-> session,turn" index dropped), then every
older/newer pair of facts from two different messages of one chat read by
``policy.values.fact_update.fact_update``: each pair it reads as a new value is
printed, to be read by hand (a wrong one retires a fact that did not change). No
store, no embedder, no judge: the rule alone, on more pairs than consolidation ever
shows it. Dev split only.

    .venv/bin/python benchmarks/probe_fact_updates.py [bench-data folder]
"""

from __future__ import annotations

import sys
from pathlib import Path

from memfold.config import ConversationSettings
from memfold.evaluation.beam_facts import bare
from memfold.evaluation.conversations import load_beam
from memfold.policy.values.fact_split import value_facts
from memfold.policy.values.fact_update import fact_update


def main(data: Path) -> None:
    settings = ConversationSettings()
    total = 0
    found = 0
    for chat in load_beam(data, "dev"):
        facts = [
            (item.sources[0], fact)
            for item in chat.messages
            for fact in value_facts(
                bare(item.text), settings.value_fact_min_words, settings.value_fact_max_words
            )
        ]
        total += len(facts)
        for i, (old_id, older) in enumerate(facts):
            for new_id, newer in facts[i + 1 :]:
                if old_id == new_id:
                    continue
                reason = fact_update(older, newer)
                if reason:
                    found += 1
                    print(f"chat {chat.number}, message {old_id} -> {new_id}: {reason}")
                    print(f"    older: {older}\n    newer: {newer}")
    print(f"{total} value facts, {found} supersedes read")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("../shared/bench-data"))
