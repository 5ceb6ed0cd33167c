"""How much of a LoCoMo dev conversation the sliding window still holds at its end,
offline (the extractive digest) or with the LLM summary:

    .venv/bin/python benchmarks/eval_window.py [--max-convs N] [--out FILE]

Each dev conversation's turns, all sessions in order, go into one Conversation (the
first speaker's turns as role user, the other's as assistant, the speaker as
``name``), with ``messages()`` called after every turn (k_memories = 0), so the summary
is written as a chat would write it (default settings: threshold 100, keep 20,
summary_max_chars 6,000). Uses ``MEMFOLD_LLM_*`` when set (the summary task), else the
digest. Measured on the final window (system message + the turns not yet summarized):

- answer recall: the share of QA items (categories 1-4) whose answer, lowercased, is a
  substring of the window's text, against the share for the whole transcript (the
  ceiling: LoCoMo answers are often not written in the turns as such);
- evidence kept: the share of evidence turns of which at least one sentence of 20+
  characters is in the window verbatim; and that share among the evidence turns the
  summary covers (those no longer in the window verbatim);
- the window's size in characters against the transcript's; summary parts written.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

from bench_common import machine, parser, table, write_json
from memfold import Memory
from memfold.config import Settings
from memfold.embed.local import LocalEmbedder
from memfold.evaluation.conversations import load_locomo
from memfold.evaluation.run_locomo import CATEGORIES
from memfold.policy.summary_parts import PartKind

_SPEAKER = re.compile(r"^([^:]{1,40}):\s+(.*)$", re.DOTALL)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def main() -> None:
    p = parser(__doc__ or "", "eval_window.json")
    p.add_argument("--max-convs", type=int, default=None)
    args = p.parse_args()
    settings = Settings()
    convs = load_locomo(args.data, "dev")[: args.max_convs]
    embedder = LocalEmbedder()
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="memfold-window-") as tmp:
        for conv in convs:
            with Memory(
                Path(tmp) / f"{conv.sample_id}.db",
                settings=settings,
                embedder=embedder,
                consolidate="off",
            ) as mem:
                chat = mem.conversation(conv.sample_id, user_id=conv.sample_id)
                first_speaker = None
                text_of: dict[str, str] = {}
                position: dict[str, int] = {}
                for turn in conv.turns:
                    match = _SPEAKER.match(turn.text)
                    speaker, text = (match.group(1), match.group(2)) if match else ("", turn.text)
                    first_speaker = first_speaker or speaker
                    role = "user" if speaker == first_speaker else "assistant"
                    chat.append(role, text, created_at=turn.created_at, name=speaker)
                    text_of[turn.sources[0]] = text
                    position[turn.sources[0]] = len(position)
                    window = chat.messages("What do you remember?", k_memories=0)
                shown = "\n".join(m["content"] for m in window[:-1]).lower()
                whole = "\n".join(text_of.values()).lower()
                qas = [q for q in conv.qa if q.category in CATEGORIES and q.evidence]
                answers = [str(q.answer).lower().strip() for q in qas]
                evidence = [e for q in qas for e in q.evidence if e in text_of]
                kept = [
                    any(len(s) >= 20 and s.lower() in shown for s in _SENTENCE.split(text_of[e]))
                    for e in evidence
                ]
                parts = chat.summary()
                covered = max((p.covers_to or 0 for p in parts), default=-1)
                old = [k for e, k in zip(evidence, kept, strict=True) if position[e] <= covered]
                rows.append(
                    {
                        "conversation": conv.sample_id,
                        "messages": len(chat),
                        "qa": len(qas),
                        "answer_in_window": sum(a in shown for a in answers) / len(answers),
                        "answer_in_transcript": sum(a in whole for a in answers) / len(answers),
                        "evidence_kept": sum(kept) / len(kept) if kept else 0.0,
                        "evidence_summarized": len(old),
                        "evidence_kept_summarized": sum(old) / len(old) if old else 0.0,
                        "window_chars": len(shown),
                        "transcript_chars": len(whole),
                        "summary_parts": sum(p.kind is PartKind.SUMMARY for p in parts),
                        "meta_parts": sum(p.kind is PartKind.META for p in parts),
                        "summary_source": chat.last_written.source if chat.last_written else "",
                    }
                )
    table(
        "sliding window at the end of each LoCoMo dev conversation",
        [
            [
                r["conversation"],
                str(r["messages"]),
                f"{r['answer_in_window']:.3f} / {r['answer_in_transcript']:.3f}",
                f"{r['evidence_kept']:.3f}",
                f"{r['evidence_kept_summarized']:.3f} of {r['evidence_summarized']}",
                f"{r['window_chars']:,} / {r['transcript_chars']:,}",
                f"{r['summary_parts']} + {r['meta_parts']} meta",
                r["summary_source"],
            ]
            for r in rows
        ],
        ["conv", "messages", "answer in window / transcript", "evidence kept",
         "kept of summarized", "chars",
         "parts", "summary"],
    )  # fmt: skip
    write_json(args.out, {"machine": machine(), "llm": settings.llm.configured, "rows": rows})


if __name__ == "__main__":
    main()
