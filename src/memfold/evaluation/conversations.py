"""Loading LoCoMo conversations and BEAM chats as ordered memory streams with questions.

Only the records of the requested split are kept: held-out conversations and chats
are never turned into objects during a dev run.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memfold.evaluation.metrics import parse_evidence
from memfold.evaluation.splits import BEAM_CHATS, LOCOMO_CONVS, Split


@dataclass(frozen=True, slots=True)
class StreamItem:
    """One memory to ingest: text, provenance ids, time."""

    text: str
    sources: tuple[str, ...]
    created_at: datetime | None


@dataclass(frozen=True, slots=True)
class LocomoQA:
    question: str
    answer: str
    evidence: tuple[str, ...]
    category: int


@dataclass(slots=True)
class LocomoConversation:
    sample_id: str
    observations: list[StreamItem] = field(default_factory=list)
    qa: list[LocomoQA] = field(default_factory=list)
    # The dialog turns themselves ("Speaker: text"), each with its dialog id.
    turns: list[StreamItem] = field(default_factory=list)


_SESSION = re.compile(r"^session_(\d+)_observation$")
_TURNS = re.compile(r"^session_(\d+)$")
_TURN = re.compile(r"D(\d+):(\d+)")


def parse_locomo_date(text: object) -> datetime | None:
    """'1:56 pm on 8 May, 2023' -> an aware datetime (None when unreadable)."""
    try:
        return datetime.strptime(str(text).strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
    except ValueError:
        return None


def _turn_key(sources: tuple[str, ...]) -> tuple[int, int]:
    match = _TURN.search(sources[0]) if sources else None
    return (int(match.group(1)), int(match.group(2))) if match else (10**6, 0)


def locomo_conversation(raw: dict[str, Any]) -> LocomoConversation:
    """Observations in session order (within a session, in dialog-turn order, so the two
    speakers interleave as they spoke); QA items as given, evidence repaired."""
    conv = LocomoConversation(str(raw["sample_id"]))
    sessions = []
    for key, per_speaker in (raw.get("observation") or {}).items():
        match = _SESSION.match(key)
        if match and isinstance(per_speaker, dict):
            sessions.append((int(match.group(1)), per_speaker))
    for number, per_speaker in sorted(sessions, key=lambda s: s[0]):
        when = parse_locomo_date(raw["conversation"].get(f"session_{number}_date_time"))
        items: list[StreamItem] = []
        for entries in per_speaker.values():
            for entry in entries:
                text, dia = entry[0], entry[1] if len(entry) > 1 else []
                sources = tuple(parse_evidence(dia if isinstance(dia, list) else [dia]))
                if str(text).strip():
                    items.append(StreamItem(str(text).strip(), sources, when))
        conv.observations.extend(sorted(items, key=lambda it: _turn_key(it.sources)))
    conv.turns = _turns(raw.get("conversation") or {})
    for qa in raw.get("qa") or []:
        answer = qa.get("answer", qa.get("adversarial_answer", ""))
        evidence = tuple(parse_evidence(qa.get("evidence") or []))
        conv.qa.append(LocomoQA(str(qa["question"]), str(answer), evidence, int(qa["category"])))
    return conv


def _turns(conversation: dict[str, Any]) -> list[StreamItem]:
    """Every dialog turn in session order, as "Speaker: text", its dia_id its source."""
    sessions = sorted(
        (int(m.group(1)), turns)
        for key, turns in conversation.items()
        if (m := _TURNS.match(key)) and isinstance(turns, list)
    )
    out: list[StreamItem] = []
    for number, turns in sessions:
        when = parse_locomo_date(conversation.get(f"session_{number}_date_time"))
        for turn in turns:
            text = str(turn.get("text") or "").strip() if isinstance(turn, dict) else ""
            if text and turn.get("dia_id"):
                speaker = str(turn.get("speaker") or "").strip()
                said = f"{speaker}: {text}" if speaker else text
                out.append(StreamItem(said, tuple(parse_evidence([turn["dia_id"]])), when))
    return out


def load_locomo(data: Path, split: Split) -> list[LocomoConversation]:
    wanted = LOCOMO_CONVS[split]
    raw = json.loads((data / "locomo" / "locomo10.json").read_text(encoding="utf-8"))
    by_id = {str(c.get("sample_id")): c for c in raw}
    # Build objects only for the requested split's conversations.
    return [locomo_conversation(by_id[sid]) for sid in wanted if sid in by_id]


# --- BEAM ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BeamUpdate:
    question: str
    original: tuple[str, ...]
    updated: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class BeamContradiction:
    question: str
    first: tuple[str, ...]
    second: tuple[str, ...]


@dataclass(slots=True)
class BeamChat:
    number: int
    messages: list[StreamItem] = field(default_factory=list)
    updates: list[BeamUpdate] = field(default_factory=list)
    contradictions: list[BeamContradiction] = field(default_factory=list)


BEAM_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)


def parse_beam_date(text: object) -> datetime | None:
    """'March-15-2024' -> an aware datetime."""
    try:
        return datetime.strptime(str(text).strip(), "%B-%d-%Y").replace(tzinfo=UTC)
    except ValueError:
        return None


def _ids(value: object) -> tuple[str, ...]:
    values = value if isinstance(value, list) else [value]
    return tuple(str(v) for v in values if v is not None and str(v).strip())


def beam_chat(number: int, chat: list[Any], questions: dict[str, Any]) -> BeamChat:
    """User messages in order (sources = the message id); the two question types used."""
    out = BeamChat(number)
    # Only some messages carry a time anchor (a day). Each message is dated at the last
    # anchor seen plus its position in seconds, so the stream's order is its chronology.
    anchor = BEAM_EPOCH
    position = 0
    for batch in chat:
        for turn in batch.get("turns") or []:
            for message in turn:
                if message.get("role") != "user" or not str(message.get("content", "")).strip():
                    continue
                anchor = max(anchor, parse_beam_date(message.get("time_anchor")) or anchor)
                position += 1
                when = anchor + timedelta(seconds=position)
                out.messages.append(
                    StreamItem(str(message["content"]).strip(), (str(message["id"]),), when)
                )
    for q in questions.get("knowledge_update") or []:
        ids = q.get("source_chat_ids") or {}
        out.updates.append(
            BeamUpdate(
                str(q["question"]), _ids(ids.get("original_info")), _ids(ids.get("updated_info"))
            )
        )
    for q in questions.get("contradiction_resolution") or []:
        ids = q.get("source_chat_ids") or {}
        out.contradictions.append(
            BeamContradiction(
                str(q["question"]),
                _ids(ids.get("first_statement")),
                _ids(ids.get("second_statement")),
            )
        )
    return out


def load_beam(data: Path, split: Split, size: str = "100K") -> list[BeamChat]:
    chats: list[BeamChat] = []
    for number in BEAM_CHATS[split]:
        folder = data / "beam" / size / str(number)
        if not folder.is_dir():
            continue
        chat = json.loads((folder / "chat.json").read_text(encoding="utf-8"))
        questions = json.loads((folder / "probing_questions.json").read_text(encoding="utf-8"))
        chats.append(beam_chat(number, chat, questions))
    return chats
