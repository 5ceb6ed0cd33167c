"""benchmarks/eval_add_messages.py's glue: the message ids add() gives are mapped back to
the dialog ids the questions cite, and each extract's save is counted by its action."""

from __future__ import annotations

import sys
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from memfold import Memory
from memfold.embed.local import LocalEmbedder
from memfold.policy.messages import Message, Role

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from eval_add_messages import _as_input, _ingest, first_messages  # noqa: E402

WHEN = datetime(2023, 5, 8, tzinfo=UTC)


def _session(*turns: tuple[str, str, str]) -> list[Message]:
    return [
        Message(dia, "conv-x", n, Role.USER, text, WHEN, {"name": speaker})
        for n, (dia, speaker, text) in enumerate(turns)
    ]


def test_messages_carry_the_speaker_as_name() -> None:
    (msg,) = _as_input(_session(("D1:1", "Caroline", "I went to a support group.")))
    assert msg == {"role": "user", "content": "I went to a support group.", "name": "Caroline"}


def test_ingest_maps_stored_ids_to_dialog_ids(tmp_path: Path, embedder: LocalEmbedder) -> None:
    sessions = [
        _session(("D1:1", "Mel", "I paint landscapes."), ("D1:2", "Caroline", "Nice colours.")),
        _session(("D2:1", "Mel", "My daughter plays the violin.")),
    ]
    actions: Counter[str] = Counter()
    with Memory(tmp_path / "m.db", embedder=embedder, consolidate="sync") as mem:
        dia_of, seconds = _ingest(mem, sessions, "conv-x", False, actions)
        stored = mem.list(user_id="conv-x", limit=None)
    assert sorted(dia_of.values()) == ["D1:1", "D1:2", "D2:1"]
    assert {dia_of[s] for m in stored for s in m.sources} == {"D1:1", "D1:2", "D2:1"}
    assert seconds >= 0 and not actions  # infer=False: nothing extracted to count


def test_ingest_counts_each_saved_extract(tmp_path: Path, embedder: LocalEmbedder) -> None:
    sessions = [_session(("D1:1", "Mel", "I work as a nurse in Leeds."))]
    actions: Counter[str] = Counter()
    with Memory(tmp_path / "m.db", embedder=embedder, consolidate="sync") as mem:
        _ingest(mem, sessions, "conv-x", True, actions)
        kept = len(mem.list(user_id="conv-x", limit=None))
    assert sum(actions.values()) == kept >= 1


def test_first_messages_keeps_the_raw_turns_budget() -> None:
    cited = [["D1:3", "D1:4", "D1:5"], ["D1:4", "D2:1"], ["D3:1"]]
    assert first_messages(cited, 4) == ["D1:3", "D1:4", "D1:5", "D2:1"]
    assert first_messages(cited, 10) == ["D1:3", "D1:4", "D1:5", "D2:1", "D3:1"]
