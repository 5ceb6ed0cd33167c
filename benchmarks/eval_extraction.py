"""Extraction of memories from LoCoMo conversations: do extracted memories find the
evidence as well as the raw turns do, and at what size and cost?

    .venv/bin/python benchmarks/eval_extraction.py [--judge rules|llm] [--skip-convs K]
        [--max-convs N] [--max-sessions S] [--out FILE]

LoCoMo dev conversations only. Each session's dialog turns become messages (role user,
the turn's text, the speaker as its ``name``, the turn's dialog id as its message id)
and go through ``extract`` (engine/conversation/extract.py) one session at a time:
offline rules (``--judge rules``) or the LLM judge on ``MEMFOLD_LLM_*`` (``--judge
llm``; ``../shared/tools/local-llm.sh``). An extract says "User" for the speaker; here
it is given the speaker's name back ("User's dog" -> "Caroline's dog"), as a LoCoMo
question names the person. Two stores, both unjudged (no consolidation), the default
embedder: the raw turns (``memfold eval --suite turns``'s store), and the extracts with
their message ids as sources. Each QA item of categories 1-4 with evidence is searched
(hybrid, k = 10) in both and scored by evidence recall (evaluation/metrics.py, as the
turns suite does). Reported: recall@10 per store and category, memories per message,
extracts per area, LLM calls and tokens per message (the store's usage table).
"""

from __future__ import annotations

import re
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench_common import machine, parser, table, write_json
from memfold import Memory
from memfold.config import Settings
from memfold.embed.local import LocalEmbedder
from memfold.engine.conversation.extract import Extracted, extract
from memfold.evaluation.conversations import LocomoConversation, load_locomo
from memfold.evaluation.env import make_eval_judge
from memfold.evaluation.metrics import evidence_recall, mean
from memfold.evaluation.run_locomo import CATEGORIES, CATEGORY_NAMES
from memfold.model import Scope
from memfold.policy.messages import Message, Role

K = 10
_SPEAKER = re.compile(r"^([^:]{1,40}):\s+(.*)$", re.DOTALL)
_USER = re.compile(r"\b[Uu]ser(?=\b)")


def session_messages(conv: LocomoConversation, max_sessions: int | None) -> list[list[Message]]:
    """The conversation's turns as messages, one list per session (by date)."""
    sessions: dict[Any, list[Message]] = {}
    for turn in conv.turns:
        match = _SPEAKER.match(turn.text)
        speaker, text = (match.group(1), match.group(2)) if match else ("", turn.text)
        when = turn.created_at
        session = sessions.setdefault(when, [])
        dia = turn.sources[0]
        meta: dict[str, Any] = {"name": speaker}
        assert when is not None
        session.append(Message(dia, conv.sample_id, len(session), Role.USER, text, when, meta))
    ordered = list(sessions.values())
    return ordered if max_sessions is None else ordered[:max_sessions]


def _named(found: Extracted, speakers: dict[str, str]) -> str:
    name = speakers.get(found.sources[0], "")
    return _USER.sub(name, found.text) if name else found.text


def _recall(mem: Memory, conv: LocomoConversation, asked: set[str] | None) -> list[Any]:
    rows = []
    for qa in conv.qa:
        if qa.category not in CATEGORIES or not qa.evidence:
            continue
        if asked is not None and not set(qa.evidence) <= asked:
            continue  # evidence outside the sessions ingested (--max-sessions)
        hits = mem.search(qa.question, user_id=conv.sample_id, k=K, mode="hybrid")
        rows.append((qa.category, evidence_recall(qa.evidence, (h.memory.sources for h in hits))))
    return rows


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def main() -> None:
    p = parser(__doc__ or "", "eval_extraction.json")
    p.add_argument("--judge", choices=("rules", "llm"), default="rules")
    p.add_argument("--skip-convs", type=int, default=0, help="dev conversations to leave out first")
    p.add_argument("--max-convs", type=int, default=None)
    p.add_argument("--max-sessions", type=int, default=None, help="per conversation")
    args = p.parse_args()
    settings = Settings()
    judge = make_eval_judge(args.judge, settings)
    convs = load_locomo(args.data, "dev")[args.skip_convs :][: args.max_convs]
    embedder = LocalEmbedder()
    areas: Counter[str] = Counter()
    raw_rows: list[Any] = []
    ext_rows: list[Any] = []
    n_messages = n_extracts = 0
    seconds = 0.0
    calls = prompt_tokens = completion_tokens = 0
    with tempfile.TemporaryDirectory(prefix="memfold-extract-") as tmp:
        for conv in convs:
            sessions = session_messages(conv, args.max_sessions)
            msgs = [m for s in sessions for m in s]
            speakers = {m.id: str(m.metadata.get("name", "")) for m in msgs}
            n_messages += len(msgs)
            raw = Memory(
                Path(tmp) / f"{conv.sample_id}-raw.db", embedder=embedder, consolidate="off"
            )
            ext = Memory(
                Path(tmp) / f"{conv.sample_id}-ext.db", embedder=embedder, consolidate="off"
            )
            try:
                raw.add_many(
                    [
                        {
                            "text": f"{speakers[m.id]}: {m.content}",
                            "user_id": conv.sample_id,
                            "sources": [m.id],
                        }
                        for m in msgs
                    ],
                    consolidate=False,
                )
                if args.judge == "llm":
                    judge = make_eval_judge("llm", settings, usage_sink=ext.store)
                found: list[Extracted] = []
                started = time.perf_counter()
                for session in sessions:
                    found += extract(ext.ctx, judge, session, Scope(user_id=conv.sample_id))
                seconds += time.perf_counter() - started
                areas.update(f.area.value for f in found)
                n_extracts += len(found)
                if found:
                    ext.add_many(
                        [
                            {
                                "text": _named(f, speakers),
                                "user_id": conv.sample_id,
                                "area": f.area,
                                "sources": list(f.sources),
                            }
                            for f in found
                        ],
                        consolidate=False,
                    )
                for row in ext.usage():
                    calls += int(row.get("calls", 0))
                    prompt_tokens += int(row.get("prompt_tokens", 0))
                    completion_tokens += int(row.get("completion_tokens", 0))
                asked = None if args.max_sessions is None else set(speakers)
                raw_rows += _recall(raw, conv, asked)
                ext_rows += _recall(ext, conv, asked)
            finally:
                raw.close()
                ext.close()

    def by_category(rows: list[Any]) -> dict[str, float | None]:
        out = {"all": mean(r for _, r in rows)}
        out.update({CATEGORY_NAMES[c]: mean(r for cat, r in rows if cat == c) for c in CATEGORIES})
        return out

    result = {
        "machine": machine(),
        "judge": args.judge,
        "conversations": [c.sample_id for c in convs],
        "max_sessions": args.max_sessions,
        "questions_by_category": {
            CATEGORY_NAMES[c]: sum(1 for cat, _ in raw_rows if cat == c) for c in CATEGORIES
        },
        "messages": n_messages,
        "questions": len(raw_rows),
        "extracts": n_extracts,
        "memories_per_message": n_extracts / n_messages if n_messages else None,
        "extracts_by_area": dict(areas),
        "recall_at_10": {"raw_turns": by_category(raw_rows), "extracted": by_category(ext_rows)},
        "llm_calls_per_message": calls / n_messages if n_messages else None,
        "prompt_tokens_per_message": prompt_tokens / n_messages if n_messages else None,
        "completion_tokens_per_message": completion_tokens / n_messages if n_messages else None,
        "extraction_seconds_per_message": seconds / n_messages if n_messages else None,
    }
    raw_r, ext_r = by_category(raw_rows), by_category(ext_rows)
    table(
        f"evidence recall@10 (hybrid), LoCoMo dev, extraction by {args.judge}",
        [[k, _fmt(raw_r[k]), _fmt(ext_r[k])] for k in raw_r],
        ["questions", "raw turns", "extracted"],
    )
    keys = ["messages", "questions", "extracts", "memories_per_message", "extracts_by_area"]
    keys += ["llm_calls_per_message", "prompt_tokens_per_message"]
    keys += ["completion_tokens_per_message", "extraction_seconds_per_message"]
    table("size and cost", [[k, str(result[k])] for k in keys], ["what", "value"])
    write_json(args.out, result)


if __name__ == "__main__":
    main()
